//! One entry point for every face's `--store` / `--index` value: a `postgres://` or
//! `postgresql://` URL opens PostgreSQL, a `postgres-cluster://` list of shards opens them all
//! ([`crate::shards`]), anything else is an index directory. The faces (the pipeline's
//! `Searcher`, `chunklab index`) call these and only see the Store seam.

use crate::conn::is_postgres_url;
use crate::{PgStore, PgWriter};
use chunklab_index::manifest::MANIFEST_FILE;
use chunklab_index::{ChunkStore, Error, Index, IndexWriter, Manifest, Settings, StoreWriter};
use std::path::Path;

/// Open a store for searching: PostgreSQL for a `postgres://` URL, else the index directory.
pub fn open_store(location: &str) -> Result<Box<dyn ChunkStore>, Error> {
    if location.starts_with(crate::shards::CLUSTER_SCHEME) {
        Ok(Box::new(crate::shards::ShardedStore::open(location)?))
    } else if is_postgres_url(location) {
        Ok(Box::new(PgStore::open(location)?))
    } else {
        Ok(Box::new(Index::open(Path::new(location))?))
    }
}

/// Open a PostgreSQL store (one server or a `postgres-cluster://` list) for writing.
pub fn open_pg_writer(
    location: &str,
    settings: Settings,
    rebuild: bool,
) -> Result<Box<dyn StoreWriter + Send>, Error> {
    if location.starts_with(crate::shards::CLUSTER_SCHEME) {
        Ok(Box::new(crate::shards::ShardedWriter::open(
            location, settings, rebuild,
        )?))
    } else {
        Ok(Box::new(PgWriter::open(location, settings, rebuild)?))
    }
}

/// Open a store for writing with `settings` (`rebuild`: empty it first).
pub fn open_writer(
    location: &str,
    settings: Settings,
    rebuild: bool,
) -> Result<Box<dyn StoreWriter>, Error> {
    if is_postgres_url(location) {
        Ok(open_pg_writer(location, settings, rebuild)?)
    } else {
        Ok(Box::new(IndexWriter::open(
            Path::new(location),
            settings,
            rebuild,
        )?))
    }
}

/// The settings of the store at `location` (of its first shard for a `postgres-cluster://`
/// list), or `None` when there is no store there yet (a missing or empty directory, a database
/// without chunklab's schema). Reads nothing else: no lock, no vectors.
pub fn stored_settings(location: &str) -> Result<Option<Settings>, Error> {
    if location.starts_with(crate::shards::CLUSTER_SCHEME) {
        let shards = crate::shards::parse_cluster(location)?;
        return stored_settings(&shards[0].primary);
    }
    if is_postgres_url(location) {
        let target = crate::conn::Target::parse(location)?;
        let mut client = target.connect()?;
        let exists: bool = client
            .query_one("SELECT to_regclass('chunklab.settings') IS NOT NULL", &[])
            .map_err(|e| Error::Store(format!("{}: reading settings: {e}", target.shown())))?
            .get(0);
        return match exists {
            true => crate::schema::read_settings(&mut client),
            false => Ok(None),
        };
    }
    let dir = Path::new(location);
    match dir.join(MANIFEST_FILE).exists() {
        true => Manifest::read(dir).map(|m| Some(m.settings)),
        false => Ok(None),
    }
}
