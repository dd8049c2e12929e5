//! `--context` for `chunk`: contextual retrieval. `llm` asks a language model (`--llm`) for a
//! short context per chunk, `header` uses the document title and the chunk's heading path. The
//! context goes into the chunk's `context` field (never into its span); the chunk's `tokens`
//! becomes the real size of `context + "\n\n" + prefix + text`, kept within `--size` by
//! shortening the context. Also builds the `llm` strategy.

use anyhow::{bail, Context as _, Result};
use chunklab_core::{Chunk, Chunker, Lang, Sizer};
use chunklab_llm::context::{
    contextualize, fit_context, ChunkRef, ContextOptions, ContextWarnings, OnFailure,
};
use chunklab_llm::header::header_context;
use chunklab_llm::spec::OpenOptions;
use chunklab_llm::strategy::LlmChunker;
use chunklab_llm::{Llm, LlmClient};
use std::sync::{Arc, Mutex};

/// Options of the contextual-retrieval stage and of the language model.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ContextArgs {
    /// Contextual retrieval: `llm` (a language model writes a context per chunk, see --llm) or
    /// `header` (document title + heading path, no model).
    #[arg(long, value_parser = ["llm", "header"])]
    pub context: Option<String>,
    /// Language model for --context llm, --strategy llm and `queries generate`:
    /// local:smollm2, local:PATH.gguf, openai:BASE_URL#MODEL (key: $OPENAI_API_KEY if set),
    /// anthropic:MODEL (key: $ANTHROPIC_API_KEY).
    #[arg(long)]
    pub llm: Option<String>,
    /// File with the context prompt; `{doc}` and `{chunk}` are replaced (default: Anthropic's
    /// contextual-retrieval prompt).
    #[arg(long)]
    pub context_prompt: Option<String>,
    /// Most tokens of one context.
    #[arg(long, default_value_t = 100)]
    pub context_max_tokens: usize,
    /// When the model gives no usable context twice: `header` falls back to the header context
    /// (counted in the summary), `error` fails the document.
    #[arg(long, default_value = "header", value_parser = ["header", "error"])]
    pub context_fallback: String,
    /// Most document tokens per context prompt (default: as many as the model's context
    /// leaves); longer documents are sent as windows holding the chunk, shared by neighbouring
    /// chunks. A small cap makes a local model much faster per chunk.
    #[arg(long)]
    pub context_doc_tokens: Option<usize>,
    /// Do not read or write the LLM answer cache ($CHUNKLAB_HOME/llm-cache).
    #[arg(long)]
    pub llm_no_cache: bool,
    /// Requests in flight at once for HTTP models.
    #[arg(long, default_value_t = 4)]
    pub llm_concurrency: usize,
}

impl ContextArgs {
    /// Open `--llm` (fetching a missing known local model when `fetch`).
    pub fn open_llm(&self, fetch: bool) -> Result<Option<Arc<LlmClient>>> {
        let Some(spec) = &self.llm else {
            return Ok(None);
        };
        let mut opts = OpenOptions {
            fetch,
            no_cache: self.llm_no_cache,
            ..OpenOptions::default()
        };
        opts.http.concurrency = self.llm_concurrency.max(1);
        let client =
            chunklab_llm::spec::open(spec, &opts).with_context(|| format!("--llm {spec}"))?;
        Ok(Some(Arc::new(client)))
    }
}

