//! Helpers shared by chunklab's tests (a dev-dependency only, never published):
//!
//! - the shared-data locator: [`shared_dir`] and [`shared_path`] find the Chroma set, the sample
//!   documents and the LangChain golden cases exactly where the library looks for them at run
//!   time (`chunklab_eval::shared_data`, compiled here unchanged): `$CHUNKLAB_SHARED` if set,
//!   else the repository's `data/`, else `../shared` beside the repository. Missing data is a
//!   panic naming what was looked for and where, i.e. a failing test, never a silent pass;
//! - the CLI runner: [`cli!`] (a [`Cli`] for the `chunklab` binary of the calling package's
//!   integration tests) and the output readers [`stdout`], [`stderr`], [`json_lines`],
//!   [`ok_json_lines`];
//! - [`gen`]: proptest generators of text that stresses chunkers;
//! - [`pg_url`]: a real PostgreSQL + pgvector server (`$CHUNKLAB_PG_URL`, or one started with
//!   `scripts/pg-server.sh`).
//!
//! It depends on no chunklab crate, so every crate, `chunklab-core` included, can use it.

#![warn(missing_docs)]

mod cli;
pub mod gen;
mod pg;

#[path = "../../chunklab-eval/src/shared_data.rs"]
#[allow(dead_code)]
mod shared_data;

pub use cli::{json_lines, ok_json_lines, stderr, stdout, Cli};
pub use pg::{pg_url, with_db, PG_URL_ENV};

use std::path::PathBuf;

/// The environment variable that names the shared data directory (`CHUNKLAB_SHARED`).
pub const SHARED_ENV: &str = shared_data::ENV_VAR;

/// The shared data directory: `$CHUNKLAB_SHARED` if set, else the repository's `data/`, else
/// `../shared` beside the repository, whichever exists first.
///
/// # Panics
///
/// When none exists (or `$CHUNKLAB_SHARED` names a directory that does not), with a message
/// naming every place looked at.
#[track_caller]
pub fn shared_dir() -> PathBuf {
    shared_data::root().unwrap_or_else(|e| panic!("{e}"))
}

/// `rel` (e.g. `datasets/documents` or `golden/langchain/inputs`) in the first of the roots of
/// [`shared_dir`] that has it.
///
/// # Panics
///
/// When no root has it, with a message naming `rel` and every place looked at.
#[track_caller]
pub fn shared_path(rel: &str) -> PathBuf {
    shared_data::locate(rel).unwrap_or_else(|e| panic!("{e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_repository_data_is_found() {
        // Whatever the root, it must hold every data set the tests read.
        for rel in [
            "datasets/chroma/questions_df.csv",
            "datasets/documents/pdf/raadsbesluit.pdf",
            "golden/langchain/cases.jsonl",
        ] {
            assert!(shared_path(rel).is_file(), "{rel}");
        }
        if std::env::var_os(SHARED_ENV).is_none() {
            let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../data");
            assert_eq!(
                shared_dir().canonicalize().unwrap(),
                data.canonicalize().unwrap(),
                "without $CHUNKLAB_SHARED the repository's data/ comes first"
            );
        }
    }

    #[test]
    fn missing_data_names_what_was_looked_for() {
        let err = shared_data::locate("datasets/no-such-set").unwrap_err();
        let msg = err.to_string();
        assert!(msg.contains("`datasets/no-such-set`"), "{msg}");
        assert!(msg.contains("CHUNKLAB_SHARED"), "{msg}");
        for root in shared_data::roots() {
            assert!(
                msg.contains(&root.dir.join("datasets/no-such-set").display().to_string()),
                "{msg}"
            );
        }
    }
}
