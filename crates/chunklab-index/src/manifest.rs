//! The manifest: the one file that says what an index is and which files make up its current
//! generation.
//!
//! It records the format version, the settings every chunk was made with (chunker config, how
//! inputs were read, size unit and tokenizer, embedding model and its dimension, BM25 language)
//! and the list of store segments of the committed generation. A commit writes every new file
//! first and the manifest last, atomically (temporary file, fsync, rename, fsync of the
//! directory): whatever is on disk that the manifest does not name is an interrupted commit and
//! is ignored (and deleted by the next writer).

use crate::error::{io, Error, Result};
use crate::graph_settings::HnswSettings;
use crate::mismatch::{Difference, Mismatch};
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::Write;
use std::path::Path;

/// Version of the on-disk layout; an index of another version is refused.
pub const FORMAT_VERSION: u32 = 1;

/// Name of the manifest inside an index directory.
pub const MANIFEST_FILE: &str = "manifest.json";

/// What every chunk of an index was made with. An index only takes new documents made with equal
/// settings, and only answers queries embedded with the same model.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// The chunker's config string (`Chunker::config`: strategy, size, unit, overlap, ...).
    pub chunker: String,
    /// How inputs were read (parser override, encoding), as a string.
    pub reading: String,
    /// Size unit name (`chars`, `words`, `cl100k`, a tokenizer path ...).
    pub unit: String,
    /// Tokenizer spec for token units, if any.
    pub tokenizer: Option<String>,
    /// Embedding model name (`minilm`, `e5-small`, a directory).
    pub model: String,
    /// Vector dimension of the model; 0 for a text-only index (BM25 without vectors: chunks carry
    /// empty vectors and dense search is refused).
    pub dim: usize,
    /// Tokens the model reads per text, special tokens included.
    pub model_max_tokens: usize,
    /// BM25 analyzer language: `en`, `nl` or `auto` (per document).
    pub lang: String,
    /// The HNSW graph's shape. In a run's settings `None` takes the store's (a new store: its
    /// default, [`HnswSettings::DIRECTORY`] or [`HnswSettings::POSTGRES`]); a store's settings
    /// always hold it once opened (a manifest written before it was recorded reads as
    /// [`HnswSettings::DIRECTORY`], the parameters it was built with).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hnsw: Option<HnswSettings>,
    /// The configuration of the last run that wrote the index, as the writing library spells
    /// it (chunklab-pipeline: its typed pipeline configuration plus the access and metadata
    /// rules, as JSON), so that a later run can take it instead of repeating it. Never
    /// compared: the fields above decide what the index takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<serde_json::Value>,
}

impl Settings {
    /// Why `other` (the settings of a new run) cannot write into an index built with `self`, or
    /// `None` when they are equal.
    pub fn mismatch(&self, other: &Settings) -> Option<Mismatch> {
        let mut diffs = Vec::new();
        let mut cmp = |setting: &'static str, stored: String, asked: String| {
            if stored != asked {
                diffs.push(Difference {
                    setting,
                    stored,
                    asked,
                });
            }
        };
        cmp("chunker", self.chunker.clone(), other.chunker.clone());
        cmp("reading", self.reading.clone(), other.reading.clone());
        cmp("unit", self.unit.clone(), other.unit.clone());
        cmp(
            "tokenizer",
            format!("{:?}", self.tokenizer),
            format!("{:?}", other.tokenizer),
        );
        cmp("model", self.model.clone(), other.model.clone());
        cmp("dim", self.dim.to_string(), other.dim.to_string());
        cmp("lang", self.lang.clone(), other.lang.clone());
        if let (Some(old), Some(new)) = (self.hnsw, other.hnsw) {
            cmp("hnsw", old.to_string(), new.to_string());
        }
        (!diffs.is_empty()).then_some(Mismatch(diffs))
    }
}

/// One store segment: the files written by one commit (see [`crate::store`]).
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Generation of the commit that wrote it; names its files.
    pub generation: u64,
    /// Byte length of the records file.
    pub records_len: u64,
    /// BLAKE3 of the records file (hex).
    pub records_hash: String,
    /// Byte length of the vectors file.
    pub vectors_len: u64,
    /// BLAKE3 of the vectors file (hex); absent in segments written before checksums.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors_hash: Option<String>,
    /// Byte length of the document texts file.
    pub texts_len: u64,
    /// BLAKE3 of the document texts file (hex); absent in segments written before checksums.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub texts_hash: Option<String>,
}

/// The manifest of an index.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct Manifest {
    /// [`FORMAT_VERSION`] of the writer.
    pub format: u32,
    /// Generation of the last commit (0: created, nothing committed).
    pub generation: u64,
    /// The settings every chunk was made with.
    pub settings: Settings,
    /// The next vector key to hand out (keys are never reused).
    pub next_key: u64,
    /// Segments of the store, oldest first.
    pub segments: Vec<SegmentInfo>,
    /// Live documents after this generation.
    pub documents: usize,
    /// Live chunks after this generation.
    pub chunks: usize,
}

