//! The schema, created and migrated by chunklab: versioned migrations applied in order, each in
//! its own transaction under an advisory lock (two processes opening a new database at once do
//! not race), recorded in `chunklab.migrations`. A database whose schema is newer than this
//! build is refused.
//!
//! Everything lives in the schema `chunklab` of the database the URL names:
//!
//! * `settings` — one row: the index settings (chunker, model, dimension, language) as jsonb;
//! * `documents` — one row per document: id, source, content hash (incremental indexing), BM25
//!   language, access groups, metadata jsonb, the full text (merged spans and parents are cut
//!   from it), the number of chunks (a whole-document check);
//! * `chunks` — one row per chunk: key, id, document, span offsets, text, prefix and context,
//!   headings, page, kind/language/symbol, hierarchy level and parent id, the document's access
//!   groups, source, language and metadata copied in (so that filters are evaluated on the
//!   table the candidate search scans), a `tsvector` generated from context + headings + text
//!   with the document's `dutch` or `english` text-search configuration, and `embedding
//!   vector(dim)` with an HNSW index (`vector_ip_ops`: vectors are L2-normalized, so inner
//!   product is cosine similarity, as in the embedded index), and the chunk's BM25 terms
//!   (`bm25` jsonb, `bm25_len`, `bm25_norm`, see [`crate::bm25`]) with a GIN index;
//! * `bm25_terms`, `bm25_fields` — BM25's document frequencies and field lengths, kept exact
//!   by statement triggers on `chunks` (version 3).
//!
//! `doc_id` is the distribution key: both tables are keyed by it first, so they can be
//! distributed and co-located by it (Citus `create_distributed_table('chunklab.chunks',
//! 'doc_id', colocate_with => 'chunklab.documents')`) and chunklab's own sharding hashes it.

use chunklab_index::{Error, HnswSettings, Settings};
use postgres::Client;

/// The schema version this build writes and reads.
pub const SCHEMA_VERSION: i32 = 3;

/// Advisory lock key for migrations (`chunklab` in ASCII).
const MIGRATION_LOCK: i64 = 0x6368_756e_6b6c_6162;

