//! Keyword arguments → the pipeline's one typed configuration. Python spells every option as
//! the CLI flag with `_` for `-` (`chunk(text, strategy="headings", max_level=2)`), which are the
//! serde keys of [`ChunkConfig`] and [`PipelineConfig`]; this file only routes each keyword to
//! its place in the nested configuration and lets serde and [`ChunkConfig::validate`] (through
//! [`chunklab_pipeline::Pipeline::new`]) check the values. Nothing here re-declares a
//! parameter or a default.

use crate::convert::py_to_json;
use crate::errors::{config_error, ConfigError};
use chunklab_core::config::KEYS;
use chunklab_pipeline::PipelineConfig;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::{Map, Value};

/// Where a keyword that is not a [`ChunkConfig`](chunklab_core::ChunkConfig) key goes: the
/// section of [`PipelineConfig`] and the key in it.
const PIPELINE_KEYS: &[(&str, Option<&str>, &str)] = &[
    ("model", None, "model"),
    ("fetch", None, "fetch"),
    ("parser", Some("reading"), "parser"),
    ("encoding", Some("reading"), "encoding"),
    ("lossy", Some("reading"), "lossy"),
    ("include", Some("reading"), "include"),
    ("exclude", Some("reading"), "exclude"),
    ("max_elements", Some("reading"), "max_elements"),
    ("max_expanded_mb", Some("reading"), "max_expanded_mb"),
    ("llm", Some("llm"), "spec"),
    ("llm_no_cache", Some("llm"), "no_cache"),
    ("llm_concurrency", Some("llm"), "concurrency"),
    ("ocr", Some("ocr"), "mode"),
    ("ocr_lang", Some("ocr"), "lang"),
    ("ocr_min_confidence", Some("ocr"), "min_confidence"),
    ("ocr_timeout", Some("ocr"), "timeout_s"),
    ("ocr_preprocess", Some("ocr"), "preprocess"),
    ("context", Some("context"), "kind"),
    ("context_prompt", Some("context"), "prompt"),
    ("context_max_tokens", Some("context"), "max_tokens"),
    ("context_fallback", Some("context"), "fallback"),
    ("context_doc_tokens", Some("context"), "doc_tokens"),
];

/// Every keyword a chunking call takes, in the order `help()` lists them.
pub fn all_keys() -> Vec<&'static str> {
    KEYS.iter()
        .copied()
        .chain(PIPELINE_KEYS.iter().map(|(k, _, _)| *k))
        .collect()
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

/// [`from_kwargs`] over (key, JSON value) pairs.
pub fn from_pairs(pairs: Vec<(String, Value)>) -> PyResult<PipelineConfig> {
    let mut root = Map::new();
    let mut chunking = Map::new();
    let mut sections: [(&str, Map<String, Value>); 4] = [
        ("reading", Map::new()),
        ("ocr", Map::new()),
        ("llm", Map::new()),
        ("context", Map::new()),
    ];
    for (key, v) in pairs {
        if KEYS.contains(&key.as_str()) {
            chunking.insert(key, v);
        } else if let Some((_, section, name)) = PIPELINE_KEYS.iter().find(|(k, _, _)| *k == key) {
            match section {
                None => {
                    root.insert(name.to_string(), v);
                }
                Some(s) => {
                    let m = &mut sections
                        .iter_mut()
                        .find(|(n, _)| n == s)
                        .expect("section")
                        .1;
                    m.insert(name.to_string(), v);
                }
            }
        } else {
            return Err(PyTypeError::new_err(format!(
                "unexpected keyword argument `{key}`; chunklab takes: {}",
                all_keys().join(", ")
            )));
        }
    }
    let [(_, mut reading), (_, ocr), (_, llm), (_, context)] = sections;
    if !ocr.is_empty() {
        // The OCR options are a table inside the reading section (`--ocr*` flags).
        reading.insert("ocr".into(), Value::Object(ocr.clone()));
    }
    if !context.is_empty() && !context.contains_key("kind") {
        return Err(ConfigError::new_err(
            "context_prompt, context_max_tokens, context_fallback and context_doc_tokens apply with context=\"header\" or \"llm\"",
        ));
    }
    root.insert("chunking".into(), Value::Object(chunking.clone()));
    root.insert("reading".into(), Value::Object(reading.clone()));
    root.insert("llm".into(), Value::Object(llm.clone()));
    if !context.is_empty() {
        root.insert("context".into(), Value::Object(context.clone()));
    }
    serde_json::from_value::<PipelineConfig>(Value::Object(root)).map_err(|e| {
        // Name the keyword whose value serde refused: try the keys one at a time.
        let culprit = chunking
            .iter()
            .map(|(k, v)| (k.clone(), wrap("chunking", k, v)))
            .chain(
                reading
                    .iter()
                    .filter(|(k, _)| k.as_str() != "ocr")
                    .map(|(k, v)| (k.clone(), wrap("reading", k, v))),
            )
            .chain(ocr.iter().map(|(k, v)| {
                let name = PIPELINE_KEYS
                    .iter()
                    .find(|(_, s, n)| *s == Some("ocr") && n == k)
                    .map_or_else(|| format!("ocr_{k}"), |(key, _, _)| key.to_string());
                let mut inner = Map::new();
                inner.insert(k.clone(), v.clone());
                (name, wrap("reading", "ocr", &Value::Object(inner)))
            }))
            .chain(
                llm.iter()
                    .map(|(k, v)| (format!("llm_{k}"), wrap("llm", k, v))),
            )
            .chain(
                context
                    .iter()
                    .map(|(k, v)| (format!("context_{k}"), wrap("context", k, v))),
            )
            .find_map(|(k, probe)| {
                serde_json::from_value::<PipelineConfig>(probe)
                    .err()
                    .map(|e| (k, e))
            });
        match culprit {
            Some((k, e)) => {
                let k = match k.as_str() {
                    "llm_spec" => "llm".to_string(),
                    "context_kind" => "context".to_string(),
                    _ => k,
                };
                config_error(&k, &e.to_string())
            }
            None => ConfigError::new_err(e.to_string()),
        }
    })
}

/// A configuration with only `section.key = v` set (the context section needs its kind).
fn wrap(section: &str, key: &str, v: &Value) -> Value {
    let mut inner = Map::new();
    if section == "context" && key != "kind" {
        inner.insert("kind".into(), Value::String("header".into()));
    }
    inner.insert(key.to_string(), v.clone());
    let mut root = Map::new();
    root.insert(section.to_string(), Value::Object(inner));
    Value::Object(root)
}
