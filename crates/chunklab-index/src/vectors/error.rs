//! Errors of the vector index: each names the vector, parameter or file it is about.

use std::path::PathBuf;

use super::params::NORM_TOLERANCE;

/// Errors of the vector index.
#[derive(Debug, thiserror::Error)]
pub enum VectorError {
    /// A vector or query has the wrong number of components.
    #[error("{what} has {got} dimensions, the index has {expected}")]
    DimensionMismatch {
        /// `vector for key N` or `query`.
        what: String,
        /// The index's dimension.
        expected: usize,
        /// The vector's length.
        got: usize,
    },
    /// A vector or query contains NaN or an infinity.
    #[error("{what} has a non-finite value ({value}) at component {component}")]
    NonFinite {
        /// `vector for key N` or `query`.
        what: String,
        /// Position of the first bad component.
        component: usize,
        /// The bad value.
        value: f32,
    },
    /// A vector or query is not L2-normalized (scores are dot products of unit vectors).
    #[error("{what} is not L2-normalized: its norm is {norm} (allowed 1 ± {NORM_TOLERANCE})")]
    NotNormalized {
        /// `vector for key N` or `query`.
        what: String,
        /// The vector's L2 norm.
        norm: f32,
    },
    /// The index was created with parameters the engine cannot use.
    #[error("invalid vector index parameters: {0}")]
    InvalidParams(String),
    /// The HNSW engine (USearch) reported an error.
    #[error("HNSW engine error while {operation}: {message}")]
    Engine {
        /// What the index was doing.
        operation: String,
        /// The engine's message.
        message: String,
    },
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
    /// A saved index file is truncated, corrupt or inconsistent.
    #[error("{}: {reason}", path.display())]
    Corrupt {
        /// The offending file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// Result of vector index operations.
pub type Result<T, E = VectorError> = std::result::Result<T, E>;
