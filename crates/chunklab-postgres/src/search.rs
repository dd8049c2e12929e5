//! Retrieval in SQL: dense (pgvector HNSW, `hnsw.ef_search` set per query, iterative scans so
//! that a filter inside the scan still yields `depth` candidates), full text (`ts_rank_cd` over
//! the `tsvector`), and hybrid: both candidate lists and their reciprocal rank fusion in ONE
//! statement. Filters are part of each candidate search's `WHERE`.
//!
//! **Full text vs. BM25.** The embedded index ranks with tantivy's BM25 (term frequency
//! saturated by k1 = 1.2, document length normalised by b = 0.75, and IDF: rare terms weigh
//! more). PostgreSQL has no BM25: `ts_rank_cd` is cover density — how many query terms occur
//! and how close together — with no IDF (a common term counts as much as a rare one) and here
//! normalisation 1 (divided by 1 + log of the chunk's length). The query is analysed like the
//! embedded index does — with both the Dutch and the English snowball configuration, terms
//! ORed — so the same chunks match, but they are ordered differently: the two stores agree on
//! dense results and differ in full-text and hybrid order (measured in docs/PERFORMANCE.md).

use crate::filter::{condition, Params};
use chunklab_index::seam::Ranked;
use chunklab_index::{Mode, Query};
use pgvector::Vector;
use postgres::Transaction;

/// The ORed Dutch + English tsquery of parameter `q` (a text).
fn tsquery(q: &str) -> String {
    format!(
        "(replace(plainto_tsquery('english', {q})::text, ' & ', ' | ')::tsquery || replace(plainto_tsquery('dutch', {q})::text, ' & ', ' | ')::tsquery)"
    )
}

/// `hnsw.ef_search` for `depth` candidates: at least pgvector's default 40, at most its 1000.
pub fn ef_search(depth: usize) -> usize {
    depth.clamp(40, 1000)
}

/// Retrieve the ranked candidates of `q` (at most `depth` per retriever), fused in SQL for
/// hybrid mode, inside the read transaction `tx`.
pub fn retrieve(
    tx: &mut Transaction<'_>,
    q: &Query,
    vector: Option<&[f32]>,
    depth: usize,
) -> Result<Vec<Ranked>, postgres::Error> {
    retrieve_as(tx, q, q.mode, vector, depth)
}

/// [`retrieve`] with the retriever given: `Dense` or `Bm25` alone give the raw scores a
/// sharded store merges across shards (ranks in the shard are then renumbered).
pub fn retrieve_as(
    tx: &mut Transaction<'_>,
    q: &Query,
    mode: Mode,
    vector: Option<&[f32]>,
    depth: usize,
) -> Result<Vec<Ranked>, postgres::Error> {
    let leaves_only = q.small_to_big || q.auto_merge.is_some();
    let mut p = Params::default();
    let cond = condition(q.filter.as_deref(), leaves_only, &mut p);
    let limit = p.push(depth.min(i64::MAX as usize) as i64);
    let mut settings = format!(
        "SET LOCAL hnsw.ef_search = {}; SET LOCAL hnsw.iterative_scan = strict_order;",
        ef_search(depth)
    );
    if q.exact {
        // A scan over every vector: no index scan for the ORDER BY distance.
        settings.push_str(" SET LOCAL enable_indexscan = off;");
    }
    tx.batch_execute(&settings)?;
    let dense_sql = |v: &str| {
        format!(
            "SELECT c.key, c.embedding <#> {v} AS d FROM chunklab.chunks c WHERE {cond} ORDER BY c.embedding <#> {v} LIMIT {limit}"
        )
    };
    let lex_sql = |t: &str| {
        format!(
            "SELECT c.key, ts_rank_cd(c.tsv, q.tq, 1) AS s FROM chunklab.chunks c, (SELECT {} AS tq) q WHERE c.tsv @@ q.tq AND {cond} ORDER BY s DESC, c.key LIMIT {limit}",
            tsquery(t)
        )
    };
    let rows = match mode {
        Mode::Dense => {
            let v = p.push(Vector::from(vector.unwrap_or_default().to_vec()));
            let sql = format!(
                "SELECT key, (-d)::float4, NULL::int8, row_number() OVER (ORDER BY d, key) FROM ({}) x ORDER BY d, key",
                dense_sql(&v)
            );
            tx.query(&sql, &p.refs())?
        }
        Mode::Bm25 => {
            let t = p.push(q.text.to_string());
            let sql = format!(
                "SELECT key, s::float4, row_number() OVER (ORDER BY s DESC, key), NULL::int8 FROM ({}) x ORDER BY s DESC, key",
                lex_sql(&t)
            );
            tx.query(&sql, &p.refs())?
        }
        Mode::Hybrid => {
            let v = p.push(Vector::from(vector.unwrap_or_default().to_vec()));
            let t = p.push(q.text.to_string());
            let k = p.push(q.rrf_k as f64);
            let wb = p.push(q.bm25_weight as f64);
            let wd = p.push(q.dense_weight as f64);
            let sql = format!(
                "WITH dense AS (SELECT key, row_number() OVER (ORDER BY d, key) AS r FROM ({dense}) x),
                      lex AS (SELECT key, row_number() OVER (ORDER BY s DESC, key) AS r FROM ({lex}) y)
                 SELECT key, score::float4, bm25_rank, dense_rank FROM (
                     SELECT key,
                            coalesce({wb}::float8 / ({k}::float8 + l.r), 0) + coalesce({wd}::float8 / ({k}::float8 + d.r), 0) AS score,
                            l.r AS bm25_rank, d.r AS dense_rank
                     FROM lex l FULL JOIN dense d USING (key)) f
                 ORDER BY score DESC, key",
                dense = dense_sql(&v),
                lex = lex_sql(&t),
            );
            tx.query(&sql, &p.refs())?
        }
    };
    Ok(rows
        .iter()
        .map(|r| {
            let key: i64 = r.get(0);
            let b: Option<i64> = r.get(2);
            let d: Option<i64> = r.get(3);
            Ranked {
                key: key as u64,
                score: r.get(1),
                bm25_rank: b.map(|x| x as usize),
                dense_rank: d.map(|x| x as usize),
            }
        })
        .collect())
}
