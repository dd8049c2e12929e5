//! `chunklab serve` as a real process: an index built by `chunklab index` (access groups on its
//! documents), served on an ephemeral loopback port with a tokens file; `/ready` reports the
//! index, one chunk and one search request answer over HTTP (a token without the group sees
//! nothing), and bad flags are clear errors naming the flag or file.

use chunklab_test_support::{cli, stderr};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

const TOKENS: &str = r#"
[[token]]
name = "reader-a"
token = "reader-a-secret"
groups = ["team-a"]
role = "read"

[[token]]
name = "reader-b"
token = "reader-b-secret"
groups = ["team-b"]
role = "read"
"#;

fn run(args: &[&str]) -> Output {
    cli!()
        .command()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run chunklab")
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples")
}

/// A `chunklab serve` process; killed when dropped.
struct Serve {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Start `chunklab serve ARGS --port 0` and wait for the address it prints.
fn serve(args: &[&str]) -> Serve {
    let mut child = cli!()
        .command()
        .arg("serve")
        .args(args)
        .args(["--port", "0"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start chunklab serve");
    let err = child.stderr.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines().map_while(Result::ok) {
            eprintln!("serve: {line}");
            if let Some(rest) = line.split("listening on http://").nth(1) {
                let _ = tx.send(rest.trim_end_matches('/').to_string());
            }
        }
    });
    let addr = match rx.recv_timeout(Duration::from_secs(120)) {
        Ok(a) => a.parse().unwrap_or_else(|e| panic!("address `{a}`: {e}")),
        Err(_) => {
            let _ = child.kill();
            panic!("chunklab serve printed no address: {:?}", child.wait());
        }
    };
    Serve { child, addr }
}

/// One HTTP/1.0 request (the connection closes after the response): status and JSON body.
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let mut s = TcpStream::connect(addr).unwrap_or_else(|e| panic!("connect {addr}: {e}"));
    s.set_read_timeout(Some(Duration::from_secs(120))).unwrap();
    let body = body.map(Value::to_string).unwrap_or_default();
    let mut req = format!("{method} {path} HTTP/1.0\r\nhost: {addr}\r\n");
    if let Some(t) = token {
        req.push_str(&format!("authorization: Bearer {t}\r\n"));
    }
    if !body.is_empty() {
        req.push_str(&format!(
            "content-type: application/json\r\ncontent-length: {}\r\n",
            body.len()
        ));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    s.write_all(req.as_bytes()).unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let text = String::from_utf8_lossy(&raw);
    let (head, body) = text
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no HTTP response: {text}"));
    let status: u16 = head
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("status line: {head}"));
    let json = serde_json::from_str(body).unwrap_or(Value::Null);
    (status, json)
}

#[test]
fn serve_answers_ready_chunk_and_search_over_http() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    for name in [
        "motie-windenergie-2021.txt",
        "verordening-parkeren-2022.txt",
    ] {
        std::fs::copy(samples().join(name), corpus.join(name)).unwrap();
    }
    let idx = tmp.path().join("idx");
    let chunking = ["--strategy", "recursive", "--size", "400"];
    let mut args = vec![
        "index",
        corpus.to_str().unwrap(),
        "--index",
        idx.to_str().unwrap(),
        "--model",
        "minilm",
        "--acl",
        "**=team-a",
    ];
    args.extend_from_slice(&chunking);
    let out = run(&args);
    assert!(out.status.success(), "chunklab index: {}", stderr(&out));
    let tokens = tmp.path().join("tokens.toml");
    std::fs::write(&tokens, TOKENS).unwrap();

    let mut args = vec![
        "--index",
        idx.to_str().unwrap(),
        "--tokens",
        tokens.to_str().unwrap(),
        "--model",
        "minilm",
    ];
    args.extend_from_slice(&chunking);
    let s = serve(&args);
    assert!(s.addr.ip().is_loopback(), "binds loopback: {}", s.addr);
    let started = Instant::now();
    let ready = loop {
        let (status, body) = http(s.addr, "GET", "/ready", None, None);
        if status == 200 {
            break body;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "/ready: {status} {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    assert_eq!(ready["status"], "ready", "{ready}");
    assert!(
        ready["index"].is_object(),
        "/ready names the index: {ready}"
    );

    // Chunk: the recursive chunker over HTTP, each chunk within the size, the text covered.
    let text = std::fs::read_to_string(samples().join("chunking-guide.md")).unwrap();
    let (status, body) = http(
        s.addr,
        "POST",
        "/v1/chunk",
        None,
        Some(&json!({"text": text, "strategy": "recursive", "size": 300, "unit": "chars"})),
    );
    assert_eq!(status, 200, "{body}");
    let chunks = body["chunks"].as_array().expect("chunks");
    assert!(chunks.len() > 3, "{body}");
    for c in chunks {
        let t = c["text"].as_str().unwrap();
        assert!(t.chars().count() <= 300, "{c}");
        assert!(text.contains(t), "chunk text is a span of the input: {c}");
    }

    // Search: hybrid (the model loaded at start); the team-a reader finds the motie, the
    // team-b reader sees none of the team-a documents.
    let q = "/v1/search?q=windenergie%20motie&mode=hybrid&k=5";
    let (status, body) = http(s.addr, "GET", q, Some("reader-a-secret"), None);
    assert_eq!(status, 200, "{body}");
    let hits = body["hits"].as_array().expect("hits");
    assert!(!hits.is_empty(), "{body}");
    assert_eq!(hits[0]["doc_id"], "motie-windenergie-2021.txt", "{body}");
    let (status, body) = http(s.addr, "GET", q, Some("reader-b-secret"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["hits"], json!([]), "no group, no hits: {body}");
    let (status, body) = http(s.addr, "GET", q, None, None);
    assert_eq!(status, 401, "{body}");
}

/// `chunklab serve ARGS` must fail at once with an error containing every `needle`.
fn refused(args: &[&str], needles: &[&str]) {
    let mut full = vec!["serve"];
    full.extend_from_slice(args);
    let out = run(&full);
    let err = stderr(&out);
    assert!(!out.status.success(), "chunklab {full:?} succeeded: {err}");
    for n in needles {
        assert!(err.contains(n), "chunklab {full:?}: `{n}` not in: {err}");
    }
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_flags_are_clear_errors_naming_them() {
    let tmp = tempfile::tempdir().unwrap();
    refused(&["--port", "99999"], &["--port", "99999"]);
    refused(&["--bind", "localhost:80"], &["--bind", "localhost:80"]);
    let missing = tmp.path().join("no-tokens.toml");
    refused(
        &["--tokens", missing.to_str().unwrap(), "--port", "0"],
        &["no-tokens.toml", "cannot read tokens file"],
    );
    let bad = tmp.path().join("bad-tokens.toml");
    std::fs::write(
        &bad,
        "[[token]]\nname = \"x\"\ntoken = \"short\"\ngroups = []\nrole = \"read\"\n",
    )
    .unwrap();
    refused(
        &["--tokens", bad.to_str().unwrap(), "--port", "0"],
        &["bad-tokens.toml", "shorter than 8"],
    );
    // A port already taken: the address is named.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    refused(
        &["--port", &port],
        &["cannot listen on", &format!("127.0.0.1:{port}")],
    );
    let no_index = tmp.path().join("no-such-index");
    refused(
        &["--index", no_index.to_str().unwrap(), "--port", "0"],
        &["no-such-index", "no chunklab index here"],
    );
}
