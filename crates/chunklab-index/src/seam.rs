//! The Store seam: where chunks are kept and searched. Two implementations: the embedded index
//! ([`crate::Index`] / [`crate::IndexWriter`], a directory) and PostgreSQL + pgvector
//! (`chunklab-postgres`). Every face (CLI, lab, server, Python) opens a store through the
//! pipeline crate and only sees these traits.
//!
//! What both stores share lives here, so that their results differ only where their retrievers
//! do: the count clamping ([`Plan`]), the query checks ([`check_query`]), and everything after
//! retrieval ([`finish`]: hits with their retriever ranks, reranking, small-to-big,
//! auto-merging, merging, one hit per document, the cut to `k`), run over a
//! [`ShapeSource`] the store provides.

use crate::error::{Error, Result};
use crate::filter::Filter;
use crate::manifest::Settings;
use crate::shape::{self, ShapeSource};
use crate::writer::NewDocument;
use crate::{Hit, Mode, Query};

/// A store opened for searching.
pub trait ChunkStore: Send + Sync {
    /// Where the store is (an index directory, a database URL without its password).
    fn location(&self) -> String;
    /// The settings every chunk was made with (chunker, model, dimension, language).
    fn settings(&self) -> &Settings;
    /// Parse `FIELD=VALUE` filter specs against the store's fields.
    fn filter(&self, specs: &[String]) -> Result<Filter>;
    /// `true` when some chunks have parents (hierarchical chunking).
    fn is_hierarchical(&self) -> bool;
    /// Run a search: retrieve (filtered inside each retriever), fuse, rerank, shape, cut to `k`.
    fn search(&self, q: &Query) -> Result<Vec<Hit>>;
    /// The BM25 language a document was analyzed with (`en`, `nl`), for snippets.
    fn doc_lang(&self, doc_id: &str) -> Option<String>;
    /// Documents and chunks the store holds.
    fn counts(&self) -> Result<(usize, usize)>;
}

/// The single writer of a store: whole documents replaced, committed in batches.
pub trait StoreWriter {
    /// Where the store is.
    fn location(&self) -> String;
    /// The settings the store was created with.
    fn settings(&self) -> &Settings;
    /// The content hash a document was indexed with (incremental indexing compares it).
    fn document_hash(&self, doc_id: &str) -> Option<String>;
    /// Ids of every document in the store.
    fn doc_ids(&self) -> Vec<String>;
    /// Add or replace a whole document (durable after [`StoreWriter::commit`]).
    fn add_document(&mut self, doc: NewDocument) -> Result<()>;
    /// Remove a document; `false` when it was not there.
    fn remove_document(&mut self, doc_id: &str) -> Result<bool>;
    /// Make everything added or removed so far durable: whole documents or nothing.
    fn commit(&mut self) -> Result<()>;
    /// Commit what is pending and close the writer; returns (documents, chunks) in the store.
    fn finish(self: Box<Self>) -> Result<(usize, usize)>;
}

/// How many results and candidates a query asks for, clamped to the collection size `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Results.
    pub k: usize,
    /// Candidates the reranker scores (0 without one).
    pub rerank_top: usize,
    /// Candidates per retriever.
    pub depth: usize,
}

impl Plan {
    /// Every count a caller gives (k, rerank_top, depth) is clamped to the collection size: no
    /// retriever can return more, and nothing may allocate from an unchecked number.
    pub fn new(q: &Query, n: usize) -> Plan {
        let k = q.k.min(n);
        let rerank_top = q.rerank.map_or(0, |_| q.rerank_top.max(k).min(n));
        let depth = q
            .depth
            .unwrap_or_else(|| {
                let base = k.max(rerank_top);
                let base = if q.shaping() {
                    base.saturating_mul(5)
                } else {
                    base
                };
                if q.mode == Mode::Hybrid {
                    base.max(50)
                } else {
                    base
                }
            })
            .min(n);
        Plan {
            k,
            rerank_top,
            depth,
        }
    }
}

