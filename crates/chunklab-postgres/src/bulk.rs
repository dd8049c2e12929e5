//! Bulk loading: the indexes whose upkeep per row dominates ingest (HNSW over the embeddings,
//! GIN over the `tsvector`, the BM25 terms, the access groups and the metadata) are dropped while an empty or
//! nearly empty store is loaded, and built once afterwards.
//!
//! Maintaining an HNSW graph row by row costs a graph search per inserted chunk; GIN upkeep
//! adds a posting-list update per lexeme. Built once over the loaded table, the same indexes
//! take a fraction of that: pgvector builds the graph in memory (`maintenance_work_mem`, sized
//! here from the number of chunks and the dimension) with parallel workers
//! (`max_parallel_maintenance_workers`), and GIN sorts its postings.
//!
//! **Crash safety.** The indexes are dropped inside the first bulk commit's transaction, so
//! they disappear together with the first committed documents, never before. Every commit is
//! still one transaction of whole documents. `CREATE INDEX` is transactional: a crash during
//! the build leaves no half index, only a missing one, and [`ensure`] — run by every
//! [`crate::PgWriter::open`] after it has taken the writer lock — builds whatever index of
//! [`deferred`] is missing. Searches stay correct without the indexes (sequential scans), only
//! slower, until the next writer has built them.
//!
//! Tuning (environment of the writing process): `CHUNKLAB_PG_MAINTENANCE_WORK_MEM` (a
//! PostgreSQL memory value such as `8GB`; default: the HNSW graph's estimated size, between
//! 64 MB and 4 GB) and `CHUNKLAB_PG_BUILD_WORKERS` (parallel maintenance workers, default 4;
//! the server caps them at its `max_parallel_workers`).

use chunklab_index::HnswSettings;
use postgres::GenericClient;

/// An index built after a bulk load: its name (in schema `chunklab`) and its definition.
pub struct Deferred {
    /// The index name.
    pub name: &'static str,
    /// `CREATE INDEX …`.
    pub sql: String,
}

/// The HNSW index over the embeddings, with the store's graph settings.
pub fn embedding(hnsw: HnswSettings) -> Deferred {
    Deferred {
        name: "chunks_embedding",
        sql: format!(
            "CREATE INDEX chunks_embedding ON chunklab.chunks USING hnsw (embedding vector_ip_ops) WITH (m = {}, ef_construction = {})",
            hnsw.m, hnsw.ef_construction
        ),
    }
}

const OTHERS: [(&str, &str); 4] = [
    (
        "chunks_tsv",
        "CREATE INDEX chunks_tsv ON chunklab.chunks USING gin (tsv)",
    ),
    (
        "chunks_bm25",
        "CREATE INDEX chunks_bm25 ON chunklab.chunks USING gin (bm25)",
    ),
    (
        "chunks_acl",
        "CREATE INDEX chunks_acl ON chunklab.chunks USING gin (acl)",
    ),
    (
        "chunks_metadata",
        "CREATE INDEX chunks_metadata ON chunklab.chunks USING gin (metadata jsonb_path_ops)",
    ),
];

/// The indexes a bulk load drops and builds afterwards (the HNSW index, with `hnsw`, only when
/// the store has vectors: `dim > 0`).
pub fn deferred(dim: usize, hnsw: HnswSettings) -> Vec<Deferred> {
    let mut all = Vec::new();
    if dim > 0 {
        all.push(embedding(hnsw));
    }
    all.extend(OTHERS.iter().map(|(name, sql)| Deferred {
        name,
        sql: sql.to_string(),
    }));
    all
}

/// The chunk count from which a first commit of `pending` chunks into a store already holding
/// `existing` takes the bulk path: the load at least doubles the store.
pub fn is_bulk(existing: u64, pending: u64) -> bool {
    pending > 0 && pending >= existing
}

