//! Vector index: HNSW for approximate search and an exact flat scan (small sets, selective
//! filters, and the ground truth for ANN recall).
//!
//! Keys are `u64` row ids chosen by the caller; vectors are L2-normalized `f32`, and the score of a
//! hit is the cosine similarity, i.e. the dot product (higher is better). Every result list is
//! ordered by score descending, ties broken by key ascending, so equal inputs give equal outputs.
//!
//! # Why USearch
//!
//! The graph is [USearch](https://github.com/unum-cloud/USearch) (the `usearch` crate, C++ compiled
//! from source by cargo). Of the candidates evaluated:
//!
//! * `usearch` has everything this index needs natively: a predicate evaluated **inside** the graph
//!   walk (`filtered_search`: non-matching nodes are traversed but never enter the result set, so a
//!   search returns `k` matching items instead of `k` items then filtered), `remove` (tombstones whose
//!   slots are reused by later adds), thread-safe concurrent `add` for a parallel build, save/load of
//!   one file, and SIMD distance kernels picked at run time.
//! * `hnsw_rs` (pure Rust) filters inside the search and dumps/reloads, but cannot remove points;
//!   replacing a key would need tombstones and periodic rebuilds on our side.
//! * `instant-distance` builds an immutable graph once: no filter, no insertion, no removal.
//!
//! The engine's results are only candidates: each is re-scored against the exact vectors kept in
//! `flat::FlatStore`, so the approximate and exact paths give bit-identical scores for the same
//! item and rank ties the same way. The flat store also answers exact searches.
//!
//! Since the graph only proposes candidates, its copy of the vectors need not be exact. By default
//! ([`GraphVectors::I8`]) it holds each vector scaled to ±127 by its own largest component and
//! rounded, compared by cosine: a distance reads 384 bytes instead of 1,536 at 384-d, which makes
//! inserts and walks faster and the graph's copy a quarter the size; recall@10 after re-scoring
//! stays above 0.99 on the 1M benchmark (docs/PERFORMANCE.md "Index"). [`GraphVectors::F32`]
//! keeps f32 vectors with the inner product, as every index saved before format version 2 does.
//! On disk an f32 graph is the only copy of the vectors; beside an i8 graph the exact vectors are
//! a file of their own (see [`persist`](self) for the layout). Loading verifies every file's
//! checksum first, then fills the flat store from the f32 graph, or memory-maps the vectors file
//! (copy-on-write, on little-endian Unix; read onto the heap elsewhere): the page cache holds the
//! exact vectors instead of the process's heap, and a graph search touches only the rows of its
//! candidates. Vectors added after the load are held in memory.
//!
//! # Which path a search takes
//!
//! * at most [`EXACT_SCAN_MAX`] items: exact scan (as fast as the graph there, and exact);
//! * with a filter whose estimated selectivity (from a fixed sample of up to
//!   [`SELECTIVITY_SAMPLE`] keys) is below [`FILTER_EXACT_BELOW`], or whose estimated number of
//!   matches is at most [`EXACT_SCAN_MAX`]: exact scan of the matching items;
//! * otherwise the HNSW graph with the filter applied inside the walk; should the walk return fewer
//!   than `k` results (a filter much more selective than the sample suggested), the exact scan
//!   answers instead, so a filtered search always returns `min(k, matching items)` results.
//!
//! # Determinism
//!
//! Searches are deterministic for a given index. A build with one thread (the default,
//! [`VectorIndex::set_build_threads`]) is deterministic too: the same adds in the same order give
//! the same graph. A parallel build is faster, but its graph depends on thread timing, so its
//! approximate results may differ slightly between builds (exact results never do).
//!
//! # Files
//!
//! This file is the index itself (adds, removals, searches); `params.rs` holds the tuning
//! ([`HnswParams`] and the thresholds above), `error.rs` [`VectorError`], `engine.rs` the USearch
//! engine with its capacity and concurrency bookkeeping, `flat.rs` the exact vectors and scan,
//! `persist.rs` the on-disk layout and `save_load.rs` [`VectorIndex::save`] / [`VectorIndex::load`].

mod engine;
mod error;
mod flat;
mod params;
mod persist;
mod save_load;

