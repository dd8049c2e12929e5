//! Contextual retrieval, the pipeline's stage: `header` uses the document title and the chunk's
//! heading path, `llm` asks a language model for a short context per chunk. The context goes
//! into the chunk's `context` (never its span); the chunk's `tokens` becomes the real size of
//! the embedded text ([`chunklab_core::embedded_text`]), kept within the size limit by
//! shortening the context. The CLI's chunks and the lab's collections go through the same
//! [`ContextStage::apply`].

use crate::{ContextConfig, ContextKind, Fallback};
use anyhow::{bail, Context as _, Result};
use chunklab_core::{Chunk, Sizer};
use chunklab_llm::context::{
    contextualize_each, fit_context, fit_header, ChunkContext, ChunkRef, ContextOptions,
    ContextWarnings, OnFailure,
};
use chunklab_llm::LlmClient;
use std::ops::Range;
use std::sync::{Arc, Mutex};

/// A chunk the stage can give a context: its span, heading path and prefix, and where the
/// context and the new size go.
pub trait ContextTarget {
    /// Byte range in the document text.
    fn span(&self) -> Range<usize>;
    /// Heading path.
    fn headings(&self) -> &[String];
    /// Text embedded before the span (not part of it).
    fn prefix(&self) -> Option<&str>;
    /// Current size (prefix included).
    fn tokens(&self) -> usize;
    /// Store the fitted context and the real size of the embedded text.
    fn set_context(&mut self, context: String, tokens: usize);
}

impl ContextTarget for Chunk<'_> {
    fn span(&self) -> Range<usize> {
        self.start_byte..self.end_byte
    }
    fn headings(&self) -> &[String] {
        &self.meta.headings
    }
    fn prefix(&self) -> Option<&str> {
        self.meta.prefix.as_deref()
    }
    fn tokens(&self) -> usize {
        self.tokens
    }
    fn set_context(&mut self, context: String, tokens: usize) {
        self.meta.context = Some(context);
        self.tokens = tokens;
    }
}

/// The contextual-retrieval stage of one run.
pub struct ContextStage {
    llm: Option<Arc<LlmClient>>,
    options: ContextOptions,
    sizer: Arc<dyn Sizer>,
    limit: usize,
    warnings: Mutex<ContextWarnings>,
}

impl ContextStage {
    /// The stage `cfg` describes; sizes are checked with `sizer` against `limit` (the
    /// configuration's size).
    pub fn new(
        cfg: &ContextConfig,
        llm: Option<Arc<LlmClient>>,
        sizer: Arc<dyn Sizer>,
        limit: usize,
    ) -> Result<Self> {
        let llm = match cfg.kind {
            ContextKind::Header => None,
            ContextKind::Llm => Some(
                llm.ok_or(chunklab_core::Error::Param {
                    param: "llm",
                    message: "is needed by context llm (local:smollm2, openai:BASE_URL#MODEL or \
                          anthropic:MODEL)"
                        .into(),
                })?,
            ),
        };
        if cfg.max_tokens == 0 {
            // Taken as 1 silently before: a context of at most one token.
            return Err(chunklab_core::Error::Param {
                param: "context_max_tokens",
                message: "must be at least 1".into(),
            }
            .into());
        }
        let template = match &cfg.prompt {
            Some(p) => {
                let template = std::fs::read_to_string(p)
                    .with_context(|| format!("context prompt {}", p.display()))?;
                if let Err(e) = chunklab_llm::context::prompt_parts(&template) {
                    bail!("{}: {e}", p.display());
                }
                template
            }
            None => chunklab_llm::context::ANTHROPIC_PROMPT.to_string(),
        };
        let options = ContextOptions {
            template,
            max_tokens: cfg.max_tokens,
            on_failure: match cfg.fallback {
                Fallback::Error => OnFailure::Error,
                Fallback::Header => OnFailure::Header,
            },
            max_doc_tokens: cfg.doc_tokens,
            ..ContextOptions::default()
        };
        Ok(ContextStage {
            llm,
            options,
            sizer,
            limit,
            warnings: Mutex::new(ContextWarnings::default()),
        })
    }

    /// The language model, for `llm` contexts.
    pub fn llm(&self) -> Option<&Arc<LlmClient>> {
        self.llm.as_ref()
    }

    /// Give every chunk of the document `text` (title `title`) its context, fitted to the size
    /// limit; returns per-document warnings.
    pub fn apply<T: ContextTarget>(
        &self,
        text: &str,
        title: &str,
        chunks: &mut [T],
    ) -> Result<Vec<String>> {
        let contexts: Vec<ChunkContext> = match &self.llm {
            None => vec![ChunkContext::Header; chunks.len()],
            Some(llm) => {
                let refs: Vec<ChunkRef> = chunks
                    .iter()
                    .map(|c| ChunkRef {
                        span: c.span(),
                        headings: c.headings(),
                    })
                    .collect();
                let (contexts, w) =
                    contextualize_each(llm.as_ref(), text, title, &refs, &self.options)?;
                self.lock().add(&w);
                contexts
            }
        };
        let mut truncated = 0;
        for (c, ctx) in chunks.iter_mut().zip(contexts) {
            let body = chunklab_core::embedded_text(None, c.prefix(), &text[c.span()]);
            let limit = self.limit.max(c.tokens());
            let fitted = match ctx {
                ChunkContext::Header => {
                    fit_header(self.sizer.as_ref(), title, c.headings(), &body, limit)
                }
                ChunkContext::Model(m) => fit_context(self.sizer.as_ref(), &m, &body, limit),
            };
            truncated += usize::from(fitted.truncated);
            c.set_context(fitted.context, fitted.tokens);
        }
        self.lock().truncated += truncated;
        Ok(if truncated > 0 {
            vec![format!(
                "{truncated} contexts shortened to keep context + chunk within the size limit"
            )]
        } else {
            Vec::new()
        })
    }

    /// Counts so far: shortened, windowed, retried, fallbacks, rejections.
    pub fn warnings(&self) -> ContextWarnings {
        *self.lock()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, ContextWarnings> {
        self.warnings.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// One line for the end of the run: warnings and LLM token accounting.
    pub fn summary(&self) -> String {
        let mut s = format!("context: {}", self.warnings());
        if let Some(llm) = &self.llm {
            s.push_str(&format!(
                "; {}: {}",
                chunklab_llm::full_name(llm.as_ref()),
                llm.usage()
            ));
        }
        s
    }
}
