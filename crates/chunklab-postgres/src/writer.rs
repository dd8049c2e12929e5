//! [`PgWriter`]: whole documents into PostgreSQL, one transaction per commit.
//!
//! Added and removed documents wait in memory until [`StoreWriter::commit`], which runs one
//! transaction: the documents' old rows are deleted (chunks cascade), the new `documents` rows
//! and then all their `chunks` rows are sent with binary `COPY`, and the transaction commits. A
//! killed client or server (kill -9) therefore leaves every document with all of its chunks or
//! none of them. A connection lost during a commit is reconnected with backoff and the whole
//! transaction run again (it is idempotent: delete, then insert the same rows).
//!
//! One writer at a time: the writer holds a session advisory lock; a second `chunklab index` on
//! the same store is refused (readers are never blocked).
//!
//! **Bulk path.** When the first commit at least doubles the store (an empty store being
//! loaded, or a nearly empty one), that commit's transaction also drops the HNSW and GIN
//! indexes, the following commits COPY without their upkeep, and [`StoreWriter::finish`]
//! builds them once ([`crate::bulk`]). Later runs on the filled store take the incremental
//! path (index upkeep per row). A writer that never finished leaves the indexes missing; the
//! next [`PgWriter::open`] builds them before it writes anything.

use crate::conn::{cause, is_connection_lost, Target};
use crate::schema;
use chunklab_core::Lang;
use chunklab_index::{Error, HnswSettings, NewDocument, Refusal, Settings, StoreKind, StoreWriter};
use pgvector::Vector;
use postgres::binary_copy::BinaryCopyInWriter;
use postgres::types::{ToSql, Type};
use postgres::Client;
use std::collections::{BTreeMap, HashSet};

/// Advisory lock key of the single writer (`chunkwri` in ASCII).
const WRITER_LOCK: i64 = 0x6368_756e_6b77_7269;

/// The single writer of a PostgreSQL store.
pub struct PgWriter {
    target: Target,
    client: Client,
    settings: Settings,
    /// Content hash of every document, committed or pending.
    hashes: BTreeMap<String, String>,
    /// Documents waiting for the commit, by id (a later add replaces an earlier one).
    pending: BTreeMap<String, NewDocument>,
    /// Ids to delete at the commit (removed, or replaced by a pending document).
    removed: HashSet<String>,
    /// The `vector` type's OID in this database (an extension type).
    vector_type: Option<Type>,
    /// Chunks in the store when it was opened.
    existing_chunks: u64,
    /// Whether this writer loads without the deferred indexes.
    bulk: BulkState,
}

/// Whether a writer may take the bulk path ([`crate::bulk`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BulkMode {
    /// Take it when the first commit at least doubles the store (the default).
    Auto,
    /// Never: keep the indexes and their upkeep per row (the incremental path).
    Never,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BulkState {
    /// Nothing committed yet: decided at the first commit.
    Undecided(BulkMode),
    /// Indexes kept.
    Incremental,
    /// Indexes dropped; built at `finish`.
    Bulk,
}

fn err(target: &Target, what: &str) -> impl Fn(postgres::Error) -> Error {
    let shown = target.shown().to_string();
    let what = what.to_string();
    move |e| Error::Store(format!("PostgreSQL at {shown}: {what}: {}", cause(&e)))
}

