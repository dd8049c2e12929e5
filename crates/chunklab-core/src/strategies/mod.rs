//! Chunking strategies, one per file, and [`build`] which turns command-line style [`Options`]
//! into a boxed [`Chunker`]. [`catalog`] describes every strategy and its parameters.

mod cluster;
mod code;
mod elements;
mod fixed;
mod groups;
mod headings;
mod hierarchical;
mod pack;
mod paragraph;
mod recursive;
mod semantic;
mod sentence;
mod separators;
mod sliding;
mod structured;
pub(crate) mod window;

pub use cluster::Cluster;
pub use code::Code;
pub use elements::Elements;
pub use fixed::Fixed;
pub use headings::Headings;
pub use hierarchical::Hierarchical;
pub use paragraph::Paragraph;
pub use recursive::{Recursive, LANGCHAIN_SEPARATORS};
pub use semantic::{Breakpoint, Semantic};
pub use sentence::Sentence;
pub use sliding::Sliding;

use crate::chunker::Chunker;
use crate::error::{config_err, Result};
use crate::lang::Lang;
use crate::sizer::Sizer;
use crate::text_embedder::TextEmbedder;
use std::sync::Arc;

/// Output compatibility mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// chunklab semantics: exact spans, real-count size guarantee.
    #[default]
    Native,
    /// Reproduce LangChain's splitters' chunk texts (`RecursiveCharacterTextSplitter`,
    /// `TokenTextSplitter`).
    LangChain,
}

/// Where a separator that a recursive split cuts at goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeepSeparator {
    /// Attached to the start of the following piece (LangChain's `keep_separator=True`/`"start"`).
    #[default]
    Start,
    /// Attached to the end of the preceding piece (`keep_separator="end"`).
    End,
    /// Dropped from the pieces (`keep_separator=False`); LangChain then re-joins pieces with the
    /// separator, chunklab keeps the original text between them.
    Drop,
}

/// Strategy-independent options, as the CLI collects them.
#[derive(Debug, Clone)]
pub struct Options {
    pub strategy: String,
    /// Size limit in the sizer's units.
    pub size: usize,
    /// Overlap: sizer units for `fixed` and `recursive`, sentences for `sentence`, paragraphs for
    /// `paragraph`.
    pub overlap: usize,
    /// Step of the `sliding` window (default: half the size).
    pub stride: Option<usize>,
    pub lang: Lang,
    pub compat: Compat,
    /// Separators for `recursive` (default: paragraph, line, sentence, word, char).
    pub separators: Option<Vec<String>>,
    /// Treat `separators` as regular expressions (lookaround allowed).
    pub regex_separators: bool,
    pub keep_separator: KeepSeparator,
    /// Deepest heading level `headings` and `elements` split at (1 = chapters only).
    pub max_level: usize,
    /// `headings`/`elements`: put the heading path into each chunk's prefix (counted in the size).
    pub title_prefix: bool,
    /// The model `semantic` and `cluster` embed with (required by them, unused by the others).
    pub embedder: Option<Arc<dyn TextEmbedder>>,
    /// `semantic`: how a distance between neighbouring sentences becomes a breakpoint.
    pub breakpoint: Breakpoint,
    /// `semantic`: the breakpoint threshold amount (default per method: percentile 95, stddev 3,
    /// interquartile 1.5, gradient 95).
    pub breakpoint_amount: Option<f64>,
    /// `semantic`: sentences on each side joined to a sentence before embedding it (1 = a
    /// window of 3 sentences, like LangChain's `buffer_size`).
    pub buffer: usize,
    /// `semantic`: groups smaller than this (in the sizer's units) are merged into a neighbour
    /// while the size limit holds (default: none).
    pub min_size: Option<usize>,
    /// `cluster`: size of the small pieces that are embedded and grouped (default 50 units).
    pub piece_size: Option<usize>,
    /// `hierarchical`: the limit of each level, largest first (default 2048, 512, 128).
    pub levels: Option<Vec<usize>>,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            strategy: "recursive".into(),
            size: 1000,
            overlap: 0,
            stride: None,
            lang: Lang::Auto,
            compat: Compat::Native,
            separators: None,
            regex_separators: false,
            keep_separator: KeepSeparator::Start,
            max_level: 6,
            title_prefix: false,
            embedder: None,
            breakpoint: Breakpoint::Percentile,
            breakpoint_amount: None,
            buffer: 1,
            min_size: None,
            piece_size: None,
            levels: None,
        }
    }
}

