//! A bounded load generator for `chunklab serve` on loopback: N concurrent keep-alive clients
//! for S seconds on one endpoint, plus optional misbehaving clients (stalling mid-upload,
//! disconnecting mid-upload) to show they do not hurt the others. Prints one JSON line:
//! requests, throughput, p50/p95/p99/max latency (ms) and errors by status.
//!
//! ```text
//! cargo run --release -p chunklab-server --example serve_load -- \
//!     --url 'http://127.0.0.1:8080/v1/search?q=inflation&mode=hybrid&k=10' --token T \
//!     --clients 64 --seconds 30 [--method POST --body-file req.json] [--slow 8]
//! ```

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
        a.seconds <= 600 && a.clients <= 1024,
        "bounded: at most 600 s and 1024 clients"
    );
    a
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
    let workers: Vec<_> = (0..a.clients)
        .map(|_| {
            let (url, method, body, token) = (
                a.url.clone(),
                a.method.clone(),
                a.body.clone(),
                a.token.clone(),
            );
            std::thread::spawn(move || {
                let agent = ureq::AgentBuilder::new()
                    .timeout(Duration::from_secs(60))
                    .build();
                let mut lat = Vec::new();
                let mut errors: BTreeMap<String, usize> = BTreeMap::new();
                while Instant::now() < deadline {
                    let mut req = agent.request(&method, &url);
                    if let Some(t) = &token {
                        req = req.set("authorization", &format!("Bearer {t}"));
                    }
                    let t0 = Instant::now();
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
        "{{\"url\":\"{}\",\"method\":\"{}\",\"clients\":{},\"seconds\":{:.1},\"ok\":{},\"errors\":{},\"errors_by_kind\":{:?},\"throughput_rps\":{:.1},\"p50_ms\":{:.2},\"p95_ms\":{:.2},\"p99_ms\":{:.2},\"max_ms\":{:.2},\"misbehaving_clients\":{}}}",
        a.url,
        a.method,
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
