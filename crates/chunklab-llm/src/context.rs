//! Contextual retrieval: one short context per chunk, written by a language model that sees
//! the whole document (or a window of it) and the chunk.
//!
//! The context is stored next to the span (`ChunkMeta::context`), never spliced into it; the
//! embedded and BM25 text is `context + "\n\n" + chunk`, and [`fit_context`] (a model's
//! context) or [`fit_header`] (a header context) keeps that within the chunk size limit.
//!
//! Every answer passes the quality gates of [`crate::quality`] (repetition loops, echoes of the
//! chunk or the prompt, wrong language, length); a rejected answer is asked once more with a
//! nudge, then replaced by the header context ([`OnFailure::Header`]); rejections are counted
//! per reason in [`ContextWarnings::rejected`] and never cached as good answers.

use crate::error::{Error, Result};
use crate::header::header_context;
use crate::llm::{Llm, Prompt};
use crate::quality::{ContextCheck, ContextGates, Reject, Rejections};
use chunklab_core::text::{ceil_char_boundary, floor_char_boundary};
use chunklab_core::{Lang, Sizer};
use std::ops::Range;

pub use crate::fit::{fit_context, fit_header, with_context, Fitted};

/// Anthropic's published contextual-retrieval prompt; `{doc}` and `{chunk}` are replaced.
pub const ANTHROPIC_PROMPT: &str = "<document>\n{doc}\n</document>\nHere is the chunk we want to situate within the whole document\n<chunk>\n{chunk}\n</chunk>\nPlease give a short succinct context to situate this chunk within the overall document for the purposes of improving search retrieval of the chunk. Answer only with the succinct context and nothing else.";

/// Tokens kept free besides prompt and answer when checking the context window (chat markup).
const MARGIN: usize = 32;

/// What to do when the model gives no usable answer for a chunk twice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnFailure {
    /// Fail with [`Error::NoAnswer`].
    #[default]
    Error,
    /// Use the header context ([`ChunkContext::Header`]) and count it in
    /// [`ContextWarnings::fallbacks`].
    Header,
}

/// Settings of [`contextualize`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextOptions {
    /// Prompt with `{doc}` before `{chunk}`; the part up to and including `{doc}` is the shared
    /// (cached) prefix.
    pub template: String,
    /// System message (empty = backend default).
    pub system: String,
    /// Most tokens per context.
    pub max_tokens: usize,
    /// Answers rejected by the gates (empty, loops, echoes, ...) after one retry.
    pub on_failure: OnFailure,
    /// Limits of the quality gates.
    pub gates: ContextGates,
    /// Most document tokens in one prompt (`None`: as many as the model's context leaves). A
    /// longer document is sent as a window holding the chunk; a smaller cap makes a small local
    /// model faster per chunk.
    pub max_doc_tokens: Option<usize>,
}

impl Default for ContextOptions {
    fn default() -> Self {
        Self {
            template: ANTHROPIC_PROMPT.to_string(),
            system: String::new(),
            max_tokens: 100,
            on_failure: OnFailure::Error,
            gates: ContextGates::default(),
            max_doc_tokens: None,
        }
    }
}

/// One chunk to situate: its byte span in the document and its heading path (for the header
/// fallback).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkRef<'a> {
    /// Byte range of the chunk in the document.
    pub span: Range<usize>,
    /// Heading path of the chunk.
    pub headings: &'a [String],
}

/// Counts of everything that did not go the plain way.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct ContextWarnings {
    /// Chunks whose prompt held a window of the document (the document exceeds the context).
    pub windowed: usize,
    /// Chunks asked a second time after a rejected answer.
    pub retried: usize,
    /// Chunks that got the header context after two rejected answers.
    pub fallbacks: usize,
    /// Contexts shortened to keep `context + chunk` within the size limit ([`fit_context`]).
    pub truncated: usize,
    /// Rejected answers per reason (first answers and retries).
    pub rejected: Rejections,
}

impl ContextWarnings {
    /// Add `o` to `self`.
    pub fn add(&mut self, o: &ContextWarnings) {
        self.windowed += o.windowed;
        self.retried += o.retried;
        self.fallbacks += o.fallbacks;
        self.truncated += o.truncated;
        self.rejected.add(&o.rejected);
    }
}

/// The summary line of a contextual-retrieval run:
/// `2 truncated to fit the size, 0 documents windowed, 3 retried, 1 header fallbacks (rejected
/// answers: 3 repetition, 1 chunk echo)`.
impl std::fmt::Display for ContextWarnings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} truncated to fit the size, {} documents windowed, {} retried, {} header fallbacks (rejected answers: {})",
            self.truncated, self.windowed, self.retried, self.fallbacks, self.rejected
        )
    }
}

/// The context of one chunk: a model's answer that passed the gates, or the header context.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChunkContext {
    /// Written by the language model.
    Model(String),
    /// The header context (document title and heading path): `--context header`, or the
    /// fallback after two rejected answers.
    Header,
}

