//! # chunklab-postgres
//!
//! PostgreSQL + pgvector as chunklab's second store, behind the index crate's Store seam
//! ([`chunklab_index::ChunkStore`] / [`chunklab_index::StoreWriter`]): the same documents,
//! chunks, filters and result shaping as the embedded index, in a database the team already
//! runs, which shards and replicates.
//!
//! * [`conn`] — libpq URLs (TCP or unix socket, `$PGPASSWORD`), connecting with backoff, a small
//!   pool that reconnects after a dropped connection;
//! * [`schema`] — versioned migrations (`documents`, `chunks` with `tsvector` and
//!   `vector(dim)` + HNSW, BM25 terms and statistics);
//! * [`bm25`] — BM25 as the embedded index scores it: chunks analyzed in Rust by its analyzer,
//!   exact document frequencies and lengths kept by triggers, the score in SQL;
//! * [`writer`] — [`PgWriter`]: whole documents per transaction, binary `COPY`, incremental by
//!   content hash;
//! * [`bulk`] — loading an empty store without the HNSW and GIN indexes, built once after it;
//! * [`filter`] — chunklab filters as SQL inside the candidate searches;
//! * [`search`] — dense, full-text and hybrid (RRF in one statement) retrieval;
//! * [`store`] — [`PgStore`]: search, then the embedded index's own rerank and shaping code;
//! * [`scratch`] — [`scratch::ScratchDatabase`]: a database per bench configuration, dropped after it;
//! * [`shards`] — a `postgres-cluster://` store: documents hash-partitioned over several
//!   servers, searches fanned out to every shard (its replica) and merged exactly;
//! * [`open`] — [`open_store`] / [`open_writer`]: a `postgres://` URL or an index directory,
//!   behind the seam, for every face's `--store`.
#![warn(missing_docs)]

pub mod bm25;
pub mod bulk;
pub mod conn;
pub mod filter;
pub mod open;
pub mod schema;
pub mod scratch;
pub mod search;
pub mod shards;
pub mod store;
pub mod writer;

pub use conn::is_postgres_url;
pub use open::{open_store, open_writer};
pub use store::PgStore;
pub use writer::PgWriter;
