//! A bounded load generator for `chunklab serve` on loopback: N concurrent keep-alive clients
//! for S seconds on one endpoint, plus optional misbehaving clients (stalling mid-upload,
//! disconnecting mid-upload) to show they do not hurt the others. Prints one JSON line:
//! requests, throughput, p50/p95/p99/max latency (ms) and errors by status.
//!
//! ```text
//! cargo run --release -p chunklab-server --example serve_load -- \
//!     --url 'http://127.0.0.1:8080/v1/search?q=inflation&mode=hybrid&k=10' --token T \
//!     --clients 64 --seconds 30 [--method POST --body-file req.json] [--slow 8] \
//!     [--queries questions.txt] [--rate 100]
//! ```
//!
//! `--queries FILE`: `{q}` in the URL is replaced by the next line of FILE (URL-encoded), each
//! client starting at a different line, so the load is a stream of distinct queries.
//! `--rate R`: open loop (as wrk2): R requests per second in all, on a fixed schedule spread
//! over the clients; a request's latency counts from when it was due, not from when a busy
//! client got round to sending it, so queueing is not hidden (no coordinated omission).
//! Without it, each client sends its next request as soon as the last one is answered.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

struct Args {
    url: String,
    method: String,
    body: Option<Vec<u8>>,
    token: Option<String>,
    clients: usize,
    seconds: u64,
    slow: usize,
    queries: Vec<String>,
    rate: Option<f64>,
}

fn parse_args() -> Args {
    let mut a = Args {
        url: String::new(),
        method: "GET".into(),
        body: None,
        token: None,
        clients: 64,
        seconds: 30,
        slow: 0,
        queries: Vec::new(),
        rate: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        let mut v = || it.next().unwrap_or_else(|| panic!("{k} needs a value"));
        match k.as_str() {
            "--url" => a.url = v(),
            "--method" => a.method = v(),
            "--body-file" => {
                let p = v();
                a.body = Some(std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}")));
            }
            "--token" => a.token = Some(v()),
            "--clients" => a.clients = v().parse().expect("--clients N"),
            "--seconds" => a.seconds = v().parse().expect("--seconds S"),
            "--slow" => a.slow = v().parse().expect("--slow N"),
            "--queries" => {
                let p = v();
                let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"));
                a.queries = text
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                    .map(url_encode)
                    .collect();
                assert!(!a.queries.is_empty(), "{p}: no queries");
            }
            "--rate" => a.rate = Some(v().parse().expect("--rate REQUESTS_PER_SECOND")),
            other => panic!("unknown argument {other}"),
        }
    }
    let host = a
        .url
        .strip_prefix("http://")
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("--url must be http://127.0.0.1:PORT/..."));
    assert!(
        host.starts_with("127.") || host.starts_with("localhost") || host.starts_with("[::1]"),
        "load is only sent to loopback, not {host}"
    );
    assert!(
        a.queries.is_empty() || a.url.contains("{q}"),
        "--queries needs {{q}} in the URL"
    );
    assert!(
        a.rate.is_none_or(|r| r > 0.0 && r <= 100_000.0),
        "--rate must be in (0, 100000]"
    );
    assert!(
        a.seconds <= 600 && a.clients <= 1024,
        "bounded: at most 600 s and 1024 clients"
    );
    a
}

