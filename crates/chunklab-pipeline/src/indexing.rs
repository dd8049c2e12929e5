//! Building an index: inputs → the pipeline's chunks → vectors from the embedding model → a
//! store (an index directory or a PostgreSQL URL), committed in batches. `chunklab index` and
//! the Python package's `Index.create(...).add_files(...)` both call [`IndexBuilder`].
//!
//! Indexing files is incremental: each file's BLAKE3 content hash (with its access groups and
//! metadata fields) is compared with the store, unchanged files are skipped, changed ones
//! re-chunked and re-embedded, and (with `remove_missing`) documents whose file is gone are
//! removed. Documents are committed every [`IndexConfig::commit_every`] documents, so an
//! interrupted run keeps every batch it finished.
//!
//! ```no_run
//! use chunklab_pipeline::indexing::{IndexBuilder, IndexConfig};
//! use chunklab_pipeline::{Pipeline, PipelineConfig};
//! use std::sync::Arc;
//!
//! let pipeline = Arc::new(Pipeline::new(PipelineConfig::default()).unwrap());
//! let mut b = IndexBuilder::create("idx", pipeline, &IndexConfig::default()).unwrap();
//! let summary = b.add_files(&["docs/".to_string()], false, &mut |_| {}).unwrap();
//! b.add_text("note-1", "De raad besluit.", None, &[], &Default::default()).unwrap();
//! let (docs, chunks) = b.finish().unwrap();
//! println!("{summary:?}: {docs} documents, {chunks} chunks");
//! ```

mod config;
mod corpus_lang;
mod embedding;
mod rules;
mod run;
mod summary;

use crate::{Input, Pipeline, Prepared, Skip};
use anyhow::{anyhow, bail, Context as _, Result};
use chunklab_core::Lang;
use chunklab_embed::Embedder;
use chunklab_index::{IndexWriter, Settings, StoreWriter};
use rayon::prelude::*;
use rules::{check_field, rules, Rule};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

pub use crate::spelling::{Flags, Spelling};
pub use config::IndexConfig;
pub use corpus_lang::{corpus_lang, CorpusLang, Sample, SAMPLE_DOCS};
pub use embedding::{chunk_document, document_hash, embed_documents, ChunkedDocument};
pub use run::{stored_run, IndexRun};
pub use summary::{AddSummary, Progress};

/// The embedding model a new index takes when the pipeline names none: `e5-small` for Dutch
/// (`lang = nl`), `minilm` otherwise.
///
/// On the built-in Dutch archive (`bench/dutch-model.toml`, recursive 1,000 characters, k = 10)
/// the English MiniLM finds 7.8 % of the relevant text dense and 49.2 % hybrid — less than BM25
/// alone (56.3 %) — where the multilingual e5-small finds 61.8 % and 63.0 % (document recall 98.7
/// against 85.8 %); MiniLM embeds about twice as fast. An existing index keeps its own model.
///
/// ```
/// use chunklab_core::Lang;
/// use chunklab_pipeline::indexing::default_model;
/// assert_eq!(default_model(Lang::Dutch), "e5-small");
/// assert_eq!(default_model(Lang::Auto), "minilm");
/// ```
pub fn default_model(lang: Lang) -> &'static str {
    match lang {
        Lang::Dutch => "e5-small",
        Lang::English | Lang::Auto => "minilm",
    }
}

/// The store's refusal of a run's settings (`chunklab_index::Error::Refused`, from an index
/// directory or a PostgreSQL store) when that is what `e` is, anywhere in its chain.
pub fn settings_refused(e: &anyhow::Error) -> Option<&chunklab_index::Refusal> {
    e.chain()
        .find_map(|c| match c.downcast_ref::<chunklab_index::Error>() {
            Some(chunklab_index::Error::Refused(r)) => Some(r),
            _ => None,
        })
}

/// An input with its content hash and size, or why it could not be read.
type Hashed = (Input, Result<(String, u64), String>);

/// A document to (re)index, after hashing and before chunking.
struct Todo {
    input: Input,
    hash: String,
    acl: Vec<String>,
    fields: BTreeMap<String, String>,
    update: bool,
    bytes: u64,
}

