//! One row of a benchmark: a [`ChunkSpec`], a model, a retrieval [`Mode`] and k.

use super::spec::ChunkSpec;
use chunklab_index::{BadHnsw, HnswSettings};
use serde::Serialize;

/// How chunks are retrieved: a retriever of the index, optionally followed by a reranker over
/// its top candidates (`+rerank`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Cosine similarity of query and chunk vectors.
    Dense,
    /// BM25 over the chunk texts.
    Bm25,
    /// Reciprocal-rank fusion of dense and BM25.
    Hybrid,
    /// Dense, then the reranker over the top candidates.
    DenseRerank,
    /// BM25, then the reranker.
    Bm25Rerank,
    /// Hybrid, then the reranker.
    HybridRerank,
    /// Hybrid with the BM25:dense weight chosen by cross-validation on the queries
    /// ([`crate::fusion_cv`]): the row reports held-out results.
    HybridCv,
}

impl Mode {
    /// Every mode, in report order.
    pub const ALL: [Mode; 7] = [
        Mode::Dense,
        Mode::Bm25,
        Mode::Hybrid,
        Mode::DenseRerank,
        Mode::Bm25Rerank,
        Mode::HybridRerank,
        Mode::HybridCv,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Dense => "dense",
            Mode::Bm25 => "bm25",
            Mode::Hybrid => "hybrid",
            Mode::DenseRerank => "dense+rerank",
            Mode::Bm25Rerank => "bm25+rerank",
            Mode::HybridRerank => "hybrid+rerank",
            Mode::HybridCv => "hybrid-cv",
        }
    }

    pub fn parse(s: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
                format!("unknown mode `{s}` ({})", names.join(", "))
            })
    }

    /// The index's retriever.
    pub fn retriever(self) -> chunklab_index::Mode {
        match self {
            Mode::Dense | Mode::DenseRerank => chunklab_index::Mode::Dense,
            Mode::Bm25 | Mode::Bm25Rerank => chunklab_index::Mode::Bm25,
            Mode::Hybrid | Mode::HybridRerank | Mode::HybridCv => chunklab_index::Mode::Hybrid,
        }
    }

    /// Whether a reranker reorders the retrieved candidates.
    pub fn rerank(self) -> bool {
        matches!(
            self,
            Mode::DenseRerank | Mode::Bm25Rerank | Mode::HybridRerank
        )
    }

    /// Whether the mode needs chunk vectors.
    pub fn dense(self) -> bool {
        self.retriever() != chunklab_index::Mode::Bm25
    }

    /// Whether the mode searches BM25.
    pub fn bm25(self) -> bool {
        self.retriever() != chunklab_index::Mode::Dense
    }
}

impl Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// One row of a benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// Shown in tables (defaults to [`ChunkSpec::label`]).
    pub label: String,
    pub chunk: ChunkSpec,
    /// Embedding model (`minilm`, `e5-small`, a directory).
    pub model: String,
    pub mode: Mode,
    /// Chunks retrieved per query.
    pub k: usize,
    /// Reranker of the `+rerank` modes: `maxsim` over the configuration's model (the default)
    /// or a cross-encoder directory.
    pub reranker: Option<String>,
    /// Candidates the reranker scores per query in `+rerank` modes (the sweep key
    /// `rerank_top`; [`RERANK_TOP`](crate::collection::RERANK_TOP) by default).
    pub rerank_top: usize,
    /// How the index's hits are fused and shaped (the `chunklab search` options of the same
    /// names).
    pub retrieval: Retrieval,
    /// The HNSW graph the row's index is built with.
    pub graph: Graph,
}

