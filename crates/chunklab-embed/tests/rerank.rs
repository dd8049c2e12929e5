//! Rerankers: the cross-encoder against Python `transformers` on random-weight fixtures, and
//! MaxSim on the real MiniLM / e5-small models.
//!
//! Fixture: tests/fixtures/tiny-cross-encoder/ (a 1-label model, two-labels/ a 2-label one,
//! reference.json the `transformers` logits), made by scripts/make_cross_encoder_fixture.py.

use chunklab_embed::{
    load, load_reranker, CrossEncoder, Embedder, Error, LoadOptions, MaxSim, Reranker, Role,
    TokenVectors,
};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tiny-cross-encoder")
}

struct Case {
    query: String,
    passage: String,
    tokens: usize,
    logit: f32,
    two_labels_tokens: usize,
    two_labels_logits: Vec<f32>,
}

fn reference() -> Vec<Case> {
    let text = std::fs::read_to_string(fixture().join("reference.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let f = |v: &serde_json::Value| v.as_f64().unwrap() as f32;
    json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            query: c["query"].as_str().unwrap().to_string(),
            passage: c["passage"].as_str().unwrap().to_string(),
            tokens: c["tokens"].as_u64().unwrap() as usize,
            logit: f(&c["logit"]),
            two_labels_tokens: c["two_labels_tokens"].as_u64().unwrap() as usize,
            two_labels_logits: c["two_labels_logits"]
                .as_array()
                .unwrap()
                .iter()
                .map(f)
                .collect(),
        })
        .collect()
}

/// Cases grouped by query (each group is scored in one batched call), in first-seen order.
fn by_query(cases: &[Case]) -> Vec<(&str, Vec<&Case>)> {
    let mut groups: Vec<(&str, Vec<&Case>)> = Vec::new();
    for c in cases {
        match groups.iter_mut().find(|(q, _)| *q == c.query) {
            Some((_, g)) => g.push(c),
            None => groups.push((&c.query, vec![c])),
        }
    }
    groups
}

#[test]
fn cross_encoder_matches_transformers() {
    let ce = CrossEncoder::from_dir(&fixture()).unwrap();
    assert_eq!(ce.num_labels(), 1);
    assert_eq!(ce.max_tokens(), 128);
    let cases = reference();
    assert!(cases.len() >= 20);
    assert!(
        cases.iter().any(|c| c.tokens == 128),
        "no case is truncated"
    );
    let mut worst = 0f32;
    for (query, group) in by_query(&cases) {
        let passages: Vec<&str> = group.iter().map(|c| c.passage.as_str()).collect();
        let scores = ce.score(query, &passages).unwrap();
        assert_eq!(scores.len(), group.len());
        for (c, s) in group.iter().zip(scores) {
            assert_eq!(
                ce.pair_tokens(query, &c.passage).unwrap(),
                c.tokens,
                "token count of {query:?} / {:?}",
                c.passage
            );
            let diff = (s - c.logit).abs();
            worst = worst.max(diff);
            assert!(
                diff <= 1e-4,
                "{query:?} / {:?}: {s} vs transformers {}",
                c.passage,
                c.logit
            );
        }
    }
    eprintln!("largest logit difference: {worst:e}");
}

#[test]
fn two_label_cross_encoder_scores_with_the_relevant_label() {
    let ce = CrossEncoder::from_dir(&fixture().join("two-labels")).unwrap();
    assert_eq!(ce.num_labels(), 2);
    assert_eq!(ce.max_tokens(), 64);
    for c in reference() {
        assert_eq!(
            ce.pair_tokens(&c.query, &c.passage).unwrap(),
            c.two_labels_tokens
        );
        let logits = ce.logits(&c.query, &[&c.passage]).unwrap();
        for (a, b) in logits[0].iter().zip(&c.two_labels_logits) {
            assert!((a - b).abs() <= 1e-4, "{:?}: {a} vs {b}", c.query);
        }
        let score = ce.score(&c.query, &[&c.passage]).unwrap()[0];
        assert_eq!(score, logits[0][1]);
    }
}

