//! `chunklab.Index`: an index built by `chunklab index`, searched through the pipeline's one
//! [`Searcher`] (the index and its query model are opened once per `Index` object and shared by
//! every query and thread).

use crate::chunker::check_exists;
use crate::config::to_json_map;
use crate::convert::json_to_py;
use crate::errors::{config_error, IndexingError};
use chunklab_pipeline::search::{SearchConfig, Searcher};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;
use std::sync::Arc;

/// A chunklab index opened for search: `Index.open("./idx")`, then
/// `search("query", mode="hybrid", k=10, rerank=..., filter=[...], ...)` with the options of
/// `chunklab search` (the flags with `_` for `-`). Hits are dicts with the fields of `chunklab
/// search --json` (`score`, `doc_id`, `source`, `text`, `start_char`, `headings`, ...).
#[pyclass(module = "chunklab", frozen, name = "Index")]
pub struct Index {
    path: PathBuf,
    searcher: Arc<Searcher>,
}

#[pymethods]
impl Index {
    /// Open the index in `path`; `fetch`: download its model if it is not installed.
    #[staticmethod]
    #[pyo3(signature = (path, *, fetch=false))]
    fn open(py: Python<'_>, path: PathBuf, fetch: bool) -> PyResult<Index> {
        check_exists(&path)?;
        let searcher = py
            .detach(|| Searcher::open(&path, fetch))
            .map_err(|e| IndexingError::new_err(format!("{}: {e:#}", path.display())))?;
        Ok(Index {
            path,
            searcher: Arc::new(searcher),
        })
    }

    /// Search (GIL released). `acl`: only documents whose access groups include one of these.
    #[pyo3(signature = (query, *, acl=None, **options))]
    fn search<'py>(
        &self,
        py: Python<'py>,
        query: String,
        acl: Option<Vec<String>>,
        options: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyList>> {
        let map = to_json_map(options)?;
        let cfg: SearchConfig = serde_json::from_value(serde_json::Value::Object(map.clone()))
            .map_err(|e| {
                let key = map
                    .iter()
                    .find(|(k, v)| {
                        let mut one = serde_json::Map::new();
                        one.insert((*k).clone(), (*v).clone());
                        serde_json::from_value::<SearchConfig>(serde_json::Value::Object(one))
                            .is_err()
                    })
                    .map(|(k, _)| k.clone());
                match key {
                    Some(k) => config_error(&k, &e.to_string()),
                    None => pyo3::exceptions::PyTypeError::new_err(e.to_string()),
                }
            })?;
        if let Err(e) = cfg.validate() {
            return Err(config_error(e.param, &e.message));
        }
        let searcher = self.searcher.clone();
        let hits = py
            .detach(|| searcher.search(&query, &cfg, acl.as_deref()))
            .map_err(|e| IndexingError::new_err(format!("{}: {e:#}", self.path.display())))?;
        let out = PyList::empty(py);
        for h in &hits {
            out.append(json_to_py(
                py,
                &serde_json::to_value(h).unwrap_or_default(),
            )?)?;
        }
        Ok(out)
    }

    /// The index's settings (chunker, unit, model, ...) as a dict.
    #[getter]
    fn settings<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(self.searcher.store().settings()).unwrap_or_default();
        json_to_py(py, &v)
    }

    fn __repr__(&self) -> String {
        format!("Index({:?})", self.path.display().to_string())
    }
}
