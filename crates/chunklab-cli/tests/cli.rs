//! End-to-end tests of the `chunklab` binary: real processes, real files.

use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn chunklab(args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_chunklab"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run chunklab");
    {
        let mut sin = child.stdin.take().unwrap();
        if let Some(data) = stdin {
            // The process may exit before reading (bad parameters): a broken pipe is fine.
            let _ = sin.write_all(data);
        }
    }
    child.wait_with_output().unwrap()
}

fn lines(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn samples() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .display()
        .to_string()
}

#[test]
fn stdin_fixed_with_overlap_round_trips_offsets() {
    let text = "Één motie over windenergie 😀. De raad besluit.\r\n\r\nTweede alinea.".repeat(20);
    let out = chunklab(
        &[
            "chunk",
            "-",
            "--strategy",
            "fixed",
            "--size",
            "100",
            "--overlap",
            "10",
        ],
        Some(text.as_bytes()),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let chunks = lines(&out);
    assert!(chunks.len() > 5);
    let chars: Vec<char> = text.chars().collect();
    for (i, c) in chunks.iter().enumerate() {
        let (sb, eb) = (
            c["start_byte"].as_u64().unwrap() as usize,
            c["end_byte"].as_u64().unwrap() as usize,
        );
        let (sc, ec) = (
            c["start_char"].as_u64().unwrap() as usize,
            c["end_char"].as_u64().unwrap() as usize,
        );
        assert_eq!(c["text"].as_str().unwrap(), &text[sb..eb]);
        assert_eq!(chars[sc..ec].iter().collect::<String>(), &text[sb..eb]);
        assert_eq!(c["index"].as_u64().unwrap() as usize, i);
        assert_eq!(c["total"].as_u64().unwrap() as usize, chunks.len());
        assert!(c["tokens"].as_u64().unwrap() <= 100);
        assert_eq!(c["doc_id"], "stdin");
        assert_eq!(c["strategy"], "fixed");
        assert_eq!(c["id"].as_str().unwrap().len(), 32);
        for key in ["headings", "page", "kind", "parent_id", "source"] {
            assert!(c.get(key).is_some(), "missing {key}");
        }
    }
    // Overlap of 10 chars between neighbours.
    assert_eq!(chunks[1]["start_char"].as_u64().unwrap(), 90);
}

#[test]
fn output_is_deterministic_and_ids_stable() {
    let args = [
        "chunk",
        &samples(),
        "--strategy",
        "fixed",
        "--size",
        "300",
        "-q",
    ];
    let a = chunklab(&args, None);
    let b = chunklab(
        &["-j", "1"].iter().chain(&args).copied().collect::<Vec<_>>()[2..],
        None,
    );
    assert!(a.status.success(), "{}", stderr(&a));
    assert_eq!(a.stdout, b.stdout);
    let docs: Vec<String> = lines(&a)
        .iter()
        .map(|c| c["doc_id"].as_str().unwrap().to_string())
        .collect();
    let mut sorted = docs.clone();
    sorted.sort();
    assert_eq!(docs, sorted, "documents come out in path order");
}

#[test]
fn directory_walk_with_globs() {
    let out = chunklab(
        &[
            "chunk",
            &samples(),
            "--strategy",
            "fixed",
            "--include",
            "*.md",
            "-q",
        ],
        None,
    );
    assert!(out.status.success());
    let chunks = lines(&out);
    assert!(!chunks.is_empty());
    assert!(chunks.iter().all(|c| c["doc_id"] == "chunking-guide.md"));
    let out = chunklab(
        &[
            "chunk",
            &samples(),
            "--strategy",
            "fixed",
            "--exclude",
            "*.md",
            "-q",
        ],
        None,
    );
    assert!(lines(&out)
        .iter()
        .all(|c| c["doc_id"] != "chunking-guide.md"));
}

#[test]
fn tokens_unit_respects_the_limit_in_cl100k() {
    let out = chunklab(
        &[
            "chunk",
            &samples(),
            "--strategy",
            "fixed",
            "--size",
            "64",
            "--overlap",
            "8",
            "--unit",
            "tokens",
            "--tokenizer",
            "cl100k",
            "-q",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let chunks = lines(&out);
    assert!(chunks
        .iter()
        .all(|c| c["tokens"].as_u64().unwrap() <= 64 && c["unit"] == "cl100k"));
    assert!(chunks.iter().any(|c| c["tokens"].as_u64().unwrap() == 64));
}

#[test]
fn invalid_utf8_names_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("oud-besluit.txt");
    std::fs::write(&bad, b"Besluit van de raad \xe9\xe9n").unwrap();
    let good = dir.path().join("goed.txt");
    std::fs::write(&good, "Goed bestand.").unwrap();
    let out = chunklab(&["chunk", dir.path().to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("oud-besluit.txt") && err.contains("byte 20"),
        "{err}"
    );
    // The good file is still chunked.
    assert_eq!(lines(&out).len(), 1);
    // Decoding as latin1 works.
    let out = chunklab(
        &["chunk", bad.to_str().unwrap(), "--encoding", "latin1", "-q"],
        None,
    );
    assert!(out.status.success());
    assert!(lines(&out)[0]["text"].as_str().unwrap().ends_with("één"));
}

#[test]
fn binary_is_skipped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("blob.bin"), [0u8, 1, 2, 3, 0, 255]).unwrap();
    std::fs::write(dir.path().join("a.txt"), "tekst").unwrap();
    let out = chunklab(&["chunk", dir.path().to_str().unwrap()], None);
    assert!(out.status.success());
    assert!(stderr(&out).contains("blob.bin: binary file skipped"));
    assert_eq!(lines(&out).len(), 1);
}

#[test]
fn bad_parameters_fail_before_any_work() {
    for (args, msg) in [
        (
            vec!["--strategy", "fixed", "--size", "10", "--overlap", "10"],
            "overlap (10) must be smaller than size (10)",
        ),
        (
            vec!["--strategy", "fixed", "--size", "0"],
            "size must be at least 1",
        ),
        (
            vec!["--unit", "tokens", "--tokenizer", "nope"],
            "unknown tokenizer `nope`",
        ),
        (vec!["--strategy", "magic"], "unknown strategy `magic`"),
        (
            vec!["--unit", "chars", "--tokenizer", "cl100k"],
            "--tokenizer applies to --unit tokens",
        ),
    ] {
        let mut all = vec!["chunk", "-"];
        all.extend(args);
        let out = chunklab(&all, Some(b"some text"));
        assert_eq!(out.status.code(), Some(2), "{all:?}");
        assert!(stderr(&out).contains(msg), "{all:?}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
}

#[test]
fn formats() {
    let text = b"Eerste zin. Tweede zin. Derde zin.";
    let json = chunklab(
        &[
            "chunk",
            "-",
            "--strategy",
            "fixed",
            "--size",
            "12",
            "--format",
            "json",
            "-q",
        ],
        Some(text),
    );
    let arr: Value = serde_json::from_slice(&json.stdout).expect("a JSON array");
    assert_eq!(arr.as_array().unwrap().len(), 3);
    let lc = chunklab(
        &[
            "chunk",
            "-",
            "--strategy",
            "fixed",
            "--size",
            "12",
            "--format",
            "langchain",
            "-q",
        ],
        Some(text),
    );
    let docs = lines(&lc);
    assert_eq!(docs[1]["page_content"], "Tweede zin. ");
    assert_eq!(docs[1]["metadata"]["start_index"], 12);
    assert_eq!(docs[1]["type"], "Document");
    let li = chunklab(
        &[
            "chunk",
            "-",
            "--strategy",
            "fixed",
            "--size",
            "12",
            "--format",
            "llamaindex",
            "-q",
        ],
        Some(text),
    );
    let nodes = lines(&li);
    assert_eq!(nodes[1]["relationships"]["2"]["node_id"], nodes[0]["id_"]);
    assert_eq!(nodes[1]["relationships"]["3"]["node_id"], nodes[2]["id_"]);
    assert_eq!(nodes[0]["end_char_idx"], 12);
    let empty = chunklab(&["chunk", "-", "--format", "json", "-q"], Some(b""));
    assert_eq!(
        serde_json::from_slice::<Value>(&empty.stdout).unwrap(),
        serde_json::json!([])
    );
}

#[test]
fn output_file_and_strategies_listing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("out.jsonl");
    let out = chunklab(
        &[
            "chunk",
            "-",
            "--strategy",
            "fixed",
            "-o",
            path.to_str().unwrap(),
            "-q",
        ],
        Some(b"abc"),
    );
    assert!(out.status.success());
    assert!(std::fs::read_to_string(&path)
        .unwrap()
        .contains("\"text\":\"abc\""));
    let list = chunklab(&["strategies", "--json"], None);
    let v: Value = serde_json::from_slice(&list.stdout).unwrap();
    let names: Vec<_> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    for s in ["fixed", "sliding"] {
        assert!(names.contains(&s), "{names:?}");
    }
}
