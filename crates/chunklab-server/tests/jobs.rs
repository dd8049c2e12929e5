//! Bench jobs against a real server: `POST /v1/bench` (write tokens only, bad keys 422),
//! `GET /v1/jobs/{id}` and its server-sent events on a tiny BM25 run that needs no model.

use crate::common::*;
use chunklab_server::Limits;
use serde_json::{json, Value};
use std::io::Read;

/// Two fixed-size BM25 configurations: a run that needs no model.
const BM25_SWEEP: &str =
    "mode = \"bm25\"\nunit = \"chars\"\n[[config]]\nstrategy = \"fixed\"\nsize = [300, 600]\n";

/// Events of a server-sent event stream: (event name, data).
fn events(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for block in text.split("\n\n") {
        let (mut name, mut data) = (String::new(), String::new());
        for line in block.lines() {
            if let Some(n) = line.strip_prefix("event:") {
                name = n.trim().to_string();
            } else if let Some(d) = line.strip_prefix("data:") {
                data.push_str(d.trim_start());
            }
        }
        if !name.is_empty() {
            out.push((name, data));
        }
    }
    out
}

#[test]
fn bench_job_runs_reports_progress_and_returns_the_bench_json() {
    let s = start(false, Limits::default());
    let req = json!({"dataset": "archive", "docs": 3, "config_text": BM25_SWEEP, "no_cache": true});

    let r = json("POST", &s.url("/v1/bench"), None, &req);
    assert_eq!(r.status, 401, "{}", r.text);
    let r = json("POST", &s.url("/v1/bench"), Some(BOB), &req);
    assert_eq!((r.status, r.code()), (403, "forbidden"), "{}", r.text);
    let r = json(
        "POST",
        &s.url("/v1/bench"),
        Some(ALICE),
        &json!({"docs": 3, "colour": 1}),
    );
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.message().contains("colour"), "{}", r.text);
    let r = json(
        "POST",
        &s.url("/v1/bench"),
        Some(ALICE),
        &json!({"docs": 3, "modes": ["nope"]}),
    );
    assert_eq!(r.status, 422, "{}", r.text);
    assert!(r.message().contains("nope"), "{}", r.text);

    // What the server chooses, and files outside its bench directory, are refused.
    for (key, value) in [
        ("scratch_dir", json!(s.dir.path().join("x"))),
        ("cache_dir", json!("/tmp")),
        ("fetch", json!(true)),
        ("corpus", json!("/etc")),
        ("queries", json!("../../etc/passwd")),
    ] {
        let mut bad = req.clone();
        bad[key] = value;
        let r = json("POST", &s.url("/v1/bench"), Some(ALICE), &bad);
        assert_eq!(r.status, 422, "{key}: {}", r.text);
        assert!(r.message().contains(key), "{key}: {}", r.text);
    }

    let r = json("POST", &s.url("/v1/bench"), Some(ALICE), &req);
    assert_eq!(r.status, 202, "{}", r.text);
    assert_eq!(r.body["status"], "running", "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();

    // A second start while the first runs is a 409 naming it.
    let second = json("POST", &s.url("/v1/bench"), Some(ALICE), &req);
    let first = get(&s.url(&format!("/v1/jobs/{id}")), Some(DAVE));
    if second.status == 409 {
        assert_eq!(second.code(), "job_running");
        assert!(second.message().contains(&id), "{}", second.text);
    } else {
        // The tiny run may have ended already; then the second starts like the first.
        assert_eq!(second.status, 202, "{}", second.text);
        assert_ne!(first.body["status"], "running", "{}", first.text);
    }

    // Server-sent events until the job ends: progress events, then `done` with the result.
    let mut text = String::new();
    ureq::get(&s.url(&format!("/v1/jobs/{id}/events")))
        .set("authorization", &format!("Bearer {DAVE}"))
        .call()
        .unwrap()
        .into_reader()
        .read_to_string(&mut text)
        .unwrap();
    let ev = events(&text);
    let (last, data) = ev.last().expect("events");
    assert_eq!(last, "done", "{text}");
    assert!(
        ev[..ev.len() - 1].iter().all(|(n, _)| n == "progress"),
        "{text}"
    );
    let done: Value = serde_json::from_str(data).unwrap();
    assert_eq!(done["status"], "done");
    assert!(
        done["notes"]
            .to_string()
            .contains("archive: 3 generated documents"),
        "{data}"
    );

    let job = get(&s.url(&format!("/v1/jobs/{id}")), Some(DAVE));
    assert_eq!(job.status, 200, "{}", job.text);
    assert_eq!(job.body["result"], done["result"]);
    let rows = job.body["result"]["rows"]
        .as_array()
        .expect("bench JSON rows");
    // One row per size of the sweep text.
    assert_eq!(rows.len(), 2, "{}", job.text);
    for row in rows {
        assert_eq!(row["strategy"], "fixed", "{row}");
        assert_eq!(row["mode"], "bm25", "{row}");
        assert!(row["metrics"].is_object(), "{row}");
    }
    assert!(
        job.body["result"]["queries"].as_u64().unwrap() > 0,
        "{}",
        job.text
    );

    let r = get(&s.url("/v1/jobs/no-such-job"), Some(DAVE));
    assert_eq!((r.status, r.code()), (404, "not_found"));
    let r = get(&s.url(&format!("/v1/jobs/{id}")), None);
    assert_eq!(r.status, 401);
}

#[test]
fn a_failing_bench_job_reports_why() {
    let s = start(false, Limits::default());
    // A corpus under the bench directory whose queries file is not JSONL: the run fails
    // loading it, and the job says so, naming the file.
    let corpus = s.dir.path().join("corpus");
    std::fs::create_dir_all(&corpus).unwrap();
    std::fs::write(corpus.join("a.md"), "# A\n\nEen document.\n").unwrap();
    std::fs::write(s.dir.path().join("broken-q.jsonl"), "this is not json\n").unwrap();
    let r = json(
        "POST",
        &s.url("/v1/bench"),
        Some(ALICE),
        &json!({"corpus": "corpus", "queries": "broken-q.jsonl", "config_text": BM25_SWEEP}),
    );
    assert_eq!(r.status, 202, "{}", r.text);
    let id = r.body["id"].as_str().unwrap().to_string();
    let mut text = String::new();
    ureq::get(&s.url(&format!("/v1/jobs/{id}/events")))
        .set("authorization", &format!("Bearer {ALICE}"))
        .call()
        .unwrap()
        .into_reader()
        .read_to_string(&mut text)
        .unwrap();
    let ev = events(&text);
    let (last, data) = ev.last().expect("events");
    assert_eq!(last, "failed", "{text}");
    let v: Value = serde_json::from_str(data).unwrap();
    assert!(
        v["error"].as_str().unwrap().contains("broken-q.jsonl"),
        "{data}"
    );
}