impl ChunkContext {
    /// The context text for a chunk of the document `title` under `headings`.
    pub fn text(&self, title: &str, headings: &[String]) -> String {
        match self {
            ChunkContext::Model(t) => t.clone(),
            ChunkContext::Header => header_context(title, headings),
        }
    }

    /// The context fitted to `limit` with `body` (the chunk's prefix + text): a model's context
    /// shortened at a word boundary ([`fit_context`]), a header context by whole heading-path
    /// components ([`fit_header`]).
    pub fn fit(
        &self,
        sizer: &dyn Sizer,
        title: &str,
        headings: &[String],
        body: &str,
        limit: usize,
    ) -> Fitted {
        match self {
            ChunkContext::Model(t) => fit_context(sizer, t, body, limit),
            ChunkContext::Header => fit_header(sizer, title, headings, body, limit),
        }
    }
}

/// Split `template` at the end of `{doc}`: (shared part, request part).
/// A context prompt cut after its `{doc}`: the part through the document, and the rest, which
/// holds `{chunk}`; [`Error::BadPrompt`] without `{doc}` and then `{chunk}`.
///
/// ```
/// use chunklab_llm::context::prompt_parts;
/// assert_eq!(prompt_parts("<d>{doc}</d> {chunk}").unwrap(), ("<d>{doc}", "</d> {chunk}"));
/// assert!(prompt_parts("{chunk} in {doc}").is_err());
/// ```
pub fn prompt_parts(template: &str) -> Result<(&str, &str)> {
    let d = template.find("{doc}");
    let c = template.find("{chunk}");
    match (d, c) {
        (Some(d), Some(c)) if d < c => Ok(template.split_at(d + "{doc}".len())),
        _ => Err(Error::BadPrompt),
    }
}

/// The second request after a rejected answer: the same prompt with a nudge that fits the
/// reason.
fn nudge(prompt: &Prompt, reason: Reject, lang: Option<Lang>) -> Prompt {
    let ask = match (reason, lang) {
        (Reject::Language, Some(Lang::Dutch)) => "Answer with one short sentence in Dutch.",
        (Reject::Language, _) => "Answer with one short sentence in English.",
        (Reject::Empty, _) => "Answer with one sentence.",
        _ => "Answer with one short sentence in your own words; do not copy the text.",
    };
    Prompt {
        request: format!("{}\n{ask}", prompt.request),
        ..prompt.clone()
    }
}

/// Windows of a document too long for one prompt. Windows have one byte length and start at
/// multiples of half of it, so neighbouring chunks get the very same window — and share its
/// prompt prefix (KV cache, prompt cache) — instead of one window centred on each chunk.
struct Windows<'a> {
    llm: &'a dyn Llm,
    doc: &'a str,
    budget: usize,
    bytes: usize,
    /// The last window handed out and whether it fitted the budget.
    last: Option<(Range<usize>, bool)>,
}

impl<'a> Windows<'a> {
    fn new(llm: &'a dyn Llm, doc: &'a str, doc_tokens: usize, budget: usize) -> Self {
        let per_token = doc.len() as f64 / doc_tokens.max(1) as f64;
        let bytes = ((budget as f64 * per_token * 0.9) as usize).max(1);
        Windows {
            llm,
            doc,
            budget,
            bytes,
            last: None,
        }
    }

    /// The window holding `chunk`: the aligned one nearest to the chunk's middle when it fits,
    /// else the largest window centred on the chunk that fits.
    fn around(&mut self, chunk: &Range<usize>) -> Range<usize> {
        let (doc, bytes) = (self.doc, self.bytes);
        let stride = (bytes / 2).max(1);
        let mid = (chunk.start + chunk.end) / 2;
        let k = (mid.saturating_sub(bytes / 2) + stride / 2) / stride;
        let mut start = k * stride;
        let end = (start + bytes).min(doc.len());
        start = start.min(end.saturating_sub(bytes));
        let aligned = floor_char_boundary(doc, start)..ceil_char_boundary(doc, end);
        if aligned.start <= chunk.start && chunk.end <= aligned.end {
            let fits = match &self.last {
                Some((r, fits)) if *r == aligned => *fits,
                _ => self.llm.count_tokens(&doc[aligned.clone()]) <= self.budget,
            };
            self.last = Some((aligned.clone(), fits));
            if fits {
                return aligned;
            }
        }
        self.centred(chunk)
    }

    /// The largest char-boundary window centred on `chunk` with at most `budget` tokens.
    fn centred(&self, chunk: &Range<usize>) -> Range<usize> {
        let doc = self.doc;
        let mut bytes = self.bytes;
        loop {
            let mid = (chunk.start + chunk.end) / 2;
            let mut start = mid.saturating_sub(bytes / 2);
            let end = (start + bytes).min(doc.len());
            start = end.saturating_sub(bytes).min(start);
            let r = floor_char_boundary(doc, start)..ceil_char_boundary(doc, end);
            if bytes == 0 || self.llm.count_tokens(&doc[r.clone()]) <= self.budget {
                return r;
            }
            bytes = bytes * 4 / 5;
        }
    }
}

