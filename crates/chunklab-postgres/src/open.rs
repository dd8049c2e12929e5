//! One entry point for every face's `--store` / `--index` value: a `postgres://` or
//! `postgresql://` URL opens PostgreSQL, anything else is an index directory. The faces (the
//! pipeline's `Searcher`, `chunklab index`) call these and only see the Store seam.

use crate::conn::is_postgres_url;
use crate::{PgStore, PgWriter};
use chunklab_index::{ChunkStore, Error, Index, IndexWriter, Settings, StoreWriter};
use std::path::Path;

/// Open a store for searching: PostgreSQL for a `postgres://` URL, else the index directory.
pub fn open_store(location: &str) -> Result<Box<dyn ChunkStore>, Error> {
    if is_postgres_url(location) {
        Ok(Box::new(PgStore::open(location)?))
    } else {
        Ok(Box::new(Index::open(Path::new(location))?))
    }
}

/// Open a store for writing with `settings` (`rebuild`: empty it first).
pub fn open_writer(
    location: &str,
    settings: Settings,
    rebuild: bool,
) -> Result<Box<dyn StoreWriter>, Error> {
    if is_postgres_url(location) {
        Ok(Box::new(PgWriter::open(location, settings, rebuild)?))
    } else {
        Ok(Box::new(IndexWriter::open(
            Path::new(location),
            settings,
            rebuild,
        )?))
    }
}
