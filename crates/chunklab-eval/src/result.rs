//! What a benchmark run returns: one [`Row`] per configuration (metrics with their intervals and
//! what the configuration cost) inside a [`BenchResult`], and the metric names in report order.

use crate::bootstrap::Summary;
use crate::sweep::{Graph, Mode, Retrieval};
use serde::Serialize;

/// What a configuration cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Cost {
    /// Chunks in the collection.
    pub chunks: usize,
    /// Mean and largest chunk size in the configuration's unit (prefix included).
    pub mean_tokens: f64,
    pub max_tokens: usize,
    /// Model tokens (special and prefix tokens excluded) that went through the model for the
    /// chunks: each chunk's tokens up to the model's window; for late chunking the documents'.
    pub tokens_embedded: usize,
    /// Chunks longer than the model's window (their tail is not embedded).
    pub truncated: usize,
    /// Bytes on disk of what the mode searches in the configuration's `chunklab-index`:
    /// vectors (store vector files + HNSW snapshot; dense, hybrid) plus the tantivy BM25 index
    /// (bm25, hybrid). Chunk records and document texts are not counted.
    pub index_bytes: u64,
    pub vector_bytes: u64,
    pub bm25_bytes: u64,
    /// Wall time to chunk the corpus.
    pub chunk_ms: f64,
    /// Wall time to build the configuration's index from its chunks and vectors: records,
    /// BM25 and the HNSW graph (shared by the rows of one chunking, model and graph).
    pub index_ms: f64,
    /// Time in the model for this configuration's chunks in this run (0 when every vector came
    /// from the cache), and how many texts were embedded and found in the cache.
    pub embed_ms: f64,
    pub embedded: usize,
    pub cached: usize,
    /// Retrieval time per query (the query's embedding excluded, same for every row).
    pub query_p50_ms: f64,
    pub query_p95_ms: f64,
    /// Mean cl100k tokens of the top-k chunks' texts: what they add to an LLM prompt.
    pub prompt_tokens: f64,
    /// Contextual retrieval with a language model: time, and tokens it read (of which served
    /// from its KV/prompt cache) and wrote in this run (0 when answers came from the on-disk
    /// answer cache).
    pub context_ms: f64,
    /// Requests the language model answered, and answers taken from the on-disk answer cache.
    pub llm_calls: u64,
    pub llm_cache_hits: u64,
    pub llm_input_tokens: u64,
    pub llm_cached_tokens: u64,
    pub llm_output_tokens: u64,
}

/// One configuration's result.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub label: String,
    pub strategy: String,
    pub params: serde_json::Map<String, serde_json::Value>,
    pub model: String,
    pub mode: Mode,
    pub k: usize,
    /// Fusion weights and shaping (omitted in JSON when they are the defaults).
    #[serde(skip_serializing_if = "Retrieval::is_default")]
    pub retrieval: Retrieval,
    /// The HNSW graph's shape where the row names one (omitted in JSON otherwise).
    #[serde(skip_serializing_if = "Graph::is_default")]
    pub graph: Graph,
    /// Metric name → summary over queries. Ratios in percent; `mrr` and `ndcg` in 0..1.
    pub metrics: Vec<(String, Summary)>,
    pub cost: Cost,
    /// Metric name → each query's value (the scale of `metrics`, NaN where undefined), in the
    /// dataset's query order: what a paired comparison of two rows resamples
    /// ([`crate::report::separable`]). Empty for a row not measured here. Not serialized.
    #[serde(skip)]
    pub per_query: Vec<(String, Vec<f64>)>,
    /// `hybrid-cv` rows: the fusion weights cross-validation chose ([`crate::fusion_cv`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fusion: Option<crate::fusion_cv::FusionChoice>,
}

impl Row {
    /// A metric's summary by name.
    pub fn metric(&self, name: &str) -> Option<&Summary> {
        self.metrics.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// A metric's per-query values by name (`None` when the row does not keep them).
    pub fn per_query(&self, name: &str) -> Option<&[f64]> {
        self.per_query
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_slice())
    }
}

/// A whole benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct BenchResult {
    pub dataset: String,
    pub docs: usize,
    pub queries: usize,
    pub rows: Vec<Row>,
    /// The queries' ids in the dataset's order: the order of every row's per-query values.
    #[serde(skip)]
    pub query_ids: Vec<String>,
    /// Things the user should know (skipped configurations, warnings).
    pub notes: Vec<String>,
    /// Wall time of the whole run.
    pub seconds: f64,
}
