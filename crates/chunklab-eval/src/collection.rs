//! One configuration's collection: its chunks written into a real `chunklab-index` (store,
//! tantivy BM25 with the Dutch/English analyzers, HNSW or exact vectors) in a scratch
//! directory, or into a PostgreSQL database of its own ([`Scratch::Postgres`]), and searched
//! through the store seam's `search` — the stores `chunklab index` builds and `chunklab search`
//! queries, so the lab measures what users run. Index bytes are read from the files on disk
//! (`pg_database_size` for PostgreSQL).

use crate::chunking::{doc_runs, EvalChunk};
use crate::error::{Error, Result};
use crate::sweep::{ChunkSpec, Graph, Mode, Retrieval};
use chunklab_core::document::ParsedDocument;
use chunklab_core::ChunkMeta;
use chunklab_index::{
    ChunkStore, HnswSettings, Index, IndexWriter, NewChunk, NewDocument, Query, Rerank, Settings,
    StoreWriter,
};
use chunklab_postgres::scratch::ScratchDatabase;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The embedding model of a collection: name, vector dimension, tokens per text.
pub struct ModelInfo<'a> {
    pub name: &'a str,
    pub dim: usize,
    pub max_tokens: usize,
}

/// Bytes of an index on disk, by part.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiskBytes {
    /// Vectors: the store's vector files and the HNSW snapshot.
    pub vectors: u64,
    /// The tantivy BM25 index.
    pub bm25: u64,
    /// Chunk records, document texts, manifest.
    pub store: u64,
}

/// Where each configuration's collection is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scratch {
    /// An embedded index in a temporary directory under this one.
    Dir(PathBuf),
    /// A database of its own on this PostgreSQL server (a `postgres://` URL whose user may
    /// create databases), dropped afterwards.
    Postgres(String),
}

/// What a collection lives in, removed when dropped.
enum Place {
    Dir(tempfile::TempDir),
    Database(Box<ScratchDatabase>),
}

/// A built, opened store over one configuration's chunks (deleted when dropped).
pub struct Collection {
    // Declared first so it is dropped (its connections closed) before the place is removed.
    store: Box<dyn ChunkStore>,
    /// Size on disk after building.
    pub bytes: DiskBytes,
    /// Chunks in the collection.
    len: usize,
    _place: Place,
}

/// One query's candidates as hybrid search fuses them: each retriever's keys, best first, at
/// the depth a hybrid query of the same k searches, with the chunk number of every key.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidates {
    pub bm25: Vec<u64>,
    pub dense: Vec<u64>,
    chunk_of: std::collections::HashMap<u64, u32>,
}

impl Candidates {
    /// The chunk number of a key of either list.
    pub fn chunk(&self, key: u64) -> u32 {
        self.chunk_of[&key]
    }
}

/// The least a commit of a collection's build writes: below this much (about 256 MB of pending
/// records, document texts and vectors) a collection is written in one commit, as before.
const PIECE_BYTES: usize = 256 << 20;

/// The most commits a collection's build makes: the index store compacts itself (rewriting every
/// segment, all of it in memory) once it has more than 32 segments.
const MAX_PIECES: usize = 16;

/// Bytes a chunk adds to the index writer's pending commit, about: its record as a JSON line
/// (the text, heading path, prefix and context, and ~300 bytes of ids, spans and checksum) and
/// its vector row.
fn pending_bytes(c: &EvalChunk, dim: usize) -> usize {
    (c.end_byte - c.start_byte)
        + c.headings.iter().map(|h| h.len() + 3).sum::<usize>()
        + c.prefix.as_ref().map_or(0, String::len)
        + c.context.as_ref().map_or(0, String::len)
        + 300
        + 8
        + 4 * dim
}

impl Collection {
    /// Write `chunks` (with `vectors[i]` for chunk `i` when a model is given) into a new store
    /// in `scratch` and open it. Chunk `i` gets the id `i`. A large collection is committed in
    /// up to `MAX_PIECES` pieces of at least `PIECE_BYTES` each, so that the writer holds
    /// one piece's pending records and texts rather than the whole collection's; smaller ones
    /// in one commit. The vectors' HNSW graph has the shape `graph` names, the rest at the
    /// store's default.
    #[allow(clippy::too_many_arguments)]
    pub fn build(
        scratch: &Scratch,
        spec: &ChunkSpec,
        model: Option<ModelInfo<'_>>,
        graph: Graph,
        docs: &[ParsedDocument],
        ids: &[String],
        chunks: &[EvalChunk],
        vectors: Option<&[Arc<[f32]>]>,
    ) -> Result<Collection> {
        Self::build_in_pieces(
            scratch,
            spec,
            model,
            graph,
            docs,
            ids,
            chunks,
            vectors,
            PIECE_BYTES,
        )
    }

