//! The vector index's tuning: HNSW graph parameters and the thresholds that choose between the
//! graph and an exact scan (see the [`vectors`](super) module docs).

/// Indexes with at most this many items are always searched exactly.
pub const EXACT_SCAN_MAX: usize = 10_000;

/// A filter passing fewer than this fraction of the items is answered by an exact scan of the
/// matching items (a graph walk must visit about `1 / selectivity` times more nodes).
pub const FILTER_EXACT_BELOW: f64 = 0.02;

/// Number of keys (evenly spaced over the rows) used to estimate a filter's selectivity.
pub const SELECTIVITY_SAMPLE: usize = 1024;

/// How far a vector's L2 norm may be from 1 before it is rejected as not normalized.
pub const NORM_TOLERANCE: f32 = 1e-2;

/// How the HNSW graph holds its copy of the vectors. Either way every hit is re-scored against
/// the exact f32 vectors, so scores and the order of the returned items are exact; the graph's
/// copy only decides which candidates the walk visits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum GraphVectors {
    /// f32 vectors, inner product: 4 bytes per component.
    F32,
    /// Each vector scaled by its largest component to ±127 and rounded, cosine: 1 byte per
    /// component. Distances read a quarter of the memory, so inserts and walks are faster and the
    /// graph's copy is a quarter the size (the exact vectors are kept beside it).
    #[default]
    I8,
}

impl GraphVectors {
    /// The name used in the manifest: `"f32"` or `"i8"`.
    pub fn name(self) -> &'static str {
        match self {
            GraphVectors::F32 => "f32",
            GraphVectors::I8 => "i8",
        }
    }
}

impl std::str::FromStr for GraphVectors {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        match text {
            "f32" => Ok(GraphVectors::F32),
            "i8" => Ok(GraphVectors::I8),
            other => Err(format!("graph vectors {other:?} (expected f32 or i8)")),
        }
    }
}

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
    /// The graph's copy of the vectors (see [`GraphVectors`]).
    pub graph: GraphVectors,
}

impl Default for HnswParams {
    /// `m = 16, ef_construction = 128, ef_search = 128`, i8 graph vectors: recall@10 0.996 on 1M
    /// clustered 384-d vectors (0.999 with f32 graph vectors) with dense p95 under 2 ms on two
    /// cores (docs/PERFORMANCE.md "Index"). A smaller `ef_construction` builds faster but
    /// loses recall at 1M: on two idle cores 128 builds 3,159 items/s at recall 0.994, 80 about
    /// 5,000/s at 0.96–0.98, 48 reaches only 0.90.
    fn default() -> Self {
        Self {
            m: 16,
            ef_construction: 128,
            ef_search: 128,
            graph: GraphVectors::default(),
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
