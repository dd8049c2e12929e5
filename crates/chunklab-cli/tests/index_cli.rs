//! End-to-end tests of `chunklab index` and `chunklab search`: the real binary, the real MiniLM
//! model, real files; durability is tested by killing a real indexing process with SIGKILL.

use chunklab_test_support::{cli, shared_path, stderr};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    cli!().command()
}

fn run(args: &[&str]) -> Output {
    bin()
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run chunklab")
}

fn ok(args: &[&str]) -> Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "chunklab {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../samples")
}

/// Copy the samples into a fresh corpus directory.
fn sample_corpus(dir: &Path) -> PathBuf {
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    for e in std::fs::read_dir(samples()).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), corpus.join(e.file_name())).unwrap();
    }
    corpus
}

const CHUNKING: &[&str] = &["--strategy", "recursive", "--size", "400"];

fn index(corpus: &Path, idx: &Path, extra: &[&str]) -> Output {
    let mut args = vec![
        "index",
        corpus.to_str().unwrap(),
        "--index",
        idx.to_str().unwrap(),
    ];
    args.extend_from_slice(CHUNKING);
    args.extend_from_slice(extra);
    run(&args)
}

fn search(idx: &Path, query: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["search", query, "--index", idx.to_str().unwrap(), "--json"];
    args.extend_from_slice(extra);
    let out = ok(&args);
    let v: Value = serde_json::from_slice(&out.stdout).expect("search --json prints JSON");
    v["results"].as_array().unwrap().clone()
}

fn top_doc(results: &[Value]) -> &str {
    results[0]["doc_id"].as_str().unwrap()
}

#[test]
fn every_mode_finds_the_right_document_and_prints_exact_spans() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(tmp.path());
    let idx = tmp.path().join("samples.idx");
    let out = index(&corpus, &idx, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("3 added, 0 updated, 0 removed, 0 unchanged"),
        "{}",
        stderr(&out)
    );

    let cases = [
        (
            "windturbines op het bedrijventerrein",
            "motie-windenergie-2021.txt",
        ),
        (
            "parkeervergunning voor bezoekers",
            "verordening-parkeren-2022.txt",
        ),
        ("fixed-size chunks with overlap", "chunking-guide.md"),
    ];
    for (query, want) in cases {
        for mode in ["bm25", "dense", "hybrid"] {
            let r = search(&idx, query, &["--mode", mode, "--k", "3"]);
            assert!(!r.is_empty(), "{mode}: no results for {query}");
            assert_eq!(top_doc(&r), want, "{mode}: {query}: {r:?}");
        }
        let r = search(&idx, query, &["--rerank", "--k", "2"]);
        assert_eq!(top_doc(&r), want, "maxsim rerank: {query}");
    }

    // Every result is an exact span of its file, in chars.
    let r = search(&idx, "gemeente Westerhaven", &["--k", "10"]);
    assert!(r.len() >= 3);
    for hit in &r {
        for field in [
            "score",
            "source",
            "doc_id",
            "text",
            "headings",
            "page",
            "start_char",
            "end_char",
        ] {
            assert!(hit.get(field).is_some(), "missing {field} in {hit}");
        }
        let file = std::fs::read_to_string(corpus.join(hit["doc_id"].as_str().unwrap())).unwrap();
        let chars: Vec<char> = file.chars().collect();
        let (s, e) = (
            hit["start_char"].as_u64().unwrap() as usize,
            hit["end_char"].as_u64().unwrap() as usize,
        );
        let span: String = chars[s..e].iter().collect();
        assert_eq!(span, hit["text"].as_str().unwrap());
    }

    // Human output: source, score, and the query terms highlighted in the snippet.
    let out = ok(&[
        "search",
        "parkeervergunning bezoekers",
        "--index",
        idx.to_str().unwrap(),
        "--mode",
        "bm25",
        "-k",
        "1",
    ]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("verordening-parkeren-2022.txt"), "{text}");
    assert!(
        text.to_lowercase().contains("**bezoekers")
            || text.to_lowercase().contains("**parkeervergunning"),
        "{text}"
    );

    // Document-level aggregation: one result per document.
    let r = search(&idx, "gemeente Westerhaven raad", &["--docs", "--k", "10"]);
    let docs: Vec<&str> = r.iter().map(|h| h["doc_id"].as_str().unwrap()).collect();
    let mut unique = docs.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(docs.len(), unique.len(), "{docs:?}");
    assert_eq!(docs.len(), 3);

    // Merging: merged results are exact spans too, and never overlap within a document.
    let r = search(
        &idx,
        "artikel vergunning parkeren",
        &[
            "--merge",
            "--k",
            "20",
            "--mode",
            "bm25",
            "--filter",
            "doc_id=verordening-parkeren-2022.txt",
        ],
    );
    let file = std::fs::read_to_string(corpus.join("verordening-parkeren-2022.txt")).unwrap();
    let chars: Vec<char> = file.chars().collect();
    let mut spans: Vec<(usize, usize)> = Vec::new();
    for hit in &r {
        let (s, e) = (
            hit["start_char"].as_u64().unwrap() as usize,
            hit["end_char"].as_u64().unwrap() as usize,
        );
        assert_eq!(
            chars[s..e].iter().collect::<String>(),
            hit["text"].as_str().unwrap()
        );
        spans.push((s, e));
    }
    spans.sort();
    assert!(
        spans.windows(2).all(|w| w[0].1 < w[1].0),
        "merged spans overlap or touch: {spans:?}"
    );
}

