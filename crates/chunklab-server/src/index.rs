//! The index endpoints: search (through the library's [`Searcher`], the caller's ACL groups
//! enforced inside the index's filtered search), chunks and documents by id, adding, replacing
//! and deleting documents (write tokens), and embedding with the served model.

use crate::auth::Caller;
use crate::error::{from_anyhow, ApiError};
use crate::request::{self, Staged};
use crate::state::AppState;
use axum::extract::{Path as UrlPath, Query, Request, State};
use axum::http::HeaderMap;
use axum::Json;
use chunklab_embed::Role;
use chunklab_index::IndexWriter;
use chunklab_pipeline::indexing;
use chunklab_pipeline::search::{SearchConfig, SearchParamError, Searcher};
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

pub use crate::index_state::IndexState;

fn caller(state: &AppState, headers: &HeaderMap) -> Result<Caller, ApiError> {
    state.tokens.caller(headers)
}

/// The embedded index behind a searcher (the document endpoints read it directly); 501 for a
/// PostgreSQL store, which answers searches only.
fn embedded(s: &Searcher) -> Result<&chunklab_index::Index, ApiError> {
    s.index().ok_or_else(|| {
        ApiError::new(
            axum::http::StatusCode::NOT_IMPLEMENTED,
            "not_supported",
            format!(
                "{} is a PostgreSQL store: this server searches it only (chunks and documents by id need an index directory)",
                s.store().location()
            ),
        )
    })
}

fn search_error(e: anyhow::Error) -> ApiError {
    if let Some(p) = e.downcast_ref::<SearchParamError>() {
        return ApiError::invalid(format!("invalid `{}`: {}", p.param, p.message));
    }
    from_anyhow(e)
}

/// `GET /v1/search?q=...&mode=hybrid&k=10&filter=kind=table`: the query in `q`, any
/// [`SearchConfig`] key (`filter` repeated), `context_chars` for the text around each hit.
pub async fn search_get(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    Query(pairs): Query<Vec<(String, String)>>,
) -> Result<Json<Value>, ApiError> {
    let mut fields = Map::new();
    let mut filters = Vec::new();
    for (k, v) in pairs {
        match k.as_str() {
            "filter" => filters.push(Value::String(v)),
            "q" | "query" | "rerank" => {
                fields.insert(k, Value::String(v));
            }
            _ => {
                let value = serde_json::from_str::<Value>(&v)
                    .ok()
                    .filter(|v| !v.is_string())
                    .unwrap_or(Value::String(v));
                fields.insert(k, value);
            }
        }
    }
    if !filters.is_empty() {
        fields.insert("filter".into(), Value::Array(filters));
    }
    search(state, headers, fields).await
}

/// `POST /v1/search` with `{"q": "...", "mode": "hybrid", "k": 10, "filter": [...]}`.
pub async fn search_post(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    req: Request,
) -> Result<Json<Value>, ApiError> {
    // Index and token first: no body of an unauthenticated caller is read.
    state.index()?;
    caller(&state, &headers)?;
    let body = request::read_body(&state, req).await?;
    search(state, headers, body.fields).await
}

async fn search(
    state: Arc<AppState>,
    headers: HeaderMap,
    mut fields: Map<String, Value>,
) -> Result<Json<Value>, ApiError> {
    let ix = state.index()?;
    let who = caller(&state, &headers)?;
    let q: Option<String> = request::take(&mut fields, "q")?;
    let query: Option<String> = request::take(&mut fields, "query")?;
    // The field as the caller named it (`q`, or its long form `query`).
    let named = if q.is_none() && query.is_some() {
        "query"
    } else {
        "q"
    };
    let q = q.or(query).unwrap_or_default();
    if q.trim().is_empty() {
        return Err(ApiError::invalid(format!(
            "invalid `{named}`: the query is empty"
        )));
    }
    let context_chars: usize = request::take(&mut fields, "context_chars")?.unwrap_or(0);
    let cfg: SearchConfig = request::into_config(fields)?;
    cfg.validate()
        .map_err(|p| ApiError::invalid(format!("invalid `{}`: {}", p.param, p.message)))?;
    let searcher = ix.searcher();
    let started = std::time::Instant::now();
    // The query's vector is embedded outside the worker permits: the searcher's batcher is the
    // model's own queue (one forward pass at a time), so queries waiting together share a pass
    // instead of queueing for a permit each.
    let vector = {
        let (searcher, q, cfg) = (searcher.clone(), q.clone(), cfg.clone());
        state
            .unpermitted(move || searcher.query_vector(&q, &cfg).map_err(search_error))
            .await?
    };
    let out = state
        .blocking(move || {
            let hits = searcher
                .search_with_vector(&q, vector.as_deref(), &cfg, Some(&who.groups))
                .map_err(search_error)?;
            let mut texts: BTreeMap<String, Option<String>> = BTreeMap::new();
            let hits: Vec<Value> = hits
                .iter()
                .map(|h| {
                    let mut v = serde_json::to_value(h).unwrap_or(Value::Null);
                    if context_chars > 0 {
                        let text = texts
                            .entry(h.doc_id.clone())
                            .or_insert_with(|| searcher.index()?.store().doc_text(&h.doc_id).ok());
                        if let Some(t) = text {
                            v["before"] = before(t, h.start_byte, context_chars).into();
                            v["after"] = after(t, h.end_byte, context_chars).into();
                        }
                    }
                    v
                })
                .collect();
            Ok(json!({
                "query": q,
                "mode": cfg.mode,
                "took_ms": started.elapsed().as_secs_f64() * 1e3,
                "hits": hits,
            }))
        })
        .await?;
    Ok(Json(out))
}

