//! Reading a request body — JSON or a multipart form — into fields and uploads, mapping those
//! fields onto the pipeline's own typed configuration, and writing the documents where the
//! pipeline reads them.

use crate::error::ApiError;
use crate::state::AppState;
use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::header;
use chunklab_pipeline::flat::FlatError;
use chunklab_pipeline::{Input, PipelineConfig, ReadingConfig};
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};
use std::path::PathBuf;

/// A request body: its fields (JSON keys or form fields) and uploaded files.
pub(crate) struct Body {
    pub fields: Map<String, Value>,
    pub files: Vec<Upload>,
}

/// One uploaded file.
pub(crate) struct Upload {
    pub filename: String,
    pub bytes: Bytes,
}

/// Read a JSON object or a multipart form (fields as JSON values when they parse as JSON —
/// `size=512` is a number, `separators=["\n\n"]` a list — else as strings; a field sent more
/// than once is the list of its values; parts with a file name are uploads).
pub(crate) async fn read_body(state: &AppState, req: Request) -> Result<Body, ApiError> {
    let ctype = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    if ctype.starts_with("multipart/form-data") {
        let mut form = Multipart::from_request(req, &())
            .await
            .map_err(|r| ApiError::bad_request(format!("multipart form: {}", r.body_text())))?;
        let mut body = Body {
            fields: Map::new(),
            files: Vec::new(),
        };
        let mut repeated = std::collections::HashSet::new();
        loop {
            let field = match form.next_field().await {
                Ok(Some(f)) => f,
                Ok(None) => break,
                Err(e) => return Err(multipart_error(state, e)),
            };
            let name = field.name().unwrap_or("").to_string();
            let filename = field.file_name().map(str::to_string);
            let bytes = field.bytes().await.map_err(|e| multipart_error(state, e))?;
            match filename {
                Some(filename) => body.files.push(Upload { filename, bytes }),
                None if name == "file" => body.files.push(Upload {
                    filename: "upload".into(),
                    bytes,
                }),
                None => {
                    let text = std::str::from_utf8(&bytes).map_err(|_| {
                        ApiError::bad_request(format!("form field `{name}` is not UTF-8"))
                    })?;
                    let value = serde_json::from_str::<Value>(text)
                        .ok()
                        .filter(|v| !v.is_string())
                        .unwrap_or_else(|| Value::String(text.to_string()));
                    // A field given again is a list, as HTML forms send several values
                    // (`-F acl=team-a -F acl=team-b`); the earlier values are kept.
                    match body.fields.get_mut(&name) {
                        Some(Value::Array(list)) if repeated.contains(&name) => list.push(value),
                        Some(first) => {
                            *first = Value::Array(vec![first.take(), value]);
                            repeated.insert(name);
                        }
                        None => {
                            body.fields.insert(name, value);
                        }
                    }
                }
            }
        }
        return Ok(body);
    }
    if !(ctype.is_empty() || ctype.starts_with("application/json")) {
        return Err(ApiError::bad_request(format!(
            "content-type `{ctype}`: send application/json or multipart/form-data"
        )));
    }
    let bytes = Bytes::from_request(req, &()).await.map_err(|r| {
        if r.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
            too_large(state.limits.body_bytes, "body")
        } else {
            ApiError::bad_request(r.body_text())
        }
    })?;
    if bytes.len() > state.limits.body_bytes {
        return Err(too_large(state.limits.body_bytes, "JSON body"));
    }
    match serde_json::from_slice::<TopLevel>(&bytes) {
        Ok(TopLevel(fields)) => Ok(Body {
            fields,
            files: Vec::new(),
        }),
        Err(_) if serde_json::from_slice::<Value>(&bytes).is_ok_and(|v| !v.is_object()) => {
            Err(ApiError::bad_request("the body must be a JSON object"))
        }
        Err(e) if e.is_data() => Err(ApiError::bad_request(format!("the body {e}"))),
        Err(e) => Err(ApiError::bad_request(format!("the body is not JSON: {e}"))),
    }
}

/// A body's top-level JSON object, refused when it is no object or gives a field twice
/// (`{"text": "a", "text": "b"}`: which one was meant? serde_json would keep the last).
struct TopLevel(Map<String, Value>);

impl<'de> serde::Deserialize<'de> for TopLevel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields;
        impl<'de> serde::de::Visitor<'de> for Fields {
            type Value = TopLevel;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<TopLevel, A::Error> {
                let mut fields = Map::new();
                while let Some(key) = map.next_key::<String>()? {
                    if fields.contains_key(&key) {
                        return Err(serde::de::Error::custom(format!("gives `{key}` twice")));
                    }
                    let value = map.next_value::<Value>()?;
                    fields.insert(key, value);
                }
                Ok(TopLevel(fields))
            }
        }
        d.deserialize_map(Fields)
    }
}

fn too_large(limit: usize, what: &str) -> ApiError {
    ApiError::too_large(format!(
        "the {what} is larger than the server's limit of {} bytes",
        limit
    ))
}

