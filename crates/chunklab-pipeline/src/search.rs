//! Searching a store: one [`SearchConfig`] (the `chunklab search` flags as serde keys) and a
//! [`Searcher`] that opens a store (an index directory or a PostgreSQL URL, behind the index
//! crate's [`ChunkStore`] seam) and its query model once and then answers any number of queries
//! — what the CLI, the server and the Python package call.
//!
//! Errors a client caused are typed so a face can answer them as bad requests: an out-of-range
//! parameter, an empty or too long query, or shaping a flat index is a [`SearchParamError`];
//! a bad filter or query the store refuses is a [`chunklab_index::Error`] (`BadFilter`,
//! `BadQuery`); both can be found with `anyhow::Error::downcast_ref`.
//!
//! ```no_run
//! use chunklab_pipeline::search::{SearchConfig, Searcher};
//! let searcher = Searcher::open("idx".as_ref(), false).unwrap();
//! searcher.load_model().unwrap(); // pay the model load now, not on the first query
//! let cfg: SearchConfig = serde_json::from_str(r#"{"mode": "hybrid", "k": 5}"#).unwrap();
//! for hit in searcher.search("windenergie", &cfg, None).unwrap() {
//!     println!("{:.3} {} {}", hit.score, hit.source, hit.chunk_id);
//! }
//! ```

use crate::query_batch::QueryBatcher;
use anyhow::{anyhow, bail, Context as _, Result};
use chunklab_embed::{Embedder, LoadOptions, RerankWith};
use chunklab_index::{ChunkStore, Hit, Index, Mode, Query};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

/// How to search; the keys are the `chunklab search` flags with `_` (`rerank_top`, `rrf_k` …) and
/// the defaults are theirs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SearchConfig {
    /// Retrievers: dense, bm25 or hybrid (RRF of both).
    pub mode: Mode,
    /// Number of results.
    pub k: usize,
    /// Rerank the top [`SearchConfig::rerank_top`] candidates: `maxsim` (late interaction over
    /// the index's model) or a cross-encoder model directory.
    pub rerank: Option<String>,
    /// Candidates the reranker scores (at least `k`); 30 by default (docs/EVALUATION.md).
    pub rerank_top: usize,
    /// Metadata filters `FIELD=VALUE`, applied inside the search.
    pub filter: Vec<String>,
    /// One result per document (its best chunk).
    pub docs: bool,
    /// Merge overlapping or adjacent chunks of a document into one result.
    pub merge: bool,
    /// Hierarchical chunks: retrieve the small chunks, return their parents.
    pub small_to_big: bool,
    /// Hierarchical chunks: return a parent when enough of its children were retrieved.
    pub auto_merge: bool,
    /// Fraction of a parent's children that must be retrieved for `auto_merge`.
    pub merge_threshold: f32,
    /// RRF constant k.
    pub rrf_k: f32,
    /// Weight of BM25 in hybrid fusion.
    pub bm25_weight: f32,
    /// Weight of dense retrieval in hybrid fusion.
    pub dense_weight: f32,
    /// Hybrid: BM25's weight is multiplied by this for a query that names an identifier
    /// ([`chunklab_index::fusion::names_identifier`]: `motie 2018/0077`, `COVID-19`), which
    /// BM25 matches verbatim and a dense embedding does not represent; 1 turns it off. 4 by
    /// default (docs/EVALUATION.md, "Hybrid with cross-validated weights").
    pub identifier_boost: f32,
    /// Exact vector search (a scan) instead of the HNSW graph.
    pub exact: bool,
    /// The HNSW walk's candidate list size (`ef_search`) for these queries: larger finds more
    /// of the true nearest neighbours, slower (default: the index's, 128; in PostgreSQL the
    /// depth, at least 40, and pgvector caps it at 1,000). At most [`MAX_EF`].
    pub ef: Option<usize>,
    /// Candidates per retriever before reranking and shaping (default: `k`, or `rerank_top`
    /// when reranking, × 5 when shaping, at least 50 in hybrid mode). With `merge`, the
    /// depth decides which neighbours can join a passage (docs/EVALUATION.md: 25 for the
    /// Chroma configuration).
    pub depth: Option<usize>,
}

