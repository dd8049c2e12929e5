//! The web page in real headless Chromium, driven over WebDriver (Debian's `chromium` and
//! `chromium-driver`): chunk a sample and compare the coloured spans with the API's chunks,
//! compare two strategies, search and check the highlighted span, open the whole document;
//! run a bench job from the Bench tab and check its table and chart, open a bench JSON.
//! Screenshots of each page go to target/tmp/chunklab-serve-screens/. Fails when Chromium is
//! missing.

use crate::common::*;
use chunklab_server::Limits;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const SAMPLE: &str = "# Windenergie op zee\n\nDe gemeente plaatst windturbines op zee bij de haven; de bouw begint in het voorjaar.\n\n## Stroom\n\nDe molens leveren stroom aan vierduizend huishoudens. Het overschot gaat naar het net.\n\n## Bezwaren\n\nOmwonenden kunnen tot 1 juni bezwaar maken bij het college. 🌬️ Emoji en ë tellen als één teken.\n";

fn binary(env: &str, default: &str) -> PathBuf {
    let p = std::env::var_os(env).map_or_else(|| PathBuf::from(default), PathBuf::from);
    assert!(
        p.exists(),
        "browser test needs {} (set ${env} or install Debian's chromium and chromium-driver: apt-get install chromium chromium-driver)",
        p.display()
    );
    p
}

struct Driver {
    child: Child,
    base: String,
    session: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = ureq::delete(&format!("{}/session/{}", self.base, self.session)).call();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Driver {
    fn start() -> Driver {
        let chromium = binary("CHROMIUM", "/usr/bin/chromium");
        let driver = binary("CHROMEDRIVER", "/usr/bin/chromedriver");
        let port = free_port();
        let child = Command::new(&driver)
            .arg(format!("--port={port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", driver.display()));
        let base = format!("http://127.0.0.1:{port}");
        let started = Instant::now();
        while ureq::get(&format!("{base}/status")).call().is_err() {
            assert!(
                started.elapsed() < Duration::from_secs(20),
                "chromedriver did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        let caps = json!({"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {
                "binary": chromium.to_string_lossy(),
                "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1400,1000"]
            }
        }}});
        let r: Value = ureq::post(&format!("{base}/session"))
            .send_json(caps)
            .unwrap_or_else(|e| panic!("chromedriver refused a session: {e}"))
            .into_json()
            .unwrap();
        let session = r["value"]["sessionId"]
            .as_str()
            .expect("session id")
            .to_string();
        Driver {
            child,
            base,
            session,
        }
    }

    fn cmd(&self, method: &str, path: &str, body: Value) -> Value {
        let url = format!("{}/session/{}{path}", self.base, self.session);
        let r = match method {
            "GET" => ureq::get(&url).call(),
            _ => ureq::post(&url).send_json(body),
        };
        match r {
            Ok(r) => r.into_json::<Value>().unwrap()["value"].clone(),
            Err(ureq::Error::Status(code, r)) => {
                panic!("webdriver {path}: {code} {}", r.into_string().unwrap())
            }
            Err(e) => panic!("webdriver {path}: {e}"),
        }
    }

    fn goto(&self, url: &str) {
        self.cmd("POST", "/url", json!({"url": url}));
    }

    fn js(&self, script: &str, args: Value) -> Value {
        self.cmd(
            "POST",
            "/execute/sync",
            json!({"script": script, "args": args}),
        )
    }

    fn element(&self, css: &str) -> String {
        let e = self.cmd(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        e.as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .expect("element")
            .to_string()
    }

    fn click(&self, css: &str) {
        let id = self.element(css);
        self.cmd("POST", &format!("/element/{id}/click"), json!({}));
    }

    /// Type `text` into the element (for a file input: the path of the file to choose).
    fn send_keys(&self, css: &str, text: &str) {
        let id = self.element(css);
        self.cmd(
            "POST",
            &format!("/element/{id}/value"),
            json!({"text": text}),
        );
    }

    fn wait_for(&self, script: &str, what: &str) -> Value {
        let started = Instant::now();
        loop {
            let v = self.js(script, json!([]));
            if !v.is_null() && v != json!(false) {
                return v;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "timed out waiting for {what}; page status: {}", self.js("return ['#chunk-status', '#search-status', '#bench-status'].map(s => document.querySelector(s).textContent).join(' | ')", json!([])));
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn screenshot(&self, name: &str) -> PathBuf {
        let b64 = self.cmd("GET", "/screenshot", Value::Null);
        let bytes = base64_decode(b64.as_str().unwrap());
        assert!(bytes.starts_with(b"\x89PNG"), "screenshot is not a PNG");
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("chunklab-serve-screens");
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    }
}

fn base64_decode(s: &str) -> Vec<u8> {
    let val = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("bad base64"),
    };
    let clean: Vec<u8> = s
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut n = 0u32;
        for (i, c) in chunk.iter().enumerate() {
            n |= (val(*c) as u32) << (18 - 6 * i);
        }
        out.push((n >> 16) as u8);
        if chunk.len() > 2 {
            out.push((n >> 8) as u8);
        }
        if chunk.len() > 3 {
            out.push(n as u8);
        }
    }
    out
}

