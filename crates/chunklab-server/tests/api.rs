//! The HTTP API against a real server on an ephemeral loopback port: every endpoint, tokens and
//! ACLs in every search mode, limits, malformed bodies and bad uploads.

use crate::common::*;
use chunklab_server::Limits;
use serde_json::{json, Value};
use std::io::{Read, Write};
use std::time::Duration;

/// Every field `chunklab chunk` writes in JSONL.
const JSONL_FIELDS: &[&str] = &[
    "id",
    "doc_id",
    "source",
    "index",
    "total",
    "start_byte",
    "end_byte",
    "start_char",
    "end_char",
    "tokens",
    "unit",
    "strategy",
    "headings",
    "page",
    "page_end",
    "lines",
    "kind",
    "symbol",
    "language",
    "level",
    "parent_id",
    "prefix",
    "context",
    "text",
];

#[test]
fn health_ready_metrics_and_one_error_shape() {
    let s = start(false, Limits::default());
    let r = get(&s.url("/health"), None);
    assert_eq!((r.status, r.body["status"].as_str()), (200, Some("ok")));
    let r = get(&s.url("/ready"), None);
    assert_eq!(r.status, 200);
    assert!(r.body["index"].is_null());
    let r = get(&s.url("/nope"), None);
    assert_eq!((r.status, r.code()), (404, "not_found"), "{}", r.text);
    let r = raw("DELETE", &s.url("/health"), None, "", b"");
    assert_eq!((r.status, r.code()), (405, "method_not_allowed"));
    // Index endpoints on a server without an index: 503 with the reason.
    let r = get(&s.url("/v1/search?q=wind"), Some(ALICE));
    assert_eq!((r.status, r.code()), (503, "no_index"), "{}", r.text);
    let m = get(&s.url("/metrics"), None);
    assert_eq!(m.status, 200);
    assert!(
        m.text
            .contains("chunklab_http_requests_total{route=\"/health\",status=\"200\"} 1"),
        "{}",
        m.text
    );
    assert!(m
        .text
        .contains("chunklab_http_request_duration_seconds_bucket{route=\"/health\""));
}

