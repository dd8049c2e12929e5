//! A configuration's chunks: build the chunker a [`ChunkSpec`] describes and cut every document
//! of the dataset with it, keeping each chunk's exact byte and char span.

use crate::embed_cache::CachedTextEmbedder;
use crate::error::{Error, Result};
use crate::sweep::ChunkSpec;
use chunklab_core::document::ParsedDocument;
use chunklab_core::strategies::{self, Breakpoint, Compat, KeepSeparator, Options};
use chunklab_core::text::CharCursor;
use chunklab_core::{Chunker, Lang};
use chunklab_embed::{Embedder, LateChunker, LateOptions};
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
    /// Prefix + the span's text (what a context is fitted against).
    pub fn body(&self, doc_text: &str) -> String {
        let t = &doc_text[self.start_byte..self.end_byte];
        match &self.prefix {
            Some(p) => format!("{p}{t}"),
            None => t.to_string(),
        }
    }

    /// What gets embedded: `context + "\n\n"` (when there is one) + prefix + the span's text.
    pub fn embed_text(&self, doc_text: &str) -> String {
        let body = self.body(doc_text);
        match self.context.as_deref() {
            Some(c) if !c.is_empty() => format!("{c}\n\n{body}"),
            _ => body,
        }
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

/// The sizer of `spec`'s unit (cl100k when the unit is tokens without a tokenizer).
pub fn spec_sizer(spec: &ChunkSpec) -> Result<Arc<dyn chunklab_core::Sizer>> {
    let unit = spec.unit.as_str();
    let tokenizer = if unit == "tokens" {
        Some(spec.tokenizer.as_deref().unwrap_or("cl100k"))
    } else {
        None
    };
    chunklab_tokenizers::sizer_from_spec(unit, tokenizer, false)
        .map_err(|e| Error::Config(format!("{}: {e}", spec.label())))
}

/// The chunker `spec` describes. `model` (with its cached view `cached`) is needed by
/// `semantic`, `cluster` and `late`.
pub fn build_chunker(
    spec: &ChunkSpec,
    model: Option<&Arc<dyn Embedder>>,
    cached: Option<Arc<CachedTextEmbedder>>,
) -> Result<Box<dyn Chunker>> {
    let cfg = |m: String| Error::Config(format!("{}: {m}", spec.label()));
    let sizer = spec_sizer(spec)?;
    let strategy = if spec.strategy == "late" {
        spec.boundaries_or_default().to_string()
    } else {
        spec.strategy.clone()
    };
    if strategy == "late" {
        return Err(cfg(
            "late chunking needs other boundaries than `late`".into()
        ));
    }
    let breakpoint = match spec.breakpoint.as_deref() {
        None => Breakpoint::default(),
        Some(b) => b.parse::<Breakpoint>().map_err(cfg)?,
    };
    let opts = Options {
        strategy,
        size: spec.chunk_size(),
        overlap: spec.overlap,
        stride: spec.stride,
        lang: spec.lang.parse::<Lang>().map_err(|e| cfg(e.to_string()))?,
        compat: match spec.compat.as_str() {
            "native" => Compat::Native,
            "langchain" => Compat::LangChain,
            other => return Err(cfg(format!("unknown compat `{other}` (native, langchain)"))),
        },
        separators: spec.separators.clone(),
        regex_separators: spec.regex_separators,
        keep_separator: KeepSeparator::Start,
        max_level: spec.max_level,
        title_prefix: spec.title_prefix,
        embedder: cached.map(|c| c as Arc<dyn chunklab_core::TextEmbedder>),
        breakpoint,
        breakpoint_amount: spec.breakpoint_amount,
        buffer: spec.buffer.unwrap_or(1),
        min_size: spec.min_size,
        piece_size: spec.piece_size,
        levels: if spec.strategy == "hierarchical" {
            Some(spec.levels_or_default())
        } else {
            None
        },
    };
    let chunker = strategies::build(&opts, sizer).map_err(|e| cfg(e.to_string()))?;
    if spec.strategy == "late" {
        let model = model.ok_or_else(|| cfg("late chunking needs a model".into()))?;
        let late = LateChunker::new(chunker, model.as_ref(), LateOptions::default())
            .map_err(|e| cfg(e.to_string()))?;
        return Ok(Box::new(late));
    }
    Ok(chunker)
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
