//! Chunking strategies, one per file, and [`build`] which turns command-line style [`Options`]
//! into a boxed [`Chunker`]. [`catalog`] describes every strategy and its parameters.

mod code;
mod elements;
mod fixed;
mod headings;
mod pack;
mod paragraph;
mod recursive;
mod sentence;
mod separators;
mod sliding;
mod structured;
pub(crate) mod window;

pub use code::Code;
pub use elements::Elements;
pub use fixed::Fixed;
pub use headings::Headings;
pub use paragraph::Paragraph;
pub use recursive::{Recursive, LANGCHAIN_SEPARATORS};
pub use sentence::Sentence;
pub use sliding::Sliding;

use crate::chunker::Chunker;
use crate::error::{config_err, Result};
use crate::lang::Lang;
use crate::sizer::Sizer;
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
        other => {
            let known: Vec<_> = catalog().iter().map(|s| s.name).collect();
            return config_err(format!(
                "unknown strategy `{other}`; known: {}",
                known.join(", ")
            ));
        }
    })
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
    ]
}
