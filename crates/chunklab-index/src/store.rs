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
//! Loading replays the segments the manifest lists, oldest first, after checking each file's
//! length and the records' BLAKE3 against the manifest. Vectors and document texts are read from
//! disk only when needed. A writer compacts the store into one segment when old segments hold
//! more dead rows than live ones, or when there are many segments.

use crate::error::{io, Error, Result};
use crate::manifest::{sync_dir, SegmentInfo};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Sub-directory of the index holding the segments.
pub const STORE_DIR: &str = "store";

/// Compact when there are more segments than this.
const MAX_SEGMENTS: usize = 32;

/// One document of the index.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct DocRecord {
    /// Document id (path relative to the indexed directory, or as given).
    pub doc_id: String,
    /// Where the document was read from.
    pub source: String,
    /// BLAKE3 of the file's bytes (hex): unchanged files are not re-chunked.
    pub hash: String,
    /// BM25 language the document was analyzed with (`en`, `nl`).
    pub lang: String,
    /// Access groups (`acl=GROUP` filters).
    #[serde(default)]
    pub acl: Vec<String>,
    /// Extra metadata fields (`FIELD=VALUE` filters).
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// Number of chunks.
    pub chunks: usize,
    /// Byte offset of the document's text in its segment's `.txt` file.
    pub text_offset: u64,
    /// Byte length of the document's text.
    pub text_len: u64,
}

/// One chunk: a span of its document's text plus the chunker's metadata.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ChunkRecord {
    /// Vector key (unique in the index, never reused).
    pub key: u64,
    /// Stable chunk id (`chunk_id`: doc id, span, config, text).
    pub id: String,
    /// Document id.
    pub doc_id: String,
    /// Where the document was read from.
    pub source: String,
    /// `&document[start_byte..end_byte]`.
    pub text: String,
    /// Start byte offset in the document text.
    pub start_byte: usize,
    /// End byte offset (exclusive).
    pub end_byte: usize,
    /// Start offset in Unicode scalar values.
    pub start_char: usize,
    /// End offset in Unicode scalar values (exclusive).
    pub end_char: usize,
    /// Position in the document's chunk list.
    pub index: usize,
    /// Size in the chunker's unit.
    pub tokens: usize,
    /// Heading path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headings: Vec<String>,
    /// 1-based page where the chunk starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// Element kind (paragraph, table, code ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Programming language of code chunks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Symbol path of code chunks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Depth in a chunk hierarchy (0 = top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    /// Id of the parent chunk in a hierarchy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// Text embedded before the chunk text (heading path, table header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Contextual-retrieval context (`--context header|llm`): embedded and indexed for BM25
    /// before the chunk, never part of its span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

impl ChunkRecord {
    /// The text that was embedded: `context + "\n\n" + prefix + text`, like
    /// [`chunklab_core::ChunkMeta::embed_text`].
    pub fn embed_text(&self) -> String {
        let body = match &self.prefix {
            Some(p) => format!("{p}{}", self.text),
            None => self.text.clone(),
        };
        match &self.context {
            Some(c) if !c.is_empty() => format!("{c}\n\n{body}"),
            _ => body,
        }
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
enum Line {
    Remove { doc_id: String },
    Doc(DocRecord),
    Chunk(ChunkRecord),
}

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

    /// Load the segments `segments` of the store in `index_dir`, checking every file against
    /// the manifest.
    pub fn load(index_dir: &Path, dim: usize, segments: &[SegmentInfo]) -> Result<Store> {
        let mut store = Store::empty(index_dir, dim);
        for seg in segments {
            store.replay(seg)?;
        }
        store.segments = segments.to_vec();
        store.pending_generation = segments.last().map_or(1, |s| s.generation + 1);
        Ok(store)
    }

    fn replay(&mut self, seg: &SegmentInfo) -> Result<()> {
        let path = self.dir.join(file_name(seg.generation, "jsonl"));
        let bytes = std::fs::read(&path).map_err(io(&path))?;
        let corrupt = |reason: String| Error::Corrupt {
            path: path.clone(),
            reason,
        };
        if bytes.len() as u64 != seg.records_len {
            return Err(corrupt(format!(
                "{} bytes, the manifest says {}",
                bytes.len(),
                seg.records_len
            )));
        }
        if blake3::hash(&bytes).to_hex().as_str() != seg.records_hash {
            return Err(corrupt("checksum does not match the manifest".into()));
        }
        for (ext, want) in [("vec", seg.vectors_len), ("txt", seg.texts_len)] {
            let p = self.dir.join(file_name(seg.generation, ext));
            let len = std::fs::metadata(&p).map_err(io(&p))?.len();
            if len != want {
                return Err(Error::Corrupt {
                    path: p,
                    reason: format!("{len} bytes, the manifest says {want}"),
                });
            }
        }
        let mut row = 0u64;
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            let op: Line = serde_json::from_slice(line)
                .map_err(|e| corrupt(format!("line {}: {e}", n + 1)))?;
            match op {
                Line::Remove { doc_id } => {
                    self.forget(&doc_id);
                }
                Line::Doc(record) => {
                    self.forget(&record.doc_id);
                    self.docs.insert(
                        record.doc_id.clone(),
                        DocEntry {
                            record,
                            segment: seg.generation,
                            keys: Vec::new(),
                        },
                    );
                }
                Line::Chunk(record) => {
                    let doc = self.docs.get_mut(&record.doc_id).ok_or_else(|| {
                        corrupt(format!(
                            "line {}: chunk of document `{}` before its document",
                            n + 1,
                            record.doc_id
                        ))
                    })?;
                    doc.keys.push(record.key);
                    self.by_id.insert(record.id.clone(), record.key);
                    self.chunks.insert(
                        record.key,
                        ChunkEntry {
                            record,
                            segment: seg.generation,
                            row,
                        },
                    );
                    row += 1;
                }
            }
        }
        if row * row_bytes(self.dim) != seg.vectors_len {
            return Err(corrupt(format!(
                "{row} chunks but the vectors file holds {} bytes",
                seg.vectors_len
            )));
        }
        self.rows += row;
        Ok(())
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

    /// A live chunk by key.
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

    /// Live chunks with their keys, in key order.
    pub fn chunks(&self) -> Vec<&ChunkRecord> {
        let mut v: Vec<&ChunkRecord> = self.chunks.values().map(|c| &c.record).collect();
        v.sort_unstable_by_key(|c| c.key);
        v
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
        record.chunks = chunks.len();
        self.pending.texts.extend_from_slice(text.as_bytes());
        self.push_line(&Line::Doc(record.clone()));
        let generation = self.pending_generation;
        let mut keys = Vec::with_capacity(chunks.len());
        for (c, v) in chunks.into_iter().zip(vectors) {
            self.pending.vectors.extend_from_slice(&c.key.to_le_bytes());
            for x in v {
                self.pending.vectors.extend_from_slice(&x.to_le_bytes());
            }
            let line = Line::Chunk(c);
            self.push_line(&line);
            let Line::Chunk(c) = line else { unreachable!() };
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
            records_hash: blake3::hash(&p.records).to_hex().to_string(),
            vectors_len: p.vectors.len() as u64,
            texts_len: p.texts.len() as u64,
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
                .map(|k| self.chunks[k].record.clone())
                .collect();
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