/// Writes documents into one store with one pipeline and one embedding model. Holds the
/// store's writer lock until [`IndexBuilder::finish`] or drop; readers are not blocked.
pub struct IndexBuilder {
    pipeline: Arc<Pipeline>,
    model_spec: String,
    model: Arc<dyn Embedder>,
    writer: Box<dyn StoreWriter + Send>,
    acl: Vec<Rule<String>>,
    meta: Vec<Rule<(String, String)>>,
    commit_every: usize,
    notes: Vec<String>,
    model_choice: Option<String>,
    /// The index directory, resolved (`None` for a PostgreSQL store): files under it are the
    /// index's own and never indexed.
    own_dir: Option<PathBuf>,
    /// Documents read to judge the corpus's language, by path: indexed from that reading
    /// (taken when their turn comes), so none is read, parsed or OCR'd twice.
    sampled: HashMap<PathBuf, Prepared>,
    /// How the errors of documents that fail name the options that would read them
    /// ([`IndexConfig::spelling`]).
    spelling: &'static (dyn Spelling + Sync),
}

impl IndexBuilder {
    /// Open (creating when missing) the store at `location` — an index directory, or a
    /// `postgres://` URL — for the documents `pipeline` chunks, embedded with the pipeline's
    /// model, else the store's own (unless `cfg.rebuild`), else [`default_model`] for the
    /// pipeline's language. Refuses a store built with other settings unless
    /// `cfg.rebuild`; a damaged index directory is repaired ([`IndexBuilder::notes`] says how).
    pub fn create(location: &str, pipeline: Arc<Pipeline>, cfg: &IndexConfig) -> Result<Self> {
        Self::create_for(location, pipeline, cfg, Sample::Unknown)
    }

    /// [`IndexBuilder::create`] for the documents of `sample`: where the run names neither the
    /// model nor the language (`lang = auto`) and the store has no model yet, a corpus whose
    /// sample reads as Dutch ([`corpus_lang`]) is embedded with [`default_model`]`(Dutch)`,
    /// `e5-small`, and [`IndexBuilder::model_choice`] says why.
    pub fn create_for(
        location: &str,
        pipeline: Arc<Pipeline>,
        cfg: &IndexConfig,
        sample: Sample<'_>,
    ) -> Result<Self> {
        is_postgres(location)?;
        let acl = rules(&cfg.acl, "acl", |v| Some(v.to_string()))?;
        let meta = rules(&cfg.meta, "meta", |v| {
            v.split_once(':')
                .filter(|(f, v)| !f.is_empty() && !v.is_empty())
                .map(|(f, v)| (f.to_string(), v.to_string()))
        })?;
        for r in &meta {
            check_field(&r.value.0, "meta")?;
        }
        let hnsw = cfg.hnsw(location)?;
        // A store read with errors is left to the writer's open, which names them.
        let stored_model = match pipeline.config.model.is_none() && !cfg.rebuild {
            true => chunklab_postgres::open::stored_settings(location)
                .ok()
                .flatten()
                .map(|s| s.model)
                .filter(|m| !m.is_empty()),
            false => None,
        };
        let lang = pipeline.config.chunking.lang;
        let by_language = pipeline.config.model.is_none() && stored_model.is_none();
        // `--lang auto` names no language: the corpus's own decides the model.
        let (judged, sampled) = match by_language && lang == Lang::Auto {
            true => {
                let (c, read) = corpus_lang::read_sample(&pipeline, sample);
                (Some(c), read.into_iter().collect())
            }
            false => (None, HashMap::new()),
        };
        let model_lang = match judged {
            Some(c) if c.is_dutch() => Lang::Dutch,
            _ => lang,
        };
        let default = stored_model.as_deref().unwrap_or(default_model(model_lang));
        let why_dutch = match judged {
            Some(c) if c.is_dutch() => Some(format!(
                "{} of {} documents sampled read as Dutch, so the new index embeds with {default} (on Dutch the English MiniLM finds 7.8 % of the relevant text dense, e5-small 61.8 %)",
                c.dutch, c.read
            )),
            _ if by_language && lang == Lang::Dutch => Some(format!(
                "{default} is the model a new index of Dutch documents ({}) embeds with",
                cfg.spelling.setting("lang", &"nl".into())
            )),
            _ => None,
        };
        let loaded = pipeline.index_model(default);
        let (model_spec, model) = match &why_dutch {
            Some(why) => loaded
                .with_context(|| format!("{why}; {} names another", cfg.spelling.key("model")))?,
            None => loaded?,
        };
        let model_choice = judged.filter(CorpusLang::is_dutch).and(why_dutch);
        let mut settings = pipeline.index_settings(&model_spec, model.as_ref());
        settings.run = Some(IndexRun::new(&pipeline.config, cfg).to_json());
        settings.hnsw = hnsw;
        let mut notes = Vec::new();
        let postgres = is_postgres(location)?;
        let writer: Box<dyn StoreWriter + Send> = if postgres {
            chunklab_postgres::open::open_pg_writer(location, settings, cfg.rebuild)?
        } else {
            let w = IndexWriter::open(Path::new(location), settings, cfg.rebuild)?;
            let repaired = w.repaired();
            if repaired.any() {
                notes.push(format!(
                    "{location}: the index was damaged and is repaired: {}{}{} documents dropped to be indexed again",
                    if repaired.bm25_rebuilt { "BM25 rebuilt from the store; " } else { "" },
                    if repaired.vectors_rebuilt { "vectors rebuilt from the store; " } else { "" },
                    repaired.dropped_documents.len(),
                ));
            }
            Box::new(w)
        };
        Ok(IndexBuilder {
            pipeline,
            model_spec,
            model,
            writer,
            acl,
            meta,
            commit_every: cfg.commit_every.max(1),
            notes,
            model_choice,
            own_dir: match postgres {
                true => None,
                false => std::fs::canonicalize(location).ok(),
            },
            sampled,
            spelling: cfg.spelling,
        })
    }