/// Up to `n` chars of `text` ending at byte `end`.
fn before(text: &str, end: usize, n: usize) -> &str {
    let end = floor(text, end.min(text.len()));
    let start = text[..end]
        .char_indices()
        .rev()
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i);
    &text[start..end]
}

/// Up to `n` chars of `text` starting at byte `start`.
fn after(text: &str, start: usize, n: usize) -> &str {
    let start = floor(text, start.min(text.len()));
    let end = text[start..]
        .char_indices()
        .nth(n)
        .map_or(text.len(), |(i, _)| start + i);
    &text[start..end]
}

fn floor(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Whether `who` may see a document with access groups `acl` (it holds one of them).
fn visible(who: &Caller, acl: &[String]) -> bool {
    acl.iter().any(|g| who.groups.contains(g))
}

/// `GET /v1/chunks/{id}`: one chunk, 404 unless the caller may see its document.
pub async fn get_chunk(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Result<Json<Value>, ApiError> {
    let ix = state.index()?;
    let who = caller(&state, &headers)?;
    let s = ix.searcher();
    let store = embedded(&s)?.store();
    let missing = || ApiError::not_found(format!("no chunk `{id}`"));
    let key = store.key_of(&id).ok_or_else(missing)?;
    let doc = store
        .chunk(key)
        .and_then(|c| store.doc(&c.doc_id))
        .ok_or_else(missing)?;
    if !visible(&who, &doc.record.acl) {
        return Err(missing());
    }
    // The store holds chunks without their texts: this one's is cut from its document.
    let chunk = store
        .chunk_with_text(key)
        .map_err(|e| crate::error::from_index(&e))?
        .ok_or_else(missing)?;
    let mut v = serde_json::to_value(&chunk).map_err(|e| ApiError::internal(e.to_string()))?;
    v["acl"] = json!(doc.record.acl);
    v["fields"] = json!(doc.record.fields);
    Ok(Json(v))
}

/// `GET /v1/documents/{id}`: the document's text, metadata and its chunks (spans), 404 unless
/// the caller may see it.
pub async fn get_document(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Result<Json<Value>, ApiError> {
    let ix = state.index()?;
    let who = caller(&state, &headers)?;
    let s = ix.searcher();
    let store = embedded(&s)?.store();
    let missing = || ApiError::not_found(format!("no document `{id}`"));
    let doc = store.doc(&id).ok_or_else(missing)?;
    if !visible(&who, &doc.record.acl) {
        return Err(missing());
    }
    let text = store
        .doc_text(&id)
        .map_err(|e| crate::error::from_index(&e))?;
    let chunks: Vec<Value> = doc
        .keys
        .iter()
        .filter_map(|k| store.chunk(*k))
        .map(|c| {
            json!({"id": c.id, "start_byte": c.start_byte, "end_byte": c.end_byte,
                   "start_char": c.start_char, "end_char": c.end_char, "tokens": c.tokens,
                   "headings": c.headings, "page": c.page, "level": c.level})
        })
        .collect();
    Ok(Json(json!({
        "doc_id": doc.record.doc_id,
        "source": doc.record.source,
        "acl": doc.record.acl,
        "fields": doc.record.fields,
        "text": text,
        "chunks": chunks,
    })))
}

/// `POST /v1/documents` (write token): add or replace a document — `doc_id`, `text` (or a
/// multipart `file`), `acl` (groups the caller holds), `metadata` (field → value) — chunked
/// and embedded by the index's pipeline. Answers `doc_id`, `chunks`, `replaced` and `warnings`
/// (parsing's, and the index's: chunks past the model's window, Dutch for an English model).
pub async fn put_document(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    req: Request,
) -> Result<Json<Value>, ApiError> {
    let ix = state.index()?;
    let who = caller(&state, &headers)?;
    who.require_write()?;
    let mut body = request::read_body(&state, req).await?;
    // One group may be given as a string (a form's `acl=team-a`), several as a list.
    let acl = match request::take::<Value>(&mut body.fields, "acl")? {
        Some(Value::String(g)) => vec![g],
        Some(v) => serde_json::from_value::<Vec<String>>(v).map_err(|e| {
            ApiError::invalid(format!(
                "invalid `acl`: {e}; give a group or a list of groups (e.g. [\"team-a\"])"
            ))
        })?,
        None => Vec::new(),
    };
    let meta: BTreeMap<String, String> =
        request::take(&mut body.fields, "metadata")?.unwrap_or_default();
    if acl.is_empty() {
        return Err(ApiError::invalid(
            "invalid `acl`: give the document's access groups (a list, e.g. [\"team-a\"])",
        ));
    }
    if acl.iter().any(|g| g.trim().is_empty()) {
        return Err(ApiError::invalid("invalid `acl`: a group name is empty"));
    }
    if let Some(g) = acl.iter().find(|g| !who.groups.contains(g)) {
        return Err(ApiError::forbidden(format!(
            "token `{}` does not hold group `{g}`",
            who.name
        )));
    }
    if let Some(f) = meta
        .keys()
        .find(|f| chunklab_index::filter::BUILTIN_FIELDS.contains(&f.as_str()))
    {
        return Err(ApiError::invalid(format!(
            "invalid `metadata`: `{f}` is a built-in filter field; choose another name"
        )));
    }
    let docs = request::documents(&mut body, 1)?;
    if let Some(k) = body.fields.keys().next() {
        return Err(ApiError::invalid(format!(
            "unknown field `{k}` (doc_id, text, file, source, acl, metadata)"
        )));
    }
    ix.writable_dir()?;
    let (pipeline, model) = match (&ix.writer, &ix.model, &ix.write_refused) {
        (Some(p), Some(m), None) => (p.clone(), m.clone()),
        (_, _, why) => {
            return Err(ApiError::new(
                axum::http::StatusCode::CONFLICT,
                "not_writable",
                format!(
                    "this server cannot write the index: {}; start `chunklab serve` with the chunking flags the index was built with",
                    why.as_deref().unwrap_or("no write pipeline")
                ),
            ))
        }
    };
    let st = state.clone();
    let out = state
        .blocking(move || {
            let ix = st.index()?;
            let staged = Staged::new(docs)?;
            let (input, source) = &staged.inputs[0];
            let prepared = pipeline
                .prepare(input, false)
                .map_err(|s| crate::chunk::skip_error(&staged, 0, s))?;
            let hash = indexing::document_hash(
                blake3::hash(prepared.text().as_bytes()).to_hex().as_str(),
                &acl,
                &meta,
            );
            let chunked = indexing::chunk_document(
                &pipeline, input, source, prepared, hash, acl, meta,
            )
            .map_err(|s| crate::chunk::skip_error(&staged, 0, s))?;
            let mut warnings: Vec<String> = chunked
                .warnings()
                .iter()
                .map(|w| staged.message(0, w.clone()))
                .collect();
            // The library's stage, so the warnings are the CLI's: chunks past the model's
            // window, Dutch documents for an English model (their remedies are the command
            // line's: the index is built and rebuilt with `chunklab index`).
            let spec = ix.searcher().store().settings().model.clone();
            let mut summary = indexing::AddSummary::default();
            let (_, doc) =
                indexing::embed_documents(model.as_ref(), &spec, vec![((), chunked)], &mut summary)
                    .map_err(from_anyhow)?
                    .pop()
                    .expect("one document in, one out");
            warnings.extend(
                [
                    summary.truncation_warning(&spec, model.token_capacity(), &indexing::Flags),
                    summary.language_warning(&spec, &indexing::Flags),
                ]
                .into_iter()
                .flatten(),
            );
            let chunks = doc.chunks.len();
            let doc_id = doc.doc_id.clone();
            let _guard = ix.write_lock.lock().unwrap_or_else(|p| p.into_inner());
            let replaced = {
                let s = ix.searcher();
                match embedded(&s)?.store().doc(&doc_id) {
                    Some(old) if !visible(&who, &old.record.acl) => {
                        return Err(ApiError::forbidden(format!(
                            "document `{doc_id}` exists with groups token `{}` does not hold",
                            who.name
                        )))
                    }
                    Some(_) => true,
                    None => false,
                }
            };
            let settings = ix.searcher().store().settings().clone();
            let mut w = IndexWriter::open(ix.writable_dir()?, settings, false)
                .map_err(|e| crate::error::from_index(&e))?;
            w.add_document(doc)
                .map_err(|e| crate::error::from_index(&e))?;
            w.finish().map_err(|e| crate::error::from_index(&e))?;
            reopen(ix)?;
            Ok(json!({"doc_id": doc_id, "chunks": chunks, "replaced": replaced, "warnings": warnings}))
        })
        .await?;
    Ok(Json(out))
}

/// `DELETE /v1/documents/{id}` (write token; the caller must see the document).
pub async fn delete_document(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Result<Json<Value>, ApiError> {
    let ix = state.index()?;
    let who = caller(&state, &headers)?;
    who.require_write()?;
    ix.writable_dir()?;
    let st = state.clone();
    state
        .blocking(move || {
            let ix = st.index()?;
            let _guard = ix.write_lock.lock().unwrap_or_else(|p| p.into_inner());
            let s = ix.searcher();
            let visible_doc = embedded(&s)?
                .store()
                .doc(&id)
                .is_some_and(|d| visible(&who, &d.record.acl));
            if !visible_doc {
                return Err(ApiError::not_found(format!("no document `{id}`")));
            }
            let settings = s.store().settings().clone();
            let mut w = IndexWriter::open(ix.writable_dir()?, settings, false)
                .map_err(|e| crate::error::from_index(&e))?;
            w.remove_document(&id)
                .map_err(|e| crate::error::from_index(&e))?;
            w.finish().map_err(|e| crate::error::from_index(&e))?;
            reopen(ix)?;
            Ok(Json(json!({"doc_id": id, "deleted": true})))
        })
        .await
}

/// Open the index again after a write and swap it in (queries in flight keep the old one).
fn reopen(ix: &IndexState) -> Result<(), ApiError> {
    let fresh = Searcher::open(ix.writable_dir()?, false).map_err(from_anyhow)?;
    // The served model stays loaded: the reopened index gets it instead of loading it again.
    let fresh = match &ix.model {
        Some(m) => fresh.with_model(m.clone()).map_err(from_anyhow)?,
        None => fresh,
    };
    *ix.searcher.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(fresh);
    Ok(())
}

/// `POST /v1/embed` with `{"texts": [...], "role": "query" | "passage"}`: vectors from the
/// served model (the index's), any valid token.
pub async fn embed(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    req: Request,
) -> Result<Json<Value>, ApiError> {
    let ix = state.index()?;
    caller(&state, &headers)?;
    let model = ix.model.clone().ok_or_else(|| {
        ApiError::unavailable("no_model", "the index has no embedding model to serve")
    })?;
    let spec = ix.model_spec().unwrap_or_default();
    let mut body = request::read_body(&state, req).await?;
    let texts: Vec<String> = request::take(&mut body.fields, "texts")?
        .ok_or_else(|| ApiError::invalid("invalid `texts`: give a list of strings"))?;
    let role = match request::take::<String>(&mut body.fields, "role")?.as_deref() {
        None | Some("passage") => Role::Passage,
        Some("query") => Role::Query,
        Some(r) => {
            return Err(ApiError::invalid(format!(
                "invalid `role`: `{r}` (query, passage)"
            )))
        }
    };
    if let Some(k) = body.fields.keys().next() {
        return Err(ApiError::invalid(format!(
            "unknown field `{k}` (texts, role)"
        )));
    }
    if texts.len() > state.limits.max_texts {
        return Err(ApiError::invalid(format!(
            "invalid `texts`: {} texts; the server takes at most {}",
            texts.len(),
            state.limits.max_texts
        )));
    }
    let out = state
        .blocking(move || {
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let vectors = model
                .embed(&refs, role)
                .map_err(|e| from_anyhow(e.into()))?;
            // Texts past the window are embedded from their head: said, as the CLI does.
            let warnings: Vec<String> = chunklab_embed::truncated(model.as_ref(), &refs)
                .iter()
                .map(|t| t.to_string())
                .collect();
            Ok(json!({"model": spec, "dim": model.dim(), "vectors": vectors, "warnings": warnings}))
        })
        .await?;
    Ok(Json(out))
}