impl Default for SearchConfig {
    fn default() -> SearchConfig {
        SearchConfig {
            mode: Mode::Hybrid,
            k: 10,
            rerank: None,
            rerank_top: 30,
            filter: Vec::new(),
            docs: false,
            merge: false,
            small_to_big: false,
            auto_merge: false,
            merge_threshold: 0.5,
            rrf_k: 60.0,
            bm25_weight: 1.0,
            dense_weight: 1.0,
            identifier_boost: IDENTIFIER_BOOST,
            exact: false,
            ef: None,
            depth: None,
        }
    }
}

/// The largest [`SearchConfig::ef`]: a walk that wide visits a good part of any graph a
/// machine holds; an exact search (`exact`) is then the better choice.
pub const MAX_EF: usize = 10_000;

/// The default [`SearchConfig::identifier_boost`].
pub const IDENTIFIER_BOOST: f32 = 4.0;

/// A parameter of a [`SearchConfig`] that is out of range; `param` is the key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{param}: {message}")]
pub struct SearchParamError {
    /// The key (`k`, `merge_threshold` …).
    pub param: &'static str,
    /// What is wrong with it.
    pub message: String,
}

impl SearchConfig {
    /// Set on `q` what this configuration decides besides its retriever, `k`, vector, filter
    /// and reranker: RRF constant and weights (BM25's boosted when a hybrid query names an
    /// identifier), exact search, shaping and depth. The searcher and the lab (`chunklab bench`
    /// rows) tune their queries with it.
    pub fn tune(&self, q: &mut Query<'_>) {
        q.rrf_k = self.rrf_k;
        q.bm25_weight = self.bm25_weight * self.boost_for(q.text);
        q.dense_weight = self.dense_weight;
        q.exact = self.exact;
        q.ef = self.ef;
        q.small_to_big = self.small_to_big;
        q.auto_merge = self.auto_merge.then_some(self.merge_threshold);
        q.merge = self.merge;
        q.docs = self.docs;
        q.depth = self.depth;
    }

    /// What BM25's weight is multiplied by for `query`: [`SearchConfig::identifier_boost`] when
    /// it names an identifier, else 1.
    pub fn boost_for(&self, query: &str) -> f32 {
        if self.identifier_boost != 1.0 && chunklab_index::fusion::names_identifier(query) {
            self.identifier_boost
        } else {
            1.0
        }
    }

    /// Check the parameters that do not depend on the index.
    pub fn validate(&self) -> std::result::Result<(), SearchParamError> {
        let err = |param, message: &str| {
            Err(SearchParamError {
                param,
                message: message.to_string(),
            })
        };
        if self.k == 0 {
            return err("k", "must be at least 1");
        }
        if self.small_to_big && self.auto_merge {
            return err("auto_merge", "give small_to_big or auto_merge, not both");
        }
        if !(0.0..=1.0).contains(&self.merge_threshold) {
            return err("merge_threshold", "must be between 0 and 1");
        }
        if !(self.rrf_k.is_finite() && self.rrf_k >= 0.0) {
            return err("rrf_k", "must be a finite number ≥ 0");
        }
        for (param, w) in [
            ("bm25_weight", self.bm25_weight),
            ("dense_weight", self.dense_weight),
        ] {
            if !(w.is_finite() && w >= 0.0) {
                return err(param, "must be a finite number ≥ 0");
            }
        }
        if !(self.identifier_boost.is_finite() && self.identifier_boost >= 1.0) {
            return err(
                "identifier_boost",
                "must be a finite number ≥ 1 (1 turns it off)",
            );
        }
        if self.mode == Mode::Hybrid && self.bm25_weight == 0.0 && self.dense_weight == 0.0 {
            return err(
                "bm25_weight",
                "and dense_weight are both 0: nothing would rank",
            );
        }
        if self.depth == Some(0) {
            return err("depth", "must be at least 1");
        }
        if let Some(ef) = self.ef {
            if !(1..=MAX_EF).contains(&ef) {
                return err("ef", "must be between 1 and 10000");
            }
        }
        if self.rerank.is_some() && self.rerank_top == 0 {
            return err("rerank_top", "must be at least 1");
        }
        Ok(())
    }
}