impl PgWriter {
    /// Open the store at `url` for writing: migrate the schema, record `settings` when the store
    /// is new (or `rebuild`), refuse other settings than the store's, take the writer lock.
    pub fn open(url: &str, settings: Settings, rebuild: bool) -> Result<PgWriter, Error> {
        let target = Target::parse(url)?;
        let mut client = target.connect()?;
        schema::migrate(&mut client)?;
        lock(&target, &mut client)?;
        let mut settings = settings;
        match schema::read_settings(&mut client)? {
            Some(s) if !rebuild => {
                if let Some(mismatch) = s.mismatch(&settings) {
                    return Err(Error::Refused(Refusal {
                        location: target.shown().to_string(),
                        mismatch,
                        store: StoreKind::Postgres,
                    }));
                }
                // A run that names no graph settings takes the store's.
                settings.hnsw = s.hnsw;
                if settings.run.is_some() && settings.run != s.run {
                    schema::record_run(&mut client, &settings)?;
                }
            }
            _ => {
                settings.hnsw.get_or_insert(HnswSettings::POSTGRES);
                schema::init_settings(&mut client, &settings)?
            }
        }
        let hnsw = settings.hnsw.unwrap_or(HnswSettings::POSTGRES);
        // A bulk load that did not finish (killed, or its index build interrupted) left
        // indexes missing: build them before anything else is written.
        crate::bulk::ensure(&mut client, settings.dim, hnsw).map_err(err(
            &target,
            "building the indexes a bulk load left missing",
        ))?;
        let existing: i64 = client
            .query_one("SELECT count(*) FROM chunklab.chunks", &[])
            .map_err(err(&target, "counting chunks"))?
            .get(0);
        let hashes = client
            .query("SELECT doc_id, content_hash FROM chunklab.documents", &[])
            .map_err(err(&target, "reading document hashes"))?
            .into_iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        let vector_type = vector_type(&target, &mut client, &settings)?;
        Ok(PgWriter {
            target,
            client,
            settings,
            hashes,
            pending: BTreeMap::new(),
            removed: HashSet::new(),
            vector_type,
            existing_chunks: existing.max(0) as u64,
            bulk: BulkState::Undecided(BulkMode::Auto),
        })
    }

    /// Choose whether this writer may take the bulk path (before its first commit).
    pub fn with_bulk(mut self, mode: BulkMode) -> PgWriter {
        if let BulkState::Undecided(_) = self.bulk {
            self.bulk = BulkState::Undecided(mode);
        }
        self
    }

    /// Whether this writer loads without the HNSW and GIN indexes (decided at its first
    /// commit; they are built by [`StoreWriter::finish`]).
    pub fn is_bulk(&self) -> bool {
        self.bulk == BulkState::Bulk
    }

    fn check(&self, doc: &NewDocument) -> Result<(), Error> {
        if let Some(problem) = doc.problem(self.settings.dim, "store") {
            return Err(Error::BadDocument(problem));
        }
        // pgvector refuses NaN and infinity; name the chunk instead of failing the COPY.
        for (i, c) in doc.chunks.iter().enumerate() {
            if c.vector.iter().any(|x| !x.is_finite()) {
                return Err(Error::BadDocument(format!(
                    "document `{}`: chunk {i} has a vector with NaN or infinity",
                    doc.doc_id
                )));
            }
        }
        Ok(())
    }

