//! `chunklab chunk --strategy semantic|cluster|hierarchical` as a user runs them, with the real
//! MiniLM model (fetched into the user's cache on first use, like `embed_cli.rs` does): the limit
//! holds in MiniLM's real tokens, spans are exact slices, every non-whitespace char is covered,
//! output is deterministic, breakpoints fall where the topic changes, parent ids resolve, and bad
//! input gets clear errors.

use chunklab_core::text::is_py_space;
use chunklab_core::Sizer;
use chunklab_test_support::{cli, shared_path, stderr};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::Arc;

fn chunklab(args: &[&str]) -> Output {
    cli!().run(args)
}

fn ok(args: &[&str]) -> (String, Vec<Value>) {
    let out = chunklab(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let chunks = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (stdout, chunks)
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn samples() -> String {
    repo().join("samples").to_string_lossy().into_owned()
}

/// MiniLM's tokenizer as a sizer, fetching the model first if needed (the `--fetch` of the CLI
/// runs below does the same).
fn minilm_tokens() -> Arc<dyn Sizer> {
    let opts = chunklab_embed::LoadOptions {
        fetch: true,
        home: None,
        ..Default::default()
    };
    chunklab_embed::load("minilm", &opts).expect("minilm");
    let dir = chunklab_embed::model_dir("minilm", &opts).unwrap();
    chunklab_tokenizers::sizer_from_spec("tokens", Some(dir.to_str().unwrap()), false).unwrap()
}

/// Every chunk is an exact slice of its source file whose real size (in `sizer`) is its
/// `tokens` and at most `size`; each document's non-whitespace chars are covered exactly once.
fn check_chunks(chunks: &[Value], sizer: &dyn Sizer, size: usize) {
    assert!(!chunks.is_empty());
    let mut by_doc: BTreeMap<String, Vec<&Value>> = BTreeMap::new();
    for c in chunks {
        by_doc
            .entry(c["source"].as_str().unwrap().to_string())
            .or_default()
            .push(c);
    }
    for (source, chunks) in by_doc {
        let text = std::fs::read_to_string(&source).unwrap();
        let mut covered = vec![0u8; text.len()];
        for c in chunks {
            let (s, e) = (
                c["start_byte"].as_u64().unwrap() as usize,
                c["end_byte"].as_u64().unwrap() as usize,
            );
            let slice = &text[s..e];
            assert_eq!(
                c["text"].as_str().unwrap(),
                slice,
                "{source}: not an exact slice"
            );
            let real = sizer.count(slice);
            assert_eq!(
                c["tokens"].as_u64().unwrap() as usize,
                real,
                "{source}: {slice:?}"
            );
            assert!(real <= size, "{source}: {real} tokens > {size}: {slice:?}");
            for b in &mut covered[s..e] {
                *b += 1;
            }
        }
        for (b, ch) in text.char_indices() {
            if !is_py_space(ch) {
                assert_eq!(
                    covered[b], 1,
                    "{source}: {ch:?} at byte {b} covered {} times",
                    covered[b]
                );
            }
        }
    }
}

#[test]
fn semantic_with_minilm_on_real_documents() {
    let sizer = minilm_tokens();
    let dir = samples();
    let args = [
        "chunk",
        &dir,
        "--strategy",
        "semantic",
        "--model",
        "minilm",
        "--fetch",
        "--percentile",
        "90",
        "--max-size",
        "64",
        "-q",
    ];
    let (first, chunks) = ok(&args);
    check_chunks(&chunks, sizer.as_ref(), 64);
    assert!(chunks.iter().all(|c| c["strategy"] == "semantic"));
    let (again, _) = ok(&args);
    assert_eq!(first, again, "output is not deterministic");

    // The same with --unit tokens (MiniLM's tokens, not cl100k) and a minimum size.
    let (_, chunks) = ok(&[
        "chunk",
        &dir,
        "--strategy",
        "semantic",
        "--model",
        "minilm",
        "--size",
        "128",
        "--unit",
        "tokens",
        "--min-size",
        "32",
        "--breakpoint",
        "stddev",
        "--threshold",
        "1",
        "-q",
    ]);
    check_chunks(&chunks, sizer.as_ref(), 128);
}

#[test]
fn semantic_breaks_where_a_constructed_text_changes_topic() {
    let wind = "Offshore wind farms generate electricity from the wind at sea. The turbines of \
                a wind farm stand in shallow coastal waters. Strong and steady sea winds make \
                offshore turbines productive. Wind power at sea is expanding in the North Sea. ";
    let bread = "To bake bread, mix flour, water, salt and yeast into a dough. Knead the dough \
                 until it is smooth and elastic. Let the dough rise for an hour before shaping \
                 the loaf. Bake the loaf in a hot oven until the crust is golden. ";
    let text = format!("{wind}{bread}");
    let change = wind.trim_end().len();
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("two-topics.txt");
    std::fs::write(&path, &text).unwrap();
    let p = path.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "chunk",
            p,
            "--strategy",
            "semantic",
            "--model",
            "minilm",
            "-q",
        ];
        args.extend_from_slice(extra);
        let (_, chunks) = ok(&args);
        let ends: Vec<usize> = chunks
            .iter()
            .map(|c| c["end_byte"].as_u64().unwrap() as usize)
            .collect();
        let texts: Vec<String> = chunks
            .iter()
            .map(|c| c["text"].as_str().unwrap().to_string())
            .collect();
        (ends, texts)
    };
    // Each sentence embedded alone: the break is exactly at the change.
    for extra in [
        &["--buffer", "0"][..],
        &["--buffer", "0", "--breakpoint", "interquartile"],
    ] {
        let (ends, texts) = run(extra);
        assert!(
            ends.contains(&change),
            "{extra:?}: no break at byte {change}: {texts:?}"
        );
        for t in &texts {
            assert!(
                !(t.contains("wind") && t.contains("dough")),
                "{extra:?}: mixed: {t:?}"
            );
        }
    }
    // With a window of 3 sentences the three steps across the change each swap one wind
    // sentence for one bread sentence, so the break is at the change or one sentence off it.
    let wind_last_but_one = wind.trim_end().rfind(". ").unwrap() + 1;
    let bread_first = change + 1 + bread.find(". ").unwrap() + 1;
    let (ends, texts) = run(&["--buffer", "1"]);
    assert!(
        [wind_last_but_one, change, bread_first]
            .iter()
            .any(|e| ends.contains(e)),
        "--buffer 1: no break near byte {change}: {texts:?}"
    );
    assert_eq!(ends.len(), 2, "{texts:?}");
}