/// For panel `side`: per chunk index, the concatenated text of the coloured segments that
/// cover it.
const SEGMENTS: &str = "const v = document.querySelector('#view-' + arguments[0]); if (!v) return null; \
    const by = {}; for (const s of v.querySelectorAll('span.seg')) { \
      const bg = getComputedStyle(s).backgroundColor; if (bg === 'rgba(0, 0, 0, 0)') return 'uncoloured segment'; \
      for (const i of s.dataset.chunks.split(' ')) by[i] = (by[i] || '') + s.textContent; } return by;";

fn api_chunks(s: &Server, cfg: Value) -> Vec<String> {
    let r = json("POST", &s.url("/v1/chunk"), None, &cfg);
    assert_eq!(r.status, 200, "{}", r.text);
    r.body["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap().to_string())
        .collect()
}

fn assert_panel_matches(d: &Driver, side: &str, expected: &[String]) {
    let by = d.js(SEGMENTS, json!([side]));
    let by = by
        .as_object()
        .unwrap_or_else(|| panic!("panel {side}: {by}"));
    assert_eq!(
        by.len(),
        expected.len(),
        "panel {side}: coloured chunks vs the API's chunk count"
    );
    for (i, text) in expected.iter().enumerate() {
        assert_eq!(
            by[&i.to_string()].as_str().unwrap(),
            text,
            "panel {side}: chunk {i}"
        );
    }
}

#[test]
fn page_chunks_compares_and_searches_in_chromium() {
    let s = start(true, Limits::default());
    let d = Driver::start();
    d.goto(&s.url("/"));
    let title = d.js("return document.title", json!([]));
    assert_eq!(title, "chunklab");
    // Strategy A: recursive 60 chars with overlap 15 (overlaps visible); B: headings.
    d.js(
        "document.querySelector('#text').value = arguments[0]; \
         document.querySelector('#strategy-a').value = 'recursive'; document.querySelector('#size-a').value = '60'; \
         document.querySelector('#overlap-a').value = '15'; document.querySelector('#compare').checked = true; \
         document.querySelector('#strategy-b').value = 'headings'; document.querySelector('#size-b').value = '120';",
        json!([SAMPLE]),
    );
    d.click("#run");
    d.wait_for("return document.querySelector('#view-b') !== null && document.querySelector('#view-a') !== null", "both panels");
    let a = api_chunks(
        &s,
        json!({"text": SAMPLE, "strategy": "recursive", "size": 60, "overlap": 15, "unit": "chars"}),
    );
    let b = api_chunks(
        &s,
        json!({"text": SAMPLE, "strategy": "headings", "size": 120, "unit": "chars"}),
    );
    assert!(a.len() > 4 && b.len() >= 2, "a {} b {}", a.len(), b.len());
    assert_panel_matches(&d, "a", &a);
    assert_panel_matches(&d, "b", &b);
    let overlaps = d.js(
        "return document.querySelectorAll('#view-a .seg.overlap').length",
        json!([]),
    );
    assert!(
        overlaps.as_u64().unwrap() > 0,
        "overlapping chunks are marked"
    );
    // Pointing at a chunk (the WebDriver pointer moves over it) shows its details.
    d.click("#view-b .seg");
    let info = d.js(
        "return document.querySelector('#info').textContent",
        json!([]),
    );
    let info = info.as_str().unwrap();
    assert!(
        info.contains("headings: ") && info.contains("Windenergie op zee") && info.contains("id "),
        "{info}"
    );
    let bars = d.js(
        "return document.querySelectorAll('#panel-a .hist div').length",
        json!([]),
    );
    assert!(bars.as_u64().unwrap() >= 1);
    let shot = d.screenshot("chunks.png");
    eprintln!("screenshot: {}", shot.display());

    // Search, with the token typed into the page.
    d.click("#tab-search");
    d.js(
        "const t = document.querySelector('#token'); t.value = arguments[0]; t.dispatchEvent(new Event('change')); \
         document.querySelector('#q').value = 'windturbines'; document.querySelector('#mode').value = 'hybrid';",
        json!([ALICE]),
    );
    d.click("#search-run");
    d.wait_for(
        "return document.querySelectorAll('#hits mark.hit').length > 0",
        "search hits",
    );
    let api = json(
        "POST",
        &s.url("/v1/search"),
        Some(ALICE),
        &json!({"q": "windturbines", "mode": "hybrid", "k": 10}),
    );
    let marks = d.js(
        "return [...document.querySelectorAll('#hits mark.hit')].map(m => m.textContent)",
        json!([]),
    );
    let want: Vec<Value> = api.body["hits"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["text"].clone())
        .collect();
    assert_eq!(
        marks.as_array().unwrap(),
        &want,
        "highlighted spans are the API's hits"
    );
    assert!(marks[0].as_str().unwrap().contains("windturbines"));
    let context = d.js(
        "return document.querySelector('#hits .hit-context').textContent",
        json!([]),
    );
    assert!(
        context.as_str().unwrap().contains("Windenergie"),
        "hit shown in its context: {context}"
    );
    d.screenshot("search.png");
    // The whole document with every chunk marked and the hit's chunk current.
    d.click("#hits a");
    d.wait_for("return !document.querySelector('#doc-view').hidden && document.querySelector('#doc-text .seg.current') !== null", "document view");
    let current = d.js(
        "return document.querySelector('#doc-text .seg.current').textContent",
        json!([]),
    );
    assert!(
        want[0]
            .as_str()
            .unwrap()
            .contains(current.as_str().unwrap().trim()),
        "{current}"
    );
    d.screenshot("document.png");
}

/// Two fixed and two recursive BM25 configurations: a bench run of a second, no model needed.
const BENCH_SWEEP: &str = "mode = \"bm25\"\nunit = \"chars\"\nk = 2\n[[config]]\nstrategy = [\"fixed\", \"recursive\"]\nsize = [60, 150]\n";

/// A corpus of the test documents and the sample, with a labelled question per document.
fn write_corpus(dir: &Path) -> (PathBuf, PathBuf) {
    let corpus = dir.join("bench-corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    let mut docs: Vec<(&str, &str)> = DOCS.iter().map(|(id, _, t)| (*id, *t)).collect();
    docs.push(("sample.md", SAMPLE));
    let questions = [
        (
            "wind.md",
            "Hoeveel huishoudens krijgen stroom van de molens?",
            "vierduizend huishoudens",
        ),
        (
            "parkeren.md",
            "Wat kost een parkeervergunning voor bewoners?",
            "vijftig euro per jaar",
        ),
        (
            "sample.md",
            "Tot wanneer kan men bezwaar maken?",
            "tot 1 juni bezwaar maken",
        ),
    ];
    let mut queries = String::new();
    for (i, (doc, q, answer)) in questions.iter().enumerate() {
        let text = docs.iter().find(|(id, _)| id == doc).unwrap().1;
        let byte = text.find(answer).unwrap();
        let start = text[..byte].chars().count();
        let end = start + answer.chars().count();
        queries.push_str(
            &json!({"id": format!("q{i}"), "query": q,
            "relevant_spans": [{"doc_id": doc, "start_char": start, "end_char": end}]})
            .to_string(),
        );
        queries.push('\n');
    }
    for (id, text) in &docs {
        std::fs::write(corpus.join(id), text).unwrap();
    }
    let q = dir.join("bench-queries.jsonl");
    std::fs::write(&q, queries).unwrap();
    (corpus, q)
}

/// The labels of the bench table's rows, top to bottom.
const TABLE_LABELS: &str =
    "return [...document.querySelectorAll('#bench-table tbody tr')].map(r => r.dataset.label)";

#[test]
fn page_bench_runs_a_job_and_opens_a_bench_json_in_chromium() {
    let s = start(false, Limits::default());
    let (corpus, queries) = write_corpus(s.dir.path());
    let extra = json!({"config_text": BENCH_SWEEP, "no_cache": true});
    let d = Driver::start();
    d.goto(&s.url("/"));
    d.click("#tab-bench");
    d.js(
        "const t = document.querySelector('#token'); t.value = arguments[0]; t.dispatchEvent(new Event('change')); \
         document.querySelector('#bench-dataset').value = 'corpus'; \
         document.querySelector('#bench-corpus').value = arguments[1]; \
         document.querySelector('#bench-queries').value = arguments[2]; \
         document.querySelector('#bench-extra').value = arguments[3];",
        json!([ALICE, corpus, queries, extra.to_string()]),
    );
    d.click("#bench-run");
    let status = d.wait_for(
        "const s = document.querySelector('#bench-status').textContent; \
         return !document.querySelector('#bench-result').hidden && / done in /.test(s) ? s : null",
        "the bench job to finish",
    );
    // The job the page ran, as the API reports it.
    let id = status
        .as_str()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .to_string();
    let job = get(&s.url(&format!("/v1/jobs/{id}")), Some(ALICE));
    assert_eq!(
        (job.status, job.body["status"].as_str()),
        (200, Some("done")),
        "{}",
        job.text
    );
    let result = &job.body["result"];
    let rows = result["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 4, "{}", job.text);
    // Progress as the events told it: the notes of the run, the bar full.
    let notes = d.js(
        "return document.querySelector('#bench-notes').textContent",
        json!([]),
    );
    assert!(notes.as_str().unwrap().contains("3 documents"), "{notes}");
    let bar = d.js(
        "const b = document.querySelector('#bench-bar'); return [b.value, b.max]",
        json!([]),
    );
    assert_eq!(bar[0], bar[1], "progress bar at its end: {bar}");
    // The table: one row per configuration, best recall first.
    let labels = d.js(TABLE_LABELS, json!([]));
    let labels: Vec<&str> = labels
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let recall = |r: &Value| r["metrics"]["recall"].as_f64().unwrap();
    let best = rows.iter().map(recall).fold(f64::NEG_INFINITY, f64::max);
    let mut want: Vec<&str> = rows.iter().map(|r| r["label"].as_str().unwrap()).collect();
    let mut got = labels.clone();
    want.sort();
    got.sort();
    assert_eq!(got, want, "table rows are the job's configurations");
    let top = rows.iter().find(|r| r["label"] == labels[0]).unwrap();
    assert_eq!(recall(top), best, "best recall on top: {labels:?}");
    assert_eq!(
        d.js(
            "return document.querySelector('#bench-metric').value",
            json!([])
        ),
        "recall"
    );
    // The chart: a point per configuration at its quality and cost, the Pareto front drawn.
    let points = d.js(
        "return [...document.querySelectorAll('#bench-scatter circle.pt')].map(c => c.dataset.label)",
        json!([]),
    );
    let mut points: Vec<&str> = points
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    points.sort();
    assert_eq!(points, want, "chart points");
    let front = d.js("return document.querySelector('#bench-scatter polyline.pareto').getAttribute('points').trim().split(' ').length", json!([]));
    assert!(front.as_u64().unwrap() >= 1, "{front}");
    let shot = d.screenshot("bench.png");
    eprintln!("screenshot: {}", shot.display());

    // Open the job's result as a bench JSON file in a fresh page: the same table.
    let mut file_json = result.clone();
    file_json["dataset"] = json!("opened-from-file");
    let file = s.dir.path().join("bench.json");
    std::fs::write(&file, serde_json::to_string_pretty(&file_json).unwrap()).unwrap();
    d.goto(&s.url("/"));
    d.click("#tab-bench");
    d.send_keys("#bench-file", file.to_str().unwrap());
    d.wait_for(
        "return document.querySelector('#bench-title').textContent.startsWith('opened-from-file') ? true : null",
        "the opened bench JSON",
    );
    assert_eq!(
        d.js(TABLE_LABELS, json!([])),
        json!(labels),
        "same table from the file"
    );
    d.screenshot("bench-open.png");
    // A file that is not a bench JSON is named in the error.
    let bad = s.dir.path().join("not-bench.json");
    std::fs::write(&bad, "{\"hello\": 1}").unwrap();
    d.send_keys("#bench-file", bad.to_str().unwrap());
    let err = d.wait_for(
        "const s = document.querySelector('#bench-status'); return s.className === 'error' ? s.textContent : null",
        "the error for a file that is not a bench JSON",
    );
    assert!(err.as_str().unwrap().contains("not-bench.json"), "{err}");
}
