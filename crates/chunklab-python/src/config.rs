//! Keyword arguments → the pipeline's one typed configuration. Python spells every option as
//! the CLI flag with `_` for `-` (`chunk(text, strategy="headings", max_level=2)`): the
//! pipeline's flat keys, which [`chunklab_pipeline::flat::from_flat`] routes to their places in
//! the nested configuration (the HTTP server uses the same). This file turns keyword arguments
//! into JSON and the library's errors into Python's; nothing here re-declares a parameter or a
//! default.

use crate::convert::py_to_json;
use crate::errors::{config_error, ConfigError};
use chunklab_pipeline::flat::FlatError;
use chunklab_pipeline::PipelineConfig;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};

/// Every keyword a chunking call takes, in the order `help()` lists them.
pub fn all_keys() -> Vec<&'static str> {
    chunklab_pipeline::flat::keys()
}

/// A keyword argument's value as JSON, with the keyword named in a type error.
fn value(key: &str, v: &Bound<'_, PyAny>) -> PyResult<Value> {
    py_to_json(v).map_err(|e| ConfigError::new_err(format!("{key}: {e}")))
}

/// Keyword arguments as (key, JSON value) pairs; None-valued keywords mean "default" and are
/// left out.
pub fn pairs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<(String, Value)>> {
    pairs_except(kwargs, &[])
}

/// [`pairs`] without the keys in `skip` (a call's own arguments passed by keyword).
pub fn pairs_except(
    kwargs: Option<&Bound<'_, PyDict>>,
    skip: &[&str],
) -> PyResult<Vec<(String, Value)>> {
    let mut pairs = Vec::new();
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            let key: String = k.extract()?;
            if v.is_none() || skip.contains(&key.as_str()) {
                continue;
            }
            pairs.push((key.clone(), value(&key, &v)?));
        }
    }
    Ok(pairs)
}

/// Keyword arguments as one JSON object (for configurations that are flat, like search's).
pub fn to_json_map(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Map<String, Value>> {
    Ok(pairs(kwargs)?.into_iter().collect())
}

/// Build the configuration the keyword arguments spell (None-valued keywords mean "default").
pub fn from_kwargs(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<PipelineConfig> {
    from_pairs(pairs(kwargs)?)
}

/// [`from_kwargs`] over (key, JSON value) pairs: the pipeline's flat keys
/// ([`chunklab_pipeline::flat`]), a refused value a [`ConfigError`] naming its keyword, an
/// unknown keyword a `TypeError` listing them all.
pub fn from_pairs(pairs: Vec<(String, Value)>) -> PyResult<PipelineConfig> {
    chunklab_pipeline::flat::from_flat(pairs).map_err(|e| match e {
        FlatError::Unknown(key) => PyTypeError::new_err(format!(
            "unexpected keyword argument `{key}`; chunklab takes: {}",
            all_keys().join(", ")
        )),
        FlatError::Value { key, message } => config_error(&key, &message),
        FlatError::Conflict(message) => ConfigError::new_err(message),
    })
}
