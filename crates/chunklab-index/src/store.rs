//! The chunk store: every chunk's text, spans and metadata, every document's content hash, text
//! and access groups, and every chunk's vector — the source of truth the BM25 and vector indexes
//! are derived from (and rebuilt from, when they lag behind after a crash).
//!
//! On disk the store is a list of **segments**, one per commit, under `store/`:
//!
//! * `<generation>.jsonl` — the commit's operations in order, one JSON object a line:
//!   `{"op":"remove","doc_id":..}`, `{"op":"doc",..}` (a [`DocRecord`]) followed by its
//!   `{"op":"chunk",..}` lines ([`ChunkRecord`]s);
//! * `<generation>.vec` — one row per chunk line, in the same order: the key as little-endian
//!   `u64`, then `dim` little-endian `f32`s;
//! * `<generation>.txt` — the documents' full texts, back to back (a [`DocRecord`] holds its
//!   offset and length), so merged and parent spans are cut from the original text.
//!
//! **Checksums.** The manifest records each segment file's length and BLAKE3; each document
//! record carries the BLAKE3 of its text (`text_hash`) and each chunk record the BLAKE3 of its
//! `.vec` row (`vector_hash`). Loading replays the segments the manifest lists, oldest first,
//! after checking every file against the manifest; a file that fails is pinned to the documents
//! it affects by their own checksums ([`Damage`]). Vectors and document texts are read from disk
//! only when needed, and checked against their record's checksum on every read.
//!
//! **Memory.** A chunk's text is `&document_text[start_byte..end_byte]`, so the records held in
//! memory carry no text (their `text` is empty): [`Store::chunk_with_text`],
//! [`Store::chunks_with_text`] and [`Store::fill_texts`] cut it from the document's text when a
//! caller needs it. The `.jsonl` lines still carry every chunk's text (the format is unchanged);
//! holding them all would double the corpus in memory (three times over for hierarchical
//! chunks, whose levels each cover it). Indexes written
//! before checksums (no hashes for `.vec` / `.txt`, no per-record hashes) are still read: their
//! lengths are checked as before, and the next compaction or repair adds the checksums. A writer compacts the store into one segment when old segments hold
//! more dead rows than live ones, or when there are many segments.

mod integrity;
mod records;
mod replay;

pub(crate) use integrity::list as integrity_list;
pub use integrity::Damage;
pub use records::{ChunkRecord, DocRecord};

use crate::error::{io, Error, Result};
use crate::manifest::{sync_dir, SegmentInfo};
use records::Line;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Sub-directory of the index holding the segments.
pub const STORE_DIR: &str = "store";

/// Compact when there are more segments than this.
const MAX_SEGMENTS: usize = 32;

/// A live document and where it lives.
#[derive(Clone, Debug)]
pub struct DocEntry {
    /// The document's record.
    pub record: DocRecord,
    /// Segment holding its text.
    segment: u64,
    /// Keys of its chunks, in chunk order.
    pub keys: Vec<u64>,
}

#[derive(Clone, Debug)]
struct ChunkEntry {
    record: ChunkRecord,
    segment: u64,
    row: u64,
}

/// The operations of the commit being prepared, already applied to the in-memory store.
#[derive(Default)]
struct Pending {
    records: Vec<u8>,
    vectors: Vec<u8>,
    texts: Vec<u8>,
    rows: u64,
    ops: usize,
}

/// The chunk store (see the module docs).
pub struct Store {
    dir: PathBuf,
    dim: usize,
    docs: BTreeMap<String, DocEntry>,
    chunks: HashMap<u64, ChunkEntry>,
    by_id: HashMap<String, u64>,
    /// Chunk rows in all segments, live or dead.
    rows: u64,
    segments: Vec<SegmentInfo>,
    pending: Pending,
    /// Generation the pending operations will be written as.
    pending_generation: u64,
}

fn file_name(generation: u64, ext: &str) -> String {
    format!("{generation:010}.{ext}")
}

/// `record` with its text cut from its document's `text`.
fn with_text(record: &ChunkRecord, text: &str) -> Result<ChunkRecord> {
    let span = span_of(text, record.start_byte, record.end_byte, &record.doc_id)?;
    let mut c = record.clone();
    c.text = span.to_string();
    Ok(c)
}

