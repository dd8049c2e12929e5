//! The index stage of chunklab: an embedded, durable on-disk index of chunks with BM25 and
//! vector search, fused into hybrid retrieval, with reranking and result shaping. No server:
//! an index is a directory.
//!
//! ```text
//! archief.idx/
//!   manifest.json       settings (chunker, model, language ...) + the committed generation
//!   LOCK                writer lock (held by `chunklab index`; readers never take it)
//!   store/              chunk store segments: records, vectors, document texts (the truth)
//!   bm25/               tantivy index (commit payload = generation)
//!   vectors-<gen>/      HNSW snapshot (derived; reconciled with the store on open)
//! ```
//!
//! * [`manifest`] — what the index is and which files form its current generation;
//! * [`store`] — chunks, documents, vectors, document texts;
//! * [`bm25`] — tantivy with Dutch and English analyzers;
//! * [`vectors`] — the HNSW vector index (and exact search);
//! * [`snapshot`] — saving the vector index and reconciling it with the store;
//! * [`fusion`] — reciprocal rank fusion;
//! * [`filter`] — metadata filters applied inside both searches;
//! * [`seam`] — the Store seam: [`ChunkStore`] / [`StoreWriter`], implemented by [`Index`] /
//!   [`IndexWriter`] here and by PostgreSQL in `chunklab-postgres`;
//! * [`shape`] — small-to-big, auto-merging, merging adjacent chunks, one hit per document;
//! * [`lock`] — the exclusive writer lock;
//! * [`check()`] — verifying every file ([`CheckReport`]); [`repair`] / [`IndexWriter::open`]
//!   repair what it finds.
//!
//! **Durability.** A writer applies whole documents to memory and makes them durable in
//! [`IndexWriter::commit`]: store segment files are written and fsynced, tantivy commits with the
//! new generation as payload, and the manifest naming the new segment is replaced atomically,
//! last. A crash (kill -9) at any point leaves the previous generation or the new one — every
//! document with all of its chunks or not at all. Files newer than the manifest are ignored and
//! removed by the next writer; a BM25 index or vector snapshot that does not match the store is
//! rebuilt from the store (in memory by readers, on disk by the next writer).
//!
//! **Integrity.** Every store file is checksummed (BLAKE3, in the manifest), and so is every
//! document text and chunk vector (in its record): damage is found on open and on every read,
//! and errors name the file and the documents affected. [`check()`] verifies everything,
//! BM25 (tantivy's checksums) and the vector snapshot included; [`IndexWriter::open`] repairs
//! what it finds — BM25 and vectors rebuilt from the store without re-embedding, damaged
//! documents dropped so that the next `chunklab index` indexes them again ([`Repaired`]).
//!
//! ```
//! use chunklab_index::{Index, IndexWriter, Mode, NewChunk, NewDocument, Query, Settings};
//! let dir = tempfile::tempdir()?;
//! let settings = Settings {
//!     chunker: "paragraph size=100 unit=chars".into(), reading: String::new(),
//!     unit: "chars".into(), tokenizer: None, model: "toy".into(), dim: 2,
//!     model_max_tokens: 16, lang: "en".into(), hnsw: None, run: None,
//! };
//! let mut w = IndexWriter::open(dir.path(), settings, false)?;
//! let text = "Wind turbines at sea.\n\nParking permits for visitors.";
//! w.add_document(NewDocument {
//!     doc_id: "a.txt".into(), source: "a.txt".into(), hash: "h1".into(), text: text.into(),
//!     acl: vec![], fields: Default::default(),
//!     chunks: vec![
//!         NewChunk::new("c0", 0, 21, 0, 21, 0, vec![1.0, 0.0]),
//!         NewChunk::new("c1", 23, 52, 23, 52, 1, vec![0.0, 1.0]),
//!     ],
//! })?;
//! w.finish()?;
//! let index = Index::open(dir.path())?;
//! let hits = index.search(&Query::new("parking", Mode::Bm25, 1))?;
//! assert_eq!(hits[0].text, "Parking permits for visitors.");
//! let hits = index.search(&Query::new("wind", Mode::Dense, 1).with_vector(&[1.0, 0.0]))?;
//! assert_eq!(hits[0].chunk_id, "c0");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod bm25;
mod check;
mod checksum;
mod error;
pub mod filter;
pub mod fusion;
mod graph_settings;
pub mod lock;
pub mod manifest;
mod mismatch;
pub mod seam;
pub mod shape;
pub mod snapshot;
pub mod store;
pub mod vectors;
mod writer;