/// An open store with its query model, loaded at most once and shared by every query (the
/// model load is most of a cold `chunklab search`). `Send + Sync`: one searcher serves many
/// threads.
pub struct Searcher {
    store: Arc<dyn ChunkStore>,
    /// The same store when it is the embedded index (for what only it has: repairs, document
    /// texts by id).
    embedded: Option<Arc<Index>>,
    fetch: bool,
    model: OnceLock<Arc<dyn Embedder>>,
    loading: Mutex<()>,
    rerankers: Mutex<HashMap<String, Arc<RerankWith>>>,
    /// Concurrent queries share forward passes of the model.
    queries: QueryBatcher,
}

/// Memory a searcher's MaxSim reranker may keep for passage token vectors (about 700
/// passages of 250 MiniLM tokens).
const MAXSIM_CACHE_BYTES: usize = 256 << 20;

impl Searcher {
    /// Open the index in `dir` (repairing in memory what an interrupted write left behind; see
    /// [`Index::repairs`]). `fetch`: download the index's model when it is not installed.
    pub fn open(dir: &Path, fetch: bool) -> Result<Searcher> {
        let index = Index::open(dir)?;
        Ok(Searcher::new(index, fetch))
    }

    /// Open the store at `location`: a `postgres://` or `postgresql://` URL (PostgreSQL +
    /// pgvector, see `chunklab_postgres`), or else an index directory.
    pub fn open_location(location: &str, fetch: bool) -> Result<Searcher> {
        if crate::indexing::is_postgres(location)? {
            let store = chunklab_postgres::open_store(location)?;
            Ok(Searcher::with_store(store, fetch))
        } else {
            Searcher::open(Path::new(location), fetch)
        }
    }

    /// A searcher over an index opened elsewhere.
    pub fn new(index: Index, fetch: bool) -> Searcher {
        let index = Arc::new(index);
        let mut s = Searcher::from_store(index.clone(), fetch);
        s.embedded = Some(index);
        s
    }

    /// A searcher over any store opened elsewhere (behind the seam).
    pub fn with_store(store: Box<dyn ChunkStore>, fetch: bool) -> Searcher {
        Searcher::from_store(Arc::from(store), fetch)
    }

    fn from_store(store: Arc<dyn ChunkStore>, fetch: bool) -> Searcher {
        Searcher {
            store,
            embedded: None,
            fetch,
            model: OnceLock::new(),
            loading: Mutex::new(()),
            rerankers: Mutex::new(HashMap::new()),
            queries: QueryBatcher::default(),
        }
    }

    /// Use `model` (already loaded, e.g. by the searcher this one replaces after a write) as
    /// the query model instead of loading it again; refused when its dimension is not the
    /// store's.
    pub fn with_model(self, model: Arc<dyn Embedder>) -> Result<Searcher> {
        let settings = self.store.settings();
        if model.dim() != settings.dim {
            bail!(
                "model {} gives {}-dimensional vectors but the store {} holds {}-dimensional ones",
                settings.model,
                model.dim(),
                self.store.location(),
                settings.dim
            );
        }
        let _ = self.model.set(model);
        Ok(self)
    }

    /// The store, behind the seam.
    pub fn store(&self) -> &dyn ChunkStore {
        self.store.as_ref()
    }

    /// The embedded index, when the store is one (`None` for PostgreSQL).
    pub fn index(&self) -> Option<&Index> {
        self.embedded.as_deref()
    }

    /// The index's embedding model, loaded on first use (and checked against the index's
    /// dimension).
    pub fn load_model(&self) -> Result<Arc<dyn Embedder>> {
        if let Some(m) = self.model.get() {
            return Ok(m.clone());
        }
        let _guard = self
            .loading
            .lock()
            .map_err(|_| anyhow!("model load lock"))?;
        if let Some(m) = self.model.get() {
            return Ok(m.clone());
        }
        let settings = self.store.settings();
        let m: Arc<dyn Embedder> = chunklab_embed::load(
            &settings.model,
            &LoadOptions {
                fetch: self.fetch,
                home: None,
                ..Default::default()
            },
        )
        .with_context(|| format!("the index's embedding model {}", settings.model))?
        .into();
        if m.dim() != settings.dim {
            bail!(
                "model {} gives {}-dimensional vectors but the index holds {}-dimensional ones; rebuild the index",
                settings.model,
                m.dim(),
                settings.dim
            );
        }
        Ok(self.model.get_or_init(|| m).clone())
    }

