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
//!
//! **Bounded full text.** PostgreSQL cannot stop early in a ranked full-text search: it
//! computes `ts_rank_cd` for every chunk the ORed query matches, and a common word matches most
//! chunks (0.8 s per query at 100,000 chunks). So the ranking is bounded like Elasticsearch's
//! common-terms query (`cutoff_frequency`): the query's lexemes whose number of matching chunks
//! — estimated from the planner's statistics of the `tsv` column (`pg_stats.most_common_elems`
//! × `reltuples`, kept by `ANALYZE` and replicated to read replicas) — exceeds
//! [`FullText::common_df`] are *common*. The candidates are the chunks matching any rare lexeme
//! (when every lexeme is common: the chunks matching all query words, AND), at most
//! [`FullText::cap`] of them, plus — when they are fewer than the depth — chunks matching the
//! whole ORed query up to the depth; all are ranked by `ts_rank_cd` with the whole query, so
//! common words still order them. A chunk that matches only common words of a query that also
//! has rare ones is not ranked: that is where it differs from the unbounded ranking (which
//! [`FullText::exact`] keeps), measured in docs/PERFORMANCE.md "postgres". A store too small
//! for any lexeme to be common (or never analysed) ranks every match, as before.

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

/// How full-text candidates are bounded (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullText {
    /// Rank at most this many chunks matching the rare lexemes (`None`: every match, exact).
    pub cap: Option<usize>,
    /// A lexeme estimated to match more chunks than this is common.
    pub common_df: f64,
}

impl Default for FullText {
    /// At most 4,000 candidates; lexemes in more than 1,000 chunks are common.
    fn default() -> FullText {
        FullText {
            cap: Some(4000),
            common_df: 1000.0,
        }
    }
}

impl FullText {
    /// Rank every chunk that matches the ORed query (the unbounded `ts_rank_cd`).
    pub fn exact() -> FullText {
        FullText {
            cap: None,
            ..FullText::default()
        }
    }

    /// The default, changed by `CHUNKLAB_PG_FULLTEXT=exact`, `CHUNKLAB_PG_FULLTEXT_CAP=N` and
    /// `CHUNKLAB_PG_COMMON_DF=N` in the environment (for measuring; values that do not parse
    /// are ignored).
    pub fn from_env() -> FullText {
        let var = |k: &str| std::env::var(k).ok().map(|v| v.trim().to_string());
        let mut ft = FullText::default();
        if let Some(n) = var("CHUNKLAB_PG_FULLTEXT_CAP").and_then(|v| v.parse().ok()) {
            ft.cap = Some(n);
        }
        if let Some(n) = var("CHUNKLAB_PG_COMMON_DF").and_then(|v| v.parse().ok()) {
            ft.common_df = n;
        }
        if var("CHUNKLAB_PG_FULLTEXT").as_deref() == Some("exact") {
            ft.cap = None;
        }
        ft
    }
}

/// The query's lexemes (Dutch and English analysis) with the number of chunks each is
/// estimated to match (0 when the statistics do not list it: rarer than every listed lexeme).
pub fn lexeme_frequencies(
    tx: &mut Transaction<'_>,
    text: &str,
) -> Result<Vec<(String, f64)>, postgres::Error> {
    let rows = tx.query(
        "WITH lx AS (SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', $1) || to_tsvector('dutch', $1))) AS w),
              st AS (SELECT most_common_elems::text::text[] AS e, most_common_elem_freqs AS f FROM pg_stats
                     WHERE schemaname = 'chunklab' AND tablename = 'chunks' AND attname = 'tsv'),
              n AS (SELECT greatest(reltuples, 0)::float8 AS n FROM pg_class WHERE oid = 'chunklab.chunks'::regclass)
         SELECT lx.w, coalesce((SELECT st.f[array_position(st.e, lx.w)] FROM st), 0)::float8 * (SELECT n FROM n) FROM lx ORDER BY lx.w",
        &[&text],
    )?;
    Ok(rows.iter().map(|r| (r.get(0), r.get(1))).collect())
}

/// A tsquery (text form) ORing `lexemes`, each quoted as tsquery input wants.
fn or_lexemes(lexemes: &[&str]) -> String {
    lexemes
        .iter()
        .map(|l| format!("'{}'", l.replace('\\', "\\\\").replace('\'', "''")))
        .collect::<Vec<_>>()
        .join(" | ")
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
    retrieve_as(tx, q, q.mode, vector, depth, &FullText::default())
}

/// [`retrieve`] with the retriever given: `Dense` or `Bm25` alone give the raw scores a
/// sharded store merges across shards (ranks in the shard are then renumbered); `ft` bounds
/// the full-text candidates.
pub fn retrieve_as(
    tx: &mut Transaction<'_>,
    q: &Query,
    mode: Mode,
    vector: Option<&[f32]>,
    depth: usize,
    ft: &FullText,
) -> Result<Vec<Ranked>, postgres::Error> {
    // Which lexemes are common, when full text is ranked and bounded: one small catalog
    // query before the retrieval statement.
    let split = match (mode, ft.cap) {
        (Mode::Dense, _) | (_, None) => None,
        (_, Some(cap)) => {
            let lx = lexeme_frequencies(tx, q.text)?;
            let rare: Vec<&str> = lx
                .iter()
                .filter(|(_, df)| *df <= ft.common_df)
                .map(|(w, _)| w.as_str())
                .collect();
            if rare.len() == lx.len() {
                // Nothing common: every match is ranked (bounded by the statistics).
                None
            } else {
                Some((cap, (!rare.is_empty()).then(|| or_lexemes(&rare))))
            }
        }
    };
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
    // The bounded form's primary candidates: the rare lexemes ORed (a tsquery parameter), or
    // the query's words ANDed when every lexeme is common.
    let primary = split.as_ref().map(|(cap, rare)| {
        let cap = p.push(*cap as i64);
        match rare {
            Some(r) => (cap, format!("{}::text::tsquery", p.push(r.clone()))),
            None => (cap, String::new()),
        }
    });
    let lex_sql = |t: &str| {
        match &primary {
        None => format!(
            "SELECT c.key, ts_rank_cd(c.tsv, q.tq, 1) AS s FROM chunklab.chunks c, (SELECT {} AS tq) q WHERE c.tsv @@ q.tq AND {cond} ORDER BY s DESC, c.key LIMIT {limit}",
            tsquery(t)
        ),
        Some((cap, first)) => {
            let first = if first.is_empty() {
                format!("(plainto_tsquery('english', {t}) || plainto_tsquery('dutch', {t}))")
            } else {
                first.clone()
            };
            format!(
                "SELECT x.key, ts_rank_cd(x.tsv, q.tq, 1) AS s FROM (SELECT {full} AS tq, {first} AS fq) q, LATERAL (
                     (SELECT c.key, c.tsv FROM chunklab.chunks c WHERE c.tsv @@ q.fq AND {cond} LIMIT {cap})
                     UNION ALL
                     (SELECT c.key, c.tsv FROM chunklab.chunks c WHERE c.tsv @@ q.tq AND NOT c.tsv @@ q.fq AND {cond} LIMIT {limit})) x
                 ORDER BY s DESC, x.key LIMIT {limit}",
                full = tsquery(t),
            )
        }
    }
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
                "SELECT key, s::float4, row_number() OVER (ORDER BY s DESC, key), NULL::int8 FROM ({}) y ORDER BY s DESC, key",
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
