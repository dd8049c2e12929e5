//! A `postgres-cluster://` store: documents hash-partitioned over two shards (two databases of
//! the test server, which is what a shard is to the client), searched by fan-out. Dense and
//! full-text searches give what one server holding all documents gives (the merge is exact);
//! hybrid gives the same candidates, up to the order of tied full-text scores.

use crate::common::*;
use chunklab_index::{ChunkStore, Hit, Mode, Query, StoreWriter};
use chunklab_postgres::shards::{parse_cluster, shard_of, ShardedStore, ShardedWriter};
use chunklab_postgres::{open_store, PgStore, PgWriter};

/// Scores rounded (the two stores sum RRF terms in a different order) and chunk ids, best
/// first; ties ordered by id, since each store breaks them by its own keys.
fn ranked(hits: &[Hit]) -> Vec<(i64, String)> {
    let mut v: Vec<(i64, String)> = hits
        .iter()
        .map(|h| ((h.score as f64 * 1e5).round() as i64, h.chunk_id.clone()))
        .collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    v
}

#[test]
fn a_sharded_store_answers_as_one_server_would() {
    let docs = corpus(12);
    let single = fresh_db("single");
    let mut w: Box<dyn StoreWriter> = Box::new(PgWriter::open(&single, settings(), false).unwrap());
    ingest(w.as_mut(), &docs, 5);
    w.finish().unwrap();

    let (a, b) = (fresh_db("shard_a"), fresh_db("shard_b"));
    let cluster = format!("postgres-cluster://{a};{b}");
    let mut sw: Box<dyn StoreWriter> =
        Box::new(ShardedWriter::open(&cluster, settings(), false).unwrap());
    ingest(sw.as_mut(), &docs, 5);
    let (d, c) = sw.finish().unwrap();
    assert_eq!(d, 12);

    // Each document is on the shard its id hashes to, and both shards hold some.
    let (sa, sb) = (PgStore::open(&a).unwrap(), PgStore::open(&b).unwrap());
    let on_a = docs.iter().filter(|d| shard_of(&d.doc_id, 2) == 0).count();
    assert!(on_a > 0 && on_a < 12, "{on_a} of 12 documents on shard a");
    assert_eq!(sa.counts().unwrap().0, on_a);
    assert_eq!(sb.counts().unwrap().0, 12 - on_a);

    let one = PgStore::open(&single).unwrap();
    let sharded = open_store(&cluster).unwrap();
    assert_eq!(sharded.counts().unwrap(), (12, c));
    assert_eq!(one.counts().unwrap(), (12, c));
    for text in QUERIES {
        let v = embed(text);
        for (mode, k) in [
            (Mode::Dense, 10),
            (Mode::Bm25, 10),
            (Mode::Hybrid, 10),
            (Mode::Hybrid, 1000),
        ] {
            let run = |s: &dyn ChunkStore| {
                let mut q = Query::new(text, mode, k);
                q.vector = Some(&v);
                q.exact = true;
                s.search(&q).unwrap()
            };
            let (x, y) = (run(&one), run(sharded.as_ref()));
            assert!(!x.is_empty(), "{text} {mode:?}");
            let (rx, ry) = (ranked(&x), ranked(&y));
            if mode == Mode::Hybrid {
                // Chunks with equal full-text scores are ranked by key, which is shard-local in
                // one store and global in the other, so their RRF terms can trade places: the
                // same candidates, scores within one rank step, most of the top 10 the same.
                if k == 1000 {
                    let ids = |r: &[(i64, String)]| {
                        let mut v: Vec<String> = r.iter().map(|p| p.1.clone()).collect();
                        v.sort();
                        v
                    };
                    assert_eq!(ids(&rx), ids(&ry), "{text}: hybrid candidates");
                } else {
                    let common = rx.iter().filter(|p| ry.iter().any(|q| q.1 == p.1)).count();
                    assert!(common >= 8, "{text}: hybrid top 10 share {common}");
                }
                continue;
            }
            // Cut at k, equal scores at the cut may be different chunks: compare the scores
            // and the chunks above the last score.
            let sx: Vec<i64> = rx.iter().map(|p| p.0).collect();
            let sy: Vec<i64> = ry.iter().map(|p| p.0).collect();
            assert_eq!(sx, sy, "{text} {mode:?}");
            let last = *sx.last().unwrap();
            let above = |r: &[(i64, String)]| -> Vec<String> {
                r.iter()
                    .filter(|p| p.0 > last)
                    .map(|p| p.1.clone())
                    .collect()
            };
            assert_eq!(above(&rx), above(&ry), "{text} {mode:?}");
        }
        // Filters act inside every shard's search.
        let mut q = Query::new(text, Mode::Hybrid, 10);
        q.vector = Some(&v);
        q.filter = Some(std::sync::Arc::new(
            sharded.filter(&["acl=finance".into()]).unwrap(),
        ));
        let hits = sharded.search(&q).unwrap();
        let mut q1 = Query::new(text, Mode::Hybrid, 10);
        q1.vector = Some(&v);
        q1.filter = Some(std::sync::Arc::new(
            one.filter(&["acl=finance".into()]).unwrap(),
        ));
        assert_eq!(
            ranked(&hits).len(),
            ranked(&one.search(&q1).unwrap()).len(),
            "{text}: filtered"
        );
    }
    assert!(sharded.location().starts_with("postgres-cluster://"));
}

#[test]
fn cluster_specs_are_checked() {
    assert!(parse_cluster("postgres-cluster://").is_err());
    let e = parse_cluster("postgres-cluster:///tmp/idx").unwrap_err();
    assert!(e.to_string().contains("not a postgres:// URL"), "{e}");
    let e = ShardedStore::open("postgres-cluster://postgres://u:geheim@127.0.0.1:1/x")
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("cannot be reached") && !e.contains("geheim"),
        "{e}"
    );
}