/// Build the chunker `opts` describe, measuring with `sizer`. All parameter checks happen here,
/// before any text is read.
pub fn build(opts: &Options, sizer: Arc<dyn Sizer>) -> Result<Box<dyn Chunker>> {
    let langchain = opts.compat == Compat::LangChain;
    if langchain && !matches!(opts.strategy.as_str(), "recursive" | "fixed") {
        return config_err(format!(
            "--compat langchain applies to `recursive` and `fixed`, not `{}`",
            opts.strategy
        ));
    }
    Ok(match opts.strategy.as_str() {
        "fixed" if langchain => Box::new(Fixed::langchain(sizer, opts.size, opts.overlap)?),
        "fixed" => Box::new(Fixed::new(sizer, opts.size, opts.overlap)?),
        "recursive" => {
            let r = if langchain {
                Recursive::langchain(sizer, opts.size, opts.overlap)?
            } else {
                Recursive::new(sizer, opts.size, opts.overlap)?
            };
            let r = match &opts.separators {
                Some(seps) => r.with_separators(seps, opts.regex_separators)?,
                None => r,
            };
            Box::new(r.with_keep_separator(opts.keep_separator))
        }
        "sliding" => {
            let stride = opts.stride.unwrap_or((opts.size / 2).max(1));
            Box::new(Sliding::new(sizer, opts.size, stride)?)
        }
        "sentence" => Box::new(Sentence::new(sizer, opts.size, opts.overlap, opts.lang)?),
        "paragraph" => Box::new(Paragraph::new(sizer, opts.size, opts.overlap, opts.lang)?),
        "headings" => Box::new(Headings::new(
            sizer,
            opts.size,
            opts.max_level,
            opts.title_prefix,
        )?),
        "code" => Box::new(Code::new(sizer, opts.size, opts.title_prefix)?),
        "elements" => Box::new(Elements::new(
            sizer,
            opts.size,
            opts.max_level,
            opts.title_prefix,
        )?),
        "semantic" => Box::new(
            Semantic::new(sizer, opts.size, model_for(opts)?, opts.lang)?
                .with_breakpoint(opts.breakpoint, opts.breakpoint_amount)?
                .with_buffer(opts.buffer)?
                .with_min_size(opts.min_size)?,
        ),
        "cluster" => Box::new(Cluster::new(
            sizer,
            opts.size,
            opts.piece_size.unwrap_or_else(|| {
                DEFAULT_PIECE_SIZE
                    .max(opts.size.div_ceil(256))
                    .min(opts.size)
            }),
            model_for(opts)?,
        )?),
        "hierarchical" => Box::new(Hierarchical::new(
            sizer,
            opts.levels
                .clone()
                .unwrap_or_else(|| DEFAULT_LEVELS.to_vec()),
        )?),
        "late" | "llm" => {
            return config_err(format!(
                "--strategy {} needs a model outside chunklab-core: build it with \
                 chunklab_embed::LateChunker / chunklab_llm::LlmChunker (the CLI does this \
                 with --model / --llm)",
                opts.strategy
            ))
        }
        other => {
            let known: Vec<_> = catalog().iter().map(|s| s.name).collect();
            return config_err(format!(
                "unknown strategy `{other}`; known: {}",
                known.join(", ")
            ));
        }
    })
}

/// `cluster`: default size of the pieces that are embedded and grouped (Chroma's 50 tokens;
/// the size limit when that is smaller, `size / 256` when that is larger).
pub const DEFAULT_PIECE_SIZE: usize = 50;

/// `hierarchical`: default limits of the levels, largest first.
pub const DEFAULT_LEVELS: [usize; 3] = [2048, 512, 128];

/// The embedder a model-driven strategy needs, or the error that says how to give one.
fn model_for(opts: &Options) -> Result<Arc<dyn TextEmbedder>> {
    match &opts.embedder {
        Some(e) => Ok(e.clone()),
        None => config_err(format!(
            "--strategy {} needs --model (minilm, e5-small or a model directory)",
            opts.strategy
        )),
    }
}

/// One parameter of a strategy, for `chunklab strategies`.
#[derive(Debug, Clone, serde::Serialize)]
pub struct ParamInfo {
    pub name: &'static str,
    pub default: &'static str,
    pub help: &'static str,
}

