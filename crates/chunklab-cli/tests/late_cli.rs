//! `chunklab chunk --strategy late` with the real MiniLM model, as a user runs it.

use chunklab_embed::{fetch, late_embeddings, load, LateOptions, LoadOptions};
use chunklab_test_support::{cli, ok_json_lines as lines, shared_dir, stderr};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

fn chunklab(args: &[&str]) -> Output {
    cli!().run(args)
}

fn repo_file(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

fn floats(v: &Value) -> Vec<f32> {
    v.as_array()
        .expect("an array")
        .iter()
        .map(|x| x.as_f64().expect("a number") as f32)
        .collect()
}

/// `--strategy late --boundaries headings --model minilm --size 256` on a Markdown file: the
/// checks every such run must pass. Returns the chunks.
fn check_late_run(path: &Path) -> Vec<Value> {
    let file = path.to_str().unwrap();
    let late_args = [
        "chunk",
        file,
        "--strategy",
        "late",
        "--boundaries",
        "headings",
        "--model",
        "minilm",
        "--size",
        "256",
        "-q",
    ];
    let chunks = lines(&chunklab(&late_args));
    assert!(chunks.len() > 1, "{file}: {} chunks", chunks.len());
    let source = std::fs::read_to_string(path).unwrap();
    let home = fetch::home_dir();
    let tokenizer = fetch::model_dir(&home, "minilm").join("tokenizer.json");
    let sizer =
        chunklab_tokenizers::sizer_from_spec("tokens", Some(tokenizer.to_str().unwrap()), false)
            .unwrap();
    let mut spans = Vec::new();
    let mut vectors = Vec::new();
    for c in &chunks {
        assert_eq!(c["strategy"], "late");
        let (s, e) = (
            c["start_byte"].as_u64().unwrap() as usize,
            c["end_byte"].as_u64().unwrap() as usize,
        );
        let text = c["text"].as_str().unwrap();
        assert_eq!(&source[s..e], text, "{file}: span {s}..{e} is not the text");
        let start_char = source[..s].chars().count();
        assert_eq!(c["start_char"].as_u64().unwrap() as usize, start_char);
        let tokens = c["tokens"].as_u64().unwrap() as usize;
        assert_eq!(sizer.count(text), tokens, "{file}: {text:?}");
        assert!(tokens <= 256, "{file}: {tokens} tokens");
        let v = floats(&c["embedding"]);
        assert_eq!(v.len(), 384);
        assert!(v.iter().all(|x| x.is_finite()));
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
        spans.push(s..e);
        vectors.push(v);
    }
    // The printed vectors are the library's, to the last bit.
    let model = load("minilm", &LoadOptions::default()).unwrap();
    let late = late_embeddings(model.as_ref(), &source, &spans, &LateOptions::default()).unwrap();
    assert_eq!(late.vectors, vectors, "{file}");
    // The same boundaries as the headings strategy with the same flags, with ids of their own.
    let plain_args = [
        "chunk",
        file,
        "--strategy",
        "headings",
        "--model",
        "minilm",
        "--size",
        "256",
        "-q",
    ];
    let plain = lines(&chunklab(&plain_args));
    assert_eq!(plain.len(), chunks.len());
    for (p, l) in plain.iter().zip(&chunks) {
        assert_eq!(p["start_byte"], l["start_byte"]);
        assert_eq!(p["end_byte"], l["end_byte"]);
        assert_ne!(p["id"], l["id"]);
        assert!(p.get("embedding").is_none());
    }
    chunks
}

#[test]
fn late_headings_on_the_sample_guide() {
    check_late_run(&repo_file("samples/chunking-guide.md"));
}

#[test]
fn late_headings_on_a_long_manual_page() {
    // About 6,000 MiniLM tokens: the document is embedded in many overlapping windows.
    let path = shared_dir()
        .join("datasets/documents/markdown/md_postgresql-15_runtime-config-connection.md");
    let chunks = check_late_run(&path);
    assert!(chunks.len() > 10);
}

#[test]
fn json_output_carries_the_embeddings_too() {
    let file = repo_file("samples/motie-windenergie-2021.txt");
    let out = chunklab(&[
        "chunk",
        file.to_str().unwrap(),
        "--strategy",
        "late",
        "--model",
        "minilm",
        "--size",
        "64",
        "--format",
        "json",
        "-q",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let all: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    assert!(all.len() > 2);
    for c in &all {
        assert_eq!(floats(&c["embedding"]).len(), 384);
        assert!(c["tokens"].as_u64().unwrap() <= 64);
    }
}

#[test]
fn bad_boundaries_are_clear_errors() {
    let file = repo_file("samples/chunking-guide.md");
    let file = file.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec!["chunk", file, "--size", "256", "-q"];
        args.extend_from_slice(extra);
        let out = chunklab(&args);
        assert_eq!(out.status.code(), Some(2), "{extra:?} should fail");
        assert!(out.stdout.is_empty());
        stderr(&out)
    };
    let e = run(&[
        "--strategy",
        "late",
        "--boundaries",
        "nope",
        "--model",
        "minilm",
    ]);
    assert!(
        e.contains("--boundaries") && e.contains("unknown strategy `nope`"),
        "{e}"
    );
    assert!(e.contains("headings"), "known strategies listed: {e}");
    let e = run(&[
        "--strategy",
        "late",
        "--boundaries",
        "late",
        "--model",
        "minilm",
    ]);
    assert!(
        e.contains("--boundaries `late` cannot draw its own boundaries"),
        "{e}"
    );
    let e = run(&["--strategy", "late", "--boundaries", "headings"]);
    assert!(e.contains("--model is needed by strategy late"), "{e}");
    let e = run(&["--strategy", "headings", "--boundaries", "headings"]);
    assert!(
        e.contains("--boundaries does not apply to strategy `headings`; it applies to: late"),
        "{e}"
    );
    // Window settings out of range, named by their flags.
    for (window, overlap, says) in [
        (
            "64",
            "64",
            "--late-overlap 64 tokens must be less than the window, 64 tokens",
        ),
        ("0", "0", "--late-window must be at least 1 token"),
    ] {
        let e = run(&[
            "--strategy",
            "late",
            "--model",
            "minilm",
            "--late-window",
            window,
            "--late-overlap",
            overlap,
        ]);
        assert!(e.contains(says), "{e}");
    }
}
