//! The model-driven strategies (`semantic`, `cluster`) and `hierarchical`: invariants on random
//! and constructed text, breakpoints where the topic changes, parent links, and clear errors for
//! bad parameters.
//!
//! The embedder here is a hashed bag of words ([`Bag`]): deterministic, and similar for texts that
//! share words, which is all these tests need; the real model runs in the CLI tests
//! (`crates/chunklab-cli/tests/model_strategies_cli.rs`).

use chunklab_core::document::ParsedDocument;
use chunklab_core::strategies::{self, Breakpoint};
use chunklab_core::validate::{check_all_strategies_with, check_hierarchy, check_spans, Expect};
use chunklab_core::{
    chunk_document, chunk_parsed_document, CharSizer, Document, Error, Sizer, TextEmbedder,
    WordSizer,
};
use chunklab_core::{ChunkConfig, Chunker};
use chunklab_test_support::gen::text_from;
use proptest::prelude::*;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Hashed bag of lowercased words in 64 dimensions, L2-normalized (a text without words gets a
/// fixed vector). Counts the texts it embeds.
#[derive(Default)]
struct Bag {
    embedded: AtomicUsize,
}

impl TextEmbedder for Bag {
    fn name(&self) -> &str {
        "bag"
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        self.embedded.fetch_add(texts.len(), Ordering::Relaxed);
        Ok(texts.iter().map(|t| bag(t)).collect())
    }
}

fn bag(text: &str) -> Vec<f32> {
    let mut v = vec![0.0f32; 64];
    for word in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        // FNV-1a
        let mut h: u64 = 0xcbf29ce484222325;
        for b in word.to_lowercase().bytes() {
            h = (h ^ b as u64).wrapping_mul(0x100000001b3);
        }
        v[(h % 64) as usize] += 1.0;
    }
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 {
        v[0] = 1.0;
        return v;
    }
    v.iter().map(|x| x / norm).collect()
}

fn bag_arc() -> Arc<dyn TextEmbedder> {
    Arc::new(Bag::default())
}

fn opts(strategy: &str, size: usize) -> ChunkConfig {
    ChunkConfig::new(strategy.parse().unwrap(), size)
}

/// Build with the bag-of-words model.
fn build(o: &ChunkConfig, sizer: Arc<dyn Sizer>) -> chunklab_core::Result<Box<dyn Chunker>> {
    strategies::build(o, sizer, Some(bag_arc()))
}

fn texts<'a>(text: &'a str, spans: &[chunklab_core::Span]) -> Vec<&'a str> {
    spans.iter().map(|s| &text[s.start..s.end]).collect()
}

/// Two topics that share no words, each a few sentences long, and where the first ends.
fn two_topics() -> (String, usize) {
    let wind = "Windmolens draaien op zee. De windmolens leveren stroom op zee. Op zee waait \
                veel wind voor windmolens. Windmolens op zee draaien bij harde wind. ";
    let bakery = "The baker bakes fresh bread daily. Fresh bread from the baker smells good. \
                  The baker sells bread and cakes. Bread and cakes are baked fresh. ";
    // One change: with two equally sharp changes the 95th percentile of the distances would
    // be that (shared) distance, which is not above itself (LangChain's rule too).
    let text = format!("{wind}{bakery}");
    let first_change = wind.trim_end().len();
    (text, first_change)
}

#[test]
fn semantic_breaks_where_the_topic_changes() {
    let (text, change) = two_topics();
    for buffer in [0, 1] {
        let o = ChunkConfig {
            buffer,
            ..opts("semantic", 1000)
        };
        let chunker = build(&o, Arc::new(CharSizer)).unwrap();
        let spans = chunker.spans(&text).unwrap();
        check_spans(
            &text,
            &spans,
            &CharSizer,
            Expect {
                size: 1000,
                overlap: false,
            },
        )
        .unwrap();
        assert!(
            spans.iter().any(|s| s.end == change),
            "buffer {buffer}: no chunk ends at the topic change: {:?}",
            texts(&text, &spans)
        );
        for s in &spans {
            let t = &text[s.start..s.end];
            assert!(
                !(t.contains("Windmolens") && t.contains("baker")),
                "buffer {buffer}: a chunk mixes the topics: {t:?}"
            );
        }
    }
}

