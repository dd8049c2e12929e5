//! Documents hash-partitioned across several PostgreSQL servers, searched by fan-out: a
//! `postgres-cluster://` location lists the shards, `;`-separated, each `PRIMARY_URL` or
//! `PRIMARY_URL|REPLICA_URL` (what `scripts/pg-cluster.sh start` prints). Writes go to the
//! primary of the document's shard (BLAKE3 of its id); searches run on every shard's replica
//! (its primary when it has none) in parallel.
//!
//! The merge is exact, not an approximation: dense scores (inner products) and full-text scores
//! mean the same on every shard — BM25 is scored with the statistics of all shards together
//! (each shard's document frequencies and lengths of the query's terms are read and summed
//! first, one small query per shard, as Elasticsearch's `dfs_query_then_fetch`; `ts_rank_cd`
//! has no IDF) — so each retriever's lists are merged by score, cut to the depth, ranked again, and — in hybrid mode — fused by RRF as one
//! server would fuse them. Keys are shard-local; a global key is `local × shards + shard`.
//! Equal scores are ordered by key, so tied chunks may be ranked in another order than on one
//! server; in hybrid mode that can move a tied chunk's RRF score by one rank step
//! (tests/shards.rs). On large shards full text is bounded per shard
//! ([`crate::search::FullText`]): each shard picks its candidates by its own statistics, so
//! the merge is exact over the candidates, which may differ from one large server's.

use crate::search;
use crate::store::{Fetched, PgStore};
use crate::writer::PgWriter;
use chunklab_index::fusion::rrf;
use chunklab_index::seam::{self, Plan, Ranked};
use chunklab_index::{
    ChunkStore, Error, Filter, Hit, Mode, NewDocument, Query, Settings, StoreWriter,
};
use std::collections::HashMap;

pub use crate::conn::CLUSTER_SCHEME;

/// One shard: where it is written and where it is searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shard {
    /// The primary's URL.
    pub primary: String,
    /// A streaming replica's URL, which serves the shard's searches.
    pub replica: Option<String>,
}

/// The shards of a `postgres-cluster://` location.
///
/// ```
/// use chunklab_postgres::shards::parse_cluster;
/// let s = parse_cluster("postgres-cluster://postgres://a/x|postgres://b/x;postgres://c/x").unwrap();
/// assert_eq!(s.len(), 2);
/// assert_eq!(s[0].replica.as_deref(), Some("postgres://b/x"));
/// assert!(s[1].replica.is_none());
/// assert!(parse_cluster("postgres-cluster://").is_err());
/// ```
pub fn parse_cluster(location: &str) -> Result<Vec<Shard>, Error> {
    let rest = location.strip_prefix(CLUSTER_SCHEME).ok_or_else(|| {
        Error::Store(format!("`{location}` does not start with {CLUSTER_SCHEME}"))
    })?;
    let mut shards = Vec::new();
    for part in rest.split(';').filter(|p| !p.trim().is_empty()) {
        let (primary, replica) = match part.split_once('|') {
            Some((p, r)) => (p.trim(), Some(r.trim().to_string())),
            None => (part.trim(), None),
        };
        for url in std::iter::once(primary).chain(replica.as_deref()) {
            if !crate::conn::is_postgres_url(url) || url.starts_with(CLUSTER_SCHEME) {
                return Err(Error::Store(format!(
                    "{CLUSTER_SCHEME}: shard `{}` is not a postgres:// URL (shards are `PRIMARY[|REPLICA]`, separated by `;`)",
                    crate::conn::hide_password(url)
                )));
            }
        }
        shards.push(Shard {
            primary: primary.to_string(),
            replica,
        });
    }
    if shards.is_empty() {
        return Err(Error::Store(format!(
            "{CLUSTER_SCHEME} lists no shards (give `PRIMARY[|REPLICA];…`)"
        )));
    }
    Ok(shards)
}

/// The shard of a document.
pub fn shard_of(doc_id: &str, shards: usize) -> usize {
    let h = blake3::hash(doc_id.as_bytes());
    let mut b = [0u8; 8];
    b.copy_from_slice(&h.as_bytes()[..8]);
    (u64::from_le_bytes(b) % shards.max(1) as u64) as usize
}

/// A sharded store opened for searching.
pub struct ShardedStore {
    shards: Vec<PgStore>,
    location: String,
    custom_fields: Vec<String>,
}