#[test]
fn incremental_runs_only_process_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(tmp.path());
    let idx = tmp.path().join("inc.idx");
    assert!(index(&corpus, &idx, &[]).status.success());
    let again = index(&corpus, &idx, &[]);
    assert!(
        stderr(&again).contains("0 added, 0 updated, 0 removed, 3 unchanged; 0 chunks embedded"),
        "{}",
        stderr(&again)
    );

    // Change one file, remove one, add one.
    let guide = corpus.join("chunking-guide.md");
    let mut g = std::fs::read_to_string(&guide).unwrap();
    g.push_str("\n\n## Zebra crossings\n\nA zebrafish paragraph about aquariums.\n");
    std::fs::write(&guide, g).unwrap();
    std::fs::remove_file(corpus.join("motie-windenergie-2021.txt")).unwrap();
    std::fs::write(
        corpus.join("new.txt"),
        "Het vuilnis wordt op dinsdag opgehaald in de binnenstad.",
    )
    .unwrap();
    let out = index(&corpus, &idx, &[]);
    assert!(
        stderr(&out).contains("1 added, 1 updated, 1 removed, 1 unchanged"),
        "{}",
        stderr(&out)
    );

    let r = search(&idx, "zebrafish aquariums", &["--mode", "bm25"]);
    assert_eq!(top_doc(&r), "chunking-guide.md");
    let r = search(&idx, "vuilnis dinsdag", &["--mode", "hybrid"]);
    assert_eq!(top_doc(&r), "new.txt");
    for mode in ["bm25", "dense", "hybrid"] {
        let r = search(
            &idx,
            "windturbines bedrijventerrein motie",
            &["--mode", mode, "--k", "50"],
        );
        assert!(
            r.iter()
                .all(|h| h["doc_id"] != "motie-windenergie-2021.txt"),
            "{mode}: removed file still found"
        );
    }

    // Paths that hold nothing (an unmounted share, a typo) do not empty the index ...
    let empty = tmp.path().join("leeg");
    std::fs::create_dir(&empty).unwrap();
    let out = index(&empty, &idx, &[]);
    assert!(!out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("this run would remove all 3 document(s) of the index")
            && stderr(&out).contains("--rebuild to start the index over"),
        "{}",
        stderr(&out)
    );
    let r = search(&idx, "vuilnis dinsdag", &["--mode", "bm25"]);
    assert_eq!(top_doc(&r), "new.txt");
    // ... unless the index is started over.
    let out = index(&empty, &idx, &["--rebuild"]);
    assert!(
        stderr(&out).contains("the index holds 0 documents"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn filters_apply_inside_the_search() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("archief");
    std::fs::create_dir_all(corpus.join("besluiten")).unwrap();
    std::fs::create_dir_all(corpus.join("overig")).unwrap();
    std::fs::copy(
        samples().join("motie-windenergie-2021.txt"),
        corpus.join("besluiten/motie.txt"),
    )
    .unwrap();
    std::fs::copy(
        samples().join("verordening-parkeren-2022.txt"),
        corpus.join("overig/parkeren.txt"),
    )
    .unwrap();
    std::fs::copy(
        samples().join("chunking-guide.md"),
        corpus.join("overig/guide.md"),
    )
    .unwrap();
    let idx = tmp.path().join("f.idx");
    let out = index(
        &corpus,
        &idx,
        &[
            "--acl",
            "besluiten/**=team-a",
            "--acl",
            "**/guide.md=team-b",
            "--meta",
            "besluiten/**=type:besluit",
        ],
    );
    assert!(out.status.success(), "{}", stderr(&out));

    // A query about parking, restricted to besluiten/: only besluiten chunks, and (dense and
    // hybrid rank every chunk) as many as k — the filter acts before the cut to k.
    for mode in ["bm25", "dense", "hybrid"] {
        let r = search(
            &idx,
            "parkeervergunning bezoekers gemeente raad",
            &[
                "--mode",
                mode,
                "--k",
                "3",
                "--filter",
                "source=besluiten/**",
            ],
        );
        assert!(!r.is_empty(), "{mode}");
        if mode != "bm25" {
            assert_eq!(
                r.len(),
                3,
                "{mode}: the filter must act before the cut to k: {r:?}"
            );
        }
        assert!(
            r.iter().all(|h| h["doc_id"] == "besluiten/motie.txt"),
            "{mode}: {r:?}"
        );
        let r = search(
            &idx,
            "parkeervergunning chunk",
            &["--mode", mode, "--k", "5", "--filter", "acl=team-b"],
        );
        assert!(
            !r.is_empty() && r.iter().all(|h| h["doc_id"] == "overig/guide.md"),
            "{mode}: {r:?}"
        );
        let r = search(
            &idx,
            "parkeervergunning",
            &[
                "--mode",
                mode,
                "--k",
                "50",
                "--filter",
                "acl=team-a",
                "--filter",
                "acl=team-b",
            ],
        );
        assert!(
            r.iter().all(|h| h["doc_id"] != "overig/parkeren.txt"),
            "{mode}: {r:?}"
        );
        let r = search(
            &idx,
            "parkeervergunning gemeente",
            &["--mode", mode, "--filter", "type=besluit"],
        );
        assert!(
            !r.is_empty() && r.iter().all(|h| h["doc_id"] == "besluiten/motie.txt"),
            "{mode}: {r:?}"
        );
    }
    let out = run(&[
        "search",
        "x",
        "--index",
        idx.to_str().unwrap(),
        "--filter",
        "colour=red",
    ]);
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains("unknown filter field `colour`") && e.contains("source") && e.contains("type"),
        "{e}"
    );
}