    /// [`Collection::build`], committing whenever at least `piece` (and a [`MAX_PIECES`]th of
    /// the whole) bytes are pending.
    #[allow(clippy::too_many_arguments)]
    fn build_in_pieces(
        scratch: &Scratch,
        spec: &ChunkSpec,
        model: Option<ModelInfo<'_>>,
        graph: Graph,
        docs: &[ParsedDocument],
        ids: &[String],
        chunks: &[EvalChunk],
        vectors: Option<&[Arc<[f32]>]>,
        piece: usize,
    ) -> Result<Collection> {
        let fail = |e: chunklab_index::Error| Error::Run(format!("index of {}: {e}", spec.label()));
        let store_default = match scratch {
            Scratch::Dir(_) => HnswSettings::DIRECTORY,
            Scratch::Postgres(_) => HnswSettings::POSTGRES,
        };
        let hnsw = graph
            .settings(store_default)
            .map_err(|e| Error::Config(format!("{}{}: {e}", spec.label(), graph.label_suffix())))?;
        let settings = Settings {
            chunker: spec.label(),
            reading: String::new(),
            unit: spec.unit_name(),
            tokenizer: spec.tokenizer.clone(),
            model: model.as_ref().map_or(String::new(), |m| m.name.to_string()),
            dim: model.as_ref().map_or(0, |m| m.dim),
            model_max_tokens: model.as_ref().map_or(0, |m| m.max_tokens),
            hnsw,
            lang: spec.lang.clone(),
            run: None,
        };
        let dim = settings.dim;
        let (mut w, place): (Box<dyn StoreWriter>, Place) = match scratch {
            Scratch::Dir(root) => {
                std::fs::create_dir_all(root)
                    .map_err(|e| Error::Run(format!("{}: {e}", root.display())))?;
                let dir = tempfile::Builder::new()
                    .prefix("chunklab-bench-")
                    .tempdir_in(root)
                    .map_err(|e| Error::Run(format!("{}: {e}", root.display())))?;
                let w = IndexWriter::open(dir.path(), settings, false).map_err(fail)?;
                (Box::new(w), Place::Dir(dir))
            }
            Scratch::Postgres(url) => {
                let db = ScratchDatabase::create(url).map_err(fail)?;
                let w = chunklab_postgres::open_writer(db.url(), settings, false).map_err(fail)?;
                (w, Place::Database(Box::new(db)))
            }
        };
        let doc_bytes = |d: usize, run: std::ops::Range<usize>| {
            docs[d].text.len()
                + chunks[run]
                    .iter()
                    .map(|c| pending_bytes(c, dim))
                    .sum::<usize>()
        };
        let total: usize = doc_runs(chunks).map(|(d, run)| doc_bytes(d, run)).sum();
        let piece = piece.max(total.div_ceil(MAX_PIECES));
        let mut pending = 0;
        for (d, run) in doc_runs(chunks) {
            pending += doc_bytes(d, run.clone());
            let start = run.start;
            let new_chunks = run
                .map(|i| {
                    let c = &chunks[i];
                    let vector = match vectors {
                        Some(v) if dim > 0 => v[i].to_vec(),
                        _ => Vec::new(),
                    };
                    NewChunk {
                        id: i.to_string(),
                        start_byte: c.start_byte,
                        end_byte: c.end_byte,
                        start_char: c.start_char,
                        end_char: c.end_char,
                        index: i - start,
                        tokens: c.tokens,
                        meta: ChunkMeta {
                            headings: c.headings.clone(),
                            prefix: c.prefix.clone(),
                            context: c.context.clone(),
                            ..ChunkMeta::default()
                        },
                        vector,
                    }
                })
                .collect();
            w.add_document(NewDocument {
                doc_id: ids[d].clone(),
                source: ids[d].clone(),
                hash: String::new(),
                text: docs[d].text.clone(),
                acl: Vec::new(),
                fields: Default::default(),
                chunks: new_chunks,
            })
            .map_err(fail)?;
            if pending >= piece {
                w.commit().map_err(fail)?;
                pending = 0;
            }
        }
        w.finish().map_err(fail)?;
        let (store, bytes): (Box<dyn ChunkStore>, DiskBytes) = match &place {
            Place::Dir(dir) => (
                Box::new(Index::open(dir.path()).map_err(fail)?),
                disk_bytes(dir.path())
                    .map_err(|e| Error::Run(format!("{}: {e}", dir.path().display())))?,
            ),
            Place::Database(db) => {
                let b = db.bytes().map_err(fail)?;
                (
                    chunklab_postgres::open_store(db.url()).map_err(fail)?,
                    DiskBytes {
                        vectors: b.vectors,
                        bm25: b.fulltext,
                        store: b.total.saturating_sub(b.vectors + b.fulltext),
                    },
                )
            }
        };
        Ok(Collection {
            store,
            bytes,
            len: chunks.len(),
            _place: place,
        })
    }

