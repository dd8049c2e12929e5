//! # chunklab-pipeline
//!
//! The one document pipeline of chunklab — read → detect → parse → chunk → (context) → embed →
//! index — that every face calls: the `chunklab` CLI (`chunk`, `index`, `bench`), the lab
//! (`chunklab-eval`), the server and the Python package. A face maps its own input (flags, a
//! sweep TOML, a JSON body, keyword arguments) onto one typed [`PipelineConfig`] and calls
//! [`Pipeline`]; it never re-implements a stage.
//!
//! ```
//! use chunklab_pipeline::{Input, Pipeline, PipelineConfig};
//! use chunklab_core::{ChunkConfig, Strategy};
//!
//! let dir = tempfile::tempdir().unwrap();
//! let path = dir.path().join("besluit.md");
//! std::fs::write(&path, "# Besluit\n\nDe raad besluit.\n\n## Artikel 1\n\nWindmolens op zee.\n").unwrap();
//! let cfg = PipelineConfig {
//!     chunking: ChunkConfig::new(Strategy::Headings, 200),
//!     ..PipelineConfig::default()
//! };
//! let pipeline = Pipeline::new(cfg).unwrap();
//! let input = Input::file(&path);
//! let prepared = pipeline.prepare(&input, false).unwrap();
//! let source = input.source();
//! let doc = pipeline.process(&input, &source, &prepared).unwrap();
//! assert_eq!(doc.chunks.len(), 2);
//! assert_eq!(doc.chunks[1].meta.headings, ["Besluit", "Artikel 1"]);
//! ```
#![warn(missing_docs)]

mod chunkers;
mod config;
pub mod context;
pub mod flat;
pub mod indexing;
pub mod input;
mod late;
pub mod queries;
mod query_batch;
pub mod reading;
pub mod search;
mod spelling;
mod unparsed;
mod windowed;

pub use chunkers::{build_chunker, late_options, load_model, sizer, LoadedModel, Models};
pub use chunklab_parse::ocr::{OcrMode, OcrOptions};
pub use config::{ContextConfig, ContextKind, Fallback, LlmConfig, PipelineConfig, ReadingConfig};
pub use context::{ContextStage, ContextTarget};
pub use indexing::{AddSummary, IndexBuilder, IndexConfig, Progress};
pub use input::{spelled_chain, ParseFailure, Undecodable};
pub use input::{Filters, Input, Skip};
pub use late::{Late, LateStats};
pub use query_batch::QueryBatchStats;
pub use reading::{parse, parse_with_ocr, prepare, Prepared, Reading};
pub use spelling::{Flags, Spelling};
pub use windowed::{Window, Windowed};

use anyhow::{anyhow, Result};
use chunklab_core::{
    chunk_document, chunk_parsed_document, Chunk, Chunker, Document, Sizer, Strategy, TextEmbedder,
};
use chunklab_embed::{CoreEmbedder, Embedder};
use chunklab_index::{NewChunk, NewDocument, Settings};
use chunklab_llm::spec::OpenOptions;
use chunklab_llm::LlmClient;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Everything a run needs before reading any input, checked and loaded once: the chunker, the
/// sizer, how inputs are read, the model, the language model, the context stage and late
/// chunking.
pub struct Pipeline {
    /// The configuration it was built from.
    pub config: PipelineConfig,
    /// The strategy.
    pub chunker: Box<dyn Chunker>,
    /// The size unit.
    pub sizer: Arc<dyn Sizer>,
    /// The unit's name (`chars`, `words`, `cl100k`, a tokenizer path).
    pub unit_name: String,
    /// How inputs are read.
    pub reading: Reading,
    /// Include/exclude filters for directory walks.
    pub filters: Filters,
    /// The embedding model, loaded when `model` is given.
    pub model: Option<Arc<dyn Embedder>>,
    /// The language model, opened when `llm.spec` is given.
    pub llm: Option<Arc<LlmClient>>,
    /// Contextual retrieval.
    pub context: Option<ContextStage>,
    /// Late chunking's vectors (`strategy = late`).
    pub late: Option<Late>,
}

