//! The served index's state: its searcher (store + query model, loaded once), the pipeline
//! documents are written with, and the write lock. The endpoints that use it are in `index.rs`;
//! `state.rs` holds one, so this file imports neither.

use crate::error::ApiError;
use chunklab_embed::Embedder;
use chunklab_pipeline::search::Searcher;
use chunklab_pipeline::{Pipeline, PipelineConfig};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};

/// The served index: a searcher (store + query model, loaded once), the pipeline documents are
/// written with, and a lock that serializes writes. The store is an embedded index directory
/// (searched and written) or a PostgreSQL store (searched only: writes answer 409).
pub struct IndexState {
    /// The index directory; `None` for a PostgreSQL store.
    pub(crate) dir: Option<PathBuf>,
    pub(crate) searcher: RwLock<Arc<Searcher>>,
    pub(crate) model: Option<Arc<dyn Embedder>>,
    pub(crate) writer: Option<Arc<Pipeline>>,
    pub(crate) write_refused: Option<String>,
    pub(crate) write_lock: Mutex<()>,
}

impl IndexState {
    /// Open the index in `dir`, load its model, and build the write pipeline from `write`
    /// (its model defaults to the index's); writes are refused, with the reason, when the
    /// pipeline's settings differ from the index's.
    pub fn open(dir: &Path, write: PipelineConfig) -> anyhow::Result<IndexState> {
        IndexState::from_searcher(Searcher::open(dir, false)?, write)
    }

    /// Open the store at `location` ([`Searcher::open_location`]: an index directory, as
    /// [`IndexState::open`], or a `postgres://` URL, served for search only).
    pub fn open_location(location: &str, write: PipelineConfig) -> anyhow::Result<IndexState> {
        IndexState::from_searcher(Searcher::open_location(location, false)?, write)
    }

    fn from_searcher(searcher: Searcher, mut write: PipelineConfig) -> anyhow::Result<IndexState> {
        let settings = searcher.store().settings().clone();
        let dir = searcher.index().map(|ix| ix.dir().to_path_buf());
        let model = if settings.dim > 0 {
            Some(searcher.load_model()?)
        } else {
            None
        };
        if write.model.is_none() && settings.dim > 0 {
            // The index's model embeds what is written. Sizes stay in the unit the
            // configuration means without a model (chars, or tokens of its tokenizer), as
            // `chunklab index` cut them: with a model and no unit they would be its tokens.
            if write.chunking.unit.is_none() && write.chunking.tokenizer.is_none() {
                write.chunking.unit = Some(chunklab_core::Unit::Chars);
            }
            write.model = Some(settings.model.clone());
        }
        let (writer, write_refused) = if dir.is_none() {
            (
                None,
                Some(format!(
                    "{} is a PostgreSQL store, which this server searches only; add, replace or delete documents with `chunklab index --store URL`",
                    searcher.store().location()
                )),
            )
        } else {
            match Pipeline::new(write) {
                Ok(p) => {
                    let why = match (&p.model, &p.config.model) {
                        (Some(m), Some(spec)) => settings
                            .mismatch(&p.index_settings(spec, m.as_ref()))
                            .map(|why| why.to_string()),
                        _ => Some("the index has no embedding model".to_string()),
                    };
                    (Some(Arc::new(p)), why)
                }
                Err(e) => (None, Some(format!("{e:#}"))),
            }
        };
        Ok(IndexState {
            dir,
            searcher: RwLock::new(Arc::new(searcher)),
            model,
            writer,
            write_refused,
            write_lock: Mutex::new(()),
        })
    }

    /// The index directory, or 409 for a store this server does not write.
    pub(crate) fn writable_dir(&self) -> Result<&Path, ApiError> {
        self.dir.as_deref().ok_or_else(|| {
            ApiError::new(
                axum::http::StatusCode::CONFLICT,
                "not_writable",
                self.write_refused.clone().unwrap_or_default(),
            )
        })
    }

    /// The searcher of the index as last committed.
    pub fn searcher(&self) -> Arc<Searcher> {
        self.searcher
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// The served model's name.
    pub fn model_spec(&self) -> Option<String> {
        self.model
            .as_ref()
            .map(|_| self.searcher().store().settings().model.clone())
    }

    /// Documents and chunks in the index.
    pub fn counts(&self) -> (usize, usize) {
        self.searcher().store().counts().unwrap_or_default()
    }

    /// What `/ready` says about the index.
    pub fn summary(&self) -> Value {
        let s = self.searcher();
        let settings = s.store().settings();
        let (docs, chunks) = self.counts();
        json!({
            "dir": self.dir.as_ref().map(|d| d.display().to_string()),
            "store": s.store().location(),
            "documents": docs,
            "chunks": chunks,
            "model": settings.model,
            "chunker": settings.chunker,
            "writable": self.write_refused.is_none(),
            "write_refused": self.write_refused,
        })
    }
}
