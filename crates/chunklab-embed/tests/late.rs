//! Late chunking with the real MiniLM model: exact pooling for one window, windowing of long
//! documents, and inputs that must not break it.

// One-chunk inputs are written `&[0..n]`: a slice of one span, not the range's numbers.
#![allow(clippy::single_range_in_vec_init)]

use chunklab_embed::{late_embeddings, load, Embedder, Error, LateOptions, LoadOptions, Role};
use std::ops::Range;
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

fn sample(name: &str) -> String {
    let path = format!("{}/../../samples/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn assert_unit(v: &[f32]) {
    assert!(v.iter().all(|x| x.is_finite()), "non-finite value");
    let norm = dot(v, v).sqrt();
    assert!((norm - 1.0).abs() < 1e-4, "norm {norm}");
}

/// Byte ranges of the sentences of `text` (cut after ". ", the space left between chunks).
fn sentences(text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, _) in text.match_indices(". ") {
        out.push(start..i + 1);
        start = i + 2;
    }
    if start < text.len() {
        out.push(start..text.len());
    }
    out
}

/// Indices of the tokens whose span shares a byte with `chunk` (the rule late chunking uses).
fn tokens_in(spans: &[Range<usize>], chunk: &Range<usize>) -> Range<usize> {
    let inside: Vec<usize> = (0..spans.len())
        .filter(|&i| spans[i].start < chunk.end && spans[i].end > chunk.start)
        .collect();
    match (inside.first(), inside.last()) {
        (Some(&a), Some(&b)) => a..b + 1,
        _ => 0..0,
    }
}

const ONE_WINDOW: &str =
    "De gemeenteraad besluit een kader vast te stellen voor windenergie op land. \
Het kader wijst drie zoekgebieden aan langs de A7. Daar mogen samen hoogstens twaalf turbines \
komen. Omwonenden krijgen een deel van de opbrengst via een gebiedsfonds. Het college rapporteert \
jaarlijks over de voortgang.";

#[test]
fn one_window_is_the_exact_mean_pool_of_the_token_vectors() {
    let model = minilm();
    let text = ONE_WINDOW;
    let chunks = sentences(text);
    assert!(chunks.len() >= 4);
    let tv = model.token_vectors(text).unwrap();
    assert!(tv.len() <= model.token_capacity());
    let late = late_embeddings(model, text, &chunks, &LateOptions::default()).unwrap();
    assert_eq!(late.tokens, tv.len());
    assert_eq!(late.windows, vec![0..tv.len()]);
    assert_eq!(late.owned, vec![tv.len()]);
    assert_eq!(
        (late.forward_passes, late.direct, late.realigned),
        (1, 0, 0)
    );
    let texts: Vec<&str> = chunks.iter().map(|c| &text[c.clone()]).collect();
    let separate = model.embed(&texts, Role::Passage).unwrap();
    for (c, chunk) in chunks.iter().enumerate() {
        let range = tokens_in(&tv.spans, chunk);
        let expected = tv.mean_pool(range).unwrap();
        assert_eq!(
            late.vectors[c], expected,
            "chunk {c} is not the exact mean pool"
        );
        assert_unit(&late.vectors[c]);
        // Context changes the vector: it is not the chunk embedded on its own ...
        let cos = dot(&late.vectors[c], &separate[c]);
        assert!(cos < 0.995, "chunk {c}: late equals separate (cos {cos})");
        // ... but it is still about the same text.
        assert!(cos > 0.5, "chunk {c}: late far from separate (cos {cos})");
    }
}

#[test]
fn a_token_cut_by_a_chunk_boundary_counts_in_both_chunks() {
    let model = minilm();
    let text = "Windmolens leveren stroom.";
    // Cut inside "Windmolens": its first token(s) straddle the boundary.
    let chunks = vec![0..2, 2..text.len()];
    let tv = model.token_vectors(text).unwrap();
    let late = late_embeddings(model, text, &chunks, &LateOptions::default()).unwrap();
    for (c, chunk) in chunks.iter().enumerate() {
        let range = tokens_in(&tv.spans, chunk);
        assert!(!range.is_empty());
        assert_eq!(late.vectors[c], tv.mean_pool(range).unwrap());
    }
    let first = tokens_in(&tv.spans, &chunks[0]);
    let second = tokens_in(&tv.spans, &chunks[1]);
    assert!(first.end > second.start, "no token shared by both chunks");
}

