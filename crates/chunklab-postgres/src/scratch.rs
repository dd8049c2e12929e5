//! Databases made for one job and dropped after it: `chunklab bench --store URL` builds each
//! configuration's collection in a database of its own on the server `URL` names, so
//! configurations never see each other's chunks, and nothing is left behind.

use crate::conn::Target;
use chunklab_index::Error;
use std::sync::atomic::{AtomicUsize, Ordering};

static NEXT: AtomicUsize = AtomicUsize::new(0);

/// Bytes of a chunklab database, by part (see [`ScratchDatabase::bytes`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StoreBytes {
    /// The `embedding` column and its HNSW index.
    pub vectors: u64,
    /// The `tsv` column and its GIN index.
    pub fulltext: u64,
    /// The whole database.
    pub total: u64,
}

/// A database created on the server of a URL (whose own database is used to create and drop
/// it), dropped again when this value is dropped.
#[derive(Debug)]
pub struct ScratchDatabase {
    admin: Target,
    name: String,
    url: String,
}

impl ScratchDatabase {
    /// Create an empty database, named `chunklab_scratch_<pid>_<n>`, on `url`'s server. The
    /// user needs the CREATEDB privilege.
    pub fn create(url: &str) -> Result<ScratchDatabase, Error> {
        let admin = Target::parse(url)?;
        let name = format!(
            "chunklab_scratch_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let mut client = admin.connect()?;
        // One statement per call: DROP/CREATE DATABASE cannot run inside a transaction block.
        for sql in [
            format!("DROP DATABASE IF EXISTS {name}"),
            format!("CREATE DATABASE {name}"),
        ] {
            client.batch_execute(&sql).map_err(|e| {
                Error::Store(format!(
                    "PostgreSQL at {}: cannot create the scratch database {name}: {} (the user must be allowed to create databases)",
                    admin.shown(),
                    crate::conn::cause(&e)
                ))
            })?;
        }
        let url = with_database(url, &name);
        Ok(ScratchDatabase { admin, name, url })
    }

    /// The URL of the scratch database (the given URL with its database replaced).
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The database's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its size on disk by part: the vectors (the `embedding` column and its HNSW index), the
    /// full text (the `tsv` column and its GIN index), and the whole database
    /// (`pg_database_size`, which includes both and PostgreSQL's own catalogs).
    pub fn bytes(&self) -> Result<StoreBytes, Error> {
        let fail = |e: postgres::Error| {
            Error::Store(format!("size of {}: {}", self.name, crate::conn::cause(&e)))
        };
        let total: i64 = self
            .admin
            .connect()?
            .query_one("SELECT pg_database_size($1)::bigint", &[&self.name])
            .map_err(fail)?
            .get(0);
        let mut client = Target::parse(&self.url)?.connect()?;
        // A store without a model (BM25 only) has no `embedding` column.
        let has_vectors: bool = client
            .query_one(
                "SELECT EXISTS (SELECT 1 FROM information_schema.columns
                 WHERE table_schema = 'chunklab' AND table_name = 'chunks' AND column_name = 'embedding')",
                &[],
            )
            .map_err(fail)?
            .get(0);
        let embedding = if has_vectors {
            "coalesce(sum(pg_column_size(embedding)), 0)"
        } else {
            "0"
        };
        let row = client
            .query_one(
                &format!(
                    "SELECT ({embedding}
                             + coalesce(pg_relation_size(to_regclass('chunklab.chunks_embedding')), 0))::bigint,
                            (coalesce(sum(pg_column_size(tsv)), 0)
                             + coalesce(pg_relation_size(to_regclass('chunklab.chunks_tsv')), 0))::bigint
                     FROM chunklab.chunks"
                ),
                &[],
            )
            .map_err(fail)?;
        let (vectors, fulltext): (i64, i64) = (row.get(0), row.get(1));
        Ok(StoreBytes {
            vectors: vectors.max(0) as u64,
            fulltext: fulltext.max(0) as u64,
            total: total.max(0) as u64,
        })
    }
}

impl Drop for ScratchDatabase {
    fn drop(&mut self) {
        // WITH (FORCE) ends sessions the job left open (a pool's idle connections).
        if let Ok(mut client) = self.admin.connect() {
            if let Err(e) = client.batch_execute(&format!(
                "DROP DATABASE IF EXISTS {} WITH (FORCE)",
                self.name
            )) {
                eprintln!(
                    "warning: could not drop the scratch database {} on {}: {}",
                    self.name,
                    self.admin.shown(),
                    crate::conn::cause(&e)
                );
            }
        }
    }
}

/// `url` with its database replaced by `db` (host, port, user and query string kept).
///
/// ```
/// use chunklab_postgres::scratch::with_database;
/// assert_eq!(with_database("postgres://u@h:5433/a?sslmode=disable", "b"), "postgres://u@h:5433/b?sslmode=disable");
/// assert_eq!(with_database("postgresql:///a?host=/run/postgresql", "b"), "postgresql:///b?host=/run/postgresql");
/// assert_eq!(with_database("postgres://u@h", "b"), "postgres://u@h/b");
/// ```
pub fn with_database(url: &str, db: &str) -> String {
    let (base, query) = url
        .split_once('?')
        .map_or((url, None), |(b, q)| (b, Some(q)));
    let (scheme, rest) = base.split_once("://").unwrap_or(("postgres", base));
    let host = rest.split('/').next().unwrap_or_default();
    match query {
        Some(q) => format!("{scheme}://{host}/{db}?{q}"),
        None => format!("{scheme}://{host}/{db}"),
    }
}
