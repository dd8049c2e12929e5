//! BM25 in PostgreSQL (crate::bm25) against the embedded index's tantivy BM25 on the same
//! corpus: the same top 10 (ids, order and scores, modulo float ties) in bm25 and hybrid mode;
//! the incremental and the bulk path give the same statistics and scores; deletes and
//! replacements keep the document frequencies exact.

use crate::common::*;
use chunklab_index::{ChunkStore, Hit, Index, IndexWriter, Mode, Query, StoreWriter};
use chunklab_postgres::search::FullText;
use chunklab_postgres::writer::BulkMode;
use chunklab_postgres::{bm25, PgStore, PgWriter};

/// Queries beyond the store test's ([`SOTU_QUERIES`]): rare, common, stemmed and Dutch words.
const EXTRA: &[&str] = &[
    "American workers and jobs",
    "the state of the union is strong",
    "veterans burn pits toxic exposure",
    "vergunningen voor windenergie en belastingen",
    "infrastructure roads bridges broadband internet",
    "COVID-19 vaccines masks testing",
];

/// Top-k of two stores agree: scores pairwise within 1e-4 (relative), and the ids at every
/// rank whose score is not tied (within 1e-5) with a neighbour's.
fn assert_same_ranking(e: &[Hit], p: &[Hit], what: &str) {
    assert_eq!(e.len(), p.len(), "{what}: lengths");
    for (i, (x, y)) in e.iter().zip(p).enumerate() {
        let tol = 1e-4 * x.score.abs().max(1.0);
        assert!(
            (x.score - y.score).abs() <= tol,
            "{what}: rank {i}: embedded {} {} vs PostgreSQL {} {}",
            x.chunk_id,
            x.score,
            y.chunk_id,
            y.score
        );
        let tied = |j: usize| j < e.len() && (e[j].score - x.score).abs() <= 1e-5;
        // At the last rank a tie may be with the first chunk below the cut.
        let tie = (i > 0 && tied(i - 1)) || tied(i + 1) || i + 1 == e.len();
        if !tie {
            assert_eq!(x.chunk_id, y.chunk_id, "{what}: rank {i}");
        }
    }
}

fn write_pg(url: &str, docs: &[chunklab_index::NewDocument], mode: BulkMode) {
    let mut w = PgWriter::open(url, settings(), false)
        .unwrap()
        .with_bulk(mode);
    ingest(&mut w, docs, 5);
    assert_eq!(w.is_bulk(), mode == BulkMode::Auto);
    (Box::new(w) as Box<dyn StoreWriter>).finish().unwrap();
}

fn client(url: &str) -> postgres::Client {
    postgres::Client::connect(url, postgres::NoTls).unwrap()
}

/// The statistics as kept, and as recomputed from the chunks (in a rolled-back transaction).
#[allow(clippy::type_complexity)]
fn kept_and_recomputed(
    url: &str,
) -> (
    (Vec<(String, i64)>, Vec<(String, i64, i64)>),
    (Vec<(String, i64)>, Vec<(String, i64, i64)>),
) {
    let mut c = client(url);
    let mut tx = c.transaction().unwrap();
    let kept = bm25::stats(&mut tx).unwrap();
    bm25::recompute(&mut tx).unwrap();
    let again = bm25::stats(&mut tx).unwrap();
    tx.rollback().unwrap();
    (kept, again)
}