#[test]
fn chunk_text_returns_every_jsonl_field_with_exact_spans() {
    let s = start(false, Limits::default());
    let text = "# Titel\n\nEerste alinea over windenergie op zee.\n\nTweede alinea over parkeren in de stad, wat langer is dan de eerste.\n";
    let r = json(
        "POST",
        &s.url("/v1/chunk"),
        None,
        &json!({"text": text, "strategy": "recursive", "size": 40, "unit": "chars", "include_text": true}),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    let chunks = r.body["chunks"].as_array().unwrap();
    assert!(chunks.len() >= 3, "{}", r.text);
    for c in chunks {
        for f in JSONL_FIELDS {
            assert!(c.get(*f).is_some(), "field `{f}` missing in {c}");
        }
        let (a, b) = (
            c["start_byte"].as_u64().unwrap() as usize,
            c["end_byte"].as_u64().unwrap() as usize,
        );
        assert_eq!(c["text"].as_str().unwrap(), &text[a..b]);
        assert!(c["tokens"].as_u64().unwrap() <= 40);
        assert_eq!(c["unit"], "chars");
    }
    assert_eq!(r.body["documents"][0]["text"], text);
    assert_eq!(r.body["documents"][0]["chunks"], chunks.len());

    // A list of texts: one document each, ids numbered.
    let r = json(
        "POST",
        &s.url("/v1/chunk"),
        None,
        &json!({"texts": ["een twee drie", "vier vijf"], "strategy": "fixed", "size": 2, "unit": "words"}),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    let ids: Vec<&str> = r.body["documents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["doc_id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["text-0", "text-1"]);
    assert_eq!(r.body["chunks"].as_array().unwrap().len(), 3);

    // Token sizes with cl100k, as in the issue's example.
    let r = json(
        "POST",
        &s.url("/v1/chunk"),
        None,
        &json!({"text": text, "strategy": "recursive", "size": 12, "unit": "tokens", "tokenizer": "cl100k"}),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(
        r.body["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["tokens"].as_u64().unwrap() <= 12 && c["unit"] == "cl100k"),
        "{}",
        r.text
    );
}

#[test]
fn bad_configuration_keys_are_422_naming_the_parameter() {
    let s = start(false, Limits::default());
    let cases: &[(Value, &str)] = &[
        (json!({"text": "x", "sise": 10}), "sise"),
        (json!({"text": "x", "size": "big"}), "size"),
        (json!({"text": "x", "strategy": "magic"}), "strategy"),
        (json!({"text": "x", "size": 100, "overlap": 200}), "overlap"),
        (
            json!({"text": "x", "tokenizer": "/etc/passwd"}),
            "tokenizer",
        ),
        (json!({"text": "x", "model": "e5-small"}), "model"),
        (json!({"text": "x", "llm": "local:smollm2"}), "llm"),
        (json!({"text": "x", "parser": "docbook"}), "parser"),
        (json!({"size": 10}), "text"),
        (json!({"text": "x", "texts": ["y"]}), "text"),
        (json!({"text": 5}), "text"),
    ];
    for (body, param) in cases {
        let r = json("POST", &s.url("/v1/chunk"), None, body);
        assert_eq!(r.status, 422, "{body}: {}", r.text);
        assert_eq!(r.code(), "invalid_parameter", "{body}");
        assert!(
            r.message().contains(param),
            "{body}: message `{}` does not name `{param}`",
            r.message()
        );
    }
}

#[test]
fn reading_keys_are_the_cli_s_flags_on_chunk_and_parse() {
    // The CLI's `--ocr never --ocr-lang nld --max-elements N` as flat fields, on both endpoints
    // (chunk took only parser, encoding and lossy; parse wanted `ocr` as a nested table).
    let s = start(false, Limits::default());
    let text = "# Motie\n\nOver windenergie.";
    for path in ["/v1/chunk", "/v1/parse"] {
        let r = json(
            "POST",
            &s.url(path),
            None,
            &json!({"text": text, "source": "m.md", "ocr": "never", "ocr_lang": "nld",
                    "ocr_min_confidence": 50, "max_elements": 1000}),
        );
        assert_eq!(r.status, 200, "{path}: {}", r.text);
        for (body, param) in [
            (json!({"text": text, "ocr": "sometimes"}), "ocr"),
            (json!({"text": text, "ocr_timeout": -1}), "ocr_timeout"),
            (json!({"text": text, "ocr_langs": "nld"}), "ocr_langs"),
        ] {
            let r = json("POST", &s.url(path), None, &body);
            assert_eq!(r.status, 422, "{path} {body}: {}", r.text);
            assert!(
                r.message().starts_with(&format!("invalid `{param}`")),
                "{path} {body}: {}",
                r.message()
            );
        }
    }
    // Parse reads; chunking keys are no parse fields, and the LLM's keys are no server's.
    let r = json(
        "POST",
        &s.url("/v1/parse"),
        None,
        &json!({"text": text, "size": 10}),
    );
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(
        r.message().contains("unknown field `size`"),
        "{}",
        r.message()
    );
    let r = json(
        "POST",
        &s.url("/v1/chunk"),
        None,
        &json!({"text": text, "context_prompt": "p.txt"}),
    );
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(
        r.message()
            .contains("`context_prompt` is not available through the server"),
        "{}",
        r.message()
    );
}

#[test]
fn malformed_bodies_are_400_and_never_hurt_the_server() {
    let s = start(true, Limits::default());
    let garbage: &[(&str, &[u8])] = &[
        ("application/json", b"{not json"),
        ("application/json", b"[1,2,3]"),
        ("application/json", b"\xff\xfe\x00garbage"),
        ("application/json", b""),
        ("application/json", b"null"),
        ("text/plain", b"hello"),
        ("multipart/form-data", b"--x\r\n"),
        (
            "multipart/form-data; boundary=zz",
            b"--zz\r\ncontent-disposition: form-data; name=\"text\"\r\n\r\nabc",
        ),
    ];
    for path in [
        "/v1/chunk",
        "/v1/parse",
        "/v1/search",
        "/v1/documents",
        "/v1/embed",
    ] {
        for (ctype, body) in garbage {
            let r = raw("POST", &s.url(path), Some(ALICE), ctype, body);
            assert!(
                r.status == 400 || r.status == 422,
                "{path} {ctype} {:?}: {} {}",
                String::from_utf8_lossy(body),
                r.status,
                r.text
            );
            assert!(
                !r.code().is_empty(),
                "{path}: not the error shape: {}",
                r.text
            );
        }
    }
    // A field given twice is refused, not taken as its last value; an array is no object.
    for (body, says) in [
        (
            &br#"{"text": "a", "size": 10, "text": "b"}"#[..],
            "the body gives `text` twice",
        ),
        (b"[1]", "the body must be a JSON object"),
        (b"{\"text\": ", "the body is not JSON: EOF"),
    ] {
        let r = raw("POST", &s.url("/v1/chunk"), None, "application/json", body);
        assert_eq!((r.status, r.code()), (400, "bad_request"), "{}", r.text);
        assert!(r.text.contains(says), "{}", r.text);
    }
    assert_eq!(get(&s.url("/health"), None).status, 200);
}

#[test]
fn uploads_of_real_and_broken_files() {
    let s = start(false, Limits::default());
    let docs = chunklab_test_support::shared_path("datasets/documents");
    let docx = std::fs::read(docs.join("docx/raadsbesluit.docx")).unwrap();
    let (ct, body) = multipart(
        &[("strategy", "elements"), ("size", "512")],
        Some(("raadsbesluit.docx", &docx)),
    );
    let r = raw("POST", &s.url("/v1/chunk"), None, &ct, &body);
    assert_eq!(r.status, 200, "{}", r.text);
    let chunks = r.body["chunks"].as_array().unwrap();
    assert!(!chunks.is_empty());
    assert!(chunks
        .iter()
        .all(|c| c["source"] == "raadsbesluit.docx" && c["strategy"] == "elements"));
    assert!(
        chunks
            .iter()
            .any(|c| !c["headings"].as_array().unwrap().is_empty()),
        "{}",
        r.text
    );

    let pdf = std::fs::read(docs.join("pdf/pg-sql-createtable.pdf")).unwrap();
    let (ct, body) = multipart(
        &[("strategy", "recursive"), ("size", "800")],
        Some(("createtable.pdf", &pdf)),
    );
    let r = raw("POST", &s.url("/v1/chunk"), None, &ct, &body);
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(
        r.body["chunks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["page"].as_u64().is_some()),
        "pdf chunks have pages"
    );

    // A broken PDF: 422 naming the upload, never the server's temporary path.
    let (ct, body) = multipart(
        &[],
        Some((
            "broken.pdf",
            b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage",
        )),
    );
    let r = raw("POST", &s.url("/v1/chunk"), None, &ct, &body);
    assert_eq!((r.status, r.code()), (422, "unreadable_file"), "{}", r.text);
    assert!(
        r.message().contains("broken.pdf") && !r.message().contains("chunklab-serve-"),
        "{}",
        r.message()
    );
    // Binary junk under a text name.
    let (ct, body) = multipart(&[], Some(("junk.txt", &[0u8, 1, 2, 0, 255, 0, 7][..])));
    let r = raw("POST", &s.url("/v1/chunk"), None, &ct, &body);
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.message().contains("junk.txt"), "{}", r.text);
    // A hostile file name stays inside the server's temporary directory.
    let (ct, body) = multipart(
        &[("size", "100")],
        Some(("../../etc/evil.md", b"# Kop\n\ntekst")),
    );
    let r = raw("POST", &s.url("/v1/chunk"), None, &ct, &body);
    assert_eq!(r.status, 200, "{}", r.text);
}

#[test]
fn parse_returns_the_element_tree() {
    let s = start(false, Limits::default());
    let r = json(
        "POST",
        &s.url("/v1/parse"),
        None,
        &json!({"text": "# Kop\n\nEen alinea.\n\n## Sub\n\n- punt\n", "parser": "markdown"}),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    let d = &r.body["documents"][0];
    assert_eq!(d["format"], "markdown");
    let els = d["elements"].as_array().unwrap();
    assert!(
        els.iter()
            .any(|e| e["type"] == "heading" && e["title"] == "Kop"),
        "{}",
        r.text
    );
    assert!(els.iter().any(|e| e["text"] == "Een alinea."), "{}", r.text);
}

#[test]
fn body_and_upload_limits_are_413() {
    let s = start(
        false,
        Limits {
            body_bytes: 1000,
            upload_bytes: 4000,
            ..Limits::default()
        },
    );
    let r = json(
        "POST",
        &s.url("/v1/chunk"),
        None,
        &json!({"text": "a".repeat(2000)}),
    );
    assert_eq!((r.status, r.code()), (413, "too_large"), "{}", r.text);
    let big = vec![b'a'; 10_000];
    let (ct, body) = multipart(&[], Some(("big.txt", &big)));
    let r = raw("POST", &s.url("/v1/chunk"), None, &ct, &body);
    assert_eq!((r.status, r.code()), (413, "too_large"), "{}", r.text);
    let (ct, body) = multipart(&[], Some(("small.txt", &big[..2000])));
    assert_eq!(
        raw("POST", &s.url("/v1/chunk"), None, &ct, &body).status,
        200
    );
}

/// A client that sends headers and stalls mid-body holds one slot; with a limit of 2 the next
/// request still runs, the one after is refused with 429, and the request timeout frees the
/// stalled slot.
#[test]
fn slow_clients_limits_429_and_timeout_503() {
    let s = start(
        false,
        Limits {
            max_in_flight: 2,
            request_timeout: Duration::from_secs(2),
            ..Limits::default()
        },
    );
    let mut slow = std::net::TcpStream::connect(s.addr).unwrap();
    write!(
        slow,
        "POST /v1/chunk HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{{\"text\": \"stalled"
    )
    .unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let ok = json("POST", &s.url("/v1/chunk"), None, &json!({"text": "snel"}));
    assert_eq!(ok.status, 200, "{}", ok.text);
    let mut slow2 = std::net::TcpStream::connect(s.addr).unwrap();
    write!(slow2, "POST /v1/chunk HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{{").unwrap();
    std::thread::sleep(Duration::from_millis(300));
    let r = json(
        "POST",
        &s.url("/v1/chunk"),
        None,
        &json!({"text": "te veel"}),
    );
    assert_eq!(
        (r.status, r.code()),
        (429, "too_many_requests"),
        "{}",
        r.text
    );
    // The stalled request times out with 503.
    let mut answer = String::new();
    slow.set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let _ = slow.read_to_string(&mut answer);
    assert!(answer.starts_with("HTTP/1.1 503"), "{answer}");
    assert!(answer.contains("\"timeout\""), "{answer}");
    drop(slow2);
    std::thread::sleep(Duration::from_millis(2500));
    assert_eq!(
        json("POST", &s.url("/v1/chunk"), None, &json!({"text": "weer"})).status,
        200
    );
    let m = get(&s.url("/metrics"), None);
    assert!(
        m.text.contains("chunklab_http_rejected_total 1"),
        "{}",
        m.text
    );
}

fn search(s: &Server, token: &str, q: &str, extra: &str) -> Resp {
    get(
        &s.url(&format!("/v1/search?q={q}&k=10{extra}")),
        Some(token),
    )
}

fn docs_of(r: &Resp) -> Vec<String> {
    let mut d: Vec<String> = r.body["hits"]
        .as_array()
        .unwrap_or_else(|| panic!("no hits: {}", r.text))
        .iter()
        .map(|h| h["doc_id"].as_str().unwrap().to_string())
        .collect();
    d.sort();
    d.dedup();
    d
}

#[test]
fn tokens_and_acls_in_every_search_mode() {
    let s = start(true, Limits::default());
    // No token, a wrong token, a malformed header.
    let r = get(&s.url("/v1/search?q=windturbines"), None);
    assert_eq!((r.status, r.code()), (401, "unauthorized"));
    let r = get(
        &s.url("/v1/search?q=windturbines"),
        Some("not-a-token-at-all"),
    );
    assert_eq!(r.status, 401);
    let r = raw("GET", &s.url("/v1/search?q=wind"), None, "", b"");
    assert_eq!(r.status, 401);
    // "windturbines" occurs in both documents; each token sees only its group's.
    for mode in ["bm25", "dense", "hybrid"] {
        let m = format!("&mode={mode}");
        assert_eq!(
            docs_of(&search(&s, ALICE, "windturbines", &m)),
            ["wind.md"],
            "{mode}"
        );
        assert_eq!(
            docs_of(&search(&s, BOB, "windturbines", &m)),
            ["parkeren.md"],
            "{mode}"
        );
        assert_eq!(
            docs_of(&search(&s, CAROL, "windturbines", &m)),
            ["parkeren.md", "wind.md"],
            "{mode}"
        );
        assert!(
            docs_of(&search(&s, DAVE, "windturbines", &m)).is_empty(),
            "{mode}"
        );
        // The caller's own acl filter is intersected with its groups, never widened.
        assert!(
            docs_of(&search(
                &s,
                ALICE,
                "windturbines",
                &format!("{m}&filter=acl=team-b")
            ))
            .is_empty(),
            "{mode}"
        );
        assert_eq!(
            docs_of(&search(
                &s,
                CAROL,
                "windturbines",
                &format!("{m}&filter=acl=team-b")
            )),
            ["parkeren.md"],
            "{mode}"
        );
    }
    // POST search, with context around each hit.
    let r = json(
        "POST",
        &s.url("/v1/search"),
        Some(ALICE),
        &json!({"q": "windturbines op zee", "mode": "hybrid", "k": 3, "context_chars": 20}),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    let h = &r.body["hits"][0];
    assert_eq!(h["doc_id"], "wind.md");
    assert!(h["text"].as_str().unwrap().contains("windturbines"));
    let shown = format!(
        "{}{}{}",
        h["before"].as_str().unwrap(),
        h["text"].as_str().unwrap(),
        h["after"].as_str().unwrap()
    );
    assert!(
        shown.len() > h["text"].as_str().unwrap().len() && DOCS[0].2.contains(&shown),
        "{}",
        r.text
    );
    // Bad search parameters name the parameter.
    for (q, param) in [
        ("&k=0", "k"),
        ("&mode=fuzzy", "mode"),
        ("&topk=3", "topk"),
        ("&filter=colour=red", "colour"),
        ("&ef=0", "ef"),
        ("&ef=20000", "`ef`: must be between 1 and 10000"),
        // In a JSON user's words, not serde's Rust types.
        (
            "&k=-1",
            "`k`: invalid value: integer `-1`, expected a whole number, 0 or more",
        ),
        (
            "&k=2.5",
            "`k`: invalid type: floating point `2.5`, expected a whole number",
        ),
    ] {
        let r = search(&s, ALICE, "wind", q);
        assert_eq!(r.status, 422, "{q}: {}", r.text);
        assert!(r.message().contains(param), "{q}: {}", r.message());
    }
    assert_eq!(search(&s, ALICE, "", "").status, 422);
    // An empty query is named as the caller named the field.
    let r = json(
        "POST",
        &s.url("/v1/search"),
        Some(ALICE),
        &json!({"query": " ", "k": 2}),
    );
    assert_eq!(r.status, 422, "{}", r.text);
    assert_eq!(r.message(), "invalid `query`: the query is empty");
    // A query's own HNSW candidate list is taken (the same hits on this small index).
    let (plain, wide) = (
        search(&s, ALICE, "wind", "&mode=dense"),
        search(&s, ALICE, "wind", "&mode=dense&ef=300"),
    );
    assert_eq!((plain.status, wide.status), (200, 200), "{}", wide.text);
    assert_eq!(plain.body["hits"], wide.body["hits"]);

    // Chunks by id: visible only to holders of the group; others get 404, not 403.
    let hit = &search(&s, BOB, "parkeervergunning", "&mode=bm25").body["hits"][0];
    let id = hit["chunk_id"].as_str().unwrap();
    let r = get(&s.url(&format!("/v1/chunks/{id}")), Some(BOB));
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["doc_id"], "parkeren.md");
    // The store holds no chunk texts in memory: this one is cut from its document.
    assert!(!hit["text"].as_str().unwrap().is_empty());
    assert_eq!(r.body["text"], hit["text"]);
    assert_eq!(
        get(&s.url(&format!("/v1/chunks/{id}")), Some(ALICE)).status,
        404
    );
    assert_eq!(get(&s.url(&format!("/v1/chunks/{id}")), None).status, 401);
    assert_eq!(
        get(&s.url("/v1/documents/parkeren.md"), Some(ALICE)).status,
        404
    );
    let d = get(&s.url("/v1/documents/parkeren.md"), Some(CAROL));
    assert_eq!(d.status, 200);
    assert_eq!(d.body["text"], DOCS[1].2);
}

#[test]
fn documents_from_forms_and_documents_without_an_id() {
    let s = start(true, Limits::default());
    let text = b"# Windmolens\n\nDe raad stemt in met windmolens op zee.\n";
    // A form's one group is a string; the document is written with it.
    let (ct, body) = multipart(&[("acl", "team-a")], Some(("wind.md", text)));
    let r = raw("POST", &s.url("/v1/documents"), Some(ALICE), &ct, &body);
    assert_eq!(r.status, 200, "{}", r.text);
    let d = get(&s.url("/v1/documents/wind.md"), Some(CAROL));
    assert_eq!(d.body["acl"], json!(["team-a"]), "{}", d.text);
    // A field sent twice keeps both values: team-b, which alice does not hold, is not dropped
    // for the later team-a.
    let (ct, body) = multipart(
        &[("acl", "team-b"), ("acl", "team-a")],
        Some(("wind2.md", text)),
    );
    let r = raw("POST", &s.url("/v1/documents"), Some(ALICE), &ct, &body);
    assert_eq!((r.status, r.code()), (403, "forbidden"), "{}", r.text);
    assert!(
        r.text.contains("does not hold group `team-b`"),
        "{}",
        r.text
    );
    // No id, or an empty group: the parameter is named (it was a 500 from the index).
    for (doc, says) in [
        (
            json!({"doc_id": "", "text": "hallo", "acl": ["team-a"]}),
            "invalid `doc_id`: must not be empty",
        ),
        (
            json!({"source": "", "text": "hallo", "acl": ["team-a"]}),
            "invalid `doc_id`: the document has no id",
        ),
        (
            json!({"doc_id": "x", "text": "hallo", "acl": [""]}),
            "invalid `acl`: a group name is empty",
        ),
        (
            json!({"doc_id": "x", "text": "hallo", "acl": [1]}),
            "invalid `acl`: invalid type: integer `1`",
        ),
    ] {
        let r = json("POST", &s.url("/v1/documents"), Some(ALICE), &doc);
        assert_eq!(
            (r.status, r.code()),
            (422, "invalid_parameter"),
            "{}",
            r.text
        );
        assert!(r.text.contains(says), "{doc}: {}", r.text);
    }
}

#[test]
fn documents_are_added_replaced_and_deleted_with_write_tokens() {
    let s = start(true, Limits::default());
    let doc = json!({"doc_id": "zon.md", "text": "# Zonnepanelen\n\nZonnepanelen op het gemeentehuis.\n", "acl": ["team-a"], "metadata": {"jaar": "2024"}});
    // Read tokens and groups the writer does not hold are refused.
    let r = json("POST", &s.url("/v1/documents"), Some(BOB), &doc);
    assert_eq!((r.status, r.code()), (403, "forbidden"), "{}", r.text);
    let mut other = doc.clone();
    other["acl"] = json!(["team-b"]);
    assert_eq!(
        json("POST", &s.url("/v1/documents"), Some(ALICE), &other).status,
        403
    );
    let mut no_acl = doc.clone();
    no_acl.as_object_mut().unwrap().remove("acl");
    assert_eq!(
        json("POST", &s.url("/v1/documents"), Some(ALICE), &no_acl).status,
        422
    );
    let r = json("POST", &s.url("/v1/documents"), None, &doc);
    assert_eq!(r.status, 401);

    let r = json("POST", &s.url("/v1/documents"), Some(ALICE), &doc);
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["replaced"], false);
    // The index's warnings, as `chunklab index` prints them: the test index embeds with the
    // English MiniLM, and this document reads as Dutch.
    let warnings = r.body["warnings"].as_array().expect("warnings");
    assert!(
        warnings.len() == 1
            && warnings[0]
                .as_str()
                .unwrap()
                .contains("1 of 1 documents embedded read as Dutch and minilm is an English model"),
        "{}",
        r.text
    );
    for mode in ["bm25", "hybrid"] {
        assert_eq!(
            docs_of(&search(
                &s,
                ALICE,
                "zonnepanelen",
                &format!("&mode={mode}&filter=jaar=2024")
            )),
            ["zon.md"]
        );
        assert!(
            !docs_of(&search(&s, BOB, "zonnepanelen", &format!("&mode={mode}")))
                .contains(&"zon.md".to_string())
        );
    }
    // Replace: the old text is gone.
    // One paragraph of about 600 tokens: chunks of up to 400 (the test index's size) pass
    // MiniLM's 254-token window, which the answer says.
    let mut v2 = doc.clone();
    v2["text"] = json!(format!(
        "# Zonnepanelen\n\n{}\n",
        "Nu op de bibliotheek. ".repeat(100)
    ));
    let r = json("POST", &s.url("/v1/documents"), Some(ALICE), &v2);
    assert_eq!(
        (r.status, r.body["replaced"].as_bool()),
        (200, Some(true)),
        "{}",
        r.text
    );
    assert!(
        r.body["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .unwrap()
            .contains("longer than minilm's 254-token window")),
        "{}",
        r.text
    );
    assert!(docs_of(&search(&s, ALICE, "gemeentehuis", "&mode=bm25")).is_empty());
    assert_eq!(
        docs_of(&search(&s, ALICE, "bibliotheek", "&mode=bm25")),
        ["zon.md"]
    );
    let r = get(&s.url("/ready"), None);
    assert_eq!(r.body["index"]["documents"], 3, "{}", r.text);

    // Delete: read token 403, a document the writer cannot see 404, then gone.
    assert_eq!(
        raw("DELETE", &s.url("/v1/documents/zon.md"), Some(BOB), "", b"").status,
        403
    );
    assert_eq!(
        raw(
            "DELETE",
            &s.url("/v1/documents/parkeren.md"),
            Some(ALICE),
            "",
            b""
        )
        .status,
        404
    );
    let r = raw(
        "DELETE",
        &s.url("/v1/documents/zon.md"),
        Some(ALICE),
        "",
        b"",
    );
    assert_eq!(r.status, 200, "{}", r.text);
    assert!(docs_of(&search(&s, ALICE, "bibliotheek", "&mode=bm25")).is_empty());
    assert_eq!(
        raw(
            "DELETE",
            &s.url("/v1/documents/zon.md"),
            Some(ALICE),
            "",
            b""
        )
        .status,
        404
    );
    let m = get(&s.url("/metrics"), None);
    assert!(m.text.contains("chunklab_index_documents 2"), "{}", m.text);
}

#[test]
fn embed_serves_the_index_model() {
    let s = start(true, Limits::default());
    let r = json(
        "POST",
        &s.url("/v1/embed"),
        Some(BOB),
        &json!({"texts": ["windenergie", "parkeren"], "role": "query"}),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["dim"], 384);
    let v = r.body["vectors"].as_array().unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].as_array().unwrap().len(), 384);
    assert_eq!(r.body["warnings"], json!([]));
    let long = "De gemeenteraad besluit over windturbines op zee. ".repeat(60);
    let r = json(
        "POST",
        &s.url("/v1/embed"),
        Some(BOB),
        &json!({"texts": ["kort", long]}),
    );
    assert_eq!(r.status, 200, "{}", r.text);
    let w = r.body["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].as_str().unwrap().starts_with("text 2 is ")
            && w[0].as_str().unwrap().contains("254-token window"),
        "{w:?}"
    );
    assert_eq!(
        json(
            "POST",
            &s.url("/v1/embed"),
            Some(BOB),
            &json!({"texts": ["x"], "role": "boss"})
        )
        .status,
        422
    );
    assert_eq!(
        json("POST", &s.url("/v1/embed"), None, &json!({"texts": ["x"]})).status,
        401
    );
}

/// The value of a counter line `name N` in the metrics text.
fn counter(text: &str, name: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
        .unwrap_or_else(|| panic!("no `{name}` in the metrics:\n{text}"))
}

/// Queries are embedded outside the worker permits: with one permit, concurrent dense searches
/// still meet in shared forward passes (inside the permit every pass would hold one query), and
/// each gets the hits it gets alone.
#[test]
fn concurrent_queries_share_forward_passes_behind_one_worker() {
    let s = start(
        true,
        Limits {
            workers: 1,
            ..Limits::default()
        },
    );
    let queries: Vec<String> = (0..12)
        .map(|i| format!("windturbines en parkeervergunningen {i}"))
        .collect();
    let alone: Vec<Vec<String>> = queries
        .iter()
        .map(|q| docs_of(&search(&s, ALICE, &q.replace(' ', "+"), "&mode=dense")))
        .collect();
    let before = get(&s.url("/metrics"), None).text;
    let (b0, q0) = (
        counter(&before, "chunklab_query_batches_total"),
        counter(&before, "chunklab_queries_embedded_total"),
    );
    assert_eq!((b0, q0), (12, 12), "alone, one query per pass");
    let start_line = std::sync::Barrier::new(queries.len());
    let together: Vec<Vec<String>> = std::thread::scope(|sc| {
        let handles: Vec<_> = queries
            .iter()
            .map(|q| {
                let (s, start_line) = (&s, &start_line);
                sc.spawn(move || {
                    start_line.wait();
                    docs_of(&search(s, ALICE, &q.replace(' ', "+"), "&mode=dense"))
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(together, alone);
    let after = get(&s.url("/metrics"), None).text;
    let (b, q) = (
        counter(&after, "chunklab_query_batches_total") - b0,
        counter(&after, "chunklab_queries_embedded_total") - q0,
    );
    assert_eq!(q, 12);
    assert!(
        b < 12,
        "12 concurrent queries took {b} forward passes: they never met in a batch"
    );
}
