//! `chunklab models` and `chunklab embed` as a user runs them.

use chunklab_test_support::{cli, stderr, stdout};
use serde_json::Value;
use std::process::Output;

fn chunklab(args: &[&str], home: Option<&std::path::Path>) -> Output {
    let mut cmd = cli!().command();
    cmd.args(args);
    if let Some(h) = home {
        cmd.env("CHUNKLAB_HOME", h);
    }
    cmd.output().expect("run chunklab")
}

#[test]
fn models_list_shows_every_known_model() {
    let home = tempfile::tempdir().unwrap();
    let out = chunklab(&["models", "list"], Some(home.path()));
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    for want in ["minilm", "e5-small", "smollm2", "Apache-2.0", "MIT", "384"] {
        assert!(text.contains(want), "{want} missing in:\n{text}");
    }
    let out = chunklab(&["models", "list", "--json"], Some(home.path()));
    let list: Vec<Value> = serde_json::from_slice(&out.stdout).unwrap();
    let minilm = list.iter().find(|m| m["name"] == "minilm").unwrap();
    assert_eq!(minilm["dim"], 384);
    assert_eq!(minilm["installed"], false);
    assert!(minilm["path"]
        .as_str()
        .unwrap()
        .starts_with(home.path().to_str().unwrap()));
}

#[test]
fn embedding_with_a_missing_model_says_how_to_fetch_it() {
    let home = tempfile::tempdir().unwrap();
    let out = chunklab(&["embed", "hallo", "--model", "minilm"], Some(home.path()));
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(err.contains("chunklab models fetch minilm"), "{err}");
    let out = chunklab(&["models", "fetch", "nope"], Some(home.path()));
    assert!(stderr(&out).contains("unknown model"), "{}", stderr(&out));
}

#[test]
fn a_text_past_the_window_is_named_not_embedded_in_part_silently() {
    let long = "De gemeenteraad besluit over windturbines op zee. ".repeat(60);
    let out = chunklab(
        &["embed", "kort", &long, "--model", "minilm", "--fetch"],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("warning: minilm: text 2 is ")
            && err.contains("tokens, longer than the model's 254-token window: its vector is of the first 254 tokens only"),
        "{err}"
    );
    assert!(!err.contains("text 1 "), "{err}");
    assert_eq!(stdout(&out).lines().count(), 2);
}

#[test]
fn embed_prints_normalized_vectors() {
    // Uses (and if needed fills) the user's model cache, like a user would.
    let out = chunklab(
        &[
            "embed",
            "Welke moties over windenergie zijn aangenomen?",
            "The council approved the plan.",
            "--model",
            "minilm",
            "--json",
            "--fetch",
        ],
        None,
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 2);
    for l in &lines {
        assert_eq!(l["model"], "minilm");
        assert_eq!(l["dim"], 384);
        let v: Vec<f64> = l["embedding"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect();
        assert_eq!(v.len(), 384);
        let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4);
    }
    let out = chunklab(&["embed", "hallo wereld", "--query"], None);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("minilm 384-d ["),
        "{}",
        stdout(&out)
    );
}
