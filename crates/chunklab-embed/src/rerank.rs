//! Reranking: score a query against a few retrieved passages with a model that looks at both.
//!
//! Two rerankers: [`MaxSim`], late interaction (ColBERT-style) over the token vectors of the
//! embedding model the index already uses, and [`CrossEncoder`], a BERT sequence classifier
//! loaded from a local directory. [`load_reranker`] picks one from a spec string.

use crate::cross_encoder::CrossEncoder;
use crate::error::{Error, Result};
use crate::reranker::{check_query, Reranker};
use crate::{Embedder, Role, TokenVectors};
use rayon::prelude::*;
use std::collections::{HashMap, VecDeque};
use std::path::Path;
use std::sync::{Arc, Mutex};

/// Normalized token vectors of passages by the BLAKE3 of their text, evicted oldest first
/// once they hold more than `limit` bytes.
#[derive(Debug, Default)]
struct PassageRows {
    rows: HashMap<[u8; 32], Arc<Vec<f32>>>,
    order: VecDeque<[u8; 32]>,
    bytes: usize,
    limit: usize,
}

impl PassageRows {
    fn insert(&mut self, key: [u8; 32], rows: Arc<Vec<f32>>) {
        let size = rows.len() * std::mem::size_of::<f32>();
        if self.rows.insert(key, rows).is_none() {
            self.order.push_back(key);
            self.bytes += size;
        }
        while self.bytes > self.limit {
            let Some(old) = self.order.pop_front() else {
                break;
            };
            if let Some(r) = self.rows.remove(&old) {
                self.bytes -= r.len() * std::mem::size_of::<f32>();
            }
        }
    }
}

/// Late-interaction (ColBERT-style) scoring over an [`Embedder`]'s token vectors.
///
/// The query is run with the model's query prefix and each passage with its passage prefix
/// (e5: `"query: "` / `"passage: "`; MiniLM: none), all passages batched, via
/// [`Embedder::token_vectors_batch`]. The score is the **mean** over query tokens of the
/// highest cosine similarity between that query token and any passage token, so it lies in
/// `[-1, 1]` and does not grow with the query's length. Special and prefix tokens take no
/// part. A passage longer than the model's context is not truncated: it is split into
/// consecutive windows that each fit, and the maximum runs over the tokens of all windows (a
/// long query is windowed the same way). A passage without tokens (empty, whitespace) scores
/// `-1.0`, the lowest possible score. Nothing is cached between calls unless the reranker is
/// made with [`MaxSim::with_passage_cache`].
///
/// ```no_run
/// use chunklab_embed::{load, LoadOptions, MaxSim, Reranker};
/// use std::sync::Arc;
/// let model = Arc::from(load("minilm", &LoadOptions::default())?);
/// let maxsim = MaxSim::new(model);
/// let scores = maxsim.score("parking permit", &["Visitors need a permit.", "Opening hours."])?;
/// assert!(scores[0] > scores[1]);
/// # Ok::<(), chunklab_embed::Error>(())
/// ```
pub struct MaxSim {
    embedder: Arc<dyn Embedder>,
    name: String,
    /// Normalized token vectors by passage text (BLAKE3), when caching.
    cache: Option<Mutex<PassageRows>>,
}

impl MaxSim {
    /// MaxSim over the token vectors of `embedder`.
    pub fn new(embedder: Arc<dyn Embedder>) -> Self {
        let name = format!("maxsim({})", embedder.name());
        Self {
            embedder,
            name,
            cache: None,
        }
    }

    /// Keep every passage's token vectors in memory, keyed by its text, so a passage is run
    /// through the model once however many queries rerank it (benchmarks over one collection).
    /// Memory grows with the passages seen: `tokens × dim × 4` bytes.
    pub fn with_passage_cache(self) -> Self {
        self.with_passage_cache_limit(usize::MAX)
    }

    /// [`MaxSim::with_passage_cache`] holding at most `max_bytes` of token vectors, the
    /// oldest passages evicted first: for a long-lived searcher (the server, a Python
    /// `Index`), where a candidate seen by an earlier query costs nothing again. A passage is
    /// about `tokens × dim × 4` bytes (250 MiniLM tokens: 375 KiB).
    pub fn with_passage_cache_limit(mut self, max_bytes: usize) -> Self {
        self.cache = Some(Mutex::new(PassageRows {
            limit: max_bytes,
            ..PassageRows::default()
        }));
        self
    }