    /// The chunk numbers of the best `k` results for a query, best first (a merged result
    /// gives every chunk it stands for, in document order); in `+rerank` modes `rerank` scores
    /// the best `rerank_top` (at least `k`) candidates; `how` sets the fusion weights and
    /// shaping.
    pub fn search(
        &self,
        text: &str,
        vector: Option<&[f32]>,
        mode: Mode,
        k: usize,
        how: &Retrieval,
        rerank: Option<(&dyn Rerank, usize)>,
    ) -> Result<Vec<u32>> {
        let mut q = Query::new(text, mode.retriever(), k);
        q.vector = vector;
        how.search_config().tune(&mut q);
        if let (true, Some((rerank, top))) = (mode.rerank(), rerank) {
            q.rerank = Some(rerank);
            q.rerank_top = top.max(k);
        }
        let mut out = Vec::with_capacity(k);
        for h in self.hits(&q, text)? {
            if h.chunks.len() <= 1 {
                out.push(chunk_number(&h)?);
                continue;
            }
            let mut numbers = h
                .chunks
                .iter()
                .map(|id| parse_chunk_number(id))
                .collect::<Result<Vec<u32>>>()?;
            numbers.sort_unstable();
            out.extend(numbers);
        }
        Ok(out)
    }

    /// The store's hits for `q` (`text` names the query in the error).
    fn hits(&self, q: &Query, text: &str) -> Result<Vec<chunklab_index::Hit>> {
        self.store
            .search(q)
            .map_err(|e| Error::Run(format!("search `{text}`: {e}")))
    }
}

/// The chunk number the lab gave a hit's chunk as its id.
fn chunk_number(h: &chunklab_index::Hit) -> Result<u32> {
    parse_chunk_number(&h.chunk_id)
}

fn parse_chunk_number(id: &str) -> Result<u32> {
    id.parse::<u32>()
        .map_err(|_| Error::Run(format!("unexpected chunk id `{id}`")))
}

impl Collection {
    /// The BM25 and dense candidates of a query, each list searched on its own at the depth
    /// [`chunklab_index::seam::Plan`] gives a hybrid query of `k` (what `search` in hybrid mode
    /// fuses), for fusing with other weights ([`crate::fusion_cv`]).
    pub fn candidates(&self, text: &str, vector: &[f32], k: usize) -> Result<Candidates> {
        let hybrid = Query::new(text, chunklab_index::Mode::Hybrid, k);
        let depth = chunklab_index::seam::Plan::new(&hybrid, self.len).depth;
        let mut chunk_of = std::collections::HashMap::new();
        let mut list = |mode: chunklab_index::Mode| -> Result<Vec<u64>> {
            let mut q = Query::new(text, mode, depth);
            q.depth = Some(depth);
            if mode == chunklab_index::Mode::Dense {
                q.vector = Some(vector);
            }
            self.hits(&q, text)?
                .iter()
                .map(|h| {
                    chunk_of.insert(h.key, chunk_number(h)?);
                    Ok(h.key)
                })
                .collect()
        };
        let bm25 = list(chunklab_index::Mode::Bm25)?;
        let dense = list(chunklab_index::Mode::Dense)?;
        Ok(Candidates {
            bm25,
            dense,
            chunk_of,
        })
    }
}

/// Candidates a reranker scores per query in `+rerank` modes.
pub const RERANK_TOP: usize = 30;

/// Sizes of the parts of the index in `dir`.
fn disk_bytes(dir: &Path) -> std::io::Result<DiskBytes> {
    let mut b = DiskBytes::default();
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let name = e.file_name().to_string_lossy().into_owned();
        let path = e.path();
        if name == "bm25" {
            b.bm25 += tree_bytes(&path)?;
        } else if name.starts_with("vectors") {
            b.vectors += tree_bytes(&path)?;
        } else if name == "store" {
            for f in std::fs::read_dir(&path)? {
                let f = f?;
                let len = tree_bytes(&f.path())?;
                if f.file_name().to_string_lossy().ends_with(".vec") {
                    b.vectors += len;
                } else {
                    b.store += len;
                }
            }
        } else {
            b.store += tree_bytes(&path)?;
        }
    }
    Ok(b)
}

