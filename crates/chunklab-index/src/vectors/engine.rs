//! The HNSW engine (USearch) and the bookkeeping its capacity and concurrency rules need: a gate
//! that bounds concurrent calls to the reserved search contexts, tombstone and capacity
//! accounting, and the parallel insert of a batch.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering as AtomicOrdering};
use std::sync::{Condvar, Mutex};

use super::error::{Result, VectorError};
use super::params::{GraphVectors, HnswParams};

/// Limits concurrent engine calls to the number of search contexts USearch has reserved (it fails
/// instead of waiting when all are in use).
pub(super) struct Gate {
    busy: Mutex<usize>,
    freed: Condvar,
    max: usize,
}

pub(super) struct GateGuard<'a>(&'a Gate);

impl Gate {
    fn new(max: usize) -> Self {
        Self {
            busy: Mutex::new(0),
            freed: Condvar::new(),
            max: max.max(1),
        }
    }

    pub(super) fn enter(&self) -> GateGuard<'_> {
        let mut busy = self
            .busy
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        while *busy >= self.max {
            busy = self
                .freed
                .wait(busy)
                .unwrap_or_else(|poison| poison.into_inner());
        }
        *busy += 1;
        GateGuard(self)
    }
}

impl Drop for GateGuard<'_> {
    fn drop(&mut self) {
        let mut busy = self
            .0
            .busy
            .lock()
            .unwrap_or_else(|poison| poison.into_inner());
        *busy -= 1;
        self.0.freed.notify_one();
    }
}

/// The USearch index plus the bookkeeping its capacity rules need.
pub(super) struct Engine {
    pub(super) index: usearch::Index,
    /// Slots the engine can hold before it must reserve more.
    pub(super) capacity: usize,
    /// Removed slots not yet reused (USearch reuses them for later adds).
    pub(super) tombstones: usize,
    /// Search/insert contexts reserved in USearch.
    contexts: usize,
    pub(super) gate: Gate,
    /// The graph's copy of the vectors.
    pub(super) graph: GraphVectors,
}

pub(super) fn engine_error<E: std::fmt::Display>(
    operation: &str,
) -> impl FnOnce(E) -> VectorError + '_ {
    move |error| VectorError::Engine {
        operation: operation.to_string(),
        message: error.to_string(),
    }
}

/// Search contexts to reserve: one per core, at least as many as build threads.
pub(super) fn context_count(build_threads: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.max(build_threads).clamp(1, 256)
}

impl Engine {
    /// The USearch metric and scalar kind of a graph.
    pub(super) fn kinds(graph: GraphVectors) -> (usearch::MetricKind, usearch::ScalarKind) {
        match graph {
            GraphVectors::F32 => (usearch::MetricKind::IP, usearch::ScalarKind::F32),
            // Each i8 vector has its own scale, which only the cosine ignores.
            GraphVectors::I8 => (usearch::MetricKind::Cos, usearch::ScalarKind::I8),
        }
    }

    /// The engine's own search expansion: the smallest, so that the `count` passed to
    /// [`Engine::search`] (the query's ef, at least `k`) is the candidate list size.
    pub(super) const SEARCH_EXPANSION: usize = 1;

    fn options(dim: usize, params: &HnswParams) -> usearch::IndexOptions {
        let (metric, quantization) = Self::kinds(params.graph);
        usearch::IndexOptions {
            dimensions: dim,
            metric,
            quantization,
            connectivity: params.m,
            expansion_add: params.ef_construction,
            // The walk's candidate list is the `count` each search asks for (usearch takes
            // the larger of the two), so that a query can choose its own `ef`.
            expansion_search: Self::SEARCH_EXPANSION,
            multi: false,
        }
    }

    pub(super) fn new(dim: usize, params: &HnswParams, contexts: usize) -> Result<Self> {
        let index = usearch::Index::new(&Self::options(dim, params))
            .map_err(engine_error("creating the HNSW index"))?;
        Ok(Self {
            index,
            capacity: 0,
            tombstones: 0,
            contexts,
            gate: Gate::new(contexts),
            graph: params.graph,
        })
    }

    /// Adds `vector` (checked f32) to the graph in the graph's scalar kind.
    pub(super) fn add(&self, key: u64, vector: &[f32]) -> Result<()> {
        match self.graph {
            GraphVectors::F32 => self.index.add(key, vector),
            GraphVectors::I8 => self.index.add(key, &quantize_i8(vector)),
        }
        .map_err(engine_error("adding a vector"))
    }