#[test]
fn cluster_with_minilm_on_real_documents() {
    let sizer = minilm_tokens();
    let dir = samples();
    let args = [
        "chunk",
        &dir,
        "--strategy",
        "cluster",
        "--model",
        "minilm",
        "--size",
        "100",
        "--unit",
        "tokens",
        "--piece-size",
        "25",
        "-q",
    ];
    let (first, chunks) = ok(&args);
    check_chunks(&chunks, sizer.as_ref(), 100);
    assert!(chunks.iter().all(|c| c["strategy"] == "cluster"));
    let (again, _) = ok(&args);
    assert_eq!(first, again, "output is not deterministic");
    // Chunks are grouped pieces, not the pieces themselves.
    let (_, pieces) = ok(&[
        "chunk",
        &dir,
        "--strategy",
        "recursive",
        "--model",
        "minilm",
        "--size",
        "25",
        "-q",
    ]);
    assert!(
        chunks.len() < pieces.len(),
        "{} chunks from {} pieces",
        chunks.len(),
        pieces.len()
    );
}

#[test]
fn strategies_on_a_larger_real_document() {
    let doc = shared_path("datasets/documents/markdown/md_django-3.2_topics_checks.md");
    let p = doc.to_str().unwrap();
    let sizer = minilm_tokens();
    let (_, chunks) = ok(&[
        "chunk",
        p,
        "--strategy",
        "semantic",
        "--model",
        "minilm",
        "--max-size",
        "200",
        "-q",
    ]);
    check_chunks(&chunks, sizer.as_ref(), 200);
    let (_, chunks) = ok(&[
        "chunk",
        p,
        "--strategy",
        "cluster",
        "--model",
        "minilm",
        "--size",
        "200",
        "-q",
    ]);
    check_chunks(&chunks, sizer.as_ref(), 200);
}

