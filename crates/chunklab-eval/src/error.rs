//! The error type of the evaluation crate.

use std::path::PathBuf;

/// What can go wrong loading a dataset, a sweep or running one.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Problems in an input file, each with its line number (`file:line: problem`).
    #[error("{}", format_problems(.path, .problems))]
    Invalid {
        path: PathBuf,
        /// `(line, problem)`; line 0 means the file as a whole.
        problems: Vec<(usize, String)>,
    },
    /// A dataset that cannot be evaluated (no documents, no queries ...).
    #[error("{0}")]
    Dataset(String),
    /// A configuration that cannot run (unknown strategy, bad parameter, unknown model ...).
    #[error("{0}")]
    Config(String),
    /// Chunking, embedding or retrieval failed.
    #[error("{0}")]
    Run(String),
}

/// Result with [`Error`].
pub type Result<T> = std::result::Result<T, Error>;

/// At most this many problems are listed; the rest are counted.
const SHOWN: usize = 20;

fn format_problems(path: &std::path::Path, problems: &[(usize, String)]) -> String {
    let mut out = format!(
        "{} problem{} in {}:",
        problems.len(),
        if problems.len() == 1 { "" } else { "s" },
        path.display()
    );
    for (line, p) in problems.iter().take(SHOWN) {
        if *line == 0 {
            out.push_str(&format!("\n  {}: {p}", path.display()));
        } else {
            out.push_str(&format!("\n  {}:{line}: {p}", path.display()));
        }
    }
    if problems.len() > SHOWN {
        out.push_str(&format!("\n  ... and {} more", problems.len() - SHOWN));
    }
    out
}

pub(crate) fn io_err(path: &std::path::Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}
