//! [`PgStore`]: a PostgreSQL store opened for searching ([`ChunkStore`]).
//!
//! A search runs in one read-only transaction: the candidate statement of
//! [`crate::search::retrieve`], then one statement fetching the candidates' rows (and, when
//! shaping asks, their ancestors with their children counts and their documents' texts). What
//! follows — rerank, small-to-big, auto-merge, merge, one per document, the cut to `k` — is the
//! embedded index's own code ([`chunklab_index::seam::finish`]) over the fetched rows.

use crate::conn::{Pool, Target};
use crate::{schema, search};
use chunklab_index::seam::{self, Plan};
use chunklab_index::shape::ShapeSource;
use chunklab_index::store::ChunkRecord;
use chunklab_index::{ChunkStore, Error, Filter, Hit, Query, Settings};
use postgres::Row;
use std::collections::HashMap;

/// Columns read into a [`ChunkRecord`] (in [`record`]'s order).
const COLUMNS: &str = "key, chunk_id, doc_id, source, text, start_byte, end_byte, start_char, end_char, ord, tokens, headings, page, kind, language, symbol, level, parent_id, prefix, context";

fn record(r: &Row) -> ChunkRecord {
    let i64u = |i: usize| r.get::<_, i64>(i) as usize;
    ChunkRecord {
        key: r.get::<_, i64>(0) as u64,
        id: r.get(1),
        doc_id: r.get(2),
        source: r.get(3),
        text: r.get(4),
        start_byte: i64u(5),
        end_byte: i64u(6),
        start_char: i64u(7),
        end_char: i64u(8),
        index: r.get::<_, i32>(9) as usize,
        tokens: r.get::<_, i32>(10) as usize,
        headings: r.get(11),
        page: r.get::<_, Option<i32>>(12).map(|p| p as u32),
        kind: r.get(13),
        language: r.get(14),
        symbol: r.get(15),
        level: r.get::<_, Option<i32>>(16).map(|l| l as u32),
        parent_id: r.get(17),
        prefix: r.get(18),
        context: r.get(19),
        vector_hash: None,
    }
}

/// A PostgreSQL store opened for searching (a primary or a read replica).
pub struct PgStore {
    pool: Pool,
    settings: Settings,
    custom_fields: Vec<String>,
    hierarchical: bool,
    full_text: search::FullText,
}

impl PgStore {
    /// Open the store at `url` (read-only: a replica works; the schema must be this build's).
    pub fn open(url: &str) -> Result<PgStore, Error> {
        let pool = Pool::open(Target::parse(url)?)?;
        let shown = pool.target().shown().to_string();
        let version: Option<i32> = pool.with("schema version", |c| {
            let exists: bool = c
                .query_one("SELECT to_regclass('chunklab.migrations') IS NOT NULL", &[])?
                .get(0);
            if !exists {
                return Ok(None);
            }
            Ok(Some(
                c.query_one(
                    "SELECT coalesce(max(version), 0) FROM chunklab.migrations",
                    &[],
                )?
                .get(0),
            ))
        })?;
        let no_store = || {
            Error::Store(format!(
                "{shown}: no chunklab store in this database; build one with `chunklab index PATHS --store {shown}`"
            ))
        };
        match version {
            None => return Err(no_store()),
            Some(v) if v != schema::SCHEMA_VERSION => {
                return Err(Error::Mismatch(format!(
                    "{shown}: the chunklab schema is version {v}, this chunklab reads {}; run `chunklab index --store` with this chunklab to migrate it",
                    schema::SCHEMA_VERSION
                )))
            }
            Some(_) => {}
        }
        let settings = pool
            .with("settings", |c| {
                let row =
                    c.query_opt("SELECT settings FROM chunklab.settings WHERE id = 1", &[])?;
                Ok(row.map(|r| r.get::<_, serde_json::Value>(0)))
            })?
            .ok_or_else(no_store)?;
        let settings: Settings = serde_json::from_value(settings)
            .map_err(|e| Error::Store(format!("{shown}: chunklab.settings: {e}")))?;
        let (custom_fields, hierarchical) = pool.with("store fields", |c| {
            let fields: Vec<String> = c
                .query(
                    "SELECT DISTINCT jsonb_object_keys(metadata) AS f FROM chunklab.documents ORDER BY f",
                    &[],
                )?
                .iter()
                .map(|r| r.get(0))
                .collect();
            let h: bool = c
                .query_one(
                    "SELECT EXISTS (SELECT 1 FROM chunklab.chunks WHERE is_parent)",
                    &[],
                )?
                .get(0);
            Ok((fields, h))
        })?;
        Ok(PgStore {
            pool,
            settings,
            custom_fields,
            hierarchical,
            full_text: search::FullText::from_env(),
        })
    }

    /// Bound full-text ranking otherwise than the default ([`search::FullText`]; the
    /// environment can set it too, see [`search::FullText::from_env`]).
    pub fn with_full_text(mut self, full_text: search::FullText) -> PgStore {
        self.full_text = full_text;
        self
    }

    /// How full-text candidates are bounded.
    pub fn full_text(&self) -> &search::FullText {
        &self.full_text
    }

    /// The connection pool (a sharded store runs its statements on each shard's).
    pub(crate) fn pool(&self) -> &Pool {
        &self.pool
    }

    /// The store's custom metadata fields.
    pub(crate) fn custom_fields(&self) -> &[String] {
        &self.custom_fields
    }

