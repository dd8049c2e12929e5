//! Building an index from Python (`chunklab.Index.create(...).add_files(...)`) over the
//! pipeline's one [`IndexBuilder`]: this file only merges the keyword arguments of `create` and
//! of each call into the pipeline configuration, opens the builder on first use (the chunking
//! configuration is known only then) and maps its results and errors onto Python values.
//!
//! As `chunklab index` does, a call without keyword arguments on an index written before takes
//! the configuration the index records ([`IndexRun`]), with `create`'s `model` and `lang` over
//! it (refused by the index when they differ from its own), and an index created without
//! `acl`/`meta` keeps its recorded rules; `rebuild=True` takes only what is given.

use crate::chunker::pipeline_for;
use crate::config::from_pairs;
use crate::errors::{config_error, pipeline_error, IndexingError, ParseError};
use crate::spelling::Keywords;
use chunklab_pipeline::indexing::{
    check_text_document, settings_refused, stored_run, AddSummary, IndexBuilder, IndexConfig,
    IndexRun, Progress, Sample,
};
use chunklab_pipeline::Pipeline;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// An index being written: where, the keyword arguments `create` fixed (model, lang, fetch),
/// how it is written, and the builder once the first document came.
pub struct Building {
    location: String,
    base: Vec<(String, Value)>,
    cfg: IndexConfig,
    /// `acl` or `meta` given to `create`.
    rules_given: bool,
    /// The index's recorded run, read once on first need (`None` inside: none recorded).
    stored: Option<Option<IndexRun>>,
    builder: Option<IndexBuilder>,
}

/// What one call did, without Python objects: the summary, warning lines, and (for files)
/// the documents that failed.
pub struct Outcome<T> {
    pub value: T,
    pub warnings: Vec<String>,
}

impl Building {
    /// An index to be written at `location` with `base` keyword arguments; `rules_given` when
    /// `create` had `acl` or `meta` (else the index's recorded rules are kept).
    pub fn new(
        location: String,
        base: Vec<(String, Value)>,
        cfg: IndexConfig,
        rules_given: bool,
    ) -> Building {
        Building {
            location,
            base,
            cfg,
            rules_given,
            stored: None,
            builder: None,
        }
    }

    /// The run the index records, unless `rebuild` (read once).
    fn stored(&mut self) -> anyhow::Result<Option<&IndexRun>> {
        if self.stored.is_none() {
            let run = match self.cfg.rebuild {
                true => None,
                false => stored_run(&self.location)?,
            };
            self.stored = Some(run);
        }
        Ok(self.stored.as_ref().and_then(Option::as_ref))
    }

    /// The pipeline of a call: its keyword arguments over those of `create`. A keyword `create`
    /// fixed (model, lang, fetch) may be repeated only with the same value. Without keyword
    /// arguments, the configuration of the open builder, else the index's recorded one with
    /// `create`'s model and lang over it (the index refuses them if they differ from its own).
    pub fn pipeline(
        &mut self,
        py: Python<'_>,
        call: Vec<(String, Value)>,
    ) -> PyResult<Arc<Pipeline>> {
        if call.is_empty() {
            if let Some(b) = &self.builder {
                return Ok(b.pipeline().clone());
            }
            let given = from_pairs(self.base.clone())?;
            let named = |key: &str| self.base.iter().any(|(k, _)| k == key);
            let (model, lang) = (named("model"), named("lang"));
            let location = self.location.clone();
            let stored = self.stored().map_err(|e| index_error(&location, e))?;
            if let Some(run) = stored {
                let mut cfg = run.pipeline.clone();
                cfg.fetch = given.fetch;
                if model {
                    cfg.model = given.model;
                }
                if lang {
                    cfg.chunking.lang = given.chunking.lang;
                }
                return pipeline_for(py, cfg);
            }
        }
        let mut merged = self.base.clone();
        for (k, v) in call {
            match merged.iter().find(|(b, _)| *b == k) {
                Some((_, old)) if *old != v => {
                    return Err(config_error(
                        &k,
                        &format!("the index was created with {k}={old}; this call gives {v}"),
                    ))
                }
                Some(_) => {}
                None => merged.push((k, v)),
            }
        }
        pipeline_for(py, from_pairs(merged)?)
    }

    /// The builder, opened with `pipeline` on first use, else switched to it (refused when
    /// the settings differ from the index's). Call without the GIL: it may load a model.
    fn builder(
        &mut self,
        pipeline: Arc<Pipeline>,
        sample: Sample<'_>,
    ) -> anyhow::Result<&mut IndexBuilder> {
        match &mut self.builder {
            Some(b) => {
                if !Arc::ptr_eq(b.pipeline(), &pipeline) {
                    // A bare call takes the open builder's configuration, which is the index's.
                    b.set_pipeline(pipeline)
                        .map_err(|e| in_python_words(e, true))?;
                }
            }
            None => {
                let mut cfg = self.cfg.clone();
                if !self.rules_given {
                    if let Some(run) = self.stored()? {
                        (cfg.acl, cfg.meta) = (run.acl.clone(), run.meta.clone());
                    }
                }
                let recorded = self.stored.as_ref().is_some_and(Option::is_some);
                let b = IndexBuilder::create_for(&self.location, pipeline, &cfg, sample)
                    .map_err(|e| in_python_words(e, recorded))?;
                self.builder = Some(b);
            }
        }
        Ok(self.builder.as_mut().expect("opened above"))
    }

