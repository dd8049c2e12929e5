//! Shared mechanics of the model-driven strategies (`semantic`, `cluster`): embedding the units
//! of a document in batches, and emitting groups of consecutive units as spans that never exceed
//! the size limit.

use super::Recursive;
use crate::chunk::Span;
use crate::error::Result;
use crate::sizer::{Measure, Sizer};
use crate::text_embedder::{embed_checked, TextEmbedder};

/// Texts per call to the embedder.
const EMBED_BATCH: usize = 256;

/// Vectors of `texts`, asking `embedder` for at most [`EMBED_BATCH`] texts at a time.
pub(crate) fn embed_all(embedder: &dyn TextEmbedder, texts: &[&str]) -> Result<Vec<Vec<f32>>> {
    let mut out = Vec::with_capacity(texts.len());
    for batch in texts.chunks(EMBED_BATCH) {
        out.extend(embed_checked(embedder, batch)?);
    }
    Ok(out)
}

/// Emits groups as spans within the limit.
pub(crate) struct BoundedEmitter<'a> {
    pub text: &'a str,
    pub measure: &'a Measure,
    pub sizer: &'a dyn Sizer,
    /// Splits a group that is over the limit, inside the group's span.
    pub recursive: &'a Recursive,
    pub size: usize,
}

impl BoundedEmitter<'_> {
    /// Push `text[start..end]` (stripped, non-empty) with its real size, or, when it is over the
    /// limit for real, the native `recursive` spans of it.
    pub fn emit(&self, start: usize, end: usize, out: &mut Vec<Span>) -> Result<()> {
        let tokens = self.sizer.count_span(self.text, self.measure, start, end);
        if tokens <= self.size {
            out.push(Span::new(start, end, tokens));
            return Ok(());
        }
        out.extend(
            self.recursive
                .spans_in(self.text, self.measure, (start, end), self.size)?,
        );
        Ok(())
    }
}