#[test]
fn every_breakpoint_method_finds_the_topic_change() {
    let (text, change) = two_topics();
    for (method, amount) in [
        (Breakpoint::Percentile, None),
        (Breakpoint::StdDev, Some(1.0)),
        (Breakpoint::Interquartile, None),
        (Breakpoint::Gradient, Some(80.0)),
    ] {
        let o = ChunkConfig {
            breakpoint: method,
            breakpoint_amount: amount,
            buffer: 0,
            ..opts("semantic", 1000)
        };
        let chunker = build(&o, Arc::new(CharSizer)).unwrap();
        let spans = chunker.spans(&text).unwrap();
        check_spans(
            &text,
            &spans,
            &CharSizer,
            Expect {
                size: 1000,
                overlap: false,
            },
        )
        .unwrap();
        // The gradient marks the rise into a peak distance: the sentence before the change.
        let near = |s: &chunklab_core::Span| s.end + 200 >= change && s.end <= change;
        assert!(
            spans.iter().any(near),
            "{method:?}: no break at the topic change: {:?}",
            texts(&text, &spans)
        );
    }
}

#[test]
fn semantic_max_and_min_size_hold() {
    let (text, _) = two_topics();
    let text = text.repeat(3);
    for (size, min) in [(60, None), (120, Some(50)), (200, Some(200)), (40, Some(1))] {
        let o = ChunkConfig {
            min_size: min,
            ..opts("semantic", size)
        };
        let chunker = build(&o, Arc::new(CharSizer)).unwrap();
        let spans = chunker.spans(&text).unwrap();
        check_spans(
            &text,
            &spans,
            &CharSizer,
            Expect {
                size,
                overlap: false,
            },
        )
        .unwrap_or_else(|e| panic!("size {size} min {min:?}: {e}"));
        if let Some(min) = min {
            // A group under the minimum is left only when neither neighbour can take it.
            for (i, s) in spans.iter().enumerate() {
                if s.tokens >= min {
                    continue;
                }
                let with_prev = i > 0 && text[spans[i - 1].start..s.end].chars().count() <= size;
                let with_next =
                    i + 1 < spans.len() && text[s.start..spans[i + 1].end].chars().count() <= size;
                assert!(
                    !with_prev && !with_next,
                    "size {size} min {min}: chunk {i} of {} could have been merged: {:?}",
                    s.tokens,
                    &text[s.start..s.end]
                );
            }
        }
    }
}

#[test]
fn semantic_embeds_each_window_once_per_document() {
    let (text, _) = two_topics();
    let bag = Arc::new(Bag::default());
    let o = opts("semantic", 500);
    let chunker = strategies::build(&o, Arc::new(WordSizer), Some(bag.clone())).unwrap();
    chunker.spans(&text).unwrap();
    let sentences = chunklab_core::segment::sentences(&text, chunklab_core::Lang::Auto).len();
    assert_eq!(bag.embedded.load(Ordering::Relaxed), sentences);
}

#[test]
fn cluster_groups_pieces_of_one_topic() {
    let (text, change) = two_topics();
    let chunker = build(
        &ChunkConfig {
            piece_size: Some(60),
            ..opts("cluster", 400)
        },
        Arc::new(CharSizer),
    )
    .unwrap();
    let spans = chunker.spans(&text).unwrap();
    check_spans(
        &text,
        &spans,
        &CharSizer,
        Expect {
            size: 400,
            overlap: false,
        },
    )
    .unwrap();
    assert!(
        spans.iter().any(|s| s.end == change),
        "no chunk ends at the topic change: {:?}",
        texts(&text, &spans)
    );
    assert!(spans.len() >= 2, "{:?}", texts(&text, &spans));
}

#[test]
fn cluster_limit_holds_for_every_piece_size() {
    let (text, _) = two_topics();
    let text = text.repeat(4);
    for (size, piece) in [(1, 1), (7, 3), (50, 50), (100, 10), (300, 60), (2000, 50)] {
        let chunker = build(
            &ChunkConfig {
                piece_size: Some(piece),
                ..opts("cluster", size)
            },
            Arc::new(CharSizer),
        )
        .unwrap();
        let spans = chunker.spans(&text).unwrap();
        check_spans(
            &text,
            &spans,
            &CharSizer,
            Expect {
                size,
                overlap: false,
            },
        )
        .unwrap_or_else(|e| panic!("size {size} piece {piece}: {e}"));
        assert_eq!(spans, chunker.spans(&text).unwrap(), "not deterministic");
    }
}