    /// How the queries this searcher embedded were batched.
    pub fn query_batches(&self) -> crate::query_batch::QueryBatchStats {
        self.queries.stats()
    }

    /// Embed a query with the index's model, refusing one longer than the model reads.
    pub fn embed_query(&self, query: &str) -> Result<Vec<f32>> {
        let m = self.load_model()?;
        let tokens = m.token_spans(query)?.len();
        if tokens > m.token_capacity() {
            return Err(SearchParamError {
                param: "query",
                message: format!(
                    "the query has {tokens} tokens but the model {} reads at most {} per query; shorten it",
                    self.store.settings().model,
                    m.token_capacity()
                ),
            }
            .into());
        }
        self.queries.embed(&*m, query)
    }

    /// The reranker for `spec`, loaded once per searcher: a cross-encoder, or MaxSim over the
    /// index's model with a bounded cache of passage token vectors, so that in a long-lived
    /// searcher (the server, a Python `Index`) a candidate an earlier query reranked is not
    /// run through the model again.
    fn reranker(&self, spec: &str) -> Result<Arc<RerankWith>> {
        let maxsim = spec.trim().eq_ignore_ascii_case("maxsim");
        let key = if maxsim { "maxsim" } else { spec };
        let mut cache = self
            .rerankers
            .lock()
            .map_err(|_| anyhow!("reranker cache lock"))?;
        if let Some(r) = cache.get(key) {
            return Ok(r.clone());
        }
        let r: Box<dyn chunklab_embed::Reranker> = if maxsim {
            Box::new(
                chunklab_embed::MaxSim::new(self.load_model()?)
                    .with_passage_cache_limit(MAXSIM_CACHE_BYTES),
            )
        } else {
            chunklab_embed::load_reranker(spec, None).with_context(|| format!("rerank {spec}"))?
        };
        let r = Arc::new(RerankWith(r));
        cache.insert(key.to_string(), r.clone());
        Ok(r)
    }

    /// Search. `acl`: when given, only chunks of documents whose access groups include one of
    /// these are seen — enforced inside the candidate search, on top of `cfg.filter`.
    pub fn search(
        &self,
        query: &str,
        cfg: &SearchConfig,
        acl: Option<&[String]>,
    ) -> Result<Vec<Hit>> {
        let vector = self.query_vector(query, cfg)?;
        self.search_with_vector(query, vector.as_deref(), cfg, acl)
    }

    /// The vector `cfg.mode` needs for `query` (dense and hybrid; none for bm25), embedded
    /// through the searcher's query batcher. With [`Searcher::search_with_vector`] this is
    /// [`Searcher::search`] in two steps, so that a server can embed outside its worker
    /// permits: concurrent queries then meet in one batch.
    pub fn query_vector(&self, query: &str, cfg: &SearchConfig) -> Result<Option<Vec<f32>>> {
        cfg.validate()?;
        check_query(query)?;
        match cfg.mode {
            Mode::Dense | Mode::Hybrid => Ok(Some(self.embed_query(query)?)),
            Mode::Bm25 => Ok(None),
        }
    }

    /// [`Searcher::search`] with the query's vector given (from [`Searcher::query_vector`]).
    pub fn search_with_vector(
        &self,
        query: &str,
        vector: Option<&[f32]>,
        cfg: &SearchConfig,
        acl: Option<&[String]>,
    ) -> Result<Vec<Hit>> {
        cfg.validate()?;
        check_query(query)?;
        if vector.is_none() && cfg.mode != Mode::Bm25 {
            return Err(anyhow!("{} search needs the query's vector", cfg.mode));
        }
        if (cfg.small_to_big || cfg.auto_merge) && !self.store.is_hierarchical() {
            return Err(SearchParamError {
                param: if cfg.small_to_big {
                    "small_to_big"
                } else {
                    "auto_merge"
                },
                message: format!(
                    "small_to_big and auto_merge need hierarchical chunks (with parent_id); this index was built with `{}`",
                    self.store.settings().chunker
                ),
            }
            .into());
        }
        let mut filter = self.store.filter(&cfg.filter)?;
        if let Some(groups) = acl {
            filter.require_acl(groups.to_vec());
        }
        let reranker = cfg
            .rerank
            .as_deref()
            .map(|s| self.reranker(s))
            .transpose()?;
        let mut q = Query::new(query, cfg.mode, cfg.k).with_filter(filter);
        q.vector = vector.filter(|_| cfg.mode != Mode::Bm25);
        cfg.tune(&mut q);
        q.rerank = reranker
            .as_deref()
            .map(|r| r as &dyn chunklab_index::Rerank);
        q.rerank_top = cfg.rerank_top;
        Ok(self.store.search(&q)?)
    }
}

