//! `chunklab index --store` and `chunklab search --store` against a real PostgreSQL + pgvector
//! server (chunklab_test_support::pg_url: `$CHUNKLAB_PG_URL` or one started by
//! scripts/pg-server.sh; the test fails when neither works): the samples indexed into a fresh
//! database and into an embedded index with the same flags give the same hits; a server that
//! cannot be reached is a clear error naming it, without the password.

use chunklab_test_support::{cli, stderr, with_db};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Output, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

fn run(args: &[&str]) -> Output {
    cli!()
        .command()
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

/// A new, empty database on the test server; returns its URL.
fn fresh_db(tag: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let url = chunklab_test_support::pg_url();
    let name = format!(
        "chunklab_cli_{tag}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    );
    let mut c = postgres::Client::connect(&url, postgres::NoTls)
        .unwrap_or_else(|e| panic!("PostgreSQL at {url}: {e}"));
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    with_db(&url, &name)
}

/// The same flags for both stores: paragraph-ish chunks, an access group and a metadata field.
const FLAGS: &[&str] = &[
    "--strategy",
    "recursive",
    "--size",
    "400",
    "--acl",
    "verordening-*=financien",
    "--acl",
    "*=iedereen",
    "--meta",
    "verordening-*=soort:verordening",
    "--meta",
    "motie-*=soort:motie",
    "-q",
];

fn index(flag: &str, location: &str) {
    let samples = samples();
    let mut args = vec!["index", samples.to_str().unwrap(), flag, location];
    args.extend_from_slice(FLAGS);
    ok(&args);
}

fn search(flag: &str, location: &str, query: &str, extra: &[&str]) -> Vec<Value> {
    let mut args = vec!["search", query, flag, location, "--json"];
    args.extend_from_slice(extra);
    let out = ok(&args);
    let v: Value = serde_json::from_slice(&out.stdout).expect("search --json prints JSON");
    v["results"].as_array().expect("results").clone()
}

fn ids(hits: &[Value]) -> Vec<String> {
    hits.iter()
        .map(|h| h["chunk_id"].as_str().unwrap_or_default().to_string())
        .collect()
}

#[test]
fn index_and_search_through_postgres_match_the_embedded_index() {
    let url = fresh_db("same");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("idx");
    let dir = dir.to_str().unwrap();
    index("--store", &url);
    index("--index", dir);

    // BM25 (ts_rank_cd in PostgreSQL) with an access group and a metadata filter, inside the
    // search: only the parking regulation is visible, and both stores rank it the same.
    let filters = ["--filter", "acl=financien", "--filter", "soort=verordening"];
    for mode in ["bm25", "hybrid"] {
        let mut extra = vec!["--mode", mode, "-k", "3"];
        extra.extend_from_slice(&filters);
        let pg = search("--store", &url, "parkeervergunning tarief", &extra);
        let ix = search("--index", dir, "parkeervergunning tarief", &extra);
        assert!(!pg.is_empty(), "{mode}: no hits from PostgreSQL");
        for h in &pg {
            assert_eq!(
                h["doc_id"], "verordening-parkeren-2022.txt",
                "{mode}: the filter let {h} through"
            );
        }
        assert_eq!(
            ids(&pg),
            ids(&ix),
            "{mode}: PostgreSQL {pg:?}\nindex {ix:?}"
        );
    }

    // Unfiltered hybrid: the same best chunk on a query about the wind-energy motion.
    let pg = search("--store", &url, "windmolens op zee", &["-k", "1"]);
    let ix = search("--index", dir, "windmolens op zee", &["-k", "1"]);
    assert_eq!(ids(&pg), ids(&ix));
    assert_eq!(pg[0]["doc_id"], "motie-windenergie-2021.txt");

    // A group no document has sees nothing.
    let none = search(
        "--store",
        &url,
        "parkeervergunning",
        &["--mode", "bm25", "--filter", "acl=niemand"],
    );
    assert!(none.is_empty(), "{none:?}");

    // Indexing again with the same files changes nothing (incremental by content hash).
    let samples = samples();
    let mut args = vec!["index", samples.to_str().unwrap(), "--store", &url];
    args.extend_from_slice(&FLAGS[..FLAGS.len() - 1]);
    let out = ok(&args);
    let err = stderr(&out);
    assert!(
        err.contains("0 added, 0 updated, 0 removed, 3 unchanged"),
        "{err}"
    );
    assert!(!err.contains("password"), "{err}");
    // So does the bare command: it takes the store's own configuration and rules.
    let out = ok(&["index", samples.to_str().unwrap(), "--store", &url]);
    let err = stderr(&out);
    assert!(
        err.contains("using the index's own configuration")
            && err.contains("keeping the index's rules: --acl")
            && err.contains("0 added, 0 updated, 0 removed, 3 unchanged"),
        "{err}"
    );
}

#[test]
fn an_unreachable_server_is_named_without_its_password() {
    // Port 1 on loopback: nothing listens, every attempt is refused at once.
    let url = "postgres://chunklab:geheim-wachtwoord@127.0.0.1:1/archief";
    for args in [
        vec!["search", "parkeren", "--store", url, "--mode", "bm25"],
        vec!["index", "-q", "--store", url],
    ] {
        let mut args = args;
        let samples = samples();
        if args[0] == "index" {
            args.insert(1, samples.to_str().unwrap());
        }
        let out = run(&args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = stderr(&out);
        assert!(err.contains("127.0.0.1:1"), "{args:?}: {err}");
        assert!(err.contains("cannot be reached"), "{args:?}: {err}");
        assert!(
            !err.contains("geheim"),
            "{args:?} shows the password: {err}"
        );
    }
}

#[test]
fn a_store_that_is_no_store_is_refused_before_anything_is_made() {
    // Another URL scheme (or a misspelt one) was taken for a directory named `mysql:`.
    let dir = tempfile::tempdir().unwrap();
    let samples = samples();
    for (store, wants) in [
        ("mysql://x/archief", "`mysql://` is no store chunklab opens"),
        (
            "postgress://u@h/archief",
            "`postgress://` is no store chunklab opens",
        ),
        ("postgres://", "`postgres://` names no server"),
    ] {
        for args in [
            vec!["index", samples.to_str().unwrap(), "-q", "--store", store],
            vec!["search", "parkeren", "--store", store, "--mode", "bm25"],
        ] {
            let out = cli!()
                .command()
                .current_dir(dir.path())
                .env_remove("PGHOST")
                .args(&args)
                .stdin(Stdio::null())
                .output()
                .unwrap();
            assert!(!out.status.success(), "{args:?} succeeded");
            assert!(stderr(&out).contains(wants), "{args:?}: {}", stderr(&out));
        }
    }
    let made: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert!(made.is_empty(), "{made:?}");
}

#[test]
fn index_and_store_flags_are_exclusive_and_one_is_required() {
    let out = run(&["search", "x", "--index", "a", "--store", "b"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("cannot be used with"),
        "{}",
        stderr(&out)
    );
    let out = run(&["search", "x"]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("--index"), "{}", stderr(&out));
}

/// `chunklab bench --store URL`: each configuration is built in a PostgreSQL database of its
/// own (dropped afterwards) and queried there; dense rows equal the embedded index's.
#[test]
fn bench_store_runs_the_lab_on_postgres() {
    let url = chunklab_test_support::pg_url();
    let dir = tempfile::tempdir().unwrap();
    let sweep = dir.path().join("sweep.toml");
    std::fs::write(
        &sweep,
        "models = [\"minilm\"]\nmodes = [\"dense\", \"bm25\"]\nunit = \"chars\"\n[[config]]\nstrategy = \"recursive\"\nsize = 800\n",
    )
    .unwrap();
    let rows = |extra: &[&str], name: &str| -> Vec<Value> {
        let json = dir.path().join(name);
        let mut args = vec![
            "bench",
            "--docs",
            "8",
            "--config",
            sweep.to_str().unwrap(),
            "--cache-dir",
            dir.path().join("cache").to_str().unwrap(),
            "--json",
            json.to_str().unwrap(),
            "-q",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>();
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        ok(&refs);
        let v: Value = serde_json::from_str(&std::fs::read_to_string(json).unwrap()).unwrap();
        v["rows"].as_array().unwrap().clone()
    };
    let embedded = rows(&[], "embedded.json");
    let pg = rows(&["--store", &url], "pg.json");
    assert_eq!(embedded.len(), 2);
    assert_eq!(pg.len(), 2);
    for (e, p) in embedded.iter().zip(&pg) {
        assert_eq!(e["mode"], p["mode"]);
        assert_eq!(
            e["cost"]["chunks"], p["cost"]["chunks"],
            "same chunks in both stores"
        );
        if e["mode"] == "dense" {
            for m in ["recall", "doc_recall", "mrr"] {
                assert_eq!(e["metrics"][m], p["metrics"][m], "dense {m}: {e}\n{p}");
            }
        } else {
            // ts_rank_cd, not BM25: close, not equal.
            let d = p["metrics"]["doc_recall"].as_f64().unwrap();
            assert!(d > 50.0, "bm25 on PostgreSQL: {p}");
        }
    }
    // No scratch database is left behind.
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let left: i64 = c
        .query_one(
            "SELECT count(*) FROM pg_database WHERE datname LIKE 'chunklab_scratch_%'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(left, 0);

    // A URL that is not PostgreSQL is refused before anything runs.
    let out = run(&["bench", "--store", "/tmp/idx", "-q"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("not a postgres:// URL"),
        "{}",
        stderr(&out)
    );
}
