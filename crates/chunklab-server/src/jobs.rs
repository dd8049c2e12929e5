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
use chunklab_eval::progress::Progress;
use chunklab_eval::sweep::DefaultSweep;
use futures_util::Stream;
use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// Finished jobs kept for `GET /v1/jobs/{id}` (the oldest are forgotten first).
const KEEP_FINISHED: usize = 16;
/// Notes kept per job (the latest).
const KEEP_NOTES: usize = 200;

/// Where a job is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Running.
    Running,
    /// Finished with a result.
    Done,
    /// Finished with an error.
    Failed,
}

/// What `GET /v1/jobs/{id}` returns (and each server-sent event carries, without `result`).
#[derive(Debug, Clone, Serialize)]
pub struct JobView {
    /// The job's id.
    pub id: String,
    /// `bench`.
    pub kind: &'static str,
    /// Running, done or failed.
    pub status: Status,
    /// Name of the token that started it.
    pub owner: String,
    /// Start, seconds since the Unix epoch.
    pub started_at: f64,
    /// Seconds since the start (until the end once finished).
    pub elapsed_s: f64,
    /// The stage being worked on (`embedding 120 queries (minilm)`, a configuration's label …).
    pub stage: Option<String>,
    /// Steps of the stage done.
    pub done: u64,
    /// Steps of the stage.
    pub total: u64,
    /// What the run told so far (dataset loaded, configurations, warnings).
    pub notes: Vec<String>,
    /// Why it failed.
    pub error: Option<String>,
    /// The bench JSON, once done.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

/// One job: its view, updated by the run, and a channel that ticks on every change.
pub struct Job {
    view: Mutex<JobView>,
    started: std::time::Instant,
    tick: watch::Sender<u64>,
}

impl Job {
    fn lock(&self) -> std::sync::MutexGuard<'_, JobView> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn update(&self, f: impl FnOnce(&mut JobView)) {
        {
            let mut v = self.lock();
            f(&mut v);
            if v.status == Status::Running {
                v.elapsed_s = self.started.elapsed().as_secs_f64();
            }
        }
        self.tick.send_modify(|n| *n += 1);
    }

    /// The job as it stands; `with_result` includes the bench JSON.
    pub fn view(&self, with_result: bool) -> JobView {
        let mut v = self.lock().clone();
        if v.status == Status::Running {
            v.elapsed_s = self.started.elapsed().as_secs_f64();
        }
        if !with_result {
            v.result = None;
        }
        v
    }
}

/// The bench run's progress, written into its job.
struct JobProgress(Arc<Job>);

impl Progress for JobProgress {
    fn start(&self, what: &str, total: u64) {
        self.0.update(|v| {
            v.stage = Some(what.to_string());
            v.done = 0;
            v.total = total;
        });
    }
    fn set(&self, done: u64) {
        self.0.update(|v| v.done = done);
    }
    fn finish(&self) {
        self.0.update(|v| v.done = v.total);
    }
    fn note(&self, msg: &str) {
        self.0.update(|v| {
            if v.notes.len() >= KEEP_NOTES {
                v.notes.remove(0);
            }
            v.notes.push(msg.to_string());
        });
    }
}

/// The server's jobs: at most one running, a few finished ones kept.
#[derive(Default)]
pub struct Jobs {
    inner: Mutex<JobsInner>,
}

#[derive(Default)]
struct JobsInner {
    running: Option<(String, Arc<Job>)>,
    finished: VecDeque<(String, Arc<Job>)>,
    started: u64,
}

impl Jobs {
    fn lock(&self) -> std::sync::MutexGuard<'_, JobsInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The job with this id.
    pub fn get(&self, id: &str) -> Option<Arc<Job>> {
        let inner = self.lock();
        inner
            .running
            .iter()
            .chain(inner.finished.iter())
            .find(|(i, _)| i == id)
            .map(|(_, j)| j.clone())
    }

    /// Register a new running job, or 409 while another runs.
    fn begin(&self, owner: &str) -> Result<(String, Arc<Job>), ApiError> {
        let mut inner = self.lock();
        if let Some((id, _)) = &inner.running {
            return Err(ApiError::new(
                StatusCode::CONFLICT,
                "job_running",
                format!("bench job {id} is still running; one job runs at a time (poll GET /v1/jobs/{id})"),
            ));
        }
        inner.started += 1;
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let salt = blake3::hash(format!("{}:{}:{owner}", inner.started, now.as_nanos()).as_bytes());
        let id = format!("{}-{}", inner.started, &salt.to_hex()[..12]);
        let job = Arc::new(Job {
            view: Mutex::new(JobView {
                id: id.clone(),
                kind: "bench",
                status: Status::Running,
                owner: owner.to_string(),
                started_at: now.as_secs_f64(),
                elapsed_s: 0.0,
                stage: None,
                done: 0,
                total: 0,
                notes: Vec::new(),
                error: None,
                result: None,
            }),
            started: std::time::Instant::now(),
            tick: watch::channel(0).0,
        });
        inner.running = Some((id.clone(), job.clone()));
        Ok((id, job))
    }

    /// Move the running job to the finished ones.
    fn end(&self, id: &str) {
        let mut inner = self.lock();
        if inner.running.as_ref().is_some_and(|(i, _)| i == id) {
            let done = inner.running.take().expect("checked above");
            if inner.finished.len() >= KEEP_FINISHED {
                inner.finished.pop_front();
            }
            inner.finished.push_back(done);
        }
    }
}

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
