//! [`IndexWriter`]: adds, replaces and removes whole documents and commits them durably.

use crate::bm25::{self, Bm25, BM25_DIR};
use crate::error::{io, Error, Result};
use crate::graph_settings::HnswSettings;
use crate::lock::{WriterLock, LOCK_FILE};
use crate::manifest::{Manifest, Settings, MANIFEST_FILE};
use crate::mismatch::{Refusal, StoreKind};
use crate::store::{ChunkRecord, Damage, DocRecord, Store, STORE_DIR};
use crate::vectors::VectorIndex;
use crate::{fill_bm25, remove_dir, snapshot};
use chunklab_core::{Chunk, ChunkMeta, Lang};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A chunk to add: its span in the document text, metadata and vector.
#[derive(Debug, Clone, PartialEq)]
pub struct NewChunk {
    /// Stable chunk id.
    pub id: String,
    /// Start byte offset in the document text.
    pub start_byte: usize,
    /// End byte offset (exclusive).
    pub end_byte: usize,
    /// Start char offset.
    pub start_char: usize,
    /// End char offset (exclusive).
    pub end_char: usize,
    /// Position in the document's chunk list.
    pub index: usize,
    /// Size in the chunker's unit.
    pub tokens: usize,
    /// The chunker's metadata (headings, page, hierarchy, prefix ...).
    pub meta: ChunkMeta,
    /// The embedding of `meta.embed_text(text)`, L2-normalized.
    pub vector: Vec<f32>,
}

impl NewChunk {
    /// A chunk without metadata (`tokens` 0).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: &str,
        start_byte: usize,
        end_byte: usize,
        start_char: usize,
        end_char: usize,
        index: usize,
        vector: Vec<f32>,
    ) -> NewChunk {
        NewChunk {
            id: id.to_string(),
            start_byte,
            end_byte,
            start_char,
            end_char,
            index,
            tokens: 0,
            meta: ChunkMeta::default(),
            vector,
        }
    }

    /// A chunk from the chunker's output and its vector.
    pub fn from_chunk(c: &Chunk<'_>, vector: Vec<f32>) -> NewChunk {
        NewChunk {
            id: c.id.clone(),
            start_byte: c.start_byte,
            end_byte: c.end_byte,
            start_char: c.start_char,
            end_char: c.end_char,
            index: c.index,
            tokens: c.tokens,
            meta: c.meta.clone(),
            vector,
        }
    }
}

/// A whole document to add, with all of its chunks.
#[derive(Debug, Clone, PartialEq)]
pub struct NewDocument {
    /// Document id (replaces a document with the same id).
    pub doc_id: String,
    /// Where it was read from.
    pub source: String,
    /// Content hash of the input file (incremental indexing compares it).
    pub hash: String,
    /// The text every chunk span refers to.
    pub text: String,
    /// Access groups.
    pub acl: Vec<String>,
    /// Custom metadata fields.
    pub fields: BTreeMap<String, String>,
    /// The chunks, in document order.
    pub chunks: Vec<NewChunk>,
}

/// What a writer did since it was opened.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WriteStats {
    /// Documents added or replaced.
    pub documents_added: usize,
    /// Documents removed.
    pub documents_removed: usize,
    /// Chunks added.
    pub chunks_added: usize,
    /// Commits made.
    pub commits: usize,
}

/// The single writer of an index (holds the writer lock until dropped).
pub struct IndexWriter {
    dir: PathBuf,
    _lock: WriterLock,
    manifest: Manifest,
    store: Store,
    bm25: Bm25,
    vectors: VectorIndex,
    /// The vector index differs from the newest snapshot.
    vectors_dirty: bool,
    stats: WriteStats,
    repaired: Repaired,
}

/// What [`IndexWriter::open`] repaired in an existing index. Opening for writing repairs
/// everything [`crate::check`] reports as repairable: a damaged, unreadable or lagging BM25
/// index is rebuilt from the store, a damaged or missing vector snapshot is rebuilt from the
/// store's vectors (nothing is re-embedded), and documents whose store records, text or vectors
/// fail their checksums are dropped from the store, so that the caller indexes them again.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Repaired {
    /// Damage found in the store (each with the documents it affects).
    pub damage: Vec<Damage>,
    /// Documents dropped because their records, text or vectors were damaged: no longer in the
    /// index, to be indexed again from their sources.
    pub dropped_documents: Vec<String>,
    /// What was wrong with BM25 (`path: problem`), if anything.
    pub bm25_problems: Vec<String>,
    /// BM25 was rebuilt from the store.
    pub bm25_rebuilt: bool,
    /// The vector index was rebuilt from the store's vectors (no usable snapshot).
    pub vectors_rebuilt: bool,
}

