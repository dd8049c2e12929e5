//! A configuration's chunks: build the chunker a [`ChunkSpec`] describes and cut every document
//! of the dataset with it, keeping each chunk's exact byte and char span.

use crate::embed_cache::CachedTextEmbedder;
use crate::error::{Error, Result};
use crate::sweep::ChunkSpec;
use chunklab_core::document::ParsedDocument;
use chunklab_core::text::CharCursor;
use chunklab_core::Chunker;
use chunklab_embed::Embedder;
use chunklab_pipeline::{build_chunker as build, ContextTarget, Models};
use rayon::prelude::*;
use std::sync::Arc;

/// One chunk of the collection a configuration searches.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalChunk {
    /// Index of the document in the dataset.
    pub doc: u32,
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_char: usize,
    pub end_char: usize,
    /// Size in the configuration's unit (prefix included).
    pub tokens: usize,
    /// Text embedded before the chunk (heading path, table header), not part of the span.
    pub prefix: Option<String>,
    /// Heading path.
    pub headings: Vec<String>,
    /// Contextual-retrieval context (see [`crate::context`]), not part of the span.
    pub context: Option<String>,
}

impl EvalChunk {
    /// What gets embedded ([`chunklab_core::embedded_text`]).
    pub fn embed_text(&self, doc_text: &str) -> String {
        chunklab_core::embedded_text(
            self.context.as_deref(),
            self.prefix.as_deref(),
            &doc_text[self.start_byte..self.end_byte],
        )
    }
}

impl ContextTarget for EvalChunk {
    fn span(&self) -> std::ops::Range<usize> {
        self.start_byte..self.end_byte
    }
    fn headings(&self) -> &[String] {
        &self.headings
    }
    fn prefix(&self) -> Option<&str> {
        self.prefix.as_deref()
    }
    fn tokens(&self) -> usize {
        self.tokens
    }
    fn set_context(&mut self, context: String, tokens: usize) {
        self.context = Some(context);
        self.tokens = tokens;
    }
}

/// The runs of one document's chunks in `chunks` (in document order, as [`chunk_all`] returns
/// them): `(document index, range of chunk numbers)`.
///
/// ```
/// use chunklab_eval::chunking::{doc_runs, EvalChunk};
/// let c = |doc| EvalChunk { doc, start_byte: 0, end_byte: 0, start_char: 0, end_char: 0,
///                           tokens: 0, prefix: None, headings: vec![], context: None };
/// let runs: Vec<_> = doc_runs(&[c(0), c(0), c(2)]).collect();
/// assert_eq!(runs, vec![(0, 0..2), (2, 2..3)]);
/// ```
pub fn doc_runs(
    chunks: &[EvalChunk],
) -> impl Iterator<Item = (usize, std::ops::Range<usize>)> + '_ {
    let mut start = 0;
    std::iter::from_fn(move || {
        let first = chunks.get(start)?;
        let end = start
            + chunks[start..]
                .iter()
                .take_while(|c| c.doc == first.doc)
                .count();
        let run = (first.doc as usize, start..end);
        start = end;
        Some(run)
    })
}

/// The sizer of `spec`'s unit (cl100k when the unit is tokens without a tokenizer); a known
/// model named as the tokenizer is fetched with `fetch` when it is not installed.
pub fn spec_sizer(spec: &ChunkSpec, fetch: bool) -> Result<Arc<dyn chunklab_core::Sizer>> {
    let cfg = spec_config(spec)?;
    chunklab_pipeline::sizer(&cfg, None, fetch)
        .map_err(|e| Error::Config(format!("{}: {e}", spec.label())))
}

fn spec_config(spec: &ChunkSpec) -> Result<chunklab_core::ChunkConfig> {
    spec.config()
        .map_err(|e| Error::Config(format!("{}: {e}", spec.label())))
}

/// The chunker `spec` describes, built by the pipeline's [`chunklab_pipeline::build_chunker`].
/// `model` (with its cached view `cached`) is needed by `semantic`, `cluster` and `late`;
/// `fetch` as for [`spec_sizer`].
pub fn build_chunker(
    spec: &ChunkSpec,
    model: Option<&Arc<dyn Embedder>>,
    cached: Option<Arc<CachedTextEmbedder>>,
    fetch: bool,
) -> Result<Box<dyn Chunker>> {
    let cfg = spec_config(spec)?;
    let models = Models {
        embedder: model,
        text_embedder: cached.map(|c| c as Arc<dyn chunklab_core::TextEmbedder>),
        llm: None,
    };
    build(&cfg, spec_sizer(spec, fetch)?, models)
        .map_err(|e| Error::Config(format!("{}: {e:#}", spec.label())))
}

/// Chunk every document (in parallel) and return the chunks in document order.
pub fn chunk_all(
    chunker: &dyn Chunker,
    docs: &[ParsedDocument],
    ids: &[String],
) -> Result<Vec<EvalChunk>> {
    let per_doc: Vec<Result<Vec<EvalChunk>>> = docs
        .par_iter()
        .enumerate()
        .map(|(i, d)| {
            let parts = chunker
                .chunk_parsed(d)
                .map_err(|e| Error::Run(format!("chunking `{}`: {e}", ids[i])))?;
            let mut cursor = CharCursor::new(&d.text);
            Ok(parts
                .into_iter()
                .map(|(s, meta)| EvalChunk {
                    doc: i as u32,
                    start_byte: s.start,
                    end_byte: s.end,
                    start_char: cursor.char_at(s.start),
                    end_char: cursor.char_at(s.end),
                    tokens: s.tokens,
                    prefix: meta.prefix,
                    headings: meta.headings,
                    context: None,
                })
                .collect())
        })
        .collect();
    let mut out = Vec::new();
    for r in per_doc {
        out.extend(r?);
    }
    Ok(out)
}
