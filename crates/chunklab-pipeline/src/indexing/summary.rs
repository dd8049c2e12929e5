//! What indexing reports: [`Progress`] while [`IndexBuilder::add_files`] works, and the
//! [`AddSummary`] of a call with the warnings every face shows from it.

#[cfg(doc)]
use super::IndexBuilder;
use crate::spelling::Spelling;

/// What [`IndexBuilder::add_files`] reports while it works.
#[derive(Debug, Clone)]
pub enum Progress {
    /// The inputs are hashed and compared with the store: `docs` documents of `bytes` bytes
    /// are to be chunked and embedded.
    Planned {
        /// Documents to (re)index.
        docs: usize,
        /// Their bytes on disk.
        bytes: u64,
    },
    /// A batch of chunks is being embedded.
    Embedding {
        /// Documents finished before this batch.
        docs_done: usize,
        /// Documents to (re)index in all.
        docs: usize,
        /// Chunks in this batch.
        chunks: usize,
    },
    /// A batch was committed.
    Committed {
        /// Documents finished.
        docs_done: usize,
        /// Documents to (re)index in all.
        docs: usize,
        /// Bytes finished.
        bytes_done: u64,
        /// Bytes to (re)index in all.
        bytes: u64,
        /// Chunks embedded so far.
        chunks: usize,
        /// Seconds since chunking and embedding started.
        seconds: f64,
    },
    /// A line for the user: `warning: FILE: ...` or `error: FILE: ...` (the document is left
    /// out; what the store had of it is kept).
    Message(String),
}

/// What one [`IndexBuilder::add_files`] call did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddSummary {
    /// New documents.
    pub added: usize,
    /// Documents indexed before whose content, groups or fields changed.
    pub updated: usize,
    /// Documents removed because their file is gone (`remove_missing`).
    pub removed: usize,
    /// Documents whose hash equals the store's: not read again.
    pub unchanged: usize,
    /// Binary files skipped.
    pub skipped: usize,
    /// Documents that could not be read, parsed or chunked; see [`AddSummary::errors`].
    pub failed: usize,
    /// Chunks written.
    pub chunks: usize,
    /// Chunk texts embedded (late chunking brings its own vectors).
    pub embedded: usize,
    /// Embedded chunks longer than the model's window (their tails are only in BM25).
    pub truncated: usize,
    /// Documents embedded whose text reads as Dutch while the model is English-only
    /// (`chunklab_embed::registry::KnownModel::english_only`): their vectors are poor.
    pub dutch_for_english_model: usize,
    /// Documents whose chunks were embedded (or came with late chunking's vectors).
    pub embedded_docs: usize,
    /// The failed documents' errors, `FILE: problem`.
    pub errors: Vec<String>,
}

impl AddSummary {
    /// The warning to show when chunks were longer than the model's window, or `None`; its
    /// remedy names the settings as `spelling` does.
    ///
    /// ```
    /// use chunklab_pipeline::indexing::{AddSummary, Flags};
    /// let s = AddSummary { truncated: 5, embedded: 9, ..AddSummary::default() };
    /// let w = s.truncation_warning("minilm", 254, &Flags).unwrap();
    /// assert!(w.starts_with("5 of 9 chunks are longer than minilm's 254-token window"));
    /// assert!(w.contains("--size 254 or less with --model minilm fits the window (without --unit,"));
    /// assert_eq!(AddSummary::default().truncation_warning("minilm", 254, &Flags), None);
    /// ```
    pub fn truncation_warning(
        &self,
        model_spec: &str,
        window: usize,
        spelling: &dyn Spelling,
    ) -> Option<String> {
        (self.truncated > 0).then(|| format!(
            "{} of {} chunks are longer than {model_spec}'s {window}-token window and were truncated before embedding (their tails are only in BM25); {} or less with {} fits the window (without {}, sizes are then in its own tokens), which is not always the better retrieval: {} with both sizes measures it on your documents",
            self.truncated,
            self.embedded,
            spelling.setting("size", &window.into()),
            spelling.setting("model", &model_spec.into()),
            spelling.key("unit"),
            spelling.bench(),
        ))
    }

    /// The warning to show when an English-only model embedded Dutch documents, or `None`; its
    /// remedy names the settings as `spelling` does.
    pub fn language_warning(&self, model_spec: &str, spelling: &dyn Spelling) -> Option<String> {
        (self.dutch_for_english_model > 0).then(|| format!(
            "{} of {} documents embedded read as Dutch and {model_spec} is an English model: on the built-in Dutch archive its dense recall is 3.3 % against 55.0 % for e5-small (BM25 reads every language); {} (the default with {}) embeds Dutch",
            self.dutch_for_english_model,
            self.embedded_docs,
            spelling.setting("model", &"e5-small".into()),
            spelling.setting("lang", &"nl".into()),
        ))
    }
}
