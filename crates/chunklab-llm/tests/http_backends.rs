//! The HTTP backends against a local test server speaking just enough HTTP/1.1: request shape,
//! streaming off, Anthropic's cache_control placement, retries on 429 with Retry-After, clear
//! errors for 401 and unreachable servers, the answer cache, and contextualisation over HTTP.

use chunklab_llm::context::{contextualize, ChunkRef, ContextOptions, OnFailure};
use chunklab_llm::http::{AnthropicLlm, HttpOptions, OpenAiLlm};
use chunklab_llm::{Error, Llm, LlmClient, Prompt};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request as the server saw it.
#[derive(Clone, Debug)]
struct Seen {
    path: String,
    headers: Vec<(String, String)>,
    body: Value,
    at: Instant,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// A scripted answer: status, extra headers, body.
type Reply = (u16, Vec<(&'static str, String)>, String);

/// Serve `replies` in order (then 500s); returns the base URL and the log of requests.
fn serve(replies: Vec<Reply>) -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let log = Arc::new(Mutex::new(Vec::new()));
    let log2 = log.clone();
    std::thread::spawn(move || {
        let mut replies = replies.into_iter();
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            let path = line.split_whitespace().nth(1).unwrap_or("").to_string();
            let mut headers = Vec::new();
            let mut len = 0;
            loop {
                let mut h = String::new();
                reader.read_line(&mut h).unwrap();
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                let (k, v) = h.split_once(':').unwrap();
                if k.eq_ignore_ascii_case("content-length") {
                    len = v.trim().parse().unwrap();
                }
                headers.push((k.to_string(), v.trim().to_string()));
            }
            let mut body = vec![0; len];
            reader.read_exact(&mut body).unwrap();
            log2.lock().unwrap().push(Seen {
                path,
                headers,
                body: serde_json::from_slice(&body).unwrap_or(Value::Null),
                at: Instant::now(),
            });
            let (status, extra, body) =
                replies
                    .next()
                    .unwrap_or((500, vec![], "no more replies".into()));
            let mut resp = format!(
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n",
                body.len()
            );
            for (k, v) in extra {
                resp.push_str(&format!("{k}: {v}\r\n"));
            }
            resp.push_str("\r\n");
            resp.push_str(&body);
            stream.write_all(resp.as_bytes()).unwrap();
        }
    });
    (url, log)
}

fn fast() -> HttpOptions {
    HttpOptions {
        retries: 3,
        backoff: Duration::from_millis(10),
        concurrency: 1,
        ..HttpOptions::default()
    }
}

fn openai_ok(text: &str) -> Reply {
    let body = json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 120, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 100}},
    });
    (200, vec![], body.to_string())
}

fn anthropic_ok(text: &str) -> Reply {
    let body = json!({
        "type": "message", "role": "assistant",
        "content": [{"type": "text", "text": text}],
        "usage": {"input_tokens": 20, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 300, "output_tokens": 7},
    });
    (200, vec![], body.to_string())
}

fn prompt() -> Prompt {
    Prompt {
        system: "Be brief.".into(),
        shared: "<document>\nDe gemeente Utrecht ...\n</document>".into(),
        request: "\nSituate <chunk>x</chunk>".into(),
        max_tokens: 50,
    }
}