/// One document through the pipeline: its chunks (borrowing the prepared text), with contexts,
/// late-chunking vectors when the strategy is `late`, and warnings.
pub struct Processed<'a> {
    /// The chunks, in document order.
    pub chunks: Vec<Chunk<'a>>,
    /// `strategy = late`: one vector per chunk.
    pub vectors: Option<Vec<Vec<f32>>>,
    /// Parser and context warnings.
    pub warnings: Vec<String>,
    /// Bytes of document text.
    pub bytes: usize,
}

/// What [`Pipeline::with_processed`] has after reading an input: the processed document
/// already handed on, or text to chunk as read.
enum Readied<R> {
    Done(R),
    ParseFailure(input::Text),
}

/// The documents chunked as read have no vectors and no warnings.
fn unparsed_processed<'a>(chunks: Vec<chunklab_core::Chunk<'a>>, text: &str) -> Processed<'a> {
    Processed {
        chunks,
        vectors: None,
        warnings: Vec::new(),
        bytes: text.len(),
    }
}

/// A chunking error as the skip of the input named `source`.
fn chunk_error(source: &str, e: chunklab_core::Error) -> Skip {
    Skip::Error(anyhow!("{source}: {:#}", anyhow::Error::from(e)))
}

impl Pipeline {
    /// `strategy = llm`: what its language model cost (calls, cache hits, tokens), for the
    /// summary line a face prints after a run, like [`ContextStage::summary`].
    pub fn llm_strategy_summary(&self) -> Option<String> {
        if self.config.chunking.strategy != Strategy::Llm {
            return None;
        }
        let llm = self.llm.as_ref()?;
        Some(format!(
            "llm strategy: {}: {}",
            chunklab_llm::full_name(llm.as_ref()),
            llm.usage()
        ))
    }

    /// Check every option and load what the configuration names (model, language model).
    pub fn new(config: PipelineConfig) -> Result<Pipeline> {
        let cfg = &config.chunking;
        cfg.validate()?;
        let loaded = config
            .model
            .as_deref()
            .map(|spec| load_model(spec, config.fetch))
            .transpose()?;
        let sizer = sizer(
            cfg,
            loaded.as_ref().map(|m| {
                (
                    config.model.as_deref().unwrap_or_default(),
                    m.dir.as_deref(),
                )
            }),
            config.fetch,
        )?;
        let unit_name = sizer.name().to_string();
        let model = loaded.map(|m| m.model);
        let llm = open_llm(&config.llm, config.fetch)?;
        let text_embedder = model
            .as_ref()
            .map(|m| Arc::new(CoreEmbedder::new(m.clone())) as Arc<dyn TextEmbedder>);
        let chunker = build_chunker(
            cfg,
            sizer.clone(),
            Models {
                embedder: model.as_ref(),
                text_embedder,
                llm: llm.as_ref(),
            },
        )?;
        let context = config
            .context
            .as_ref()
            .map(|c| ContextStage::new(c, llm.clone(), sizer.clone(), cfg.size))
            .transpose()?;
        let late = match (cfg.strategy, &model) {
            (Strategy::Late, Some(m)) => Some(Late {
                model: m.clone(),
                opts: late_options(cfg),
                stats: LateStats::default(),
            }),
            _ => None,
        };
        Ok(Pipeline {
            reading: Reading::new(&config.reading)?,
            filters: Filters::new(&config.reading.include, &config.reading.exclude)?,
            chunker,
            sizer,
            unit_name,
            model,
            llm,
            context,
            late,
            config,
        })
    }

    /// Expand paths (files, directories walked in a deterministic order, `-` for stdin) into
    /// inputs, with the include/exclude filters.
    pub fn collect(&self, paths: &[String]) -> Result<Vec<Input>> {
        input::collect(paths, &self.filters)
    }

    /// [`Self::collect`] as a stream: the paths are checked now, and [`input::Walk::run`]
    /// gives the inputs in the same order as the walk finds them.
    pub fn walk<'a>(&'a self, paths: &'a [String]) -> Result<input::Walk<'a>> {
        input::Walk::new(paths, &self.filters)
    }

