//! kill -9 of the server in the middle of an ingest: after a restart the store holds whole
//! documents only (every document with exactly its chunks), and the writer's error says what
//! happened; the indexes the bulk load had dropped are built by the next writer. Runs its own server (scripts/pg-server.sh) so that the shared one is not killed.

use crate::common::*;
use chunklab_index::StoreWriter;
use chunklab_postgres::PgWriter;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn script() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/pg-server.sh")
}

fn try_start(dir: &Path, port: u16) -> Result<String, String> {
    let out = Command::new("bash")
        .arg(script())
        .args(["start", "--dir"])
        .arg(dir)
        .args(["--port", &port.to_string()])
        .output()
        .unwrap();
    if !out.status.success() {
        return Err(format!(
            "scripts/pg-server.sh start: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    Ok(String::from_utf8(out.stdout).unwrap().trim().to_string())
}

fn start(dir: &Path, port: u16) -> String {
    try_start(dir, port).unwrap_or_else(|e| panic!("{e}"))
}

/// Start again after a kill -9. The killed postmaster's backends notice its death on their own
/// schedule and hold its shared memory until they exit; until then pg_ctl refuses to start
/// ("another server might be running" / "could not start server"), longer on a loaded machine.
/// Retry for up to 30 s, then fail with the last error.
fn restart_after_crash(dir: &Path, port: u16) -> String {
    let begun = Instant::now();
    loop {
        match try_start(dir, port) {
            Ok(url) => return url,
            Err(e) if begun.elapsed() > Duration::from_secs(30) => panic!("{e}"),
            Err(_) => std::thread::sleep(Duration::from_millis(500)),
        }
    }
}

#[test]
fn kill_9_of_the_server_mid_ingest_leaves_whole_documents() {
    let tmp = tempfile::tempdir().unwrap();
    // The server runs as `nobody` when the tests run as root: it must reach its directory.
    std::fs::set_permissions(
        tmp.path(),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    let dir = tmp.path().join("srv");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = start(&dir, port);
    let docs = corpus(60);
    let killer = {
        let url = url.clone();
        let pid_file = dir.join("data/postmaster.pid");
        std::thread::spawn(move || {
            let started = Instant::now();
            let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
            loop {
                let n: i64 = c
                    .query_one(
                        "SELECT CASE WHEN to_regclass('chunklab.documents') IS NULL THEN 0 ELSE (SELECT count(*) FROM chunklab.documents) END",
                        &[],
                    )
                    .map(|r| r.get(0))
                    .unwrap_or(0);
                if n >= 6 || started.elapsed() > Duration::from_secs(30) {
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
            let pid = std::fs::read_to_string(&pid_file).unwrap();
            let pid = pid.lines().next().unwrap().trim().to_string();
            assert!(Command::new("kill")
                .args(["-9", &pid])
                .status()
                .unwrap()
                .success());
        })
    };
    let mut w = PgWriter::open(&url, settings(), false).unwrap();
    let mut failed = None;
    for group in docs.chunks(2) {
        for d in group {
            w.add_document(d.clone()).unwrap();
        }
        if let Err(e) = w.commit() {
            failed = Some(e.to_string());
            break;
        }
    }
    killer.join().unwrap();
    let err = failed.expect("the ingest outlived the server");
    assert!(err.contains("PostgreSQL at"), "{err}");
    drop(w);
    // Restart on the same data directory and port: crash recovery replays the WAL.
    let url = restart_after_crash(&dir, port);
    let mut c = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let rows = c
        .query(
            "SELECT d.doc_id, d.chunk_count, (SELECT count(*) FROM chunklab.chunks c WHERE c.doc_id = d.doc_id) FROM chunklab.documents d",
            &[],
        )
        .unwrap();
    assert!(
        rows.len() >= 6 && rows.len() < 60,
        "{} documents",
        rows.len()
    );
    for r in &rows {
        let (id, want, got): (String, i32, i64) = (r.get(0), r.get(1), r.get(2));
        let expected = docs.iter().find(|d| d.doc_id == id).unwrap().chunks.len();
        assert_eq!(want as usize, expected, "{id}");
        assert_eq!(got as usize, expected, "{id}: a document in part");
    }
    // The ingest took the bulk path (an empty store): its indexes were dropped with the first
    // commit and never built. The next writer builds them before writing.
    let missing =
        chunklab_postgres::bulk::missing(&mut c, DIM, chunklab_index::HnswSettings::POSTGRES)
            .unwrap();
    assert_eq!(missing.len(), 5, "the bulk path dropped the indexes");
    let w = PgWriter::open(&url, settings(), false).unwrap();
    assert!(
        chunklab_postgres::bulk::missing(&mut c, DIM, chunklab_index::HnswSettings::POSTGRES)
            .unwrap()
            .is_empty()
    );
    drop(w);
    let out = Command::new("bash")
        .arg(script())
        .arg("stop")
        .arg(&dir)
        .output()
        .unwrap();
    assert!(out.status.success());
}