#[test]
fn cross_encoder_scores_do_not_depend_on_the_batch() {
    let ce = CrossEncoder::from_dir(&fixture()).unwrap();
    let cases = reference();
    let passages: Vec<&str> = cases.iter().map(|c| c.passage.as_str()).collect();
    let together = ce.score("parking permit for visitors", &passages).unwrap();
    for (p, s) in passages.iter().zip(&together) {
        let alone = ce.score("parking permit for visitors", &[p]).unwrap()[0];
        assert!((alone - s).abs() <= 1e-5, "{p:?}: {alone} vs {s}");
    }
}

#[test]
fn cross_encoder_edge_cases() {
    let ce = load_reranker(fixture().to_str().unwrap(), None).unwrap();
    assert_eq!(ce.name(), fixture().display().to_string());
    assert!(ce.score("search", &[]).unwrap().is_empty());
    for q in ["", "  \n\t"] {
        assert!(matches!(
            ce.score(q, &["some text"]),
            Err(Error::EmptyQuery)
        ));
    }
    let huge = "woord ".repeat(20_000);
    let scores = ce.score(&huge, &[&huge, "", "\u{0}\u{1}\u{fffd}"]).unwrap();
    assert!(scores.iter().all(|s| s.is_finite()));
}

/// A copy of the 1-label fixture in a temporary directory, for breaking files.
fn fixture_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for f in [
        "config.json",
        "tokenizer.json",
        "tokenizer_config.json",
        "model.safetensors",
    ] {
        std::fs::copy(fixture().join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn load_error(dir: &Path) -> String {
    match load_reranker(dir.to_str().unwrap(), None) {
        Ok(_) => panic!("{} loaded", dir.display()),
        Err(e) => {
            assert!(matches!(e, Error::BadModel { .. }), "{e}");
            e.to_string()
        }
    }
}

#[test]
fn broken_cross_encoder_files_are_named() {
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        let dir = fixture_copy();
        std::fs::remove_file(dir.path().join(f)).unwrap();
        let msg = load_error(dir.path());
        assert!(msg.contains(&format!("{f} is missing")), "{msg}");
        assert!(msg.contains("save_pretrained"), "{msg}");
    }
    for f in ["config.json", "tokenizer.json", "model.safetensors"] {
        let dir = fixture_copy();
        std::fs::write(dir.path().join(f), b"\x00garbage{").unwrap();
        let msg = load_error(dir.path());
        assert!(msg.contains(f), "{msg}");
    }
    // A truncated weights file.
    let dir = fixture_copy();
    let weights = std::fs::read(fixture().join("model.safetensors")).unwrap();
    std::fs::write(
        dir.path().join("model.safetensors"),
        &weights[..weights.len() / 2],
    )
    .unwrap();
    assert!(load_error(dir.path()).contains("model.safetensors"));
    // An embedding model (no pooler, no classifier) is not a cross-encoder. The real MiniLM,
    // fetched with the crate's own code when it is not in the cache (as the MaxSim tests do).
    let minilm = chunklab_embed::installed_dir(
        chunklab_embed::registry::find("minilm").unwrap(),
        &chunklab_embed::fetch::home_dir(),
        true,
    )
    .expect("minilm installed (fetched if missing)");
    let msg = load_error(&minilm);
    assert!(msg.contains("BertForSequenceClassification"), "{msg}");
}

#[test]
fn unknown_reranker_specs_list_the_options() {
    let err = load_reranker("colbert", None).err().unwrap();
    assert!(matches!(err, Error::UnknownReranker { .. }));
    let msg = err.to_string();
    assert!(
        msg.contains("maxsim") && msg.contains("config.json"),
        "{msg}"
    );
    let file = fixture().join("config.json");
    let msg = load_reranker(file.to_str().unwrap(), None)
        .err()
        .unwrap()
        .to_string();
    assert!(msg.contains("is a file"), "{msg}");
    assert!(matches!(
        load_reranker("maxsim", None),
        Err(Error::RerankerNeedsEmbedder)
    ));
}

// ---- MaxSim on real models ----

fn model(name: &str) -> Arc<dyn Embedder> {
    static MODELS: OnceLock<std::sync::Mutex<BTreeMap<String, Arc<dyn Embedder>>>> =
        OnceLock::new();
    let models = MODELS.get_or_init(Default::default);
    let mut models = models.lock().unwrap();
    models
        .entry(name.to_string())
        .or_insert_with(|| Arc::from(load(name, &LoadOptions::default()).unwrap()))
        .clone()
}

fn unit(v: &[f32]) -> Vec<f32> {
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter().map(|x| x / n).collect()
}

/// MaxSim written out from `token_vectors`: mean over query tokens of the best cosine.
fn direct_max_sim(q: &TokenVectors, p: &TokenVectors) -> f32 {
    let mut total = 0f64;
    for i in 0..q.len() {
        let a = unit(q.vector(i));
        let best = (0..p.len())
            .map(|j| {
                let b = unit(p.vector(j));
                a.iter().zip(&b).map(|(x, y)| (x * y) as f64).sum::<f64>()
            })
            .fold(f64::NEG_INFINITY, f64::max);
        total += best;
    }
    (total / q.len() as f64) as f32
}

const PASSAGES: [&str; 6] = [
    "Visitors can buy a parking permit for their guests at the city office.",
    "The library is open from nine to five on weekdays.",
    "Bezoekers kunnen een parkeervergunning aanvragen bij de gemeente.",
    "De raad heeft in 2018 drie moties over windenergie aangenomen.",
    "Heavy rain caused the river to flood the lower streets.",
    "Het zwembad is in de zomer langer open.",
];

#[test]
fn maxsim_equals_the_direct_computation() {
    let m = model("minilm");
    let maxsim = MaxSim::new(m.clone());
    assert_eq!(maxsim.name(), "maxsim(minilm)");
    let query = "parking permit for visitors";
    let scores = maxsim.score(query, &PASSAGES).unwrap();
    let q = m.token_vectors(query).unwrap();
    for (p, s) in PASSAGES.iter().zip(&scores) {
        let direct = direct_max_sim(&q, &m.token_vectors(p).unwrap());
        assert!((direct - s).abs() <= 1e-5, "{p:?}: {s} vs {direct}");
    }
}

#[test]
fn maxsim_passage_cache_gives_the_same_scores() {
    let m = model("minilm");
    let plain = MaxSim::new(m.clone());
    let cached = MaxSim::new(m).with_passage_cache();
    for query in [
        "parking permit for visitors",
        "moties windenergie aangenomen",
    ] {
        let want = plain.score(query, &PASSAGES).unwrap();
        // First call fills the cache, the second (reversed, with a repeat) reads it.
        assert_eq!(cached.score(query, &PASSAGES).unwrap(), want);
        let mut again: Vec<&str> = PASSAGES.iter().rev().copied().collect();
        again.push(PASSAGES[0]);
        let got = cached.score(query, &again).unwrap();
        let mut expect: Vec<f32> = want.iter().rev().copied().collect();
        expect.push(want[0]);
        assert_eq!(got, expect, "{query}");
    }
}

#[test]
fn maxsim_bounded_passage_cache_evicts_and_keeps_the_scores() {
    let m = model("minilm");
    let plain = MaxSim::new(m.clone());
    // Room for about one passage: every call evicts, scores must not change; and a cache
    // of nothing (0 bytes) still scores.
    for limit in [0, 40_000, usize::MAX] {
        let cached = MaxSim::new(m.clone()).with_passage_cache_limit(limit);
        for query in ["parking permit for visitors", "flooding after rain"] {
            let want = plain.score(query, &PASSAGES).unwrap();
            for _ in 0..2 {
                assert_eq!(
                    cached.score(query, &PASSAGES).unwrap(),
                    want,
                    "limit {limit}"
                );
            }
        }
    }
}

#[test]
fn maxsim_ranks_the_relevant_passage_first() {
    let cases = [
        ("parking permit for visitors", 0),
        ("parkeervergunning voor bezoekers", 2),
        ("moties windenergie aangenomen", 3),
        ("when does the library open", 1),
        ("flooding after rain", 4),
        ("openingstijden zwembad zomer", 5),
    ];
    for name in ["minilm", "e5-small"] {
        let maxsim = MaxSim::new(model(name));
        for (query, best) in cases {
            let scores = maxsim.score(query, &PASSAGES).unwrap();
            let top = (0..scores.len())
                .max_by(|&a, &b| scores[a].total_cmp(&scores[b]))
                .unwrap();
            assert_eq!(top, best, "{name} {query:?}: {scores:?}");
        }
    }
}

#[test]
fn maxsim_edge_cases() {
    let maxsim = load_reranker("maxsim", Some(model("minilm"))).unwrap();
    assert!(maxsim.score("parking", &[]).unwrap().is_empty());
    for q in ["", "   ", "\n\t"] {
        let err = maxsim.score(q, &PASSAGES).unwrap_err();
        assert!(matches!(err, Error::EmptyQuery), "{err}");
        assert!(err.to_string().contains("empty"));
    }
    let scores = maxsim.score("parking", &["", "  ", "parking"]).unwrap();
    assert_eq!(&scores[..2], &[-1.0, -1.0]);
    assert!(scores[2] > 0.9, "{scores:?}");
}

#[test]
fn maxsim_windows_long_passages() {
    let m = model("minilm");
    let filler = "The committee discussed the agenda and approved the minutes. ".repeat(60);
    let needle = format!("{filler}Visitors can buy a parking permit at the city office.");
    let spans = m.token_spans(&needle).unwrap();
    assert!(
        spans.len() > 2 * m.token_capacity(),
        "{} tokens",
        spans.len()
    );
    // Every token is covered, in order, across the windows.
    let tv = m.token_vectors_batch(&[&needle], Role::Passage).unwrap();
    assert_eq!(tv[0].spans, spans);
    // The relevant sentence sits in the last window; truncation would lose it.
    let maxsim = MaxSim::new(m.clone());
    let scores = maxsim
        .score("parking permit for visitors", &[&filler, &needle])
        .unwrap();
    assert!(scores[1] > scores[0] + 0.05, "{scores:?}");
    // A long query is windowed as well.
    let long_query = "parking permit ".repeat(300);
    assert!(maxsim.score(&long_query, &PASSAGES).unwrap()[0].is_finite());
}

#[test]
fn batched_token_vectors_equal_single_ones() {
    for name in ["minilm", "e5-small"] {
        let m = model(name);
        let batch = m.token_vectors_batch(&PASSAGES, Role::Passage).unwrap();
        for (p, tv) in PASSAGES.iter().zip(&batch) {
            let single = m.token_vectors(p).unwrap();
            assert_eq!(tv.spans, single.spans);
            for (a, b) in tv.vectors.iter().zip(&single.vectors) {
                assert!((a - b).abs() <= 1e-4, "{name} {p:?}: {a} vs {b}");
            }
        }
        // Queries get the query prefix: the same for MiniLM, different for e5.
        let q = m.token_vectors_batch(&PASSAGES[..1], Role::Query).unwrap();
        assert_eq!(q[0].spans, batch[0].spans);
        let same = q[0]
            .vectors
            .iter()
            .zip(&batch[0].vectors)
            .all(|(a, b)| (a - b).abs() <= 1e-4);
        assert_eq!(same, name == "minilm", "{name}");
    }
}

/// Rerank latency of MaxSim on MiniLM for 50 passages of 200 tokens, next to the time
/// `embed` takes for the same passages (run in release:
/// `cargo test --release -p chunklab-embed --test integration rerank:: -- --ignored --nocapture`).
#[test]
#[ignore]
fn maxsim_latency_50_passages() {
    let m = model("minilm");
    let base = "De gemeenteraad bespreekt de begroting, parkeervergunningen voor bezoekers, \
                windenergie en de openingstijden van de bibliotheek. "
        .repeat(10);
    let passages: Vec<String> = (0..50)
        .map(|i| {
            let text = format!("Passage {i}. {base}");
            let spans = m.token_spans(&text).unwrap();
            text[..spans[199].end].to_string()
        })
        .collect();
    let refs: Vec<&str> = passages.iter().map(String::as_str).collect();
    assert!(refs.iter().all(|p| m.token_spans(p).unwrap().len() == 200));
    let maxsim = MaxSim::new(m.clone());
    maxsim.score("warm up", &refs[..1]).unwrap();
    let start = std::time::Instant::now();
    let scores = maxsim
        .score("parkeervergunning voor bezoekers", &refs)
        .unwrap();
    let rerank = start.elapsed().as_secs_f64();
    assert_eq!(scores.len(), 50);
    let start = std::time::Instant::now();
    m.embed(&refs, Role::Passage).unwrap();
    let embed = start.elapsed().as_secs_f64();
    eprintln!(
        "maxsim(minilm), 50 passages x 200 tokens: {:.0} ms; embed of the same passages: {:.0} ms ({:.2}x)",
        rerank * 1e3,
        embed * 1e3,
        rerank / embed
    );
}
