//! `chunklab.Index`: an index built by `chunklab index` or by `Index.create(...)` (the
//! pipeline's one [`chunklab_pipeline::IndexBuilder`], see [`crate::building`]), searched
//! through the pipeline's one [`Searcher`] (the index and its query model are opened once per
//! `Index` object, reopened after a commit, and shared by every query and thread).

use crate::building::{index_error, summary_dict, Building, TextDoc};
use crate::chunker::{check_exists, warn};
use crate::config::{pairs, to_json_map};
use crate::convert::{json_to_py, py_to_json};
use crate::errors::{config_error, spelled, ConfigError, IndexingError};
use chunklab_pipeline::indexing::IndexConfig;
use chunklab_pipeline::search::{SearchConfig, SearchParamError, Searcher};
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyDict, PyList};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

/// A chunklab index: `Index.open("./idx")` to search one, `Index.create("./idx",
/// model="e5-small", lang="nl")` to build one (`add_files`, `add_text`, `commit`), then
/// `search("query", mode="hybrid", k=10, rerank=..., filter=[...], ...)` with the options of
/// `chunklab search` (the flags with `_` for `-`). Hits are dicts with the fields of `chunklab
/// search --json` (`score`, `doc_id`, `source`, `text`, `start_char`, `headings`, ...).
#[pyclass(module = "chunklab", frozen, name = "Index")]
pub struct Index {
    path: PathBuf,
    fetch: bool,
    searcher: Mutex<Option<Arc<Searcher>>>,
    building: Option<Mutex<Building>>,
}

impl Index {
    fn searcher(&self, py: Python<'_>) -> PyResult<Arc<Searcher>> {
        if let Some(s) = lock(&self.searcher)?.as_ref() {
            return Ok(s.clone());
        }
        let model = match &self.building {
            Some(b) => lock(b)?.model(),
            None => None,
        };
        let location = self.path.display().to_string();
        let opened = py
            .detach(|| {
                let s = Searcher::open_location(&location, self.fetch)?;
                match model {
                    Some(m) => s.with_model(m),
                    None => Ok(s),
                }
            })
            .map_err(|e| self.failed(&e))?;
        let s = Arc::new(opened);
        *lock(&self.searcher)? = Some(s.clone());
        Ok(s)
    }

    fn building(&self) -> PyResult<&Mutex<Building>> {
        self.building.as_ref().ok_or_else(|| {
            IndexingError::new_err(format!(
                "{}: opened for search; write with Index.create(...)",
                self.location()
            ))
        })
    }

    /// Where the index is, as messages show it: a PostgreSQL URL without its password.
    fn location(&self) -> String {
        chunklab_pipeline::indexing::shown_location(&self.path.display().to_string())
    }

    /// An `IndexingError` for `e`, prefixed with where the index is; the location's password
    /// is hidden also where the message repeats the URL.
    fn failed(&self, e: &anyhow::Error) -> PyErr {
        crate::errors::indexing_error_at(&self.path.display().to_string(), e)
    }
}

fn lock<T>(m: &Mutex<T>) -> PyResult<MutexGuard<'_, T>> {
    m.lock().map_err(|_| {
        IndexingError::new_err("the index object is unusable after a crash in another thread")
    })
}

#[pymethods]
impl Index {
    /// Open the index at `path`: a directory built by `chunklab index`, or a `postgres://`
    /// URL written by `chunklab index --store` (or `Index.create`); `fetch`: download its model
    /// if it is not installed.
    #[staticmethod]
    #[pyo3(signature = (path, *, fetch=false))]
    fn open(py: Python<'_>, path: PathBuf, fetch: bool) -> PyResult<Index> {
        let location = path.display().to_string();
        let postgres = chunklab_pipeline::indexing::is_postgres(&location)
            .map_err(|e| ConfigError::new_err(spelled(&e)))?;
        if !postgres {
            check_exists(&path)?;
        }
        let searcher = py
            .detach(|| Searcher::open_location(&location, fetch))
            .map_err(|e| crate::errors::indexing_error_at(&location, &e))?;
        Ok(Index {
            path,
            fetch,
            searcher: Mutex::new(Some(Arc::new(searcher))),
            building: None,
        })
    }