/// Migrations, in order: (version, what it does, SQL).
pub const MIGRATIONS: &[(i32, &str, &str)] = &[
    (
        1,
        "documents and chunks",
        r#"
CREATE EXTENSION IF NOT EXISTS vector;
CREATE TABLE chunklab.settings (
    id int PRIMARY KEY CHECK (id = 1),
    settings jsonb NOT NULL
);
CREATE TABLE chunklab.documents (
    doc_id text PRIMARY KEY,
    source text NOT NULL,
    content_hash text NOT NULL,
    lang text NOT NULL,
    acl text[] NOT NULL DEFAULT '{}',
    metadata jsonb NOT NULL DEFAULT '{}',
    body text NOT NULL,
    chunk_count int NOT NULL,
    indexed_at timestamptz NOT NULL DEFAULT now()
);
CREATE SEQUENCE chunklab.chunk_key;
CREATE TABLE chunklab.chunks (
    doc_id text NOT NULL REFERENCES chunklab.documents (doc_id) ON DELETE CASCADE,
    key bigint NOT NULL DEFAULT nextval('chunklab.chunk_key'),
    chunk_id text NOT NULL,
    ord int NOT NULL,
    start_byte bigint NOT NULL,
    end_byte bigint NOT NULL,
    start_char bigint NOT NULL,
    end_char bigint NOT NULL,
    tokens int NOT NULL,
    text text NOT NULL,
    prefix text,
    context text,
    headings text[] NOT NULL DEFAULT '{}',
    heading_path text NOT NULL DEFAULT '',
    page int,
    kind text,
    language text,
    symbol text,
    level int,
    parent_id text,
    is_parent boolean NOT NULL DEFAULT false,
    source text NOT NULL,
    lang text NOT NULL,
    acl text[] NOT NULL DEFAULT '{}',
    metadata jsonb NOT NULL DEFAULT '{}',
    tsv tsvector GENERATED ALWAYS AS (
        to_tsvector(
            CASE WHEN lang = 'nl' THEN 'dutch'::regconfig ELSE 'english'::regconfig END,
            coalesce(context, '') || E'\n' || heading_path || E'\n' || text)
    ) STORED,
    PRIMARY KEY (doc_id, key)
);
CREATE UNIQUE INDEX chunks_key ON chunklab.chunks (key);
CREATE INDEX chunks_chunk_id ON chunklab.chunks (chunk_id);
CREATE INDEX chunks_tsv ON chunklab.chunks USING gin (tsv);
CREATE INDEX chunks_acl ON chunklab.chunks USING gin (acl);
"#,
    ),
    (
        2,
        "parent lookups and metadata filters",
        r#"
CREATE INDEX chunks_parent ON chunklab.chunks (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX chunks_metadata ON chunklab.chunks USING gin (metadata jsonb_path_ops);
CREATE INDEX documents_acl ON chunklab.documents USING gin (acl);
"#,
    ),
    (
        3,
        "BM25: chunk terms (analyzed in Rust) and exact statistics kept by triggers",
        r#"
ALTER TABLE chunklab.chunks ADD COLUMN bm25 jsonb, ADD COLUMN bm25_len int, ADD COLUMN bm25_norm int;
CREATE INDEX chunks_bm25 ON chunklab.chunks USING gin (bm25);
CREATE TABLE chunklab.bm25_terms (term text PRIMARY KEY, df bigint NOT NULL);
CREATE TABLE chunklab.bm25_fields (field text PRIMARY KEY, docs bigint NOT NULL, tokens bigint NOT NULL);
CREATE FUNCTION chunklab.bm25_added() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    INSERT INTO chunklab.bm25_terms AS s (term, df)
        SELECT k, count(*) FROM new_rows n, jsonb_object_keys(n.bm25) k GROUP BY k ORDER BY k
        ON CONFLICT (term) DO UPDATE SET df = s.df + excluded.df;
    INSERT INTO chunklab.bm25_fields AS s (field, docs, tokens)
        SELECT CASE WHEN lang = 'nl' THEN 'nl' ELSE 'en' END, count(*), coalesce(sum(bm25_len), 0)
        FROM new_rows GROUP BY 1 ORDER BY 1
        ON CONFLICT (field) DO UPDATE SET docs = s.docs + excluded.docs, tokens = s.tokens + excluded.tokens;
    RETURN NULL;
END $f$;
CREATE FUNCTION chunklab.bm25_removed() RETURNS trigger LANGUAGE plpgsql AS $f$
BEGIN
    UPDATE chunklab.bm25_terms s SET df = s.df - d.n
        FROM (SELECT k, count(*) AS n FROM old_rows o, jsonb_object_keys(o.bm25) k GROUP BY k) d
        WHERE s.term = d.k;
    DELETE FROM chunklab.bm25_terms s
        USING (SELECT DISTINCT k FROM old_rows o, jsonb_object_keys(o.bm25) k) d
        WHERE s.term = d.k AND s.df <= 0;
    UPDATE chunklab.bm25_fields s SET docs = s.docs - d.n, tokens = s.tokens - d.t
        FROM (SELECT CASE WHEN lang = 'nl' THEN 'nl' ELSE 'en' END AS f, count(*) AS n, coalesce(sum(bm25_len), 0) AS t
              FROM old_rows GROUP BY 1) d
        WHERE s.field = d.f;
    RETURN NULL;
END $f$;
CREATE TRIGGER chunks_bm25_added AFTER INSERT ON chunklab.chunks
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION chunklab.bm25_added();
CREATE TRIGGER chunks_bm25_removed AFTER DELETE ON chunklab.chunks
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION chunklab.bm25_removed();
"#,
    ),
];

fn sql_err(what: &str) -> impl Fn(postgres::Error) -> Error + '_ {
    move |e| Error::Store(format!("{what}: {}", crate::conn::cause(&e)))
}