impl ShardedStore {
    /// Open every shard (its replica when it has one); they must hold the same settings.
    pub fn open(location: &str) -> Result<ShardedStore, Error> {
        let shards = parse_cluster(location)?;
        let stores: Vec<PgStore> = shards
            .iter()
            .map(|s| PgStore::open(s.replica.as_deref().unwrap_or(&s.primary)))
            .collect::<Result<_, _>>()?;
        for s in &stores[1..] {
            if s.settings().mismatch(stores[0].settings()).is_some() {
                return Err(Error::Mismatch(format!(
                    "shard {} was indexed with other settings than shard {}; index every shard with the same flags",
                    s.location(),
                    stores[0].location()
                )));
            }
        }
        let mut custom_fields: Vec<String> = stores
            .iter()
            .flat_map(|s| s.custom_fields().iter().cloned())
            .collect();
        custom_fields.sort();
        custom_fields.dedup();
        Ok(ShardedStore {
            location: shown(&shards),
            shards: stores,
            custom_fields,
        })
    }

    /// Bound full-text ranking on every shard otherwise than the default.
    pub fn with_full_text(mut self, full_text: search::FullText) -> ShardedStore {
        self.shards = self
            .shards
            .into_iter()
            .map(|s| s.with_full_text(full_text))
            .collect();
        self
    }

    fn global(&self, shard: usize, key: u64) -> u64 {
        key * self.shards.len() as u64 + shard as u64
    }
}

fn shown(shards: &[Shard]) -> String {
    let parts: Vec<String> = shards
        .iter()
        .map(|s| {
            let p = crate::conn::hide_password(&s.primary);
            match &s.replica {
                Some(r) => format!("{p}|{}", crate::conn::hide_password(r)),
                None => p,
            }
        })
        .collect();
    format!("{CLUSTER_SCHEME}{}", parts.join(";"))
}

/// What one shard answers: its candidates per retriever (shard-local keys) and their rows.
type ShardAnswer = (Vec<Vec<Ranked>>, Fetched);

/// One retriever's lists from every shard (global keys), merged by score and ranked again.
fn merge_by_score(lists: Vec<Vec<Ranked>>, depth: usize) -> Vec<Ranked> {
    let mut all: Vec<Ranked> = lists.into_iter().flatten().collect();
    all.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.key.cmp(&b.key)));
    all.truncate(depth);
    all
}

impl ChunkStore for ShardedStore {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn settings(&self) -> &Settings {
        self.shards[0].settings()
    }

    fn filter(&self, specs: &[String]) -> Result<Filter, Error> {
        Filter::parse(specs, &self.custom_fields)
    }

    fn is_hierarchical(&self) -> bool {
        self.shards.iter().any(|s| s.is_hierarchical())
    }

