//! One document's chunks handed out a window at a time, for documents too large to hold all their
//! chunks at once (`chunklab chunk` on a 1 GB text): memory stays near the text's size instead of
//! the text plus a few hundred bytes per chunk.

use crate::{Input, Pipeline, Prepared, Skip};
use anyhow::anyhow;
use chunklab_core::{chunk_document_windowed, Chunk, Document};
use std::ops::Range;

/// A window of a document's chunks: the chunks of `new`, plus the chunk before and the chunk
/// after them when the document has them (for writers that name neighbours).
pub struct Window<'w, 'a> {
    /// The chunks, in document order; `index` and `total` are the document's.
    pub chunks: &'w [Chunk<'a>],
    /// Late chunking's vectors, one per chunk of `chunks`.
    pub vectors: Option<&'w [Vec<f32>]>,
    /// The chunks of this window that no earlier window handed out.
    pub new: Range<usize>,
}

/// What [`Pipeline::process_windowed`] saw of a document.
#[derive(Debug)]
pub struct Windowed {
    /// Chunks handed out.
    pub chunks: usize,
    /// Parser and context warnings.
    pub warnings: Vec<String>,
    /// Bytes of document text.
    pub bytes: usize,
}

impl Pipeline {
    /// [`Pipeline::process`] a window of `window` chunks at a time, in document order; the new
    /// chunks of all windows are exactly `process`'s chunks. Plain text chunked by a strategy
    /// without context or late chunking never holds more than a window of chunks (the
    /// strategy's spans are made at once); other documents are processed whole and handed out
    /// in windows. An error from `each` stops the document and is returned as a skip.
    pub fn process_windowed<'a>(
        &self,
        input: &'a Input,
        source: &'a str,
        prepared: &'a Prepared,
        window: usize,
        each: &mut dyn FnMut(Window<'_, 'a>) -> anyhow::Result<()>,
    ) -> Result<Windowed, Skip> {
        let window = window.max(1);
        if let (Prepared::Plain(text), None, None) = (prepared, &self.context, &self.late) {
            let doc = Document::new(input.doc_id(), source, text.as_str());
            let mut failed = None;
            let n = chunk_document_windowed(&doc, self.chunker.as_ref(), window, |chunks, new| {
                each(Window {
                    chunks,
                    vectors: None,
                    new,
                })
                .map_err(|e| {
                    failed = Some(e);
                    chunklab_core::Error::Config("stopped".into())
                })
            });
            return match (n, failed) {
                (_, Some(e)) => Err(Skip::Error(e)),
                (Err(e), None) => Err(Skip::Error(anyhow!("{source}: {e}"))),
                (Ok(chunks), None) => Ok(Windowed {
                    chunks,
                    warnings: prepared.warnings().to_vec(),
                    bytes: text.as_str().len(),
                }),
            };
        }
        let doc = self.process(input, source, prepared)?;
        let n = doc.chunks.len();
        let mut start = 0;
        while start < n {
            let end = (start + window).min(n);
            let (lo, hi) = (start.saturating_sub(1), (end + 1).min(n));
            each(Window {
                chunks: &doc.chunks[lo..hi],
                vectors: doc.vectors.as_deref().map(|v| &v[lo..hi]),
                new: start - lo..end - lo,
            })
            .map_err(Skip::Error)?;
            start = end;
        }
        Ok(Windowed {
            chunks: n,
            warnings: doc.warnings,
            bytes: doc.bytes,
        })
    }
}
