//! # chunklab-server
//!
//! `chunklab serve`: the HTTP API and the web page, on the one library pipeline
//! ([`chunklab_pipeline::Pipeline`] for chunking and parsing,
//! [`chunklab_pipeline::search::Searcher`] for search). Built on axum (hyper + tokio): the
//! mature Rust HTTP stack, with multipart uploads and per-request middleware; CPU-bound work
//! (parsing, chunking, embedding, searching) runs on tokio's blocking pool behind a semaphore
//! of worker permits, so slow clients and uploads only hold a connection, never a core.
//!
//! Endpoints: `GET /health`, `/ready`, `/metrics`; `POST /v1/chunk`, `/v1/parse`,
//! `/v1/embed`; `GET|POST /v1/search`, `GET /v1/chunks/{id}`, `POST /v1/documents`,
//! `DELETE /v1/documents/{id}`, `GET /v1/documents/{id}`; `POST /v1/bench` with
//! `GET /v1/jobs/{id}` and its server-sent `events`; `GET /openapi.json`; and the page at `/`.
//! Every error is `{"error": {"code", "message"}}` with its status.
#![warn(missing_docs)]

pub mod auth;
pub mod chunk;
pub mod error;
pub mod index;
mod index_state;
mod job_registry;
pub mod jobs;
pub mod metrics;
pub mod openapi;
mod request;
pub mod state;
pub mod web;

pub use auth::{Caller, Role, Tokens};
pub use error::ApiError;
pub use state::{AppState, Limits, ServerConfig};

use axum::extract::{MatchedPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, post};
use axum::Router;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Instant;

/// The router with every endpoint and the limits middleware.
pub fn router(state: Arc<AppState>) -> Router {
    let upload = axum::extract::DefaultBodyLimit::max(
        state.limits.upload_bytes.max(state.limits.body_bytes),
    );
    let json = axum::extract::DefaultBodyLimit::max(state.limits.body_bytes);
    Router::new()
        .route("/", get(web::index_page))
        .route("/assets/{name}", get(web::asset))
        .route("/health", get(health))
        .route("/ready", get(ready))
        .route("/metrics", get(metrics))
        .route("/openapi.json", get(openapi_json))
        .route("/v1/chunk", post(chunk::chunk).layer(upload))
        .route("/v1/parse", post(chunk::parse).layer(upload))
        .route("/v1/embed", post(index::embed).layer(json))
        .route(
            "/v1/search",
            get(index::search_get).post(index::search_post).layer(json),
        )
        .route("/v1/chunks/{id}", get(index::get_chunk))
        .route("/v1/documents", post(index::put_document).layer(upload))
        .route(
            "/v1/documents/{id}",
            delete(index::delete_document).get(index::get_document),
        )
        .route("/v1/bench", post(jobs::start_bench).layer(json))
        .route("/v1/jobs/{id}", get(jobs::get_job))
        .route("/v1/jobs/{id}/events", get(jobs::job_events))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(state.clone(), guard))
        .with_state(state)
}

/// Serve `router` on `listener` until ctrl-c (or SIGTERM).
pub async fn serve(listener: tokio::net::TcpListener, state: Arc<AppState>) -> anyhow::Result<()> {
    axum::serve(listener, router(state))
        .with_graceful_shutdown(shutdown())
        .await?;
    Ok(())
}

/// Bind `addr`, call `on_listening` with the bound address (port 0 picks a free port), and
/// serve until ctrl-c or SIGTERM, on a runtime of its own.
pub fn run(
    addr: std::net::SocketAddr,
    state: AppState,
    on_listening: impl FnOnce(std::net::SocketAddr),
) -> anyhow::Result<()> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("chunklab-serve")
        .build()?;
    rt.block_on(async move {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| anyhow::anyhow!("cannot listen on {addr}: {e}"))?;
        on_listening(listener.local_addr()?);
        serve(listener, Arc::new(state)).await
    })
}

async fn shutdown() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = term => {} }
}

/// Concurrency limit (429), request timeout (503) and metrics, around every request.
async fn guard(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |m| m.as_str())
        .to_string();
    let started = Instant::now();
    let before = state.in_flight.fetch_add(1, Ordering::SeqCst);
    let response = if before >= state.limits.max_in_flight {
        state.metrics.rejected.fetch_add(1, Ordering::Relaxed);
        let mut r = ApiError::new(
            StatusCode::TOO_MANY_REQUESTS,
            "too_many_requests",
            format!(
                "{} requests are in flight already (the server's limit); retry shortly",
                state.limits.max_in_flight
            ),
        )
        .into_response();
        r.headers_mut()
            .insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
        r
    } else {
        match tokio::time::timeout(state.limits.request_timeout, next.run(req)).await {
            Ok(r) => r,
            Err(_) => ApiError::unavailable(
                "timeout",
                format!(
                    "the request took longer than the server's limit of {} s",
                    state.limits.request_timeout.as_secs_f64()
                ),
            )
            .into_response(),
        }
    };
    state.in_flight.fetch_sub(1, Ordering::SeqCst);
    state
        .metrics
        .record(&route, response.status().as_u16(), started.elapsed());
    response
}

async fn not_found(req: Request) -> ApiError {
    ApiError::not_found(format!("no endpoint {} {}", req.method(), req.uri().path()))
}

async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} is not allowed on {}", req.method(), req.uri().path()),
    )
}

async fn health() -> impl IntoResponse {
    axum::Json(serde_json::json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}))
}

/// Ready once state is loaded (it is loaded before the listener starts); reports the index.
/// The store's counts are read on the blocking pool (a PostgreSQL store answers through a
/// blocking client, which must not run on the async workers).
async fn ready(State(state): State<Arc<AppState>>) -> Result<impl IntoResponse, ApiError> {
    let index = off_runtime(&state, |st| st.index.as_ref().map(|ix| ix.summary())).await?;
    Ok(axum::Json(
        serde_json::json!({"status": "ready", "index": index}),
    ))
}

async fn metrics(State(state): State<Arc<AppState>>) -> Result<impl IntoResponse, ApiError> {
    let counts = off_runtime(&state, |st| st.index.as_ref().map(|ix| ix.counts())).await?;
    let (docs, chunks) = counts.map_or((None, None), |(d, c)| (Some(d), Some(c)));
    let batches = state.index.as_ref().map(|ix| ix.searcher().query_batches());
    let text = state.metrics.render(
        docs,
        chunks,
        batches,
        state.in_flight.load(Ordering::Relaxed),
    );
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        text,
    ))
}

/// Run `f` on tokio's blocking pool (no worker permit: it only reads the store's counts).
async fn off_runtime<T: Send + 'static>(
    state: &Arc<AppState>,
    f: impl FnOnce(&AppState) -> T + Send + 'static,
) -> Result<T, ApiError> {
    let st = state.clone();
    tokio::task::spawn_blocking(move || f(&st))
        .await
        .map_err(|_| ApiError::internal("reading the store's counts failed"))
}

/// The OpenAPI description, generated from the route table and the request types.
async fn openapi_json() -> impl IntoResponse {
    axum::Json(openapi::spec())
}