    /// Create an index at `path` (a directory, created when missing, or a `postgres://` URL),
    /// or open one to add to (it must have been built with the same settings unless
    /// `rebuild`). `model`: the embedding model (default: an existing index's own; for a new
    /// index e5-small with `lang="nl"`, else minilm); `lang`: the analyzer and sentence
    /// language (en, nl, auto); `acl`: `["GLOB=GROUP", ...]`, `meta`: `["GLOB=FIELD:VALUE",
    /// ...]` as `chunklab index --acl/--meta`; `hnsw_m`, `hnsw_ef_construction`: a new
    /// index's HNSW graph, as `--hnsw-m`/`--hnsw-ef-construction` (an existing index keeps its
    /// own; another needs `rebuild`); `commit_every`: documents per commit of
    /// `add_files`. The chunking options are given to `add_files`/`add_text`;
    /// the writer (and its lock) is opened on the first document.
    #[staticmethod]
    #[pyo3(signature = (path, *, model=None, lang=None, fetch=false, rebuild=false, commit_every=32, acl=None, meta=None, hnsw_m=None, hnsw_ef_construction=None))]
    #[allow(clippy::too_many_arguments)]
    fn create(
        path: PathBuf,
        model: Option<String>,
        lang: Option<String>,
        fetch: bool,
        rebuild: bool,
        commit_every: usize,
        acl: Option<Vec<String>>,
        meta: Option<Vec<String>>,
        hnsw_m: Option<usize>,
        hnsw_ef_construction: Option<usize>,
    ) -> PyResult<Index> {
        if commit_every == 0 {
            return Err(config_error("commit_every", "must be at least 1"));
        }
        let mut base = Vec::new();
        if let Some(m) = model {
            base.push(("model".to_string(), Value::String(m)));
        }
        if let Some(l) = lang {
            base.push(("lang".to_string(), Value::String(l)));
        }
        if fetch {
            base.push(("fetch".to_string(), Value::Bool(true)));
        }
        // Check the fixed keywords now (a bad model name or language fails here).
        crate::config::from_pairs(base.clone())?;
        let rules_given = acl.is_some() || meta.is_some();
        let cfg = IndexConfig {
            rebuild,
            commit_every,
            acl: acl.unwrap_or_default(),
            meta: meta.unwrap_or_default(),
            hnsw_m,
            hnsw_ef_construction,
            spelling: &crate::spelling::Keywords,
        };
        let location = path.display().to_string();
        // Check the graph settings now, as the fixed keywords.
        if let Err(e) = cfg.hnsw(&location) {
            // `hnsw_m: …` or `hnsw_ef_construction: …`: the keyword first.
            return Err(crate::errors::ConfigError::new_err(e.to_string()));
        }
        Ok(Index {
            path,
            fetch,
            searcher: Mutex::new(None),
            building: Some(Mutex::new(Building::new(location, base, cfg, rules_given))),
        })
    }

