//! Retrieval in SQL: dense (pgvector HNSW, `hnsw.ef_search` set per query, iterative scans so
//! that a filter inside the scan still yields `depth` candidates), full text (BM25 over the
//! chunks' terms), and hybrid: both candidate lists and their reciprocal rank fusion in ONE
//! statement. Filters are part of each candidate search's `WHERE`.
//!
//! **Full text is BM25** (schema version 3): the chunks' terms come from the embedded index's
//! own analyzer, run in Rust by the writer, with exact document frequencies and lengths kept
//! in the chunks' transaction ([`crate::bm25`]); the candidate search finds the chunks holding
//! any query term through a GIN index on the terms (`bm25 ?| terms`) and the statement scores
//! them with tantivy's formula (k1 = 1.2, b = 0.75, tantivy's IDF and field-length table). So
//! both stores give the same full-text ranking (modulo float ties), and the same hybrid fusion.
//!
//! **Bounded BM25.** PostgreSQL cannot stop early in a ranked search (no WAND over the GIN
//! postings): it scores every chunk the query's terms match, and a common term matches most
//! chunks. While the query's terms' document frequencies sum to at most
//! [`FullText::exact_below`] (20,000) every match is scored — any store of up to that many
//! chunks, and rare-word queries on any store. Above it the candidates are bounded like
//! Elasticsearch's common-terms query: terms in more than [`FullText::common_df`] chunks and
//! more than [`FullText::common_fraction`] of them (exact counts from the statistics) are
//! common; the candidates are the chunks holding a rare term (when every term is common: the
//! chunks holding all of a field's terms), at most [`FullText::cap`] or
//! [`FullText::cap_fraction`] of the chunks, whichever is more, plus up to the depth other
//! matches, all scored with every term. The bounds grow with the store so that the ranking
//! stays that of every match scored (top-10 agreement 0.93-0.97 at 100k and 1M). A chunk
//! that holds only common terms of a query that also has rare ones may then be missed — it
//! scores low (common terms have a small IDF), which is why the bound costs little; measured in
//! docs/PERFORMANCE.md "postgres". [`FullText::exact`] scores every match.
//!
//! **`ts_rank_cd`** (the ranking before version 3, [`Ranking::TsRankCd`], kept for comparison):
//! cover density over the `tsvector` — how many query terms occur and how close together —
//! with no IDF and normalisation 1 (divided by 1 + log of the chunk's length); the query is
//! analysed with both the Dutch and the English snowball configuration, terms ORed. Bounded the
//! same way, with the lexemes' frequencies estimated from the planner's statistics of the `tsv`
//! column (`pg_stats.most_common_elems` × `reltuples`, kept by `ANALYZE`), all matches ranked
//! when no lexeme is common.

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

/// How full text is ranked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ranking {
    /// BM25 as the embedded index (tantivy) scores it ([`crate::bm25`]): the default.
    Bm25,
    /// PostgreSQL's `ts_rank_cd` over the `tsvector` (cover density, no IDF): the ranking
    /// before schema version 3, kept for comparison (`CHUNKLAB_PG_RANKING=ts_rank_cd`).
    TsRankCd,
}

/// How full-text candidates are ranked and bounded (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FullText {
    /// The ranking function.
    pub ranking: Ranking,
    /// Rank at most this many chunks matching the rare terms (`None`: every match, exact).
    pub cap: Option<usize>,
    /// A term matching more chunks than this is common (BM25: its exact document frequency;
    /// `ts_rank_cd`: the planner's estimate).
    pub common_df: f64,
    /// BM25: rank every match when the query's terms' document frequencies sum to at most
    /// this (the candidates are then at most this many), bounded only above it.
    pub exact_below: u64,
    /// BM25: a term is common only above this fraction of the store's chunks too (the bound
    /// grows with the store: an absolute 1,000 is 1 % of 100k chunks but 0.1 % of 1M, where
    /// most query words became common and the top 10 agreed with the full ranking on 48 %).
    pub common_fraction: f64,
    /// BM25: the cap is at least this fraction of the store's chunks (over all shards; each of
    /// N shards takes its N-th).
    pub cap_fraction: f64,
}

impl Default for FullText {
    /// BM25; bounded when a query's terms are in more than 20,000 chunks together: at most
    /// 4,000 candidates or 4 % of the chunks, terms in more than 1,000 chunks and 1 % of the
    /// chunks are common (the proportions measured at 100k, kept at 1M: docs/PERFORMANCE.md
    /// "postgres").
    fn default() -> FullText {
        FullText {
            ranking: Ranking::Bm25,
            cap: Some(4000),
            common_df: 1000.0,
            exact_below: 20_000,
            common_fraction: 0.01,
            cap_fraction: 0.04,
        }
    }
}