#[test]
fn bad_input_and_mismatched_settings_are_clear_errors() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(tmp.path());
    let idx = tmp.path().join("m.idx");
    assert!(index(&corpus, &idx, &[]).status.success());
    let i = idx.to_str().unwrap();

    // Other chunking settings: refused, --rebuild re-indexes.
    let out = run(&[
        "index",
        corpus.to_str().unwrap(),
        "--index",
        i,
        "--strategy",
        "recursive",
        "--size",
        "300",
    ]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--rebuild") && stderr(&out).contains("size=300"),
        "{}",
        stderr(&out)
    );
    let out = run(&[
        "index",
        corpus.to_str().unwrap(),
        "--index",
        i,
        "--strategy",
        "recursive",
        "--size",
        "300",
        "--rebuild",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("3 added"), "{}", stderr(&out));

    // A query model other than the index's.
    let out = run(&["search", "parkeren", "--index", i, "--model", "e5-small"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("was embedded with `minilm`"),
        "{}",
        stderr(&out)
    );
    // Empty and overlong queries.
    let out = run(&["search", "  ", "--index", i]);
    assert!(
        stderr(&out).contains("the query is empty"),
        "{}",
        stderr(&out)
    );
    let long = "parkeervergunning ".repeat(600);
    let out = run(&["search", &long, "--index", i, "--mode", "dense"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("tokens but the model minilm reads at most"),
        "{}",
        stderr(&out)
    );
    // Missing index.
    let out = run(&[
        "search",
        "parkeren",
        "--index",
        tmp.path().join("nope.idx").to_str().unwrap(),
    ]);
    assert!(
        stderr(&out).contains("no chunklab index here"),
        "{}",
        stderr(&out)
    );
    // Not an index, not empty: the indexer refuses to write into it.
    let out = run(&[
        "index",
        corpus.to_str().unwrap(),
        "--index",
        corpus.to_str().unwrap(),
    ]);
    assert!(
        stderr(&out).contains("not a chunklab index and not empty"),
        "{}",
        stderr(&out)
    );
    // Corrupt store segment.
    let seg = std::fs::read_dir(idx.join("store"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .unwrap();
    let mut bytes = std::fs::read(&seg).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&seg, bytes).unwrap();
    let out = run(&["search", "parkeren", "--index", i]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("corrupt index file") && stderr(&out).contains(".jsonl"),
        "{}",
        stderr(&out)
    );
    // Corrupt manifest.
    std::fs::write(idx.join("manifest.json"), b"{\"format\":").unwrap();
    let out = run(&["search", "parkeren", "--index", i]);
    assert!(
        stderr(&out).contains("not a chunklab manifest"),
        "{}",
        stderr(&out)
    );
}

/// A corpus that takes many commits to index: the samples plus the Markdown documents of the
/// shared dataset.
fn big_corpus(dir: &Path) -> PathBuf {
    let corpus = sample_corpus(dir);
    let shared = shared_path("datasets/documents/markdown");
    for e in std::fs::read_dir(&shared)
        .expect("the shared Markdown documents")
        .flatten()
    {
        std::fs::copy(e.path(), corpus.join(e.file_name())).unwrap();
    }
    corpus
}

fn generation(idx: &Path) -> Option<u64> {
    let bytes = std::fs::read(idx.join("manifest.json")).ok()?;
    serde_json::from_slice::<Value>(&bytes).ok()?["generation"].as_u64()
}

/// `chunklab chunk` output of the corpus: chunk ids per document id.
fn expected_chunks(corpus: &Path) -> BTreeMap<String, Vec<String>> {
    let mut args = vec!["chunk", corpus.to_str().unwrap(), "-q"];
    args.extend_from_slice(CHUNKING);
    let out = ok(&args);
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in String::from_utf8(out.stdout).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        map.entry(v["doc_id"].as_str().unwrap().to_string())
            .or_default()
            .push(v["id"].as_str().unwrap().to_string());
    }
    map
}

/// Every document in the index has exactly the chunks `chunklab chunk` makes of it.
fn check_whole_documents(idx: &Path, expected: &BTreeMap<String, Vec<String>>) -> usize {
    let index = chunklab_index::Index::open(idx).expect("the index opens after a kill");
    let store = index.store();
    for (doc_id, entry) in store.docs() {
        let got: Vec<String> = entry
            .keys
            .iter()
            .map(|k| store.chunk(*k).unwrap().id.clone())
            .collect();
        assert_eq!(
            &got, &expected[doc_id],
            "{doc_id}: partial or wrong document"
        );
    }
    assert_eq!(index.vectors().len(), store.len());
    store.docs().len()
}

fn spawn_index(corpus: &Path, idx: &Path) -> std::process::Child {
    let mut args = vec![
        "index",
        corpus.to_str().unwrap(),
        "--index",
        idx.to_str().unwrap(),
        "--commit-every",
        "2",
        "-q",
    ];
    args.extend_from_slice(CHUNKING);
    bin()
        .args(&args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn kill_9_during_indexing_leaves_whole_documents() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = big_corpus(tmp.path());
    let expected = expected_chunks(&corpus);
    let idx = tmp.path().join("kill.idx");
    let mut seen_partial_progress = false;
    // Kill before the first commit, then at different moments after the 1st, 2nd and 3rd commit of
    // a run (commits hold 2 documents): mid-embedding, mid-commit, wherever the delay lands.
    for (commits, delay_ms) in [
        (None, 700u64),
        (Some(1), 0),
        (Some(1), 400),
        (Some(2), 1300),
    ] {
        let start = generation(&idx).unwrap_or(0);
        let mut child = spawn_index(&corpus, &idx);
        if let Some(n) = commits {
            let t0 = Instant::now();
            while generation(&idx).unwrap_or(0) < start + n && child.try_wait().unwrap().is_none() {
                assert!(
                    t0.elapsed() < Duration::from_secs(300),
                    "no commit within 5 minutes"
                );
                std::thread::sleep(Duration::from_millis(20));
            }
        }
        std::thread::sleep(Duration::from_millis(delay_ms));
        let finished = child.try_wait().unwrap().is_some();
        child.kill().unwrap(); // SIGKILL
        child.wait().unwrap();
        if !idx.join("manifest.json").exists() {
            continue; // killed before the index was created
        }
        let docs = check_whole_documents(&idx, &expected);
        seen_partial_progress |= !finished && docs > 0 && docs < expected.len();
        // The index answers queries after the kill.
        let out = ok(&[
            "search",
            "parkeervergunning",
            "--index",
            idx.to_str().unwrap(),
            "--mode",
            "hybrid",
            "--json",
        ]);
        serde_json::from_slice::<Value>(&out.stdout).unwrap();
    }
    // Re-running completes the index.
    let out = index(&corpus, &idx, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(check_whole_documents(&idx, &expected), expected.len());
    let again = index(&corpus, &idx, &[]);
    assert!(
        stderr(&again).contains(&format!(
            "0 added, 0 updated, 0 removed, {} unchanged",
            expected.len()
        )),
        "{}",
        stderr(&again)
    );
    assert!(
        seen_partial_progress,
        "no kill landed mid-way; the corpus indexes too fast for this test"
    );
}

#[test]
fn a_second_writer_is_refused_and_readers_are_not_blocked() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = big_corpus(tmp.path());
    let idx = tmp.path().join("lock.idx");
    let mut first = spawn_index(&corpus, &idx);
    // Wait until the first writer holds the lock and has created the index.
    let t0 = Instant::now();
    while !idx.join("manifest.json").exists() {
        assert!(
            t0.elapsed() < Duration::from_secs(60),
            "indexer never created the index"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let second = index(&corpus, &idx, &[]);
    let still_running = first.try_wait().unwrap().is_none();
    if still_running {
        assert!(!second.status.success());
        let e = stderr(&second);
        assert!(
            e.contains("being written by another process")
                && e.contains(&format!("pid {}", first.id())),
            "{e}"
        );
        // Readers work while the writer runs.
        let out = ok(&[
            "search",
            "gemeente",
            "--index",
            idx.to_str().unwrap(),
            "--mode",
            "bm25",
            "--json",
        ]);
        serde_json::from_slice::<Value>(&out.stdout).unwrap();
    }
    first.kill().unwrap();
    first.wait().unwrap();
    assert!(
        still_running,
        "the first indexer finished before the second started"
    );
    // The lock dies with its holder.
    let out = index(&corpus, &idx, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
}

/// Issue 19 item 1: `--k 18446744073709551615` panicked ("capacity overflow", exit 101) and
/// `--k 4294967296` aborted on a 64 GiB allocation; any k now gives every match.
#[test]
fn search_with_a_huge_k_returns_every_match() {
    use chunklab_index::{IndexWriter, NewChunk, NewDocument, Settings};
    let tmp = tempfile::tempdir().unwrap();
    let idx = tmp.path().join("text-only.idx");
    let settings = Settings {
        chunker: "paragraph size=200 unit=chars".into(),
        reading: String::new(),
        unit: "chars".into(),
        tokenizer: None,
        model: "none".into(),
        dim: 0,
        model_max_tokens: 0,
        hnsw: None,
        lang: "en".into(),
        run: None,
    };
    // A text-only index (no model needed for BM25), written by the library.
    let mut w = IndexWriter::open(&idx, settings, false).unwrap();
    for (id, text) in [
        ("a.txt", "wind turbines at sea\n\nmore wind on land"),
        ("b.txt", "parking permits\n\nwind and parking"),
    ] {
        let (first, second) = text.split_once("\n\n").unwrap();
        let s = first.len() + 2;
        w.add_document(NewDocument {
            doc_id: id.into(),
            source: id.into(),
            hash: id.into(),
            text: text.into(),
            acl: vec![],
            fields: Default::default(),
            chunks: vec![
                NewChunk::new(
                    &format!("{id}#0"),
                    0,
                    first.len(),
                    0,
                    first.len(),
                    0,
                    vec![],
                ),
                NewChunk::new(
                    &format!("{id}#1"),
                    s,
                    s + second.len(),
                    s,
                    s + second.len(),
                    1,
                    vec![],
                ),
            ],
        })
        .unwrap();
    }
    w.finish().unwrap();
    let idx = idx.to_str().unwrap();
    for k in ["18446744073709551615", "4294967296"] {
        for (extra, want) in [
            (&[][..], 3),
            (&["--docs"][..], 2),
            (&["--merge"][..], 2),
            (&["--rerank-top", k][..], 3),
        ] {
            let mut args = vec![
                "search", "wind", "--index", idx, "--mode", "bm25", "--json", "--k", k,
            ];
            args.extend_from_slice(extra);
            let out = run(&args);
            assert!(out.status.success(), "{args:?}: {}", stderr(&out));
            let v: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(v["results"].as_array().unwrap().len(), want, "{args:?}");
        }
    }
}

#[test]
fn index_check_reports_damage_and_index_repairs_it() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(dir.path());
    let idx = dir.path().join("idx");
    assert!(index(&corpus, &idx, &["-q"]).status.success());
    let check = ok(&["index", "--check", "--index", idx.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&check.stdout).contains("idx"));
    // Flip a byte inside a stored document text: `--check` names the file and exits 1.
    let store = idx.join("store");
    let txt = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "txt"))
        .expect("a segment text file");
    let mut bytes = std::fs::read(&txt).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&txt, bytes).unwrap();
    let bad = run(&["index", "--check", "--index", idx.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1), "{}", stderr(&bad));
    let report = String::from_utf8_lossy(&bad.stdout);
    let name = txt.file_name().unwrap().to_string_lossy();
    assert!(report.contains(name.as_ref()), "{report}");
    // `chunklab index` repairs it (the damaged documents are indexed again) and says so.
    let again = index(&corpus, &idx, &[]);
    assert!(again.status.success(), "{}", stderr(&again));
    assert!(stderr(&again).contains("repaired"), "{}", stderr(&again));
    ok(&["index", "--check", "--index", idx.to_str().unwrap()]);
}

#[test]
fn chunks_longer_than_the_model_window_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(dir.path());
    let idx = dir.path().join("idx");
    let out = run(&[
        "index",
        corpus.to_str().unwrap(),
        "--index",
        idx.to_str().unwrap(),
        "--strategy",
        "recursive",
        "--size",
        "4000",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("truncated before embedding") && err.contains("minilm"),
        "{err}"
    );
    // The remedy names the size that fits, in the model's tokens, and how to measure it.
    assert!(
        err.contains("--size 254 or less with --model minilm fits the window")
            && err.contains("chunklab bench --corpus"),
        "{err}"
    );
    // Without a terminal, progress is printed as lines counting chunks embedded, with a rate.
    assert!(
        err.contains("progress: ") && err.contains("chunks embedded") && err.contains("chunks/s"),
        "{err}"
    );
    // Two of the three samples are Dutch, and MiniLM is an English model.
    assert!(
        err.contains("2 of 3 documents embedded read as Dutch and minilm is an English model")
            && err.contains("--model e5-small (the default with --lang nl) embeds Dutch"),
        "{err}"
    );
    // Chunks sized in the model's own tokens fit its window: no warning.
    let idx2 = dir.path().join("idx2");
    let out = run(&[
        "index",
        corpus.to_str().unwrap(),
        "--index",
        idx2.to_str().unwrap(),
        "--model",
        "minilm",
        "--size",
        "200",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("truncated"), "{}", stderr(&out));
    // A multilingual model gets no language warning.
    let idx3 = dir.path().join("idx3");
    let out = run(&[
        "index",
        corpus.to_str().unwrap(),
        "--index",
        idx3.to_str().unwrap(),
        "--model",
        "e5-small",
    ]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!stderr(&out).contains("read as Dutch"), "{}", stderr(&out));
}

/// `index`'s summary line `err` says the index holds the three samples in as many chunks as the
/// `chunk` command line `chunk_args` prints.
fn assert_holds_the_chunks_of(err: &str, chunk_args: &[&str]) {
    let want = String::from_utf8(ok(chunk_args).stdout)
        .unwrap()
        .lines()
        .count();
    assert!(
        err.contains(&format!("3 documents, {want} chunks")),
        "{want}: {err}"
    );
}

/// A new index of Dutch documents (`--lang nl`) embeds with the multilingual e5-small unless a
/// model is named; an existing index keeps the model it was built with.
#[test]
fn dutch_indexes_take_e5_small_and_existing_ones_keep_their_model() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(tmp.path());
    let c = corpus.to_str().unwrap();
    let nl = tmp.path().join("nl.idx");
    let out = ok(&["index", c, "--index", nl.to_str().unwrap(), "--lang", "nl"]);
    let e = stderr(&out);
    assert!(
        e.contains("chunks embedded with e5-small") && !e.contains("read as Dutch"),
        "{e}"
    );
    let manifest = std::fs::read_to_string(nl.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"e5-small\""), "{manifest}");
    // Sizes stay in characters (the model was not named): the same chunks as `chunk`.
    assert_holds_the_chunks_of(&e, &["chunk", c, "--lang", "nl"]);

    // An index built with MiniLM (as `--lang nl` alone did before) keeps it when a later run
    // names no model.
    let en = tmp.path().join("en.idx");
    let i = en.to_str().unwrap();
    let first = ["--lang", "nl", "--model", "minilm", "--unit", "chars"];
    ok(&[&["index", c, "--index", i][..], &first].concat());
    std::fs::write(
        corpus.join("extra.txt"),
        "Een nieuw besluit over de windmolens.\n",
    )
    .unwrap();
    let out = ok(&["index", c, "--index", i, "--lang", "nl"]);
    let e = stderr(&out);
    assert!(
        e.contains("1 added") && e.contains("chunks embedded with minilm"),
        "{e}"
    );
    // Where e5-small is not installed, the error says why that model, and how to get it.
    let home = tempfile::tempdir().unwrap();
    let fresh = tmp.path().join("fresh.idx");
    let out = bin()
        .env("CHUNKLAB_HOME", home.path())
        .args([
            "index",
            c,
            "--index",
            fresh.to_str().unwrap(),
            "--lang",
            "nl",
        ])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let e = stderr(&out);
    assert!(
        !out.status.success()
            && e.contains("e5-small is the model a new index of Dutch documents (--lang nl) embeds with; --model names another")
            && e.contains("chunklab models fetch e5-small"),
        "{e}"
    );
    // --rebuild takes only the flags given: --lang nl now means e5-small.
    let out = ok(&["index", c, "--index", i, "--lang", "nl", "--rebuild"]);
    assert!(
        stderr(&out).contains("chunks embedded with e5-small"),
        "{}",
        stderr(&out)
    );
}

/// Without --lang (auto) and --model, a new index of documents that read as Dutch embeds with
/// e5-small and says why; a mixed corpus (the samples: two Dutch documents of three) keeps MiniLM
/// and its warning.
#[test]
fn a_corpus_that_reads_as_dutch_chooses_e5_small() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = tmp.path().join("archief");
    std::fs::create_dir_all(&corpus).unwrap();
    for f in [
        "motie-windenergie-2021.txt",
        "verordening-parkeren-2022.txt",
    ] {
        std::fs::copy(samples().join(f), corpus.join(f)).unwrap();
    }
    let c = corpus.to_str().unwrap();
    let idx = tmp.path().join("a.idx");
    let out = ok(&["index", c, "--index", idx.to_str().unwrap()]);
    let e = stderr(&out);
    assert!(
        e.contains(
            "note: 2 of 2 documents sampled read as Dutch, so the new index embeds with e5-small"
        ) && e.contains("chunks embedded with e5-small"),
        "{e}"
    );
    let manifest = std::fs::read_to_string(idx.join("manifest.json")).unwrap();
    assert!(manifest.contains("\"model\": \"e5-small\""), "{manifest}");
    // The next run keeps the index's model, and says nothing about it.
    let out = ok(&["index", c, "--index", idx.to_str().unwrap()]);
    assert!(!stderr(&out).contains("read as Dutch"), "{}", stderr(&out));
    // A model named is the model.
    let named = tmp.path().join("named.idx");
    let out = ok(&[
        "index",
        c,
        "--index",
        named.to_str().unwrap(),
        "--model",
        "minilm",
    ]);
    assert!(
        stderr(&out).contains("chunks embedded with minilm"),
        "{}",
        stderr(&out)
    );
    // Mixed: MiniLM, with the warning about the Dutch documents.
    let mixed = tmp.path().join("mixed.idx");
    let out = ok(&[
        "index",
        samples().to_str().unwrap(),
        "--index",
        mixed.to_str().unwrap(),
    ]);
    let e = stderr(&out);
    assert!(
        e.contains("chunks embedded with minilm")
            && e.contains("2 of 3 documents embedded read as Dutch"),
        "{e}"
    );
}