    /// Chunk, embed and index files and directories (walked as `chunk_files` walks them),
    /// incrementally: unchanged files are skipped, changed ones re-indexed; with
    /// `remove_missing` documents not found under `paths` are removed. Takes the chunking
    /// keyword arguments of `chunklab.chunk` (one index holds one configuration; without any,
    /// here or in `create`, the configuration the index records, as a bare `chunklab index`
    /// re-run takes it). Commits
    /// every `commit_every` documents; the GIL is released. Returns a dict (added, updated,
    /// removed, unchanged, skipped, chunks, embedded, truncated); files that cannot be read or
    /// parsed raise `ParseError` naming them after the others were indexed.
    #[pyo3(signature = (paths, *, remove_missing=false, **config))]
    fn add_files<'py>(
        &self,
        py: Python<'py>,
        paths: &Bound<'py, PyAny>,
        remove_missing: bool,
        config: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let paths = crate::convert::paths(paths)?;
        let building = self.building()?;
        let pipeline = lock(building)?.pipeline(py, pairs(config)?)?;
        let out = py
            .detach(|| {
                let mut b = building.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                b.add_files(pipeline, &paths, remove_missing)
            })
            .map_err(|e| index_error(&self.path.display().to_string(), e))?;
        *lock(&self.searcher)? = None;
        for w in &out.warnings {
            warn(py, w)?;
        }
        summary_dict(py, &out.value)
    }

    /// Chunk, embed and add one document given as text (parsed as the file `source` would be,
    /// else as `doc_id`: its extension picks the parser), with access groups `acl` and
    /// metadata fields `metadata` (strings; searched with `filter=["field=value"]`). Replaces
    /// a document with this id; durable after `commit()`. Takes the chunking keyword arguments
    /// of `chunklab.chunk`. Returns the chunks written (0 when the same text was indexed
    /// already).
    #[pyo3(signature = (doc_id, text, *, source=None, acl=None, metadata=None, **config))]
    #[allow(clippy::too_many_arguments)]
    fn add_text<'py>(
        &self,
        py: Python<'py>,
        doc_id: String,
        text: String,
        source: Option<PathBuf>,
        acl: Option<Vec<String>>,
        metadata: Option<&Bound<'py, PyDict>>,
        config: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<usize> {
        let mut fields = BTreeMap::new();
        if let Some(m) = metadata {
            for (k, v) in m.iter() {
                let key: String = k.extract()?;
                let value = match py_to_json(&v) {
                    Ok(Value::String(s)) => s,
                    Ok(Value::Number(n)) => n.to_string(),
                    Ok(Value::Bool(b)) => b.to_string(),
                    _ => {
                        return Err(ConfigError::new_err(format!(
                            "metadata: the value of `{key}` must be a string, number or bool"
                        )))
                    }
                };
                fields.insert(key, value);
            }
        }
        let doc = TextDoc {
            doc_id,
            text,
            source: source.map(|p| p.to_string_lossy().into_owned()),
            acl: acl.unwrap_or_default(),
            fields,
        };
        let building = self.building()?;
        let pipeline = lock(building)?.pipeline(py, pairs(config)?)?;
        let out = py
            .detach(|| {
                let mut b = building.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                b.add_text(pipeline, &doc)
            })
            .map_err(|e| index_error(&self.path.display().to_string(), e))?;
        for w in &out.warnings {
            warn(py, w)?;
        }
        Ok(out.value)
    }

    /// Make everything added so far durable and searchable (whole documents or nothing).
    fn commit(&self, py: Python<'_>) -> PyResult<()> {
        let building = self.building()?;
        let done = py
            .detach(|| {
                let mut b = building.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                b.commit()
            })
            .map_err(|e| index_error(&self.path.display().to_string(), e))?;
        if !done {
            return Err(IndexingError::new_err(format!(
                "{}: nothing to commit: add documents first (add_files, add_text)",
                self.location()
            )));
        }
        *lock(&self.searcher)? = None;
        Ok(())
    }

    /// Commit and release the index's writer lock (another writer may open it); the object
    /// still searches, and a later `add_*` opens the writer again. Returns (documents, chunks)
    /// in the index, or None when nothing was added.
    fn close(&self, py: Python<'_>) -> PyResult<Option<(usize, usize)>> {
        let Some(building) = &self.building else {
            return Ok(None);
        };
        let counts = py
            .detach(|| {
                let mut b = building.lock().map_err(|_| anyhow::anyhow!("poisoned"))?;
                b.close()
            })
            .map_err(|e| index_error(&self.path.display().to_string(), e))?;
        *lock(&self.searcher)? = None;
        Ok(counts)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, py: Python<'_>, _args: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
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
        let mut map = to_json_map(options)?;
        // One filter may be given as a string (`filter="source=besluiten/**"`).
        if let Some(v @ serde_json::Value::String(_)) = map.get_mut("filter") {
            *v = serde_json::Value::Array(vec![v.take()]);
        }
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
        let searcher = self.searcher(py)?;
        let hits = py
            .detach(|| searcher.search(&query, &cfg, acl.as_deref()))
            .map_err(|e| match e.downcast_ref::<SearchParamError>() {
                // An empty or too long query, shaping a flat index: the call's arguments.
                Some(p) => config_error(p.param, &p.message),
                None => self.failed(&e),
            })?;
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
        let v = serde_json::to_value(self.searcher(py)?.store().settings()).unwrap_or_default();
        json_to_py(py, &v)
    }

    fn __repr__(&self) -> String {
        format!("Index({:?})", self.location())
    }
}
