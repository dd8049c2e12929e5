//! The configuration in flat keys — the CLI's flag names with `_` for `-` (`size`, `ocr_lang`,
//! `context_prompt`) — as Python's keyword arguments and the HTTP server's request fields spell
//! it. [`from_flat`] routes each key to its place in the nested [`PipelineConfig`] and names the
//! key whose value is refused; the faces only turn its [`FlatError`] into their own errors.
//!
//! ```
//! use chunklab_pipeline::flat::{from_flat, FlatError};
//! use serde_json::json;
//! let cfg = from_flat(vec![
//!     ("strategy".into(), json!("headings")),
//!     ("ocr".into(), json!("never")),
//!     ("ocr_lang".into(), json!("nld")),
//! ])
//! .unwrap();
//! assert_eq!(cfg.reading.ocr.lang, "nld");
//! let e = from_flat(vec![("ocr_timeout".into(), json!(-1))]).unwrap_err();
//! assert!(matches!(e, FlatError::Value { ref key, .. } if key == "ocr_timeout"), "{e}");
//! let e = from_flat(vec![("colour".into(), json!("blue"))]).unwrap_err();
//! assert_eq!(e, FlatError::Unknown("colour".into()));
//! ```

use crate::config::PipelineConfig;
use chunklab_core::config::KEYS;
use serde_json::{Map, Value};

/// Where a flat key that is not a [`ChunkConfig`](chunklab_core::ChunkConfig) key goes: the
/// section of [`PipelineConfig`] (`None`: the top level; `ocr`: the table inside `reading`) and
/// the key in it.
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

/// The flat keys that decide how one document is read and parsed (`chunklab parse`'s flags):
/// the reading keys less `include` and `exclude`, which select files of a directory.
pub const DOCUMENT_READING_KEYS: &[&str] = &[
    "parser",
    "encoding",
    "lossy",
    "ocr",
    "ocr_lang",
    "ocr_min_confidence",
    "ocr_timeout",
    "ocr_preprocess",
    "max_elements",
    "max_expanded_mb",
];

/// Every flat key: the [`ChunkConfig`](chunklab_core::ChunkConfig) keys, then the pipeline's.
pub fn keys() -> Vec<&'static str> {
    KEYS.iter()
        .copied()
        .chain(PIPELINE_KEYS.iter().map(|(k, _, _)| *k))
        .collect()
}

/// The default value of the flat key `key` (`None` for an unknown key; `Some(Null)` for an
/// option unset by default), read from [`PipelineConfig::default`].
///
/// ```
/// use chunklab_pipeline::flat::default_value;
/// assert_eq!(default_value("ocr_lang"), Some(serde_json::json!("nld+eng")));
/// assert_eq!(default_value("size"), Some(serde_json::json!(1000)));
/// assert_eq!(default_value("colour"), None);
/// ```
pub fn default_value(key: &str) -> Option<Value> {
    let defaults = serde_json::to_value(PipelineConfig::default()).ok()?;
    if KEYS.contains(&key) {
        return defaults["chunking"].get(key).cloned();
    }
    let (_, section, name) = PIPELINE_KEYS.iter().find(|(k, _, _)| *k == key)?;
    let at = match section {
        None => &defaults,
        Some("ocr") => &defaults["reading"]["ocr"],
        Some(s) => &defaults[*s],
    };
    Some(at.get(*name).cloned().unwrap_or(Value::Null))
}

/// Why flat keys do not make a configuration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FlatError {
    /// A key that is no configuration key.
    #[error("unknown key `{0}`")]
    Unknown(String),
    /// A key whose value is refused (wrong type, unknown variant, out of range).
    #[error("{key}: {message}")]
    Value {
        /// The flat key.
        key: String,
        /// What is wrong with its value.
        message: String,
    },
    /// Keys that do not go together.
    #[error("{0}")]
    Conflict(String),
}