    /// The transaction of one commit.
    fn write(&mut self) -> Result<(), postgres::Error> {
        let ids: Vec<&str> = self.removed.iter().map(String::as_str).collect();
        let bulk = match self.bulk {
            BulkState::Undecided(BulkMode::Auto) => {
                let pending: usize = self.pending.values().map(|d| d.chunks.len()).sum();
                crate::bulk::is_bulk(self.existing_chunks, pending as u64)
            }
            state => state == BulkState::Bulk,
        };
        let mut tx = self.client.transaction()?;
        if bulk {
            // In the transaction of the first documents: a crash before its commit keeps
            // the indexes, one after it leaves them to the next writer's `ensure`.
            crate::bulk::drop_indexes(&mut tx, self.settings.dim)?;
        }
        tx.execute(
            "DELETE FROM chunklab.documents WHERE doc_id = ANY($1)",
            &[&ids],
        )?;
        let doc_types = [
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT_ARRAY,
            Type::JSONB,
            Type::TEXT,
            Type::INT4,
        ];
        let sink = tx.copy_in(
            "COPY chunklab.documents (doc_id, source, content_hash, lang, acl, metadata, body, chunk_count) FROM STDIN (FORMAT binary)",
        )?;
        let mut w = BinaryCopyInWriter::new(sink, &doc_types);
        let mut langs = BTreeMap::new();
        for d in self.pending.values() {
            let lang = doc_lang(&self.settings, &d.text);
            langs.insert(d.doc_id.as_str(), lang);
            let meta = serde_json::to_value(&d.fields).unwrap_or_default();
            let n = d.chunks.len() as i32;
            w.write(&[
                &d.doc_id, &d.source, &d.hash, &lang, &d.acl, &meta, &d.text, &n,
            ])?;
        }
        w.finish()?;
        let mut chunk_types = vec![
            Type::TEXT,       // doc_id
            Type::TEXT,       // chunk_id
            Type::INT4,       // ord
            Type::INT8,       // start_byte
            Type::INT8,       // end_byte
            Type::INT8,       // start_char
            Type::INT8,       // end_char
            Type::INT4,       // tokens
            Type::TEXT,       // text
            Type::TEXT,       // prefix
            Type::TEXT,       // context
            Type::TEXT_ARRAY, // headings
            Type::TEXT,       // heading_path
            Type::INT4,       // page
            Type::TEXT,       // kind
            Type::TEXT,       // language
            Type::TEXT,       // symbol
            Type::INT4,       // level
            Type::TEXT,       // parent_id
            Type::BOOL,       // is_parent
            Type::TEXT,       // source
            Type::TEXT,       // lang
            Type::TEXT_ARRAY, // acl
            Type::JSONB,      // metadata
            Type::JSONB,      // bm25
            Type::INT4,       // bm25_len
            Type::INT4,       // bm25_norm
        ];
        let mut columns = "doc_id, chunk_id, ord, start_byte, end_byte, start_char, end_char, tokens, text, prefix, context, headings, heading_path, page, kind, language, symbol, level, parent_id, is_parent, source, lang, acl, metadata, bm25, bm25_len, bm25_norm".to_string();
        if let Some(t) = &self.vector_type {
            chunk_types.push(t.clone());
            columns.push_str(", embedding");
        }
        let sink = tx.copy_in(&format!(
            "COPY chunklab.chunks ({columns}) FROM STDIN (FORMAT binary)"
        ))?;
        let mut w = BinaryCopyInWriter::new(sink, &chunk_types);
        for d in self.pending.values() {
            let parents: HashSet<&str> = d
                .chunks
                .iter()
                .filter_map(|c| c.meta.parent_id.as_deref())
                .collect();
            let meta = serde_json::to_value(&d.fields).unwrap_or_default();
            let lang = langs[d.doc_id.as_str()];
            for c in &d.chunks {
                let ord = c.index as i32;
                let (sb, eb) = (c.start_byte as i64, c.end_byte as i64);
                let (sc, ec) = (c.start_char as i64, c.end_char as i64);
                let tokens = c.tokens as i32;
                let text = &d.text[c.start_byte..c.end_byte];
                let page = c.meta.page.map(|p| p as i32);
                let level = c.meta.level.map(|l| l as i32);
                let is_parent = parents.contains(c.id.as_str());
                let heading_path = c.meta.headings.join(" / ");
                let vector = Vector::from(c.vector.clone());
                // BM25 terms by the embedded index's analyzer (crate::bm25); the statistics
                // follow by trigger in this transaction.
                let terms = crate::bm25::chunk_terms(
                    lang,
                    c.meta.context.as_deref(),
                    &c.meta.headings,
                    text,
                );
                let mut row: Vec<&(dyn ToSql + Sync)> = vec![
                    &d.doc_id,
                    &c.id,
                    &ord,
                    &sb,
                    &eb,
                    &sc,
                    &ec,
                    &tokens,
                    &text,
                    &c.meta.prefix,
                    &c.meta.context,
                    &c.meta.headings,
                    &heading_path,
                    &page,
                    &c.meta.kind,
                    &c.meta.language,
                    &c.meta.symbol,
                    &level,
                    &c.meta.parent_id,
                    &is_parent,
                    &d.source,
                    &lang,
                    &d.acl,
                    &meta,
                    &terms.terms,
                    &terms.len,
                    &terms.norm,
                ];
                if self.vector_type.is_some() {
                    row.push(&vector);
                }
                w.write(&row)?;
            }
        }
        w.finish()?;
        tx.commit()?;
        self.bulk = if bulk {
            BulkState::Bulk
        } else {
            BulkState::Incremental
        };
        Ok(())
    }

