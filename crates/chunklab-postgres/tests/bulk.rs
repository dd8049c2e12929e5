//! The bulk path: loading an empty store drops the HNSW and GIN indexes in the first commit and
//! builds them at `finish`; the result searches exactly like a store loaded through the
//! incremental path; a writer that never finished leaves the indexes to the next writer.

use crate::common::*;
use chunklab_index::{ChunkStore, Mode, Query, StoreWriter};
use chunklab_postgres::writer::BulkMode;
use chunklab_postgres::{bulk, PgStore, PgWriter};

fn missing(url: &str) -> Vec<&'static str> {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    bulk::missing(&mut c, DIM, chunklab_index::HnswSettings::POSTGRES)
        .unwrap()
        .iter()
        .map(|d| d.name)
        .collect()
}

fn ids(hits: &[chunklab_index::Hit]) -> Vec<String> {
    hits.iter().map(|h| h.chunk_id.clone()).collect()
}

#[test]
fn a_bulk_load_builds_the_indexes_once_and_searches_like_the_incremental_path() {
    let docs = corpus(12);
    let every = [
        "chunks_embedding",
        "chunks_tsv",
        "chunks_bm25",
        "chunks_acl",
        "chunks_metadata",
    ];
    // Bulk: the first commit fills an empty store.
    let bulk_url = fresh_db("bulk");
    let mut w = PgWriter::open(&bulk_url, settings(), false).unwrap();
    for d in &docs[..5] {
        w.add_document(d.clone()).unwrap();
    }
    w.commit().unwrap();
    assert!(w.is_bulk());
    assert_eq!(missing(&bulk_url), every, "no index upkeep during the load");
    for d in &docs[5..] {
        w.add_document(d.clone()).unwrap();
    }
    let (_, bulk_chunks) = (Box::new(w) as Box<dyn StoreWriter>).finish().unwrap();
    assert!(missing(&bulk_url).is_empty(), "built at finish");
    // Incremental: the indexes are kept all along.
    let inc_url = fresh_db("incr");
    let mut w = PgWriter::open(&inc_url, settings(), false)
        .unwrap()
        .with_bulk(BulkMode::Never);
    ingest(&mut w, &docs, 5);
    assert!(!w.is_bulk());
    assert!(missing(&inc_url).is_empty());
    let (_, inc_chunks) = (Box::new(w) as Box<dyn StoreWriter>).finish().unwrap();
    assert_eq!(bulk_chunks, inc_chunks);
    let (b, i) = (
        PgStore::open(&bulk_url).unwrap(),
        PgStore::open(&inc_url).unwrap(),
    );
    for text in QUERIES {
        let v = embed(text);
        for mode in [Mode::Dense, Mode::Bm25, Mode::Hybrid] {
            // Exact dense scans: equal. The two HNSW graphs (built once vs. row by row, with
            // parallel workers) may differ by ANN ties: most of the top 10 in common.
            let mut q = Query::new(text, mode, 10).with_vector(&v);
            q.exact = true;
            let (x, y) = (b.search(&q).unwrap(), i.search(&q).unwrap());
            assert!(!x.is_empty(), "{text:?} {mode:?}");
            assert_eq!(ids(&x), ids(&y), "{text:?} {mode:?}");
            q.exact = false;
            let (x, y) = (b.search(&q).unwrap(), i.search(&q).unwrap());
            let common = ids(&x).iter().filter(|c| ids(&y).contains(c)).count();
            assert!(
                common >= 8,
                "{text:?} {mode:?} HNSW: {common} of 10 in common"
            );
        }
    }
}

