//! `chunklab.Chunker`: a [`Pipeline`] built once from keyword arguments, chunking strings and
//! files. Everything runs with the GIL released; files are read, parsed and chunked in
//! parallel (rayon), results come back in input order.

use crate::chunks::{DocChunks, Record};
use crate::config::{from_kwargs, from_pairs, pairs_except};
use crate::convert::json_to_py;
use crate::errors::{chunk_error, pipeline_error, read_error};
use chunklab_core::document::ParsedDocument;
use chunklab_pipeline::{Input, Pipeline, PipelineConfig, Prepared, Skip};
use pyo3::exceptions::PyUserWarning;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString, PyTuple};
use rayon::prelude::*;
use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// One input's outcome, without Python objects.
pub enum Outcome {
    Done(DocChunks, Vec<String>),
    Binary(String),
    Failed(PyErrKind),
}

/// Errors are built into `PyErr`s only once the GIL is held again.
pub enum PyErrKind {
    Read(anyhow::Error),
    Chunk(anyhow::Error),
}

impl PyErrKind {
    fn into_py(self) -> PyErr {
        match self {
            PyErrKind::Read(e) => read_error(e),
            PyErrKind::Chunk(e) => chunk_error(e),
        }
    }
}

/// A configured chunklab pipeline: `Chunker(strategy="headings", size=512, unit="tokens")`.
/// Takes the same keyword arguments as `chunklab.chunk` (the CLI's flags, `_` for `-`); the
/// configuration is checked and models are loaded once, here.
#[pyclass(module = "chunklab", frozen, name = "Chunker")]
#[derive(Clone)]
pub struct Chunker {
    pipeline: Arc<Pipeline>,
    /// The chunker's configuration string (part of every chunk id), made once.
    chunk_config: Arc<str>,
    /// The size unit's name, shared by every chunk.
    unit: Arc<str>,
}

/// The pipelines built by `chunklab.chunk(...)` calls, newest last, so repeated calls with one
/// configuration do not rebuild tokenizers or reload models. Keyed by the configuration
/// (`cfg:` + its JSON) and by the keyword arguments that spelled it (`kw:` + their JSON), so
/// a repeated call does not even rebuild the configuration.
static CACHE: Mutex<Vec<(String, Arc<Pipeline>)>> = Mutex::new(Vec::new());
const CACHE_SIZE: usize = 16;

fn cached(key: &str) -> Option<Arc<Pipeline>> {
    CACHE
        .lock()
        .ok()
        .and_then(|c| c.iter().find(|(k, _)| k == key).map(|(_, p)| p.clone()))
}

fn remember(key: String, p: &Arc<Pipeline>) {
    if let Ok(mut c) = CACHE.lock() {
        if c.len() >= CACHE_SIZE {
            c.remove(0);
        }
        c.push((key, p.clone()));
    }
}

/// Build (or reuse) the pipeline `cfg` describes, without the GIL.
pub fn pipeline_for(py: Python<'_>, cfg: PipelineConfig) -> PyResult<Arc<Pipeline>> {
    let key = format!("cfg:{}", serde_json::to_string(&cfg).unwrap_or_default());
    if let Some(p) = cached(&key) {
        return Ok(p);
    }
    let p = Arc::new(py.detach(|| Pipeline::new(cfg)).map_err(pipeline_error)?);
    remember(key, &p);
    Ok(p)
}

/// The keyword arguments of the last call that built a chunker through
/// [`chunker_for_kwargs`] (a copy, without the skipped keys), and that chunker.
static LAST: Mutex<Option<(Py<PyDict>, Chunker)>> = Mutex::new(None);