/// A query must hold more than white space.
fn check_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(SearchParamError {
            param: "query",
            message: "the query is empty".into(),
        }
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_from_json_uses_flag_names_and_defaults() {
        let c: SearchConfig =
            serde_json::from_str(r#"{"mode":"bm25","k":3,"filter":["acl=a"]}"#).unwrap();
        assert_eq!(c.mode, Mode::Bm25);
        assert_eq!(c.k, 3);
        assert_eq!(c.rerank_top, 30);
        let e = serde_json::from_str::<SearchConfig>(r#"{"topk":3}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `topk`"), "{e}");
        let e = serde_json::from_str::<SearchConfig>(r#"{"mode":"fuzzy"}"#).unwrap_err();
        assert!(e.to_string().contains("fuzzy"), "{e}");
    }

    #[test]
    fn validate_names_the_parameter() {
        let bad = SearchConfig {
            k: 0,
            ..SearchConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().param, "k");
        let bad = SearchConfig {
            merge_threshold: 2.0,
            ..SearchConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().param, "merge_threshold");
        let bad = SearchConfig {
            depth: Some(0),
            ..SearchConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().param, "depth");
        for ef in [0, MAX_EF + 1] {
            let bad = SearchConfig {
                ef: Some(ef),
                ..SearchConfig::default()
            };
            assert_eq!(bad.validate().unwrap_err().param, "ef");
        }
        let c: SearchConfig = serde_json::from_str(r#"{"ef":256}"#).unwrap();
        let mut q = Query::new("x", Mode::Dense, 5);
        c.tune(&mut q);
        assert_eq!(q.ef, Some(256));
        let c: SearchConfig = serde_json::from_str(r#"{"merge":true,"depth":25}"#).unwrap();
        assert_eq!((c.merge, c.depth), (true, Some(25)));
        let bad = SearchConfig {
            bm25_weight: 0.0,
            dense_weight: 0.0,
            ..SearchConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().param, "bm25_weight");
        let bad = SearchConfig {
            small_to_big: true,
            auto_merge: true,
            ..SearchConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().param, "auto_merge");
        for boost in [0.5, f32::NAN, f32::INFINITY] {
            let bad = SearchConfig {
                identifier_boost: boost,
                ..SearchConfig::default()
            };
            assert_eq!(bad.validate().unwrap_err().param, "identifier_boost");
        }
        assert!(SearchConfig::default().validate().is_ok());
    }

    #[test]
    fn identifiers_weight_bm25_up_in_hybrid() {
        let cfg = SearchConfig::default();
        let mut q = Query::new(
            "Wat vraagt motie 2026/0058 van het college?",
            Mode::Hybrid,
            5,
        );
        cfg.tune(&mut q);
        assert_eq!((q.bm25_weight, q.dense_weight), (4.0, 1.0));
        let mut q = Query::new("Wat vraagt de motie over windenergie?", Mode::Hybrid, 5);
        cfg.tune(&mut q);
        assert_eq!((q.bm25_weight, q.dense_weight), (1.0, 1.0));
        let off = SearchConfig {
            identifier_boost: 1.0,
            bm25_weight: 2.0,
            ..SearchConfig::default()
        };
        let mut q = Query::new("motie 2026/0058", Mode::Hybrid, 5);
        off.tune(&mut q);
        assert_eq!(q.bm25_weight, 2.0);
    }
}
