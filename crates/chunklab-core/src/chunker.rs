//! The `Chunker` seam and the function that turns a strategy's spans into [`Chunk`]s.

use crate::chunk::{chunk_id, Chunk, ChunkMeta, Span};
use crate::error::Result;
use crate::text::CharCursor;

/// A chunking strategy. Given a document's text it returns spans in document order (sorted by
/// start, then end). Spans may overlap (overlap is expressed in spans) but every span must lie on
/// char boundaries and respect the strategy's size limit in its sizer's real units.
pub trait Chunker: Send + Sync {
    /// Strategy name as used on the command line (`fixed`, `recursive`, ...).
    fn strategy(&self) -> &'static str;

    /// Canonical description of the configuration; part of every chunk id.
    fn config(&self) -> String;

    /// The chunk spans of `text`.
    fn spans(&self, text: &str) -> Result<Vec<Span>>;
}

/// A document to chunk: its id, where it came from, and its text.
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    pub doc_id: &'a str,
    pub source: &'a str,
    pub text: &'a str,
}

impl<'a> Document<'a> {
    pub fn new(doc_id: &'a str, source: &'a str, text: &'a str) -> Self {
        Self {
            doc_id,
            source,
            text,
        }
    }
}

/// Chunk a document: run the strategy, borrow each span's text, add char offsets, index/total
/// and stable ids.
///
/// ```
/// use chunklab_core::{chunk_document, Document, strategies::Fixed, CharSizer};
/// use std::sync::Arc;
/// let text = "Een korte tekst over windenergie.";
/// let chunker = Fixed::new(Arc::new(CharSizer), 10, 2).unwrap();
/// let chunks = chunk_document(&Document::new("doc-1", "mem", text), &chunker).unwrap();
/// assert_eq!(chunks[0].text, "Een korte ");
/// assert!(chunks.iter().all(|c| &text[c.start_byte..c.end_byte] == c.text));
/// ```
pub fn chunk_document<'a>(doc: &Document<'a>, chunker: &dyn Chunker) -> Result<Vec<Chunk<'a>>> {
    let spans = chunker.spans(doc.text)?;
    Ok(spans_to_chunks(doc, chunker, &spans))
}

/// Turn spans into chunks (shared by strategies that post-process spans).
pub fn spans_to_chunks<'a>(
    doc: &Document<'a>,
    chunker: &dyn Chunker,
    spans: &[Span],
) -> Vec<Chunk<'a>> {
    let config = chunker.config();
    let strategy = chunker.strategy();
    let total = spans.len();
    let mut cursor = CharCursor::new(doc.text);
    spans
        .iter()
        .enumerate()
        .map(|(index, s)| {
            let text = &doc.text[s.start..s.end];
            let start_char = cursor.char_at(s.start);
            let end_char = cursor.char_at(s.end);
            Chunk {
                id: chunk_id(doc.doc_id, s.start, s.end, &config, text),
                doc_id: doc.doc_id,
                source: doc.source,
                text,
                start_byte: s.start,
                end_byte: s.end,
                start_char,
                end_char,
                index,
                total,
                tokens: s.tokens,
                strategy,
                meta: ChunkMeta::default(),
            }
        })
        .collect()
}