#[test]
fn hierarchical_parents_resolve_on_a_real_document() {
    let doc = repo().join("samples/verordening-parkeren-2022.txt");
    let p = doc.to_str().unwrap();
    let levels = [400usize, 120, 40];
    let (first, chunks) = ok(&[
        "chunk",
        p,
        "--strategy",
        "hierarchical",
        "--levels",
        "400,120,40",
        "--unit",
        "tokens",
        "-q",
    ]);
    let cl100k = chunklab_tokenizers::sizer_from_spec("tokens", Some("cl100k"), false).unwrap();
    let by_id: HashMap<&str, &Value> = chunks
        .iter()
        .map(|c| (c["id"].as_str().unwrap(), c))
        .collect();
    assert_eq!(by_id.len(), chunks.len(), "ids are not unique");
    let mut per_level: Vec<Vec<Value>> = vec![Vec::new(); levels.len()];
    let mut last_at_level: Vec<Option<&str>> = vec![None; levels.len()];
    for c in &chunks {
        let level = c["level"].as_u64().expect("every chunk has a level") as usize;
        let id = c["id"].as_str().unwrap();
        match c["parent_id"].as_str() {
            None => assert_eq!(level, 0, "a child without parent"),
            Some(pid) => {
                let parent = by_id
                    .get(pid)
                    .expect("parent id resolves to an emitted chunk");
                assert_eq!(parent["level"].as_u64().unwrap() as usize, level - 1);
                assert!(parent["start_byte"].as_u64() <= c["start_byte"].as_u64());
                assert!(c["end_byte"].as_u64() <= parent["end_byte"].as_u64());
                // Pre-order: the parent is the latest chunk one level up.
                assert_eq!(last_at_level[level - 1], Some(pid));
            }
        }
        last_at_level[level] = Some(id);
        per_level[level].push(c.clone());
    }
    for (level, chunks) in per_level.iter().enumerate() {
        check_chunks(chunks, cl100k.as_ref(), levels[level]);
    }
    assert!(per_level.iter().all(|l| !l.is_empty()));
    let (again, _) = ok(&[
        "chunk",
        p,
        "--strategy",
        "hierarchical",
        "--levels",
        "400,120,40",
        "--unit",
        "tokens",
        "-q",
    ]);
    assert_eq!(first, again, "output is not deterministic");
}

fn fails(args: &[&str], want: &str) {
    let out = chunklab(args);
    assert_eq!(
        out.status.code(),
        Some(2),
        "{args:?} should fail: {}",
        stderr(&out)
    );
    let err = stderr(&out);
    assert!(err.contains(want), "{args:?}: {want:?} not in {err}");
    assert!(!err.contains("panicked"), "{err}");
}

#[test]
fn bad_parameters_are_clear_errors() {
    let p = repo().join("samples/motie-windenergie-2021.txt");
    let p = p.to_str().unwrap();
    fails(
        &["chunk", p, "--strategy", "semantic"],
        "--model is needed by strategy semantic",
    );
    fails(
        &["chunk", p, "--strategy", "cluster"],
        "--model is needed by strategy cluster",
    );
    let semantic = ["chunk", p, "--strategy", "semantic", "--model", "minilm"];
    fails(
        &[&semantic[..], &["--percentile", "150"]].concat(),
        "--percentile/--threshold 150 is not a percentile",
    );
    fails(
        &[&semantic[..], &["--breakpoint", "magic"]].concat(),
        "unknown breakpoint `magic`",
    );
    fails(
        &[
            &semantic[..],
            &["--breakpoint", "stddev", "--percentile", "90"],
        ]
        .concat(),
        "--percentile applies to --breakpoint percentile and gradient",
    );
    fails(
        &[&semantic[..], &["--min-size", "5000"]].concat(),
        "--min-size",
    );
    fails(
        &[&semantic[..], &["--buffer", "99"]].concat(),
        "--buffer 99",
    );
    let cluster = ["chunk", p, "--strategy", "cluster", "--model", "minilm"];
    fails(
        &[&cluster[..], &["--size", "10", "--piece-size", "50"]].concat(),
        "--piece-size",
    );
    let hier = ["chunk", p, "--strategy", "hierarchical"];
    fails(
        &[&hier[..], &["--levels", "128,512,2048"]].concat(),
        "strictly decreasing",
    );
    fails(
        &[&hier[..], &["--levels", "abc"]].concat(),
        "`abc` is not a size",
    );
    fails(
        &[&hier[..], &["--levels", "512,,128"]].concat(),
        "is not a size",
    );
    fails(
        &[
            "chunk",
            p,
            "--strategy",
            "semantic",
            "--model",
            "no-such-model",
        ],
        "unknown model",
    );
}

