//! Errors of the language-model layer: each names the backend, file or field and the problem.

use std::path::PathBuf;

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong talking to or running a language model.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A language-model spec (`--llm`, Python's `llm=`) that does not parse.
    #[error("{spec:?} is not a language model spec: {detail} (expected local:NAME_OR_GGUF_PATH, openai:BASE_URL#MODEL or anthropic:MODEL)")]
    BadSpec { spec: String, detail: String },
    /// A context prompt without `{doc}` and then `{chunk}`.
    #[error("the context prompt needs {{doc}} and then {{chunk}}")]
    BadPrompt,
    /// A chunk whose span is not inside its document (a caller's bug).
    #[error("chunk span {span} is outside the document of {len} bytes")]
    SpanOutside { span: String, len: usize },
    /// A GGUF file that cannot be used (missing tensor or metadata, unsupported architecture).
    #[error("{path}: {detail}")]
    BadModel { path: PathBuf, detail: String },
    /// The model or embed crate could not find or verify a model.
    #[error(transparent)]
    Embed(#[from] chunklab_embed::Error),
    /// A tensor operation failed in the local forward pass.
    #[error("local model {model}: {detail}")]
    Compute { model: String, detail: String },
    /// The prompt does not fit in the model's context window.
    #[error("{backend}: prompt of {tokens} tokens does not fit the context of {context} tokens")]
    PromptTooLong {
        backend: String,
        tokens: usize,
        context: usize,
    },
    /// A missing API key.
    #[error("{backend}: no API key; set {var}")]
    MissingKey { backend: String, var: &'static str },
    /// The server answered with an error status (after retries, for 429 and 5xx).
    #[error("{backend}: {url} answered HTTP {status}: {body}")]
    Http {
        backend: String,
        url: String,
        status: u16,
        body: String,
    },
    /// The server could not be reached.
    #[error("{backend}: cannot reach {url}: {detail}")]
    Unreachable {
        backend: String,
        url: String,
        detail: String,
    },
    /// The server answered 200 with a body that is not the protocol's JSON.
    #[error("{backend}: unexpected response from {url}: {detail}")]
    BadResponse {
        backend: String,
        url: String,
        detail: String,
    },
    /// The model's answer was empty or malformed twice.
    #[error("{backend}: {what}: the model gave no usable answer after a retry (last answer: {answer:?})")]
    NoAnswer {
        backend: String,
        what: String,
        answer: String,
    },
    /// A chunking error from chunklab-core.
    #[error(transparent)]
    Chunk(#[from] chunklab_core::Error),
    /// File-system error with the path involved.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl Error {
    pub(crate) fn compute(model: &str, e: impl std::fmt::Display) -> Self {
        Error::Compute {
            model: model.to_string(),
            detail: e.to_string(),
        }
    }
}

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}
