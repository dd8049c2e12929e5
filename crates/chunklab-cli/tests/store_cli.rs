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
