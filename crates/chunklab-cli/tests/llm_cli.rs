//! `chunk --context header|llm`, `--strategy llm` and `queries generate` end to end; the LLM
//! runs are on the real local SmolLM2 model (answer cache off).

use chunklab_test_support::{cli, ok_json_lines as jsonl};
use std::process::Output;

fn chunklab(args: &[&str]) -> Output {
    cli!().run(args)
}

const DOC: &str =
    "# Jaarverslag 2023\n\n## Parken\n\nDe gemeente plantte 1.200 bomen langs de grachten.\n\n\
## Financiën\n\nHet budget voor onderhoud steeg met 8 procent naar 14 miljoen euro.\n";

fn doc_file() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("jaarverslag.md");
    std::fs::write(&path, DOC).unwrap();
    let p = path.to_string_lossy().into_owned();
    (dir, p)
}

#[test]
fn header_context_is_title_and_heading_path_outside_the_span() {
    let (_d, path) = doc_file();
    let chunks = jsonl(&chunklab(&[
        "chunk",
        &path,
        "--strategy",
        "headings",
        "--size",
        "120",
        "--unit",
        "chars",
        "--context",
        "header",
    ]));
    assert!(chunks.len() >= 2);
    for c in &chunks {
        let (s, e) = (
            c["start_byte"].as_u64().unwrap() as usize,
            c["end_byte"].as_u64().unwrap() as usize,
        );
        assert_eq!(
            c["text"].as_str().unwrap(),
            &DOC[s..e],
            "the span is the original text"
        );
        let ctx = c["context"].as_str().unwrap();
        assert!(
            ctx.contains("jaarverslag.md") || ctx.starts_with("Jaarverslag 2023"),
            "{ctx}"
        );
        assert!(c["tokens"].as_u64().unwrap() <= 120);
    }
    let budget = chunks
        .iter()
        .find(|c| c["text"].as_str().unwrap().contains("budget"))
        .unwrap();
    assert!(
        budget["context"].as_str().unwrap().ends_with("Financiën"),
        "{}",
        budget["context"]
    );
}

#[test]
fn context_is_truncated_to_keep_the_size_limit() {
    let (_d, path) = doc_file();
    let out = chunklab(&[
        "chunk",
        &path,
        "--strategy",
        "headings",
        "--size",
        "90",
        "--unit",
        "chars",
        "--context",
        "header",
    ]);
    let chunks = jsonl(&out);
    assert!(chunks.iter().all(|c| c["tokens"].as_u64().unwrap() <= 90));
    assert!(String::from_utf8_lossy(&out.stderr).contains("truncated to fit the size"));
}

#[test]
fn llm_context_with_the_local_model() {
    let (_d, path) = doc_file();
    let out = chunklab(&[
        "chunk",
        &path,
        "--strategy",
        "headings",
        "--size",
        "512",
        "--unit",
        "tokens",
        "--context",
        "llm",
        "--llm",
        "local:smollm2",
        "--llm-no-cache",
        "--context-max-tokens",
        "32",
    ]);
    let chunks = jsonl(&out);
    for c in &chunks {
        let ctx = c["context"].as_str().unwrap();
        assert!(ctx.chars().any(char::is_alphanumeric), "{c}");
        assert!(c["tokens"].as_u64().unwrap() <= 512);
    }
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("local:smollm2") && err.contains("output tokens"),
        "{err}"
    );
}

