//! Blocking JSON POST with retries: exponential backoff on 429 and 5xx, honouring a
//! `Retry-After` header given in seconds; other statuses and unreachable servers fail at once
//! with an error naming the backend and URL.

use crate::error::{Error, Result};
use std::time::Duration;

/// Retry and timeout settings of the HTTP backends.
#[derive(Clone, Debug, PartialEq)]
pub struct HttpOptions {
    /// Retries after a 429 or 5xx answer (so `retries + 1` attempts at most).
    pub retries: u32,
    /// First backoff delay; doubled after every retry.
    pub backoff: Duration,
    /// Longest wait between attempts, `Retry-After` included.
    pub max_delay: Duration,
    /// Whole-request timeout.
    pub timeout: Duration,
    /// Requests in flight at once in [`crate::Llm::complete_all`].
    pub concurrency: usize,
}

impl Default for HttpOptions {
    fn default() -> Self {
        Self {
            retries: 5,
            backoff: Duration::from_millis(500),
            max_delay: Duration::from_secs(60),
            timeout: Duration::from_secs(300),
            concurrency: 4,
        }
    }
}

/// A JSON-over-HTTP client for one backend.
pub(crate) struct Transport {
    pub backend: String,
    agent: ureq::Agent,
    pub options: HttpOptions,
}

impl Transport {
    pub fn new(backend: &str, options: HttpOptions) -> Self {
        let agent = ureq::AgentBuilder::new().timeout(options.timeout).build();
        Self {
            backend: backend.to_string(),
            agent,
            options,
        }
    }

    /// POST `body` to `url` with `headers`; the parsed JSON answer of a 2xx response.
    pub fn post_json(
        &self,
        url: &str,
        headers: &[(&str, String)],
        body: &serde_json::Value,
    ) -> Result<serde_json::Value> {
        let payload = body.to_string();
        let mut attempt = 0u32;
        loop {
            let mut req = self.agent.post(url).set("content-type", "application/json");
            for (k, v) in headers {
                req = req.set(k, v);
            }
            match req.send_string(&payload) {
                Ok(resp) => {
                    let text = resp.into_string().map_err(|e| self.bad(url, e))?;
                    return serde_json::from_str(&text)
                        .map_err(|e| self.bad(url, format!("not JSON ({e}): {}", clip(&text))));
                }
                Err(ureq::Error::Status(status, resp)) => {
                    let retry_after = resp
                        .header("retry-after")
                        .and_then(|v| v.trim().parse::<f64>().ok())
                        .filter(|s| s.is_finite() && *s >= 0.0);
                    let body = resp.into_string().unwrap_or_default();
                    let retryable = status == 429 || status >= 500;
                    if !retryable || attempt >= self.options.retries {
                        return Err(Error::Http {
                            backend: self.backend.clone(),
                            url: url.to_string(),
                            status,
                            body: clip(&body),
                        });
                    }
                    let backoff = self.options.backoff.saturating_mul(1 << attempt.min(16));
                    let wait = retry_after
                        .map(Duration::from_secs_f64)
                        .unwrap_or(backoff)
                        .min(self.options.max_delay);
                    std::thread::sleep(wait);
                    attempt += 1;
                }
                Err(ureq::Error::Transport(t)) => {
                    return Err(Error::Unreachable {
                        backend: self.backend.clone(),
                        url: url.to_string(),
                        detail: t.to_string(),
                    })
                }
            }
        }
    }

    fn bad(&self, url: &str, detail: impl std::fmt::Display) -> Error {
        Error::BadResponse {
            backend: self.backend.clone(),
            url: url.to_string(),
            detail: detail.to_string(),
        }
    }
}

/// The first 500 chars of an error body.
fn clip(s: &str) -> String {
    match s.char_indices().nth(500) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// Run `f` over `items` with at most `limit` at once; results in input order.
pub(crate) fn run_bounded<T: Sync, R: Send>(
    items: &[T],
    limit: usize,
    f: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Mutex;
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|s| {
        for _ in 0..limit.clamp(1, items.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let r = f(item);
                results.lock().unwrap_or_else(|p| p.into_inner())[i] = Some(r);
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_else(|p| p.into_inner())
        .into_iter()
        .map(|r| r.expect("every index is run once"))
        .collect()
}