/// `s` as a URL query value.
fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b' ' => "+".to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// Misbehaving clients until `stop`: half stall mid-body for 5 s, half send half a body and
/// disconnect.
fn misbehave(addr: String, path: String, stop: Arc<AtomicBool>, stall: bool) -> usize {
    let mut n = 0;
    while !stop.load(Ordering::Relaxed) {
        if let Ok(mut s) = std::net::TcpStream::connect(&addr) {
            let _ = write!(
                s,
                "POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{{\"text\": \"half"
            );
            if stall {
                std::thread::sleep(Duration::from_secs(5));
            }
            n += 1;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    n
}

fn main() {
    let a = parse_args();
    let stop = Arc::new(AtomicBool::new(false));
    let addr = a
        .url
        .trim_start_matches("http://")
        .split('/')
        .next()
        .unwrap()
        .to_string();
    let bad: Vec<_> = (0..a.slow)
        .map(|i| {
            let (addr, stop) = (addr.clone(), stop.clone());
            std::thread::spawn(move || misbehave(addr, "/v1/chunk".into(), stop, i % 2 == 0))
        })
        .collect();
    let deadline = Instant::now() + Duration::from_secs(a.seconds);
    let started = Instant::now();
    let queries = Arc::new(a.queries.clone());
    // Open loop: client c sends its i-th request at started + (c + i * clients) / rate.
    let interval = a
        .rate
        .map(|r| Duration::from_secs_f64(a.clients as f64 / r));
    let workers: Vec<_> = (0..a.clients)
        .map(|c| {
            let (url, method, body, token, queries) = (
                a.url.clone(),
                a.method.clone(),
                a.body.clone(),
                a.token.clone(),
                queries.clone(),
            );
            let first_due = a
                .rate
                .map(|r| started + Duration::from_secs_f64(c as f64 / r));
            std::thread::spawn(move || {
                let agent = ureq::AgentBuilder::new()
                    .timeout(Duration::from_secs(60))
                    .build();
                let mut lat = Vec::new();
                let mut errors: BTreeMap<String, usize> = BTreeMap::new();
                let mut next_query = c * 7919;
                let mut due = first_due;
                while Instant::now() < deadline {
                    let t0 = match (due, interval) {
                        (Some(d), Some(step)) => {
                            if d >= deadline {
                                break;
                            }
                            if let Some(wait) = d.checked_duration_since(Instant::now()) {
                                std::thread::sleep(wait);
                            }
                            due = Some(d + step);
                            d
                        }
                        _ => Instant::now(),
                    };
                    let url = if queries.is_empty() {
                        url.clone()
                    } else {
                        next_query += 1;
                        url.replace("{q}", &queries[next_query % queries.len()])
                    };
                    let mut req = agent.request(&method, &url);
                    if let Some(t) = &token {
                        req = req.set("authorization", &format!("Bearer {t}"));
                    }
                    let r = match &body {
                        Some(b) => req.set("content-type", "application/json").send_bytes(b),
                        None => req.call(),
                    };
                    match r {
                        Ok(resp) => {
                            let _ = resp.into_string();
                            lat.push(t0.elapsed().as_secs_f64() * 1e3);
                        }
                        Err(ureq::Error::Status(code, _)) => {
                            *errors.entry(code.to_string()).or_default() += 1
                        }
                        Err(e) => *errors.entry(e.kind().to_string()).or_default() += 1,
                    }
                }
                (lat, errors)
            })
        })
        .collect();
    let mut lat = Vec::new();
    let mut errors: BTreeMap<String, usize> = BTreeMap::new();
    for w in workers {
        let (l, e) = w.join().expect("client thread");
        lat.extend(l);
        for (k, v) in e {
            *errors.entry(k).or_default() += v;
        }
    }
    let secs = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    let misbehaving: usize = bad.into_iter().map(|h| h.join().unwrap_or(0)).sum();
    lat.sort_by(f64::total_cmp);
    let pct = |p: f64| {
        if lat.is_empty() {
            f64::NAN
        } else {
            lat[((lat.len() as f64 * p).ceil() as usize).clamp(1, lat.len()) - 1]
        }
    };
    let n_err: usize = errors.values().sum();
    println!(
        "{{\"url\":\"{}\",\"method\":\"{}\",\"distinct_queries\":{},\"offered_rps\":{},\"clients\":{},\"seconds\":{:.1},\"ok\":{},\"errors\":{},\"errors_by_kind\":{:?},\"throughput_rps\":{:.1},\"p50_ms\":{:.2},\"p95_ms\":{:.2},\"p99_ms\":{:.2},\"max_ms\":{:.2},\"misbehaving_clients\":{}}}",
        a.url,
        a.method,
        a.queries.len(),
        a.rate.map_or("null".to_string(), |r| format!("{r}")),
        a.clients,
        secs,
        lat.len(),
        n_err,
        errors,
        lat.len() as f64 / secs,
        pct(0.50),
        pct(0.95),
        pct(0.99),
        lat.last().copied().unwrap_or(f64::NAN),
        misbehaving
    );
}
