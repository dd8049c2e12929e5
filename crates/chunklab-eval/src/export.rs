//! Writing a dataset to disk as the files `chunklab bench --corpus DIR/corpus --queries
//! DIR/queries.jsonl` reads back: every document at its id under `corpus/`, the queries as
//! JSONL. So the generated archive can be read, and other tools run on the same data.

use crate::archive::{self, ArchiveOptions};
use crate::bench::BenchRequest;
use crate::dataset::{Document, Query};
use crate::error::{Error, Result};
use crate::progress::Progress;
use std::path::{Component, Path, PathBuf};

/// What [`export`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exported {
    /// The corpus directory (`DIR/corpus`).
    pub corpus: PathBuf,
    /// The queries file (`DIR/queries.jsonl`).
    pub queries: PathBuf,
    /// Documents written.
    pub documents: usize,
    /// Bytes of document text written.
    pub bytes: u64,
    /// Queries written.
    pub query_count: usize,
}

/// Write the dataset `req` names (the generated archive streamed one document at a time, or
/// any other dataset as loaded) under `dir`, which must be new or empty.
pub fn export(req: &BenchRequest, dir: &Path, progress: &dyn Progress) -> Result<Exported> {
    check_empty(dir)?;
    let archive = matches!(req.dataset.as_deref(), None | Some("archive"))
        && req.corpus.is_none()
        && req.queries.is_none()
        && req.only_docs.is_empty();
    if archive {
        if req.docs == 0 || req.docs > archive::REFERENCE_DOCS {
            return Err(Error::Config(format!(
                "docs must be between 1 and {}",
                archive::REFERENCE_DOCS
            )));
        }
        let opts = ArchiveOptions {
            docs: req.docs,
            seed: req.seed,
        };
        write(
            archive::documents(&opts),
            &archive::queries(&opts),
            dir,
            progress,
        )
    } else {
        let (ds, _) = req.dataset(progress)?;
        if let Some(id) = ds.parsed.keys().next() {
            return Err(Error::Dataset(format!(
                "{} documents of this corpus were parsed from their own bytes (e.g. `{id}`); export writes each document's text at its id, which would not read back as that format: copy the corpus directory instead",
                ds.parsed.len()
            )));
        }
        write(ds.docs.into_iter(), &ds.queries, dir, progress)
    }
}

fn write(
    docs: impl Iterator<Item = Document>,
    queries: &[Query],
    dir: &Path,
    progress: &dyn Progress,
) -> Result<Exported> {
    let corpus = dir.join("corpus");
    let mut out = Exported {
        corpus: corpus.clone(),
        queries: dir.join("queries.jsonl"),
        documents: 0,
        bytes: 0,
        query_count: queries.len(),
    };
    for doc in docs {
        let path = corpus.join(relative(&doc.id)?);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(io(parent))?;
        }
        std::fs::write(&path, &doc.text).map_err(io(&path))?;
        out.documents += 1;
        out.bytes += doc.text.len() as u64;
        if out.documents.is_multiple_of(1000) {
            progress.note(&format!("exported {} documents", out.documents));
        }
    }
    if out.documents == 0 {
        std::fs::create_dir_all(&corpus).map_err(io(&corpus))?;
    }
    crate::io::write_queries(&out.queries, queries)?;
    Ok(out)
}

/// A document id as a path inside the corpus: relative, with no `..`, root or prefix (ids come
/// from file names, which a hostile corpus or dataset could make anything).
fn relative(id: &str) -> Result<&Path> {
    let p = Path::new(id);
    let ok = !id.is_empty() && p.components().all(|c| matches!(c, Component::Normal(_)));
    if ok {
        Ok(p)
    } else {
        Err(Error::Dataset(format!(
            "document id `{id}` is not a relative path inside the corpus; not exported"
        )))
    }
}

fn check_empty(dir: &Path) -> Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(Error::Config(format!(
                    "export directory {} is not empty; give a new or empty directory",
                    dir.display()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io(dir)(e)),
    }
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The exported files read back as the same documents (in path order) and queries.
    #[test]
    fn the_export_reads_back_as_the_generated_archive() {
        let dir = tempfile::tempdir().unwrap();
        let req = BenchRequest {
            docs: 25,
            ..BenchRequest::default()
        };
        let e = export(&req, dir.path(), &crate::progress::NoProgress).unwrap();
        let (back, corpus) = crate::io::load_dataset(&e.corpus, &e.queries).unwrap();
        assert!(corpus.skipped.is_empty());
        let mut generated = archive::generate(&ArchiveOptions {
            docs: 25,
            seed: req.seed,
        });
        generated.docs.sort_by(|a, b| a.id.cmp(&b.id));
        assert_eq!(back.docs, generated.docs);
        assert_eq!(back.queries, generated.queries);
        assert_eq!((e.documents, e.query_count), (25, generated.queries.len()));
        assert!(export(&req, dir.path(), &crate::progress::NoProgress)
            .unwrap_err()
            .to_string()
            .contains("not empty"));
    }

    #[test]
    fn ids_must_stay_inside_the_corpus() {
        assert!(relative("moties/2019.md").is_ok());
        for bad in ["", "../x.md", "/etc/passwd", "a/../../b", "./a"] {
            assert!(relative(bad).is_err(), "{bad}");
        }
    }
}