fn multipart_error(state: &AppState, e: axum::extract::multipart::MultipartError) -> ApiError {
    if e.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
        too_large(state.limits.upload_bytes, "upload")
    } else {
        ApiError::bad_request(format!("multipart form: {}", e.body_text()))
    }
}

/// Take `key` out of `fields` as a `T`; a wrong type is a 422 naming the key.
pub(crate) fn take<T: DeserializeOwned>(
    fields: &mut Map<String, Value>,
    key: &str,
) -> Result<Option<T>, ApiError> {
    match fields.remove(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => serde_json::from_value(v)
            .map(Some)
            .map_err(|e| ApiError::invalid(format!("invalid `{key}`: {}", plain(&e)))),
    }
}

/// serde's message in a JSON user's words (`expected a whole number, 0 or more`, not `usize`).
fn plain(e: &serde_json::Error) -> String {
    chunklab_pipeline::flat::in_plain_types(&e.to_string())
}

/// Deserialize what is left of `fields` into `T` (a `deny_unknown_fields` configuration); on
/// error, the message names the offending key.
pub(crate) fn into_config<T: DeserializeOwned>(fields: Map<String, Value>) -> Result<T, ApiError> {
    match serde_json::from_value::<T>(Value::Object(fields.clone())) {
        Ok(c) => Ok(c),
        Err(e) => {
            for (k, v) in &fields {
                let mut one = Map::new();
                one.insert(k.clone(), v.clone());
                if let Err(e1) = serde_json::from_value::<T>(Value::Object(one)) {
                    return Err(ApiError::invalid(format!("invalid `{k}`: {}", plain(&e1))));
                }
            }
            Err(ApiError::invalid(format!(
                "invalid configuration: {}",
                plain(&e)
            )))
        }
    }
}

/// Why the server does not take the CLI's key `key` (`None`: it does).
fn refused(key: &str) -> Option<&'static str> {
    match key {
        k if k == "llm" || k.starts_with("llm_") => Some("language models are not served"),
        k if k == "context" || k.starts_with("context_") => {
            Some("contextual retrieval needs a language model or a prompt file")
        }
        "fetch" => Some("the server never downloads models"),
        "include" | "exclude" => {
            Some("the server chunks the documents sent, it walks no directory")
        }
        _ => None,
    }
}

/// The configuration the request's flat `fields` spell ([`chunklab_pipeline::flat`]: the
/// CLI's flag names with `_`); a field that is none of `allowed` is a 422 listing them, a
/// refused value a 422 naming its key.
fn flat_config(fields: Map<String, Value>, allowed: &[&str]) -> Result<PipelineConfig, ApiError> {
    if let Some(k) = fields.keys().find(|k| !allowed.contains(&k.as_str())) {
        let known: Vec<String> = allowed.iter().map(|a| format!("`{a}`")).collect();
        return Err(ApiError::invalid(format!(
            "invalid `{k}`: unknown field `{k}`, expected one of {}",
            known.join(", ")
        )));
    }
    chunklab_pipeline::flat::from_flat(fields.into_iter().collect()).map_err(|e| match e {
        FlatError::Unknown(k) => ApiError::invalid(format!("invalid `{k}`: unknown field `{k}`")),
        FlatError::Value { key, message } => {
            ApiError::invalid(format!("invalid `{key}`: {message}"))
        }
        FlatError::Conflict(message) => ApiError::invalid(message),
    })
}

/// How one document is read (`POST /v1/parse`): the reading fields only (`parser`,
/// `encoding`, `lossy`, the OCR options, the container limits).
pub(crate) fn reading_config(fields: Map<String, Value>) -> Result<ReadingConfig, ApiError> {
    Ok(flat_config(fields, chunklab_pipeline::flat::DOCUMENT_READING_KEYS)?.reading)
}

/// The pipeline configuration the request's fields spell: the reading keys (`parser`,
/// `encoding`, `lossy`, the OCR options, the container limits), `model` (only the served
/// one), and every [`chunklab_core::ChunkConfig`] key.
pub(crate) fn pipeline_config(
    mut fields: Map<String, Value>,
    served_model: Option<&str>,
) -> Result<PipelineConfig, ApiError> {
    if let Some((key, why)) = fields.keys().find_map(|k| Some((k, refused(k)?))) {
        return Err(ApiError::invalid(format!(
            "`{key}` is not available through the server: {why}"
        )));
    }
    let model: Option<String> = take(&mut fields, "model")?;
    if let Some(m) = &model {
        if served_model != Some(m.as_str()) {
            return Err(ApiError::invalid(format!(
                "invalid `model`: `{m}` is not served here ({})",
                served_model.map_or("this server serves no model".into(), |s| format!(
                    "the server serves `{s}`"
                ))
            )));
        }
    }
    if let Some(Value::String(t)) = fields.get("tokenizer") {
        if t.contains('/') || t.contains('\\') || t.ends_with(".json") {
            return Err(ApiError::invalid(format!(
                "invalid `tokenizer`: `{t}` is a path; the server takes a tokenizer name (cl100k, o200k) or the served model"
            )));
        }
    }
    let allowed: Vec<&str> = chunklab_pipeline::flat::keys()
        .into_iter()
        .filter(|k| refused(k).is_none() && *k != "model")
        .collect();
    let cfg = flat_config(fields, &allowed)?;
    cfg.chunking
        .validate()
        .map_err(|e| ApiError::invalid(e.to_string()))?;
    Ok(PipelineConfig { model, ..cfg })
}

