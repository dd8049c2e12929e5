//! End-to-end tests of the `chunklab` binary: real processes, real files.

use chunklab_test_support::{cli, json_lines as lines, shared_path, stderr};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn chunklab(args: &[&str], stdin: Option<&[u8]>) -> Output {
    cli!().run_with_stdin(args, stdin)
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
    let b = chunklab(&[&args[..], &["-j", "1"]].concat(), None);
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

/// Invariant 4: the output does not depend on the thread count. Every sample document but the
/// 261-page PDF (Markdown, reST, HTML, DOCX, ODT, PDF, text), several strategies, `-j 1` against
/// `-j 4`: byte-identical.
#[test]
fn output_is_identical_with_one_and_four_threads() {
    let docs = documents();
    let docs = docs.to_str().unwrap();
    let runs: [&[&str]; 4] = [
        &[
            "--strategy",
            "recursive",
            "--size",
            "256",
            "--unit",
            "tokens",
        ],
        &["--strategy", "sentence", "--size", "400", "--overlap", "1"],
        &[
            "--strategy",
            "headings",
            "--size",
            "300",
            "--unit",
            "tokens",
        ],
        &["--strategy", "elements", "--size", "500", "--title-prefix"],
    ];
    // An absurd number of threads is refused before any starts (it took minutes and gigabytes).
    let absurd = chunklab(&["chunk", docs, "-q", "-j", "100000"], None);
    assert!(
        !absurd.status.success()
            && stderr(&absurd).contains("--threads 100000 is more than 1024 worker threads"),
        "{}",
        stderr(&absurd)
    );
    for strategy in runs {
        let args = [
            &["chunk", docs, "--exclude", "debian-reference.en.pdf", "-q"][..],
            strategy,
        ]
        .concat();
        let one = chunklab(&[&args[..], &["-j", "1"]].concat(), None);
        let four = chunklab(&[&args[..], &["-j", "4"]].concat(), None);
        assert!(one.status.success(), "{strategy:?}: {}", stderr(&one));
        assert!(four.status.success(), "{strategy:?}: {}", stderr(&four));
        // `-j 0` is all cores (it was one thread), with the same output.
        let all = chunklab(&[&args[..], &["-j", "0"]].concat(), None);
        assert_eq!(all.stdout, one.stdout, "{strategy:?}: -j 0");
        let chunks = lines(&one);
        let files: std::collections::BTreeSet<&str> =
            chunks.iter().filter_map(|c| c["doc_id"].as_str()).collect();
        assert!(
            files.len() >= 20 && chunks.len() > files.len(),
            "{strategy:?}: {} chunks of {} documents",
            chunks.len(),
            files.len()
        );
        assert!(
            one.stdout == four.stdout,
            "{strategy:?}: -j 1 and -j 4 differ (first difference at byte {})",
            one.stdout
                .iter()
                .zip(&four.stdout)
                .position(|(a, b)| a != b)
                .unwrap_or(one.stdout.len().min(four.stdout.len()))
        );
    }
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
    // The summary counts in words that agree with the numbers.
    assert!(
        stderr(&out).contains("chunked 1 document (0.0 MB) into 1 chunk with"),
        "{}",
        stderr(&out)
    );
    assert!(stderr(&out).contains("; 1 binary file skipped"));
    assert_eq!(lines(&out).len(), 1);
}

#[test]
fn a_model_name_is_a_tokenizer() {
    // `--tokenizer minilm` counts MiniLM's own tokens, as `--model minilm` without a unit does,
    // without loading the model.
    let text = "Motie M-2019/0412 over windenergie (aangenomen 17-03-2020). ".repeat(30);
    let by_name = chunklab(
        &[
            "chunk",
            "-",
            "--unit",
            "tokens",
            "--tokenizer",
            "minilm",
            "--size",
            "40",
        ],
        Some(text.as_bytes()),
    );
    assert!(by_name.status.success(), "{}", stderr(&by_name));
    let by_model = chunklab(
        &["chunk", "-", "--model", "minilm", "--size", "40"],
        Some(text.as_bytes()),
    );
    assert!(by_model.status.success(), "{}", stderr(&by_model));
    let spans = |out: &Output| -> Vec<(u64, u64, u64, String)> {
        lines(out)
            .iter()
            .map(|c| {
                (
                    c["start_char"].as_u64().unwrap(),
                    c["end_char"].as_u64().unwrap(),
                    c["tokens"].as_u64().unwrap(),
                    c["unit"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let named = spans(&by_name);
    assert!(named.len() > 5, "{named:?}");
    assert!(
        named
            .iter()
            .all(|(_, _, t, u)| *t <= 40 && u == "hf:minilm"),
        "{named:?}"
    );
    assert_eq!(named, spans(&by_model));
    // A known model that is not installed is named with the command that installs it.
    let home = tempfile::tempdir().unwrap();
    let out = cli!()
        .command()
        .env("CHUNKLAB_HOME", home.path())
        .args(["chunk", "-", "--tokenizer", "e5-small"])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("tokenizer e5-small: model \"e5-small\" is not installed")
            && stderr(&out).contains("chunklab models fetch e5-small")
            && stderr(&out).contains("pass --fetch"),
        "{}",
        stderr(&out)
    );
    // ... and `--fetch` fetches it (it was accepted and ignored for a tokenizer).
    let doc = home.path().join("motie.txt");
    std::fs::write(&doc, &text).unwrap();
    let out = cli!()
        .command()
        .env("CHUNKLAB_HOME", home.path())
        .arg("chunk")
        .arg(&doc)
        .args([
            "--unit",
            "tokens",
            "--tokenizer",
            "minilm",
            "--size",
            "40",
            "--fetch",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("installed minilm in"),
        "{}",
        stderr(&out)
    );
    assert_eq!(
        spans(&out),
        named,
        "the fetched tokenizer counts as the installed one"
    );
}

#[test]
fn bad_parameters_fail_before_any_work() {
    for (args, msg) in [
        (
            vec!["--strategy", "fixed", "--size", "10", "--overlap", "10"],
            "--overlap 10 must be smaller than the size, 10",
        ),
        (
            vec!["--strategy", "sliding", "--size", "10", "--stride", "11"],
            "--stride 11 is larger than the size, 10, and would skip text",
        ),
        (
            vec!["--strategy", "fixed", "--size", "0"],
            "size must be at least 1",
        ),
        (
            vec!["--unit", "tokens", "--tokenizer", "nope"],
            "--tokenizer `nope` is unknown: use cl100k",
        ),
        (vec!["--strategy", "magic"], "unknown strategy `magic`"),
        // Zeros that were taken as 1 silently.
        (
            vec!["--llm-concurrency", "0"],
            "--llm-concurrency must be at least 1",
        ),
        (
            vec!["--context", "header", "--context-max-tokens", "0"],
            "--context-max-tokens must be at least 1",
        ),
        (
            vec!["--unit", "chars", "--tokenizer", "cl100k"],
            "--tokenizer applies to unit tokens",
        ),
        // A flag the strategy does not take is an error naming the strategies that take it.
        (
            vec!["--strategy", "headings", "--overlap", "50"],
            "--overlap does not apply to strategy `headings`; it applies to: recursive, fixed, sentence, paragraph",
        ),
        (
            vec!["--strategy", "fixed", "--title-prefix"],
            "--title-prefix does not apply to strategy `fixed`; it applies to: headings, elements, code",
        ),
        (
            vec!["--strategy", "sentence", "--stride", "20"],
            "--stride does not apply to strategy `sentence`; it applies to: sliding",
        ),
        (
            vec!["--strategy", "recursive", "--late-window", "64"],
            "--late-window does not apply",
        ),
        (
            vec!["--separators", "[]"],
            "--separators is an empty list",
        ),
        (
            vec!["--context-max-tokens", "50"],
            "apply with --context",
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

/// The shared sample documents (real documents for the parser tests).
fn documents() -> std::path::PathBuf {
    shared_path("datasets/documents")
}

#[test]
fn headings_with_title_prefix_on_a_markdown_handbook() {
    // `chunklab chunk handbook.md --strategy headings --size 512 --unit tokens --title-prefix`
    let dir = tempfile::tempdir().unwrap();
    let handbook = dir.path().join("handbook.md");
    let source = documents().join("markdown/md_django-3.2_ref_checks.md");
    std::fs::copy(&source, &handbook).unwrap();
    let text = std::fs::read_to_string(&handbook).unwrap();
    let out = chunklab(
        &[
            "chunk",
            handbook.to_str().unwrap(),
            "--strategy",
            "headings",
            "--size",
            "512",
            "--unit",
            "tokens",
            "--title-prefix",
            "-q",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let chunks = lines(&out);
    assert!(chunks.len() > 10, "{}", chunks.len());
    let sizer = chunklab_tokenizers::sizer_from_spec("tokens", Some("cl100k"), false).unwrap();
    let mut prefixed = 0;
    let mut end = 0;
    for c in &chunks {
        let (s, e) = (
            c["start_byte"].as_u64().unwrap() as usize,
            c["end_byte"].as_u64().unwrap() as usize,
        );
        assert!(s >= end, "chunks in order, no overlap");
        end = e;
        let body = c["text"].as_str().unwrap();
        assert_eq!(body, &text[s..e]);
        let headings: Vec<&str> = c["headings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h.as_str().unwrap())
            .collect();
        assert!(!headings.is_empty(), "every chunk has a heading path: {c}");
        let prefix = c["prefix"].as_str().unwrap_or("");
        if !prefix.is_empty() {
            assert_eq!(prefix, format!("{}\n\n", headings.join(" > ")));
            prefixed += 1;
        }
        // The prefix counts: `tokens` is the real size of what is embedded.
        let tokens = c["tokens"].as_u64().unwrap() as usize;
        assert_eq!(tokens, sizer.count(&format!("{prefix}{body}")));
        assert!(tokens <= 512);
        let lines = c["lines"].as_array().unwrap();
        assert!(lines[0].as_u64() <= lines[1].as_u64());
        assert_eq!(c["strategy"], "headings");
    }
    assert!(
        prefixed * 10 >= chunks.len() * 9,
        "{prefixed} of {}",
        chunks.len()
    );
    let db = chunks
        .iter()
        .find(|c| c["text"].as_str().unwrap().contains("mysql.W002"))
        .unwrap();
    assert_eq!(
        db["headings"],
        serde_json::json!([
            "System check framework",
            "Core system checks",
            "Database",
            "MySQL and MariaDB"
        ])
    );
    // LangChain documents embed the prefix; the offsets still locate the text.
    let out = chunklab(
        &[
            "chunk",
            handbook.to_str().unwrap(),
            "--strategy",
            "headings",
            "--size",
            "512",
            "--unit",
            "tokens",
            "--title-prefix",
            "--format",
            "langchain",
            "-q",
        ],
        None,
    );
    let docs = lines(&out);
    assert_eq!(docs.len(), chunks.len());
    let d = &docs[1];
    let prefix = d["metadata"]["prefix"].as_str().unwrap();
    let content = d["page_content"].as_str().unwrap();
    assert!(content.starts_with(prefix));
    let (s, e) = (
        d["metadata"]["start_byte"].as_u64().unwrap() as usize,
        d["metadata"]["end_byte"].as_u64().unwrap() as usize,
    );
    assert_eq!(&content[prefix.len()..], &text[s..e]);
}

#[test]
fn elements_over_a_mixed_directory() {
    let dir = tempfile::tempdir().unwrap();
    let docs = documents();
    for rel in [
        "markdown/md_postgresql-15_catalogs-overview.md",
        "rst/rst_python-3.11_library_imp.rst",
        "nl_verordening_parkeren.txt",
    ] {
        let name = Path::new(rel).file_name().unwrap();
        std::fs::copy(docs.join(rel), dir.path().join(name)).unwrap();
    }
    let out = chunklab(
        &[
            "chunk",
            dir.path().to_str().unwrap(),
            "--strategy",
            "elements",
            "--size",
            "300",
            "--unit",
            "tokens",
            "-q",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let chunks = lines(&out);
    let by_doc =
        |name: &str| -> Vec<&Value> { chunks.iter().filter(|c| c["doc_id"] == name).collect() };
    let md = by_doc("md_postgresql-15_catalogs-overview.md");
    let table_parts: Vec<_> = md.iter().filter(|c| c["kind"] == "table").collect();
    assert!(table_parts.len() >= 2);
    assert!(table_parts[1]["prefix"]
        .as_str()
        .unwrap()
        .starts_with("Catalog Name| Purpose"));
    let rst = by_doc("rst_python-3.11_library_imp.rst");
    assert!(rst.iter().any(|c| c["kind"] == "code"));
    let txt = by_doc("nl_verordening_parkeren.txt");
    assert!(txt
        .iter()
        .any(|c| c["headings"].as_array().unwrap().len() == 3));
    assert!(chunks.iter().all(|c| c["tokens"].as_u64().unwrap() <= 300));
}

#[test]
fn parse_shows_the_element_tree() {
    let md = documents().join("markdown/md_postgresql-15_runtime-config-connection.md");
    let out = chunklab(&["parse", md.to_str().unwrap(), "--format", "json"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["format"], "markdown");
    let elements = v["elements"].as_array().unwrap();
    let heading = elements
        .iter()
        .find(|e| e["title"] == "20.3.1. Connection Settings")
        .unwrap();
    assert_eq!(heading["type"], "heading");
    assert_eq!(heading["level"], 3);
    assert_eq!(heading["lines"], serde_json::json!([13, 13]));
    assert_eq!(heading["text"], "### 20.3.1. Connection Settings");
    assert!(elements.iter().any(|e| e["type"] == "table_row"));
    assert!(
        v.get("text").is_none(),
        "the full text only with --full-text"
    );
    // The outline.
    let out = chunklab(&["parse", md.to_str().unwrap()], None);
    let outline = String::from_utf8(out.stdout).unwrap();
    assert!(outline.contains("h3"), "{outline}");
    assert!(outline.contains("20.3.1. Connection Settings"));
    // A parser override, from stdin.
    let out = chunklab(
        &[
            "parse",
            "-",
            "--parser",
            "markdown",
            "--format",
            "json",
            "--full-text",
        ],
        Some(b"# Titel\n\nTekst."),
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["elements"][0]["title"], "Titel");
    assert_eq!(v["text"], "# Titel\n\nTekst.");
    let out = chunklab(&["parse", "-", "--parser", "docbook"], Some(b"x"));
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--parser `docbook` is unknown"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn parser_flag_and_structure_errors() {
    // stdin has no extension: plain text, unless --parser says otherwise.
    let md = b"# Vergunningen\n\n## Artikel 3\n\nHet college verleent een vergunning.\n";
    let out = chunklab(
        &[
            "chunk",
            "-",
            "--strategy",
            "headings",
            "--size",
            "60",
            "--parser",
            "md",
            "-q",
        ],
        Some(md),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let chunks = lines(&out);
    assert_eq!(
        chunks.last().unwrap()["headings"],
        serde_json::json!(["Vergunningen", "Artikel 3"])
    );
    assert_eq!(chunks.last().unwrap()["lines"], serde_json::json!([3, 5]));
    let out = chunklab(&["chunk", "-", "--parser", "docbook"], Some(md));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--parser `docbook` is unknown"),
        "{}",
        stderr(&out)
    );
    // Plain strategies keep their output on text files, with source lines added.
    let out = chunklab(
        &[
            "chunk",
            "-",
            "--strategy",
            "recursive",
            "--size",
            "40",
            "-q",
        ],
        Some(md),
    );
    let chunks = lines(&out);
    assert_eq!(chunks[0]["text"], "# Vergunningen\n\n## Artikel 3");
    assert!(chunks[0]["prefix"].is_null() && chunks[0]["page_end"].is_null());
}

/// `chunklab chunk big.txt | head`: when the reader of stdout goes away the command stops
/// quietly with success, as filters do; an unwritable stdout that is not a closed pipe is still
/// an error.
#[test]
fn closed_stdout_pipe_stops_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.txt");
    // Far more output than a pipe buffers (64 KiB on Linux).
    std::fs::write(&big, "Een motie over windenergie op land. ".repeat(100_000)).unwrap();
    let big = big.to_str().unwrap();
    for args in [
        &["chunk", big, "--size", "200"][..],
        &["chunk", big, "--size", "200", "--format", "json"],
        &["strategies"],
    ] {
        let mut child = cli!()
            .command()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut head = [0u8; 100];
        child.stdout.take().unwrap().read_exact(&mut head).unwrap();
        // The read end is dropped here, before the command is done writing.
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
    #[cfg(target_os = "linux")]
    {
        let full = std::fs::File::options()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = cli!()
            .command()
            .args(["chunk", big, "--size", "200"])
            .stdout(full)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2));
        assert!(stderr(&out).contains("No space left"), "{}", stderr(&out));
    }
}