#[test]
fn hierarchical_parents_resolve_to_emitted_chunks() {
    let (text, _) = two_topics();
    let text = text.repeat(5);
    let o = ChunkConfig {
        strategy: "hierarchical".parse().unwrap(),
        levels: Some(vec![400, 120, 30]),
        ..ChunkConfig::default()
    };
    let chunker = build(&o, Arc::new(CharSizer)).unwrap();
    let parts = chunker.chunk_text(&text).unwrap();
    check_hierarchy(&text, &parts, &CharSizer, &[400, 120, 30]).unwrap();
    let doc = Document::new("d", "mem", &text);
    let parsed = ParsedDocument::plain(text.clone());
    let plain = chunk_document(&doc, chunker.as_ref()).unwrap();
    let structured = chunk_parsed_document("d", "mem", &parsed, chunker.as_ref()).unwrap();
    for chunks in [&plain, &structured] {
        assert_eq!(chunks.len(), parts.len());
        let ids: std::collections::HashSet<_> = chunks.iter().map(|c| &c.id).collect();
        assert_eq!(ids.len(), chunks.len(), "chunk ids are not unique");
        for (c, (_, meta)) in chunks.iter().zip(&parts) {
            assert_eq!(c.meta.level, meta.level);
            match meta.parent_index {
                None => assert!(c.meta.parent_id.is_none()),
                Some(p) => {
                    assert_eq!(c.meta.parent_id.as_ref(), Some(&chunks[p].id));
                    assert!(
                        chunks[p].start_byte <= c.start_byte && c.end_byte <= chunks[p].end_byte
                    );
                }
            }
        }
        // parent_index is not serialized; parent_id and level are.
        let json = serde_json::to_value(&chunks[1]).unwrap();
        assert_eq!(json["level"], 1);
        assert_eq!(json["parent_id"], serde_json::json!(chunks[0].id));
        assert!(json.get("parent_index").is_none());
    }
    assert_eq!(plain, structured);
    let levels: Vec<_> = parts.iter().map(|(_, m)| m.level.unwrap()).collect();
    assert!(levels.contains(&0) && levels.contains(&1) && levels.contains(&2));
}

#[test]
fn bad_parameters_are_clear_errors() {
    let size = Arc::new(CharSizer) as Arc<dyn Sizer>;
    let err = |o: ChunkConfig| match strategies::build(&o, size.clone(), None) {
        Ok(c) => panic!("{} built", c.config()),
        Err(e) => e.to_string(),
    };
    let no_model = ChunkConfig {
        strategy: "semantic".parse().unwrap(),
        ..ChunkConfig::default()
    };
    assert!(err(no_model.clone()).contains("needed by strategy semantic"));
    let no_model = ChunkConfig {
        strategy: "cluster".parse().unwrap(),
        ..ChunkConfig::default()
    };
    assert!(err(no_model).contains("needed by strategy cluster"));
    let model_err = |o: ChunkConfig| match build(&o, size.clone()) {
        Ok(c) => panic!("{} built", c.config()),
        Err(e) => e.to_string(),
    };
    let e = model_err(ChunkConfig {
        breakpoint_amount: Some(150.0),
        ..opts("semantic", 100)
    });
    assert!(e.contains("breakpoint_amount") && e.contains("150"), "{e}");
    let e = model_err(ChunkConfig {
        breakpoint: Breakpoint::StdDev,
        breakpoint_amount: Some(f64::NAN),
        ..opts("semantic", 100)
    });
    assert!(e.contains("breakpoint_amount"), "{e}");
    let e = model_err(ChunkConfig {
        min_size: Some(200),
        ..opts("semantic", 100)
    });
    assert!(e.contains("min_size"), "{e}");
    let e = model_err(ChunkConfig {
        piece_size: Some(200),
        ..opts("cluster", 100)
    });
    assert!(e.contains("piece_size"), "{e}");
    let e = model_err(ChunkConfig {
        piece_size: Some(1),
        ..opts("cluster", 100_000)
    });
    assert!(e.contains("too small"), "{e}");
    for levels in [vec![128, 512, 2048], vec![], vec![100, 0], vec![5, 5]] {
        let e = err(ChunkConfig {
            strategy: "hierarchical".parse().unwrap(),
            levels: Some(levels.clone()),
            ..ChunkConfig::default()
        });
        assert!(e.contains("levels"), "{levels:?}: {e}");
    }
    let e = model_err(ChunkConfig {
        buffer: 1000,
        ..opts("semantic", 100)
    });
    assert!(e.contains("buffer") && e.contains("1000"), "{e}");
}

/// An embedder that breaks its contract.
struct Broken(usize);

