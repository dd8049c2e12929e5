//! The evaluation stage of chunklab: datasets (our JSONL format, Chroma's chunking-evaluation set,
//! the built-in generated Dutch municipal archive), retrieval metrics, sweeps and reports.
//!
//! [`run::run`] takes a [`dataset::Dataset`] and [`sweep::Config`]s and measures each
//! configuration: chunk (and [`context`]) → embed (through [`embed_cache`]) → index and retrieve
//! (a real `chunklab-index`, [`collection`]) → score
//! ([`metrics`], [`token_metrics`], [`bootstrap`]) and cost. [`report`] renders the result.

pub mod archive;
pub mod bootstrap;
pub mod chroma;
pub mod chunking;
pub mod collection;
pub mod context;
pub mod dataset;
pub mod embed_cache;
pub mod error;
pub mod io;
pub mod metrics;
pub mod report;
pub mod run;
pub mod scoring;
pub mod sweep;
pub mod token_metrics;

pub use error::{Error, Result};

/// `../shared` next to the repository, or `$CHUNKLAB_SHARED` (test data).
#[cfg(test)]
pub(crate) fn shared_dir() -> std::path::PathBuf {
    if let Ok(p) = std::env::var("CHUNKLAB_SHARED") {
        return p.into();
    }
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared");
    assert!(
        p.is_dir(),
        "cannot find the shared data directory; set CHUNKLAB_SHARED"
    );
    p
}