impl FullText {
    /// The bounds one of `shards` shards uses: its share of the cap fraction (the chunk count
    /// in BM25's weights is the whole store's).
    pub fn for_shard_of(&self, shards: usize) -> FullText {
        FullText {
            cap_fraction: self.cap_fraction / shards.max(1) as f64,
            ..*self
        }
    }

    /// BM25's bounds for a store of `chunks` chunks: (common df, cap).
    pub fn bounds(&self, chunks: i64, cap: usize) -> (f64, usize) {
        let n = chunks.max(0) as f64;
        (
            self.common_df.max(self.common_fraction * n),
            cap.max((self.cap_fraction * n) as usize),
        )
    }

    /// Rank every chunk that matches the query (unbounded).
    pub fn exact() -> FullText {
        FullText {
            cap: None,
            ..FullText::default()
        }
    }

    /// The default, changed by `CHUNKLAB_PG_FULLTEXT=exact`, `CHUNKLAB_PG_FULLTEXT_CAP=N`,
    /// `CHUNKLAB_PG_COMMON_DF=N`, `CHUNKLAB_PG_EXACT_BELOW=N`, `CHUNKLAB_PG_COMMON_FRACTION=F`,
    /// `CHUNKLAB_PG_CAP_FRACTION=F` (0 for absolute bounds only) and
    /// `CHUNKLAB_PG_RANKING=ts_rank_cd` in the environment (for measuring; values that do not
    /// parse are ignored).
    pub fn from_env() -> FullText {
        let var = |k: &str| std::env::var(k).ok().map(|v| v.trim().to_string());
        let mut ft = FullText::default();
        if let Some(n) = var("CHUNKLAB_PG_FULLTEXT_CAP").and_then(|v| v.parse().ok()) {
            ft.cap = Some(n);
        }
        if let Some(n) = var("CHUNKLAB_PG_COMMON_DF").and_then(|v| v.parse().ok()) {
            ft.common_df = n;
        }
        if let Some(n) = var("CHUNKLAB_PG_EXACT_BELOW").and_then(|v| v.parse().ok()) {
            ft.exact_below = n;
        }
        if let Some(f) = var("CHUNKLAB_PG_COMMON_FRACTION").and_then(|v| v.parse().ok()) {
            ft.common_fraction = f;
        }
        if let Some(f) = var("CHUNKLAB_PG_CAP_FRACTION").and_then(|v| v.parse().ok()) {
            ft.cap_fraction = f;
        }
        if var("CHUNKLAB_PG_FULLTEXT").as_deref() == Some("exact") {
            ft.cap = None;
        }
        if var("CHUNKLAB_PG_RANKING").as_deref() == Some("ts_rank_cd") {
            ft.ranking = Ranking::TsRankCd;
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

/// The BM25 candidate search: `SELECT key, s` of the best `limit` chunks matching the query's
/// terms under `cond`, scored by [`crate::bm25`]'s formula with the weights `w`. Every match is
/// ranked when the terms' document frequencies sum to at most `ft.exact_below` (or `ft.cap` is
/// `None`); otherwise the candidates are the chunks holding a rare term (df at most
/// `ft.common_df`; when every term is common: the chunks holding all of a field's terms), at
/// most `ft.cap`, plus up to `limit` other matches.
fn bm25_sql(
    w: &crate::bm25::Weights,
    ft: &FullText,
    cond: &str,
    limit: &str,
    p: &mut Params,
) -> String {
    let terms = p.push(w.terms.clone());
    let weights = p.push(w.w.clone());
    let kb = p.push(w.kb.clone());
    let score = |c: &str| {
        format!(
            "(SELECT sum(q.w * f.tf / (f.tf + {k0}::float8 + q.kb * {c}.bm25_norm))
               FROM unnest({terms}::text[], {weights}::float8[], {kb}::float8[]) q(t, w, kb),
                    LATERAL (SELECT ({c}.bm25 -> q.t)::float8 AS tf) f
              WHERE f.tf IS NOT NULL)",
            k0 = crate::bm25::Weights::k0(),
        )
    };
    let total: i64 = w.df.iter().sum();
    let bounded = match ft.cap {
        Some(cap) if total.max(0) as u64 > ft.exact_below => Some(cap),
        _ => None,
    };
    let Some(cap) = bounded else {
        return format!(
            "SELECT c.key, {s} AS s FROM chunklab.chunks c WHERE c.bm25 ?| {terms}::text[] AND {cond} ORDER BY s DESC, c.key LIMIT {limit}",
            s = score("c"),
        );
    };
    let (common_df, cap) = ft.bounds(w.docs, cap);
    let rare: Vec<String> = w
        .terms
        .iter()
        .zip(&w.df)
        .filter(|(_, df)| **df as f64 <= common_df)
        .map(|(t, _)| t.clone())
        .collect();
    let primary = if rare.is_empty() {
        // Every term common: the chunks holding all of a field's terms.
        let mut all = Vec::new();
        for f in crate::bm25::FIELDS {
            let of: Vec<String> = w
                .terms
                .iter()
                .filter(|t| t.split(':').next() == Some(f))
                .cloned()
                .collect();
            if !of.is_empty() {
                all.push(format!("c.bm25 ?& {}::text[]", p.push(of)));
            }
        }
        format!("({})", all.join(" OR "))
    } else {
        format!("c.bm25 ?| {}::text[]", p.push(rare))
    };
    let cap = p.push(cap as i64);
    format!(
        "SELECT x.key, {s} AS s FROM (
             (SELECT c.key, c.bm25, c.bm25_norm FROM chunklab.chunks c WHERE {primary} AND {cond} LIMIT {cap})
             UNION ALL
             (SELECT c.key, c.bm25, c.bm25_norm FROM chunklab.chunks c WHERE c.bm25 ?| {terms}::text[] AND NOT {primary} AND {cond} LIMIT {limit})) x
         ORDER BY s DESC, x.key LIMIT {limit}",
        s = score("x"),
    )
}

/// `hnsw.ef_search` for `depth` candidates and the query's own `ef`, if it gives one: at
/// least `depth` (and pgvector's default 40 when the query gives none), at most pgvector's
/// 1000.
pub fn ef_search(depth: usize, ef: Option<usize>) -> usize {
    match ef {
        None => depth.max(40),
        Some(ef) => ef.max(depth),
    }
    .clamp(1, 1000)
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
    retrieve_with(tx, q, mode, vector, depth, ft, None)
}

/// [`retrieve_as`] with BM25's weights given (a sharded store's, from every shard's
/// statistics) instead of read from this store's.
pub fn retrieve_with(
    tx: &mut Transaction<'_>,
    q: &Query,
    mode: Mode,
    vector: Option<&[f32]>,
    depth: usize,
    ft: &FullText,
    weights: Option<&crate::bm25::Weights>,
) -> Result<Vec<Ranked>, postgres::Error> {
    // Which lexemes are common, when full text is ranked and bounded: one small catalog
    // query before the retrieval statement.
    let ts_rank_cd = ft.ranking == Ranking::TsRankCd;
    let split = match (mode, ft.cap) {
        (Mode::Dense, _) | (_, None) => None,
        _ if !ts_rank_cd => None,
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
        ef_search(depth, q.ef)
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
    // BM25: the query's weights from the store's statistics (one small query), then the
    // candidates and their scores in the retrieval statement.
    let bm25 = match mode {
        Mode::Dense => None,
        _ if ts_rank_cd => None,
        _ => {
            let w = match weights {
                Some(w) => w.clone(),
                None => crate::bm25::weights(tx, &crate::bm25::query_terms(q.text))?,
            };
            Some(bm25_sql(&w, ft, &cond, &limit, &mut p))
        }
    };
    // The query text is a parameter of the `ts_rank_cd` statements only (an unused
    // parameter would have no type).
    let ts_text = bm25.is_none().then(|| q.text.to_string());
    let text_param = |p: &mut Params| match &ts_text {
        Some(t) => p.push(t.clone()),
        None => String::new(),
    };
    let lex_sql = |t: &str| {
        if let Some(sql) = &bm25 {
            return sql.clone();
        }
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
            let t = text_param(&mut p);
            let sql = format!(
                "SELECT key, s::float4, row_number() OVER (ORDER BY s DESC, key), NULL::int8 FROM ({}) y ORDER BY s DESC, key",
                lex_sql(&t)
            );
            tx.query(&sql, &p.refs())?
        }
        Mode::Hybrid => {
            let v = p.push(Vector::from(vector.unwrap_or_default().to_vec()));
            let t = text_param(&mut p);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ef_search_covers_the_depth_and_takes_the_querys_ef() {
        assert_eq!(ef_search(10, None), 40);
        assert_eq!(ef_search(60, None), 60);
        assert_eq!(ef_search(10, Some(200)), 200);
        assert_eq!(ef_search(60, Some(20)), 60);
        assert_eq!(ef_search(5000, None), 1000);
        assert_eq!(ef_search(10, Some(5000)), 1000);
    }

    #[test]
    fn bounds_grow_with_the_store_and_split_over_shards() {
        let ft = FullText::default();
        // Small stores keep the absolute bounds.
        assert_eq!(ft.bounds(2_000, 4_000), (1_000.0, 4_000));
        assert_eq!(ft.bounds(100_000, 4_000), (1_000.0, 4_000));
        // 1M chunks: the 100k proportions.
        assert_eq!(ft.bounds(1_000_000, 4_000), (10_000.0, 40_000));
        assert_eq!(
            ft.for_shard_of(2).bounds(1_000_000, 4_000),
            (10_000.0, 20_000)
        );
        let absolute = FullText {
            common_fraction: 0.0,
            cap_fraction: 0.0,
            ..FullText::default()
        };
        assert_eq!(absolute.bounds(1_000_000, 4_000), (1_000.0, 4_000));
    }
}