/// The two Dutch samples, cut after the first `tokens` tokens.
fn long_text(model: &dyn Embedder, tokens: usize) -> String {
    let mut text = String::new();
    while model.token_spans(&text).unwrap().len() < tokens {
        text.push_str(&sample("verordening-parkeren-2022.txt"));
        text.push_str("\n\n");
        text.push_str(&sample("motie-windenergie-2021.txt"));
        text.push_str("\n\n");
    }
    let spans = model.token_spans(&text).unwrap();
    text.truncate(spans[tokens - 1].end);
    text
}

/// Paragraphs, plus every 500 bytes a cut on the nearest char boundary (mid-word cuts too).
fn paragraphs_and_cuts(text: &str) -> Vec<Range<usize>> {
    let mut bounds = vec![0, text.len()];
    bounds.extend(text.match_indices("\n\n").map(|(i, _)| i));
    let mut i = 500;
    while i < text.len() {
        let mut j = i;
        while !text.is_char_boundary(j) {
            j += 1;
        }
        bounds.push(j);
        i += 500;
    }
    bounds.sort();
    bounds.dedup();
    bounds
        .windows(2)
        .map(|w| w[0]..w[1])
        .filter(|r| !text[r.clone()].trim().is_empty())
        .collect()
}

#[test]
fn a_long_document_is_covered_by_overlapping_windows() {
    let model = minilm();
    let capacity = model.token_capacity();
    let text = long_text(model, 3 * capacity);
    let spans = model.token_spans(&text).unwrap();
    assert_eq!(spans.len(), 3 * capacity);
    let mut chunks = paragraphs_and_cuts(&text);
    chunks.push(0..text.len()); // one chunk that holds every token
    let late = late_embeddings(model, &text, &chunks, &LateOptions::default()).unwrap();
    assert_eq!(late.tokens, spans.len());
    let (window, overlap) = LateOptions::default().resolve(capacity).unwrap();
    let w = &late.windows;
    assert!(
        w.len() >= 4,
        "{} windows for {} tokens",
        w.len(),
        spans.len()
    );
    assert_eq!(w[0].start, 0);
    assert_eq!(w.last().unwrap().end, spans.len());
    for pair in w.windows(2) {
        assert!(pair[1].start > pair[0].start);
        assert!(
            pair[1].start < pair[0].end,
            "windows {pair:?} do not overlap"
        );
        // The planned overlap, plus at most 16 tokens to start at a word.
        let shared = pair[0].end - pair[1].start;
        assert!(shared >= overlap && shared <= overlap + 16, "{pair:?}");
    }
    assert!(w.iter().all(|r| r.len() <= window));
    assert_eq!(late.owned.len(), w.len());
    assert_eq!(late.owned.iter().sum::<usize>(), spans.len());
    assert!(late.owned.iter().all(|&n| n > 0));
    assert_eq!(late.forward_passes, w.len());
    assert_eq!(late.direct, 0);
    assert_eq!(
        late.realigned, 0,
        "windows start at words, so tokens line up"
    );
    assert_eq!(late.vectors.len(), chunks.len());
    for v in &late.vectors {
        assert_unit(v);
    }
}

#[test]
fn windowed_chunks_stay_close_to_the_one_window_result() {
    let model = minilm();
    let text = long_text(model, 200);
    let chunks = paragraphs_and_cuts(&text);
    let whole = late_embeddings(model, &text, &chunks, &LateOptions::default()).unwrap();
    assert_eq!(whole.windows.len(), 1);
    let small = LateOptions {
        window: Some(120),
        overlap: Some(60),
    };
    let windowed = late_embeddings(model, &text, &chunks, &small).unwrap();
    assert!(windowed.windows.len() >= 2);
    let spans = model.token_spans(&text).unwrap();
    let texts: Vec<&str> = chunks.iter().map(|c| &text[c.clone()]).collect();
    let separate = model.embed(&texts, Role::Passage).unwrap();
    let mut compared = 0;
    for (c, chunk) in chunks.iter().enumerate() {
        let cos = dot(&whole.vectors[c], &windowed.vectors[c]);
        assert!(cos > 0.8, "chunk {c}: cos {cos}");
        // A chunk well inside one window saw most of the same context either way: its vector
        // stays much closer to the one-window vector than the chunk embedded on its own.
        let r = tokens_in(&spans, chunk);
        let central = windowed
            .windows
            .iter()
            .any(|w| r.start >= w.start + 20 && r.end + 20 <= w.end);
        if central {
            let alone = dot(&whole.vectors[c], &separate[c]);
            assert!(cos > 0.85, "central chunk {c}: cos {cos}");
            assert!(
                cos > alone + 0.1,
                "central chunk {c}: cos {cos}, alone {alone}"
            );
            compared += 1;
        }
    }
    assert!(compared > 0, "no chunk lies in the middle of a window");
}