    /// Where the store is, without a password (for messages).
    pub fn location(&self) -> String {
        self.writer.location()
    }

    /// The settings the store was built with.
    pub fn settings(&self) -> &Settings {
        self.writer.settings()
    }

    /// The embedding model's name and the model.
    pub fn model(&self) -> (&str, &Arc<dyn Embedder>) {
        (&self.model_spec, &self.model)
    }

    /// The pipeline documents are chunked with.
    pub fn pipeline(&self) -> &Arc<Pipeline> {
        &self.pipeline
    }

    /// What opening the store repaired, one line each (empty when nothing was damaged).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// Why the model is not the default of the run's language, when the corpus decided it
    /// ([`IndexBuilder::create_for`]: `lang = auto` and the sample read as Dutch).
    pub fn model_choice(&self) -> Option<&str> {
        self.model_choice.as_deref()
    }

    /// Chunk the next documents with `pipeline`; refused as opening the store with it would be
    /// ([`chunklab_index::Error::Refused`], naming the differences) when the settings it gives
    /// differ from the store's: one index holds one chunking configuration.
    pub fn set_pipeline(&mut self, pipeline: Arc<Pipeline>) -> Result<()> {
        let settings = pipeline.index_settings(&self.model_spec, self.model.as_ref());
        if let Some(mismatch) = self.writer.settings().mismatch(&settings) {
            let location = self.writer.location();
            let store = match chunklab_postgres::is_postgres_url(&location) {
                true => chunklab_index::StoreKind::Postgres,
                false => chunklab_index::StoreKind::Directory,
            };
            return Err(chunklab_index::Error::Refused(chunklab_index::Refusal {
                location,
                mismatch,
                store,
            })
            .into());
        }
        self.pipeline = pipeline;
        // Read by the other pipeline (its reading options may differ).
        self.sampled.clear();
        Ok(())
    }

    /// `inputs` without the files of the index itself (an index directory inside the
    /// directory it indexes: `chunklab index . --index ./idx`).
    fn without_own_files(&self, mut inputs: Vec<Input>) -> Vec<Input> {
        if let Some(own) = &self.own_dir {
            // Resolve each directory once, not the file: a symlinked document stays a document.
            let mut outside: BTreeMap<PathBuf, bool> = BTreeMap::new();
            inputs.retain(|i| {
                let dir = i.path().parent().filter(|d| !d.as_os_str().is_empty());
                let dir = dir.unwrap_or(Path::new(".")).to_path_buf();
                *outside.entry(dir).or_insert_with_key(|d| {
                    std::fs::canonicalize(d).map_or(true, |d| !d.starts_with(own))
                })
            });
        }
        inputs
    }