    fn search(&self, q: &Query) -> Result<Vec<Hit>, Error> {
        let vector = seam::check_query(q, self.settings())?;
        let plan = Plan::new(q, i64::MAX as usize);
        if plan.k == 0 {
            return Ok(Vec::new());
        }
        let retrievers: &[Mode] = match q.mode {
            Mode::Dense => &[Mode::Dense],
            Mode::Bm25 => &[Mode::Bm25],
            Mode::Hybrid => &[Mode::Dense, Mode::Bm25],
        };
        // What the shards need of the query, copied out: a `Query` holds the reranker, which
        // is not shared with their threads (it runs once, after the merge).
        let (text, qvector, mode, k, filter) = (q.text, q.vector, q.mode, q.k, q.filter.clone());
        let (rrf_k, bm25_weight, dense_weight, depth) =
            (q.rrf_k, q.bm25_weight, q.dense_weight, q.depth);
        let (rerank_top, exact, ef, small_to_big, auto_merge, merge, docs) = (
            q.rerank_top,
            q.exact,
            q.ef,
            q.small_to_big,
            q.auto_merge,
            q.merge,
            q.docs,
        );
        let shard_query = move || Query {
            text,
            vector: qvector,
            mode,
            k,
            filter: filter.clone(),
            rrf_k,
            bm25_weight,
            dense_weight,
            depth,
            rerank: None,
            rerank_top,
            exact,
            ef,
            small_to_big,
            auto_merge,
            merge,
            docs,
        };
        let shard_query = &shard_query;
        // BM25 with the statistics of all shards together (as Elasticsearch's
        // dfs_query_then_fetch): one small query per shard, in parallel, before the search.
        let ranking = self
            .shards
            .first()
            .map_or(search::Ranking::Bm25, |s| s.full_text().ranking);
        let weights = match (q.mode, ranking) {
            (Mode::Dense, _) | (_, search::Ranking::TsRankCd) => None,
            _ => {
                let terms = crate::bm25::query_terms(q.text);
                let terms = &terms;
                let per_shard: Vec<Result<crate::bm25::Stats, Error>> = std::thread::scope(|s| {
                    let handles: Vec<_> = self
                        .shards
                        .iter()
                        .map(|shard| {
                            s.spawn(move || {
                                shard
                                    .pool()
                                    .with("search", |c| crate::bm25::Stats::read(c, terms))
                            })
                        })
                        .collect();
                    handles
                        .into_iter()
                        .map(|h| {
                            h.join().unwrap_or_else(|_| {
                                Err(Error::Store("a shard's statistics panicked".into()))
                            })
                        })
                        .collect()
                });
                let mut all = crate::bm25::Stats::default();
                for st in per_shard {
                    all.add(&st?);
                }
                Some(all.weights(terms))
            }
        };
        let weights = weights.as_ref();
        let n_shards = self.shards.len();
        // Each shard: its candidates per retriever and their rows, in one read transaction.
        let per_shard: Vec<Result<ShardAnswer, Error>> = std::thread::scope(|s| {
            let handles: Vec<_> = self
                .shards
                .iter()
                .map(|shard| {
                    s.spawn(move || {
                        shard.pool().with("search", |c| {
                            let shard_q = &shard_query();
                            let mut tx = c.build_transaction().read_only(true).start()?;
                            let mut lists = Vec::new();
                            for &m in retrievers {
                                lists.push(search::retrieve_with(
                                    &mut tx,
                                    shard_q,
                                    m,
                                    vector,
                                    plan.depth,
                                    &shard.full_text().for_shard_of(n_shards),
                                    weights,
                                )?);
                            }
                            let mut keys: Vec<i64> =
                                lists.iter().flatten().map(|r| r.key as i64).collect();
                            keys.sort_unstable();
                            keys.dedup();
                            let fetched = PgStore::shape_source(&mut tx, shard_q, &keys)?;
                            tx.commit()?;
                            Ok((lists, fetched))
                        })
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| {
                    h.join()
                        .unwrap_or_else(|_| Err(Error::Store("a shard's search panicked".into())))
                })
                .collect()
        });
        let mut fetched = Fetched::default();
        let mut by_retriever: Vec<Vec<Vec<Ranked>>> = vec![Vec::new(); retrievers.len()];
        for (i, r) in per_shard.into_iter().enumerate() {
            let (lists, f) = r?;
            fetched.absorb(f, |k| self.global(i, k));
            for (slot, list) in by_retriever.iter_mut().zip(lists) {
                slot.push(
                    list.into_iter()
                        .map(|mut r| {
                            r.key = self.global(i, r.key);
                            r
                        })
                        .collect(),
                );
            }
        }
        let mut merged: Vec<Vec<Ranked>> = by_retriever
            .into_iter()
            .map(|lists| merge_by_score(lists, plan.depth))
            .collect();
        let ranked = match q.mode {
            Mode::Dense => number(merged.remove(0), |r, n| r.dense_rank = Some(n)),
            Mode::Bm25 => number(merged.remove(0), |r, n| r.bm25_rank = Some(n)),
            Mode::Hybrid => {
                let lex = merged.pop().unwrap_or_default();
                let dense = merged.pop().unwrap_or_default();
                fuse(q, dense, lex)
            }
        };
        seam::finish(q, plan, ranked, &fetched)
    }

    fn doc_lang(&self, doc_id: &str) -> Option<String> {
        self.shards.iter().find_map(|s| s.doc_lang(doc_id))
    }

    fn counts(&self) -> Result<(usize, usize), Error> {
        let mut total = (0, 0);
        for s in &self.shards {
            let (d, c) = s.counts()?;
            total = (total.0 + d, total.1 + c);
        }
        Ok(total)
    }
}

/// The ranks 1, 2, … of a merged list, set by `set`.
fn number(mut list: Vec<Ranked>, set: impl Fn(&mut Ranked, usize)) -> Vec<Ranked> {
    for (i, r) in list.iter_mut().enumerate() {
        set(r, i + 1);
    }
    list
}

/// Reciprocal rank fusion of the merged lists (the index crate's [`rrf`], as the embedded index
/// fuses), each result with its rank in either list.
fn fuse(q: &Query, dense: Vec<Ranked>, lex: Vec<Ranked>) -> Vec<Ranked> {
    let keys = |l: &[Ranked]| l.iter().map(|r| r.key).collect::<Vec<u64>>();
    let (lex_keys, dense_keys) = (keys(&lex), keys(&dense));
    let rank_of = |l: &[u64]| -> HashMap<u64, usize> {
        l.iter().enumerate().map(|(i, &key)| (key, i + 1)).collect()
    };
    let (lex_rank, dense_rank) = (rank_of(&lex_keys), rank_of(&dense_keys));
    rrf(
        &[(&lex_keys, q.bm25_weight), (&dense_keys, q.dense_weight)],
        q.rrf_k,
    )
    .into_iter()
    .map(|(key, score)| Ranked {
        key,
        score,
        bm25_rank: lex_rank.get(&key).copied(),
        dense_rank: dense_rank.get(&key).copied(),
    })
    .collect()
}

/// A sharded store opened for writing: each document goes to its shard's primary.
pub struct ShardedWriter {
    shards: Vec<PgWriter>,
    location: String,
}

impl ShardedWriter {
    /// Open every shard's primary with `settings` (`rebuild`: empty them first).
    pub fn open(location: &str, settings: Settings, rebuild: bool) -> Result<ShardedWriter, Error> {
        let shards = parse_cluster(location)?;
        let writers = shards
            .iter()
            .map(|s| PgWriter::open(&s.primary, settings.clone(), rebuild))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(ShardedWriter {
            location: shown(&shards),
            shards: writers,
        })
    }

    fn shard(&mut self, doc_id: &str) -> &mut PgWriter {
        let n = self.shards.len();
        &mut self.shards[shard_of(doc_id, n)]
    }
}

impl StoreWriter for ShardedWriter {
    fn location(&self) -> String {
        self.location.clone()
    }

    fn settings(&self) -> &Settings {
        self.shards[0].settings()
    }

    fn document_hash(&self, doc_id: &str) -> Option<String> {
        self.shards[shard_of(doc_id, self.shards.len())].document_hash(doc_id)
    }

    fn doc_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = self.shards.iter().flat_map(|s| s.doc_ids()).collect();
        ids.sort();
        ids
    }

    fn add_document(&mut self, doc: NewDocument) -> Result<(), Error> {
        self.shard(&doc.doc_id.clone()).add_document(doc)
    }

    fn remove_document(&mut self, doc_id: &str) -> Result<bool, Error> {
        self.shard(doc_id).remove_document(doc_id)
    }

    /// Every shard's commit at once (each is its own transaction on its own server): the
    /// analysis and `COPY` of N shards take the time of one, not N.
    fn commit(&mut self) -> Result<(), Error> {
        on_every_shard(self.shards.iter_mut().collect(), "commit", |w| w.commit())?;
        Ok(())
    }

    /// Every shard's `finish` at once: after a bulk load each shard builds its indexes (HNSW,
    /// GIN) on its own server, so the build takes the time of the largest shard, not the sum.
    fn finish(self: Box<Self>) -> Result<(usize, usize), Error> {
        let counts = on_every_shard(self.shards, "finish", |w| Box::new(w).finish())?;
        Ok(counts
            .into_iter()
            .fold((0, 0), |t, (d, c)| (t.0 + d, t.1 + c)))
    }
}

/// Run `f` on every shard's writer in its own thread; the results in shard order, or the first
/// shard's error (the other shards' work is done: every shard commits whole documents).
fn on_every_shard<W: Send, T: Send>(
    writers: Vec<W>,
    what: &str,
    f: impl Fn(W) -> Result<T, Error> + Sync,
) -> Result<Vec<T>, Error> {
    let f = &f;
    let results: Vec<Result<T, Error>> = std::thread::scope(|s| {
        let handles: Vec<_> = writers.into_iter().map(|w| s.spawn(move || f(w))).collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::Store(format!("a shard's {what} panicked"))))
            })
            .collect()
    });
    results.into_iter().collect()
}
