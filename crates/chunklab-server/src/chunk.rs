//! `POST /v1/chunk` and `POST /v1/parse`: documents in the body (JSON `text`/`texts` or a
//! multipart `file`), cut or parsed by the library pipeline with the configuration the body's
//! keys spell (the `ChunkConfig` keys, as in the CLI and the sweep TOML).

use crate::error::ApiError;
use crate::request::{self, Staged};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::Json;
use chunklab_core::Chunk;
use chunklab_pipeline::{Pipeline, Prepared, Skip};
use serde_json::{json, Value};
use std::sync::atomic::Ordering;
use std::sync::Arc;

/// A chunk as `chunklab chunk` writes it in JSONL: every field of the chunk (meta flattened),
/// `unit`, `context` (null without one) and `embedding` when late chunking gave a vector.
pub fn chunk_json(c: &Chunk<'_>, unit: &str, vector: Option<&[f32]>) -> Value {
    let mut v = serde_json::to_value(c).unwrap_or(Value::Null);
    if let Value::Object(m) = &mut v {
        m.insert("unit".into(), unit.into());
        m.entry("context").or_insert(Value::Null);
        if let Some(e) = vector {
            m.insert("embedding".into(), json!(e));
        }
    }
    v
}

/// Why a document could not be read, with the status: 422 for the client's file.
pub(crate) fn skip_error(staged: &Staged, i: usize, skip: Skip) -> ApiError {
    match skip {
        Skip::Binary => ApiError::new(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            "unsupported_file",
            format!("{}: binary file, and no parser for it", staged.inputs[i].1),
        ),
        Skip::Error(e) => ApiError::new(
            axum::http::StatusCode::UNPROCESSABLE_ENTITY,
            "unreadable_file",
            staged.message(i, format!("{e:#}")),
        ),
    }
}

/// `POST /v1/chunk`.
pub async fn chunk(
    State(state): State<Arc<AppState>>,
    req: Request,
) -> Result<Json<Value>, ApiError> {
    let mut body = request::read_body(&state, req).await?;
    let include_text: bool = request::take(&mut body.fields, "include_text")?.unwrap_or(false);
    let docs = request::documents(&mut body, state.limits.max_texts)?;
    let served = state.index.as_ref().and_then(|ix| ix.model_spec());
    let cfg = request::pipeline_config(std::mem::take(&mut body.fields), served.as_deref())?;
    let st = state.clone();
    let out = state
        .blocking(move || {
            let pipeline = st.pipeline(cfg)?;
            let staged = Staged::new(docs)?;
            run_chunk(&pipeline, &staged, include_text)
        })
        .await?;
    let n = out["chunks"].as_array().map_or(0, Vec::len);
    state
        .metrics
        .chunks_produced
        .fetch_add(n as u64, Ordering::Relaxed);
    Ok(Json(out))
}

fn run_chunk(pipeline: &Pipeline, staged: &Staged, include_text: bool) -> Result<Value, ApiError> {
    let mut chunks = Vec::new();
    let mut documents = Vec::new();
    for (i, (input, source)) in staged.inputs.iter().enumerate() {
        let prepared = pipeline
            .prepare(input, false)
            .map_err(|s| skip_error(staged, i, s))?;
        let doc = pipeline
            .process(input, source, &prepared)
            .map_err(|s| skip_error(staged, i, s))?;
        for (j, c) in doc.chunks.iter().enumerate() {
            let v = doc
                .vectors
                .as_ref()
                .and_then(|v| v.get(j))
                .map(Vec::as_slice);
            chunks.push(chunk_json(c, &pipeline.unit_name, v));
        }
        let mut d = json!({
            "doc_id": input.doc_id(),
            "source": source,
            "chunks": doc.chunks.len(),
            "bytes": doc.bytes,
            "warnings": doc.warnings,
        });
        if include_text {
            d["text"] = prepared.text().into();
        }
        documents.push(d);
    }
    Ok(json!({
        "config": pipeline.chunker.config(),
        "unit": pipeline.unit_name,
        "documents": documents,
        "chunks": chunks,
    }))
}

/// `POST /v1/parse`: the element tree of each document (elements with their spans and text).
pub async fn parse(
    State(state): State<Arc<AppState>>,
    req: Request,
) -> Result<Json<Value>, ApiError> {
    let mut body = request::read_body(&state, req).await?;
    let include_text: bool = request::take(&mut body.fields, "include_text")?.unwrap_or(false);
    let docs = request::documents(&mut body, state.limits.max_texts)?;
    let reading = request::reading_config(std::mem::take(&mut body.fields))?;
    let out = state
        .blocking(move || {
            let reading =
                chunklab_pipeline::Reading::new(&reading).map_err(crate::error::from_anyhow)?;
            let staged = Staged::new(docs)?;
            let mut out = Vec::new();
            for (i, (input, source)) in staged.inputs.iter().enumerate() {
                let prepared = chunklab_pipeline::prepare(input, true, &reading, false)
                    .map_err(|s| skip_error(&staged, i, s))?;
                let Prepared::Parsed(doc, warnings) = prepared else {
                    return Err(ApiError::internal("the document was not parsed"));
                };
                let elements: Vec<Value> = doc
                    .elements
                    .iter()
                    .map(|e| {
                        let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
                        if let Value::Object(m) = &mut v {
                            m.insert(
                                "text".into(),
                                doc.text.get(e.start..e.end).unwrap_or("").into(),
                            );
                        }
                        v
                    })
                    .collect();
                let mut d = json!({
                    "doc_id": input.doc_id(),
                    "source": source,
                    "format": doc.format,
                    "pages": doc.pages,
                    "metadata": doc.metadata,
                    "warnings": warnings,
                    "text_bytes": doc.text.len(),
                    "elements": elements,
                });
                if include_text {
                    d["text"] = doc.text.clone().into();
                }
                out.push(d);
            }
            Ok(json!({ "documents": out }))
        })
        .await?;
    Ok(Json(out))
}