    /// Normalized token vectors of each passage, through the cache when there is one.
    fn passage_rows(&self, passages: &[&str]) -> Result<Vec<Arc<Vec<f32>>>> {
        let Some(cache) = &self.cache else {
            let tv = self.embedder.token_vectors_batch(passages, Role::Passage)?;
            return Ok(tv.iter().map(|t| Arc::new(unit_rows(t))).collect());
        };
        let keys: Vec<[u8; 32]> = passages
            .iter()
            .map(|p| *blake3::hash(p.as_bytes()).as_bytes())
            .collect();
        // Rows found in the cache now (they may be evicted by the insertions below).
        let mut found: HashMap<[u8; 32], Arc<Vec<f32>>> = {
            let c = cache.lock().unwrap_or_else(|e| e.into_inner());
            keys.iter()
                .filter_map(|k| c.rows.get(k).map(|r| (*k, r.clone())))
                .collect()
        };
        let mut missing: Vec<usize> = Vec::new();
        for (i, k) in keys.iter().enumerate() {
            if !found.contains_key(k) && !missing.iter().any(|&m| keys[m] == *k) {
                missing.push(i);
            }
        }
        if !missing.is_empty() {
            let texts: Vec<&str> = missing.iter().map(|&i| passages[i]).collect();
            let tv = self.embedder.token_vectors_batch(&texts, Role::Passage)?;
            let mut c = cache.lock().unwrap_or_else(|e| e.into_inner());
            for (&i, t) in missing.iter().zip(&tv) {
                let rows = Arc::new(unit_rows(t));
                c.insert(keys[i], rows.clone());
                found.insert(keys[i], rows);
            }
        }
        Ok(keys.iter().map(|k| found[k].clone()).collect())
    }

    /// The embedding model whose token vectors are compared.
    pub fn embedder(&self) -> &Arc<dyn Embedder> {
        &self.embedder
    }
}

impl Reranker for MaxSim {
    fn name(&self) -> &str {
        &self.name
    }

    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        check_query(query)?;
        let query_vectors = self
            .embedder
            .token_vectors_batch(&[query], Role::Query)?
            .pop()
            .unwrap_or_else(|| empty(self.embedder.dim()));
        if query_vectors.is_empty() {
            return Err(Error::EmptyQuery);
        }
        if passages.is_empty() {
            return Ok(Vec::new());
        }
        let q = unit_rows(&query_vectors);
        let passage_rows = self.passage_rows(passages)?;
        Ok(passage_rows
            .par_iter()
            .map(|p| max_sim(&q, p, query_vectors.dim))
            .collect())
    }
}

/// Mean over the rows of `q` of the largest dot product with a row of `p` (both row-major,
/// `dim` wide, rows L2-normalized); `-1.0` when `p` has no rows.
fn max_sim(q: &[f32], p: &[f32], dim: usize) -> f32 {
    if p.is_empty() || dim == 0 {
        return -1.0;
    }
    let rows = q.len() / dim;
    let total: f32 = q
        .chunks_exact(dim)
        .map(|qr| {
            p.chunks_exact(dim)
                .map(|pr| dot(qr, pr))
                .fold(f32::NEG_INFINITY, f32::max)
        })
        .sum();
    total / rows as f32
}

/// Dot product with eight independent sums (lets the compiler use SIMD lanes).
fn dot(a: &[f32], b: &[f32]) -> f32 {
    let mut acc = [0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tail: f32 = ca
        .remainder()
        .iter()
        .zip(cb.remainder())
        .map(|(x, y)| x * y)
        .sum();
    for (x, y) in ca.zip(cb) {
        for k in 0..8 {
            acc[k] += x[k] * y[k];
        }
    }
    acc.iter().sum::<f32>() + tail
}

/// The token vectors with every row L2-normalized (cosine becomes a dot product).
fn unit_rows(tv: &TokenVectors) -> Vec<f32> {
    let mut v = tv.vectors.clone();
    if tv.dim > 0 {
        v.chunks_exact_mut(tv.dim).for_each(crate::bert::normalize);
    }
    v
}

fn empty(dim: usize) -> TokenVectors {
    TokenVectors {
        dim,
        spans: Vec::new(),
        vectors: Vec::new(),
    }
}

/// A reranker from a spec:
///
/// - `maxsim` (any case): [`MaxSim`] over `embedder`'s token vectors
///   ([`Error::RerankerNeedsEmbedder`] when `embedder` is `None`);
/// - a local directory: a [`CrossEncoder`] (config.json + tokenizer.json + model.safetensors);
/// - a Hugging Face hub id (`cross-encoder/ms-marco-MiniLM-L-6-v2`) that is in the local hub
///   cache: that snapshot, as a cross-encoder.
///
/// Anything else is [`Error::UnknownReranker`], which lists these options. Missing or unusable
/// model files are [`Error::BadModel`], naming the file and how to fix it.
///
/// ```
/// use chunklab_embed::{load_reranker, Error};
/// let err = load_reranker("colbert-v9", None).err().unwrap();
/// assert!(matches!(err, Error::UnknownReranker { .. }));
/// assert!(err.to_string().contains("maxsim"));
/// ```
pub fn load_reranker(spec: &str, embedder: Option<Arc<dyn Embedder>>) -> Result<Box<dyn Reranker>> {
    if spec.trim().eq_ignore_ascii_case("maxsim") {
        let embedder = embedder.ok_or(Error::RerankerNeedsEmbedder)?;
        return Ok(Box::new(MaxSim::new(embedder)));
    }
    let path = Path::new(spec);
    if path.is_dir() {
        return Ok(Box::new(CrossEncoder::from_dir(path)?));
    }
    if path.exists() {
        return Err(Error::UnknownReranker {
            spec: spec.to_string(),
            detail: " (that path is a file; give the directory that holds it)".into(),
        });
    }
    if let Some(dir) = crate::hub_snapshot(spec) {
        return Ok(Box::new(CrossEncoder::from_dir(&dir)?));
    }
    Err(Error::UnknownReranker {
        spec: spec.to_string(),
        detail: String::new(),
    })
}
