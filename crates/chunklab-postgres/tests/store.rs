//! Both stores behind the seam on the same real corpus: the same queries give the same top-k
//! (dense here; BM25 in bm25.rs), filters and ACLs act inside the search, shaping
//! is the shared code; writes are whole documents, incremental by hash; a dropped connection
//! is reconnected.

use crate::common::*;
use chunklab_index::{ChunkStore, Index, IndexWriter, Mode, Query, StoreWriter};
use chunklab_postgres::{PgStore, PgWriter};

const QUERIES: &[&str] = SOTU_QUERIES;

fn ids(hits: &[chunklab_index::Hit]) -> Vec<String> {
    hits.iter().map(|h| h.chunk_id.clone()).collect()
}

struct Both {
    embedded: Index,
    pg: PgStore,
    _dir: tempfile::TempDir,
}

fn both(tag: &str) -> Both {
    let docs = corpus(12);
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::open(dir.path(), settings(), false).unwrap();
    ingest(&mut w, &docs, 5);
    w.finish().unwrap();
    let url = fresh_db(tag);
    let mut pw: Box<dyn StoreWriter> = Box::new(PgWriter::open(&url, settings(), false).unwrap());
    ingest(pw.as_mut(), &docs, 5);
    let (d, c) = pw.finish().unwrap();
    assert_eq!(d, 12);
    let embedded = Index::open(dir.path()).unwrap();
    assert_eq!(c, embedded.store().len());
    Both {
        embedded,
        pg: PgStore::open(&url).unwrap(),
        _dir: dir,
    }
}

#[test]
fn dense_top_k_is_the_same_in_both_stores_and_hybrid_overlaps() {
    let b = both("same");
    let stores: [&dyn ChunkStore; 2] = [&b.embedded, &b.pg];
    let mut overlap = 0.0;
    for text in QUERIES {
        let v = embed(text);
        let run = |s: &dyn ChunkStore, mode: Mode, exact: bool| {
            let mut q = Query::new(text, mode, 10).with_vector(&v);
            q.exact = exact;
            s.search(&q).unwrap()
        };
        let e = run(stores[0], Mode::Dense, true);
        let p = run(stores[1], Mode::Dense, true);
        assert_eq!(ids(&e), ids(&p), "dense exact, query {text:?}");
        for (x, y) in e.iter().zip(&p) {
            assert!(
                (x.score - y.score).abs() < 1e-4,
                "{text:?}: {} vs {}",
                x.score,
                y.score
            );
            assert_eq!(x.text, y.text);
            assert_eq!((x.start_byte, x.end_byte), (y.start_byte, y.end_byte));
        }
        // HNSW in both (small collection: same results modulo ANN ties).
        let e = run(stores[0], Mode::Dense, false);
        let p = run(stores[1], Mode::Dense, false);
        let same = ids(&e).iter().filter(|i| ids(&p).contains(i)).count();
        assert!(same >= 9, "dense HNSW {text:?}: {same}/10 in common");
        // Hybrid over HNSW in both: BM25 halves equal (tests/bm25.rs), dense halves the same
        // modulo ANN ties; the fused lists share most of their top 10.
        let e = run(stores[0], Mode::Hybrid, false);
        let p = run(stores[1], Mode::Hybrid, false);
        assert_eq!(p.len(), 10);
        assert!(p
            .iter()
            .all(|h| h.bm25_rank.is_some() || h.dense_rank.is_some()));
        overlap += ids(&e).iter().filter(|i| ids(&p).contains(i)).count() as f64 / 10.0;
    }
    let overlap = overlap / QUERIES.len() as f64;
    eprintln!("hybrid top-10 overlap, embedded vs PostgreSQL: {overlap:.2}");
    assert!(overlap >= 0.6, "hybrid top-10 overlap {overlap:.2}");
}