/// Bring the schema to [`SCHEMA_VERSION`]; returns the migrations applied now.
pub fn migrate(client: &mut Client) -> Result<Vec<i32>, Error> {
    let mut applied = Vec::new();
    let mut tx = client.transaction().map_err(sql_err("migrations"))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .map_err(sql_err("migration lock"))?;
    tx.batch_execute(
        "CREATE SCHEMA IF NOT EXISTS chunklab;
         CREATE TABLE IF NOT EXISTS chunklab.migrations (
             version int PRIMARY KEY, description text NOT NULL,
             applied_at timestamptz NOT NULL DEFAULT now())",
    )
    .map_err(sql_err("migrations table"))?;
    let current: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM chunklab.migrations",
            &[],
        )
        .map_err(sql_err("schema version"))?
        .get(0);
    if current > SCHEMA_VERSION {
        return Err(Error::Mismatch(format!(
            "the database's chunklab schema is version {current}, newer than this chunklab ({SCHEMA_VERSION}); upgrade chunklab"
        )));
    }
    for (version, description, sql) in MIGRATIONS {
        if *version <= current {
            continue;
        }
        tx.batch_execute(sql).map_err(|e| {
            Error::Store(format!(
                "migration {version} ({description}): {}",
                crate::conn::cause(&e)
            ))
        })?;
        tx.execute(
            "INSERT INTO chunklab.migrations (version, description) VALUES ($1, $2)",
            &[version, description],
        )
        .map_err(sql_err("recording a migration"))?;
        applied.push(*version);
    }
    if applied.contains(&3) {
        // Chunks written before version 3 get their terms (analyzed here, in Rust) and the
        // statistics are computed once; a new store has nothing to analyze.
        crate::bm25::backfill(&mut tx).map_err(sql_err("analyzing the chunks for BM25"))?;
    }
    tx.commit().map_err(sql_err("migrations"))?;
    Ok(applied)
}

/// The settings the store was created with, if any.
pub fn read_settings(client: &mut Client) -> Result<Option<Settings>, Error> {
    let row = client
        .query_opt("SELECT settings FROM chunklab.settings WHERE id = 1", &[])
        .map_err(sql_err("reading settings"))?;
    row.map(|r| {
        let v: serde_json::Value = r.get(0);
        let mut s: Settings = serde_json::from_value(v).map_err(|e| {
            Error::Store(format!("chunklab.settings is not chunklab's settings: {e}"))
        })?;
        match s.hnsw {
            // Recorded before the graph's settings were: built with pgvector's defaults.
            None => s.hnsw = Some(HnswSettings::POSTGRES),
            Some(h) => {
                HnswSettings::new(h.m, h.ef_construction).map_err(|why| {
                    Error::Store(format!(
                        "chunklab.settings: the HNSW settings are out of range: {why}"
                    ))
                })?;
            }
        }
        Ok(s)
    })
    .transpose()
}

/// Record `settings` over the store's equal ones: the configuration of the last run
/// ([`Settings::run`]) changes, nothing stored does.
pub fn record_run(client: &mut Client, settings: &Settings) -> Result<(), Error> {
    let json =
        serde_json::to_value(settings).map_err(|e| Error::Store(format!("settings: {e}")))?;
    client
        .execute(
            "UPDATE chunklab.settings SET settings = $1 WHERE id = 1",
            &[&json],
        )
        .map_err(sql_err("writing settings"))?;
    Ok(())
}

/// Record the settings and give `chunks` its `embedding vector(dim)` column and HNSW index
/// (`m`, `ef_construction` from `settings.hnsw`, else pgvector's defaults). Everything already stored is removed: a
/// store holds chunks of one chunker and one model.
pub fn init_settings(client: &mut Client, settings: &Settings) -> Result<(), Error> {
    let json =
        serde_json::to_value(settings).map_err(|e| Error::Store(format!("settings: {e}")))?;
    let mut tx = client.transaction().map_err(sql_err("settings"))?;
    tx.batch_execute(
        "TRUNCATE chunklab.chunks, chunklab.documents, chunklab.bm25_terms, chunklab.bm25_fields;
         DROP INDEX IF EXISTS chunklab.chunks_embedding;
         ALTER TABLE chunklab.chunks DROP COLUMN IF EXISTS embedding;",
    )
    .map_err(sql_err("emptying the store"))?;
    if settings.dim > 0 {
        tx.batch_execute(&format!(
            "ALTER TABLE chunklab.chunks ADD COLUMN embedding vector({dim}) NOT NULL; {index};",
            dim = settings.dim,
            index = crate::bulk::embedding(settings.hnsw.unwrap_or(HnswSettings::POSTGRES)).sql
        ))
        .map_err(sql_err("the vector column"))?;
    }
    tx.execute(
        "INSERT INTO chunklab.settings (id, settings) VALUES (1, $1)
         ON CONFLICT (id) DO UPDATE SET settings = excluded.settings",
        &[&json],
    )
    .map_err(sql_err("writing settings"))?;
    tx.commit().map_err(sql_err("settings"))
}