    /// Reconnect after a lost connection (with backoff) and take the writer lock again.
    fn reconnect(&mut self) -> Result<(), Error> {
        let mut client = self.target.connect()?;
        lock(&self.target, &mut client)?;
        self.vector_type = vector_type(&self.target, &mut client, &self.settings)?;
        self.client = client;
        Ok(())
    }
}

/// The language a document's full text is analyzed with, as the embedded index decides it.
fn doc_lang(settings: &Settings, text: &str) -> &'static str {
    match settings.lang.as_str() {
        "nl" => "nl",
        "en" => "en",
        _ => Lang::Auto.resolve(text).code(),
    }
}

fn lock(target: &Target, client: &mut Client) -> Result<(), Error> {
    let got: bool = client
        .query_one("SELECT pg_try_advisory_lock($1)", &[&WRITER_LOCK])
        .map_err(err(target, "writer lock"))?
        .get(0);
    if !got {
        return Err(Error::Store(format!(
            "PostgreSQL at {}: another `chunklab index` is writing to this store; wait for it to finish (searches are not blocked)",
            target.shown()
        )));
    }
    Ok(())
}

fn vector_type(
    target: &Target,
    client: &mut Client,
    settings: &Settings,
) -> Result<Option<Type>, Error> {
    if settings.dim == 0 {
        return Ok(None);
    }
    let stmt = client
        .prepare("SELECT $1::vector")
        .map_err(err(target, "the vector type (is pgvector installed?)"))?;
    Ok(stmt.params().first().cloned())
}

impl StoreWriter for PgWriter {
    fn location(&self) -> String {
        self.target.shown().to_string()
    }

    fn settings(&self) -> &Settings {
        &self.settings
    }

    fn document_hash(&self, doc_id: &str) -> Option<String> {
        self.hashes.get(doc_id).cloned()
    }

    fn doc_ids(&self) -> Vec<String> {
        self.hashes.keys().cloned().collect()
    }

    fn add_document(&mut self, doc: NewDocument) -> Result<(), Error> {
        self.check(&doc)?;
        self.hashes.insert(doc.doc_id.clone(), doc.hash.clone());
        self.removed.insert(doc.doc_id.clone());
        self.pending.insert(doc.doc_id.clone(), doc);
        Ok(())
    }

    fn remove_document(&mut self, doc_id: &str) -> Result<bool, Error> {
        let was = self.hashes.remove(doc_id).is_some();
        self.pending.remove(doc_id);
        self.removed.insert(doc_id.to_string());
        Ok(was)
    }

    fn commit(&mut self) -> Result<(), Error> {
        if self.removed.is_empty() && self.pending.is_empty() {
            return Ok(());
        }
        let mut retried = 0;
        loop {
            match self.write() {
                Ok(()) => break,
                Err(e) if is_connection_lost(&e) && retried < 2 => {
                    retried += 1;
                    self.reconnect()?;
                }
                Err(e) => {
                    return Err(Error::Store(format!(
                        "PostgreSQL at {}: writing {} documents: {}",
                        self.target.shown(),
                        self.pending.len(),
                        cause(&e)
                    )))
                }
            }
        }
        self.pending.clear();
        self.removed.clear();
        Ok(())
    }

    fn finish(mut self: Box<Self>) -> Result<(usize, usize), Error> {
        self.commit()?;
        let target = self.target.clone();
        if self.bulk == BulkState::Bulk {
            crate::bulk::ensure(
                &mut self.client,
                self.settings.dim,
                self.settings.hnsw.unwrap_or(HnswSettings::POSTGRES),
            )
            .map_err(err(&target, "building the indexes after the bulk load"))?;
        }
        let row = self
            .client
            .query_one(
                "SELECT (SELECT count(*) FROM chunklab.documents), (SELECT count(*) FROM chunklab.chunks)",
                &[],
            )
            .map_err(err(&target, "counting"))?;
        let (d, c): (i64, i64) = (row.get(0), row.get(1));
        Ok((d as usize, c as usize))
    }
}