/// The configuration that the flat `pairs` spell; keys not given keep their defaults.
pub fn from_flat(pairs: Vec<(String, Value)>) -> Result<PipelineConfig, FlatError> {
    let root = nest(&pairs)?;
    serde_json::from_value::<PipelineConfig>(root).map_err(|e| {
        // Name the key whose value serde refused: each key alone, in the order given.
        pairs
            .iter()
            .find_map(|(k, v)| {
                let alone = nest_alone(k, v).ok()?;
                let e = serde_json::from_value::<PipelineConfig>(alone).err()?;
                Some(FlatError::Value {
                    key: k.clone(),
                    message: in_plain_types(&e.to_string()),
                })
            })
            .unwrap_or_else(|| FlatError::Conflict(in_plain_types(&e.to_string())))
    })
}

/// A serde message with Rust's number types in the words of a Python or JSON user (the faces
/// that read JSON fields of their own, such as the server's search fields, use it too):
/// `invalid value: integer \`-1\`, expected usize` says `expected a whole number, 0 or more`.
///
/// ```
/// # use chunklab_pipeline::flat::{from_flat, FlatError};
/// # use serde_json::json;
/// let e = from_flat(vec![("overlap".into(), json!(-1))]).unwrap_err();
/// assert_eq!(e.to_string(), "overlap: invalid value: integer `-1`, expected a whole number, 0 or more");
/// let e = from_flat(vec![("size".into(), json!(2.5))]).unwrap_err();
/// assert_eq!(e.to_string(), "size: invalid type: floating point `2.5`, expected a whole number, 0 or more");
/// ```
pub fn in_plain_types(message: &str) -> String {
    let mut out = message.to_string();
    for (rust, plain) in [
        ("expected usize", "expected a whole number, 0 or more"),
        ("expected u64", "expected a whole number, 0 or more"),
        ("expected u32", "expected a whole number, 0 or more"),
        ("expected u16", "expected a whole number, 0 or more"),
        ("expected u8", "expected a whole number, 0 or more"),
        ("expected i64", "expected a whole number"),
        ("expected i32", "expected a whole number"),
        ("expected f64", "expected a number"),
        ("expected f32", "expected a number"),
    ] {
        // Only the whole word: `expected u8` is not inside `expected u80`.
        if let Some(at) = out.find(rust) {
            let after = out[at + rust.len()..].chars().next();
            if !after.is_some_and(|c| c.is_ascii_alphanumeric()) {
                out.replace_range(at..at + rust.len(), plain);
            }
        }
    }
    out
}

/// `key = v` alone as a nested configuration (a context key other than `context` gets the
/// `header` kind it needs to be read).
fn nest_alone(key: &str, v: &Value) -> Result<Value, FlatError> {
    let mut pairs = vec![(key.to_string(), v.clone())];
    if key.starts_with("context_") {
        pairs.push(("context".into(), Value::String("header".into())));
    }
    nest(&pairs)
}

/// The nested JSON of [`PipelineConfig`] that the flat `pairs` spell.
fn nest(pairs: &[(String, Value)]) -> Result<Value, FlatError> {
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
            chunking.insert(key.clone(), v.clone());
            continue;
        }
        let Some((_, section, name)) = PIPELINE_KEYS.iter().find(|(k, _, _)| k == key) else {
            return Err(FlatError::Unknown(key.clone()));
        };
        let map = match section {
            None => &mut root,
            Some(s) => {
                &mut sections
                    .iter_mut()
                    .find(|(n, _)| n == s)
                    .expect("a section of the table")
                    .1
            }
        };
        map.insert(name.to_string(), v.clone());
    }
    let [(_, mut reading), (_, ocr), (_, llm), (_, context)] = sections;
    if !ocr.is_empty() {
        // The OCR options are a table inside the reading section (`--ocr*` flags).
        reading.insert("ocr".into(), Value::Object(ocr));
    }
    if !context.is_empty() && !context.contains_key("kind") {
        return Err(FlatError::Conflict(
            "context_prompt, context_max_tokens, context_fallback and context_doc_tokens apply \
             with context \"header\" or \"llm\""
                .into(),
        ));
    }
    root.insert("chunking".into(), Value::Object(chunking));
    root.insert("reading".into(), Value::Object(reading));
    root.insert("llm".into(), Value::Object(llm));
    if !context.is_empty() {
        root.insert("context".into(), Value::Object(context));
    }
    Ok(Value::Object(root))
}
