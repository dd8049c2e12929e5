//! Contextual retrieval for a configuration's chunks (`context = "header"` or `"llm"`): each
//! chunk gets a short context, stored beside its span and embedded and indexed as
//! `context + "\n\n" + chunk`, with the context shortened so that the whole stays within the
//! configuration's size limit (the chunk's `tokens` becomes the real size of the whole).
//!
//! `header` is the document title (or id) and the chunk's heading path; `llm` asks a language
//! model through `chunklab-llm` (prompt cache, KV reuse of the document prefix, on-disk answer
//! cache, token accounting), falling back to the header context — counted — when the model
//! gives no usable answer twice.

use crate::chunking::{doc_runs, EvalChunk};
use crate::error::{Error, Result};
use crate::progress::Progress;
use chunklab_core::document::ParsedDocument;
use chunklab_core::Sizer;
use chunklab_llm::context::ContextWarnings;
use chunklab_llm::{Llm, LlmClient, Usage};
use chunklab_pipeline::{ContextConfig, ContextKind, ContextStage, Fallback};
use std::sync::Arc;

/// Document tokens per prompt for a local model (HTTP models get the whole document, or as much
/// as their context holds).
pub const LOCAL_DOC_TOKENS: usize = 2048;

/// What contextualising one configuration's chunks did.
#[derive(Debug, Clone, Default)]
pub struct ContextReport {
    /// Warnings of the LLM stage and contexts shortened to fit.
    pub warnings: ContextWarnings,
    /// Tokens the language model read (fresh and from its cache) and wrote.
    pub usage: Usage,
    /// Wall time of the stage.
    pub seconds: f64,
}

/// The title a context starts with: the parsed document's `title`, else its id.
fn title<'a>(doc: &'a ParsedDocument, id: &'a str) -> &'a str {
    doc.metadata
        .get("title")
        .map(String::as_str)
        .filter(|t| !t.trim().is_empty())
        .unwrap_or(id)
}

/// Give every chunk (in document order, as [`crate::chunking::chunk_all`] returns them) its
/// context through the pipeline's [`ContextStage`]: the header context, or one from `llm` when
/// it is given. Sizes are re-measured with `sizer` and contexts shortened to keep each chunk
/// within `limit`.
pub fn contextualize_chunks(
    chunks: &mut [EvalChunk],
    docs: &[ParsedDocument],
    ids: &[String],
    llm: Option<Arc<LlmClient>>,
    sizer: Arc<dyn Sizer>,
    limit: usize,
    progress: &dyn Progress,
) -> Result<ContextReport> {
    let t = std::time::Instant::now();
    let before = llm.as_ref().map(|l| l.usage()).unwrap_or_default();
    let cfg = ContextConfig {
        kind: if llm.is_some() {
            ContextKind::Llm
        } else {
            ContextKind::Header
        },
        max_tokens: 64,
        fallback: Fallback::Header,
        // A local model on the CPU reads at most this much of the document per prompt
        // (aligned windows, so neighbouring chunks share the window's KV cache).
        doc_tokens: llm
            .as_ref()
            .filter(|l| l.backend() == "local")
            .map(|_| LOCAL_DOC_TOKENS),
        prompt: None,
    };
    let stage = ContextStage::new(&cfg, llm.clone(), sizer, limit)
        .map_err(|e| Error::Config(format!("{e:#}")))?;
    let runs: Vec<(usize, std::ops::Range<usize>)> = doc_runs(chunks).collect();
    for (d, run) in runs {
        let (doc, id) = (&docs[d], ids[d].as_str());
        stage
            .apply(&doc.text, title(doc, id), &mut chunks[run.clone()])
            .map_err(|e| Error::Run(format!("context of `{id}`: {e:#}")))?;
        progress.set(run.end as u64);
    }
    Ok(ContextReport {
        warnings: stage.warnings(),
        usage: llm.map(|l| l.usage().since(&before)).unwrap_or_default(),
        seconds: t.elapsed().as_secs_f64(),
    })
}
