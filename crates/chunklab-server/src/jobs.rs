//! Bench runs as jobs: `POST /v1/bench` takes a [`BenchRequest`] (the `chunklab bench` flags
//! as keys; corpus, queries and sweep paths are the server's own files) and starts
//! [`chunklab_eval::bench::run`] on the blocking pool — one job at a time, a second start is a
//! 409 naming the running one. `GET /v1/jobs/{id}` reports status, the current stage and its
//! progress, notes, and when done the result (the bench JSON schema of
//! [`chunklab_eval::report::json`]); `GET /v1/jobs/{id}/events` streams the same as
//! server-sent events until the job ends. Starting a job needs a write token, reading one any
//! token.
//!
//! Files: `corpus`, `queries`, `config` and `data_dir` must lie under the server's bench
//! directory (`chunklab serve --bench-dir DIR`; without one, only the generated `archive` and
//! inline `config_text` are taken); `cache_dir`, `scratch_dir` and `fetch` are the server's
//! choice, never a request's (422).

use crate::error::ApiError;
use crate::request;
use crate::state::AppState;
use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::Json;
use chunklab_eval::bench::BenchRequest;
use chunklab_eval::sweep::DefaultSweep;
use futures_util::Stream;
use std::sync::Arc;
use std::time::Duration;

pub use crate::job_registry::{Job, JobView, Jobs, Status};
use crate::job_registry::{JobProgress, KEEP_FINISHED};

/// `POST /v1/bench`: start a bench run; 202 with the job (and `location` of its status).
pub async fn start_bench(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    req: Request,
) -> Result<(StatusCode, HeaderMap, Json<JobView>), ApiError> {
    let who = state.tokens.caller(&headers)?;
    who.require_write()?;
    let body = request::read_body(&state, req).await?;
    if !body.files.is_empty() {
        return Err(ApiError::invalid(
            "a bench runs on the server's own corpus files (corpus, queries, config paths); uploads are not taken",
        ));
    }
    let mut bench: BenchRequest = request::into_config(body.fields)?;
    confine(&mut bench, state.bench_dir.as_deref())?;
    // What can be checked at once is a 422 now, not a failed job: the sweep and its filters.
    let which = if bench.dataset.as_deref() == Some("chroma") {
        DefaultSweep::Chroma
    } else {
        DefaultSweep::General
    };
    bench
        .configs(which)
        .map_err(|e| ApiError::invalid(e.to_string()))?;
    let (id, job) = state.jobs.begin(&who.name)?;
    let st = state.clone();
    let runner = job.clone();
    let run_id = id.clone();
    tokio::task::spawn_blocking(move || {
        let progress = JobProgress(runner.clone());
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            chunklab_eval::bench::run(&bench, &progress)
        }));
        runner.update(|v| {
            v.elapsed_s = runner.started.elapsed().as_secs_f64();
            match out {
                Ok(Ok(result)) => {
                    v.status = Status::Done;
                    v.result = Some(chunklab_eval::report::json::to_value(&result));
                }
                Ok(Err(e)) => {
                    v.status = Status::Failed;
                    v.error = Some(e.to_string());
                }
                Err(_) => {
                    v.status = Status::Failed;
                    v.error = Some("the bench run failed inside the lab (a bug: please report it with the request)".into());
                }
            }
        });
        st.jobs.end(&run_id);
    });
    let mut h = HeaderMap::new();
    if let Ok(loc) = format!("/v1/jobs/{id}").parse() {
        h.insert(axum::http::header::LOCATION, loc);
    }
    Ok((StatusCode::ACCEPTED, h, Json(job.view(false))))
}

/// The [`BenchRequest`] keys the server chooses itself: a request that sets one is refused, and
/// /openapi.json leaves them out.
pub const SERVER_ONLY_KEYS: [&str; 4] = ["cache_dir", "scratch_dir", "fetch", "store"];

/// Refuse what a request may not choose, and resolve its paths under the bench directory
/// (symbolic links and `..` resolved first, so none leads out).
fn confine(bench: &mut BenchRequest, root: Option<&std::path::Path>) -> Result<(), ApiError> {
    let set = [
        bench.cache_dir.is_some(),
        bench.scratch_dir.is_some(),
        bench.fetch,
        bench.store.is_some(),
    ];
    if let Some((key, _)) = SERVER_ONLY_KEYS.iter().zip(set).find(|(_, set)| *set) {
        return Err(ApiError::invalid(format!(
            "invalid `{key}`: the server chooses its cache, scratch directory, store and models"
        )));
    }
    for (key, path) in [
        ("corpus", &mut bench.corpus),
        ("queries", &mut bench.queries),
        ("config", &mut bench.config),
        ("data_dir", &mut bench.data_dir),
    ] {
        let Some(p) = path else { continue };
        let Some(root) = root else {
            return Err(ApiError::invalid(format!(
                "invalid `{key}`: this server takes no bench files (start it with --bench-dir DIR; the archive dataset and config_text need none)"
            )));
        };
        let joined = root.join(&*p);
        let real = joined
            .canonicalize()
            .map_err(|e| ApiError::invalid(format!("invalid `{key}`: {}: {e}", p.display())))?;
        if !real.starts_with(root) {
            return Err(ApiError::invalid(format!(
                "invalid `{key}`: {} is outside the server's bench directory",
                p.display()
            )));
        }
        *p = real;
    }
    Ok(())
}

fn find(state: &AppState, headers: &HeaderMap, id: &str) -> Result<Arc<Job>, ApiError> {
    state.tokens.caller(headers)?;
    state
        .jobs
        .get(id)
        .ok_or_else(|| ApiError::not_found(format!("no job `{id}` (finished jobs are kept while {KEEP_FINISHED} newer ones have not ended)")))
}

/// `GET /v1/jobs/{id}`: status, progress, notes and, when done, the bench JSON.
pub async fn get_job(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Result<Json<JobView>, ApiError> {
    Ok(Json(find(&state, &headers, &id)?.view(true)))
}

/// `GET /v1/jobs/{id}/events`: server-sent events — `progress` (the job without its result) on
/// every change, at most every 100 ms, then one `done` or `failed` event with the whole job,
/// and the stream ends.
pub async fn job_events(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    UrlPath(id): UrlPath<String>,
) -> Result<Sse<impl Stream<Item = Result<Event, std::convert::Infallible>>>, ApiError> {
    let job = find(&state, &headers, &id)?;
    let rx = job.tick.subscribe();
    let stream = futures_util::stream::unfold(
        (job, rx, false, true),
        |(job, mut rx, over, first)| async move {
            if over {
                return None;
            }
            if !first {
                tokio::time::sleep(Duration::from_millis(100)).await;
                let _ = rx.changed().await;
            }
            rx.borrow_and_update();
            let view = job.view(true);
            let (name, data, over) = match view.status {
                Status::Running => {
                    let mut v = view;
                    v.result = None;
                    ("progress", v, false)
                }
                Status::Done => ("done", view, true),
                Status::Failed => ("failed", view, true),
            };
            let data = serde_json::to_string(&data).unwrap_or_default();
            let event = Event::default().event(name).data(data);
            Some((Ok(event), (job, rx, over, false)))
        },
    );
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
