//! `chunklab bench` as a user runs it: our dataset format, bad input, sweeps, every output.

use chunklab_test_support::{cli, stderr};
use serde_json::Value;
use std::path::Path;
use std::process::Output;

fn chunklab(args: &[&str], cache: &Path) -> Output {
    cli!()
        .command()
        .arg("bench")
        .args(args)
        .arg("--cache-dir")
        .arg(cache)
        .output()
        .expect("run chunklab")
}

/// A three-document corpus and three labelled questions.
fn dataset(dir: &Path) -> (String, String) {
    let corpus = dir.join("corpus");
    std::fs::create_dir_all(corpus.join("moties")).unwrap();
    std::fs::write(
        corpus.join("moties/windenergie.md"),
        "# Motie windenergie\n\nDe raad verzoekt het college om drie windturbines te plaatsen langs de A7.\n\nDe motie is aangenomen met 21 stemmen voor.\n",
    )
    .unwrap();
    std::fs::write(
        corpus.join("parkeren.txt"),
        "Verordening parkeren\n\nArtikel 1. Een bewonersvergunning kost 80 euro per jaar.\n\nArtikel 2. Bezoekers parkeren met een bezoekerspas.\n",
    )
    .unwrap();
    std::fs::write(
        corpus.join("jeugdzorg.md"),
        "# Jeugdzorg\n\nHet budget voor jeugdzorg stijgt in 2023 naar 4,2 miljoen euro.\n",
    )
    .unwrap();
    let text = std::fs::read_to_string(corpus.join("parkeren.txt")).unwrap();
    let start = text.find("Artikel 1").unwrap();
    let end = text.find(" per jaar.").unwrap();
    let q = format!(
        "{}\n{}\n{}\n",
        r#"{"id": "q1", "query": "windturbines A7 motie", "relevant_docs": ["moties/windenergie.md"]}"#,
        format_args!(
            r#"{{"id": "q2", "query": "Wat kost een bewonersvergunning per jaar?", "relevant_spans": [{{"doc_id": "parkeren.txt", "start_char": {}, "end_char": {}}}]}}"#,
            text[..start].chars().count(),
            text[..end].chars().count()
        ),
        r#"{"id": "q3", "query": "budget jeugdzorg 2023", "relevant_docs": ["jeugdzorg.md"]}"#,
    );
    let queries = dir.join("queries.jsonl");
    std::fs::write(&queries, q).unwrap();
    (
        corpus.to_str().unwrap().to_string(),
        queries.to_str().unwrap().to_string(),
    )
}

/// The three-document dataset and `sweep` (TOML) in `dir`, as bench arguments (`--corpus`,
/// `--queries`, `--config`, `--json`), and where the JSON goes.
fn sweep_args(dir: &Path, sweep: &str) -> (Vec<String>, std::path::PathBuf) {
    let (corpus, queries) = dataset(dir);
    let file = dir.join("sweep.toml");
    std::fs::write(&file, sweep).unwrap();
    let json = dir.join("r.json");
    let args = ["--corpus", &corpus, "--queries", &queries, "--config"]
        .iter()
        .map(|s| s.to_string())
        .chain([
            file.to_str().unwrap().to_string(),
            "--json".into(),
            json.to_str().unwrap().to_string(),
        ])
        .collect();
    (args, json)
}

const BM25_SWEEP: &str = r#"
modes = ["bm25"]
unit = "chars"

[[config]]
strategy = "recursive"
size = [40, 200]

[[config]]
strategy = "paragraph"
size = 200
"#;

