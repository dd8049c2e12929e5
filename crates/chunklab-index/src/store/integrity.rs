//! Checksums of the store: every segment file carries its BLAKE3 in the manifest, and every
//! record its own (a document's text, a chunk's vector row), so damage is found when a file is
//! opened and pinned to the documents it affects when a record is read.

use crate::error::{io, Result};
use std::path::{Path, PathBuf};

/// Damage found in a store file, and the live documents it affects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Damage {
    /// The damaged file.
    pub path: PathBuf,
    /// What is wrong with it.
    pub reason: String,
    /// Ids of the live documents whose records, text or vectors in this file are damaged
    /// (sorted). Empty when the damage touches no live document (dead rows only).
    pub documents: Vec<String>,
}

impl std::fmt::Display for Damage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.reason)?;
        match self.documents.len() {
            0 => write!(f, " (no live document affected)"),
            n => write!(
                f,
                " (affects {n} document{}: {})",
                if n == 1 { "" } else { "s" },
                list(&self.documents)
            ),
        }
    }
}

/// Up to ten ids, quoted, then how many more.
pub(crate) fn list(ids: &[String]) -> String {
    let mut s: Vec<String> = ids.iter().take(10).map(|d| format!("`{d}`")).collect();
    if ids.len() > 10 {
        s.push(format!("and {} more", ids.len() - 10));
    }
    s.join(", ")
}

/// BLAKE3 of `bytes`, hex.
pub(crate) fn hash(bytes: &[u8]) -> String {
    blake3::hash(bytes).to_hex().to_string()
}

/// Length and BLAKE3 (hex) of a file.
pub(crate) fn hash_file(path: &Path) -> Result<(u64, String)> {
    crate::checksum::blake3_file(path).map_err(io(path))
}

/// Why the file at `path` does not match the manifest's length and hash (the hash is only
/// checked when the manifest has one), or `None` when it matches. A missing or unreadable file
/// is a mismatch too.
pub(crate) fn mismatch(path: &Path, want_len: u64, want_hash: Option<&str>) -> Option<String> {
    let (len, got) = match want_hash {
        Some(_) => match hash_file(path) {
            Ok(x) => x,
            Err(e) => return Some(format!("cannot be read: {e}")),
        },
        None => match std::fs::metadata(path) {
            Ok(m) => (m.len(), String::new()),
            Err(e) => return Some(format!("cannot be read: {e}")),
        },
    };
    if len != want_len {
        return Some(format!("{len} bytes, the manifest says {want_len}"));
    }
    match want_hash {
        Some(h) if h != got => Some("checksum does not match the manifest".into()),
        _ => None,
    }
}
