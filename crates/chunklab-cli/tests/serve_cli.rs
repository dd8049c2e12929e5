//! `chunklab serve` as a real process: an index built by `chunklab index` (access groups on its
//! documents), served on an ephemeral loopback port with a tokens file; `/ready` reports the
//! index, one chunk and one search request answer over HTTP (a token without the group sees
//! nothing), and bad flags are clear errors naming the flag or file. `--store postgres://…`
//! serves a PostgreSQL store (a real server, chunklab_test_support::pg_url) for search only.

use chunklab_test_support::{cli, stderr, with_db};
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
name = "writer-a"
token = "writer-a-secret"
groups = ["team-a"]
role = "write"

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

/// One HTTP/1.0 request (the connection closes after the response): status and body.
fn http_text(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (u16, String) {
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
    (status, body.to_string())
}

/// [`http_text`] with the body as JSON (`Null` when it is not).
fn http(
    addr: SocketAddr,
    method: &str,
    path: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (u16, Value) {
    let (status, text) = http_text(addr, method, path, token, body);
    (status, serde_json::from_str(&text).unwrap_or(Value::Null))
}

const CHUNKING: [&str; 4] = ["--strategy", "recursive", "--size", "400"];

/// The motion and the parking regulation, indexed by `chunklab index` with MiniLM into
/// `flag location` (`--index DIR` or `--store URL`), every document in group team-a.
fn index_samples(dir: &Path, flag: &str, location: &str) {
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    for name in [
        "motie-windenergie-2021.txt",
        "verordening-parkeren-2022.txt",
    ] {
        std::fs::copy(samples().join(name), corpus.join(name)).unwrap();
    }
    let mut args = vec![
        "index",
        corpus.to_str().unwrap(),
        flag,
        location,
        "--model",
        "minilm",
        "--acl",
        "**=team-a",
    ];
    args.extend_from_slice(&CHUNKING);
    let out = run(&args);
    assert!(out.status.success(), "chunklab index: {}", stderr(&out));
}

/// `chunklab serve flag location` with the test tokens and the indexing flags, ready.
fn serve_ready(dir: &Path, flag: &str, location: &str) -> (Serve, Value) {
    let tokens = dir.join("tokens.toml");
    std::fs::write(&tokens, TOKENS).unwrap();
    let mut args = vec![
        flag,
        location,
        "--tokens",
        tokens.to_str().unwrap(),
        "--model",
        "minilm",
    ];
    args.extend_from_slice(&CHUNKING);
    let s = serve(&args);
    assert!(s.addr.ip().is_loopback(), "binds loopback: {}", s.addr);
    let ready = wait_ready(s.addr);
    assert_eq!(ready["status"], "ready", "{ready}");
    assert!(
        ready["index"].is_object(),
        "/ready names the index: {ready}"
    );
    (s, ready)
}

/// `/ready`'s body once it answers 200 (within a minute).
fn wait_ready(addr: SocketAddr) -> Value {
    let started = Instant::now();
    loop {
        let (status, body) = http(addr, "GET", "/ready", None, None);
        if status == 200 {
            return body;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "/ready: {status} {body}"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// Hybrid search (the model loaded at start): the team-a reader finds the motion, the team-b
/// reader sees none of the team-a documents, no token is a 401.
fn check_search(addr: SocketAddr) {
    let q = "/v1/search?q=windenergie%20motie&mode=hybrid&k=5";
    let (status, body) = http(addr, "GET", q, Some("reader-a-secret"), None);
    assert_eq!(status, 200, "{body}");
    let hits = body["hits"].as_array().expect("hits");
    assert!(!hits.is_empty(), "{body}");
    assert_eq!(hits[0]["doc_id"], "motie-windenergie-2021.txt", "{body}");
    let (status, body) = http(addr, "GET", q, Some("reader-b-secret"), None);
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["hits"], json!([]), "no group, no hits: {body}");
    let (status, body) = http(addr, "GET", q, None, None);
    assert_eq!(status, 401, "{body}");
}

#[test]
fn serve_answers_ready_chunk_and_search_over_http() {
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("idx");
    index_samples(tmp.path(), "--index", idx.to_str().unwrap());
    let (s, ready) = serve_ready(tmp.path(), "--index", idx.to_str().unwrap());
    assert_eq!(ready["index"]["documents"], 2, "{ready}");
    assert_eq!(ready["index"]["writable"], true, "{ready}");

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

    check_search(s.addr);
}

#[test]
fn serve_store_searches_postgres_and_refuses_writes() {
    let url = chunklab_test_support::pg_url();
    let name = format!("chunklab_serve_{}", std::process::id());
    let mut c = postgres::Client::connect(&url, postgres::NoTls)
        .unwrap_or_else(|e| panic!("PostgreSQL at {url}: {e}"));
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    let db = with_db(&url, &name);
    let tmp = tempfile::tempdir().unwrap();
    index_samples(tmp.path(), "--store", &db);
    let (s, ready) = serve_ready(tmp.path(), "--store", &db);
    assert_eq!(ready["index"]["documents"], 2, "{ready}");
    assert_eq!(ready["index"]["writable"], false, "{ready}");
    assert!(ready["index"]["dir"].is_null(), "{ready}");
    check_search(s.addr);
    // The store's counts in /metrics, read off the async workers.
    let (status, text) = http_text(s.addr, "GET", "/metrics", None, None);
    assert_eq!(status, 200, "{text}");
    assert!(text.contains("chunklab_index_documents 2"), "{text}");
    // Writes: 409 naming the way to write the store; by-id reads: 501.
    let doc = json!({"doc_id": "new.md", "text": "Nieuwe tekst.", "acl": ["team-a"]});
    let (status, body) = http(
        s.addr,
        "POST",
        "/v1/documents",
        Some("writer-a-secret"),
        Some(&doc),
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (409, Some("not_writable")),
        "{body}"
    );
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("chunklab index --store"),
        "{body}"
    );
    let path = "/v1/documents/motie-windenergie-2021.txt";
    let (status, body) = http(s.addr, "DELETE", path, Some("writer-a-secret"), None);
    assert_eq!(status, 409, "{body}");
    let (status, body) = http(s.addr, "GET", path, Some("reader-a-secret"), None);
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (501, Some("not_supported")),
        "{body}"
    );
    drop(s);
    let _ = c.batch_execute(&format!("DROP DATABASE IF EXISTS {name}"));
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
    // A limit of 0 refused every request or was taken as 1; an absurd size wrapped around.
    for (flag, says) in [
        ("--timeout", "--timeout must be at least 1"),
        ("--max-in-flight", "--max-in-flight must be at least 1"),
        ("--workers", "--workers must be at least 1"),
        ("--max-body-mb", "--max-body-mb must be 1 to 1048576 (MiB)"),
    ] {
        refused(&[flag, "0", "--port", "0"], &[says]);
    }
    refused(
        &["--max-upload-mb", "17592186044417", "--port", "0"],
        &["--max-upload-mb must be 1 to 1048576 (MiB)"],
    );
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
    refused(
        &["--index", "a", "--store", "b"],
        &["--index", "--store", "cannot be used with"],
    );
    let no_index = tmp.path().join("no-such-index");
    refused(
        &["--index", no_index.to_str().unwrap(), "--port", "0"],
        &["no-such-index", "no chunklab index here"],
    );
}

/// `chunklab serve --index IDX` without chunking flags writes documents with the index's own
/// configuration: an index built with flags (headings, words), one built with none, and one
/// whose manifest recorded no configuration (written before chunklab recorded it) all take
/// POST /v1/documents. The bare default build used to be refused: the server gave the
/// pipeline the index's model, which made the default unit the model's tokens, not chars.
#[test]
fn serve_without_chunking_flags_writes_with_the_index_own_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let tokens = tmp.path().join("tokens.toml");
    std::fs::write(&tokens, TOKENS).unwrap();
    let corpus = tmp.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::copy(
        samples().join("motie-windenergie-2021.txt"),
        corpus.join("motie.txt"),
    )
    .unwrap();
    let cases: [(&str, &[&str], bool); 3] = [
        (
            "headings",
            &["--strategy", "headings", "--size", "150", "--unit", "words"],
            false,
        ),
        ("defaults", &[], false),
        ("unrecorded", &[], true),
    ];
    for (name, flags, forget) in cases {
        let idx = tmp.path().join(name);
        let i = idx.to_str().unwrap();
        let mut args = vec![
            "index",
            corpus.to_str().unwrap(),
            "--index",
            i,
            "--acl",
            "**=team-a",
        ];
        args.extend_from_slice(flags);
        let out = run(&args);
        assert!(out.status.success(), "{name}: {}", stderr(&out));
        if forget {
            let path = idx.join("manifest.json");
            let mut m: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            assert!(m["settings"]["run"].is_object(), "{m}");
            m["settings"].as_object_mut().unwrap().remove("run");
            std::fs::write(&path, m.to_string()).unwrap();
        }
        let s = serve(&["--index", i, "--tokens", tokens.to_str().unwrap()]);
        let ready = wait_ready(s.addr);
        assert_eq!(ready["index"]["writable"], true, "{name}: {ready}");
        let doc = json!({"doc_id": "nieuw.txt", "text": "De raad besluit over zonnepanelen op het stadhuis.", "acl": ["team-a"]});
        let (status, body) = http(
            s.addr,
            "POST",
            "/v1/documents",
            Some("writer-a-secret"),
            Some(&doc),
        );
        assert!(status == 200 || status == 201, "{name}: {status} {body}");
        let q = "/v1/search?q=zonnepanelen%20stadhuis&mode=bm25&k=1";
        let (status, body) = http(s.addr, "GET", q, Some("reader-a-secret"), None);
        assert_eq!(status, 200, "{name}: {body}");
        assert_eq!(body["hits"][0]["doc_id"], "nieuw.txt", "{name}: {body}");
    }
}