fn tree_bytes(path: &Path) -> std::io::Result<u64> {
    let m = std::fs::metadata(path)?;
    if m.is_file() {
        return Ok(m.len());
    }
    let mut total = 0;
    if m.is_dir() {
        for e in std::fs::read_dir(path)? {
            total += tree_bytes(&e?.path())?;
        }
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::{generate, ArchiveOptions};
    use crate::chunking::{build_chunker, chunk_all};
    use crate::sweep::{Mode, Retrieval};

    fn segments(c: &Collection) -> usize {
        let Place::Dir(dir) = &c._place else {
            unreachable!("built in a directory")
        };
        chunklab_index::Manifest::read(dir.path())
            .unwrap()
            .segments
            .len()
    }

    /// A row's graph settings are the index's, the unnamed one at the store's default; settings
    /// the store refuses are an error naming the row and the key.
    #[test]
    fn the_graph_is_built_as_the_row_names_it() {
        let ds = generate(&ArchiveOptions { docs: 4, seed: 3 });
        let parsed = crate::run::parse_docs(&ds).unwrap();
        let ids: Vec<String> = ds.docs.iter().map(|d| d.id.clone()).collect();
        let spec = ChunkSpec::new("recursive", 200);
        let chunker = build_chunker(&spec, None, None, false).unwrap();
        let chunks = chunk_all(chunker.as_ref(), &parsed, &ids).unwrap();
        let vectors: Vec<Arc<[f32]>> = (0..chunks.len())
            .map(|i| {
                let v: Vec<f32> = (0..8).map(|j| ((i * 8 + j) % 7) as f32 + 1.0).collect();
                let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
                v.iter().map(|x| x / norm).collect()
            })
            .collect();
        let root = tempfile::tempdir().unwrap();
        let scratch = Scratch::Dir(root.path().to_path_buf());
        let build = |graph| {
            let info = ModelInfo {
                name: "test",
                dim: 8,
                max_tokens: 512,
            };
            let ci = Collection::build(
                &scratch,
                &spec,
                Some(info),
                graph,
                &parsed,
                &ids,
                &chunks,
                Some(&vectors),
            )?;
            let Place::Dir(dir) = &ci._place else {
                unreachable!("built in a directory")
            };
            Ok::<_, Error>(chunklab_index::Manifest::read(dir.path()).unwrap().hnsw())
        };
        let graph = Graph {
            m: Some(8),
            ef_construction: None,
        };
        let hnsw = build(graph).unwrap();
        assert_eq!((hnsw.m, hnsw.ef_construction), (8, 128));
        assert_eq!(build(Graph::default()).unwrap(), HnswSettings::DIRECTORY);
        let too_many = Graph {
            m: Some(80),
            ef_construction: None,
        };
        let e = build(too_many).unwrap_err().to_string();
        assert!(
            e.contains("recursive 200 m 80: hnsw_ef_construction: 128"),
            "{e}"
        );
    }

    /// A collection committed in pieces ranks every chunk exactly as one committed at once
    /// (the whole ranking is compared, so no tie at a cut-off decides anything).
    #[test]
    fn pieces_rank_as_one_commit() {
        let ds = generate(&ArchiveOptions { docs: 30, seed: 7 });
        let parsed = crate::run::parse_docs(&ds).unwrap();
        let ids: Vec<String> = ds.docs.iter().map(|d| d.id.clone()).collect();
        let spec = ChunkSpec::new("recursive", 64);
        let chunker = build_chunker(&spec, None, None, false).unwrap();
        let chunks = chunk_all(chunker.as_ref(), &parsed, &ids).unwrap();
        let root = tempfile::tempdir().unwrap();
        let scratch = Scratch::Dir(root.path().to_path_buf());
        let build = |piece| {
            Collection::build_in_pieces(
                &scratch,
                &spec,
                None,
                Graph::default(),
                &parsed,
                &ids,
                &chunks,
                None,
                piece,
            )
            .unwrap()
        };
        let (whole, pieces) = (build(usize::MAX), build(1));
        assert_eq!(segments(&whole), 1);
        let n = segments(&pieces);
        assert!((2..=MAX_PIECES + 1).contains(&n), "{n} segments");
        let all = chunks.len();
        for q in &ds.queries {
            let search = |c: &Collection| {
                c.search(&q.query, None, Mode::Bm25, all, &Retrieval::default(), None)
                    .unwrap()
            };
            let got = search(&pieces);
            assert!(!got.is_empty(), "{}", q.query);
            assert_eq!(search(&whole), got, "{}", q.query);
        }
    }
}
