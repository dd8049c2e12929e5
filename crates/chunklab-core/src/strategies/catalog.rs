//! What every strategy is and which configuration keys it takes: `chunklab strategies` prints
//! it, [`crate::config::ChunkConfig::validate`] refuses a key a strategy does not take with it.
//! Parameter names are configuration keys (`max_level`); faces spell them their way
//! (`--max-level`).

/// One parameter of a strategy, for `chunklab strategies`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ParamInfo {
    /// The configuration key.
    pub name: &'static str,
    /// The default, as text.
    pub default: &'static str,
    /// One line of help.
    pub help: &'static str,
}

/// A strategy's name, one-line summary and parameters.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StrategyInfo {
    /// The strategy's name.
    pub name: &'static str,
    /// One line: what it does.
    pub summary: &'static str,
    /// The keys it takes.
    pub params: Vec<ParamInfo>,
}

const fn p(name: &'static str, default: &'static str, help: &'static str) -> ParamInfo {
    ParamInfo {
        name,
        default,
        help,
    }
}

const SIZE: ParamInfo = p("size", "1000", "hard maximum per chunk, in --unit");
const UNIT: ParamInfo = p(
    "unit",
    "chars",
    "chars | words | tokens (tokens: --tokenizer cl100k | o200k | PATH/tokenizer.json)",
);

const MODEL: ParamInfo = p(
    "model",
    "required",
    "minilm | e5-small | model directory | hub id (--fetch: fetch if missing)",
);
const MODEL_UNIT: ParamInfo = p(
    "unit",
    "model tokens",
    "chars | words | tokens; default: tokens of the model's tokenizer",
);

const LANG: ParamInfo = p(
    "lang",
    "auto",
    "en | nl | auto: sentence rules and abbreviations (auto: per document)",
);

const MAX_LEVEL: ParamInfo = p(
    "max_level",
    "6",
    "deepest heading level that starts a chunk (1 = chapters only)",
);
const TITLE_PREFIX: ParamInfo = p(
    "title_prefix",
    "false",
    "prefix each chunk with its heading path for embedding (counted in --size)",
);