/// Are `a` (this call's) and `b` (a remembered snapshot's) the same configuration value: of
/// the same type and equal, item by item for lists and tuples (so `512.0` or `True` never pass
/// for a `512` or `1` that built a chunker). Only `str`, `int`, `float`, `bool`, `None` and
/// lists/tuples of them compare; anything else (a path-like object, a dict) never does, and
/// takes the checked path.
fn same_value(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> bool {
    if !a.get_type().is(b.get_type()) {
        return false;
    }
    if let (Some(x), Some(y)) = (items(a), items(b)) {
        return x.len() == y.len() && x.iter().zip(&y).all(|(i, j)| same_value(i, j));
    }
    let plain = a.is_none()
        || a.is_instance_of::<PyString>()
        || a.is_instance_of::<pyo3::types::PyInt>()
        || a.is_instance_of::<pyo3::types::PyFloat>();
    plain && a.eq(b).unwrap_or(false)
}

/// The items of a list or tuple.
fn items<'py>(x: &Bound<'py, PyAny>) -> Option<Vec<Bound<'py, PyAny>>> {
    if let Ok(l) = x.cast::<PyList>() {
        return Some(l.iter().collect());
    }
    x.cast::<PyTuple>().ok().map(|t| t.iter().collect())
}

/// A copy of a keyword argument's value that the caller cannot change afterwards (lists are
/// copied, item by item; a list mutated after a call must not match its old snapshot).
fn snapshot<'py>(v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    if let Ok(l) = v.cast::<PyList>() {
        let items = l
            .iter()
            .map(|i| snapshot(&i))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(PyList::new(v.py(), items)?.into_any());
    }
    if let Ok(t) = v.cast::<PyTuple>() {
        let items = t
            .iter()
            .map(|i| snapshot(&i))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(PyTuple::new(v.py(), items)?.into_any());
    }
    Ok(v.clone())
}

/// Is the keyword `k` one of `skip`?
fn skipped(k: &Bound<'_, PyAny>, skip: &[&str]) -> bool {
    !skip.is_empty()
        && k.cast::<PyString>()
            .ok()
            .and_then(|s| s.to_cow().ok())
            .is_some_and(|s| skip.contains(&s.as_ref()))
}

/// Do the keyword arguments `kw` (less `skip`) equal the remembered `last`?
fn same_kwargs(kw: Option<&Bound<'_, PyDict>>, last: &Bound<'_, PyDict>, skip: &[&str]) -> bool {
    let mut n = 0;
    if let Some(kw) = kw {
        for (k, v) in kw.iter() {
            if skipped(&k, skip) {
                continue;
            }
            n += 1;
            match last.get_item(&k) {
                Ok(Some(w)) if same_value(&v, &w) => {}
                _ => return false,
            }
        }
    }
    n == last.len()
}

/// The chunker a call's keyword arguments spell ([`from_kwargs`]; the keys in `skip` are the
/// call's own arguments, not configuration). A call with the same arguments as the one before
/// reuses its chunker after comparing the two dicts (well under a microsecond); other repeated
/// configurations are found by their arguments' JSON (a few microseconds instead of building
/// and checking the configuration again).
pub fn chunker_for_kwargs(
    py: Python<'_>,
    kwargs: Option<&Bound<'_, PyDict>>,
    skip: &[&str],
) -> PyResult<Chunker> {
    // Cloned out of the lock: comparing may run Python code (`__eq__`), which must not run
    // while the lock is held.
    let last = LAST
        .lock()
        .ok()
        .and_then(|l| l.as_ref().map(|(d, c)| (d.clone_ref(py), c.clone())));
    if let Some((dict, chunker)) = last {
        if same_kwargs(kwargs, dict.bind(py), skip) {
            return Ok(chunker);
        }
    }
    let pairs = pairs_except(kwargs, skip)?;
    let key = format!("kw:{}", serde_json::to_string(&pairs).unwrap_or_default());
    let pipeline = match cached(&key) {
        Some(p) => p,
        None => {
            let p = pipeline_for(py, from_pairs(pairs)?)?;
            remember(key, &p);
            p
        }
    };
    let chunker = Chunker::from_pipeline(pipeline);
    let copy = PyDict::new(py);
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            if !skipped(&k, skip) {
                copy.set_item(k, snapshot(&v)?)?;
            }
        }
    }
    if let Ok(mut l) = LAST.lock() {
        *l = Some((copy.unbind(), chunker.clone()));
    }
    Ok(chunker)
}

