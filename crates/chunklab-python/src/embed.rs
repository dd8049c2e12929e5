//! `chunklab.embed`: texts → vectors through the library's embedding models (the model
//! `chunklab embed` and `chunklab index` load), with the GIL released. Loaded models are kept
//! for the next call.

use crate::errors::{ChunkError, ConfigError};
use chunklab_embed::{Embedder, Role};
use chunklab_pipeline::load_model;
use pyo3::prelude::*;
use std::sync::{Arc, Mutex};

/// Models loaded by earlier calls, by name.
static MODELS: Mutex<Vec<(String, Arc<dyn Embedder>)>> = Mutex::new(Vec::new());

/// Load `spec` (or reuse it), without the GIL.
fn model(py: Python<'_>, spec: &str, fetch: bool) -> PyResult<Arc<dyn Embedder>> {
    if let Some(m) = MODELS
        .lock()
        .ok()
        .and_then(|c| c.iter().find(|(k, _)| k == spec).map(|(_, m)| m.clone()))
    {
        return Ok(m);
    }
    let loaded = py
        .detach(|| load_model(spec, fetch))
        .map_err(|e| ConfigError::new_err(crate::errors::spelled(&e)))?;
    if let Ok(mut c) = MODELS.lock() {
        if c.len() >= 4 {
            c.remove(0);
        }
        c.push((spec.to_string(), loaded.model.clone()));
    }
    Ok(loaded.model)
}

/// Embed `texts` with `model` (a name from `chunklab models list` or a model directory), as
/// passages or, with `query`, as search queries (adding the model's query prefix). Returns one
/// list of floats per text, as `chunklab embed --json` prints them; the GIL is released.
#[pyfunction]
#[pyo3(signature = (texts, *, model="minilm", query=false, fetch=false))]
pub fn embed(
    py: Python<'_>,
    texts: Vec<String>,
    model: &str,
    query: bool,
    fetch: bool,
) -> PyResult<Vec<Vec<f32>>> {
    let m = self::model(py, model, fetch)?;
    if texts.is_empty() {
        return Ok(Vec::new());
    }
    let role = if query { Role::Query } else { Role::Passage };
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let (vectors, cut) = py
        .detach(|| {
            m.embed(&refs, role)
                .map(|v| (v, chunklab_embed::truncated(m.as_ref(), &refs)))
        })
        .map_err(|e| ChunkError::new_err(format!("embedding with {model}: {e:#}")))?;
    // Never silently in part: a text past the window has only its head in its vector.
    for t in cut {
        crate::chunker::warn(py, &format!("{model}: {t}"))?;
    }
    Ok(vectors)
}