/// The shape of the HNSW graph a row's index is built with: what `chunklab index` calls
/// `--hnsw-m` and `--hnsw-ef-construction` (sweep keys `hnsw_m`, `hnsw_ef_construction`). Unset,
/// the store's default ([`HnswSettings::DIRECTORY`], a PostgreSQL store's
/// [`HnswSettings::POSTGRES`]). Rows that differ only here share their chunks and vectors, and
/// each shape gets an index of its own: the row's cost says how long it took to build, its
/// metrics what the graph found. Collections of at most 10,000 chunks are searched exactly, so
/// there only the build time differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct Graph {
    /// Links per node (`hnsw_m`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub m: Option<usize>,
    /// Candidate list size while inserting (`hnsw_ef_construction`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ef_construction: Option<usize>,
}

impl Graph {
    /// Whether the store's default graph is built.
    pub fn is_default(&self) -> bool {
        *self == Graph::default()
    }

    /// The settings to build with on a store whose default is `default` (`None`: the default).
    /// The error names the sweep key.
    pub fn settings(&self, default: HnswSettings) -> Result<Option<HnswSettings>, BadHnsw> {
        HnswSettings::resolve(self.m, self.ef_construction, default)
    }

    /// What a row label adds: ` m 8`, ` efc 80` (`""` for the default).
    pub fn label_suffix(&self) -> String {
        let mut s = String::new();
        if let Some(m) = self.m {
            s.push_str(&format!(" m {m}"));
        }
        if let Some(ef) = self.ef_construction {
            s.push_str(&format!(" efc {ef}"));
        }
        s
    }
}

/// Fusion weights, result shaping and the graph walk of a row: what `chunklab search` calls
/// `--bm25-weight`, `--dense-weight`, `--merge`, `--depth` and `--ef` (sweep keys
/// `bm25_weight`, `dense_weight`, `merge`, `depth`, `ef`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Retrieval {
    /// Weight of BM25 in hybrid RRF.
    pub bm25_weight: f32,
    /// Weight of dense retrieval in hybrid RRF.
    pub dense_weight: f32,
    /// Overlapping, touching or consecutive retrieved chunks of a document become one result
    /// (a passage); the `k` results are `k` passages, every chunk of them counted as retrieved.
    pub merge: bool,
    /// Candidates per retriever (default: the index's, 5 × k when merging, at least 50 in
    /// hybrid mode).
    pub depth: Option<usize>,
    /// The HNSW walk's candidate list (default: the index's, 128). Collections of at most
    /// 10,000 chunks are scanned exactly, where it changes nothing.
    pub ef: Option<usize>,
}

impl Default for Retrieval {
    fn default() -> Retrieval {
        Retrieval {
            bm25_weight: 1.0,
            dense_weight: 1.0,
            merge: false,
            depth: None,
            ef: None,
        }
    }
}

impl Retrieval {
    /// The same settings as the search configuration every face uses (its other fields at
    /// their defaults): what validates them and tunes the row's queries.
    pub fn search_config(&self) -> chunklab_pipeline::search::SearchConfig {
        chunklab_pipeline::search::SearchConfig {
            bm25_weight: self.bm25_weight,
            dense_weight: self.dense_weight,
            merge: self.merge,
            depth: self.depth,
            ef: self.ef,
            ..Default::default()
        }
    }

    /// Whether these are the defaults (equal RRF weights, no merging, the index's depth).
    pub fn is_default(&self) -> bool {
        *self == Retrieval::default()
    }

    /// What a row label adds for settings other than the defaults (`""` for the defaults):
    /// ` w 4:1`, ` merge`, ` depth 20`, ` ef 64`.
    pub fn label_suffix(&self) -> String {
        let mut s = String::new();
        if (self.bm25_weight, self.dense_weight) != (1.0, 1.0) {
            s.push_str(&format!(" w {}:{}", self.bm25_weight, self.dense_weight));
        }
        if self.merge {
            s.push_str(" merge");
        }
        if let Some(d) = self.depth {
            s.push_str(&format!(" depth {d}"));
        }
        if let Some(ef) = self.ef {
            s.push_str(&format!(" ef {ef}"));
        }
        s
    }
}
