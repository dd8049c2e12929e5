//! The vector index's tuning: HNSW graph parameters and the thresholds that choose between the
//! graph and an exact scan (see the [`vectors`](super) module docs).

/// Indexes with at most this many items are always searched exactly.
pub const EXACT_SCAN_MAX: usize = 10_000;

/// A filter passing fewer than this fraction of the items is answered by an exact scan of the
/// matching items (a graph walk must visit about `1 / selectivity` times more nodes).
pub const FILTER_EXACT_BELOW: f64 = 0.02;

/// Filtered graph walks use `ef_search / FILTERED_EF_DIVISOR` candidates (at least `k`).
pub const FILTERED_EF_DIVISOR: usize = 4;

/// Number of keys (evenly spaced over the rows) used to estimate a filter's selectivity.
pub const SELECTIVITY_SAMPLE: usize = 1024;

/// How far a vector's L2 norm may be from 1 before it is rejected as not normalized.
pub const NORM_TOLERANCE: f32 = 1e-2;

/// HNSW graph parameters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HnswParams {
    /// Links per node on the upper levels (the base level keeps `2 * m`). At least 2.
    pub m: usize,
    /// Candidate list size while inserting; larger builds a better graph, slower.
    pub ef_construction: usize,
    /// Candidate list size while searching (raised to `k` when `k` is larger); larger gives higher
    /// recall, slower.
    pub ef_search: usize,
}

impl Default for HnswParams {
    /// `m = 16, ef_construction = 128, ef_search = 128`: recall@10 ≥ 0.98 on 1M clustered 384-d
    /// vectors with dense p95 well under 10 ms on two cores (docs/PERFORMANCE.md).
    fn default() -> Self {
        Self {
            m: 16,
            ef_construction: 128,
            ef_search: 128,
        }
    }
}

impl HnswParams {
    /// Why the engine cannot use these parameters, if it cannot.
    pub(super) fn check(&self) -> Result<(), String> {
        if self.m < 2 || self.m > 1024 {
            return Err(format!("m = {} (must be 2..=1024)", self.m));
        }
        if self.ef_construction == 0 || self.ef_search == 0 {
            return Err("ef_construction and ef_search must be at least 1".to_string());
        }
        Ok(())
    }
}