/// `&text[start..end]`, or an error naming the document when the span is not in its text.
fn span_of<'t>(text: &'t str, start: usize, end: usize, doc_id: &str) -> Result<&'t str> {
    text.get(start..end).ok_or_else(|| {
        Error::BadQuery(format!(
            "chunk span {start}..{end} is not in the text of document `{doc_id}` ({} bytes)",
            text.len()
        ))
    })
}

fn row_bytes(dim: usize) -> u64 {
    8 + 4 * dim as u64
}

impl Store {
    /// An empty store for vectors of `dim` components in index directory `index_dir`.
    pub fn empty(index_dir: &Path, dim: usize) -> Store {
        Store {
            dir: index_dir.join(STORE_DIR),
            dim,
            docs: BTreeMap::new(),
            chunks: HashMap::new(),
            by_id: HashMap::new(),
            rows: 0,
            segments: Vec::new(),
            pending: Pending::default(),
            pending_generation: 1,
        }
    }

    /// Load the segments `segments` of the store in `index_dir`, checking every file's length
    /// and BLAKE3 against the manifest. Damage is an [`Error::Corrupt`] naming the file and the
    /// documents it affects ([`Store::load_lenient`] loads around it).
    pub fn load(index_dir: &Path, dim: usize, segments: &[SegmentInfo]) -> Result<Store> {
        let (store, damage) = Store::load_lenient(index_dir, dim, segments)?;
        match damage.first() {
            None => Ok(store),
            Some(first) => Err(Error::Corrupt {
                path: first.path.clone(),
                reason: damage
                    .iter()
                    .map(|d| d.to_string())
                    .collect::<Vec<_>>()
                    .join("; ")
                    + "; `chunklab index` drops the damaged documents and indexes them again",
            }),
        }
    }

    /// Load like [`Store::load`], but leave out every document whose records, text or vectors
    /// are damaged, and report the damage. A damaged records file drops every document it
    /// mentions; a damaged `.txt` or `.vec` file drops the live documents whose own checksums
    /// fail (all of the segment's live documents when it predates per-record checksums).
    pub fn load_lenient(
        index_dir: &Path,
        dim: usize,
        segments: &[SegmentInfo],
    ) -> Result<(Store, Vec<Damage>)> {
        let mut store = Store::empty(index_dir, dim);
        let mut damage = Vec::new();
        let mut suspects = Vec::new();
        for seg in segments {
            store.replay(seg, &mut damage, &mut suspects);
        }
        store.segments = segments.to_vec();
        store.pending_generation = segments.last().map_or(1, |s| s.generation + 1);
        for (generation, ext, reason) in suspects {
            let path = store.dir.join(file_name(generation, ext));
            let documents = store.damaged_documents(generation, ext);
            for d in &documents {
                store.forget(d);
            }
            damage.push(Damage {
                path,
                reason,
                documents,
            });
        }
        Ok((store, damage))
    }

    /// Drop a document from memory; returns its chunk keys.
    fn forget(&mut self, doc_id: &str) -> Option<Vec<u64>> {
        let entry = self.docs.remove(doc_id)?;
        for k in &entry.keys {
            if let Some(c) = self.chunks.remove(k) {
                self.by_id.remove(&c.record.id);
            }
        }
        Some(entry.keys)
    }

    /// Vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Live documents, by id.
    pub fn docs(&self) -> &BTreeMap<String, DocEntry> {
        &self.docs
    }

    /// A live document.
    pub fn doc(&self, doc_id: &str) -> Option<&DocEntry> {
        self.docs.get(doc_id)
    }

    /// A live chunk by key, **without its text** (empty: see the module docs;
    /// [`Store::chunk_with_text`] reads it).
    pub fn chunk(&self, key: u64) -> Option<&ChunkRecord> {
        self.chunks.get(&key).map(|c| &c.record)
    }

    /// A live chunk's key by chunk id.
    pub fn key_of(&self, chunk_id: &str) -> Option<u64> {
        self.by_id.get(chunk_id).copied()
    }

    /// Number of live chunks.
    pub fn len(&self) -> usize {
        self.chunks.len()
    }