pub use check::{check, CheckReport, Problem};
pub use error::{Error, Result};
pub use filter::Filter;
pub use graph_settings::{BadHnsw, HnswSettings};
pub use manifest::{Manifest, Settings};
pub use mismatch::{Difference, Mismatch, Refusal, StoreKind};
pub use seam::{ChunkStore, StoreWriter};
pub use store::Damage;
pub use writer::{repair, IndexWriter, NewChunk, NewDocument, Repaired, WriteStats};

use bm25::{Bm25, KeyFilter};
use error::io;
use serde::Serialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use store::{ChunkRecord, Store};
use vectors::VectorIndex;

/// Which retrievers a search uses (`dense`, `bm25`, `hybrid` in text and serde).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Vector search with the query embedding.
    Dense,
    /// BM25 over the chunk text.
    Bm25,
    /// Both, fused with reciprocal rank fusion.
    Hybrid,
}

impl std::fmt::Display for Mode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Mode::Dense => "dense",
            Mode::Bm25 => "bm25",
            Mode::Hybrid => "hybrid",
        })
    }
}

impl std::str::FromStr for Mode {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Mode, String> {
        match s {
            "dense" => Ok(Mode::Dense),
            "bm25" => Ok(Mode::Bm25),
            "hybrid" => Ok(Mode::Hybrid),
            other => Err(format!("unknown mode `{other}` (dense, bm25, hybrid)")),
        }
    }
}

/// Scores passages for a query (a cross-encoder, late-interaction MaxSim ...); higher is better.
pub trait Rerank {
    /// One score per passage, in order.
    fn rerank(&self, query: &str, passages: &[&str]) -> std::result::Result<Vec<f32>, String>;
}

/// A search request. [`Query::new`] sets the defaults: RRF k = 60, both weights 1, rerank over the
/// top 50, no filter and no shaping.
pub struct Query<'a> {
    /// The query text (BM25 terms; reranker input).
    pub text: &'a str,
    /// The query embedding (dense and hybrid modes), L2-normalized.
    pub vector: Option<&'a [f32]>,
    /// Retrievers to use.
    pub mode: Mode,
    /// Results wanted (any number: more than the index holds gives every match).
    pub k: usize,
    /// Metadata filter, applied inside both searches.
    pub filter: Option<Arc<Filter>>,
    /// RRF constant.
    pub rrf_k: f32,
    /// Weight of BM25 in RRF.
    pub bm25_weight: f32,
    /// Weight of dense retrieval in RRF.
    pub dense_weight: f32,
    /// Candidates per retriever (default: enough for `k`, reranking and shaping, at least 50 in
    /// hybrid mode).
    pub depth: Option<usize>,
    /// Reranker over the top [`Query::rerank_top`] fused candidates.
    pub rerank: Option<&'a dyn Rerank>,
    /// How many candidates the reranker scores (raised to `k`, capped at the index size).
    pub rerank_top: usize,
    /// Exact vector search instead of HNSW.
    pub exact: bool,
    /// HNSW candidate list size for this query (`ef_search`; raised to the depth), instead of
    /// the index's own (128 for an index directory; the depth, at least 40, in PostgreSQL,
    /// which caps it at pgvector's 1,000). Larger finds more of the true nearest neighbours,
    /// slower. Ignored by exact scans (small indexes, selective filters, [`Query::exact`]).
    pub ef: Option<usize>,
    /// Retrieve leaf chunks and return their parents.
    pub small_to_big: bool,
    /// Retrieve leaf chunks and replace them by their parent when at least this fraction of the
    /// parent's children were retrieved.
    pub auto_merge: Option<f32>,
    /// Merge overlapping, touching or consecutive chunks of a document.
    pub merge: bool,
    /// One result per document (its best chunk).
    pub docs: bool,
}