#[test]
fn llm_context_without_llm_is_a_clear_error() {
    let (_d, path) = doc_file();
    let out = chunklab(&["chunk", &path, "--context", "llm"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--llm is needed by context llm"));
    let out = chunklab(&["chunk", &path, "--context", "llm", "--llm", "nope"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--llm \"nope\" is not a language model spec"),
        "{err}"
    );
    // A prompt must hold the document before the chunk: refused naming its file, before any
    // document is read.
    let prompt = std::path::Path::new(&path).with_file_name("prompt.txt");
    std::fs::write(&prompt, "Situate {chunk} within {doc}.").unwrap();
    let out = chunklab(&[
        "chunk",
        &path,
        "--context",
        "header",
        "--context-prompt",
        prompt.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("prompt.txt: the context prompt needs {doc} and then {chunk}"),
        "{err}"
    );
}

#[test]
fn llm_strategy_and_queries_generate_with_the_local_model() {
    let (_d, path) = doc_file();
    let out = chunklab(&[
        "chunk",
        &path,
        "--strategy",
        "llm",
        "--llm",
        "local:smollm2",
        "--llm-no-cache",
        "--size",
        "40",
        "--unit",
        "words",
    ]);
    let chunks = jsonl(&out);
    assert!(!chunks.is_empty());
    // Its usage summary, like `--context llm`'s (issue 20 item 4).
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("llm strategy: local:smollm2") && err.contains("output tokens"),
        "{err}"
    );
    for c in &chunks {
        let (s, e) = (
            c["start_byte"].as_u64().unwrap() as usize,
            c["end_byte"].as_u64().unwrap() as usize,
        );
        assert_eq!(c["text"].as_str().unwrap(), &DOC[s..e]);
        assert!(c["tokens"].as_u64().unwrap() <= 40);
    }
    let out = chunklab(&[
        "queries",
        "generate",
        &path,
        "--llm",
        "local:smollm2",
        "--llm-no-cache",
        "--n",
        "2",
    ]);
    // SmolLM2 asks its question in English about this Dutch document: the language gate drops
    // it, nothing is kept, and the command fails with the reason instead of writing nothing.
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains("0 of 1 answers kept") && err.contains("1 wrong language"),
        "{err}"
    );
}

/// An OpenAI-compatible server on 127.0.0.1 answering every chat request with `answer`;
/// returns its `--llm` spec and the number of requests it received.
fn scripted_server(
    answer: &'static str,
) -> (String, std::sync::Arc<std::sync::atomic::AtomicUsize>) {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::sync::atomic::{AtomicUsize, Ordering};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let spec = format!(
        "openai:http://{}/v1#scripted",
        listener.local_addr().unwrap()
    );
    let count = std::sync::Arc::new(AtomicUsize::new(0));
    let seen = count.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { break };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut len = 0;
            loop {
                let mut h = String::new();
                if reader.read_line(&mut h).unwrap_or(0) == 0 {
                    break;
                }
                let h = h.trim_end();
                if h.is_empty() {
                    break;
                }
                if let Some((k, v)) = h.split_once(':') {
                    if k.eq_ignore_ascii_case("content-length") {
                        len = v.trim().parse().unwrap_or(0);
                    }
                }
            }
            let mut body = vec![0; len];
            let _ = reader.read_exact(&mut body);
            seen.fetch_add(1, Ordering::SeqCst);
            let reply = serde_json::json!({
                "choices": [{"index": 0, "message": {"role": "assistant", "content": answer}, "finish_reason": "stop"}],
                "usage": {"prompt_tokens": 50, "completion_tokens": 9},
            })
            .to_string();
            let _ = stream.write_all(
                format!(
                    "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{reply}",
                    reply.len()
                )
                .as_bytes(),
            );
        }
    });
    (spec, count)
}

#[test]
fn unusable_llm_answers_are_gated_not_cached_and_fail_queries_generate() {
    use std::sync::atomic::Ordering;
    let (_d, path) = doc_file();
    let home = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        cli!()
            .command()
            .args(args)
            .env("CHUNKLAB_HOME", home.path())
            .output()
            .expect("chunklab runs")
    };
    // A model that never answers in the question format: nothing kept, a non-zero exit that
    // says why, and a re-run asks the model again instead of repeating cached failures.
    let (spec, count) = scripted_server("Sure! Here is a question about the text.");
    let args = [
        "queries",
        "generate",
        path.as_str(),
        "--llm",
        &spec,
        "--n",
        "2",
    ];
    let out = run(&args);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(out.stdout.is_empty());
    assert!(
        err.contains("0 kept")
            && err.contains("answers kept (none usable")
            && err.contains("malformed"),
        "{err}"
    );
    let asked = count.load(Ordering::SeqCst);
    assert!(asked >= 1);
    assert!(!run(&args).status.success());
    assert_eq!(
        count.load(Ordering::SeqCst),
        2 * asked,
        "rejected answers are not served from the cache"
    );
    // Contexts that loop fall back to the header context, counted.
    let (spec, count) = scripted_server("Jaarverslag 2023\n\nJaarverslag 2022\n\nJaarverslag 2021");
    let out = run(&[
        "chunk",
        &path,
        "--strategy",
        "headings",
        "--size",
        "512",
        "--unit",
        "tokens",
        "--context",
        "llm",
        "--llm",
        &spec,
    ]);
    let chunks = jsonl(&out);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(chunks.len() >= 2);
    for c in &chunks {
        let ctx = c["context"].as_str().unwrap();
        assert!(
            (ctx.contains("jaarverslag.md") || ctx.starts_with("Jaarverslag 2023"))
                && !ctx.contains("2022"),
            "{ctx:?}"
        );
    }
    assert!(
        err.contains(&format!("{} header fallbacks", chunks.len())),
        "{err}"
    );
    // Two requests per chunk (the answer and one retry), both rejected, none cached as good.
    assert_eq!(count.load(Ordering::SeqCst), 2 * chunks.len());
}