    /// The graph's `count` nearest candidates for `query` (f32), keeping only keys `filter`
    /// accepts when one is given.
    pub(super) fn search<F: Fn(u64) -> bool>(
        &self,
        query: &[f32],
        count: usize,
        filter: Option<F>,
    ) -> Result<usearch::ffi::Matches> {
        match (self.graph, filter) {
            (GraphVectors::F32, None) => self.index.search(query, count),
            (GraphVectors::F32, Some(filter)) => self.index.filtered_search(query, count, filter),
            (GraphVectors::I8, None) => self.index.search(&quantize_i8(query), count),
            (GraphVectors::I8, Some(filter)) => {
                self.index
                    .filtered_search(&quantize_i8(query), count, filter)
            }
        }
        .map_err(engine_error("searching"))
    }

    /// Makes room for `incoming` more adds (each reuses a tombstone first).
    pub(super) fn reserve_for(&mut self, live: usize, incoming: usize) -> Result<()> {
        let slots = live + self.tombstones;
        let needed = slots + incoming.saturating_sub(self.tombstones);
        if needed <= self.capacity {
            return Ok(());
        }
        // Grow geometrically for one-by-one adds; exactly for batches.
        let target = needed.max(self.capacity + self.capacity / 2).max(64);
        self.index
            .reserve_capacity_and_threads(target, self.contexts)
            .map_err(engine_error("reserving capacity"))?;
        self.capacity = target;
        Ok(())
    }

    pub(super) fn set_contexts(&mut self, contexts: usize) -> Result<()> {
        if contexts == self.contexts {
            return Ok(());
        }
        self.index
            .reserve_capacity_and_threads(self.capacity, contexts)
            .map_err(engine_error("reserving threads"))?;
        self.contexts = contexts;
        self.gate = Gate::new(contexts);
        Ok(())
    }

    pub(super) fn remove(&mut self, key: u64) -> Result<()> {
        let removed = self
            .index
            .remove(key)
            .map_err(engine_error("removing a vector"))?;
        self.tombstones += removed;
        Ok(())
    }

    /// Records that `added` adds went through (each consumed a tombstone if one was left).
    pub(super) fn note_added(&mut self, added: usize) {
        self.tombstones = self.tombstones.saturating_sub(added);
    }
}

/// `vector` scaled so that its largest component is ±127, rounded to the nearest integer. The
/// cosine of two such vectors is close to that of the originals (each keeps ~7 bits per component
/// relative to its own range; a shared scale would leave sentence embeddings, whose components
/// are mostly below 0.1, with 3–4 bits).
pub(super) fn quantize_i8(vector: &[f32]) -> Vec<i8> {
    let largest = vector.iter().fold(0f32, |acc, v| acc.max(v.abs()));
    if largest == 0.0 || !largest.is_finite() {
        return vec![0; vector.len()];
    }
    let scale = 127.0 / largest;
    vector
        .iter()
        .map(|v| (v * scale).round().clamp(-127.0, 127.0) as i8)
        .collect()
}

/// Adds `items` to the engine on `threads` threads (work handed out in small chunks); returns the
/// first error.
pub(super) fn insert_parallel(
    index: &Engine,
    items: &[(u64, &[f32])],
    threads: usize,
) -> Result<()> {
    if threads <= 1 {
        for (key, vector) in items {
            index.add(*key, vector)?;
        }
        return Ok(());
    }
    const CHUNK: usize = 64;
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let first_error: Mutex<Option<VectorError>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| {
                while !failed.load(AtomicOrdering::Relaxed) {
                    let start = next.fetch_add(CHUNK, AtomicOrdering::Relaxed);
                    if start >= items.len() {
                        break;
                    }
                    for (key, vector) in &items[start..(start + CHUNK).min(items.len())] {
                        if let Err(error) = index.add(*key, vector) {
                            failed.store(true, AtomicOrdering::Relaxed);
                            let mut slot = first_error
                                .lock()
                                .unwrap_or_else(|poison| poison.into_inner());
                            slot.get_or_insert(error);
                            return;
                        }
                    }
                }
            });
        }
    });
    match first_error
        .into_inner()
        .unwrap_or_else(|poison| poison.into_inner())
    {
        Some(error) => Err(error),
        None => Ok(()),
    }
}
