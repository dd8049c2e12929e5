//! Unit tests of contextual retrieval driven by a scripted model: the gates with their retry,
//! fallback, counts and cache rejections, and fitting contexts to the size.

use super::*;
use crate::fit::ELIDED;
use crate::scripted::Scripted;
use chunklab_core::{CharSizer, WordSizer};

const DOC: &str = "# Parken\n\nDe gemeente plantte 1.200 bomen langs de grachten.\n\n\
                   Het budget voor het onderhoud van de parken steeg naar 14 miljoen euro.";

fn chunks(headings: &[String]) -> Vec<ChunkRef<'_>> {
    let a = DOC.find("De gemeente").unwrap();
    let b = DOC.find("Het budget").unwrap();
    vec![
        ChunkRef {
            span: a..DOC[a..].find('\n').unwrap() + a,
            headings,
        },
        ChunkRef {
            span: b..DOC.len(),
            headings,
        },
    ]
}

fn header_opts() -> ContextOptions {
    ContextOptions {
        on_failure: OnFailure::Header,
        ..ContextOptions::default()
    }
}

#[test]
fn good_answers_are_kept_and_prompts_share_the_document() {
    let llm = Scripted::answers(&[
        "Over de bomen in het parkenhoofdstuk.",
        "Over het budget van de parken.",
    ]);
    let heads = vec!["Parken".to_string()];
    let (ctx, w) = contextualize(&llm, DOC, "verslag.md", &chunks(&heads), &header_opts()).unwrap();
    assert_eq!(
        ctx,
        [
            "Over de bomen in het parkenhoofdstuk.",
            "Over het budget van de parken."
        ]
    );
    assert_eq!(w, ContextWarnings::default());
    let seen = llm.seen();
    assert_eq!(seen.len(), 2);
    assert_eq!(seen[0].shared, seen[1].shared);
    assert!(seen[0].shared.contains(DOC));
    assert!(seen[1].request.contains("<chunk>\nHet budget"));
    assert!(llm.reasons().is_empty());
}

#[test]
fn a_loop_is_retried_then_replaced_by_the_header_context_and_counted() {
    let looped = "Parken 2023\n\nParken 2022\n\nParken 2021\n\nParken 2020";
    // Chunk 1: a loop, then a good answer on the retry; chunk 2: a loop twice.
    let llm = Scripted::new(move |p, _| {
        if p.request.contains("own words") && p.request.contains("De gemeente") {
            "Over de bomen van de gemeente.".into()
        } else {
            looped.into()
        }
    });
    let heads = vec!["Parken".to_string()];
    let refs = chunks(&heads);
    let (ctx, w) = contextualize_each(&llm, DOC, "verslag.md", &refs, &header_opts()).unwrap();
    assert_eq!(
        ctx,
        [
            ChunkContext::Model("Over de bomen van de gemeente.".into()),
            ChunkContext::Header
        ]
    );
    assert_eq!((w.retried, w.fallbacks), (2, 1));
    assert_eq!(w.rejected.repetition, 3);
    assert_eq!(w.rejected.total(), 3);
    assert!(
        w.to_string()
            .contains("1 header fallbacks (rejected answers: 3 repetition)"),
        "{w}"
    );
    // Every rejected answer was reported to the model's cache, with its reason.
    assert_eq!(llm.reasons(), ["repetition"; 3]);
    // The string form writes the fallback out as the header context.
    let llm2 = Scripted::new(move |_, _| looped.into());
    let (texts, _) = contextualize(&llm2, DOC, "verslag.md", &refs, &header_opts()).unwrap();
    assert_eq!(texts, ["verslag.md > Parken", "verslag.md > Parken"]);
}

#[test]
fn every_gate_falls_back_with_its_reason() {
    let heads: Vec<String> = Vec::new();
    let refs = chunks(&heads);
    let chunk0 = &DOC[refs[0].span.clone()];
    type Count = fn(&Rejections) -> usize;
    let cases: [(String, Count); 6] = [
        ("  ".into(), |r| r.empty),
        (format!("Context: {chunk0}"), |r| r.echo_chunk),
        ("<document> Parken </document>".into(), |r| r.echo_prompt),
        ("Parken".into(), |r| r.length),
        ("This chunk is about the trees of the city.".into(), |r| {
            r.language
        }),
        ("Parken 1\nParken 2\nParken 3".into(), |r| r.repetition),
    ];
    for (answer, field) in cases {
        let a = answer.clone();
        let llm = Scripted::new(move |_, _| a.clone());
        let (ctx, w) =
            contextualize_each(&llm, DOC, "verslag.md", &refs[..1], &header_opts()).unwrap();
        assert_eq!(ctx, [ChunkContext::Header], "{answer:?}");
        assert_eq!(
            (field(&w.rejected), w.rejected.total()),
            (2, 2),
            "{answer:?}: {w}"
        );
        assert_eq!(w.fallbacks, 1);
    }
}

#[test]
fn the_language_nudge_names_the_documents_language() {
    let llm = Scripted::new(|p, _| {
        if p.request.ends_with("in Dutch.") {
            "Over de bomen van de gemeente.".into()
        } else {
            "This chunk is about the trees of the city.".into()
        }
    });
    let refs = chunks(&[]);
    let (ctx, w) = contextualize(&llm, DOC, "t", &refs[..1], &header_opts()).unwrap();
    assert_eq!(ctx, ["Over de bomen van de gemeente."]);
    assert_eq!((w.rejected.language, w.retried, w.fallbacks), (1, 1, 0));
}

