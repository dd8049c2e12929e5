//! The server's bench jobs as data: each [`Job`]'s status, stage, progress and notes, and the
//! [`Jobs`] registry (one running, a few finished kept). The endpoints that start and report
//! them are in `jobs.rs`; `state.rs` holds the registry, so this file imports neither.

use crate::error::ApiError;
use chunklab_eval::progress::Progress;
use serde::Serialize;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};
use tokio::sync::watch;

/// Finished jobs kept for `GET /v1/jobs/{id}` (the oldest are forgotten first).
pub(crate) const KEEP_FINISHED: usize = 16;
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
    pub(crate) started: std::time::Instant,
    pub(crate) tick: watch::Sender<u64>,
}

impl Job {
    fn lock(&self) -> std::sync::MutexGuard<'_, JobView> {
        self.view.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn update(&self, f: impl FnOnce(&mut JobView)) {
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
pub(crate) struct JobProgress(pub(crate) Arc<Job>);

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
    pub(crate) fn begin(&self, owner: &str) -> Result<(String, Arc<Job>), ApiError> {
        let mut inner = self.lock();
        if let Some((id, _)) = &inner.running {
            return Err(ApiError::new(
                axum::http::StatusCode::CONFLICT,
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
    pub(crate) fn end(&self, id: &str) {
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