#[test]
fn openai_request_shape_and_usage() {
    let (url, log) = serve(vec![openai_ok("Over het parkenbudget.")]);
    let llm = OpenAiLlm::new(
        &format!("{url}/v1"),
        "qwen2.5:7b",
        Some("sk-test".into()),
        fast(),
    );
    let c = llm.complete(&prompt()).unwrap();
    assert_eq!(c.text, "Over het parkenbudget.");
    assert_eq!(
        (
            c.usage.input_tokens,
            c.usage.cached_tokens,
            c.usage.output_tokens
        ),
        (120, 100, 9)
    );
    let seen = log.lock().unwrap()[0].clone();
    assert_eq!(seen.path, "/v1/chat/completions");
    assert_eq!(seen.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(seen.body["model"], "qwen2.5:7b");
    assert_eq!(seen.body["stream"], false);
    assert_eq!(seen.body["max_tokens"], 50);
    assert_eq!(
        seen.body["messages"][0],
        json!({"role": "system", "content": "Be brief."})
    );
    let user = seen.body["messages"][1]["content"].as_str().unwrap();
    assert_eq!(user, format!("{}{}", prompt().shared, prompt().request));
}

#[test]
fn anthropic_marks_the_document_block_for_caching() {
    let (url, log) = serve(vec![anthropic_ok("Gemeente Utrecht, parken.")]);
    let llm = AnthropicLlm::new(&url, "claude-haiku-4-5", "key-1".into(), fast());
    let c = llm.complete(&prompt()).unwrap();
    assert_eq!(c.text, "Gemeente Utrecht, parken.");
    assert_eq!(
        (
            c.usage.input_tokens,
            c.usage.cached_tokens,
            c.usage.output_tokens
        ),
        (320, 300, 7)
    );
    let seen = log.lock().unwrap()[0].clone();
    assert_eq!(seen.path, "/v1/messages");
    assert_eq!(seen.header("x-api-key"), Some("key-1"));
    assert_eq!(seen.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(seen.body["stream"], false);
    assert_eq!(seen.body["system"], "Be brief.");
    let content = seen.body["messages"][0]["content"].as_array().unwrap();
    assert_eq!(content.len(), 2);
    assert_eq!(content[0]["text"], prompt().shared.as_str());
    assert_eq!(content[0]["cache_control"], json!({"type": "ephemeral"}));
    assert_eq!(content[1]["text"], prompt().request.as_str());
    assert!(content[1].get("cache_control").is_none());
}

#[test]
fn retries_429_after_the_retry_after_delay() {
    let busy = (
        429,
        vec![("retry-after", "1".to_string())],
        r#"{"error":"rate"}"#.into(),
    );
    let (url, log) = serve(vec![busy, openai_ok("ok")]);
    let llm = OpenAiLlm::new(&format!("{url}/v1"), "m", None, fast());
    assert_eq!(llm.complete(&prompt()).unwrap().text, "ok");
    let log = log.lock().unwrap();
    assert_eq!(log.len(), 2);
    assert!(
        log[0].header("authorization").is_none(),
        "no key, no header"
    );
    // The backoff alone is 10 ms; the second request waited for Retry-After.
    assert!(log[1].at - log[0].at >= Duration::from_millis(900));
}

#[test]
fn retries_5xx_then_gives_up_with_the_status() {
    let err = || (503, vec![], "overloaded".to_string());
    let (url, log) = serve(vec![err(), err(), err(), err(), err()]);
    let llm = OpenAiLlm::new(&format!("{url}/v1"), "m", None, fast());
    let e = llm.complete(&prompt()).unwrap_err();
    assert!(matches!(e, Error::Http { status: 503, .. }), "{e}");
    assert_eq!(log.lock().unwrap().len(), 4, "one try and three retries");
}

#[test]
fn unauthorized_is_a_clear_error_without_retries() {
    let (url, log) = serve(vec![(
        401,
        vec![],
        r#"{"error":{"message":"invalid x-api-key"}}"#.into(),
    )]);
    let llm = AnthropicLlm::new(&url, "claude-haiku-4-5", "bad".into(), fast());
    let e = llm.complete(&prompt()).unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.contains("anthropic") && msg.contains("401") && msg.contains("invalid x-api-key"),
        "{msg}"
    );
    assert_eq!(log.lock().unwrap().len(), 1);
}

#[test]
fn unreachable_server_is_a_clear_error() {
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/v1");
    let llm = OpenAiLlm::new(&url, "m", None, fast());
    let e = llm.complete(&prompt()).unwrap_err();
    assert!(matches!(e, Error::Unreachable { .. }), "{e}");
    assert!(e.to_string().contains(&format!("127.0.0.1:{port}")), "{e}");
}

#[test]
fn answer_cache_makes_a_rerun_free() {
    let dir = tempfile::tempdir().unwrap();
    let (url, log) = serve(vec![openai_ok("eerste")]);
    let open = || {
        let llm = OpenAiLlm::new(&format!("{url}/v1"), "m", None, fast());
        LlmClient::new(Box::new(llm), Some(dir.path().to_path_buf()))
    };
    let first = open();
    assert_eq!(first.complete(&prompt()).unwrap().text, "eerste");
    assert_eq!(first.usage().calls, 1);
    let second = open();
    assert_eq!(second.complete(&prompt()).unwrap().text, "eerste");
    assert_eq!(second.usage().calls, 0);
    assert_eq!(second.usage().cache_hits, 1);
    assert_eq!(second.usage().input_tokens, 0);
    assert_eq!(log.lock().unwrap().len(), 1, "the second run sent nothing");
}

#[test]
fn contextualize_sends_the_document_first_and_falls_back_to_the_header() {
    let doc = "# Parken\n\nUtrecht plantte 1.200 bomen.\n\nHet budget steeg naar 14 miljoen.";
    let a = doc.find("Utrecht").unwrap();
    let b = doc.find("Het budget").unwrap();
    let headings = vec!["Parken".to_string()];
    let chunks = [
        ChunkRef {
            span: a..a + "Utrecht plantte 1.200 bomen.".len(),
            headings: &headings,
        },
        ChunkRef {
            span: b..doc.len(),
            headings: &headings,
        },
    ];
    // Second chunk: empty answer, then only punctuation on the retry.
    let (url, log) = serve(vec![
        openai_ok(" Over bomen. "),
        openai_ok(""),
        openai_ok("..."),
    ]);
    let llm = OpenAiLlm::new(&format!("{url}/v1"), "m", None, fast());
    let opts = ContextOptions {
        on_failure: OnFailure::Header,
        ..ContextOptions::default()
    };
    let (contexts, warnings) = contextualize(&llm, doc, "parken.md", &chunks, &opts).unwrap();
    assert_eq!(
        contexts,
        vec!["Over bomen.".to_string(), "parken.md > Parken".to_string()]
    );
    assert_eq!(
        (warnings.retried, warnings.fallbacks, warnings.windowed),
        (1, 1, 0)
    );
    let log = log.lock().unwrap();
    let user = log[0].body["messages"][0]["content"].as_str().unwrap();
    assert!(user.starts_with(&format!(
        "<document>\n{doc}\n</document>\nHere is the chunk"
    )));
    assert!(user.contains("<chunk>\nUtrecht plantte 1.200 bomen.\n</chunk>"));
    // Without the fallback the same answers are an error that says what happened.
    let (url, _) = serve(vec![openai_ok(""), openai_ok("")]);
    let llm = OpenAiLlm::new(&format!("{url}/v1"), "m", None, fast());
    let e = contextualize(&llm, doc, "t", &chunks[..1], &ContextOptions::default()).unwrap_err();
    assert!(matches!(e, Error::NoAnswer { .. }), "{e}");
}

#[test]
fn large_documents_are_windowed_around_the_chunk() {
    let para = "Een alinea over het onderhoud van parken en plantsoenen in de stad. ";
    let doc = para.repeat(4000); // ≈ 270 kB, ≈ 90k estimated tokens > 32k
    let at = doc.len() / 2 - (doc.len() / 2) % para.len();
    let chunks = [ChunkRef {
        span: at..at + para.len(),
        headings: &[],
    }];
    let (url, log) = serve(vec![openai_ok("Midden van het document.")]);
    let llm = OpenAiLlm::new(&format!("{url}/v1"), "m", None, fast());
    let (_, warnings) =
        contextualize(&llm, &doc, "t", &chunks, &ContextOptions::default()).unwrap();
    assert_eq!(warnings.windowed, 1);
    let sent = log.lock().unwrap()[0].body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .len();
    assert!(sent < doc.len() / 2 && llm.count_tokens(&"x".repeat(sent)) <= llm.context_tokens());
}

#[test]
fn neighbouring_chunks_of_a_large_document_share_one_window() {
    let para = "Een alinea over het onderhoud van parken en plantsoenen in de stad. ";
    let doc = para.repeat(4000);
    let at = doc.len() / 2 - (doc.len() / 2) % para.len();
    let chunks: Vec<ChunkRef> = (0..3)
        .map(|i| ChunkRef {
            span: at + i * para.len()..at + (i + 1) * para.len(),
            headings: &[],
        })
        .collect();
    let (url, log) = serve(vec![
        openai_ok("Deel een."),
        openai_ok("Deel twee."),
        openai_ok("Deel drie."),
    ]);
    let llm = OpenAiLlm::new(&format!("{url}/v1"), "m", None, fast());
    let opts = ContextOptions {
        max_doc_tokens: Some(2000),
        ..ContextOptions::default()
    };
    let (contexts, warnings) = contextualize(&llm, &doc, "t", &chunks, &opts).unwrap();
    assert_eq!(contexts, ["Deel een.", "Deel twee.", "Deel drie."]);
    assert_eq!(warnings.windowed, 3);
    let log = log.lock().unwrap();
    let documents: Vec<String> = log
        .iter()
        .map(|r| {
            let content = r.body["messages"][0]["content"].as_str().unwrap();
            content[..content.find("</document>").unwrap()].to_string()
        })
        .collect();
    assert_eq!(documents.len(), 3);
    // The cap holds, the window holds the chunk, and all three chunks got the same window.
    assert!(llm.count_tokens(&documents[0]) <= 2000 + 10);
    for (d, c) in documents.iter().zip(&chunks) {
        assert_eq!(d, &documents[0]);
        assert!(d.contains(&doc[c.span.clone()]));
    }
}