#[test]
fn bm25_sweep_writes_every_output() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, queries) = dataset(dir.path());
    let sweep = dir.path().join("sweep.toml");
    std::fs::write(&sweep, BM25_SWEEP).unwrap();
    let p = |n: &str| dir.path().join(n).to_str().unwrap().to_string();
    let out = chunklab(
        &[
            "--corpus",
            &corpus,
            "--queries",
            &queries,
            "--config",
            sweep.to_str().unwrap(),
            "-k",
            "2",
            "--json",
            &p("r.json"),
            "--csv",
            &p("r.csv"),
            "--markdown",
            &p("r.md"),
            "--report",
            &p("r.html"),
            "--per-query",
            &p("r.jsonl"),
        ],
        &dir.path().join("cache"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("recursive 40"), "{table}");
    assert_eq!(
        table.lines().filter(|l| l.starts_with('*')).count(),
        1,
        "{table}"
    );
    assert!(stderr(&out).contains("3 documents (0 files skipped), 3 queries (1 with spans)"));

    let json: Value = serde_json::from_str(&std::fs::read_to_string(p("r.json")).unwrap()).unwrap();
    assert_eq!(json["dataset"], "corpus");
    assert_eq!(json["k"], 2);
    let rows = json["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    for r in rows {
        assert_eq!(r["mode"], "bm25");
        assert_eq!(r["params"]["unit"], "chars");
        for m in [
            "recall",
            "precision",
            "iou",
            "precision_omega",
            "doc_recall",
            "mrr",
            "ndcg",
        ] {
            assert!(r["metrics"][m].is_number(), "{m} in {r}");
        }
        for c in [
            "chunks",
            "tokens_embedded",
            "index_bytes",
            "query_p50_ms",
            "query_p95_ms",
        ] {
            assert!(r["cost"][c].is_number(), "{c} in {r}");
        }
        assert_eq!(r["cost"]["tokens_embedded"], 0);
        assert!(r["cost"]["index_bytes"].as_u64().unwrap() > 0);
        // Every query's document shares rare words with it: BM25 finds all three.
        assert_eq!(r["metrics"]["doc_recall"], 100.0, "{r}");
    }
    let csv = std::fs::read_to_string(p("r.csv")).unwrap();
    assert_eq!(csv.lines().count(), 4);
    assert!(
        csv.starts_with("dataset,label,strategy,params,model,mode,k,recall,recall_lo,recall_hi")
    );
    let md = std::fs::read_to_string(p("r.md")).unwrap();
    assert!(md.contains("| ★ "), "{md}");
    let html = std::fs::read_to_string(p("r.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg"));
    // One line per row and query, each query's own values.
    let per_query: Vec<Value> = std::fs::read_to_string(p("r.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(per_query.len(), 3 * 3);
    let mut ids: Vec<&str> = per_query[..3]
        .iter()
        .map(|l| l["query"].as_str().unwrap())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3, "{per_query:?}");
    for l in &per_query {
        assert_eq!(l["metrics"]["doc_recall"], 100.0, "{l}");
        assert_eq!(l["mode"], "bm25");
    }
    assert!(
        !html.contains("http://") || !html.contains("src="),
        "no external assets"
    );
}

#[test]
fn dense_and_hybrid_with_the_real_model() {
    let dir = tempfile::tempdir().unwrap();
    let (mut args, json) = sweep_args(
        dir.path(),
        "modes = [\"dense\", \"hybrid\", \"hybrid+rerank\"]\nunit = \"chars\"\n[[config]]\nstrategy = \"paragraph\"\nsize = 120\n[[config]]\nstrategy = \"paragraph\"\nsize = 120\ncontext = \"header\"\n",
    );
    args.extend(["--model", "minilm", "-k", "3"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let cache = dir.path().join("cache");
    let out = chunklab(&args, &cache);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["model"], "minilm");
    // The notes name the vectors the dense rows were scored with, precision included.
    let int8 =
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma");
    let vectors = if int8 {
        "vectors: minilm@int8 ("
    } else {
        "vectors: minilm ("
    };
    assert!(
        v["notes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|n| n.as_str().unwrap().starts_with(vectors)),
        "{}",
        v["notes"]
    );
    let dense = &v["rows"][0];
    assert_eq!(dense["mode"], "dense");
    assert!(dense["cost"]["tokens_embedded"].as_u64().unwrap() > 20);
    assert_eq!(dense["cost"]["cached"], 0);
    assert!(dense["metrics"]["hit"].as_f64().unwrap() >= 66.0, "{dense}");
    // Reranking (MaxSim over MiniLM's token vectors) reorders the hybrid candidates.
    let reranked = &v["rows"][2];
    assert_eq!(reranked["mode"], "hybrid+rerank");
    assert!(
        reranked["metrics"]["hit"].as_f64().unwrap() >= 66.0,
        "{reranked}"
    );
    // The header context is counted in the size and embedded with the chunk.
    let header = &v["rows"][3];
    assert_eq!(header["params"]["context"], "header");
    assert_eq!(header["label"], "paragraph 120 +context header");
    assert!(
        header["cost"]["max_tokens"].as_u64().unwrap() <= 120,
        "{header}"
    );
    assert!(
        header["cost"]["tokens_embedded"].as_u64().unwrap()
            > dense["cost"]["tokens_embedded"].as_u64().unwrap(),
        "{header} vs {dense}"
    );
    // The second run takes every vector from the cache.
    let out = chunklab(&args, &cache);
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["rows"][0]["cost"]["embedded"], 0);
    assert_eq!(v["rows"][0]["metrics"], dense["metrics"]);
}

/// A sweep over the graph's shape: one index per shape over the same chunks, whose vectors are
/// embedded once; each row says its shape and how long its index took to build, and the table
/// shows the build time.
#[test]
fn graph_shapes_are_built_side_by_side() {
    let dir = tempfile::tempdir().unwrap();
    let (mut args, json) = sweep_args(
        dir.path(),
        "modes = [\"dense\"]\nunit = \"chars\"\n[[config]]\nstrategy = \"paragraph\"\nsize = 120\nhnsw_m = [8, 16]\nhnsw_ef_construction = 40\n",
    );
    args.extend(["--model", "minilm", "-k", "3"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = chunklab(&args, &dir.path().join("cache"));
    assert!(out.status.success(), "{}", stderr(&out));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("build s"), "{table}");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    let mut labels: Vec<&str> = rows.iter().map(|r| r["label"].as_str().unwrap()).collect();
    labels.sort();
    assert_eq!(
        labels,
        ["paragraph 120 m 16 efc 40", "paragraph 120 m 8 efc 40"]
    );
    for r in rows {
        assert_eq!(r["graph"]["ef_construction"], 40, "{r}");
        assert!(r["cost"]["index_ms"].as_f64().unwrap() > 0.0, "{r}");
    }
    let embedded: Vec<u64> = rows
        .iter()
        .map(|r| r["cost"]["embedded"].as_u64().unwrap())
        .collect();
    assert!(
        embedded.contains(&0) && embedded.iter().any(|&e| e > 0),
        "{embedded:?}"
    );
    // A collection this small is searched exactly: the graph changes nothing found.
    assert_eq!(rows[0]["metrics"], rows[1]["metrics"]);
}

fn expect_error(args: &[&str], cache: &Path, wants: &[&str]) {
    let out = chunklab(args, cache);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let e = stderr(&out);
    for w in wants {
        assert!(e.contains(w), "`{w}` missing in:\n{e}");
    }
}

#[test]
fn bad_input_is_reported_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let (corpus, queries) = dataset(dir.path());
    let cache = dir.path().join("cache");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "{\"id\": \"a\", \"query\": \"x\", \"relevant_docs\": [\"nope.md\"]}\n{not json\n{\"id\": \"c\", \"query\": \"x\", \"relevant_spans\": [{\"doc_id\": \"jeugdzorg.md\", \"start_char\": 5, \"end_char\": 9999}]}\n",
    )
    .unwrap();
    let badq = bad.to_str().unwrap();
    expect_error(
        &["--corpus", &corpus, "--queries", badq],
        &cache,
        &[
            "3 problems",
            "bad.jsonl:1: query `a` refers to unknown document `nope.md`",
            "bad.jsonl:2: malformed query",
            "bad.jsonl:3: query `c`: span 5..9999 is outside document `jeugdzorg.md`",
        ],
    );
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    expect_error(
        &["--corpus", empty.to_str().unwrap(), "--queries", &queries],
        &cache,
        &["empty corpus"],
    );
    let sweep = dir.path().join("s.toml");
    std::fs::write(
        &sweep,
        "k = 3\n[[config]]\nstrategy = \"fixed\"\nsize = \"big\"\n",
    )
    .unwrap();
    expect_error(
        &[
            "--corpus",
            &corpus,
            "--queries",
            &queries,
            "--config",
            sweep.to_str().unwrap(),
        ],
        &cache,
        &["s.toml:4: `size` must be a non-negative integer"],
    );
    std::fs::write(&sweep, "k = 3\n[[config]]\nstrategy = fixed\n").unwrap();
    expect_error(
        &[
            "--corpus",
            &corpus,
            "--queries",
            &queries,
            "--config",
            sweep.to_str().unwrap(),
        ],
        &cache,
        &["s.toml:3: malformed TOML"],
    );
    // Filters that keep nothing say what the sweep had.
    std::fs::write(&sweep, "[[config]]\nstrategy = \"fixed\"\nsize = 100\n").unwrap();
    expect_error(
        &[
            "--corpus",
            &corpus,
            "--queries",
            &queries,
            "--config",
            sweep.to_str().unwrap(),
            "--modes",
            "bm25",
        ],
        &cache,
        &["no configuration left to run: the sweep's 1 configuration has modes dense and strategies fixed, and the filter keeps only modes bm25"],
    );
    let csvdir = dir.path().join("chroma");
    std::fs::create_dir_all(csvdir.join("corpora")).unwrap();
    std::fs::write(csvdir.join("corpora/c.md"), "Een tekst.").unwrap();
    std::fs::write(csvdir.join("questions_df.csv"), "question,references,corpus_id\nWat?,[],c\nWat?,\"[{\"\"content\"\": \"\"Een\"\", \"\"start_index\"\": 0, \"\"end_index\"\": 3}]\",zz\n").unwrap();
    expect_error(
        &[
            "--dataset",
            "chroma",
            "--data-dir",
            csvdir.to_str().unwrap(),
        ],
        &cache,
        &[
            "questions_df.csv:2: empty question or no references",
            "questions_df.csv:3: unknown corpus_id `zz`",
        ],
    );
    expect_error(&["--corpus", &corpus], &cache, &["corpus needs queries"]);
    expect_error(&["--dataset", "x"], &cache, &["unknown dataset `x`"]);
    expect_error(
        &["--metric", "f1"],
        &cache,
        &["--metric: unknown metric `f1`"],
    );
}

#[test]
fn archive_runs_with_a_small_sweep() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("a.json");
    let out = chunklab(
        &[
            "--docs",
            "10",
            "--strategies",
            "fixed,headings",
            "--modes",
            "hybrid",
            "--model",
            "minilm",
            "--json",
            json.to_str().unwrap(),
        ],
        &dir.path().join("cache"),
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    assert_eq!(v["dataset"], "archive");
    assert_eq!(v["k"], 5);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    for r in rows {
        assert_eq!(r["mode"], "hybrid");
        assert!(r["metrics"]["doc_recall"].as_f64().unwrap() > 0.0, "{r}");
    }
}

#[test]
fn llm_context_configuration_with_the_local_model() {
    let dir = tempfile::tempdir().unwrap();
    let (args, json) = sweep_args(
        dir.path(),
        "modes = [\"bm25\"]\nunit = \"chars\"\n[[config]]\nstrategy = \"paragraph\"\nsize = 400\ncontext = [\"header\", \"llm\"]\nllm = \"local:smollm2\"\n",
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = chunklab(&args, &dir.path().join("cache"));
    assert!(out.status.success(), "{}", stderr(&out));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0]["params"]["context"], "header");
    assert_eq!(rows[0]["cost"]["llm_calls"], 0);
    let llm = &rows[1];
    assert_eq!(llm["params"]["context"], "llm");
    assert_eq!(llm["params"]["llm"], "local:smollm2");
    assert_eq!(llm["params"]["context_reserve"], 64);
    // Every chunk was answered by the model or from its answer cache (a re-run costs nothing),
    // and the context stayed within the size.
    let chunks = llm["cost"]["chunks"].as_u64().unwrap();
    let answered = llm["cost"]["llm_calls"].as_u64().unwrap()
        + llm["cost"]["llm_cache_hits"].as_u64().unwrap();
    assert!(answered >= chunks, "{llm}");
    assert!(llm["cost"]["max_tokens"].as_u64().unwrap() <= 400, "{llm}");
    assert!(
        stderr(&out).contains("context (local:smollm2)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_bm25_only_sweep_refuses_a_model_that_does_not_exist() {
    let dir = tempfile::tempdir().unwrap();
    let (args, _) = sweep_args(
        dir.path(),
        "modes = [\"bm25\"]\nunit = \"chars\"\nmodels = [\"nope-model\"]\n[[config]]\nstrategy = \"paragraph\"\nsize = 200\n",
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let out = chunklab(&args, &dir.path().join("cache"));
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("model `nope-model` is no known model"),
        "{}",
        stderr(&out)
    );
}

/// `--export DIR` writes the generated archive as files; benching those files gives the rows
/// the built-in dataset gives (same documents, ids, queries and spans).
#[test]
fn export_writes_the_archive_that_bench_reads_back() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let out_dir = dir.path().join("archive");
    let out = chunklab(
        &["--docs", "20", "--export", out_dir.to_str().unwrap()],
        &cache,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("exported 20 documents"),
        "{}",
        stderr(&out)
    );
    let corpus = out_dir.join("corpus");
    let queries = out_dir.join("queries.jsonl");
    let files = walkdir(&corpus);
    assert_eq!(files.len(), 20, "{files:?}");
    assert!(files.iter().any(|f| f.starts_with("moties/")), "{files:?}");
    let lines = std::fs::read_to_string(&queries).unwrap();
    let n = lines.lines().count();
    assert!(n > 0);
    assert!(
        stderr(&out).contains(&format!(" and {n} queries to ")),
        "{}",
        stderr(&out)
    );

    let rows = |args: &[&str], name: &str| -> Vec<Value> {
        let json = dir.path().join(name);
        let sweep = dir.path().join("sweep.toml");
        std::fs::write(
            &sweep,
            "modes = [\"bm25\"]\nunit = \"chars\"\n[[config]]\nstrategy = \"recursive\"\nsize = 800\n[[config]]\nstrategy = \"headings\"\nsize = 1500\n",
        )
        .unwrap();
        let mut all: Vec<&str> = args.to_vec();
        // k = 10 of the 20 documents' chunks: deep enough that ties at the cut-off (below)
        // do not move recall.
        all.extend([
            "--config",
            sweep.to_str().unwrap(),
            "-k",
            "10",
            "--json",
            json.to_str().unwrap(),
        ]);
        let out = chunklab(&all, &cache);
        assert!(out.status.success(), "{}", stderr(&out));
        let v: Value = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        let mut rows = v["rows"].as_array().unwrap().clone();
        for r in &mut rows {
            let m = r.as_object_mut().unwrap();
            m.retain(|k, _| k == "config" || k == "metrics" || k == "mode");
        }
        rows
    };
    let built_in = rows(&["--docs", "20"], "built_in.json");
    let exported = rows(
        &[
            "--corpus",
            corpus.to_str().unwrap(),
            "--queries",
            queries.to_str().unwrap(),
        ],
        "exported.json",
    );
    assert!(!built_in.is_empty());
    assert_eq!(built_in.len(), exported.len());
    // The same chunks and labels; only the order documents are indexed in differs (archive
    // order vs. path order), which can break ties between equal BM25 scores differently: the
    // regulations share word-for-word definitions and procedure articles, so chunks of two
    // versions can score exactly alike, and which of them fills the last place (by index key,
    // that is by load order) moves a query's chunk recall, not its token or document recall.
    for (a, b) in built_in.iter().zip(&exported) {
        assert_eq!(a["config"], b["config"]);
        for (metric, tolerance) in [
            ("recall", 0.0),
            ("doc_recall", 0.0),
            ("chunk_recall", 2.0),
            ("mrr", 0.005),
            ("ndcg", 0.005),
        ] {
            let (x, y) = (
                a["metrics"][metric].as_f64().unwrap(),
                b["metrics"][metric].as_f64().unwrap(),
            );
            assert!((x - y).abs() <= tolerance, "{metric}: {x} vs {y}\n{a}\n{b}");
        }
    }

    // A second export into the same directory is refused, not merged.
    let again = chunklab(
        &["--docs", "20", "--export", out_dir.to_str().unwrap()],
        &cache,
    );
    assert!(!again.status.success());
    assert!(stderr(&again).contains("not empty"), "{}", stderr(&again));
}

/// Files under `root`, as sorted relative paths with `/`.
fn walkdir(root: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let rel = p
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                out.push(rel);
            }
        }
    }
    out.sort();
    out
}