/// The `llm` strategy over `llm` (`--strategy llm`).
pub fn llm_chunker(
    llm: Option<&Arc<LlmClient>>,
    sizer: Arc<dyn Sizer>,
    size: usize,
    lang: Lang,
) -> Result<Box<dyn Chunker>> {
    let Some(llm) = llm else {
        bail!(
            "--strategy llm needs --llm (local:smollm2, openai:BASE_URL#MODEL or anthropic:MODEL)"
        );
    };
    let llm: Arc<dyn Llm> = llm.clone();
    Ok(Box::new(LlmChunker::new(llm, sizer, size, lang)?))
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
    /// The stage `args` ask for (`None` without `--context`); sizes are checked with `sizer`
    /// against `limit` (the chunk size).
    pub fn new(
        args: &ContextArgs,
        llm: Option<Arc<LlmClient>>,
        sizer: Arc<dyn Sizer>,
        limit: usize,
    ) -> Result<Option<Self>> {
        let llm = match args.context.as_deref() {
            None => return Ok(None),
            Some("header") => None,
            Some(_) => Some(llm.context("--context llm needs --llm (local:smollm2, openai:BASE_URL#MODEL or anthropic:MODEL)")?),
        };
        let template = match &args.context_prompt {
            Some(p) => {
                std::fs::read_to_string(p).with_context(|| format!("--context-prompt {p}"))?
            }
            None => chunklab_llm::context::ANTHROPIC_PROMPT.to_string(),
        };
        if !(template.contains("{doc}") && template.contains("{chunk}")) {
            bail!("--context-prompt must contain {{doc}} and then {{chunk}}");
        }
        let options = ContextOptions {
            template,
            max_tokens: args.context_max_tokens.max(1),
            on_failure: if args.context_fallback == "error" {
                OnFailure::Error
            } else {
                OnFailure::Header
            },
            max_doc_tokens: args.context_doc_tokens,
            ..ContextOptions::default()
        };
        Ok(Some(Self {
            llm,
            options,
            sizer,
            limit,
            warnings: Mutex::new(ContextWarnings::default()),
        }))
    }

    /// Give every chunk of the document `text` (title `title`) its context, fitted to the size
    /// limit; returns per-document warnings.
    pub fn apply(&self, text: &str, title: &str, chunks: &mut [Chunk<'_>]) -> Result<Vec<String>> {
        let contexts: Vec<String> = match &self.llm {
            None => chunks
                .iter()
                .map(|c| header_context(title, &c.meta.headings))
                .collect(),
            Some(llm) => {
                let refs: Vec<ChunkRef> = chunks
                    .iter()
                    .map(|c| ChunkRef {
                        span: c.start_byte..c.end_byte,
                        headings: &c.meta.headings,
                    })
                    .collect();
                let (contexts, w) = contextualize(llm.as_ref(), text, title, &refs, &self.options)?;
                self.warnings
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .add(&w);
                contexts
            }
        };
        let mut truncated = 0;
        for (c, ctx) in chunks.iter_mut().zip(contexts) {
            let body = match &c.meta.prefix {
                Some(p) => format!("{p}{}", c.text),
                None => c.text.to_string(),
            };
            let fitted = fit_context(self.sizer.as_ref(), &ctx, &body, self.limit);
            truncated += usize::from(fitted.truncated);
            c.tokens = fitted.tokens;
            c.meta.context = Some(fitted.context);
        }
        self.warnings
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .truncated += truncated;
        Ok(if truncated > 0 {
            vec![format!(
                "{truncated} contexts shortened to keep context + chunk within the size limit"
            )]
        } else {
            Vec::new()
        })
    }

    /// One line for the end of the run: warnings and LLM token accounting.
    pub fn summary(&self) -> String {
        let w = *self.warnings.lock().unwrap_or_else(|p| p.into_inner());
        let mut s = format!(
            "context: {} truncated to fit the size, {} documents windowed, {} retried, {} header fallbacks",
            w.truncated, w.windowed, w.retried, w.fallbacks
        );
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

impl ContextStage {
    /// [`ContextStage::apply`] on a prepared input: its text, and as title the parsed
    /// document's `title` metadata or else the document id.
    pub fn apply_prepared(
        &self,
        prepared: &crate::chunk_cmd::Prepared,
        input: &crate::input::Input,
        chunks: &mut [Chunk<'_>],
    ) -> Result<Vec<String>> {
        use crate::chunk_cmd::Prepared;
        let (text, title) = match prepared {
            Prepared::Parsed(doc, _) => (
                doc.text.as_str(),
                doc.metadata
                    .get("title")
                    .filter(|t| !t.trim().is_empty())
                    .cloned()
                    .unwrap_or_else(|| input.doc_id().to_string()),
            ),
            Prepared::Plain(t) => (t.as_str(), input.doc_id().to_string()),
        };
        self.apply(text, &title, chunks)
    }
}