impl Repaired {
    /// `true` when something was repaired.
    pub fn any(&self) -> bool {
        !self.damage.is_empty() || self.bm25_rebuilt || self.vectors_rebuilt
    }
}

/// Repair the index in `dir` (taking the writer lock): what [`IndexWriter::open`] does to an
/// existing index, committed at once. Returns what was repaired; dropped documents are no
/// longer in the index (index their sources again). An unreadable manifest is an error: only a
/// rebuild helps.
pub fn repair(dir: &Path) -> Result<Repaired> {
    let manifest = Manifest::read(dir)?;
    let writer = IndexWriter::open(dir, manifest.settings, false)?;
    let repaired = writer.repaired().clone();
    writer.finish()?;
    Ok(repaired)
}

impl NewDocument {
    /// Why this document cannot be stored beside `dim`-dimensional vectors (an empty id, a
    /// chunk span outside the text or off a char boundary, a vector of another dimension), or
    /// `None`. `holder` names the store in the message (`index`, `store`). Every store checks
    /// documents with this before writing them.
    pub fn problem(&self, dim: usize, holder: &str) -> Option<String> {
        let bad = |what: String| Some(format!("document `{}`: {what}", self.doc_id));
        if self.doc_id.is_empty() {
            return Some("a document needs a non-empty id".into());
        }
        for (i, c) in self.chunks.iter().enumerate() {
            if c.start_byte > c.end_byte
                || c.end_byte > self.text.len()
                || !self.text.is_char_boundary(c.start_byte)
                || !self.text.is_char_boundary(c.end_byte)
                || c.start_char > c.end_char
            {
                return bad(format!(
                    "chunk {i} has span {}..{} outside the text ({} bytes) or off a char boundary",
                    c.start_byte,
                    c.end_byte,
                    self.text.len()
                ));
            }
            if c.vector.len() != dim {
                return bad(format!(
                    "chunk {i} has a vector of {} dimensions, the {holder} has {dim}",
                    c.vector.len()
                ));
            }
        }
        None
    }
}