#[test]
fn without_the_fallback_a_rejected_answer_is_an_error_naming_the_reason() {
    let llm = Scripted::answers(&[
        "Parken 1\nParken 2\nParken 3",
        "Parken 1\nParken 2\nParken 3",
    ]);
    let e = contextualize(
        &llm,
        DOC,
        "verslag.md",
        &chunks(&[])[..1],
        &ContextOptions::default(),
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, Error::NoAnswer { .. }));
    assert!(
        msg.contains("rejected (repetition)") && msg.contains("verslag.md"),
        "{msg}"
    );
}

#[test]
fn fitted_context_and_chunk_stay_within_the_size() {
    let body = "Het budget steeg naar 14 miljoen euro.";
    let ctx = "Dit deel van het jaarverslag gaat over de financiën van de parken";
    for limit in [10, 12, 15, 20, 30] {
        let f = fit_context(&WordSizer, ctx, body, limit);
        assert!(
            f.tokens <= limit.max(WordSizer.count(body)),
            "{limit}: {f:?}"
        );
        assert_eq!(f.tokens, WordSizer.count(&with_context(&f.context, body)));
        assert!(ctx.starts_with(&f.context), "a prefix of the context");
        assert!(!f.context.ends_with(' '));
        // Cut at a word boundary: the next char of the original is a space or the end.
        assert!(ctx[f.context.len()..].is_empty() || ctx[f.context.len()..].starts_with(' '));
        assert_eq!(f.truncated, f.context != ctx);
    }
    let whole = fit_context(&CharSizer, ctx, body, 1000);
    assert!(!whole.truncated);
    assert_eq!(whole.tokens, ctx.chars().count() + 2 + body.chars().count());
}

#[test]
fn an_empty_context_adds_no_separator() {
    let body = "Het budget steeg.";
    assert_eq!(with_context("", body), body);
    assert_eq!(with_context("Parken", body), "Parken\n\nHet budget steeg.");
    // Empty from the start.
    let f = fit_context(&CharSizer, "", body, 100);
    assert_eq!(
        (f.context.as_str(), f.tokens, f.truncated),
        ("", body.len(), false)
    );
    // Emptied by the fitter: the chunk alone fills the limit, so its size is the body's own.
    let f = fit_context(&CharSizer, "Over de parken", body, body.len());
    assert_eq!(
        (f.context.as_str(), f.tokens, f.truncated),
        ("", body.len(), true)
    );
    let f = fit_header(
        &CharSizer,
        "Jaarverslag",
        &["Parken".into()],
        body,
        body.len() + 1,
    );
    assert_eq!(
        (f.context.as_str(), f.tokens, f.truncated),
        ("", body.len(), true)
    );
}

#[test]
fn a_header_context_is_shortened_by_whole_path_components() {
    let path: Vec<String> = [
        "Jaarverslag 2021",
        "Hoofdstuk 3 Financiën",
        "3.2 Onderhoud van parken",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let title = "Gemeente Utrecht";
    let body = "Het budget steeg naar 14 miljoen euro.";
    let full = crate::header::header_context(title, &path);
    let parts = crate::header::header_parts(title, &path);
    let mut seen = Vec::new();
    for limit in 0..=full.len() + body.len() + 4 {
        let f = fit_header(&CharSizer, title, &path, body, limit);
        if f.tokens > limit {
            // Nothing fits: not even the body; the context is empty.
            assert_eq!(f.context, "");
            continue;
        }
        assert_eq!(f.tokens, CharSizer.count(&with_context(&f.context, body)));
        if f.context.is_empty() {
            continue;
        }
        // Every component is a whole one (or the elision mark), in path order; never a dangling
        // " >" or a part of a word.
        let comps: Vec<&str> = f.context.split(" > ").collect();
        assert!(
            comps.iter().all(|c| *c == ELIDED || parts.contains(c)),
            "{limit}: {}",
            f.context
        );
        assert!(!f.context.ends_with('>') && !f.context.ends_with(' '));
        if comps.len() > 1 {
            assert_eq!(comps[0], title, "the title is kept first");
            assert_eq!(
                *comps.last().unwrap(),
                "3.2 Onderhoud van parken",
                "the nearest heading is kept"
            );
        }
        seen.push(f.context);
    }
    seen.dedup();
    assert_eq!(
        seen,
        [
            "Gemeente Utrecht",
            "Gemeente Utrecht > … > 3.2 Onderhoud van parken",
            "Gemeente Utrecht > … > Hoofdstuk 3 Financiën > 3.2 Onderhoud van parken",
            full.as_str(),
        ]
    );
}

#[test]
fn header_and_model_contexts_fit_their_own_way() {
    let body = "Het budget steeg.";
    let heads = vec!["Financiën".to_string(), "Onderhoud".to_string()];
    let limit = "Verslag > … > Onderhoud".chars().count() + 2 + body.len();
    let h = ChunkContext::Header.fit(&CharSizer, "Verslag", &heads, body, limit);
    assert_eq!(h.context, "Verslag > … > Onderhoud");
    let m = ChunkContext::Model("Verslag > Financiën > Onderhoud".into())
        .fit(&CharSizer, "Verslag", &heads, body, limit);
    assert_eq!(
        m.context, "Verslag > Financiën >",
        "a model context is cut at a word boundary"
    );
}

#[test]
fn a_long_title_gives_way_to_the_nearest_heading() {
    let title = "Gemeentelijk jaarverslag van de stad Utrecht over 2021";
    let path = vec!["Financiën".to_string(), "Parken".to_string()];
    let body = "Het budget steeg.";
    let f = fit_header(
        &CharSizer,
        title,
        &path,
        body,
        "Parken".len() + 2 + body.len(),
    );
    assert_eq!((f.context.as_str(), f.truncated), ("Parken", true));
}