#[test]
fn a_missing_model_says_how_to_fetch_it() {
    let home = tempfile::tempdir().unwrap();
    let p = repo().join("samples/motie-windenergie-2021.txt");
    let out = cli!()
        .command()
        .args([
            "chunk",
            p.to_str().unwrap(),
            "--strategy",
            "semantic",
            "--model",
            "minilm",
        ])
        .env("CHUNKLAB_HOME", home.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("chunklab models fetch minilm"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn empty_single_sentence_and_overlong_inputs() {
    let tmp = tempfile::tempdir().unwrap();
    let empty = tmp.path().join("empty.txt");
    std::fs::write(&empty, "").unwrap();
    let blank = tmp.path().join("blank.txt");
    std::fs::write(&blank, "  \n\n \t\n").unwrap();
    let one = tmp.path().join("one.txt");
    std::fs::write(&one, "Eén enkele zin over windenergie.\n").unwrap();
    let long = tmp.path().join("long.txt");
    std::fs::write(&long, "windturbine ".repeat(3000)).unwrap();
    let sizer = minilm_tokens();
    for strategy in ["semantic", "cluster"] {
        for f in [&empty, &blank] {
            let (_, chunks) = ok(&[
                "chunk",
                f.to_str().unwrap(),
                "--strategy",
                strategy,
                "--model",
                "minilm",
                "-q",
            ]);
            assert!(chunks.is_empty(), "{strategy} {f:?}");
        }
        let (_, chunks) = ok(&[
            "chunk",
            one.to_str().unwrap(),
            "--strategy",
            strategy,
            "--model",
            "minilm",
            "-q",
        ]);
        assert_eq!(chunks.len(), 1);
        assert_eq!(chunks[0]["text"], "Eén enkele zin over windenergie.");
        // One "sentence" far longer than the model's window and the limit.
        let (_, chunks) = ok(&[
            "chunk",
            long.to_str().unwrap(),
            "--strategy",
            strategy,
            "--model",
            "minilm",
            "--size",
            "256",
            "-q",
        ]);
        check_chunks(&chunks, sizer.as_ref(), 256);
    }
}

#[test]
fn strategies_lists_the_model_strategies() {
    let out = chunklab(&["strategies", "--json"]);
    assert!(out.status.success());
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    // The JSON lists configuration keys (the sweep TOML's and the server's spelling).
    for (name, param) in [
        ("semantic", "breakpoint_amount"),
        ("semantic", "breakpoint"),
        ("semantic", "buffer"),
        ("semantic", "min_size"),
        ("cluster", "piece_size"),
        ("hierarchical", "levels"),
    ] {
        let s = list.iter().find(|s| s["name"] == name).expect(name);
        assert!(
            s["params"]
                .as_array()
                .unwrap()
                .iter()
                .any(|p| p["name"] == param),
            "{name} lacks {param}"
        );
    }
}

#[test]
fn the_core_adapter_embeds_each_text_once_as_a_passage() {
    use chunklab_core::TextEmbedder;
    let opts = chunklab_embed::LoadOptions {
        fetch: true,
        home: None,
        ..Default::default()
    };
    let model: Arc<dyn chunklab_embed::Embedder> =
        chunklab_embed::load("e5-small", &opts).unwrap().into();
    let adapter = chunklab_embed::CoreEmbedder::new(model.clone());
    let texts = ["Windmolens op zee.", "Brood bakken.", "Windmolens op zee."];
    let v = adapter.embed(&texts).unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v[0], v[2]);
    assert_ne!(v[0], v[1]);
    assert_eq!(adapter.cached(), 2);
    // The same vectors as the model gives passages (e5 adds "passage: ").
    let direct = model
        .embed(&texts[..2], chunklab_embed::Role::Passage)
        .unwrap();
    for (a, b) in v.iter().zip(&direct) {
        let cos: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
        assert!(cos > 0.9999, "{cos}");
    }
    let query = model
        .embed(&texts[..1], chunklab_embed::Role::Query)
        .unwrap();
    assert_ne!(query[0], v[0]);
    // Asking again hits the cache only.
    assert_eq!(adapter.embed(&texts[1..]).unwrap(), v[1..].to_vec());
    assert_eq!(adapter.cached(), 2);
    assert_eq!(adapter.name(), "e5-small");
}