/// One context per chunk of `doc`, in order: [`contextualize_each`] with the header fallbacks
/// written out as [`header_context`] strings.
pub fn contextualize(
    llm: &dyn Llm,
    doc: &str,
    title: &str,
    chunks: &[ChunkRef<'_>],
    opts: &ContextOptions,
) -> Result<(Vec<String>, ContextWarnings)> {
    let (contexts, warnings) = contextualize_each(llm, doc, title, chunks, opts)?;
    let texts = contexts
        .iter()
        .zip(chunks)
        .map(|(c, r)| c.text(title, r.headings))
        .collect();
    Ok((texts, warnings))
}

/// One context per chunk of `doc`, in order.
///
/// Prompts share the document prefix (the local model reuses its KV cache, Anthropic its prompt
/// cache). A document that does not fit the model's context (or `max_doc_tokens`) is sent as a
/// window holding each chunk (counted in `windowed`); windows are aligned so that neighbouring
/// chunks share one, and its cached prefix. Every answer passes the gates of
/// [`crate::quality::ContextCheck`]; a rejected answer is marked rejected in the answer cache
/// ([`Llm::reject`]) and asked once more with a nudge; a second rejection is an error or, with
/// [`OnFailure::Header`], [`ChunkContext::Header`]. Rejections are counted per reason. Backend
/// errors (HTTP, unreachable) are returned as they are. `title` names the document in errors.
pub fn contextualize_each(
    llm: &dyn Llm,
    doc: &str,
    title: &str,
    chunks: &[ChunkRef<'_>],
    opts: &ContextOptions,
) -> Result<(Vec<ChunkContext>, ContextWarnings)> {
    let (head, tail) = prompt_parts(&opts.template)?;
    let mut warnings = ContextWarnings::default();
    if chunks.is_empty() {
        return Ok((Vec::new(), warnings));
    }
    let fixed = llm.count_tokens(&opts.system)
        + llm.count_tokens(&head.replace("{doc}", ""))
        + llm.count_tokens(&tail.replace("{chunk}", ""))
        + opts.max_tokens
        + MARGIN;
    let doc_tokens = llm.count_tokens(doc);
    let mut texts = Vec::with_capacity(chunks.len());
    for c in chunks {
        let chunk = doc.get(c.span.clone()).ok_or_else(|| Error::SpanOutside {
            span: format!("{:?}", c.span),
            len: doc.len(),
        })?;
        texts.push((chunk, llm.count_tokens(chunk)));
    }
    // One budget for the document, so that chunks can share a window.
    let longest = texts.iter().map(|t| t.1).max().unwrap_or(0);
    let budget = llm
        .context_tokens()
        .saturating_sub(fixed + longest)
        .min(opts.max_doc_tokens.unwrap_or(usize::MAX));
    let mut windows = (doc_tokens > budget).then(|| Windows::new(llm, doc, doc_tokens, budget));
    let mut prompts = Vec::with_capacity(chunks.len());
    for (c, &(chunk, _)) in chunks.iter().zip(&texts) {
        let part = match &mut windows {
            None => doc,
            Some(w) => {
                warnings.windowed += 1;
                &doc[w.around(&c.span)]
            }
        };
        prompts.push(Prompt {
            system: opts.system.clone(),
            shared: head.replace("{doc}", part),
            request: tail.replace("{chunk}", chunk),
            max_tokens: opts.max_tokens,
        });
    }
    let check = ContextCheck::new(
        opts.gates,
        &format!(
            "{}{}",
            head.replace("{doc}", ""),
            tail.replace("{chunk}", "")
        ),
        doc,
    );
    let answers = llm.complete_all(&prompts);
    let mut out = Vec::with_capacity(chunks.len());
    for (((answer, prompt), c), &(chunk, _)) in
        answers.into_iter().zip(&prompts).zip(chunks).zip(&texts)
    {
        let first = answer?.text;
        let reason = match check.check(&first, chunk) {
            Ok(t) => {
                out.push(ChunkContext::Model(t));
                continue;
            }
            Err(r) => r,
        };
        warnings.rejected.count(reason);
        llm.reject(prompt, reason.as_str());
        warnings.retried += 1;
        let again = nudge(prompt, reason, check.doc_lang());
        let second = llm.complete(&again)?.text;
        let reason = match check.check(&second, chunk) {
            Ok(t) => {
                out.push(ChunkContext::Model(t));
                continue;
            }
            Err(r) => r,
        };
        warnings.rejected.count(reason);
        llm.reject(&again, reason.as_str());
        match opts.on_failure {
            OnFailure::Header => {
                warnings.fallbacks += 1;
                out.push(ChunkContext::Header);
            }
            OnFailure::Error => {
                return Err(Error::NoAnswer {
                    backend: crate::llm::full_name(llm),
                    what: format!(
                        "context of the chunk at bytes {:?} of {title}: answer rejected ({reason})",
                        c.span
                    ),
                    answer: second,
                })
            }
        }
    }
    Ok((out, warnings))
}

#[cfg(test)]
#[path = "context_tests.rs"]
mod tests;
