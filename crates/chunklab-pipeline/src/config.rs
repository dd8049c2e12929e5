//! The pipeline's typed configuration: [`ChunkConfig`] (how documents are cut, from
//! chunklab-core) plus what decides reading, the model, the language model and contextual
//! retrieval. Every face maps onto [`PipelineConfig`]: the CLI's flags, the sweep TOML, the
//! server's JSON bodies and Python's keyword arguments — serde keys equal the flag names with
//! `_` for `-`.

use chunklab_core::ChunkConfig;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::path::PathBuf;
use std::str::FromStr;

/// Everything one run of the pipeline needs to know.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PipelineConfig {
    /// How documents are cut.
    pub chunking: ChunkConfig,
    /// The embedding model (`minilm`, `e5-small`, a directory, a hub id in the local cache):
    /// the model of `semantic`, `cluster` and `late`, sizes in its tokens by default, and the
    /// model `index` embeds with.
    pub model: Option<String>,
    /// Fetch a known model (or local LLM) that is not installed yet.
    pub fetch: bool,
    /// The language model of `context = llm` and `strategy = llm`.
    pub llm: LlmConfig,
    /// Contextual retrieval (`None`: no context).
    pub context: Option<ContextConfig>,
    /// How inputs are found and read.
    pub reading: ReadingConfig,
}

/// The language model and how it is called.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct LlmConfig {
    /// `local:smollm2`, `local:PATH.gguf`, `openai:BASE_URL#MODEL`, `anthropic:MODEL`.
    pub spec: Option<String>,
    /// Do not read or write the answer cache.
    pub no_cache: bool,
    /// Requests in flight at once for HTTP models.
    pub concurrency: usize,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            spec: None,
            no_cache: false,
            concurrency: 4,
        }
    }
}

/// Which context contextual retrieval gives each chunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ContextKind {
    /// Document title and the chunk's heading path (no model).
    Header,
    /// A language model writes a short context per chunk.
    Llm,
}

impl ContextKind {
    /// The name in every face.
    pub fn name(self) -> &'static str {
        match self {
            ContextKind::Header => "header",
            ContextKind::Llm => "llm",
        }
    }
}

impl fmt::Display for ContextKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ContextKind {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "header" => Ok(ContextKind::Header),
            "llm" => Ok(ContextKind::Llm),
            other => Err(format!("unknown context `{other}` (header, llm)")),
        }
    }
}

/// What happens when the language model gives no usable context twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    /// The header context (counted in the summary).
    #[default]
    Header,
    /// The document fails.
    Error,
}

impl FromStr for Fallback {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "header" => Ok(Fallback::Header),
            "error" => Ok(Fallback::Error),
            other => Err(format!(
                "unknown context fallback `{other}` (header, error)"
            )),
        }
    }
}

/// Contextual retrieval: the context goes into each chunk's `context` (never its span), and
/// `context + "\n\n" + prefix + text` is kept within the size by shortening the context.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextConfig {
    /// Header or LLM contexts.
    pub kind: ContextKind,
    /// A prompt file with `{doc}` and `{chunk}` (default: Anthropic's contextual-retrieval
    /// prompt).
    pub prompt: Option<PathBuf>,
    /// Most tokens of one context.
    pub max_tokens: usize,
    /// When the model gives no usable context twice.
    pub fallback: Fallback,
    /// Most document tokens per prompt (default: as many as the model's context leaves).
    pub doc_tokens: Option<usize>,
}

impl Default for ContextConfig {
    fn default() -> Self {
        ContextConfig {
            kind: ContextKind::Header,
            prompt: None,
            max_tokens: 100,
            fallback: Fallback::Header,
            doc_tokens: None,
        }
    }
}

/// How inputs are found and read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ReadingConfig {
    /// Parse every input with this parser (text, markdown, rst, html, pdf, docx, odt, code or
    /// a language) instead of choosing by extension and content.
    pub parser: Option<String>,
    /// Decode text inputs from this encoding (latin1, windows-1252, utf-16le, ...).
    pub encoding: Option<String>,
    /// Replace invalid bytes with U+FFFD instead of failing.
    pub lossy: bool,
    /// Only files matching these globs (under directories).
    pub include: Vec<String>,
    /// Skip files matching these globs (under directories).
    pub exclude: Vec<String>,
    /// OCR of scanned PDF pages and image files: mode (auto, always, never), languages
    /// (`nld+eng`), minimum confidence, per-page timeout, preprocessing.
    pub ocr: chunklab_parse::ocr::OcrOptions,
    /// Most elements (paragraphs, headings, table cells ...) one DOCX or ODT document may hold
    /// (default 2,000,000): the bound on parse memory; more is an error naming the file.
    pub max_elements: Option<usize>,
    /// Most megabytes a DOCX or ODT container may expand to (default 512); more is an error
    /// naming the file.
    pub max_expanded_mb: Option<u64>,
}
