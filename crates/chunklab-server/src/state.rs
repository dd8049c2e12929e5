//! What the server loads once at start and shares between requests: limits, tokens, metrics,
//! a bounded cache of pipelines (one per distinct chunking configuration), and the index with
//! its searcher and the pipeline that writes documents into it.

use crate::auth::Tokens;
use crate::error::ApiError;
use crate::metrics::Metrics;
use chunklab_pipeline::{Pipeline, PipelineConfig};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::Semaphore;

/// Bounds on what one request may cost.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Largest JSON body, in bytes.
    pub body_bytes: usize,
    /// Largest multipart upload (the whole form), in bytes.
    pub upload_bytes: usize,
    /// Longest time one request may take (reading its body included).
    pub request_timeout: Duration,
    /// Most requests served at once; more are refused with 429.
    pub max_in_flight: usize,
    /// Most CPU-bound jobs (chunking, embedding, searching) run at once; more wait.
    pub workers: usize,
    /// Most texts in one /v1/chunk or /v1/embed request.
    pub max_texts: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            body_bytes: 16 << 20,
            upload_bytes: 64 << 20,
            request_timeout: Duration::from_secs(60),
            max_in_flight: 256,
            workers: std::thread::available_parallelism().map_or(2, |n| n.get()),
            max_texts: 1024,
        }
    }
}

/// How the server is configured (what `chunklab serve` builds from its flags).
pub struct ServerConfig {
    /// The index directory (none, and no `store`: only the stateless endpoints and the page).
    pub index: Option<PathBuf>,
    /// Instead of `index`: a store location, an index directory or a `postgres://` URL
    /// (a PostgreSQL store is searched only; writes answer 409).
    pub store: Option<String>,
    /// The bearer tokens (required with an index).
    pub tokens: Tokens,
    /// The pipeline documents are written with (`POST /v1/documents`): its chunking and model
    /// must be the index's. Also the model `/v1/embed` serves.
    pub write_pipeline: Option<PipelineConfig>,
    /// Limits.
    pub limits: Limits,
    /// The directory bench jobs may read corpora, queries and sweep files from (none: only
    /// the generated archive and inline sweeps).
    pub bench_dir: Option<PathBuf>,
}

/// Most pipelines kept for distinct chunking configurations.
const PIPELINE_CACHE: usize = 32;

/// Shared state.
pub struct AppState {
    /// Limits.
    pub limits: Limits,
    /// Tokens.
    pub tokens: Tokens,
    /// Counters.
    pub metrics: Metrics,
    /// Requests being served.
    pub in_flight: AtomicUsize,
    /// Permits for CPU-bound work.
    pub workers: Arc<Semaphore>,
    pipelines: Mutex<HashMap<String, Arc<Pipeline>>>,
    /// The index, when serving one.
    pub index: Option<crate::index_state::IndexState>,
    /// Where bench jobs may read files (canonical), if anywhere.
    pub bench_dir: Option<PathBuf>,
    /// Bench jobs (one running at a time).
    pub jobs: crate::job_registry::Jobs,
}

impl AppState {
    /// Load everything: the write pipeline (and its model) and the index with its searcher.
    pub fn load(cfg: ServerConfig) -> anyhow::Result<AppState> {
        let write = cfg.write_pipeline.clone().unwrap_or_default();
        let index = match (&cfg.index, &cfg.store) {
            (Some(_), Some(_)) => anyhow::bail!("give an index directory or a store, not both"),
            (Some(dir), None) => Some(crate::index_state::IndexState::open(dir, write)?),
            (None, Some(location)) => Some(crate::index_state::IndexState::open_location(
                location, write,
            )?),
            (None, None) => None,
        };
        if index.is_some() && cfg.tokens.is_empty() {
            anyhow::bail!("serving an index or store needs a tokens file (--tokens)");
        }
        let bench_dir = match &cfg.bench_dir {
            Some(d) => Some(
                d.canonicalize()
                    .map_err(|e| anyhow::anyhow!("bench directory {}: {e}", d.display()))?,
            ),
            None => None,
        };
        Ok(AppState {
            workers: Arc::new(Semaphore::new(cfg.limits.workers.max(1))),
            limits: cfg.limits,
            tokens: cfg.tokens,
            metrics: Metrics::default(),
            in_flight: AtomicUsize::new(0),
            pipelines: Mutex::new(HashMap::new()),
            index,
            bench_dir,
            jobs: crate::job_registry::Jobs::default(),
        })
    }

    /// The pipeline for `cfg`, built once per distinct configuration (bounded cache).
    pub fn pipeline(&self, cfg: PipelineConfig) -> Result<Arc<Pipeline>, ApiError> {
        let key = serde_json::to_string(&cfg).map_err(|e| ApiError::internal(e.to_string()))?;
        if let Some(p) = self.lock_pipelines().get(&key) {
            return Ok(p.clone());
        }
        let p = Arc::new(Pipeline::new(cfg).map_err(crate::error::from_anyhow)?);
        let mut cache = self.lock_pipelines();
        if cache.len() >= PIPELINE_CACHE {
            cache.clear();
        }
        cache.insert(key, p.clone());
        Ok(p)
    }

    fn lock_pipelines(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Pipeline>>> {
        self.pipelines.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The index, or 503 when the server runs without one.
    pub fn index(&self) -> Result<&crate::index_state::IndexState, ApiError> {
        self.index.as_ref().ok_or_else(|| {
            ApiError::unavailable(
                "no_index",
                "this server runs without an index (start it with --index DIR)",
            )
        })
    }

    /// Run CPU-bound `f` on the blocking pool once a worker permit is free; a panic inside
    /// becomes a 500, never a dropped connection.
    pub async fn blocking<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        let permit =
            self.workers.clone().acquire_owned().await.map_err(|_| {
                ApiError::unavailable("shutting_down", "the server is shutting down")
            })?;
        joined(
            tokio::task::spawn_blocking(move || {
                let _permit = permit;
                f()
            })
            .await,
        )
    }

    /// Run `f` on the blocking pool without a worker permit: for work with its own queue that
    /// bounds its CPU (query embedding, one batched forward pass at a time), where a permit per
    /// waiting caller would keep the batches small. The in-flight limit bounds the callers.
    pub async fn unpermitted<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: FnOnce() -> Result<T, ApiError> + Send + 'static,
        T: Send + 'static,
    {
        joined(tokio::task::spawn_blocking(f).await)
    }
}

/// A blocking task's result; a panic inside becomes a 500, never a dropped connection.
fn joined<T>(out: Result<Result<T, ApiError>, tokio::task::JoinError>) -> Result<T, ApiError> {
    match out {
        Ok(r) => r,
        Err(e) if e.is_panic() => Err(ApiError::internal(
            "the request failed inside the pipeline (a bug: please report it with the input)",
        )),
        Err(_) => Err(ApiError::unavailable(
            "cancelled",
            "the request was cancelled",
        )),
    }
}