    /// Index files and directories (walked as `chunklab chunk` walks them) incrementally: new
    /// and changed documents are chunked and embedded, unchanged ones skipped, and with
    /// `remove_missing` documents not found under `paths` are removed. Commits every
    /// [`IndexConfig::commit_every`] documents. A document that cannot be read, parsed or
    /// chunked is reported through `progress` and in [`AddSummary::errors`]; the others are
    /// indexed. Errors of the store or the model stop the call.
    pub fn add_files(
        &mut self,
        paths: &[String],
        remove_missing: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<AddSummary> {
        let inputs = self.pipeline.collect(paths)?;
        self.add_inputs(inputs, remove_missing, progress)
    }

    /// [`IndexBuilder::add_files`] over inputs already collected (with
    /// [`Pipeline::collect`]).
    pub fn add_inputs(
        &mut self,
        inputs: Vec<Input>,
        remove_missing: bool,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<AddSummary> {
        if inputs.iter().any(|i| matches!(i, Input::Stdin)) {
            bail!("indexing reads files and directories, not stdin (`-`)");
        }
        let inputs = self.without_own_files(inputs);
        let mut s = AddSummary::default();
        let todo = self.plan(inputs, remove_missing, &mut s, progress)?;
        let todo_bytes: u64 = todo.iter().map(|t| t.bytes).sum();
        progress(Progress::Planned {
            docs: todo.len(),
            bytes: todo_bytes,
        });
        let started = Instant::now();
        let (mut docs_done, mut bytes_done) = (0usize, 0u64);
        for group in todo.chunks(self.commit_every) {
            let pipeline = &self.pipeline;
            let read: Vec<Option<Prepared>> = group
                .iter()
                .map(|t| self.sampled.remove(t.input.path()))
                .collect();
            let chunked: Vec<Result<ChunkedDocument, Skip>> = group
                .par_iter()
                .zip(read)
                .map(|(t, read)| match read {
                    Some(prepared) => chunk_todo(t, pipeline, prepared),
                    None => chunk_file(t, pipeline),
                })
                .collect();
            let mut ready = Vec::new();
            for (t, c) in group.iter().zip(chunked) {
                match c {
                    Ok(c) => {
                        for w in c.warnings() {
                            progress(Progress::Message(format!(
                                "warning: {}: {w}",
                                t.input.source()
                            )));
                        }
                        ready.push((t.update, c));
                    }
                    Err(Skip::Binary) => {
                        s.skipped += 1;
                        progress(Progress::Message(format!(
                            "warning: {}: binary file skipped",
                            t.input.source()
                        )));
                    }
                    Err(Skip::Error(e)) => {
                        s.failed += 1;
                        let e = crate::input::spelled_chain(&e, self.spelling);
                        progress(Progress::Message(format!("error: {e}")));
                        s.errors.push(e);
                    }
                }
            }
            let chunks: usize = ready.iter().map(|(_, c)| c.embed_texts.len()).sum();
            progress(Progress::Embedding {
                docs_done,
                docs: todo.len(),
                chunks,
            });
            for (update, doc) in
                embed_documents(self.model.as_ref(), &self.model_spec, ready, &mut s)?
            {
                s.chunks += doc.chunks.len();
                self.writer.add_document(doc)?;
                if update {
                    s.updated += 1;
                } else {
                    s.added += 1;
                }
            }
            self.writer.commit()?;
            docs_done += group.len();
            bytes_done += group.iter().map(|t| t.bytes).sum::<u64>();
            progress(Progress::Committed {
                docs_done,
                docs: todo.len(),
                bytes_done,
                bytes: todo_bytes,
                chunks: s.chunks,
                seconds: started.elapsed().as_secs_f64(),
            });
        }
        Ok(s)
    }

    /// Hash every input and compare it with the store: what is to be (re)indexed. Counts
    /// unchanged, unreadable and (with `remove_missing`) removed documents into `s`.
    fn plan(
        &mut self,
        inputs: Vec<Input>,
        remove_missing: bool,
        s: &mut AddSummary,
        progress: &mut dyn FnMut(Progress),
    ) -> Result<Vec<Todo>> {
        let hashed: Vec<Hashed> = inputs
            .into_par_iter()
            .map(|inp| {
                let hash = std::fs::read(inp.path())
                    .map(|bytes| {
                        (
                            blake3::hash(&bytes).to_hex().to_string(),
                            bytes.len() as u64,
                        )
                    })
                    .map_err(|e| format!("{}: {e}", inp.source()));
                (inp, hash)
            })
            .collect();
        let mut todo = Vec::new();
        let mut seen = HashSet::new();
        for (inp, h) in hashed {
            let doc_id = inp.doc_id().to_string();
            if !seen.insert(doc_id.clone()) {
                progress(Progress::Message(format!(
                    "warning: {}: document id `{doc_id}` given twice; indexed once",
                    inp.source()
                )));
                continue;
            }
            // An unreadable file keeps what the store has of it.
            let (file_hash, bytes) = match h {
                Ok(x) => x,
                Err(e) => {
                    s.failed += 1;
                    progress(Progress::Message(format!("error: {e}")));
                    s.errors.push(e);
                    continue;
                }
            };
            let (acl, fields) = self.assigned(&doc_id, inp.path());
            let hash = document_hash(&file_hash, &acl, &fields);
            match self.writer.document_hash(&doc_id) {
                Some(h) if h == hash => s.unchanged += 1,
                existing => todo.push(Todo {
                    update: existing.is_some(),
                    input: inp,
                    hash,
                    acl,
                    fields,
                    bytes,
                }),
            }
        }
        if remove_missing {
            let held = self.writer.doc_ids();
            if seen.is_empty() && !held.is_empty() {
                // Paths that hold nothing (an unmounted share, a typo) would empty the index.
                bail!(
                    "no files to read under the paths given: this run would remove all {} \
                     document(s) of the index (an empty, mistyped or unmounted directory?); give \
                     the paths that hold them, or {} to start the index over",
                    held.len(),
                    self.spelling.switch("rebuild")
                );
            }
            for doc_id in held {
                if !seen.contains(&doc_id) {
                    self.writer.remove_document(&doc_id)?;
                    s.removed += 1;
                }
            }
        }
        Ok(todo)
    }

    /// The access groups and metadata fields the `acl` / `meta` rules give a document.
    fn assigned(&self, doc_id: &str, path: &Path) -> (Vec<String>, BTreeMap<String, String>) {
        rules::assigned(&self.acl, &self.meta, doc_id, path)
    }

    /// Chunk, embed and add one document given as text (parsed as the file `source` would
    /// be: its extension picks the parser; without one, as `doc_id`), with access groups
    /// `acl` and metadata `fields` besides what the `acl`/`meta` rules give it. Replaces a
    /// document with this id. Durable after [`IndexBuilder::commit`]. Returns the chunks
    /// written; a text already indexed unchanged (same hash) is left alone and returns 0.
    pub fn add_text(
        &mut self,
        doc_id: &str,
        text: &str,
        source: Option<&str>,
        acl: &[String],
        fields: &BTreeMap<String, String>,
    ) -> Result<usize> {
        check_text_document(doc_id, acl, fields)?;
        let input = Input::File {
            path: source.unwrap_or(doc_id).into(),
            doc_id: doc_id.to_string(),
        };
        let (mut all_acl, mut all_fields) = self.assigned(doc_id, input.path());
        all_acl.extend(acl.iter().cloned());
        all_acl.sort();
        all_acl.dedup();
        all_fields.extend(fields.iter().map(|(k, v)| (k.clone(), v.clone())));
        let hash = document_hash(
            blake3::hash(text.as_bytes()).to_hex().as_str(),
            &all_acl,
            &all_fields,
        );
        if self.writer.document_hash(doc_id).as_deref() == Some(hash.as_str()) {
            return Ok(0);
        }
        let r = &self.pipeline.reading;
        let mut parsed = crate::reading::parse_with_ocr(
            input.path(),
            text.as_bytes(),
            r.parser.as_deref(),
            &r.limits,
            &r.ocr,
        )
        .map_err(|e| anyhow!("{}: {e}", input.source()))?;
        let warnings = std::mem::take(&mut parsed.warnings);
        let todo = Todo {
            input,
            hash,
            acl: all_acl,
            fields: all_fields,
            update: false,
            bytes: text.len() as u64,
        };
        let chunked = chunk_todo(&todo, &self.pipeline, Prepared::Parsed(parsed, warnings))
            .map_err(|e| match e {
                Skip::Binary => anyhow!("{}: binary content", todo.input.source()),
                Skip::Error(e) => e,
            })?;
        let mut s = AddSummary::default();
        let (_, doc) = embed_documents(
            self.model.as_ref(),
            &self.model_spec,
            vec![((), chunked)],
            &mut s,
        )?
        .pop()
        .expect("one document in, one out");
        let n = doc.chunks.len();
        self.writer.add_document(doc)?;
        Ok(n)
    }

    /// Remove a document; `false` when it was not there. Durable after
    /// [`IndexBuilder::commit`].
    pub fn remove(&mut self, doc_id: &str) -> Result<bool> {
        Ok(self.writer.remove_document(doc_id)?)
    }

    /// Make everything added or removed so far durable: whole documents or nothing.
    pub fn commit(&mut self) -> Result<()> {
        Ok(self.writer.commit()?)
    }

    /// Commit what is pending and close the store (releasing the writer lock); returns
    /// (documents, chunks) in the store.
    pub fn finish(self) -> Result<(usize, usize)> {
        Ok(self.writer.finish()?)
    }
}

/// Check what [`IndexBuilder::add_text`] is given besides the text, before anything is
/// opened or written: a non-empty id, no empty access group, metadata field names the index
/// can store. The errors start with the argument's name (`doc_id: …`, `acl: …`, `metadata …`).
///
/// ```
/// use chunklab_pipeline::indexing::check_text_document;
/// use std::collections::BTreeMap;
/// let none = BTreeMap::new();
/// assert!(check_text_document("motie-12", &["raad".to_string()], &none).is_ok());
/// let err = check_text_document("motie-12", &[" ".to_string()], &none).unwrap_err();
/// assert_eq!(err.to_string(), "acl: a group name is empty");
/// assert!(check_text_document("", &[], &none).unwrap_err().to_string().starts_with("doc_id:"));
/// ```
pub fn check_text_document(
    doc_id: &str,
    acl: &[String],
    fields: &BTreeMap<String, String>,
) -> Result<()> {
    if doc_id.is_empty() {
        bail!("doc_id: a document needs a non-empty id");
    }
    if acl.iter().any(|g| g.trim().is_empty()) {
        bail!("acl: a group name is empty");
    }
    for name in fields.keys() {
        check_field(name, "metadata")?;
    }
    Ok(())
}

/// Read, parse and chunk one file exactly as `chunklab chunk` does.
fn chunk_file(t: &Todo, p: &Pipeline) -> Result<ChunkedDocument, Skip> {
    let prepared = p.prepare(&t.input, false)?;
    chunk_todo(t, p, prepared)
}

/// Chunk a prepared document to (re)index into the document the store writes.
fn chunk_todo(t: &Todo, p: &Pipeline, prepared: Prepared) -> Result<ChunkedDocument, Skip> {
    let source = t.input.source();
    chunk_document(
        p,
        &t.input,
        &source,
        prepared,
        t.hash.clone(),
        t.acl.clone(),
        t.fields.clone(),
    )
}

/// An index location as messages and `repr`s show it: a `postgres://` URL without its password
/// (`postgres://u:***@db/x`), a directory as given.
///
/// ```
/// use chunklab_pipeline::indexing::shown_location;
/// assert_eq!(shown_location("postgres://u:pw@db/x"), "postgres://u:***@db/x");
/// assert_eq!(shown_location("./idx"), "./idx");
/// ```
pub fn shown_location(location: &str) -> String {
    if chunklab_postgres::is_postgres_url(location) {
        chunklab_postgres::conn::hide_password(location)
    } else {
        location.to_string()
    }
}

/// Whether the store `location` is PostgreSQL (`postgres://`, `postgresql://`,
/// `postgres-cluster://`) rather than an index directory. An empty location, and one that
/// starts with another URL scheme (`mysql://…`, a misspelt `postgress://…`), are refused:
/// taken as a directory, the latter would create one named `mysql:`.
///
/// ```
/// use chunklab_pipeline::indexing::is_postgres;
/// assert!(is_postgres("postgresql://user@/archief?host=/run/postgresql").unwrap());
/// assert!(!is_postgres("./idx").unwrap());
/// assert!(!is_postgres("archief:2024").unwrap());
/// let e = is_postgres("mysql://x").unwrap_err().to_string();
/// assert!(e.contains("`mysql://` is no store chunklab opens"), "{e}");
/// assert!(is_postgres("").is_err());
/// ```
pub fn is_postgres(location: &str) -> Result<bool> {
    if location.is_empty() {
        bail!("index location: give an index directory or a postgres:// URL");
    }
    if chunklab_postgres::is_postgres_url(location) {
        return Ok(true);
    }
    let scheme = location.split_once("://").map(|(s, _)| s).filter(|s| {
        s.starts_with(|c: char| c.is_ascii_alphabetic())
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
    });
    if let Some(scheme) = scheme {
        bail!(
            "index location `{location}`: `{scheme}://` is no store chunklab opens; give an index \
             directory or a postgres:// (postgresql://, postgres-cluster://) URL"
        );
    }
    Ok(false)
}