#[test]
fn indexes_a_bulk_load_left_missing_are_built_by_the_next_writer() {
    let docs = corpus(12);
    let url = fresh_db("bulkcrash");
    let mut w = PgWriter::open(&url, settings(), false).unwrap();
    ingest(&mut w, &docs, 4);
    assert!(w.is_bulk());
    // Gone without `finish` (as a killed `chunklab index` is): whole documents, no indexes.
    drop(w);
    assert_eq!(missing(&url).len(), 5);
    let s = PgStore::open(&url).unwrap();
    let v = embed("taxes");
    let q = Query::new("taxes", Mode::Hybrid, 5).with_vector(&v);
    assert_eq!(s.search(&q).unwrap().len(), 5, "searches work without them");
    assert_eq!(s.counts().unwrap().0, 12);
    // The next writer builds them before it writes, and updates incrementally.
    let mut w = PgWriter::open(&url, settings(), false).unwrap();
    assert!(missing(&url).is_empty());
    let mut changed = docs[0].clone();
    changed.hash = "changed".into();
    w.add_document(changed).unwrap();
    w.commit().unwrap();
    assert!(!w.is_bulk(), "a filled store is updated incrementally");
    assert!(missing(&url).is_empty());
}

/// The `WITH (...)` options of the store's HNSW index, as PostgreSQL prints them.
fn hnsw_options(url: &str) -> String {
    let mut c = postgres::Client::connect(url, postgres::NoTls).unwrap();
    let def: String = c
        .query_one(
            "SELECT indexdef FROM pg_indexes WHERE schemaname = 'chunklab' AND indexname = 'chunks_embedding'",
            &[],
        )
        .unwrap()
        .get(0);
    def[def.find("WITH").expect("WITH (...)")..].to_string()
}

#[test]
fn the_graph_settings_are_the_stores_and_survive_a_bulk_load() {
    use chunklab_index::HnswSettings;
    let docs = corpus(6);
    let with = |hnsw| chunklab_index::Settings { hnsw, ..settings() };
    // A new store without settings named: pgvector's defaults, recorded.
    let url = fresh_db("hnsw_default");
    PgWriter::open(&url, settings(), false).unwrap();
    assert_eq!(hnsw_options(&url), "WITH (m='16', ef_construction='64')");
    assert_eq!(
        PgStore::open(&url).unwrap().settings().hnsw,
        Some(HnswSettings::POSTGRES)
    );
    // Named: the index is built with them, also when a bulk load drops and rebuilds it.
    let url = fresh_db("hnsw_named");
    let fast = HnswSettings::new(24, 80).unwrap();
    let mut w = PgWriter::open(&url, with(Some(fast)), false).unwrap();
    assert_eq!(hnsw_options(&url), "WITH (m='24', ef_construction='80')");
    for d in &docs {
        w.add_document(d.clone()).unwrap();
    }
    w.commit().unwrap();
    assert!(w.is_bulk());
    assert_eq!(missing(&url)[0], "chunks_embedding");
    (Box::new(w) as Box<dyn StoreWriter>).finish().unwrap();
    assert_eq!(hnsw_options(&url), "WITH (m='24', ef_construction='80')");
    // A query's own ef (hnsw.ef_search) finds what the exact scan finds on this small store.
    let store = PgStore::open(&url).unwrap();
    for text in QUERIES {
        let v = embed(text);
        let mut q = Query::new(text, Mode::Dense, 5);
        q.vector = Some(&v);
        q.ef = Some(400);
        let wide = ids(&store.search(&q).unwrap());
        q.ef = None;
        q.exact = true;
        assert_eq!(wide, ids(&store.search(&q).unwrap()), "{text}");
    }
    drop(store);
    // A run naming none takes the store's; one naming others is refused until --rebuild.
    let w = PgWriter::open(&url, settings(), false).unwrap();
    assert_eq!(w.settings().hnsw, Some(fast));
    drop(w);
    let e = PgWriter::open(&url, with(Some(HnswSettings::POSTGRES)), false)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains(
            "hnsw: index has `m=24,ef_construction=80`, this run has `m=16,ef_construction=64`"
        ),
        "{e}"
    );
    PgWriter::open(&url, with(Some(HnswSettings::POSTGRES)), true).unwrap();
    assert_eq!(hnsw_options(&url), "WITH (m='16', ef_construction='64')");
}