impl Chunker {
    /// A chunker over an already built pipeline.
    pub fn from_pipeline(pipeline: Arc<Pipeline>) -> Chunker {
        Chunker {
            chunk_config: Arc::from(pipeline.chunker.config()),
            unit: Arc::from(pipeline.unit_name.as_str()),
            pipeline,
        }
    }

    /// Chunk one string as if it were the file `source` (its extension picks the parser; no
    /// source: content sniffing, like stdin).
    pub fn chunk_text_raw(&self, text: String, source: Option<&str>) -> Outcome {
        let input = match source {
            Some(s) => Input::file(s),
            None => Input::Stdin,
        };
        let name = input.source();
        let parsed = self.pipeline.parse_text(input.path(), text);
        let mut doc = match parsed {
            Ok(d) => d,
            Err(e) => {
                return Outcome::Failed(PyErrKind::Read(anyhow::anyhow!("{name}: {e}")));
            }
        };
        let warnings = std::mem::take(&mut doc.warnings);
        let p = &self.pipeline;
        if p.chunker.reads_only_locations()
            && p.context.is_none()
            && p.late.is_none()
            && chunklab_parse::ocr::page_confidences(&doc.metadata).is_empty()
        {
            return chunk_lazily(self, &input, doc, warnings);
        }
        process(self, &input, Prepared::Parsed(doc, warnings))
    }

    fn run_files(&self, inputs: &[Input]) -> Vec<Outcome> {
        inputs
            .par_iter()
            .map(|input| match self.pipeline.prepare(input, false) {
                Ok(prepared) => process(self, input, prepared),
                Err(Skip::Binary) => Outcome::Binary(input.source()),
                Err(Skip::Error(e)) => Outcome::Failed(PyErrKind::Read(e)),
            })
            .collect()
    }
}

/// Chunk a prepared input and keep owned records (the text moves out of `prepared`).
fn process(chunker: &Chunker, input: &Input, prepared: Prepared) -> Outcome {
    let pipeline = &chunker.pipeline;
    let source = input.source();
    let (records, ids, warnings): (Vec<Record>, Vec<String>, Vec<String>) =
        match pipeline.process(input, &source, &prepared) {
            Ok(p) => {
                let (r, i) = DocChunks::records(p.chunks, p.vectors);
                (r, i, p.warnings)
            }
            Err(Skip::Binary) => return Outcome::Binary(source),
            Err(Skip::Error(e)) => return Outcome::Failed(PyErrKind::Chunk(e)),
        };
    let text = match prepared {
        Prepared::Parsed(doc, _) => doc.text,
        Prepared::Plain(t) => t.as_str().to_string(),
    };
    Outcome::Done(
        DocChunks::new(
            records,
            ids,
            text,
            input.doc_id(),
            &source,
            chunker.unit.clone(),
        ),
        warnings,
    )
}

/// What [`process`] gives a document that needs no context, late chunking or OCR marks and
/// whose chunker reads only locations, with ids computed only when read
/// ([`DocChunks::from_parts`]).
fn chunk_lazily(
    chunker: &Chunker,
    input: &Input,
    doc: ParsedDocument,
    warnings: Vec<String>,
) -> Outcome {
    let source = input.source();
    let parts = match chunker.pipeline.chunker.chunk_parsed(&doc) {
        Ok(parts) => parts,
        Err(e) => {
            let e = anyhow::Error::from(e);
            return Outcome::Failed(PyErrKind::Chunk(anyhow::anyhow!("{source}: {e:#}")));
        }
    };
    if parts.iter().any(|(_, m)| m.parent_index.is_some()) {
        // Hierarchical chunks need their parents' ids now.
        return process(chunker, input, Prepared::Parsed(doc, warnings));
    }
    let config = chunker.chunk_config.clone();
    let strategy = chunker.pipeline.chunker.strategy();
    let doc_id = input.doc_id();
    let is_text = doc.format == "text";
    let unit = chunker.unit.clone();
    let mut chunks =
        DocChunks::from_parts(parts, doc.text, config, strategy, doc_id, &source, unit);
    chunks.text_is_input = is_text;
    Outcome::Done(chunks, warnings)
}