#[test]
fn bm25_top_10_is_the_embedded_index_s_in_bm25_and_hybrid_mode() {
    let docs = corpus(12);
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::open(dir.path(), settings(), false).unwrap();
    ingest(&mut w, &docs, 5);
    w.finish().unwrap();
    let embedded = Index::open(dir.path()).unwrap();
    let url = fresh_db("bm25same");
    write_pg(&url, &docs, BulkMode::Auto);
    let pg = PgStore::open(&url).unwrap();
    // Bounded with a threshold so low that every query takes the bounded form.
    let bounded = PgStore::open(&url).unwrap().with_full_text(FullText {
        exact_below: 0,
        ..FullText::default()
    });
    let (mut compared, mut hybrid_equal) = (0, 0);
    let more: Vec<&str> = SOTU_QUERIES.iter().chain(EXTRA).copied().collect();
    for text in &more {
        let v = embed(text);
        let run = |s: &dyn ChunkStore, mode: Mode| {
            let mut q = Query::new(text, mode, 10).with_vector(&v);
            q.exact = true;
            s.search(&q).unwrap()
        };
        let e = run(&embedded, Mode::Bm25);
        let p = run(&pg, Mode::Bm25);
        assert_same_ranking(&e, &p, &format!("bm25 {text:?}"));
        // The corpus is small: no term is in more than 1,000 chunks, so the bounded form ranks
        // every match too.
        let b = run(&bounded, Mode::Bm25);
        assert_same_ranking(&e, &b, &format!("bounded bm25 {text:?}"));
        compared += e.len();
        // Hybrid: the same fused list, except where tied BM25 scores (ordered by each store's
        // own keys) trade RRF ranks.
        let e = run(&embedded, Mode::Hybrid);
        let p = run(&pg, Mode::Hybrid);
        let ids = |h: &[Hit]| h.iter().map(|h| h.chunk_id.clone()).collect::<Vec<_>>();
        let common = ids(&e).iter().filter(|i| ids(&p).contains(i)).count();
        assert!(common + 1 >= e.len(), "hybrid {text:?}: {common} in common");
        if ids(&e) == ids(&p) {
            hybrid_equal += 1;
        }
    }
    assert!(compared >= 100, "{compared} hits compared");
    eprintln!(
        "hybrid top 10 identical for {hybrid_equal} of {} queries",
        more.len()
    );
    assert!(hybrid_equal + 2 >= more.len(), "{hybrid_equal}");
    // The old ranking is still there, and it is not BM25.
    let ts = PgStore::open(&url).unwrap().with_full_text(FullText {
        ranking: chunklab_postgres::search::Ranking::TsRankCd,
        ..FullText::default()
    });
    let q = Query::new("insulin prices for seniors", Mode::Bm25, 10);
    let t = ts.search(&q).unwrap();
    let p = pg.search(&q).unwrap();
    assert!(!t.is_empty());
    assert_ne!(
        t.iter().map(|h| h.score).collect::<Vec<_>>(),
        p.iter().map(|h| h.score).collect::<Vec<_>>()
    );
}

#[test]
fn incremental_and_bulk_paths_keep_the_same_exact_statistics_and_scores() {
    let docs = corpus(12);
    let (bulk_url, inc_url) = (fresh_db("bm25bulk"), fresh_db("bm25inc"));
    write_pg(&bulk_url, &docs, BulkMode::Auto);
    write_pg(&inc_url, &docs, BulkMode::Never);
    let (kept_b, again_b) = kept_and_recomputed(&bulk_url);
    let (kept_i, again_i) = kept_and_recomputed(&inc_url);
    assert_eq!(kept_b, again_b, "bulk: statistics as recomputed");
    assert_eq!(kept_i, again_i, "incremental: statistics as recomputed");
    assert_eq!(kept_b, kept_i);
    let chunks: usize = docs.iter().map(|d| d.chunks.len()).sum();
    assert_eq!(kept_b.1.iter().map(|f| f.1).sum::<i64>() as usize, chunks);
    assert!(kept_b.0.len() > 500, "{} terms", kept_b.0.len());
    let (b, i) = (
        PgStore::open(&bulk_url).unwrap(),
        PgStore::open(&inc_url).unwrap(),
    );
    for text in QUERIES {
        let q = Query::new(text, Mode::Bm25, 10);
        let (x, y) = (b.search(&q).unwrap(), i.search(&q).unwrap());
        assert!(!x.is_empty());
        assert_eq!(
            x.iter().map(|h| (&h.chunk_id, h.score)).collect::<Vec<_>>(),
            y.iter().map(|h| (&h.chunk_id, h.score)).collect::<Vec<_>>(),
            "{text:?}"
        );
    }
}

