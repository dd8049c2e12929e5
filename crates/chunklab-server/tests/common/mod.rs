//! A real server on an ephemeral loopback port, over a real index built by the library with
//! the MiniLM model, and a small blocking HTTP client.
#![allow(dead_code)]

use chunklab_core::{ChunkConfig, Strategy};
use chunklab_embed::Role;
use chunklab_index::IndexWriter;
use chunklab_pipeline::{Input, Pipeline, PipelineConfig};
use chunklab_server::{AppState, Limits, ServerConfig, Tokens};
use serde_json::Value;
use std::net::SocketAddr;
use std::path::Path;
use std::time::Duration;

/// Tokens of the test servers: alice (team-a, write), bob (team-b, read), carol (team-a and
/// team-b, read), dave (no groups, read).
pub const TOKENS: &str = r#"
[[token]]
name = "alice"
token = "alice-secret-1"
groups = ["team-a"]
role = "write"

[[token]]
name = "bob"
token = "bob-secret-12"
groups = ["team-b"]
role = "read"

[[token]]
name = "carol"
token = "carol-secret-1"
groups = ["team-a", "team-b"]
role = "read"

[[token]]
name = "dave"
token = "dave-secret-12"
groups = []
role = "read"
"#;
pub const ALICE: &str = "alice-secret-1";
pub const BOB: &str = "bob-secret-12";
pub const CAROL: &str = "carol-secret-1";
pub const DAVE: &str = "dave-secret-12";

/// The pipeline the test index is built and written with.
pub fn index_config() -> PipelineConfig {
    PipelineConfig {
        chunking: ChunkConfig::new(Strategy::Paragraph, 400),
        model: Some("minilm".into()),
        ..PipelineConfig::default()
    }
}

/// The two documents of the test index: (doc_id, acl group, text).
pub const DOCS: &[(&str, &str, &str)] = &[
    (
        "wind.md",
        "team-a",
        "# Windenergie\n\nDe gemeente plaatst windturbines op zee bij de haven.\n\nDe molens leveren stroom aan vierduizend huishoudens.\n",
    ),
    (
        "parkeren.md",
        "team-b",
        "# Parkeren\n\nEen parkeervergunning voor bewoners kost vijftig euro per jaar.\n\nBezoekers parkeren met een bezoekerspas en windturbines zijn hier niet.\n",
    ),
];

/// Build the test index in `dir` with the library: each document read, chunked and embedded
/// by the pipeline and written with its access group.
pub fn build_index(dir: &Path) {
    let pipeline = Pipeline::new(index_config()).expect(
        "pipeline with minilm (the model must be installed: `chunklab models fetch minilm`)",
    );
    let (spec, model) = pipeline.index_model("minilm").unwrap();
    let settings = pipeline.index_settings(&spec, model.as_ref());
    let mut w = IndexWriter::open(&dir.join("idx"), settings, false).unwrap();
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for (id, group, text) in DOCS {
        let path = src.join(id);
        std::fs::write(&path, text).unwrap();
        let input = Input::File {
            path: path.clone(),
            doc_id: id.to_string(),
        };
        let prepared = pipeline
            .prepare(&input, false)
            .unwrap_or_else(|_| panic!("{id}"));
        let processed = pipeline
            .process(&input, id, &prepared)
            .unwrap_or_else(|_| panic!("{id}"));
        let (mut doc, texts) = chunklab_pipeline::index_document(
            id,
            id,
            id.to_string(),
            prepared.text(),
            vec![group.to_string()],
            Default::default(),
            processed,
        );
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        for (c, v) in doc
            .chunks
            .iter_mut()
            .zip(model.embed(&refs, Role::Passage).unwrap())
        {
            c.vector = v;
        }
        w.add_document(doc).unwrap();
    }
    w.finish().unwrap();
}

/// A running server; the temporary directory lives as long as it.
pub struct Server {
    pub addr: SocketAddr,
    pub dir: tempfile::TempDir,
}

impl Server {
    /// `http://ADDR` + `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }
}

/// Start a server with the test index (when `with_index`) and these limits.
pub fn start(with_index: bool, limits: Limits) -> Server {
    let dir = tempfile::tempdir().unwrap();
    if with_index {
        build_index(dir.path());
    }
    let tokens = Tokens::parse(TOKENS, Path::new("tokens.toml")).unwrap();
    let state = AppState::load(ServerConfig {
        index: with_index.then(|| dir.path().join("idx")),
        store: None,
        bench_dir: Some(dir.path().to_path_buf()),
        tokens,
        write_pipeline: Some(index_config()),
        limits,
    })
    .expect("server state");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        chunklab_server::run("127.0.0.1:0".parse().unwrap(), state, move |a| {
            tx.send(a).unwrap();
        })
        .unwrap();
    });
    let addr = rx
        .recv_timeout(Duration::from_secs(30))
        .expect("server listening");
    Server { addr, dir }
}

/// One response: status and JSON body (Null when it is not JSON).
pub struct Resp {
    pub status: u16,
    pub body: Value,
    pub text: String,
}

impl Resp {
    /// The error code of an error body.
    pub fn code(&self) -> &str {
        self.body["error"]["code"].as_str().unwrap_or("")
    }
    /// The error message of an error body.
    pub fn message(&self) -> &str {
        self.body["error"]["message"].as_str().unwrap_or("")
    }
}

fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(120))
        .build()
}

fn finish(r: Result<ureq::Response, ureq::Error>) -> Resp {
    let resp = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("transport error: {e}"),
    };
    let status = resp.status();
    let text = resp.into_string().unwrap();
    let body = serde_json::from_str(&text).unwrap_or(Value::Null);
    Resp { status, body, text }
}

/// `method url` with an optional bearer token and raw body (content type given).
pub fn raw(method: &str, url: &str, token: Option<&str>, ctype: &str, body: &[u8]) -> Resp {
    let mut req = agent().request(method, url);
    if let Some(t) = token {
        req = req.set("authorization", &format!("Bearer {t}"));
    }
    if body.is_empty() && method == "GET" {
        return finish(req.call());
    }
    finish(req.set("content-type", ctype).send_bytes(body))
}

/// `method url` with a JSON body.
pub fn json(method: &str, url: &str, token: Option<&str>, body: &Value) -> Resp {
    raw(
        method,
        url,
        token,
        "application/json",
        body.to_string().as_bytes(),
    )
}

/// `GET url`.
pub fn get(url: &str, token: Option<&str>) -> Resp {
    raw("GET", url, token, "", b"")
}

/// A multipart form body: text fields and one file part.
pub fn multipart(fields: &[(&str, &str)], file: Option<(&str, &[u8])>) -> (String, Vec<u8>) {
    let boundary = "chunklab-test-boundary-7d1f";
    let mut b = Vec::new();
    for (k, v) in fields {
        b.extend_from_slice(
            format!("--{boundary}\r\ncontent-disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n")
                .as_bytes(),
        );
    }
    if let Some((name, bytes)) = file {
        b.extend_from_slice(
            format!("--{boundary}\r\ncontent-disposition: form-data; name=\"file\"; filename=\"{name}\"\r\ncontent-type: application/octet-stream\r\n\r\n").as_bytes(),
        );
        b.extend_from_slice(bytes);
        b.extend_from_slice(b"\r\n");
    }
    b.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
    (format!("multipart/form-data; boundary={boundary}"), b)
}