/// Emit a `UserWarning`.
pub fn warn(py: Python<'_>, msg: &str) -> PyResult<()> {
    let msg = CString::new(msg.replace('\0', " ")).unwrap_or_default();
    PyErr::warn(py, &py.get_type::<PyUserWarning>(), &msg, 1)
}

/// What `chunk_files` does with a document that cannot be read, parsed or chunked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OnError {
    /// Raise the first failure (in input order); no chunks are returned.
    Raise,
    /// Warn (a `UserWarning` naming the file and the problem) and return the other
    /// documents' chunks, as `chunklab chunk` reports and goes on.
    Warn,
}

impl OnError {
    /// The `errors` keyword: `"raise"` or `"warn"`.
    pub fn parse(s: &str) -> PyResult<OnError> {
        match s {
            "raise" => Ok(OnError::Raise),
            "warn" => Ok(OnError::Warn),
            other => Err(crate::errors::config_error(
                "errors",
                &format!("`{other}`: give \"raise\" (the default) or \"warn\""),
            )),
        }
    }
}

/// Turn outcomes into Python chunks (warnings for parser notes and skipped binary files; a
/// failure is raised, the first in input order, or with [`OnError::Warn`] warned about).
fn collect(
    py: Python<'_>,
    outcomes: Vec<Outcome>,
    on_error: OnError,
) -> PyResult<Bound<'_, PyList>> {
    let out = PyList::empty(py);
    let mut first_error = None;
    for o in outcomes {
        match o {
            Outcome::Done(doc, warnings) => {
                for w in warnings {
                    warn(py, &format!("{}: {w}", doc.doc.source))?;
                }
                doc.into_py(py, &out)?;
            }
            Outcome::Binary(name) => warn(py, &format!("{name}: binary file skipped"))?,
            Outcome::Failed(e) if on_error == OnError::Warn => {
                let e = e.into_py();
                warn(py, &e.value(py).to_string())?;
            }
            Outcome::Failed(e) => {
                if first_error.is_none() {
                    first_error = Some(e);
                }
            }
        }
    }
    match first_error {
        Some(e) => Err(e.into_py()),
        None => Ok(out),
    }
}

/// Chunk `text` with `chunker` (GIL released while chunking).
/// `original`: the Python string `text` came from; where the document text is that string
/// (plain text without a byte order mark), chunk texts are sliced from it by char offsets.
pub fn chunk_text<'py>(
    py: Python<'py>,
    chunker: &Chunker,
    text: String,
    original: &Bound<'py, PyString>,
    source: Option<String>,
) -> PyResult<Bound<'py, PyList>> {
    let input_len = text.len();
    let mut outcome = py.detach(|| chunker.chunk_text_raw(text, source.as_deref()));
    if let Outcome::Done(chunks, _) = &mut outcome {
        chunks.share_python_text(original, input_len);
    }
    collect(py, vec![outcome], OnError::Raise)
}

/// Chunk files and directories with `chunker`, in parallel with the GIL released.
pub fn chunk_paths<'py>(
    py: Python<'py>,
    chunker: &Chunker,
    paths: Vec<String>,
    on_error: OnError,
) -> PyResult<Bound<'py, PyList>> {
    let outcomes = py.detach(|| {
        let inputs = chunker.pipeline.collect(&paths)?;
        Ok::<_, anyhow::Error>(chunker.run_files(&inputs))
    });
    let outcomes = outcomes.map_err(read_error)?;
    collect(py, outcomes, on_error)
}

