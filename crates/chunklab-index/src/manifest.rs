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
    pub fn mismatch(&self, other: &Settings) -> Option<String> {
        let mut diffs = Vec::new();
        let mut cmp = |what: &str, old: String, new: String| {
            if old != new {
                diffs.push(format!("{what}: index has `{old}`, this run has `{new}`"));
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
        (!diffs.is_empty()).then(|| diffs.join("; "))
    }
}

/// The shape of an HNSW graph, fixed when the graph is built: what a faster bulk load trades
/// against recall (docs/PERFORMANCE.md, "Index": at 1M items `ef_construction` 80 inserts about
/// 5,000 items/s where 128 inserts 3,159/s, and needs a query `ef` of 192 for recall@10 0.98).
///
/// ```
/// use chunklab_index::HnswSettings;
/// let s: HnswSettings = "m=16,ef_construction=80".parse().unwrap();
/// assert_eq!((s.m, s.ef_construction), (16, 80));
/// assert_eq!(s.to_string(), "m=16,ef_construction=80");
/// assert!(HnswSettings::new(1, 80).is_err());
/// ```
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct HnswSettings {
    /// Links per node on the upper levels (the base level keeps `2 * m`): 2 to 100.
    pub m: usize,
    /// Candidate list size while inserting: 4 to 1,000, at least `2 * m`.
    pub ef_construction: usize,
}

impl HnswSettings {
    /// An index directory's default: `m = 16, ef_construction = 128` (recall@10 0.994 at 1M
    /// items with the default query `ef` of 128).
    pub const DIRECTORY: HnswSettings = HnswSettings {
        m: 16,
        ef_construction: 128,
    };

    /// A PostgreSQL store's default: pgvector's `m = 16, ef_construction = 64`.
    pub const POSTGRES: HnswSettings = HnswSettings {
        m: 16,
        ef_construction: 64,
    };

    /// Checked settings; the error names the parameter (`hnsw_m`, `hnsw_ef_construction`). The
    /// bounds are pgvector's, so that one setting suits both stores.
    pub fn new(m: usize, ef_construction: usize) -> std::result::Result<HnswSettings, String> {
        if !(2..=100).contains(&m) {
            return Err(format!("hnsw_m: {m} (must be 2 to 100)"));
        }
        if !(4..=1000).contains(&ef_construction) || ef_construction < 2 * m {
            return Err(format!(
                "hnsw_ef_construction: {ef_construction} (must be 4 to 1000 and at least twice hnsw_m, {})",
                2 * m
            ));
        }
        Ok(HnswSettings { m, ef_construction })
    }

    /// The settings a run names, the unnamed one taken from the store's `default`; `None` when
    /// it names neither (the store keeps what it has, or its default). Checked as [`Self::new`].
    ///
    /// ```
    /// use chunklab_index::HnswSettings;
    /// let s = HnswSettings::resolve(None, Some(80), HnswSettings::DIRECTORY).unwrap();
    /// assert_eq!(s, Some(HnswSettings { m: 16, ef_construction: 80 }));
    /// assert_eq!(HnswSettings::resolve(None, None, HnswSettings::POSTGRES), Ok(None));
    /// assert!(HnswSettings::resolve(Some(48), None, HnswSettings::POSTGRES).is_err());
    /// ```
    pub fn resolve(
        m: Option<usize>,
        ef_construction: Option<usize>,
        default: HnswSettings,
    ) -> std::result::Result<Option<HnswSettings>, String> {
        if m.is_none() && ef_construction.is_none() {
            return Ok(None);
        }
        HnswSettings::new(
            m.unwrap_or(default.m),
            ef_construction.unwrap_or(default.ef_construction),
        )
        .map(Some)
    }
}

impl std::fmt::Display for HnswSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "m={},ef_construction={}", self.m, self.ef_construction)
    }
}

impl std::str::FromStr for HnswSettings {
    type Err = String;

    /// `m=M,ef_construction=E` (the [`Display`](std::fmt::Display) form), both keys given.
    fn from_str(text: &str) -> std::result::Result<HnswSettings, String> {
        let (mut m, mut ef) = (None, None);
        for part in text.split(',') {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                format!("hnsw: {part:?} is not KEY=VALUE (m=16,ef_construction=128)")
            })?;
            let value: usize = value
                .trim()
                .parse()
                .map_err(|_| format!("hnsw: {key}={value:?} is not a whole number"))?;
            match key.trim() {
                "m" => m = Some(value),
                "ef_construction" => ef = Some(value),
                other => return Err(format!("hnsw: unknown key {other:?} (m, ef_construction)")),
            }
        }
        match (m, ef) {
            (Some(m), Some(ef)) => HnswSettings::new(m, ef),
            _ => Err("hnsw: give both m and ef_construction (m=16,ef_construction=128)".into()),
        }
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
        let why = settings().mismatch(&other).unwrap();
        assert!(
            why.contains("model: index has `minilm`, this run has `e5-small`"),
            "{why}"
        );
        assert!(settings().mismatch(&settings()).is_none());
        // Graph settings are compared only when the run names them.
        let mut fast = settings();
        fast.hnsw = Some(HnswSettings::new(16, 80).unwrap());
        let why = settings().mismatch(&fast).unwrap();
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