/// A re-run names no chunking flags and no rules: it takes the index's own (recorded by the
/// run that wrote it), so `chunklab index DIR --index IDX` repeats nothing. Flags given replace
/// what they name: chunking flags are checked against the index, rules replace its rules.
#[test]
fn a_rerun_without_flags_takes_the_index_own_configuration() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(tmp.path());
    let idx = tmp.path().join("own.idx");
    let (c, i) = (corpus.to_str().unwrap(), idx.to_str().unwrap());
    let flags = ["--strategy", "headings", "--size", "120", "--unit", "words"];
    let mut first = vec!["index", c, "--index", i];
    first.extend_from_slice(&flags);
    first.extend_from_slice(&["--acl", "motie*=team-a", "--meta", "motie*=type:motie"]);
    ok(&first);

    // A changed file, re-indexed by the bare command with the index's flags and rules.
    let guide = corpus.join("chunking-guide.md");
    let mut text = std::fs::read_to_string(&guide).unwrap();
    text.push_str("\n\n## Appendix\n\nOne more section about chunk sizes and overlap.\n");
    std::fs::write(&guide, text).unwrap();
    let out = ok(&["index", c, "--index", i]);
    let e = stderr(&out);
    assert!(
        e.contains("using the index's own configuration: headings"),
        "{e}"
    );
    assert!(
        e.contains("keeping the index's rules: --acl 'motie*=team-a' --meta 'motie*=type:motie'"),
        "{e}"
    );
    assert!(
        e.contains("0 added, 1 updated, 0 removed, 2 unchanged"),
        "{e}"
    );
    // Exactly the chunks `chunk` makes with the first run's flags.
    assert_holds_the_chunks_of(&e, &[&["chunk", c][..], &flags].concat());
    for filter in ["acl=team-a", "type=motie"] {
        let r = search(
            &idx,
            "windturbines",
            &["--mode", "bm25", "--filter", filter],
        );
        assert!(
            !r.is_empty()
                && r.iter()
                    .all(|h| h["doc_id"] == "motie-windenergie-2021.txt"),
            "{filter}: {r:?}"
        );
    }

    // Chunking flags other than the index's are refused, with a word on the bare command.
    let out = run(&["index", c, "--index", i, "--size", "300"]);
    assert!(!out.status.success());
    let e = stderr(&out);
    assert!(
        e.contains("other settings")
            && e.contains("without --size this run takes the index's own configuration"),
        "{e}"
    );

    // New rules replace the index's; the chunking is still its own.
    let out = ok(&["index", c, "--index", i, "--acl", "verordening*=team-b"]);
    let e = stderr(&out);
    assert!(
        e.contains("using the index's own configuration") && !e.contains("keeping"),
        "{e}"
    );
    assert!(e.contains("2 updated"), "{e}");
    let r = search(
        &idx,
        "windturbines",
        &["--mode", "bm25", "--filter", "acl=team-a"],
    );
    assert!(r.is_empty(), "{r:?}");
    let r = search(
        &idx,
        "parkeren",
        &["--mode", "bm25", "--filter", "acl=team-b"],
    );
    assert!(
        !r.is_empty()
            && r.iter()
                .all(|h| h["doc_id"] == "verordening-parkeren-2022.txt"),
        "{r:?}"
    );

    // --rebuild takes only the flags given (here the defaults).
    let out = ok(&["index", c, "--index", i, "--rebuild"]);
    let e = stderr(&out);
    assert!(
        e.contains("3 added") && !e.contains("own configuration"),
        "{e}"
    );
    let out = run(&["search", "x", "--index", i, "--filter", "type=motie"]);
    assert!(
        !out.status.success(),
        "the rebuilt index has no `type` field"
    );
}