    /// Index files and directories (no GIL).
    pub fn add_files(
        &mut self,
        pipeline: Arc<Pipeline>,
        paths: &[String],
        remove_missing: bool,
    ) -> anyhow::Result<Outcome<AddSummary>> {
        let inputs = pipeline.collect(paths)?;
        let b = self.builder(pipeline, Sample::Inputs(&inputs))?;
        let mut warnings = notes(b);
        let s = b.add_inputs(inputs, remove_missing, &mut |p| {
            if let Progress::Message(m) = p {
                if let Some(w) = m.strip_prefix("warning: ") {
                    warnings.push(w.to_string());
                }
            }
        })?;
        let (spec, model) = b.model();
        let window = model.token_capacity();
        warnings.extend(
            [
                s.truncation_warning(spec, window, &Keywords),
                s.language_warning(spec, &Keywords),
            ]
            .into_iter()
            .flatten(),
        );
        Ok(Outcome { value: s, warnings })
    }

    /// Index one text (no GIL); the chunks written.
    pub fn add_text(
        &mut self,
        pipeline: Arc<Pipeline>,
        doc: &TextDoc,
    ) -> anyhow::Result<Outcome<usize>> {
        // Refused arguments open nothing: no index directory, no writer, nothing to commit.
        check_text_document(&doc.doc_id, &doc.acl, &doc.fields)?;
        let b = self.builder(pipeline, Sample::Text(&doc.text))?;
        let warnings = notes(b);
        let n = b.add_text(
            &doc.doc_id,
            &doc.text,
            doc.source.as_deref(),
            &doc.acl,
            &doc.fields,
        )?;
        Ok(Outcome { value: n, warnings })
    }

    /// Commit what was added; `false` when nothing was ever added (no builder).
    pub fn commit(&mut self) -> anyhow::Result<bool> {
        match &mut self.builder {
            Some(b) => b.commit().map(|_| true),
            None => Ok(false),
        }
    }

    /// Commit and release the writer lock: (documents, chunks) in the index.
    pub fn close(&mut self) -> anyhow::Result<Option<(usize, usize)>> {
        self.builder.take().map(IndexBuilder::finish).transpose()
    }

    /// The loaded embedding model, to reuse as the query model.
    pub fn model(&self) -> Option<Arc<dyn chunklab_embed::Embedder>> {
        self.builder.as_ref().map(|b| b.model().1.clone())
    }
}

/// What opening the builder has to tell: repairs, and why the corpus chose the model.
fn notes(b: &IndexBuilder) -> Vec<String> {
    let choice = b
        .model_choice()
        .map(|why| format!("{why}; model=\"minilm\" keeps the English model"));
    b.notes().iter().cloned().chain(choice).collect()
}

/// An index's refusal of other settings, with Python's remedies instead of the CLI's flags
/// (and, when the index records a configuration, how to take it).
fn in_python_words(e: anyhow::Error, recorded: bool) -> anyhow::Error {
    let Some(refusal) = settings_refused(&e) else {
        return e;
    };
    let mut msg = format!(
        "{}: the index was built with other settings ({}); one index takes one configuration (create it with rebuild=True to index everything again with these settings, or use another index)",
        refusal.location, refusal.mismatch
    );
    // When the graph settings are the only difference, the chunking keywords have nothing to
    // do with it.
    if recorded && !refusal.mismatch.only("hnsw") {
        msg.push_str("; a call without keyword arguments takes the index's own configuration");
    }
    Refused(msg).into()
}

/// An index's refusal of other settings, in Python's words: a `ConfigError`.
#[derive(Debug)]
struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// One document given as text.
pub struct TextDoc {
    pub doc_id: String,
    pub text: String,
    pub source: Option<String>,
    pub acl: Vec<String>,
    pub fields: BTreeMap<String, String>,
}

/// A builder error as a Python exception: a bad `acl`/`meta`/`doc_id`/`metadata` or other
/// parameter is a `ConfigError` naming it; anything else (the store, the model, a lock) an
/// `IndexingError` naming the index.
pub fn index_error(location: &str, e: anyhow::Error) -> PyErr {
    // A PostgreSQL URL is shown without its password, also where a message repeats it.
    let (shown, msg) = crate::errors::spelled_at(location, &e);
    let location = shown.as_str();
    let params = [
        "acl ",
        "acl:",
        "meta ",
        "doc_id:",
        "metadata",
        "model ",
        "index location",
    ];
    if params.iter().any(|p| msg.starts_with(p)) || e.downcast_ref::<Refused>().is_some() {
        return crate::errors::ConfigError::new_err(msg);
    }
    if e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::NotFound)
    }) {
        return crate::errors::read_error(e);
    }
    if e.chain()
        .any(|c| c.downcast_ref::<chunklab_core::Error>().is_some())
    {
        return pipeline_error(e);
    }
    if msg.starts_with(location) {
        IndexingError::new_err(msg)
    } else {
        IndexingError::new_err(format!("{location}: {msg}"))
    }
}

/// The summary of an `add_files` call as a dict; documents that failed raise a
/// [`ParseError`] naming them (the others are indexed and committed).
pub fn summary_dict<'py>(py: Python<'py>, s: &AddSummary) -> PyResult<Bound<'py, PyDict>> {
    if !s.errors.is_empty() {
        return Err(ParseError::new_err(format!(
            "{} document(s) could not be indexed (the {} others are, and committed): {}",
            s.failed,
            s.added + s.updated + s.unchanged,
            s.errors.join("; ")
        )));
    }
    let d = PyDict::new(py);
    for (k, v) in [
        ("added", s.added),
        ("updated", s.updated),
        ("removed", s.removed),
        ("unchanged", s.unchanged),
        ("skipped", s.skipped),
        ("chunks", s.chunks),
        ("embedded", s.embedded),
        ("truncated", s.truncated),
    ] {
        d.set_item(k, v)?;
    }
    Ok(d)
}