#[test]
fn degenerate_inputs_do_not_panic() {
    let model = minilm();
    let opts = LateOptions::default();
    // Empty document: no chunks, or one empty chunk (embedded directly).
    let late = late_embeddings(model, "", &[], &opts).unwrap();
    assert!(late.vectors.is_empty() && late.windows.is_empty());
    let late = late_embeddings(model, "", &[0..0], &opts).unwrap();
    assert_eq!((late.tokens, late.direct), (0, 1));
    assert_unit(&late.vectors[0]);
    // Whitespace only: no tokens, so the chunk is embedded on its own.
    let ws = " \n\t  \u{a0}\n";
    let late = late_embeddings(model, ws, &[0..ws.len()], &opts).unwrap();
    assert_eq!((late.tokens, late.direct, late.forward_passes), (0, 1, 1));
    assert_unit(&late.vectors[0]);
    // One sentence, as one chunk.
    let s = "De raad besluit.";
    let late = late_embeddings(model, s, &[0..s.len()], &opts).unwrap();
    assert_eq!(late.windows.len(), 1);
    assert_unit(&late.vectors[0]);
    // Non-ASCII and emoji, cut on every char boundary.
    let t = "Café naïve — 日本語のテキスト 😀🇳🇱 Ünïcödé ½ €5,-";
    let mut bounds: Vec<usize> = t.char_indices().map(|(i, _)| i).collect();
    bounds.push(t.len());
    let chunks: Vec<Range<usize>> = bounds.windows(2).map(|w| w[0]..w[1]).collect();
    let late = late_embeddings(model, t, &chunks, &opts).unwrap();
    assert_eq!(late.vectors.len(), chunks.len());
    for v in &late.vectors {
        assert_unit(v);
    }
    // A chunk of a char the tokenizer drops (zero-width space) is embedded directly.
    let z = "Wind\u{200b}molens";
    let late = late_embeddings(model, z, &[0..4, 4..7, 7..z.len()], &opts).unwrap();
    assert_eq!((late.vectors.len(), late.direct), (3, 1));
    late.vectors.iter().for_each(|v| assert_unit(v));
}

#[test]
fn bad_spans_and_settings_are_errors() {
    let model = minilm();
    let t = "Café";
    for bad in [0..4, Range { start: 2, end: 1 }, 0..9] {
        match late_embeddings(
            model,
            t,
            std::slice::from_ref(&bad),
            &LateOptions::default(),
        ) {
            Err(Error::Late(m)) => assert!(m.contains("span"), "{m}"),
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    let opts = LateOptions {
        window: Some(10),
        overlap: Some(10),
    };
    let e = late_embeddings(model, t, &[0..1], &opts).unwrap_err();
    assert!(e.to_string().contains("overlap"), "{e}");
    let opts = LateOptions {
        window: Some(0),
        overlap: None,
    };
    assert!(late_embeddings(model, t, &[0..1], &opts).is_err());
}

#[test]
fn a_tiny_window_still_covers_every_token() {
    let model = minilm();
    let text = ONE_WINDOW;
    let chunks = sentences(text);
    let opts = LateOptions {
        window: Some(3),
        overlap: Some(0),
    };
    let late = late_embeddings(model, text, &chunks, &opts).unwrap();
    assert_eq!(late.owned.iter().sum::<usize>(), late.tokens);
    assert!(late.windows.iter().all(|w| w.len() <= 3));
    late.vectors.iter().for_each(|v| assert_unit(v));
}