    /// `true` when no chunk is live.
    pub fn is_empty(&self) -> bool {
        self.chunks.is_empty()
    }

    /// Keys of all live chunks, ascending.
    pub fn keys(&self) -> Vec<u64> {
        let mut k: Vec<u64> = self.chunks.keys().copied().collect();
        k.sort_unstable();
        k
    }

    /// Live chunks with their keys, in key order, **without their texts** (see the module docs;
    /// [`Store::chunks_with_text`] reads them).
    pub fn chunks(&self) -> Vec<&ChunkRecord> {
        let mut v: Vec<&ChunkRecord> = self.chunks.values().map(|c| &c.record).collect();
        v.sort_unstable_by_key(|c| c.key);
        v
    }

    /// A live chunk by key with its text, cut from its document's text (read from disk and
    /// checked against its checksum); `None` when no chunk has this key.
    pub fn chunk_with_text(&self, key: u64) -> Result<Option<ChunkRecord>> {
        let Some(c) = self.chunk(key) else {
            return Ok(None);
        };
        let text = self.doc_text(&c.doc_id)?;
        with_text(c, &text).map(Some)
    }

    /// Every live chunk with its text, in key order (each document's text read once: a
    /// document's chunks have consecutive keys).
    pub fn chunks_with_text(&self) -> impl Iterator<Item = Result<ChunkRecord>> + '_ {
        let mut current: Option<(String, String)> = None;
        self.chunks().into_iter().map(move |c| {
            if current.as_ref().is_none_or(|(d, _)| *d != c.doc_id) {
                current = Some((c.doc_id.clone(), self.doc_text(&c.doc_id)?));
            }
            let (_, text) = current.as_ref().expect("just read");
            with_text(c, text)
        })
    }

    /// Give every hit without a text (a hit made from a record of this store) the text of its
    /// span, cut from its document's text (each document read once).
    pub fn fill_texts(&self, hits: &mut [crate::Hit]) -> Result<()> {
        let mut texts: HashMap<String, String> = HashMap::new();
        for h in hits.iter_mut() {
            if !h.text.is_empty() || h.start_byte == h.end_byte {
                continue;
            }
            if !texts.contains_key(&h.doc_id) {
                texts.insert(h.doc_id.clone(), self.doc_text(&h.doc_id)?);
            }
            h.text = span_of(&texts[&h.doc_id], h.start_byte, h.end_byte, &h.doc_id)?.to_string();
        }
        Ok(())
    }

    /// Segments of the last commit.
    pub fn segments(&self) -> &[SegmentInfo] {
        &self.segments
    }

    /// The full text of a live document, read from its segment.
    pub fn doc_text(&self, doc_id: &str) -> Result<String> {
        let entry = self
            .docs
            .get(doc_id)
            .ok_or_else(|| Error::BadQuery(format!("no document `{doc_id}` in the index")))?;
        if entry.segment >= self.pending_generation {
            let r = &entry.record;
            let bytes = &self.pending.texts[r.text_offset as usize..][..r.text_len as usize];
            return Ok(String::from_utf8_lossy(bytes).into_owned());
        }
        let path = self.dir.join(file_name(entry.segment, "txt"));
        let mut f = File::open(&path).map_err(io(&path))?;
        f.seek(SeekFrom::Start(entry.record.text_offset))
            .map_err(io(&path))?;
        let mut buf = vec![0u8; entry.record.text_len as usize];
        f.read_exact(&mut buf).map_err(io(&path))?;
        if let Some(want) = &entry.record.text_hash {
            if integrity::hash(&buf) != *want {
                return Err(Error::Corrupt {
                    path,
                    reason: format!(
                        "the text of document `{doc_id}` does not match its checksum; `chunklab index` drops it and indexes it again"
                    ),
                });
            }
        }
        String::from_utf8(buf).map_err(|_| Error::Corrupt {
            path,
            reason: format!("text of `{doc_id}` is not UTF-8"),
        })
    }

    /// The vectors of live chunks `keys` (committed ones), in the order given.
    pub fn vectors(&self, keys: &[u64]) -> Result<Vec<Vec<f32>>> {
        let mut by_segment: BTreeMap<u64, Vec<(usize, u64)>> = BTreeMap::new();
        for (i, k) in keys.iter().enumerate() {
            let c = self
                .chunks
                .get(k)
                .ok_or_else(|| Error::BadQuery(format!("no chunk with key {k} in the index")))?;
            by_segment.entry(c.segment).or_default().push((i, c.row));
        }
        let mut out = vec![Vec::new(); keys.len()];
        let rb = row_bytes(self.dim);
        for (segment, mut rows) in by_segment {
            rows.sort_unstable_by_key(|&(_, r)| r);
            let from_pending = segment >= self.pending_generation;
            let path = self.dir.join(file_name(segment, "vec"));
            let mut file = if from_pending {
                None
            } else {
                Some(File::open(&path).map_err(io(&path))?)
            };
            let mut buf = vec![0u8; rb as usize];
            for (i, row) in rows {
                match &mut file {
                    Some(f) => {
                        f.seek(SeekFrom::Start(row * rb)).map_err(io(&path))?;
                        f.read_exact(&mut buf).map_err(io(&path))?;
                    }
                    None => buf.copy_from_slice(
                        &self.pending.vectors[(row * rb) as usize..][..rb as usize],
                    ),
                }
                if !from_pending {
                    let c = &self.chunks[&keys[i]];
                    if c.record
                        .vector_hash
                        .as_ref()
                        .is_some_and(|h| integrity::hash(&buf) != *h)
                    {
                        return Err(Error::Corrupt {
                            path: path.clone(),
                            reason: format!(
                                "the vector of chunk `{}` of document `{}` (row {row}) does not match its checksum; `chunklab index` drops the document and indexes it again",
                                c.record.id, c.record.doc_id
                            ),
                        });
                    }
                }
                let key = u64::from_le_bytes(buf[..8].try_into().expect("8 bytes"));
                if key != keys[i] {
                    return Err(Error::Corrupt {
                        path: path.clone(),
                        reason: format!("row {row} holds key {key}, expected {}", keys[i]),
                    });
                }
                out[i] = buf[8..]
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes(b.try_into().expect("4 bytes")))
                    .collect();
            }
        }
        Ok(out)
    }

    /// Remove a document (pending until [`Store::write_pending`]); returns its chunk keys, or
    /// `None` when it is not in the store.
    pub fn remove(&mut self, doc_id: &str) -> Option<Vec<u64>> {
        let keys = self.forget(doc_id)?;
        let line = Line::Remove {
            doc_id: doc_id.to_string(),
        };
        self.push_line(&line);
        Some(keys)
    }

    fn push_line(&mut self, line: &Line) {
        serde_json::to_writer(&mut self.pending.records, line).expect("records serialize");
        self.pending.records.push(b'\n');
        self.pending.ops += 1;
    }

    /// Add a document with its chunks and their vectors (pending until
    /// [`Store::write_pending`]), replacing any document with the same id. The caller has checked
    /// the spans and the vectors' dimension.
    pub fn add(
        &mut self,
        mut record: DocRecord,
        text: &str,
        chunks: Vec<ChunkRecord>,
        vectors: &[Vec<f32>],
    ) {
        self.forget(&record.doc_id);
        record.text_offset = self.pending.texts.len() as u64;
        record.text_len = text.len() as u64;
        record.text_hash = Some(integrity::hash(text.as_bytes()));
        record.chunks = chunks.len();
        self.pending.texts.extend_from_slice(text.as_bytes());
        self.push_line(&Line::Doc(record.clone()));
        let generation = self.pending_generation;
        let mut keys = Vec::with_capacity(chunks.len());
        for (mut c, v) in chunks.into_iter().zip(vectors) {
            let start = self.pending.vectors.len();
            self.pending.vectors.extend_from_slice(&c.key.to_le_bytes());
            for x in v {
                self.pending.vectors.extend_from_slice(&x.to_le_bytes());
            }
            c.vector_hash = Some(integrity::hash(&self.pending.vectors[start..]));
            let line = Line::Chunk(c);
            self.push_line(&line);
            let Line::Chunk(mut c) = line else {
                unreachable!()
            };
            // Written with its text; held without it (see the module docs).
            c.text = String::new();
            keys.push(c.key);
            self.by_id.insert(c.id.clone(), c.key);
            self.chunks.insert(
                c.key,
                ChunkEntry {
                    record: c,
                    segment: generation,
                    row: self.pending.rows,
                },
            );
            self.pending.rows += 1;
        }
        self.docs.insert(
            record.doc_id.clone(),
            DocEntry {
                record,
                segment: generation,
                keys,
            },
        );
    }

    /// `true` when operations wait for [`Store::write_pending`].
    pub fn has_pending(&self) -> bool {
        self.pending.ops > 0
    }

    /// Write the pending operations as segment `generation` (files fsynced, directory too) and
    /// return the segment list of the new generation. Nothing is visible to readers until the
    /// manifest names the segment.
    pub fn write_pending(&mut self, generation: u64) -> Result<Vec<SegmentInfo>> {
        assert_eq!(
            generation, self.pending_generation,
            "generations are sequential"
        );
        std::fs::create_dir_all(&self.dir).map_err(io(&self.dir))?;
        let p = std::mem::take(&mut self.pending);
        let info = SegmentInfo {
            generation,
            records_len: p.records.len() as u64,
            records_hash: integrity::hash(&p.records),
            vectors_len: p.vectors.len() as u64,
            vectors_hash: Some(integrity::hash(&p.vectors)),
            texts_len: p.texts.len() as u64,
            texts_hash: Some(integrity::hash(&p.texts)),
        };
        for (ext, bytes) in [
            ("vec", &p.vectors),
            ("txt", &p.texts),
            ("jsonl", &p.records),
        ] {
            let path = self.dir.join(file_name(generation, ext));
            let mut f = File::create(&path).map_err(io(&path))?;
            f.write_all(bytes).map_err(io(&path))?;
            f.sync_all().map_err(io(&path))?;
        }
        sync_dir(&self.dir)?;
        self.rows += p.rows;
        self.segments.push(info);
        self.pending_generation = generation + 1;
        Ok(self.segments.clone())
    }

    /// `true` when the segments hold more dead chunk rows than live ones, or there are many.
    pub fn needs_compaction(&self) -> bool {
        let live = self.chunks.len() as u64;
        self.segments.len() > MAX_SEGMENTS || (self.rows > 2 * live && self.rows > 1024)
    }

    /// Rewrite every live document into one new segment `generation` (nothing pending).
    pub fn compact(&mut self, generation: u64) -> Result<Vec<SegmentInfo>> {
        assert!(
            !self.has_pending(),
            "compact after writing pending operations"
        );
        let docs: Vec<String> = self.docs.keys().cloned().collect();
        let mut staged = Vec::with_capacity(docs.len());
        for doc_id in &docs {
            let entry = &self.docs[doc_id];
            let text = self.doc_text(doc_id)?;
            let chunks: Vec<ChunkRecord> = entry
                .keys
                .iter()
                .map(|k| with_text(&self.chunks[k].record, &text))
                .collect::<Result<_>>()?;
            let vectors = self.vectors(&entry.keys)?;
            staged.push((entry.record.clone(), text, chunks, vectors));
        }
        self.docs.clear();
        self.chunks.clear();
        self.by_id.clear();
        self.rows = 0;
        self.segments.clear();
        self.pending_generation = generation;
        for (record, text, chunks, vectors) in staged {
            self.add(record, &text, chunks, &vectors);
        }
        self.write_pending(generation)
    }

    /// Delete segment files the current segment list does not name (interrupted commits,
    /// compacted segments). Only a writer calls this.
    pub fn remove_unlisted(&self) -> Result<()> {
        let Ok(entries) = std::fs::read_dir(&self.dir) else {
            return Ok(());
        };
        let keep: std::collections::HashSet<u64> =
            self.segments.iter().map(|s| s.generation).collect();
        for e in entries.flatten() {
            let name = e.file_name();
            let name = name.to_string_lossy();
            let generation = name.split('.').next().and_then(|g| g.parse::<u64>().ok());
            if generation.is_none_or(|g| !keep.contains(&g)) {
                let _ = std::fs::remove_file(e.path());
            }
        }
        Ok(())
    }
}