/// An index directory inside the directory it indexes (`chunklab index . --index ./idx`)
/// never indexes its own files: a re-run finds the documents unchanged and nothing else.
#[test]
fn an_index_inside_its_corpus_skips_its_own_files() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(tmp.path());
    let idx = corpus.join("idx");
    let first = index(&corpus, &idx, &[]);
    assert!(first.status.success(), "{}", stderr(&first));
    let again = index(&corpus, &idx, &[]);
    assert!(
        stderr(&again).contains("0 added, 0 updated, 0 removed, 3 unchanged; 0 chunks embedded"),
        "{}",
        stderr(&again)
    );
    let hits = search(&idx, "chunk", &["--mode", "bm25", "--k", "100"]);
    assert!(!hits.is_empty());
    assert!(
        hits.iter()
            .all(|h| !h["doc_id"].as_str().unwrap().starts_with("idx")),
        "{hits:?}"
    );
}

#[test]
fn the_graph_is_shaped_at_build_and_searched_as_wide_as_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let corpus = sample_corpus(tmp.path());
    let idx = tmp.path().join("g.idx");
    let i = idx.to_str().unwrap();
    let hnsw = || -> Value {
        let m: Value =
            serde_json::from_slice(&std::fs::read(idx.join("manifest.json")).unwrap()).unwrap();
        m["settings"]["hnsw"].clone()
    };
    // Out of range: named as the flags, nothing created.
    for (flags, says) in [
        (&["--hnsw-m", "1"][..], "--hnsw-m: 1 (must be 2 to 100)"),
        (
            &["--hnsw-m", "32", "--hnsw-ef-construction", "40"][..],
            "--hnsw-ef-construction: 40 (must be 4 to 1000 and at least twice --hnsw-m, 64)",
        ),
        (
            &["--commit-every", "0"][..],
            "--commit-every must be at least 1",
        ),
    ] {
        let out = index(&corpus, &idx, flags);
        assert!(!out.status.success());
        assert!(stderr(&out).contains(says), "{}", stderr(&out));
        assert!(!idx.join("manifest.json").exists());
    }
    // A faster build: recorded, kept by a run that names nothing, refused when another is named.
    let out = index(&corpus, &idx, &["--hnsw-ef-construction", "80"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(hnsw(), serde_json::json!({"m": 16, "ef_construction": 80}));
    let out = ok(&["index", corpus.to_str().unwrap(), "--index", i]);
    assert!(stderr(&out).contains("3 unchanged"), "{}", stderr(&out));
    assert_eq!(hnsw()["ef_construction"], 80);
    let out = index(&corpus, &idx, &["--hnsw-m", "24"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains(
            "hnsw: index has `m=16,ef_construction=80`, this run has `m=24,ef_construction=128`"
        ) && stderr(&out).contains("--rebuild"),
        "{}",
        stderr(&out)
    );
    // A query's own candidate list: the same answer on a small index (an exact scan), and a
    // clear error out of range.
    let plain = search(&idx, "parkeervergunning", &["--mode", "dense"]);
    let wide = search(
        &idx,
        "parkeervergunning",
        &["--mode", "dense", "--ef", "256"],
    );
    assert_eq!(plain, wide);
    let out = run(&["search", "parkeervergunning", "--index", i, "--ef", "0"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("--ef must be between 1 and 10000"),
        "{}",
        stderr(&out)
    );
}
