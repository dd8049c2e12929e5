//! The index's error type: every failure names the file, field or setting it is about.

use std::path::PathBuf;

/// Errors of the index.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// No index at this path.
    #[error("{}: no chunklab index here (no manifest.json); build one with `chunklab index PATHS --index {}`", path.display(), path.display())]
    Missing {
        /// The index directory.
        path: PathBuf,
    },
    /// A file of the index is truncated, corrupt or inconsistent with the manifest.
    #[error("{}: corrupt index file: {reason}", path.display())]
    Corrupt {
        /// The offending file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// Another process holds the writer lock.
    #[error("{}: the index is being written by another process{}; wait for it to finish (readers are not blocked)", path.display(), pid.map(|p| format!(" (pid {p})")).unwrap_or_default())]
    Locked {
        /// The index directory.
        path: PathBuf,
        /// The writer's pid, when its lock file says.
        pid: Option<u32>,
    },
    /// The store was built with other settings than the run asks for.
    #[error("{0}")]
    Refused(crate::Refusal),
    /// The store cannot be read or written by this chunklab as it is (a schema of another
    /// version, shards built with other settings).
    #[error("{0}")]
    Mismatch(String),
    /// The query cannot be run (empty, no vector for dense search, ...).
    #[error("{0}")]
    BadQuery(String),
    /// A `--filter` cannot be parsed or names an unknown field.
    #[error("{0}")]
    BadFilter(String),
    /// A document or chunk handed to the writer is inconsistent.
    #[error("{0}")]
    BadDocument(String),
    /// The BM25 engine (tantivy) failed.
    #[error("BM25 index ({}): {message}", path.display())]
    Bm25 {
        /// The BM25 directory.
        path: PathBuf,
        /// tantivy's message.
        message: String,
    },
    /// The vector index failed.
    #[error("vector index: {0}")]
    Vector(#[from] crate::vectors::VectorError),
    /// The reranker failed.
    #[error("reranker: {0}")]
    Rerank(String),
    /// Another store behind the Store seam (PostgreSQL) failed; the message names the store.
    #[error("{0}")]
    Store(String),
}

/// Result of index operations.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Wrap an I/O error with its path.
pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}
