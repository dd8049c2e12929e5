//! Prometheus text-format metrics: requests by route and status, latency histograms by route,
//! chunks produced, documents and chunks in the index, requests in flight.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Upper bounds (seconds) of the latency histogram's buckets.
pub const BUCKETS: &[f64] = &[
    0.001, 0.0025, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0,
];

#[derive(Default, Clone)]
struct Histogram {
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

/// The server's counters.
#[derive(Default)]
pub struct Metrics {
    requests: Mutex<BTreeMap<(String, u16), u64>>,
    latency: Mutex<BTreeMap<String, Histogram>>,
    /// Chunks returned by /v1/chunk.
    pub chunks_produced: AtomicU64,
    /// Requests refused because too many were in flight.
    pub rejected: AtomicU64,
}

impl Metrics {
    /// Count one finished request on `route` with `status`, taking `elapsed`.
    pub fn record(&self, route: &str, status: u16, elapsed: Duration) {
        *self
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry((route.to_string(), status))
            .or_default() += 1;
        let secs = elapsed.as_secs_f64();
        let mut lat = self.latency.lock().unwrap_or_else(|p| p.into_inner());
        let h = lat.entry(route.to_string()).or_insert_with(|| Histogram {
            counts: vec![0; BUCKETS.len()],
            ..Histogram::default()
        });
        for (i, b) in BUCKETS.iter().enumerate() {
            if secs <= *b {
                h.counts[i] += 1;
            }
        }
        h.sum += secs;
        h.count += 1;
    }

    /// The metrics in Prometheus text format, with the index gauges and in-flight count given.
    pub fn render(
        &self,
        documents: Option<usize>,
        chunks: Option<usize>,
        query_batches: Option<chunklab_pipeline::QueryBatchStats>,
        in_flight: usize,
    ) -> String {
        let mut out = String::new();
        out.push_str("# HELP chunklab_http_requests_total HTTP requests by route and status.\n");
        out.push_str("# TYPE chunklab_http_requests_total counter\n");
        for ((route, status), n) in self
            .requests
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            let _ = writeln!(
                out,
                "chunklab_http_requests_total{{route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        out.push_str("# HELP chunklab_http_request_duration_seconds Request latency by route.\n");
        out.push_str("# TYPE chunklab_http_request_duration_seconds histogram\n");
        for (route, h) in self
            .latency
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
        {
            for (b, c) in BUCKETS.iter().zip(&h.counts) {
                let _ = writeln!(
                    out,
                    "chunklab_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"{b}\"}} {c}"
                );
            }
            let _ = writeln!(
                out,
                "chunklab_http_request_duration_seconds_bucket{{route=\"{route}\",le=\"+Inf\"}} {}",
                h.count
            );
            let _ = writeln!(
                out,
                "chunklab_http_request_duration_seconds_sum{{route=\"{route}\"}} {}",
                h.sum
            );
            let _ = writeln!(
                out,
                "chunklab_http_request_duration_seconds_count{{route=\"{route}\"}} {}",
                h.count
            );
        }
        let gauge = |out: &mut String, name: &str, help: &str, kind: &str, v: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {v}"
            );
        };
        gauge(
            &mut out,
            "chunklab_chunks_produced_total",
            "Chunks returned by /v1/chunk.",
            "counter",
            self.chunks_produced.load(Ordering::Relaxed),
        );
        gauge(
            &mut out,
            "chunklab_http_rejected_total",
            "Requests refused with 429 because too many were in flight.",
            "counter",
            self.rejected.load(Ordering::Relaxed),
        );
        gauge(
            &mut out,
            "chunklab_http_in_flight",
            "Requests being served now.",
            "gauge",
            in_flight as u64,
        );
        if let Some(d) = documents {
            gauge(
                &mut out,
                "chunklab_index_documents",
                "Documents in the index.",
                "gauge",
                d as u64,
            );
        }
        if let Some(c) = chunks {
            gauge(
                &mut out,
                "chunklab_index_chunks",
                "Chunks in the index.",
                "gauge",
                c as u64,
            );
        }
        if let Some(q) = query_batches {
            gauge(
                &mut out,
                "chunklab_query_batches_total",
                "Forward passes that embedded search queries (since the index was last opened or committed).",
                "counter",
                q.batches,
            );
            gauge(
                &mut out,
                "chunklab_queries_embedded_total",
                "Search queries embedded in those passes; divided by the passes, the mean batch size.",
                "counter",
                q.queries,
            );
        }
        out
    }
}