#[test]
fn deletes_and_replacements_update_the_document_frequencies() {
    let mut docs = corpus(12);
    let url = fresh_db("bm25del");
    write_pg(&url, &docs, BulkMode::Never);
    let df = |url: &str, term: &str| -> i64 {
        client(url)
            .query_opt(
                "SELECT df FROM chunklab.bm25_terms WHERE term = $1",
                &[&term],
            )
            .unwrap()
            .map_or(0, |r| r.get(0))
    };
    let insulin = df(&url, "en:insulin");
    assert!(insulin > 0);
    // Remove every document that mentions insulin, replace another one with new text.
    let gone: Vec<String> = docs
        .iter()
        .filter(|d| d.text.to_lowercase().contains("insulin"))
        .map(|d| d.doc_id.clone())
        .collect();
    assert!(!gone.is_empty() && gone.len() < docs.len() - 1);
    let mut w = PgWriter::open(&url, settings(), false)
        .unwrap()
        .with_bulk(BulkMode::Never);
    for id in &gone {
        assert!(w.remove_document(id).unwrap());
    }
    docs.retain(|d| !gone.contains(&d.doc_id));
    let r = &mut docs[0];
    let extra = "\n\nZanzibar quokkas quokkas everywhere.";
    r.text.push_str(extra);
    let start = r.text.len() - extra.len() + 2;
    let (sc, end) = (r.text[..start].chars().count(), r.text.len());
    let ec = sc + r.text[start..].chars().count();
    let n = r.chunks.len();
    r.chunks.push(chunklab_index::NewChunk::new(
        &format!("{}-new", r.doc_id),
        start,
        end,
        sc,
        ec,
        n,
        embed("Zanzibar quokkas"),
    ));
    r.hash.push_str("-changed");
    w.add_document(r.clone()).unwrap();
    w.commit().unwrap();
    (Box::new(w) as Box<dyn StoreWriter>).finish().unwrap();
    assert_eq!(df(&url, "en:insulin"), 0, "removed with its documents");
    assert_eq!(df(&url, "en:quokka"), 1, "added with the replacement");
    let (kept, again) = kept_and_recomputed(&url);
    assert_eq!(kept, again, "exact after deletes and a replacement");
    // And the scores are those of a store written with the remaining documents only.
    let fresh = fresh_db("bm25fresh");
    write_pg(&fresh, &docs, BulkMode::Never);
    assert_eq!(kept_and_recomputed(&fresh).0, kept);
    let (a, b) = (PgStore::open(&url).unwrap(), PgStore::open(&fresh).unwrap());
    // Every match (the keys differ between the two stores, so tied chunks are compared by id).
    let all = |hits: Vec<Hit>| {
        let mut v: Vec<(String, u32)> = hits
            .into_iter()
            .map(|h| (h.chunk_id, h.score.to_bits()))
            .collect();
        v.sort();
        v
    };
    for text in ["taxes and fees", "quokkas in Zanzibar", "insulin"] {
        let q = Query::new(text, Mode::Bm25, 1000);
        let (x, y) = (all(a.search(&q).unwrap()), all(b.search(&q).unwrap()));
        assert_eq!(x, y, "{text:?}");
    }
    assert!(a
        .search(&Query::new("insulin", Mode::Bm25, 10))
        .unwrap()
        .is_empty());
}

#[test]
fn a_version_2_store_is_migrated_and_its_chunks_analyzed() {
    let docs = corpus(12);
    let url = fresh_db("bm25mig");
    write_pg(&url, &docs, BulkMode::Never);
    let q = Query::new("insulin prices for seniors", Mode::Bm25, 10);
    let scored = |hits: Vec<Hit>| {
        hits.into_iter()
            .map(|h| (h.chunk_id, h.score))
            .collect::<Vec<_>>()
    };
    let before = scored(PgStore::open(&url).unwrap().search(&q).unwrap());
    assert!(!before.is_empty());
    let kept = kept_and_recomputed(&url).0;
    // Back to schema version 2: what migration 3 added is removed.
    client(&url)
        .batch_execute(
            "DROP TRIGGER chunks_bm25_added ON chunklab.chunks;
             DROP TRIGGER chunks_bm25_removed ON chunklab.chunks;
             DROP FUNCTION chunklab.bm25_added(); DROP FUNCTION chunklab.bm25_removed();
             DROP TABLE chunklab.bm25_terms, chunklab.bm25_fields;
             ALTER TABLE chunklab.chunks DROP COLUMN bm25, DROP COLUMN bm25_len, DROP COLUMN bm25_norm;
             DELETE FROM chunklab.migrations WHERE version = 3;",
        )
        .unwrap();
    assert!(
        PgStore::open(&url).is_err(),
        "a reader refuses the old schema"
    );
    // The next writer migrates: the chunks are analyzed and the statistics computed.
    drop(PgWriter::open(&url, settings(), false).unwrap());
    assert_eq!(kept_and_recomputed(&url).0, kept);
    let after = scored(PgStore::open(&url).unwrap().search(&q).unwrap());
    assert_eq!(before, after);
}