    /// Read and parse one input (`big`: a large text file is kept unparsed unless the strategy
    /// needs structure).
    pub fn prepare(&self, input: &Input, big: bool) -> Result<Prepared, Skip> {
        // A chunker that reads only locations gets plain text parsed only for its pages and
        // lines (the same chunks: crates/chunklab-parse/tests/text_flat.rs).
        let flat = self.chunker.reads_only_locations() && self.context.is_none();
        reading::prepare_with(
            input,
            self.chunker.needs_structure(),
            &self.reading,
            big,
            flat,
        )
    }

    /// [`Pipeline::prepare`] (not `big`) and [`Pipeline::process`] of `input` in one go, the
    /// processed document handed to `f`. Where [`Pipeline::chunks_unparsed`] (plain text
    /// without pages, Markdown, reStructuredText, for a chunker reading only locations) the text
    /// is chunked as read ([`chunk_source_text`](chunklab_core::chunker::chunk_source_text)):
    /// not parsed, not copied, not validated twice; the chunks and warnings are those of
    /// `prepare` + `process`.
    pub fn with_processed<R>(
        &self,
        input: &Input,
        f: impl FnOnce(Processed<'_>) -> R,
    ) -> Result<R, Skip> {
        let source = input.source();
        let mut f = Some(f);
        let mut call = |p: Processed<'_>| f.take().expect("called once")(p);
        match self.read_for_processing(input, input::read(input)?, &source, &mut call)? {
            Readied::Done(r) => Ok(r),
            Readied::ParseFailure(text) => {
                let s = text.as_str();
                let chunks = chunklab_core::chunker::chunk_source_text(
                    &Document::new(input.doc_id(), &source, s),
                    self.chunker.as_ref(),
                )
                .map_err(|e| chunk_error(&source, e))?;
                Ok(call(unparsed_processed(chunks, s)))
            }
        }
    }

    /// [`Pipeline::with_processed`] of each of `inputs`, for many small documents: the same
    /// chunks and warnings, with the ids of all the documents chunked as read hashed side by
    /// side ([`chunk_source_texts`](chunklab_core::chunker::chunk_source_texts)). `f` is called
    /// once per processed document, those chunked as read last; the results are in the order
    /// of `inputs`. Runs on the calling thread.
    pub fn with_processed_each<R>(
        &self,
        inputs: &[Input],
        f: impl FnMut(Processed<'_>) -> R,
    ) -> Vec<Result<R, Skip>> {
        let raws = inputs.iter().map(input::read).collect();
        self.with_processed_each_read(inputs, raws, f)
    }

    /// [`Pipeline::with_processed_each`] of inputs whose bytes were read already, each
    /// [`input::read`] of the input at its position in `raws` (a caller that needs the inputs'
    /// lengths first reads them instead of asking for them: one system call on each path less).
    pub fn with_processed_each_read<R>(
        &self,
        inputs: &[Input],
        raws: Vec<Result<input::Raw, Skip>>,
        mut f: impl FnMut(Processed<'_>) -> R,
    ) -> Vec<Result<R, Skip>> {
        assert_eq!(inputs.len(), raws.len(), "one read per input");
        let sources: Vec<String> = inputs.iter().map(Input::source).collect();
        let mut done: Vec<Option<Result<R, Skip>>> = Vec::with_capacity(inputs.len());
        let mut unparsed = Vec::new();
        for (i, ((input, source), raw)) in inputs.iter().zip(&sources).zip(raws).enumerate() {
            let readied = raw.and_then(|raw| self.read_for_processing(input, raw, source, &mut f));
            done.push(match readied {
                Ok(Readied::Done(r)) => Some(Ok(r)),
                Ok(Readied::ParseFailure(text)) => {
                    unparsed.push((i, text));
                    None
                }
                Err(skip) => Some(Err(skip)),
            });
        }
        let docs: Vec<Document<'_>> = unparsed
            .iter()
            .map(|(i, text)| Document::new(inputs[*i].doc_id(), &sources[*i], text.as_str()))
            .collect();
        let chunked = chunklab_core::chunker::chunk_source_texts(&docs, self.chunker.as_ref());
        for ((i, text), chunks) in unparsed.iter().zip(chunked) {
            let processed = chunks
                .map(|chunks| f(unparsed_processed(chunks, text.as_str())))
                .map_err(|e| chunk_error(&sources[*i], e));
            done[*i] = Some(processed);
        }
        done.into_iter()
            .map(|d| d.expect("every input read or chunked"))
            .collect()
    }

    /// The first half of [`Pipeline::with_processed`]: decode `input` (read as `raw`), and
    /// prepare and process it (`f` called on the result) unless it is to be chunked as read.
    fn read_for_processing<R>(
        &self,
        input: &Input,
        raw: input::Raw,
        source: &str,
        f: &mut impl FnMut(Processed<'_>) -> R,
    ) -> Result<Readied<R>, Skip> {
        let text = match reading::read_text_from(input, raw, &self.reading)? {
            reading::Read::Prepared(p) => {
                return Ok(Readied::Done(f(self.process(input, source, &p)?)))
            }
            reading::Read::Text(text, parser) => {
                if !self.chunks_unparsed(parser.name(), text.as_str()) {
                    let p = reading::prepare_text(
                        input,
                        text,
                        parser,
                        &self.reading,
                        self.chunker.needs_structure(),
                        false,
                        self.chunker.reads_only_locations() && self.context.is_none(),
                    )?;
                    return Ok(Readied::Done(f(self.process(input, source, &p)?)));
                }
                text
            }
        };
        Ok(Readied::ParseFailure(text))
    }

    /// Whether [`Pipeline::with_processed`] chunks a text document that the parser `parser`
    /// (its [`Parser::name`](chunklab_parse::Parser::name)) would parse, with decoded text
    /// `text`, from the text alone: the chunker reads only locations
    /// ([`Chunker::reads_only_locations`]), there
    /// is no context stage or late chunking, and the parse could add nothing the chunks or
    /// warnings show: plain text without form feeds (pages), any reStructuredText, Markdown
    /// without footnotes whose markup nests well below the parser's depth limit (its only
    /// warning); none of them starting with a second byte order mark (the parsers drop it).
    /// Why the chunks are the same: `crates/chunklab-pipeline/src/unparsed.rs`.
    pub fn chunks_unparsed(&self, parser: &str, text: &str) -> bool {
        self.chunker.reads_only_locations()
            && self.context.is_none()
            && self.late.is_none()
            && unparsed::source_text_suffices(parser, text, self.reading.limits.max_depth)
    }

    /// Chunk a prepared input, give the chunks their contexts and (late chunking) vectors.
    /// `source` is the input's display name ([`Input::source`]), borrowed by the chunks.
    pub fn process<'a>(
        &self,
        input: &'a Input,
        source: &'a str,
        prepared: &'a Prepared,
    ) -> Result<Processed<'a>, Skip> {
        let fail = |e: anyhow::Error| Skip::Error(anyhow!("{source}: {e:#}"));
        let mut chunks = match prepared {
            Prepared::Parsed(doc, _) => {
                chunk_parsed_document(input.doc_id(), source, doc, self.chunker.as_ref())
            }
            Prepared::Plain(text) => chunk_document(
                &Document::new(input.doc_id(), source, text.as_str()),
                self.chunker.as_ref(),
            ),
        }
        .map_err(|e| fail(e.into()))?;
        if let Prepared::Parsed(doc, _) = prepared {
            mark_ocr(doc, &mut chunks);
        }
        let text = prepared.text();
        let mut warnings = prepared.warnings().to_vec();
        if let Some(stage) = &self.context {
            let title = prepared.title(input.doc_id());
            warnings.extend(
                stage
                    .apply(text, title, &mut chunks)
                    .map_err(|e| fail(e.context("context")))?,
            );
        }
        let vectors = match &self.late {
            Some(l) => Some(l.vectors(text, &chunks, source)?),
            None => None,
        };
        Ok(Processed {
            chunks,
            vectors,
            warnings,
            bytes: text.len(),
        })
    }

    /// The embedding model for indexing: the configuration's, or `default` loaded now.
    pub fn index_model(&self, default: &str) -> Result<(String, Arc<dyn Embedder>)> {
        match (&self.model, &self.config.model) {
            (Some(m), Some(spec)) => Ok((spec.clone(), m.clone())),
            _ => {
                // `load_model` names the model in its error.
                let m = load_model(default, self.config.fetch)?;
                Ok((default.to_string(), m.model))
            }
        }
    }

    /// The settings an index built by this pipeline records, for `model` (named `model_spec`).
    pub fn index_settings(&self, model_spec: &str, model: &dyn Embedder) -> Settings {
        let r = &self.config.reading;
        Settings {
            chunker: self.chunker.config(),
            reading: format!(
                "parser={} encoding={} lossy={}",
                r.parser.as_deref().unwrap_or("auto"),
                r.encoding.as_deref().unwrap_or("utf-8"),
                r.lossy
            ),
            unit: self.unit_name.clone(),
            tokenizer: self.config.chunking.tokenizer.clone(),
            model: model_spec.to_string(),
            dim: model.dim(),
            model_max_tokens: model.max_tokens(),
            hnsw: None,
            lang: self.config.chunking.lang.code().to_string(),
            run: None,
        }
    }
}

/// A processed document as the index writes it (vectors filled in later, or from late
/// chunking), with the texts to embed (empty when late chunking gave the vectors).
pub fn index_document(
    doc_id: &str,
    source: &str,
    hash: String,
    text: &str,
    acl: Vec<String>,
    fields: BTreeMap<String, String>,
    processed: Processed<'_>,
) -> (NewDocument, Vec<String>) {
    let Processed {
        chunks, vectors, ..
    } = processed;
    let embed_texts = if vectors.is_some() {
        Vec::new()
    } else {
        chunks.iter().map(|c| c.meta.embed_text(c.text)).collect()
    };
    let mut vectors = vectors.map(Vec::into_iter);
    let new_chunks = chunks
        .iter()
        .map(|c| {
            let v = vectors.as_mut().and_then(|v| v.next()).unwrap_or_default();
            NewChunk::from_chunk(c, v)
        })
        .collect();
    (
        NewDocument {
            doc_id: doc_id.to_string(),
            source: source.to_string(),
            hash,
            text: text.to_string(),
            acl,
            fields,
            chunks: new_chunks,
        },
        embed_texts,
    )
}

/// Open the language model `cfg` names (fetching a missing known local model with `fetch`).
pub fn open_llm(cfg: &LlmConfig, fetch: bool) -> Result<Option<Arc<LlmClient>>> {
    if cfg.concurrency == 0 {
        // Taken as 1 silently before; 0 requests at once would never finish.
        return Err(chunklab_core::Error::Param {
            param: "llm_concurrency",
            message: "must be at least 1".into(),
        }
        .into());
    }
    let Some(spec) = &cfg.spec else {
        return Ok(None);
    };
    let mut opts = OpenOptions {
        fetch,
        no_cache: cfg.no_cache,
        ..OpenOptions::default()
    };
    opts.http.concurrency = cfg.concurrency;
    // A spec that does not parse is a configuration error naming the parameter (`--llm`,
    // Python's `llm`); anything else (a model that cannot be loaded) names the spec.
    let client = chunklab_llm::spec::open(spec, &opts).map_err(|e| match e {
        chunklab_llm::Error::BadSpec { .. } => anyhow::Error::new(chunklab_core::Error::Param {
            param: "llm",
            message: e.to_string(),
        }),
        e => anyhow::Error::new(e).context(format!("llm {spec}")),
    })?;
    Ok(Some(Arc::new(client)))
}

/// Chunks on OCR'd pages get `ocr_confidence`: the mean confidence of their OCR'd pages (from
/// the document's `ocr_confidence` metadata).
fn mark_ocr(
    doc: &chunklab_core::document::ParsedDocument,
    chunks: &mut [chunklab_core::Chunk<'_>],
) {
    let pages = chunklab_parse::ocr::page_confidences(&doc.metadata);
    if pages.is_empty() {
        return;
    }
    for c in chunks {
        if let Some(first) = c.meta.page {
            let last = c.meta.page_end.unwrap_or(first);
            c.meta.ocr_confidence = chunklab_parse::ocr::chunk_confidence(&pages, first, last);
        }
    }
}