#[pymethods]
impl Chunker {
    #[new]
    #[pyo3(signature = (**config))]
    fn py_new(py: Python<'_>, config: Option<&Bound<'_, PyDict>>) -> PyResult<Chunker> {
        let cfg = from_kwargs(config)?;
        let pipeline = Arc::new(py.detach(|| Pipeline::new(cfg)).map_err(pipeline_error)?);
        Ok(Chunker::from_pipeline(pipeline))
    }

    /// Chunk a string. `source`: a file name whose extension picks the parser (`"a.md"`,
    /// `"b.html"`) and that the chunks carry as `source`/`doc_id`; without it the content is
    /// sniffed like stdin (`doc_id` "stdin", `source` "-").
    #[pyo3(signature = (text, source=None))]
    fn chunk<'py>(
        &self,
        py: Python<'py>,
        text: &Bound<'py, PyString>,
        source: Option<PathBuf>,
    ) -> PyResult<Bound<'py, PyList>> {
        let source = source.map(|p| p.to_string_lossy().into_owned());
        chunk_text(py, self, crate::convert::str_to_string(text)?, text, source)
    }

    /// Chunk files and directories (walked recursively, sorted; hidden and .gitignored files
    /// skipped as by the CLI), in parallel with the GIL released. Returns the chunks of every
    /// document in input order. A document that cannot be read, parsed or chunked raises
    /// (`errors="raise"`, the first in input order), or with `errors="warn"` is a
    /// `UserWarning` naming it while the other documents' chunks are returned.
    #[pyo3(signature = (paths, *, errors="raise"))]
    fn chunk_files<'py>(
        &self,
        py: Python<'py>,
        paths: &Bound<'py, PyAny>,
        errors: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let on_error = OnError::parse(errors)?;
        let paths = crate::convert::paths(paths)?;
        chunk_paths(py, self, paths, on_error)
    }

    /// The configuration, as a dict with the configuration's keys (`chunking`, `reading`, ...).
    #[getter]
    fn config<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = serde_json::to_value(&self.pipeline.config).unwrap_or_default();
        json_to_py(py, &v)
    }

    /// The size unit's name (`chars`, `words`, `cl100k`, ...).
    #[getter]
    fn unit(&self) -> &str {
        &self.unit
    }

    /// The chunker's own description (`recursive size=512 ...`).
    fn __repr__(&self) -> String {
        format!("Chunker({})", self.pipeline.chunker.config())
    }

    /// `pickle` support: the typed configuration as JSON, built again when loaded (checked
    /// again, models loaded through the pipeline cache), so a `Chunker` — and the LangChain
    /// and LlamaIndex wrappers holding one — crosses into worker processes with its settings.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let build = py
            .import("chunklab._chunklab")?
            .getattr("_chunker_from_config")?;
        let json = serde_json::to_string(&self.pipeline.config)
            .map_err(|e| pyo3::exceptions::PyValueError::new_err(e.to_string()))?;
        Ok((build, (json,)))
    }
}

/// The `Chunker` a pickled one's configuration (JSON of [`PipelineConfig`]) describes.
#[pyfunction(name = "_chunker_from_config")]
pub fn chunker_from_config(py: Python<'_>, json: &str) -> PyResult<Chunker> {
    let cfg: PipelineConfig = serde_json::from_str(json)
        .map_err(|e| crate::errors::ConfigError::new_err(format!("config: {e}")))?;
    Ok(Chunker::from_pipeline(pipeline_for(py, cfg)?))
}

/// Does `path` exist? (An `OSError` naming it otherwise.)
pub fn check_exists(path: &Path) -> PyResult<()> {
    match std::fs::metadata(path) {
        Ok(_) => Ok(()),
        Err(e) => Err(read_error(
            anyhow::Error::new(e).context(format!("{}: cannot read", path.display())),
        )),
    }
}
