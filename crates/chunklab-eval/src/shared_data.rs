//! Where chunklab finds its shared data: the Chroma evaluation set (`datasets/chroma`), the
//! sample documents (`datasets/documents`) and the LangChain golden cases (`golden/langchain`).
//!
//! The one place that decides it, for the library at run time (`chunklab bench --dataset chroma`)
//! and for the tests (`chunklab-test-support` compiles this same file). The roots, in order:
//!
//! 1. `$CHUNKLAB_SHARED`, when set: then only there, so a wrong value fails instead of silently
//!    reading other data;
//! 2. the `data/` directory of the repository this crate was built from (found from
//!    `CARGO_MANIFEST_DIR` at compile time): a clone carries what its tests and built-in datasets
//!    read;
//! 3. `shared/` beside that repository (`../shared` seen from its root), the layout of the
//!    machines that hold the full shared data.
//!
//! This file uses only `std` so that the test-support crate can include it unchanged.

use std::fmt;
use std::path::{Path, PathBuf};

/// The environment variable that names the shared data directory.
pub const ENV_VAR: &str = "CHUNKLAB_SHARED";

/// One place data is looked for, and why it is a candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    /// The directory holding `datasets/` and `golden/`.
    pub dir: PathBuf,
    /// Where the candidate comes from (`$CHUNKLAB_SHARED`, `the repository's data/`, ...).
    pub origin: &'static str,
}

/// The roots searched, in order (see the module documentation). With `$CHUNKLAB_SHARED` set it
/// is the only one.
pub fn roots() -> Vec<Root> {
    if let Some(dir) = std::env::var_os(ENV_VAR) {
        return vec![Root {
            dir: PathBuf::from(dir),
            origin: "$CHUNKLAB_SHARED",
        }];
    }
    let repo = repository();
    vec![
        Root {
            dir: repo.join("data"),
            origin: "the repository's data/",
        },
        Root {
            dir: repo.parent().unwrap_or(&repo).join("shared"),
            origin: "../shared beside the repository",
        },
    ]
}

/// The repository this crate was compiled from: two levels above its manifest
/// (`crates/<name>/`).
fn repository() -> PathBuf {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    manifest
        .parent()
        .and_then(Path::parent)
        .unwrap_or(manifest)
        .to_path_buf()
}

/// `rel` (a path relative to a root, e.g. `datasets/chroma`) in the first root that has it.
pub fn locate(rel: &str) -> Result<PathBuf, NotFound> {
    let roots = roots();
    for root in &roots {
        let path = root.dir.join(rel);
        if path.exists() {
            return Ok(path);
        }
    }
    Err(NotFound {
        rel: rel.to_string(),
        tried: roots,
    })
}

/// The first root that exists as a directory (the shared data directory as a whole).
pub fn root() -> Result<PathBuf, NotFound> {
    let roots = roots();
    match roots.iter().find(|r| r.dir.is_dir()) {
        Some(r) => Ok(r.dir.clone()),
        None => Err(NotFound {
            rel: String::new(),
            tried: roots,
        }),
    }
}

/// Shared data that is in none of the roots; the message names what was looked for and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound {
    /// The path looked for, relative to each root (empty: the root itself).
    pub rel: String,
    /// The roots tried, in order.
    pub tried: Vec<Root>,
}

impl fmt::Display for NotFound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.rel.is_empty() {
            write!(f, "cannot find the shared data directory; looked in")?;
        } else {
            write!(f, "cannot find the shared data `{}`; looked for", self.rel)?;
        }
        for (i, root) in self.tried.iter().enumerate() {
            let sep = if i == 0 { " " } else { ", " };
            let path = if self.rel.is_empty() {
                root.dir.clone()
            } else {
                root.dir.join(&self.rel)
            };
            write!(f, "{sep}{} ({})", path.display(), root.origin)?;
        }
        write!(
            f,
            ". Set {ENV_VAR} to a directory holding datasets/ and golden/ (a clone's data/ has them)"
        )
    }
}

impl std::error::Error for NotFound {}