/// Check a query against a store's settings; returns the query vector when the mode uses one.
pub fn check_query<'q>(q: &Query<'q>, settings: &Settings) -> Result<Option<&'q [f32]>> {
    let needs_text = q.mode != Mode::Dense || q.rerank.is_some();
    if needs_text && q.text.trim().is_empty() {
        return Err(Error::BadQuery("the query is empty".into()));
    }
    match (q.mode, q.vector) {
        (Mode::Bm25, _) => Ok(None),
        (_, _) if settings.dim == 0 => Err(Error::BadQuery(
            "the index has no vectors (it was built without an embedding model); search it with mode bm25".into(),
        )),
        (_, None) => Err(Error::BadQuery(
            "dense and hybrid search need the query embedding".into(),
        )),
        (_, Some(v)) if v.len() != settings.dim => Err(Error::BadQuery(format!(
            "the query vector has {} dimensions, the index ({}) has {}",
            v.len(),
            settings.model,
            settings.dim
        ))),
        (_, Some(v)) => Ok(Some(v)),
    }
}

/// One retrieved candidate, best first: its key, its score (retriever or fused), and its
/// 1-based ranks in the BM25 and dense lists.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Ranked {
    /// Key of the chunk.
    pub key: u64,
    /// Retriever or fused score.
    pub score: f32,
    /// Rank in the BM25 list.
    pub bm25_rank: Option<usize>,
    /// Rank in the dense list.
    pub dense_rank: Option<usize>,
}

/// Everything after retrieval, the same for every store: hits for the ranked candidates,
/// reranking of the top `plan.rerank_top`, shaping in the order [`crate::shape`] documents, the
/// cut to `plan.k`.
pub fn finish(
    q: &Query,
    plan: Plan,
    ranked: Vec<Ranked>,
    src: &dyn ShapeSource,
) -> Result<Vec<Hit>> {
    let mut hits: Vec<Hit> = ranked
        .into_iter()
        .filter_map(|r| {
            let c = src.chunk(r.key)?;
            let mut h = Hit::from_chunk(c, r.score);
            h.bm25_rank = r.bm25_rank;
            h.dense_rank = r.dense_rank;
            Some(h)
        })
        .collect();
    if let Some(reranker) = q.rerank {
        hits.truncate(plan.rerank_top);
        src.fill_texts(&mut hits)?;
        let texts: Vec<String> = hits
            .iter()
            .map(|h| {
                src.chunk(h.key)
                    .map(|c| {
                        chunklab_core::embedded_text(
                            c.context.as_deref(),
                            c.prefix.as_deref(),
                            &h.text,
                        )
                    })
                    .unwrap_or_default()
            })
            .collect();
        let passages: Vec<&str> = texts.iter().map(String::as_str).collect();
        let scores = reranker.rerank(q.text, &passages).map_err(Error::Rerank)?;
        if scores.len() != hits.len() {
            return Err(Error::Rerank(format!(
                "{} scores for {} passages",
                scores.len(),
                hits.len()
            )));
        }
        for (h, s) in hits.iter_mut().zip(scores) {
            h.score = s;
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.key.cmp(&b.key)));
    }
    if q.small_to_big {
        hits = shape::small_to_big(hits, src);
    } else if let Some(t) = q.auto_merge {
        hits = shape::auto_merge(hits, src, t);
    }
    if q.merge {
        hits = shape::merge_adjacent(hits, src)?;
    }
    if q.docs {
        hits = shape::best_per_document(hits);
    }
    hits.truncate(plan.k);
    src.fill_texts(&mut hits)?;
    Ok(hits)
}

impl StoreWriter for crate::IndexWriter {
    fn location(&self) -> String {
        self.dir().display().to_string()
    }
    fn settings(&self) -> &Settings {
        crate::IndexWriter::settings(self)
    }
    fn document_hash(&self, doc_id: &str) -> Option<String> {
        self.document(doc_id).map(|d| d.hash.clone())
    }
    fn doc_ids(&self) -> Vec<String> {
        crate::IndexWriter::doc_ids(self)
    }
    fn add_document(&mut self, doc: NewDocument) -> Result<()> {
        crate::IndexWriter::add_document(self, doc)
    }
    fn remove_document(&mut self, doc_id: &str) -> Result<bool> {
        crate::IndexWriter::remove_document(self, doc_id)
    }
    fn commit(&mut self) -> Result<()> {
        crate::IndexWriter::commit(self).map(|_| ())
    }
    fn finish(self: Box<Self>) -> Result<(usize, usize)> {
        let counts = (self.store().docs().len(), self.store().len());
        crate::IndexWriter::finish(*self)?;
        Ok(counts)
    }
}
