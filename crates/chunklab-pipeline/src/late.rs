//! Late chunking's vectors: each document embedded once (in macro windows past the model's
//! context), its token vectors mean-pooled per chunk.

use crate::input::Skip;
use anyhow::anyhow;
use chunklab_core::Chunk;
use chunklab_embed::{late_embeddings, Embedder, LateOptions};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// `strategy = late`: the model every document is embedded with and the window settings; the
/// chunks' vectors are the late-chunking vectors.
pub struct Late {
    /// The model.
    pub model: Arc<dyn Embedder>,
    /// Window settings.
    pub opts: LateOptions,
    /// Totals over all documents, for the summary line.
    pub stats: LateStats,
}

/// What late chunking took, summed over documents.
#[derive(Default)]
pub struct LateStats {
    /// Document tokens.
    pub tokens: AtomicUsize,
    /// Macro windows.
    pub windows: AtomicUsize,
    /// Model calls.
    pub forward_passes: AtomicUsize,
    /// Chunks without tokens of their own, embedded directly.
    pub direct: AtomicUsize,
}

impl Late {
    /// The late-chunking vectors of a document's chunks (one per chunk, in order).
    pub fn vectors(
        &self,
        text: &str,
        chunks: &[Chunk<'_>],
        source: &str,
    ) -> Result<Vec<Vec<f32>>, Skip> {
        let spans: Vec<_> = chunks.iter().map(|c| c.start_byte..c.end_byte).collect();
        let late = late_embeddings(self.model.as_ref(), text, &spans, &self.opts)
            .map_err(|e| Skip::Error(anyhow!("{source}: late chunking: {e}")))?;
        let s = &self.stats;
        s.tokens.fetch_add(late.tokens, Ordering::Relaxed);
        s.windows.fetch_add(late.windows.len(), Ordering::Relaxed);
        s.forward_passes
            .fetch_add(late.forward_passes, Ordering::Relaxed);
        s.direct.fetch_add(late.direct, Ordering::Relaxed);
        Ok(late.vectors)
    }

    /// One line for stderr: tokens, windows, model calls, chunks embedded on their own.
    pub fn summary(&self) -> String {
        let s = &self.stats;
        format!(
            "late chunking with {}: {} tokens in {} windows, {} model calls, {} chunks without tokens embedded on their own",
            self.model.name(),
            s.tokens.load(Ordering::Relaxed),
            s.windows.load(Ordering::Relaxed),
            s.forward_passes.load(Ordering::Relaxed),
            s.direct.load(Ordering::Relaxed),
        )
    }
}