impl TextEmbedder for Broken {
    fn name(&self) -> &str {
        "broken"
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        match self.0 {
            0 => Err("the model is on fire".into()),
            1 => Ok(vec![vec![1.0]; texts.len() + 1]),
            2 => Ok(texts
                .iter()
                .enumerate()
                .map(|(i, _)| vec![1.0; 1 + i % 2])
                .collect()),
            _ => Ok(vec![vec![f32::NAN, 0.0]; texts.len()]),
        }
    }
}

#[test]
fn a_failing_embedder_is_an_error_not_a_panic() {
    let text = "Eerste zin hier. Tweede zin daar. Derde zin ergens.";
    for mode in 0..4 {
        for strategy in ["semantic", "cluster"] {
            let o = ChunkConfig {
                piece_size: (strategy == "cluster").then_some(10),
                ..opts(strategy, 40)
            };
            let chunker =
                strategies::build(&o, Arc::new(CharSizer), Some(Arc::new(Broken(mode)))).unwrap();
            match chunker.spans(text) {
                Err(Error::Embed(m)) => assert!(m.starts_with("broken: "), "{m}"),
                other => panic!("{strategy} mode {mode}: {other:?}"),
            }
        }
    }
}

#[test]
fn empty_blank_and_single_sentence_documents() {
    for strategy in ["semantic", "cluster"] {
        let chunker = build(&opts(strategy, 50), Arc::new(CharSizer)).unwrap();
        assert!(chunker.spans("").unwrap().is_empty());
        assert!(chunker.spans(" \n\n\t ").unwrap().is_empty());
        let one = "  Eén enkele zin.  ";
        let spans = chunker.spans(one).unwrap();
        assert_eq!(texts(one, &spans), ["Eén enkele zin."]);
        // One sentence longer than the limit is cut within the limit.
        let long = "woord ".repeat(100);
        let spans = chunker.spans(&long).unwrap();
        check_spans(
            &long,
            &spans,
            &CharSizer,
            Expect {
                size: 50,
                overlap: false,
            },
        )
        .unwrap();
    }
}

/// Text for the property test: sentences over a few topics, with noise.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,10}".prop_map(|s| s),
        3 => Just(" ".to_string()),
        1 => Just("\n".to_string()),
        1 => Just("\n\n".to_string()),
        2 => Just(". ".to_string()),
        1 => Just("? ".to_string()),
        1 => Just("Windmolens op zee. ".to_string()),
        1 => Just("Het brood is vers. ".to_string()),
        1 => Just("dhr. Jansen".to_string()),
        1 => Just("ĳsbeer één 😀 中文。".to_string()),
        1 => "[A-Z][a-z]{0,8}".prop_map(|s| s),
    ]
}

fn text() -> impl Strategy<Value = String> {
    text_from(piece(), 0..80, 0..600)
}

fn check_variants(text: &str, sizer: Arc<dyn Sizer>, size: usize) -> Result<(), String> {
    check_all_strategies_with(text, sizer.clone(), size, Some(bag_arc()))?;
    let variants = [
        ChunkConfig {
            breakpoint: Breakpoint::StdDev,
            buffer: 0,
            min_size: Some(size / 2),
            ..opts("semantic", size)
        },
        ChunkConfig {
            breakpoint: Breakpoint::Gradient,
            buffer: 2,
            ..opts("semantic", size)
        },
        ChunkConfig {
            breakpoint: Breakpoint::Interquartile,
            breakpoint_amount: Some(0.0),
            min_size: Some(size),
            ..opts("semantic", size)
        },
        ChunkConfig {
            piece_size: Some((size / 5).max(1)),
            ..opts("cluster", size)
        },
    ];
    for o in variants {
        let chunker = build(&o, sizer.clone()).map_err(|e| e.to_string())?;
        let spans = match chunker.spans(text) {
            Ok(s) => s,
            Err(Error::TooSmall { units, size, .. }) if units > size => continue,
            Err(e) => return Err(format!("{}: {e}", chunker.config())),
        };
        check_spans(
            text,
            &spans,
            sizer.as_ref(),
            Expect {
                size,
                overlap: false,
            },
        )
        .map_err(|e| format!("{}: {e}", chunker.config()))?;
        if chunker.spans(text).map_err(|e| e.to_string())? != spans {
            return Err(format!("{}: not deterministic", chunker.config()));
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn chars_invariants(t in text(), size in 1usize..200) {
        if let Err(e) = check_variants(&t, Arc::new(CharSizer), size) {
            panic!("{e}\ntext: {t:?}");
        }
    }

    #[test]
    fn words_invariants(t in text(), size in 1usize..40) {
        if let Err(e) = check_variants(&t, Arc::new(WordSizer), size) {
            panic!("{e}\ntext: {t:?}");
        }
    }
}