use std::cell::Cell;
use std::collections::HashMap;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};

use engine::{context_count, insert_parallel, Engine};
pub use error::{Result, VectorError};
use flat::FlatStore;
pub use params::{
    GraphVectors, HnswParams, EXACT_SCAN_MAX, FILTER_EXACT_BELOW, NORM_TOLERANCE,
    SELECTIVITY_SAMPLE,
};

/// An embedded vector index: exact vectors (in memory, or mapped from the file of a loaded index)
/// plus an HNSW graph over them.
///
/// ```
/// use chunklab_index::vectors::{HnswParams, VectorIndex};
///
/// let mut index = VectorIndex::new(2, HnswParams::default());
/// index.add(7, &[1.0, 0.0]).unwrap();
/// index.add(9, &[0.6, 0.8]).unwrap();
/// let hits = index.search(&[0.0, 1.0], 1, None).unwrap();
/// assert_eq!(hits[0].0, 9);
/// assert!((hits[0].1 - 0.8).abs() < 1e-6);
/// ```
pub struct VectorIndex {
    dim: usize,
    params: HnswParams,
    store: FlatStore,
    /// Created on the first add (so that `new` cannot fail).
    engine: Option<Engine>,
    build_threads: usize,
}

impl std::fmt::Debug for VectorIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorIndex")
            .field("dim", &self.dim)
            .field("params", &self.params)
            .field("len", &self.store.len())
            .field("build_threads", &self.build_threads)
            .finish()
    }
}

impl VectorIndex {
    /// An empty index for `dim`-component vectors. Parameters are checked on the first add.
    pub fn new(dim: usize, params: HnswParams) -> Self {
        Self {
            dim,
            params,
            store: FlatStore::new(dim),
            engine: None,
            build_threads: 1,
        }
    }