/// A strategy's name, one-line summary and parameters.
#[derive(Debug, Clone, serde::Serialize)]
pub struct StrategyInfo {
    pub name: &'static str,
    pub summary: &'static str,
    pub params: Vec<ParamInfo>,
}

const fn p(name: &'static str, default: &'static str, help: &'static str) -> ParamInfo {
    ParamInfo {
        name,
        default,
        help,
    }
}

const SIZE: ParamInfo = p("--size", "1000", "hard maximum per chunk, in --unit");
const UNIT: ParamInfo = p(
    "--unit",
    "chars",
    "chars | words | tokens (tokens: --tokenizer cl100k | o200k | PATH/tokenizer.json)",
);

const MODEL: ParamInfo = p(
    "--model",
    "required",
    "minilm | e5-small | model directory | hub id (--fetch: fetch if missing)",
);
const MODEL_UNIT: ParamInfo = p(
    "--unit",
    "model tokens",
    "chars | words | tokens; default: tokens of the model's tokenizer",
);

const LANG: ParamInfo = p(
    "--lang",
    "auto",
    "en | nl | auto: sentence rules and abbreviations (auto: per document)",
);

const MAX_LEVEL: ParamInfo = p(
    "--max-level",
    "6",
    "deepest heading level that starts a chunk (1 = chapters only)",
);
const TITLE_PREFIX: ParamInfo = p(
    "--title-prefix",
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
                    "--overlap",
                    "0",
                    "units of context repeated from the previous chunk",
                ),
                p(
                    "--separators",
                    "built-in",
                    "JSON array, highest level first (built-in: paragraph, line, sentence, \
                     clause, word, unit); \"\" = chars (native: units)",
                ),
                p(
                    "--regex-separators",
                    "false",
                    "treat --separators as regexes (lookaround ok)",
                ),
                p(
                    "--keep-separator",
                    "start",
                    "start | end | none: where a cut separator goes",
                ),
                p("--compat", "native", "native | langchain"),
            ],
        },
        StrategyInfo {
            name: "fixed",
            summary: "consecutive windows of --size units; --compat langchain = TokenTextSplitter",
            params: vec![
                SIZE,
                UNIT,
                p("--overlap", "0", "units shared by neighbouring chunks"),
                p("--compat", "native", "native | langchain"),
            ],
        },
        StrategyInfo {
            name: "sliding",
            summary: "a window of --size units moving --stride units at a time",
            params: vec![
                SIZE,
                UNIT,
                p("--stride", "size/2", "units the window moves; <= size"),
            ],
        },
        StrategyInfo {
            name: "sentence",
            summary: "whole sentences (English/Dutch rules) packed up to --size; long ones cut at \
                      words, then units",
            params: vec![
                SIZE,
                UNIT,
                p(
                    "--overlap",
                    "0",
                    "sentences repeated from the previous chunk",
                ),
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
                    "--overlap",
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
            params: vec![SIZE, UNIT, MAX_LEVEL, TITLE_PREFIX],
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
                    "--title-prefix",
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
                    "--size",
                    "1000",
                    "hard maximum per chunk, in --unit (alias --max-size)",
                ),
                MODEL_UNIT,
                MODEL,
                p(
                    "--breakpoint",
                    "percentile",
                    "percentile | stddev | interquartile | gradient",
                ),
                p(
                    "--percentile",
                    "95",
                    "percentile, gradient: break above this percentile of the distances",
                ),
                p(
                    "--threshold",
                    "3 | 1.5",
                    "stddev: mean + N std devs (3); interquartile: mean + N IQRs (1.5)",
                ),
                p(
                    "--buffer",
                    "1",
                    "sentences on each side embedded with a sentence",
                ),
                p(
                    "--min-size",
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
                    "--piece-size",
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
                    "--levels",
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
                    "--boundaries",
                    "recursive",
                    "the strategy that cuts the chunks (every other chunking flag applies to it)",
                ),
                p(
                    "--late-window",
                    "model context",
                    "tokens per macro window for documents longer than the model's context",
                ),
                p(
                    "--late-overlap",
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
                    "--llm",
                    "-",
                    "local:smollm2 | openai:BASE_URL#MODEL | anthropic:MODEL",
                ),
            ],
        },
    ]
}