impl IndexWriter {
    /// Open the index in `dir` for writing, creating it when there is none. Refuses an index
    /// built with other settings unless `rebuild` (which empties it first). Fails at once with
    /// [`Error::Locked`] when another writer holds the index.
    pub fn open(dir: &Path, settings: Settings, rebuild: bool) -> Result<IndexWriter> {
        if dir.exists() && !dir.is_dir() {
            return Err(Error::BadDocument(format!(
                "{}: exists and is not a directory",
                dir.display()
            )));
        }
        std::fs::create_dir_all(dir).map_err(io(dir))?;
        let lock = WriterLock::acquire(dir)?;
        let existing = match Manifest::read(dir) {
            Ok(m) => Some(m),
            Err(Error::Missing { .. }) => {
                let foreign: Vec<String> = std::fs::read_dir(dir)
                    .map_err(io(dir))?
                    .flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| {
                        ![
                            LOCK_FILE,
                            STORE_DIR,
                            BM25_DIR,
                            "manifest.json.tmp",
                            "vectors.tmp",
                        ]
                        .contains(&n.as_str())
                            && !n.starts_with("vectors-")
                    })
                    .collect();
                if !foreign.is_empty() {
                    return Err(Error::BadDocument(format!(
                        "{}: not a chunklab index and not empty (holds {}); choose another --index directory",
                        dir.display(),
                        foreign.join(", ")
                    )));
                }
                None
            }
            Err(e) if rebuild => {
                let _ = e;
                None
            }
            Err(e) => return Err(e),
        };
        let existing = match existing {
            Some(m) if rebuild => {
                let _ = m;
                None
            }
            Some(mut m) => {
                if let Some(mismatch) = m.settings.mismatch(&settings) {
                    return Err(Error::Refused(Refusal {
                        location: dir.display().to_string(),
                        mismatch,
                        store: StoreKind::Directory,
                    }));
                }
                // This run's configuration is recorded with its first commit.
                if settings.run.is_some() {
                    m.settings.run = settings.run.clone();
                }
                Some(m)
            }
            None => None,
        };
        match existing {
            Some(manifest) => Self::open_existing(dir, lock, manifest),
            None => {
                std::fs::remove_file(dir.join(MANIFEST_FILE))
                    .or_else(|e| match e.kind() {
                        std::io::ErrorKind::NotFound => Ok(()),
                        _ => Err(e),
                    })
                    .map_err(io(dir.join(MANIFEST_FILE)))?;
                remove_dir(&dir.join(STORE_DIR))?;
                remove_dir(&dir.join(BM25_DIR))?;
                snapshot::remove_all(dir)?;
                let dim = settings.dim;
                let mut settings = settings;
                let hnsw = *settings.hnsw.get_or_insert(HnswSettings::DIRECTORY);
                let manifest = Manifest::new(settings);
                let mut bm25 = Bm25::open_writer(dir)?;
                bm25.commit(0)?;
                manifest.write(dir)?;
                Ok(IndexWriter {
                    dir: dir.to_path_buf(),
                    _lock: lock,
                    manifest,
                    store: Store::empty(dir, dim),
                    bm25,
                    vectors: VectorIndex::new(dim, snapshot::params(hnsw)),
                    vectors_dirty: true,
                    stats: WriteStats::default(),
                    repaired: Repaired::default(),
                })
            }
        }
    }

    /// Open an existing index, repairing what is damaged (see [`Repaired`]).
    fn open_existing(dir: &Path, lock: WriterLock, mut manifest: Manifest) -> Result<IndexWriter> {
        let (mut store, damage) =
            Store::load_lenient(dir, manifest.settings.dim, &manifest.segments)?;
        store.remove_unlisted()?;
        let mut repaired = Repaired {
            bm25_problems: bm25::verify(dir, manifest.generation, store.len())
                .into_iter()
                .map(|(path, what)| format!("{}: {what}", path.display()))
                .collect(),
            ..Repaired::default()
        };
        let mut bm25 = if repaired.bm25_problems.is_empty() {
            Bm25::open_writer(dir)?
        } else {
            // Damaged, unreadable or behind the store: rebuilt from the store, from scratch.
            repaired.bm25_rebuilt = true;
            remove_dir(&dir.join(BM25_DIR))?;
            let bm25 = Bm25::open_writer(dir)?;
            fill_bm25(&bm25, &store)?;
            bm25
        };
        let mut vectors_dirty = false;
        if !damage.is_empty() {
            // The damaged documents are already left out in memory: rewrite the store without
            // them (every remaining text and vector is verified on the way), then BM25.
            let mut dropped: Vec<String> =
                damage.iter().flat_map(|d| d.documents.clone()).collect();
            dropped.sort();
            dropped.dedup();
            repaired.dropped_documents = dropped;
            repaired.damage = damage;
            let generation = manifest.generation + 1;
            let segments = store.compact(generation)?;
            if !repaired.bm25_rebuilt {
                bm25.clear()?;
                fill_bm25(&bm25, &store)?;
                repaired.bm25_rebuilt = true;
            }
            bm25.commit(generation)?;
            manifest.generation = generation;
            manifest.segments = segments;
            manifest.documents = store.docs().len();
            manifest.chunks = store.len();
            manifest.write(dir)?;
            store.remove_unlisted()?;
            vectors_dirty = true;
        } else if repaired.bm25_rebuilt {
            bm25.commit(manifest.generation)?;
        }
        let (vectors, loaded) = snapshot::load(dir, &store, manifest.generation, manifest.hnsw())?;
        repaired.vectors_rebuilt = manifest.settings.dim > 0 && loaded.snapshot.is_none();
        vectors_dirty |= loaded.changed() || loaded.snapshot != Some(manifest.generation);
        Ok(IndexWriter {
            dir: dir.to_path_buf(),
            _lock: lock,
            manifest,
            store,
            bm25,
            vectors,
            vectors_dirty,
            stats: WriteStats::default(),
            repaired,
        })
    }

    /// What opening repaired (nothing, for a sound index).
    pub fn repaired(&self) -> &Repaired {
        &self.repaired
    }

    /// The index directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The settings of the index.
    pub fn settings(&self) -> &Settings {
        &self.manifest.settings
    }

    /// The manifest of the last commit.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The store, including uncommitted changes.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// A live document (committed or not).
    pub fn document(&self, doc_id: &str) -> Option<&DocRecord> {
        self.store.doc(doc_id).map(|d| &d.record)
    }

    /// Ids of all live documents, sorted.
    pub fn doc_ids(&self) -> Vec<String> {
        self.store.docs().keys().cloned().collect()
    }

    /// What this writer did so far.
    pub fn stats(&self) -> WriteStats {
        self.stats
    }

    /// Add a document with all of its chunks, replacing a document with the same id. Nothing is
    /// durable until [`IndexWriter::commit`]; a document is never committed in part.
    pub fn add_document(&mut self, doc: NewDocument) -> Result<()> {
        let dim = self.manifest.settings.dim;
        if let Some(problem) = doc.problem(dim, "index") {
            return Err(Error::BadDocument(problem));
        }
        let bad = |what: String| Error::BadDocument(format!("document `{}`: {what}", doc.doc_id));
        let lang = match self.manifest.settings.lang.as_str() {
            "nl" => "nl",
            "en" => "en",
            _ => Lang::Auto.resolve(&doc.text).code(),
        };
        let mut next_key = self.manifest.next_key;
        let records: Vec<ChunkRecord> = doc
            .chunks
            .iter()
            .map(|c| {
                let key = next_key;
                next_key += 1;
                ChunkRecord {
                    key,
                    id: c.id.clone(),
                    doc_id: doc.doc_id.clone(),
                    source: doc.source.clone(),
                    text: doc.text[c.start_byte..c.end_byte].to_string(),
                    start_byte: c.start_byte,
                    end_byte: c.end_byte,
                    start_char: c.start_char,
                    end_char: c.end_char,
                    index: c.index,
                    tokens: c.tokens,
                    headings: c.meta.headings.clone(),
                    page: c.meta.page,
                    kind: c.meta.kind.clone(),
                    language: c.meta.language.clone(),
                    symbol: c.meta.symbol.clone(),
                    level: c.meta.level,
                    parent_id: c.meta.parent_id.clone(),
                    prefix: c.meta.prefix.clone(),
                    context: c.meta.context.clone(),
                    vector_hash: None,
                }
            })
            .collect();
        // Vectors first: they are the only step that can reject a chunk (not normalized ...),
        // and a rejected document must leave nothing behind.
        let items: Vec<(u64, &[f32])> = records
            .iter()
            .zip(&doc.chunks)
            .map(|(r, c)| (r.key, c.vector.as_slice()))
            .collect();
        if dim > 0 {
            self.vectors
                .add_batch(&items)
                .map_err(|e| bad(e.to_string()))?;
        }
        self.drop_document(&doc.doc_id)?;
        for r in &records {
            self.bm25.add(r, lang)?;
        }
        let vectors: Vec<Vec<f32>> = doc.chunks.iter().map(|c| c.vector.clone()).collect();
        let record = DocRecord {
            doc_id: doc.doc_id.clone(),
            source: doc.source.clone(),
            hash: doc.hash.clone(),
            lang: lang.to_string(),
            acl: doc.acl.clone(),
            fields: doc.fields.clone(),
            chunks: records.len(),
            text_offset: 0,
            text_len: 0,
            text_hash: None,
        };
        self.stats.chunks_added += records.len();
        self.stats.documents_added += 1;
        self.store.add(record, &doc.text, records, &vectors);
        self.manifest.next_key = next_key;
        self.vectors_dirty = true;
        Ok(())
    }

    /// Remove a document's chunks from the store, BM25 and vectors (uncommitted).
    fn drop_document(&mut self, doc_id: &str) -> Result<bool> {
        let Some(keys) = self.store.remove(doc_id) else {
            return Ok(false);
        };
        self.bm25.remove_doc(doc_id);
        if self.manifest.settings.dim > 0 {
            for k in keys {
                self.vectors.remove(k)?;
            }
        }
        self.vectors_dirty = true;
        Ok(true)
    }

    /// Remove a document; returns whether it was in the index. Durable at the next commit.
    pub fn remove_document(&mut self, doc_id: &str) -> Result<bool> {
        let removed = self.drop_document(doc_id)?;
        self.stats.documents_removed += removed as usize;
        Ok(removed)
    }

    /// `true` when changes wait for a commit.
    pub fn has_pending(&self) -> bool {
        self.store.has_pending()
    }

    /// Make every change so far durable and visible to readers that open the index afterwards;
    /// returns the new generation. A crash before this returns leaves the previous generation.
    pub fn commit(&mut self) -> Result<u64> {
        if !self.store.has_pending() {
            return Ok(self.manifest.generation);
        }
        let generation = self.manifest.generation + 1;
        let segments = self.store.write_pending(generation)?;
        self.publish(generation, segments)?;
        if self.store.needs_compaction() {
            let generation = generation + 1;
            let segments = self.store.compact(generation)?;
            self.publish(generation, segments)?;
            self.store.remove_unlisted()?;
        }
        self.stats.commits += 1;
        Ok(self.manifest.generation)
    }

    fn publish(
        &mut self,
        generation: u64,
        segments: Vec<crate::manifest::SegmentInfo>,
    ) -> Result<()> {
        self.bm25.commit(generation)?;
        self.manifest.generation = generation;
        self.manifest.segments = segments;
        self.manifest.documents = self.store.docs().len();
        self.manifest.chunks = self.store.len();
        self.manifest.write(&self.dir)
    }

    /// Commit, save the vector snapshot when it changed, and release the writer lock.
    pub fn finish(mut self) -> Result<WriteStats> {
        self.commit()?;
        if self.vectors_dirty && self.manifest.settings.dim > 0 {
            snapshot::save(
                &self.dir,
                &self.vectors,
                self.manifest.generation,
                &self.store.keys(),
            )?;
        }
        Ok(self.stats)
    }
}