    /// Number of threads [`add_batch`](Self::add_batch) uses: 1 (the default) builds the same graph
    /// every time; more build faster but the graph (and so approximate results) depends on thread
    /// timing. 0 means one per core.
    pub fn set_build_threads(&mut self, threads: usize) {
        self.build_threads = if threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            threads
        };
    }

    /// Builder form of [`set_build_threads`](Self::set_build_threads).
    pub fn with_build_threads(mut self, threads: usize) -> Self {
        self.set_build_threads(threads);
        self
    }

    /// Changes the search candidate list size (recall/speed trade-off) without rebuilding; it is
    /// saved with the index. Values below 1 are raised to 1.
    pub fn set_ef_search(&mut self, ef_search: usize) {
        self.params.ef_search = ef_search.max(1);
    }

    /// The vector dimension.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The HNSW parameters.
    pub fn params(&self) -> HnswParams {
        self.params
    }

    /// Number of vectors stored.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether no vector is stored.
    pub fn is_empty(&self) -> bool {
        self.store.len() == 0
    }

    /// Whether `key` is stored.
    pub fn contains(&self, key: u64) -> bool {
        self.store.contains(key)
    }

    /// The stored vector of `key`.
    pub fn get(&self, key: u64) -> Option<&[f32]> {
        self.store.get(key)
    }

    /// Checks a vector's length, finiteness and norm; `what` names it in errors.
    fn check_vector(&self, what: impl Fn() -> String, vector: &[f32]) -> Result<()> {
        if vector.len() != self.dim {
            return Err(VectorError::DimensionMismatch {
                what: what(),
                expected: self.dim,
                got: vector.len(),
            });
        }
        if let Some((component, &value)) = vector.iter().enumerate().find(|(_, v)| !v.is_finite()) {
            return Err(VectorError::NonFinite {
                what: what(),
                component,
                value,
            });
        }
        let norm = flat::dot(vector, vector).sqrt();
        if !(norm - 1.0).abs().le(&NORM_TOLERANCE) {
            return Err(VectorError::NotNormalized { what: what(), norm });
        }
        Ok(())
    }

    fn engine_mut(&mut self) -> Result<&mut Engine> {
        if self.engine.is_none() {
            if self.dim == 0 {
                return Err(VectorError::InvalidParams(
                    "the dimension must be at least 1".to_string(),
                ));
            }
            self.params.check().map_err(VectorError::InvalidParams)?;
            let engine = Engine::new(self.dim, &self.params, context_count(self.build_threads))?;
            self.engine = Some(engine);
        }
        let contexts = context_count(self.build_threads);
        let engine = self.engine.as_mut().expect("engine was just created");
        engine.set_contexts(contexts)?;
        Ok(engine)
    }

    /// Adds `vector` under `key`; an existing vector of `key` is replaced.
    ///
    /// Errors: wrong dimension, a NaN or infinite component, a norm outside 1 ± [`NORM_TOLERANCE`],
    /// invalid parameters, or an engine failure (then `key` is no longer in the index).
    pub fn add(&mut self, key: u64, vector: &[f32]) -> Result<()> {
        self.check_vector(|| format!("vector for key {key}"), vector)?;
        let live = self.store.len();
        let replacing = self.store.contains(key);
        let engine = self.engine_mut()?;
        engine.reserve_for(live, 1)?;
        if replacing {
            engine.remove(key)?;
        }
        match engine.add(key, vector) {
            Ok(()) => {
                engine.note_added(1);
                self.store.upsert(key, vector);
                Ok(())
            }
            Err(error) => {
                self.store.remove(key);
                Err(error)
            }
        }
    }

    /// Adds many vectors (see [`add`](Self::add)); with several keys equal, the last one wins.
    /// All vectors are checked before anything changes, so a bad vector leaves the index as it
    /// was. Uses [`set_build_threads`](Self::set_build_threads) threads.
    pub fn add_batch(&mut self, items: &[(u64, &[f32])]) -> Result<()> {
        for (position, (key, vector)) in items.iter().enumerate() {
            self.check_vector(
                || format!("vector for key {key} (batch item {position})"),
                vector,
            )?;
        }
        // Keep the last occurrence of each key, in batch order.
        let mut last = HashMap::with_capacity(items.len());
        for (position, (key, _)) in items.iter().enumerate() {
            last.insert(*key, position);
        }
        let kept: Vec<(u64, &[f32])> = items
            .iter()
            .enumerate()
            .filter(|(position, (key, _))| last[key] == *position)
            .map(|(_, item)| *item)
            .collect();
        if kept.is_empty() {
            return Ok(());
        }
        let live = self.store.len();
        let threads = self.build_threads.clamp(1, kept.len());
        let replaced: Vec<u64> = kept
            .iter()
            .map(|(key, _)| *key)
            .filter(|key| self.store.contains(*key))
            .collect();
        let engine = self.engine_mut()?;
        engine.reserve_for(live, kept.len())?;
        for key in &replaced {
            engine.remove(*key)?;
        }
        let outcome = insert_parallel(engine, &kept, threads);
        let in_engine: Vec<bool> = kept
            .iter()
            .map(|(key, _)| outcome.is_ok() || engine.index.contains(*key))
            .collect();
        engine.note_added(in_engine.iter().filter(|added| **added).count());
        self.store.reserve(kept.len());
        for ((key, vector), added) in kept.iter().zip(in_engine) {
            if added {
                self.store.upsert(*key, vector);
            } else {
                self.store.remove(*key);
            }
        }
        outcome
    }

    /// Removes `key`; returns whether it was present.
    pub fn remove(&mut self, key: u64) -> Result<bool> {
        if !self.store.contains(key) {
            return Ok(false);
        }
        if let Some(engine) = self.engine.as_mut() {
            engine.remove(key)?;
        }
        Ok(self.store.remove(key))
    }

    /// The `k` best items for `query` (score descending, key ascending), among the keys `filter`
    /// accepts when one is given. The filter is applied inside the search: the result holds
    /// `min(k, number of matching items)` items. See the module docs for when the HNSW graph is
    /// used and when an exact scan.
    ///
    /// A panic in `filter` is propagated after the engine returns.
    pub fn search(
        &self,
        query: &[f32],
        k: usize,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>> {
        self.search_with_ef(query, k, None, filter)
    }

    /// [`search`](Self::search) with the graph walk's candidate list size given for this query
    /// (`None`: the index's `ef_search`; at least `k`), filtered or not.
    pub fn search_with_ef(
        &self,
        query: &[f32],
        k: usize,
        ef: Option<usize>,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>> {
        self.check_vector(|| "query".to_string(), query)?;
        let n = self.store.len();
        let k = k.min(n);
        if k == 0 {
            return Ok(Vec::new());
        }
        if n <= EXACT_SCAN_MAX || self.engine.is_none() {
            return Ok(self.store.top_k(query, k, filter));
        }
        if let Some(filter) = filter {
            let selectivity = self.estimate_selectivity(filter);
            if selectivity < FILTER_EXACT_BELOW || selectivity * n as f64 <= EXACT_SCAN_MAX as f64 {
                return Ok(self.store.top_k(query, k, Some(filter)));
            }
        }
        self.graph_search(query, k, ef, filter)
    }

    /// Always answers from the HNSW graph (filter inside the walk), falling back to the exact scan
    /// only when the graph yields fewer than `min(k, len)` results. [`search`](Self::search) is the
    /// normal entry point; this one exists to measure the graph on its own.
    pub fn search_graph(
        &self,
        query: &[f32],
        k: usize,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>> {
        self.check_vector(|| "query".to_string(), query)?;
        let k = k.min(self.store.len());
        if k == 0 {
            return Ok(Vec::new());
        }
        self.graph_search(query, k, None, filter)
    }

    /// The exact `k` best items (a scan over every stored vector), same ordering and filter
    /// semantics as [`search`](Self::search).
    pub fn search_exact(
        &self,
        query: &[f32],
        k: usize,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>> {
        self.check_vector(|| "query".to_string(), query)?;
        Ok(self.store.top_k(query, k.min(self.store.len()), filter))
    }

    /// Fraction of an evenly spaced sample of keys that `filter` accepts.
    fn estimate_selectivity(&self, filter: &dyn Fn(u64) -> bool) -> f64 {
        let keys = self.store.keys();
        let sample = keys.len().min(SELECTIVITY_SAMPLE);
        if sample == 0 {
            return 0.0;
        }
        let hits = (0..sample)
            .filter(|i| filter(keys[i * keys.len() / sample]))
            .count();
        hits as f64 / sample as f64
    }

    fn graph_search(
        &self,
        query: &[f32],
        k: usize,
        ef: Option<usize>,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Result<Vec<(u64, f32)>> {
        let Some(engine) = self.engine.as_ref() else {
            return Ok(self.store.top_k(query, k, filter));
        };
        // The candidate list is `count` (usearch walks with the larger of its own expansion,
        // [`Engine::SEARCH_EXPANSION`] = 1, and the count asked for). A filtered walk takes the
        // same list: it crosses non-matching nodes until the list holds `count` matches, so it
        // costs about `ef / selectivity` expansions; a smaller `ef` trades its recall for time
        // (docs/PERFORMANCE.md, "Filtered graph walks").
        let ef = ef.unwrap_or(self.params.ef_search).max(1);
        let count = k.max(ef);
        let matches = {
            let _context = engine.gate.enter();
            match filter {
                None => engine.search(query, count, None::<fn(u64) -> bool>),
                Some(filter) => {
                    let panic = Cell::new(None);
                    let panicked = Cell::new(false);
                    let guarded = |key: u64| {
                        if panicked.get() {
                            return false;
                        }
                        match catch_unwind(AssertUnwindSafe(|| filter(key))) {
                            Ok(pass) => pass,
                            Err(payload) => {
                                panicked.set(true);
                                panic.set(Some(payload));
                                false
                            }
                        }
                    };
                    let matches = engine.search(query, count, Some(guarded));
                    if let Some(payload) = panic.take() {
                        resume_unwind(payload);
                    }
                    matches
                }
            }?
        };
        let mut hits: Vec<(u64, f32)> = matches
            .keys
            .iter()
            .filter_map(|&key| self.store.score(key, query).map(|score| (key, score)))
            .collect();
        hits.sort_by(flat::rank_order);
        hits.dedup_by_key(|hit| hit.0);
        hits.truncate(k);
        let wanted = k.min(self.store.len());
        if hits.len() < wanted {
            // The walk ended early (disconnected region or a very selective filter).
            return Ok(self.store.top_k(query, k, filter));
        }
        Ok(hits)
    }
}
