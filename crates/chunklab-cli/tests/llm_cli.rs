//! `chunk --context header|llm`, `--strategy llm` and `queries generate` end to end; the LLM
//! runs are on the real local SmolLM2 model (answer cache off).

use serde_json::Value;
use std::process::{Command, Output};

fn chunklab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_chunklab"))
        .args(args)
        .output()
        .expect("chunklab runs")
}

fn jsonl(out: &Output) -> Vec<Value> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
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
    assert!(String::from_utf8_lossy(&out.stderr).contains("--context llm needs --llm"));
    let out = chunklab(&["chunk", &path, "--context", "llm", "--llm", "nope"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("bad --llm spec"));
}

#[test]
fn llm_strategy_and_queries_generate_with_the_local_model() {
    let (_d, path) = doc_file();
    let chunks = jsonl(&chunklab(&[
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
    ]));
    assert!(!chunks.is_empty());
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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("kept") && err.contains("dropped"), "{err}");
    for q in String::from_utf8_lossy(&out.stdout).lines() {
        let q: Value = serde_json::from_str(q).unwrap();
        let span = &q["relevant_spans"][0];
        let (s, e) = (
            span["start_char"].as_u64().unwrap() as usize,
            span["end_char"].as_u64().unwrap() as usize,
        );
        let excerpt: String = DOC.chars().skip(s).take(e - s).collect();
        assert!(!excerpt.trim().is_empty() && q["query"].as_str().is_some_and(|x| !x.is_empty()));
    }
}