impl<'a> Query<'a> {
    /// A query with default settings (see [`Query`]).
    pub fn new(text: &'a str, mode: Mode, k: usize) -> Query<'a> {
        Query {
            text,
            vector: None,
            mode,
            k,
            filter: None,
            rrf_k: 60.0,
            bm25_weight: 1.0,
            dense_weight: 1.0,
            depth: None,
            rerank: None,
            rerank_top: 30,
            exact: false,
            ef: None,
            small_to_big: false,
            auto_merge: None,
            merge: false,
            docs: false,
        }
    }

    /// Set the query embedding.
    pub fn with_vector(mut self, vector: &'a [f32]) -> Query<'a> {
        self.vector = Some(vector);
        self
    }

    /// Set the filter.
    pub fn with_filter(mut self, filter: Filter) -> Query<'a> {
        self.filter = (!filter.is_empty()).then(|| Arc::new(filter));
        self
    }

    /// `true` when some result shaping is asked for.
    pub fn shaping(&self) -> bool {
        self.small_to_big || self.auto_merge.is_some() || self.merge || self.docs
    }
}

/// One search result: a chunk (or a merged span or parent standing for several chunks).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Retriever, fused or reranker score (higher is better).
    pub score: f32,
    /// Key of the chunk.
    #[serde(skip)]
    pub key: u64,
    /// Id of the chunk.
    pub chunk_id: String,
    /// Document id.
    pub doc_id: String,
    /// Where the document was read from.
    pub source: String,
    /// `&document[start_byte..end_byte]`.
    pub text: String,
    /// Heading path.
    pub headings: Vec<String>,
    /// 1-based page.
    pub page: Option<u32>,
    /// Start byte offset in the document text.
    pub start_byte: usize,
    /// End byte offset (exclusive).
    pub end_byte: usize,
    /// Start char offset.
    pub start_char: usize,
    /// End char offset (exclusive).
    pub end_char: usize,
    /// Hierarchy level.
    pub level: Option<u32>,
    /// Ids of the retrieved chunks this hit stands for.
    pub chunks: Vec<String>,
    /// 1-based rank in the BM25 list, when BM25 returned it.
    pub bm25_rank: Option<usize>,
    /// 1-based rank in the dense list, when dense retrieval returned it.
    pub dense_rank: Option<usize>,
}

impl Hit {
    /// A hit for one chunk.
    pub fn from_chunk(c: &ChunkRecord, score: f32) -> Hit {
        Hit {
            score,
            key: c.key,
            chunk_id: c.id.clone(),
            doc_id: c.doc_id.clone(),
            source: c.source.clone(),
            text: c.text.clone(),
            headings: c.headings.clone(),
            page: c.page,
            start_byte: c.start_byte,
            end_byte: c.end_byte,
            start_char: c.start_char,
            end_char: c.end_char,
            level: c.level,
            chunks: vec![c.id.clone()],
            bm25_rank: None,
            dense_rank: None,
        }
    }
}

/// Repairs made in memory while opening (the on-disk index lagged behind the store after an
/// interrupted write; the next `chunklab index` repairs the files).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repairs {
    /// The BM25 index was rebuilt from the store.
    pub bm25_rebuilt: bool,
    /// Vectors added to / removed from the snapshot to match the store.
    pub vectors_added: usize,
    /// Vectors removed from the snapshot.
    pub vectors_removed: usize,
}

/// An index opened for searching. Opening never blocks on, or is blocked by, a writer.
pub struct Index {
    dir: PathBuf,
    manifest: Manifest,
    store: Arc<Store>,
    bm25: Bm25,
    vectors: VectorIndex,
    /// Keys of chunks that are the parent of some chunk.
    parents: Arc<HashSet<u64>>,
    repairs: Repairs,
}