    /// Fetch the candidates' rows and what shaping needs, in the read transaction.
    pub(crate) fn shape_source(
        tx: &mut postgres::Transaction<'_>,
        q: &Query,
        keys: &[i64],
    ) -> Result<Fetched, postgres::Error> {
        let mut f = Fetched::default();
        let rows = tx.query(
            &format!("SELECT {COLUMNS} FROM chunklab.chunks WHERE key = ANY($1)"),
            &[&keys],
        )?;
        f.add(rows.iter().map(record));
        if q.small_to_big || q.auto_merge.is_some() {
            let parents: Vec<String> = f
                .chunks
                .values()
                .filter_map(|c| c.parent_id.clone())
                .collect();
            let rows = tx.query(
                &format!(
                    "WITH RECURSIVE up AS (
                         SELECT {COLUMNS} FROM chunklab.chunks WHERE chunk_id = ANY($1)
                         UNION
                         SELECT {cols} FROM chunklab.chunks p JOIN up ON p.chunk_id = up.parent_id)
                     SELECT * FROM up",
                    cols = COLUMNS
                        .split(", ")
                        .map(|c| format!("p.{c}"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                &[&parents],
            )?;
            f.add(rows.iter().map(record));
            let ids: Vec<String> = f.ids.keys().cloned().collect();
            for r in tx.query(
                "SELECT parent_id, count(*) FROM chunklab.chunks WHERE parent_id = ANY($1) GROUP BY parent_id",
                &[&ids],
            )? {
                f.children
                    .insert(r.get(0), r.get::<_, i64>(1) as usize);
            }
        }
        if q.merge {
            let mut docs: Vec<String> = f.chunks.values().map(|c| c.doc_id.clone()).collect();
            docs.sort();
            docs.dedup();
            for r in tx.query(
                "SELECT doc_id, body FROM chunklab.documents WHERE doc_id = ANY($1)",
                &[&docs],
            )? {
                f.texts.insert(r.get(0), r.get(1));
            }
        }
        Ok(f)
    }
}

/// The rows a search fetched: the [`ShapeSource`] the shared shaping code runs over.
#[derive(Default)]
pub(crate) struct Fetched {
    chunks: HashMap<u64, ChunkRecord>,
    ids: HashMap<String, u64>,
    children: HashMap<String, usize>,
    texts: HashMap<String, String>,
}

impl Fetched {
    fn add(&mut self, records: impl Iterator<Item = ChunkRecord>) {
        for c in records {
            self.ids.insert(c.id.clone(), c.key);
            self.chunks.insert(c.key, c);
        }
    }

    /// Take in `other`'s rows with every key mapped by `key` (shard-local → global).
    pub(crate) fn absorb(&mut self, other: Fetched, key: impl Fn(u64) -> u64) {
        self.add(other.chunks.into_values().map(|mut c| {
            c.key = key(c.key);
            c
        }));
        self.children.extend(other.children);
        self.texts.extend(other.texts);
    }
}

impl ShapeSource for Fetched {
    fn chunk(&self, key: u64) -> Option<&ChunkRecord> {
        self.chunks.get(&key)
    }
    fn key_of(&self, chunk_id: &str) -> Option<u64> {
        self.ids.get(chunk_id).copied()
    }
    fn child_counts(&self) -> HashMap<String, usize> {
        self.children.clone()
    }
    fn doc_text(&self, doc_id: &str) -> Result<String, Error> {
        self.texts
            .get(doc_id)
            .cloned()
            .ok_or_else(|| Error::BadQuery(format!("no document `{doc_id}` in the store")))
    }
}

impl ChunkStore for PgStore {
    fn location(&self) -> String {
        self.pool.target().shown().to_string()
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn filter(&self, specs: &[String]) -> Result<Filter, Error> {
        Filter::parse(specs, &self.custom_fields)
    }

    fn is_hierarchical(&self) -> bool {
        self.hierarchical
    }

    fn search(&self, q: &Query) -> Result<Vec<Hit>, Error> {
        let vector = seam::check_query(q, &self.settings)?;
        // The database clamps every count itself (LIMIT), so the plan is not cut to a
        // collection size that would cost a count(*) per query.
        let plan = Plan::new(q, i64::MAX as usize);
        if plan.k == 0 {
            return Ok(Vec::new());
        }
        let (ranked, fetched) = self.pool.with("search", |c| {
            let mut tx = c.build_transaction().read_only(true).start()?;
            let ranked =
                search::retrieve_as(&mut tx, q, q.mode, vector, plan.depth, &self.full_text)?;
            let keys: Vec<i64> = ranked.iter().map(|r| r.key as i64).collect();
            let fetched = Self::shape_source(&mut tx, q, &keys)?;
            tx.commit()?;
            Ok((ranked, fetched))
        })?;
        seam::finish(q, plan, ranked, &fetched)
    }

    fn doc_lang(&self, doc_id: &str) -> Option<String> {
        self.pool
            .with("document language", |c| {
                Ok(c.query_opt(
                    "SELECT lang FROM chunklab.documents WHERE doc_id = $1",
                    &[&doc_id],
                )?
                .map(|r| r.get(0)))
            })
            .ok()
            .flatten()
    }

    fn counts(&self) -> Result<(usize, usize), Error> {
        self.pool.with("counting", |c| {
            let r = c.query_one(
                "SELECT (SELECT count(*) FROM chunklab.documents), (SELECT count(*) FROM chunklab.chunks)",
                &[],
            )?;
            Ok((r.get::<_, i64>(0) as usize, r.get::<_, i64>(1) as usize))
        })
    }
}
