//! Bounded `ts_rank_cd` ranking (search::FullText with Ranking::TsRankCd, the ranking before
//! BM25, kept for comparison; BM25's bounds are tested in bm25.rs): lexemes are found common
//! or rare by the planner's statistics; with nothing common the ranking is the unbounded one; with common
//! words the chunks matching the rare ones are ranked as the unbounded ranking orders them.

use crate::common::*;
use chunklab_index::{ChunkStore, Mode, Query, StoreWriter};
use chunklab_postgres::search::{lexeme_frequencies, FullText, Ranking};
use chunklab_postgres::{PgStore, PgWriter};

fn store(tag: &str) -> String {
    let url = fresh_db(tag);
    let mut w = PgWriter::open(&url, settings(), false).unwrap();
    ingest(&mut w, &corpus(12), 6);
    (Box::new(w) as Box<dyn StoreWriter>).finish().unwrap();
    url
}

fn estimate(url: &str, text: &str) -> Vec<(String, f64)> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let mut tx = c.transaction().unwrap();
    lexeme_frequencies(&mut tx, text).unwrap()
}

/// The `ts_rank_cd` ranking (bounded by the planner's statistics).
fn ts_rank_cd() -> FullText {
    FullText {
        ranking: Ranking::TsRankCd,
        ..FullText::default()
    }
}

#[test]
fn statistics_tell_common_words_from_rare_ones_and_bound_the_ranking() {
    let url = store("fulltext");
    // The bulk load analysed the table: "american" is in many chunks, "insulin" in few.
    let est = estimate(&url, "american insulin");
    let df = |w: &str| est.iter().find(|(l, _)| l == w).map(|x| x.1).unwrap();
    let (common, rare) = (df("american"), df("insulin"));
    assert!(common >= 10.0 && rare < 5.0, "{est:?}");
    let exact = PgStore::open(&url).unwrap().with_full_text(FullText {
        ranking: Ranking::TsRankCd,
        ..FullText::exact()
    });
    let run = |s: &PgStore, text: &str, mode: Mode| {
        let v = embed(text);
        s.search(&Query::new(text, mode, 10).with_vector(&v))
            .unwrap()
    };
    // Nothing common: the same hits and scores as the unbounded ranking.
    let loose = PgStore::open(&url).unwrap().with_full_text(FullText {
        cap: Some(4000),
        common_df: 1e9,
        ..ts_rank_cd()
    });
    for text in ["american insulin", "credit card late fees", "taxes"] {
        for mode in [Mode::Bm25, Mode::Hybrid] {
            let (a, b) = (run(&loose, text, mode), run(&exact, text, mode));
            let key = |h: &[chunklab_index::Hit]| {
                h.iter()
                    .map(|h| (h.chunk_id.clone(), (h.score * 1e4).round() as i64))
                    .collect::<Vec<_>>()
            };
            assert_eq!(key(&a), key(&b), "{text:?} {mode:?}");
        }
    }
    // "american" common, "insulin" rare: every chunk with "insulin" is ranked, in the
    // unbounded ranking's order, with the same scores; at most the cap plus fill.
    let bounded = PgStore::open(&url).unwrap().with_full_text(FullText {
        cap: Some(50),
        common_df: (common + rare) / 2.0,
        ..ts_rank_cd()
    });
    let (b, e) = (
        run(&bounded, "american insulin", Mode::Bm25),
        run(&exact, "american insulin", Mode::Bm25),
    );
    let insulin = |hits: &[chunklab_index::Hit]| {
        hits.iter()
            .filter(|h| h.text.to_lowercase().contains("insulin"))
            .map(|h| (h.chunk_id.clone(), h.score))
            .collect::<Vec<_>>()
    };
    assert!(!insulin(&e).is_empty());
    assert_eq!(insulin(&b), insulin(&e));
    assert_eq!(b.len(), 10, "filled up to k from the whole query's matches");
}