impl Manifest {
    /// The HNSW settings the index's graph is built with ([`Manifest::read`] gives a manifest
    /// written before they were recorded [`HnswSettings::DIRECTORY`], what it was built with).
    pub fn hnsw(&self) -> HnswSettings {
        self.settings.hnsw.unwrap_or(HnswSettings::DIRECTORY)
    }

    /// A manifest for a new, empty index.
    pub fn new(settings: Settings) -> Manifest {
        Manifest {
            format: FORMAT_VERSION,
            generation: 0,
            settings,
            next_key: 0,
            segments: Vec::new(),
            documents: 0,
            chunks: 0,
        }
    }

    /// Read the manifest of the index in `dir`.
    pub fn read(dir: &Path) -> Result<Manifest> {
        let path = dir.join(MANIFEST_FILE);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(Error::Missing {
                    path: dir.to_path_buf(),
                })
            }
            Err(e) => return Err(io(&path)(e)),
        };
        let mut m: Manifest = serde_json::from_slice(&bytes).map_err(|e| Error::Corrupt {
            path: path.clone(),
            reason: format!("not a chunklab manifest: {e}"),
        })?;
        match m.settings.hnsw {
            // Written before the graph's settings were recorded: built with the defaults.
            None => m.settings.hnsw = Some(HnswSettings::DIRECTORY),
            Some(h) => {
                if let Err(why) = HnswSettings::new(h.m, h.ef_construction) {
                    return Err(Error::Corrupt {
                        path,
                        reason: format!("the HNSW settings are out of range: {why}"),
                    });
                }
            }
        }
        if m.format != FORMAT_VERSION {
            return Err(Error::Corrupt {
                path,
                reason: format!(
                    "index format {} but this chunklab reads format {FORMAT_VERSION}; rebuild the index",
                    m.format
                ),
            });
        }
        Ok(m)
    }

    /// Replace the manifest of the index in `dir` atomically.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let json = serde_json::to_vec_pretty(self).expect("manifest serializes");
        write_atomic(dir, MANIFEST_FILE, &json)
    }
}

/// Write `name` in `dir` so that readers see the old content or the new one, never a mix, even
/// across a crash: temporary file, fsync, rename over the old file, fsync of the directory.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<()> {
    let tmp = dir.join(format!("{name}.tmp"));
    {
        let mut f = File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
    }
    let path = dir.join(name);
    std::fs::rename(&tmp, &path).map_err(io(&path))?;
    sync_dir(dir)
}

/// fsync a directory so renames and new files in it are durable (a no-op where directories
/// cannot be opened, as on Windows).
pub fn sync_dir(dir: &Path) -> Result<()> {
    #[cfg(unix)]
    {
        let d = File::open(dir).map_err(io(dir))?;
        d.sync_all().map_err(io(dir))?;
    }
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            chunker: "recursive size=512".into(),
            reading: "parser=auto".into(),
            unit: "chars".into(),
            tokenizer: None,
            model: "minilm".into(),
            dim: 384,
            model_max_tokens: 256,
            hnsw: Some(HnswSettings::DIRECTORY),
            lang: "auto".into(),
            run: None,
        }
    }

    #[test]
    fn round_trips_and_reports_mismatches() {
        let dir = tempfile::tempdir().unwrap();
        let m = Manifest::new(settings());
        m.write(dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), m);
        let mut other = settings();
        other.model = "e5-small".into();
        let why = settings().mismatch(&other).unwrap().to_string();
        assert!(
            why.contains("model: index has `minilm`, this run has `e5-small`"),
            "{why}"
        );
        assert!(settings().mismatch(&settings()).is_none());
        // Graph settings are compared only when the run names them.
        let mut fast = settings();
        fast.hnsw = Some(HnswSettings::new(16, 80).unwrap());
        let why = settings().mismatch(&fast).unwrap().to_string();
        assert!(
            why.contains("hnsw: index has `m=16,ef_construction=128`"),
            "{why}"
        );
        fast.hnsw = None;
        assert!(settings().mismatch(&fast).is_none());
        // The last run's configuration is carried, never compared.
        let mut with_run = settings();
        with_run.run = Some(serde_json::json!({"chunking": {"size": 512}}));
        assert!(settings().mismatch(&with_run).is_none());
        let m = Manifest::new(with_run.clone());
        m.write(dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap().settings, with_run);
    }

    #[test]
    fn missing_and_corrupt_manifests_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            Manifest::read(dir.path()),
            Err(Error::Missing { .. })
        ));
        std::fs::write(dir.path().join(MANIFEST_FILE), b"{\"format\": 1, \"gen").unwrap();
        let e = Manifest::read(dir.path()).unwrap_err();
        assert!(e.to_string().contains("not a chunklab manifest"), "{e}");
    }
}