/// Drop the deferred indexes (inside the first bulk commit's transaction).
pub fn drop_indexes(c: &mut impl GenericClient, dim: usize) -> Result<(), postgres::Error> {
    for d in deferred(dim, HnswSettings::POSTGRES) {
        c.batch_execute(&format!("DROP INDEX IF EXISTS chunklab.{}", d.name))?;
    }
    Ok(())
}

/// The deferred indexes that do not exist.
pub fn missing(
    c: &mut impl GenericClient,
    dim: usize,
    hnsw: HnswSettings,
) -> Result<Vec<Deferred>, postgres::Error> {
    let present: Vec<String> = c
        .query(
            "SELECT indexname::text FROM pg_indexes WHERE schemaname = 'chunklab' AND tablename = 'chunks'",
            &[],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    Ok(deferred(dim, hnsw)
        .into_iter()
        .filter(|d| !present.iter().any(|p| p == d.name))
        .collect())
}

/// `maintenance_work_mem` for building the HNSW graph of `chunks` vectors of `dim` floats in
/// memory: the vector plus about 700 bytes of neighbour lists and bookkeeping per element,
/// 15 % slack, between 64 MB and 4 GB (in MB).
pub fn build_memory_mb(chunks: u64, dim: usize) -> u64 {
    let bytes = chunks.saturating_mul(4 * dim as u64 + 700) * 115 / 100;
    (bytes >> 20).clamp(64, 4096)
}

/// Build every missing deferred index, then `ANALYZE` the tables (the planner's and the
/// full-text search's statistics). Returns the names built. Idempotent: nothing missing,
/// nothing built (and no `ANALYZE`).
pub fn ensure(
    c: &mut impl GenericClient,
    dim: usize,
    hnsw: HnswSettings,
) -> Result<Vec<&'static str>, postgres::Error> {
    let todo = missing(c, dim, hnsw)?;
    if todo.is_empty() {
        return Ok(Vec::new());
    }
    let chunks: i64 = c
        .query_one("SELECT count(*) FROM chunklab.chunks", &[])?
        .get(0);
    let mem = std::env::var("CHUNKLAB_PG_MAINTENANCE_WORK_MEM")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .unwrap_or_else(|| format!("{}MB", build_memory_mb(chunks.max(0) as u64, dim)));
    let workers: u32 = std::env::var("CHUNKLAB_PG_BUILD_WORKERS")
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(4);
    // Session settings (set_config: the value is a parameter, never SQL text).
    c.execute(
        "SELECT set_config('maintenance_work_mem', $1, false), set_config('max_parallel_maintenance_workers', $2, false)",
        &[&mem, &workers.to_string()],
    )?;
    let mut built = Vec::new();
    for d in todo {
        c.batch_execute(&d.sql)?;
        built.push(d.name);
    }
    c.batch_execute(
        "RESET maintenance_work_mem; RESET max_parallel_maintenance_workers;
         ANALYZE chunklab.documents; ANALYZE chunklab.chunks;",
    )?;
    Ok(built)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bulk_when_the_load_at_least_doubles_the_store() {
        assert!(is_bulk(0, 10));
        assert!(is_bulk(100, 100));
        assert!(!is_bulk(101, 100));
        assert!(!is_bulk(0, 0));
    }

    #[test]
    fn build_memory_grows_with_the_graph_and_is_bounded() {
        assert_eq!(build_memory_mb(0, 384), 64);
        let m = build_memory_mb(1_000_000, 384);
        assert!((2000..2600).contains(&m), "{m}");
        assert_eq!(build_memory_mb(100_000_000, 384), 4096);
    }

    #[test]
    fn the_hnsw_index_is_deferred_only_with_vectors() {
        assert_eq!(deferred(0, HnswSettings::POSTGRES).len(), 4);
        let all = deferred(384, HnswSettings::new(24, 80).unwrap());
        assert_eq!(all[0].name, "chunks_embedding");
        assert!(all[0].sql.ends_with("WITH (m = 24, ef_construction = 80)"));
    }
}
