//! The web page in real headless Chromium, driven over WebDriver (Debian's `chromium` and
//! `chromium-driver`): chunk a sample and compare the coloured spans with the API's chunks,
//! compare two strategies, search and check the highlighted span, open the whole document.
//! Screenshots of each page go to target/tmp/chunklab-serve-screens/. Fails when Chromium is
//! missing.

mod common;

use chunklab_server::Limits;
use common::*;
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

    fn click(&self, css: &str) {
        let e = self.cmd(
            "POST",
            "/element",
            json!({"using": "css selector", "value": css}),
        );
        let id = e
            .as_object()
            .and_then(|o| o.values().next())
            .and_then(Value::as_str)
            .expect("element")
            .to_string();
        self.cmd("POST", &format!("/element/{id}/click"), json!({}));
    }

    fn wait_for(&self, script: &str, what: &str) -> Value {
        let started = Instant::now();
        loop {
            let v = self.js(script, json!([]));
            if !v.is_null() && v != json!(false) {
                return v;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "timed out waiting for {what}; page status: {}", self.js("return document.querySelector('#chunk-status').textContent + ' | ' + document.querySelector('#search-status').textContent", json!([])));
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
