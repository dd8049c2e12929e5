//! Checking an index ([`check`]): every file verified, the problems listed per file with the
//! documents they affect, and whether `chunklab index` repairs them
//! ([`IndexWriter::open`](crate::IndexWriter::open) does, see [`crate::repair`]).

use crate::error::{Error, Result};
use crate::manifest::{Manifest, MANIFEST_FILE};
use crate::store::Store;
use crate::{bm25, snapshot};
use std::path::{Path, PathBuf};

/// One problem [`check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The file (or directory) at fault.
    pub path: PathBuf,
    /// What is wrong with it.
    pub what: String,
    /// Live documents affected (sorted); empty when none is, or when a derived structure (BM25,
    /// the vector snapshot) is at fault and is rebuilt whole.
    pub documents: Vec<String>,
    /// `true` when opening the index for writing repairs it: BM25 and the vectors are rebuilt
    /// from the store, damaged documents are dropped (and indexed again by `chunklab index`).
    /// `false` for a manifest that cannot be read: only a rebuild helps.
    pub repairable: bool,
}

/// What [`check`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckReport {
    /// The index directory.
    pub dir: PathBuf,
    /// The committed generation (0 when the manifest cannot be read).
    pub generation: u64,
    /// Live documents whose records could be read.
    pub documents: usize,
    /// Live chunks whose records could be read.
    pub chunks: usize,
    /// Everything wrong, in the order found (store, BM25, vectors).
    pub problems: Vec<Problem>,
}

impl CheckReport {
    /// `true` when nothing is wrong.
    pub fn is_ok(&self) -> bool {
        self.problems.is_empty()
    }

    /// `true` when every problem is repairable (see [`Problem::repairable`]).
    pub fn repairable(&self) -> bool {
        self.problems.iter().all(|p| p.repairable)
    }

    /// Every affected document, sorted, once.
    pub fn affected_documents(&self) -> Vec<String> {
        let mut d: Vec<String> = self
            .problems
            .iter()
            .flat_map(|p| p.documents.iter().cloned())
            .collect();
        d.sort();
        d.dedup();
        d
    }
}

impl std::fmt::Display for CheckReport {
    /// One summary line, then one line per problem.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: generation {}, {} documents, {} chunks: ",
            self.dir.display(),
            self.generation,
            self.documents,
            self.chunks
        )?;
        match self.problems.len() {
            0 => return write!(f, "every file checks out"),
            1 => writeln!(f, "1 problem")?,
            n => writeln!(f, "{n} problems")?,
        }
        for p in &self.problems {
            write!(f, "  {}: {}", p.path.display(), p.what)?;
            if !p.documents.is_empty() {
                write!(
                    f,
                    " (affects {}: {})",
                    p.documents.len(),
                    crate::store::integrity_list(&p.documents)
                )?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

/// Verify everything in the index in `dir`: the manifest, every store segment file against its
/// length and BLAKE3, every document text and chunk vector against its own checksum, the BM25
/// index (tantivy's file checksums, its generation and chunk count) and the vector snapshot.
/// Problems are reported, not returned as errors; the only error is [`Error::Missing`] (no
/// index there). Reads only; takes no lock.
pub fn check(dir: &Path) -> Result<CheckReport> {
    let mut report = CheckReport {
        dir: dir.to_path_buf(),
        generation: 0,
        documents: 0,
        chunks: 0,
        problems: Vec::new(),
    };
    let manifest = match Manifest::read(dir) {
        Ok(m) => m,
        Err(e @ Error::Missing { .. }) => return Err(e),
        Err(e) => {
            report.problems.push(Problem {
                path: dir.join(MANIFEST_FILE),
                what: format!("{e}; rebuild the index (`chunklab index --rebuild`)"),
                documents: Vec::new(),
                repairable: false,
            });
            return Ok(report);
        }
    };
    report.generation = manifest.generation;
    let (store, damage) = Store::load_lenient(dir, manifest.settings.dim, &manifest.segments)?;
    let mut problems: Vec<Problem> = damage
        .into_iter()
        .map(|d| Problem {
            path: d.path,
            what: d.reason,
            documents: d.documents,
            repairable: true,
        })
        .collect();
    // Per-record checksums of what survived (they also cover segments written before file
    // checksums, as far as their records allow).
    for (doc_id, entry) in store.docs() {
        let text = store.doc_text(doc_id).err();
        let vectors = match store.vectors(&entry.keys) {
            Err(e) => Some(e),
            Ok(v) => v
                .iter()
                .any(|v| v.iter().any(|x| !x.is_finite()))
                .then(|| Error::BadQuery("a vector has a non-finite component".into())),
        };
        for e in [text, vectors].into_iter().flatten() {
            let (path, what) = match e {
                Error::Corrupt { path, reason } => (path, reason),
                Error::Io { path, source } => (path, source.to_string()),
                other => (dir.join(crate::store::STORE_DIR), other.to_string()),
            };
            problems.push(Problem {
                path,
                what,
                documents: vec![doc_id.clone()],
                repairable: true,
            });
        }
    }
    report.documents = store.docs().len();
    report.chunks = store.len();
    // Documents the store lost are also missing from what BM25 and the snapshot are compared
    // with: then only their own files are checked (the repair rebuilds them anyway).
    let store_sound = problems.is_empty();
    let bm25_problems = bm25::verify(dir, manifest.generation, store.len())
        .into_iter()
        .filter(|(_, what)| store_sound || !what.starts_with("holds "));
    let derived = bm25_problems.chain(snapshot::verify(
        dir,
        &store,
        manifest.generation,
        store_sound,
    ));
    problems.extend(derived.map(|(path, what)| Problem {
        path,
        what,
        documents: Vec::new(),
        repairable: true,
    }));
    report.problems = problems;
    Ok(report)
}