/// Attempts at opening while a writer compacts or replaces files under us.
const OPEN_ATTEMPTS: usize = 5;

impl Index {
    /// Open the index in `dir` for searching.
    pub fn open(dir: &Path) -> Result<Index> {
        if !dir.is_dir() {
            return Err(Error::Missing {
                path: dir.to_path_buf(),
            });
        }
        let mut attempt = 0;
        loop {
            match Self::open_once(dir) {
                Err(Error::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound
                        && attempt + 1 < OPEN_ATTEMPTS =>
                {
                    attempt += 1;
                    std::thread::sleep(std::time::Duration::from_millis(50 << attempt));
                }
                other => return other,
            }
        }
    }

    fn open_once(dir: &Path) -> Result<Index> {
        let manifest = Manifest::read(dir)?;
        let store = Store::load(dir, manifest.settings.dim, &manifest.segments)?;
        let mut repairs = Repairs::default();
        let bm25 = match Bm25::open(dir) {
            Ok(b) if b.generation()? == Some(manifest.generation) => b,
            _ => {
                repairs.bm25_rebuilt = true;
                let text_bytes = store
                    .chunks()
                    .iter()
                    .map(|c| c.end_byte - c.start_byte)
                    .sum();
                let langs = store.chunks_with_text().map(|c| {
                    let c = c?;
                    let lang = chunk_lang(&store, &c);
                    Ok((c, lang))
                });
                Bm25::rebuilt_in_memory(langs, text_bytes, manifest.generation)?
            }
        };
        let (vectors, loaded) = snapshot::load(dir, &store, manifest.generation, manifest.hnsw())?;
        repairs.vectors_added = if loaded.snapshot.is_some() {
            loaded.added
        } else {
            0
        };
        repairs.vectors_removed = loaded.removed;
        let parents = parent_keys(&store);
        Ok(Index {
            dir: dir.to_path_buf(),
            manifest,
            store: Arc::new(store),
            bm25,
            vectors,
            parents: Arc::new(parents),
            repairs,
        })
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest the index was opened at.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The settings every chunk was made with.
    pub fn settings(&self) -> &Settings {
        &self.manifest.settings
    }

    /// The chunk store.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The vector index.
    pub fn vectors(&self) -> &VectorIndex {
        &self.vectors
    }

    /// What had to be repaired in memory while opening.
    pub fn repairs(&self) -> &Repairs {
        &self.repairs
    }

    /// `true` when some chunks have parents (hierarchical chunking).
    pub fn is_hierarchical(&self) -> bool {
        !self.parents.is_empty()
    }

    /// Names of the custom metadata fields of the documents.
    pub fn custom_fields(&self) -> Vec<String> {
        let mut f: Vec<String> = self
            .store
            .docs()
            .values()
            .flat_map(|d| d.record.fields.keys().cloned())
            .collect();
        f.sort();
        f.dedup();
        f
    }

    /// Parse `FIELD=VALUE` filter specs against this index's fields.
    pub fn filter(&self, specs: &[String]) -> Result<Filter> {
        Filter::parse(specs, &self.custom_fields())
    }

    fn key_filter(&self, q: &Query) -> Option<KeyFilter> {
        let leaves_only = q.small_to_big || q.auto_merge.is_some();
        if q.filter.is_none() && !(leaves_only && self.is_hierarchical()) {
            return None;
        }
        let store = self.store.clone();
        let parents = self.parents.clone();
        let filter = q.filter.clone();
        Some(Arc::new(move |k: u64| {
            if leaves_only && parents.contains(&k) {
                return false;
            }
            match &filter {
                None => true,
                Some(f) => store
                    .chunk(k)
                    .and_then(|c| store.doc(&c.doc_id).map(|d| f.matches(c, &d.record)))
                    .unwrap_or(false),
            }
        }))
    }

    /// Run a search: retrieve (filtered inside each retriever), fuse, rerank, shape, cut to `k`.
    pub fn search(&self, q: &Query) -> Result<Vec<Hit>> {
        let vector = seam::check_query(q, self.settings())?;
        let plan = seam::Plan::new(q, self.store.len());
        if plan.k == 0 {
            return Ok(Vec::new());
        }
        let depth = plan.depth;
        let filter = self.key_filter(q);
        let bm25 = match q.mode {
            Mode::Dense => Vec::new(),
            _ => self.bm25.search(q.text, depth, filter.clone())?,
        };
        let dense = match vector {
            None => Vec::new(),
            Some(v) => {
                let f = filter.as_ref().map(|f| f.as_ref() as &dyn Fn(u64) -> bool);
                if q.exact {
                    self.vectors.search_exact(v, depth, f)?
                } else {
                    self.vectors.search_with_ef(v, depth, q.ef, f)?
                }
            }
        };
        let ranked: Vec<(u64, f32)> = match q.mode {
            Mode::Bm25 => bm25.clone(),
            Mode::Dense => dense.clone(),
            Mode::Hybrid => {
                let b: Vec<u64> = bm25.iter().map(|h| h.0).collect();
                let d: Vec<u64> = dense.iter().map(|h| h.0).collect();
                fusion::rrf(&[(&b, q.bm25_weight), (&d, q.dense_weight)], q.rrf_k)
            }
        };
        let rank_in = |list: &[(u64, f32)]| -> std::collections::HashMap<u64, usize> {
            list.iter().enumerate().map(|(i, h)| (h.0, i + 1)).collect()
        };
        let (bm25_ranks, dense_ranks) = (rank_in(&bm25), rank_in(&dense));
        let ranked = ranked
            .into_iter()
            .map(|(key, score)| seam::Ranked {
                key,
                score,
                bm25_rank: bm25_ranks.get(&key).copied(),
                dense_rank: dense_ranks.get(&key).copied(),
            })
            .collect();
        seam::finish(q, plan, ranked, self.store.as_ref())
    }
}

impl ChunkStore for Index {
    fn location(&self) -> String {
        self.dir.display().to_string()
    }
    fn settings(&self) -> &Settings {
        Index::settings(self)
    }
    fn filter(&self, specs: &[String]) -> Result<Filter> {
        Index::filter(self, specs)
    }
    fn is_hierarchical(&self) -> bool {
        Index::is_hierarchical(self)
    }
    fn search(&self, q: &Query) -> Result<Vec<Hit>> {
        Index::search(self, q)
    }
    fn doc_lang(&self, doc_id: &str) -> Option<String> {
        self.store.doc(doc_id).map(|d| d.record.lang.clone())
    }
    fn counts(&self) -> Result<(usize, usize)> {
        Ok((self.store.docs().len(), self.store.len()))
    }
}

/// Keys of chunks some other chunk names as its parent.
fn parent_keys(store: &Store) -> HashSet<u64> {
    store
        .chunks()
        .iter()
        .filter_map(|c| c.parent_id.as_deref().and_then(|p| store.key_of(p)))
        .collect()
}

/// Add every live chunk of `store` to `bm25` (uncommitted).
pub(crate) fn fill_bm25(bm25: &Bm25, store: &Store) -> Result<()> {
    for c in store.chunks_with_text() {
        let c = c?;
        bm25.add(&c, chunk_lang(store, &c))?;
    }
    Ok(())
}

/// The language a chunk's BM25 text is analyzed in: its document's (English when unknown).
fn chunk_lang<'a>(store: &'a Store, chunk: &ChunkRecord) -> &'a str {
    store
        .doc(&chunk.doc_id)
        .map(|d| d.record.lang.as_str())
        .unwrap_or("en")
}

/// Remove a directory tree if it exists.
pub(crate) fn remove_dir(path: &Path) -> Result<()> {
    match std::fs::remove_dir_all(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(io(path)(e)),
        _ => Ok(()),
    }
}