/// One document of a request: a display name (`source`), an id and its bytes.
pub(crate) struct Doc {
    pub doc_id: String,
    pub source: String,
    pub bytes: Vec<u8>,
}

/// The documents of a request: `text`, `texts` (ids `doc_id`-0, -1 ... or text-N) or the uploads.
pub(crate) fn documents(body: &mut Body, max: usize) -> Result<Vec<Doc>, ApiError> {
    let text: Option<String> = take(&mut body.fields, "text")?;
    let texts: Option<Vec<String>> = take(&mut body.fields, "texts")?;
    let source: Option<String> = take(&mut body.fields, "source")?;
    let doc_id: Option<String> = take(&mut body.fields, "doc_id")?;
    let given =
        text.is_some() as usize + texts.is_some() as usize + (!body.files.is_empty()) as usize;
    if given != 1 {
        return Err(ApiError::invalid(
            "give exactly one of `text` (a string), `texts` (a list of strings) or a multipart `file`",
        ));
    }
    let mut docs = Vec::new();
    if let Some(t) = text {
        let source = source.unwrap_or_else(|| "text".into());
        docs.push(Doc {
            doc_id: doc_id.unwrap_or_else(|| source.clone()),
            source,
            bytes: t.into_bytes(),
        });
    } else if let Some(ts) = texts {
        let base = doc_id.or(source).unwrap_or_else(|| "text".into());
        for (i, t) in ts.into_iter().enumerate() {
            docs.push(Doc {
                doc_id: format!("{base}-{i}"),
                source: format!("{base}-{i}"),
                bytes: t.into_bytes(),
            });
        }
    } else {
        for (i, f) in std::mem::take(&mut body.files).into_iter().enumerate() {
            let name = source.clone().unwrap_or_else(|| f.filename.clone());
            docs.push(Doc {
                doc_id: match (&doc_id, i) {
                    (Some(d), 0) => d.clone(),
                    (Some(d), i) => format!("{d}-{i}"),
                    (None, _) => name.clone(),
                },
                source: name,
                bytes: f.bytes.to_vec(),
            });
        }
    }
    if let Some(d) = docs.iter().find(|d| d.doc_id.is_empty()) {
        return Err(ApiError::invalid(if d.source.is_empty() {
            "invalid `doc_id`: the document has no id; give `doc_id` (or `source`, or a file name)"
        } else {
            "invalid `doc_id`: must not be empty"
        }));
    }
    if docs.len() > max {
        return Err(ApiError::invalid(format!(
            "{} documents in one request; the server takes at most {max}",
            docs.len()
        )));
    }
    Ok(docs)
}

/// Documents written where the pipeline reads them (a private temporary directory, removed
/// when dropped), named after their source so the parser is chosen by extension and content.
pub(crate) struct Staged {
    _dir: tempfile::TempDir,
    /// (input, display name) per document.
    pub inputs: Vec<(Input, String)>,
    paths: Vec<PathBuf>,
}

impl Staged {
    /// Write `docs` to a new temporary directory.
    pub fn new(docs: Vec<Doc>) -> Result<Staged, ApiError> {
        let dir = tempfile::Builder::new()
            .prefix("chunklab-serve-")
            .tempdir()
            .map_err(|e| ApiError::internal(format!("cannot create a temporary directory: {e}")))?;
        let mut inputs = Vec::new();
        let mut paths = Vec::new();
        for (i, d) in docs.into_iter().enumerate() {
            let sub = dir.path().join(i.to_string());
            let path = sub.join(safe_name(&d.source));
            std::fs::create_dir_all(&sub)
                .and_then(|()| std::fs::write(&path, &d.bytes))
                .map_err(|e| ApiError::internal(format!("cannot stage the document: {e}")))?;
            paths.push(path.clone());
            inputs.push((
                Input::File {
                    path,
                    doc_id: d.doc_id,
                },
                d.source,
            ));
        }
        Ok(Staged {
            _dir: dir,
            inputs,
            paths,
        })
    }

    /// A pipeline message about document `i` with its temporary path replaced by its name.
    pub fn message(&self, i: usize, msg: String) -> String {
        let path = self.paths[i].display().to_string();
        msg.replace(&path, &self.inputs[i].1)
    }
}

/// The last path component of `name`, restricted to safe characters (the extension kept).
fn safe_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let clean: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                c
            } else {
                '_'
            }
        })
        .take(100)
        .collect();
    let clean = clean.trim_start_matches('.').to_string();
    if clean.is_empty() {
        "document".into()
    } else {
        clean
    }
}