#[test]
fn filters_and_acls_are_inside_the_search_and_shaping_is_shared() {
    let b = both("filter");
    let v = embed("taxes and fees");
    for specs in [
        vec!["acl=finance".to_string()],
        vec!["acl=legal".to_string(), "part=1".to_string()],
        vec!["source=speech/part0*".to_string()],
    ] {
        let run = |s: &dyn ChunkStore, mode: Mode| {
            let f = s.filter(&specs).unwrap();
            let mut q = Query::new("taxes and fees", mode, 10)
                .with_vector(&v)
                .with_filter(f);
            q.exact = true;
            s.search(&q).unwrap()
        };
        let e = run(&b.embedded, Mode::Dense);
        let p = run(&b.pg, Mode::Dense);
        assert_eq!(p.len(), 10, "{specs:?}: k matching chunks, not fewer");
        assert_eq!(ids(&e), ids(&p), "{specs:?}");
        let e = run(&b.embedded, Mode::Bm25);
        let p = run(&b.pg, Mode::Bm25);
        assert_eq!(
            e.is_empty(),
            p.is_empty(),
            "{specs:?}: the same chunks match"
        );
        if specs[0] == "acl=finance" {
            assert!(!p.is_empty());
            // Even documents only.
            assert!(p
                .iter()
                .all(|h| h.doc_id[4..6].parse::<u32>().unwrap() % 2 == 0));
        }
    }
    // Shaping: merge adjacent chunks and one hit per document, by the shared code.
    let mut shaped = Vec::new();
    for s in [&b.embedded as &dyn ChunkStore, &b.pg] {
        let mut q = Query::new("taxes", Mode::Dense, 5).with_vector(&v);
        q.exact = true;
        q.merge = true;
        q.docs = true;
        let hits = s.search(&q).unwrap();
        let mut docs: Vec<&str> = hits.iter().map(|h| h.doc_id.as_str()).collect();
        docs.dedup();
        assert_eq!(docs.len(), hits.len(), "one hit per document");
        shaped.push(hits);
    }
    let view = |hits: &[chunklab_index::Hit]| -> Vec<(String, String, usize, usize, Vec<String>)> {
        hits.iter()
            .map(|h| {
                (
                    h.doc_id.clone(),
                    h.text.clone(),
                    h.start_byte,
                    h.end_byte,
                    h.chunks.clone(),
                )
            })
            .collect()
    };
    assert_eq!(view(&shaped[0]), view(&shaped[1]));
    assert!(shaped[1].iter().any(|h| h.chunks.len() > 1) || shaped[1].len() == 5);
    let err = b.pg.filter(&["colour=red".into()]).unwrap_err().to_string();
    assert!(err.contains("unknown filter field `colour`"), "{err}");
}

#[test]
fn incremental_writes_replace_whole_documents() {
    let url = fresh_db("incr");
    let docs = corpus(6);
    let mut w = PgWriter::open(&url, settings(), false).unwrap();
    ingest(&mut w, &docs, 3);
    assert_eq!(w.document_hash("part02.md").as_deref(), Some("h2"));
    let mut changed = docs[2].clone();
    changed.hash = "h2b".into();
    changed.chunks.truncate(2);
    w.add_document(changed).unwrap();
    assert!(w.remove_document("part05.md").unwrap());
    let (d, c) = Box::new(w).finish().unwrap();
    assert_eq!(d, 5);
    let expected: usize = docs.iter().map(|d| d.chunks.len()).sum::<usize>()
        - (docs[2].chunks.len() - 2)
        - docs[5].chunks.len();
    assert_eq!(c, expected);
    // Reopened: the hashes say what is indexed; other settings are refused without --rebuild.
    let w = PgWriter::open(&url, settings(), false).unwrap();
    assert_eq!(w.document_hash("part02.md").as_deref(), Some("h2b"));
    assert_eq!(w.document_hash("part05.md"), None);
    drop(w);
    let mut other = settings();
    other.model = "another-model".into();
    let err = PgWriter::open(&url, other.clone(), false)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("--rebuild"), "{err}");
    let w = PgWriter::open(&url, other, true).unwrap();
    assert!(w.doc_ids().is_empty());
}

#[test]
fn a_second_writer_is_refused_and_a_missing_store_is_named() {
    let url = fresh_db("lock");
    let w = PgWriter::open(&url, settings(), false).unwrap();
    let err = PgWriter::open(&url, settings(), false)
        .err()
        .unwrap()
        .to_string();
    assert!(err.contains("another `chunklab index` is writing"), "{err}");
    drop(w);
    let empty = fresh_db("empty");
    let err = PgStore::open(&empty).err().unwrap().to_string();
    assert!(err.contains("no chunklab store in this database"), "{err}");
}

#[test]
fn a_dropped_connection_is_reconnected() {
    let url = fresh_db("drop");
    let mut w = PgWriter::open(&url, settings(), false).unwrap();
    ingest(&mut w, &corpus(4), 4);
    Box::new(w).finish().unwrap();
    let store = PgStore::open(&url).unwrap();
    let v = embed("fees");
    let q = Query::new("fees", Mode::Hybrid, 5).with_vector(&v);
    let before = ids(&store.search(&q).unwrap());
    // Terminate every chunklab connection to this database from the server side.
    let mut admin = postgres::Client::connect(&url, postgres::NoTls).unwrap();
    let killed: i64 = admin
        .query_one(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'chunklab'",
            &[],
        )
        .unwrap()
        .get(0);
    assert!(killed >= 1);
    assert_eq!(ids(&store.search(&q).unwrap()), before);
}

#[test]
fn one_entry_point_opens_either_store_behind_the_seam() {
    let docs = corpus(3);
    let dir = tempfile::tempdir().unwrap();
    let url = fresh_db("open");
    for location in [dir.path().display().to_string(), url.clone()] {
        let mut w = chunklab_postgres::open_writer(&location, settings(), false).unwrap();
        ingest(w.as_mut(), &docs, 3);
        let (d, _) = w.finish().unwrap();
        assert_eq!(d, 3, "{location}");
        let s = chunklab_postgres::open_store(&location).unwrap();
        assert_eq!(s.settings().model, "hash-64");
        assert_eq!(s.counts().unwrap().0, 3);
        assert_eq!(s.doc_lang("part00.md").as_deref(), Some("en"));
    }
}