/// Every strategy this build knows, in a stable order.
pub fn catalog() -> Vec<StrategyInfo> {
    vec![
        StrategyInfo {
            name: "recursive",
            summary:
                "cut at paragraphs, lines, sentences, clauses, words, then units; merge up to \
                      --size; --compat langchain = RecursiveCharacterTextSplitter",
            params: vec![
                SIZE,
                UNIT,
                p(
                    "overlap",
                    "0",
                    "units of context repeated from the previous chunk",
                ),
                p(
                    "separators",
                    "built-in",
                    "JSON array, highest level first (built-in: paragraph, line, sentence, \
                     clause, word, unit); \"\" = chars (native: units)",
                ),
                p(
                    "regex_separators",
                    "false",
                    "treat --separators as regexes (lookaround ok)",
                ),
                p(
                    "keep_separator",
                    "start",
                    "start | end | none: where a cut separator goes",
                ),
                p("compat", "native", "native | langchain"),
            ],
        },
        StrategyInfo {
            name: "fixed",
            summary: "consecutive windows of --size units; --compat langchain = TokenTextSplitter",
            params: vec![
                SIZE,
                UNIT,
                p("overlap", "0", "units shared by neighbouring chunks"),
                p("compat", "native", "native | langchain"),
            ],
        },
        StrategyInfo {
            name: "sliding",
            summary: "a window of --size units moving --stride units at a time",
            params: vec![
                SIZE,
                UNIT,
                p("stride", "size/2", "units the window moves; <= size"),
            ],
        },
        StrategyInfo {
            name: "sentence",
            summary: "whole sentences (English/Dutch rules) packed up to --size; long ones cut at \
                      words, then units",
            params: vec![
                SIZE,
                UNIT,
                p("overlap", "0", "sentences repeated from the previous chunk"),
                LANG,
            ],
        },
        StrategyInfo {
            name: "paragraph",
            summary: "whole paragraphs (blank-line separated) packed up to --size; long ones cut \
                      at sentences, words, then units",
            params: vec![
                SIZE,
                UNIT,
                p(
                    "overlap",
                    "0",
                    "paragraphs repeated from the previous chunk",
                ),
                LANG,
            ],
        },
        StrategyInfo {
            name: "headings",
            summary: "sections at headings (Markdown, reST, HTML, DOCX, ODT, PDF, numbered plain \
                      text) with their heading path; big sections split recursively, small \
                      siblings merged",
            params: vec![
                SIZE,
                UNIT,
                MAX_LEVEL,
                TITLE_PREFIX,
                p(
                    "merge_siblings",
                    "false",
                    "merge sibling sections up to the size (the chunk lists its sections); \
                     default: one section per chunk",
                ),
            ],
        },
        StrategyInfo {
            name: "elements",
            summary: "whole elements packed up to --size, a new chunk at each heading; tables, \
                      code and lists kept whole while they fit, big tables split by rows with \
                      the header repeated",
            params: vec![SIZE, UNIT, MAX_LEVEL, TITLE_PREFIX],
        },
        StrategyInfo {
            name: "code",
            summary: "source code by syntax tree (Rust, Python, JS, TS, Go, Java): functions, \
                      classes, impls and modules kept whole while they fit, small neighbours \
                      merged, big ones opened at their methods; metadata: language, symbol, \
                      kind, lines",
            params: vec![
                SIZE,
                UNIT,
                p(
                    "title_prefix",
                    "false",
                    "prefix chunks inside an opened class/impl/module with its header line(s) \
                     (counted in --size)",
                ),
            ],
        },
        StrategyInfo {
            name: "semantic",
            summary: "sentences embedded with a model, cut where neighbours' meaning changes \
                      (LangChain SemanticChunker breakpoints); big groups split recursively, \
                      small ones merged",
            params: vec![
                p(
                    "size",
                    "1000",
                    "hard maximum per chunk, in --unit (alias --max-size)",
                ),
                MODEL_UNIT,
                MODEL,
                p(
                    "breakpoint",
                    "percentile",
                    "percentile | stddev | interquartile | gradient",
                ),
                p(
                    "breakpoint_amount",
                    "95 | 3 | 1.5",
                    "percentile, gradient: break above this percentile of the distances (95; \
                     flag --percentile); stddev: mean + N std devs (3), interquartile: mean + N \
                     IQRs (1.5) (flag --threshold)",
                ),
                p(
                    "buffer",
                    "1",
                    "sentences on each side embedded with a sentence",
                ),
                p(
                    "min_size",
                    "none",
                    "merge smaller groups into their most similar neighbour while --size holds",
                ),
                LANG,
            ],
        },
        StrategyInfo {
            name: "cluster",
            summary: "small pieces embedded with a model and grouped by dynamic programming to \
                      maximise within-chunk similarity (Chroma ClusterSemanticChunker)",
            params: vec![
                SIZE,
                MODEL_UNIT,
                MODEL,
                p(
                    "piece_size",
                    "50",
                    "size of the pieces that are grouped, in --unit (<= --size)",
                ),
            ],
        },
        StrategyInfo {
            name: "hierarchical",
            summary: "parent/child levels: each level cut recursively inside its parent; every \
                      chunk has level and parent_id; all levels output, parents first",
            params: vec![
                p(
                    "levels",
                    "2048,512,128",
                    "size limit of each level, largest first, in --unit (replaces --size)",
                ),
                UNIT,
            ],
        },
        StrategyInfo {
            name: "late",
            summary: "late chunking: the whole document embedded once (overlapping windows past \
                      the model's context), token vectors mean-pooled per chunk of the \
                      --boundaries strategy; each chunk carries its `embedding` \
                      (chunklab-embed's LateChunker)",
            params: vec![
                MODEL,
                p(
                    "boundaries",
                    "recursive",
                    "the strategy that cuts the chunks (every other chunking flag applies to it)",
                ),
                p(
                    "late_window",
                    "model context",
                    "tokens per macro window for documents longer than the model's context",
                ),
                p(
                    "late_overlap",
                    "window/8",
                    "tokens that neighbouring macro windows share",
                ),
            ],
        },
        StrategyInfo {
            name: "llm",
            summary: "an LLM picks boundaries among numbered sentence/paragraph starts (never \
                      rewrites text); validated, bounded by --size, recursive on garbage \
                      (chunklab-llm's LlmChunker)",
            params: vec![
                SIZE,
                UNIT,
                p(
                    "llm",
                    "-",
                    "local:smollm2 | openai:BASE_URL#MODEL | anthropic:MODEL",
                ),
            ],
        },
    ]
}
