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
use crate::run::Progress;
use chunklab_core::document::ParsedDocument;
use chunklab_core::Sizer;
use chunklab_llm::context::{
    contextualize, fit_context, ChunkRef, ContextOptions, ContextWarnings, OnFailure,
};
use chunklab_llm::header::header_context;
use chunklab_llm::{Llm, LlmClient, Usage};

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
/// context: the header context, or one from `llm` when it is given. Sizes are re-measured with
/// `sizer` and contexts shortened to keep each chunk within `limit`.
pub fn contextualize_chunks(
    chunks: &mut [EvalChunk],
    docs: &[ParsedDocument],
    ids: &[String],
    llm: Option<&LlmClient>,
    sizer: &dyn Sizer,
    limit: usize,
    progress: &dyn Progress,
) -> Result<ContextReport> {
    let t = std::time::Instant::now();
    let mut report = ContextReport::default();
    let before = llm.map(|l| l.usage()).unwrap_or_default();
    let options = ContextOptions {
        max_tokens: 64,
        on_failure: OnFailure::Header,
        // A local model on the CPU reads at most this much of the document per prompt
        // (aligned windows, so neighbouring chunks share the window's KV cache).
        max_doc_tokens: llm
            .filter(|l| l.backend() == "local")
            .map(|_| LOCAL_DOC_TOKENS),
        ..ContextOptions::default()
    };
    let runs: Vec<(usize, std::ops::Range<usize>)> = doc_runs(chunks).collect();
    for (d, run) in runs {
        let (start, end) = (run.start, run.end);
        let (doc, id) = (&docs[d], ids[d].as_str());
        let contexts: Vec<String> = match llm {
            None => chunks[start..end]
                .iter()
                .map(|c| header_context(title(doc, id), &c.headings))
                .collect(),
            Some(llm) => {
                let refs: Vec<ChunkRef> = chunks[start..end]
                    .iter()
                    .map(|c| ChunkRef {
                        span: c.start_byte..c.end_byte,
                        headings: &c.headings,
                    })
                    .collect();
                let (contexts, w) = contextualize(llm, &doc.text, title(doc, id), &refs, &options)
                    .map_err(|e| Error::Run(format!("context of `{id}`: {e}")))?;
                report.warnings.add(&w);
                contexts
            }
        };
        for (c, ctx) in chunks[start..end].iter_mut().zip(contexts) {
            let fitted = fit_context(sizer, &ctx, &c.body(&doc.text), limit.max(c.tokens));
            report.warnings.truncated += usize::from(fitted.truncated);
            c.tokens = fitted.tokens;
            c.context = Some(fitted.context);
        }
        progress.set(end as u64);
    }
    if let Some(l) = llm {
        report.usage = l.usage().since(&before);
    }
    report.seconds = t.elapsed().as_secs_f64();
    Ok(report)
}
