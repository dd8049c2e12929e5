//! The evaluation stage of chunklab: datasets (our JSONL format, Chroma's chunking-evaluation set,
//! the built-in generated Dutch municipal archive), retrieval metrics, sweeps and reports.
//!
//! [`run::run`] takes a [`dataset::Dataset`] and [`sweep::Config`]s and measures each
//! configuration: chunk (and [`context`]) → embed (through [`embed_cache`]) → index and retrieve
//! (a real `chunklab-index`, [`collection`]) → score
//! ([`metrics`], [`token_metrics`], [`bootstrap`]) and cost. [`report`] renders the result.

pub mod archive;
pub mod bench;
pub mod bootstrap;
pub mod chroma;
pub mod chunking;
pub mod collection;
pub mod context;
pub mod dataset;
pub mod embed_cache;
pub mod error;
pub mod export;
pub mod fusion_cv;
pub mod io;
pub mod metrics;
pub mod progress;
pub mod report;
pub mod result;
pub mod run;
pub mod scoring;
pub mod shared_data;
pub mod sweep;
pub mod token_metrics;

pub use error::{Error, Result};

/// The shared data directory for unit tests ([`shared_data::root`]); a test fails when it is
/// missing.
#[cfg(test)]
pub(crate) fn shared_dir() -> std::path::PathBuf {
    shared_data::root().unwrap_or_else(|e| panic!("{e}"))
}
