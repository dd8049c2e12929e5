//! `chunklab.queries_generate`: synthetic evaluation queries through the library's
//! [`generate_queries`] (what `chunklab queries generate` runs), with the GIL released.

use crate::chunker::warn;
use crate::convert::{json_to_py, paths};
use chunklab_pipeline::queries::generate_queries;
use chunklab_pipeline::LlmConfig;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use pyo3::types::{PyAny, PyList};

/// Ask the language model `llm` (local:smollm2, local:PATH.gguf, openai:BASE_URL#MODEL,
/// anthropic:MODEL) for up to `n` questions over the text files under `paths`, keeping those
/// whose supporting excerpt is found verbatim and that pass the quality gates. Returns the
/// records `chunklab queries generate` writes (`id`, `query`, `relevant_docs`,
/// `relevant_spans`); skipped files and the model's usage are `UserWarning`s. Raises
/// `RuntimeError` with the CLI's reason when nothing, or fewer than half, of the answers are
/// kept.
#[pyfunction]
#[pyo3(signature = (paths, *, llm, n=100, fetch=false, llm_no_cache=false, llm_concurrency=4))]
pub fn queries_generate<'py>(
    py: Python<'py>,
    paths: &Bound<'py, PyAny>,
    llm: String,
    n: usize,
    fetch: bool,
    llm_no_cache: bool,
    llm_concurrency: usize,
) -> PyResult<Bound<'py, PyList>> {
    let paths = self::paths(paths)?;
    let cfg = LlmConfig {
        spec: Some(llm),
        no_cache: llm_no_cache,
        concurrency: llm_concurrency,
    };
    let g = py
        .detach(|| generate_queries(&paths, &cfg, fetch, n))
        .map_err(|e| {
            // A spec that does not parse names `llm`; a model that cannot be loaded its spec.
            if crate::errors::names_a_param(&e) || format!("{e:#}").starts_with("llm ") {
                crate::errors::pipeline_error(e)
            } else {
                crate::errors::read_error(e)
            }
        })?;
    for w in &g.warnings {
        warn(py, w)?;
    }
    if let Some(why) = g.failure() {
        return Err(PyRuntimeError::new_err(format!(
            "queries generate: {why} ({}; {})",
            g.stats, g.usage
        )));
    }
    let out = PyList::empty(py);
    for q in &g.queries {
        out.append(json_to_py(py, &q.to_json())?)?;
    }
    Ok(out)
}
