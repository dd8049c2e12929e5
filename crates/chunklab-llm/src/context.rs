//! Contextual retrieval: one short context per chunk, written by a language model that sees
//! the whole document (or a window of it) and the chunk.
//!
//! The context is stored next to the span (`ChunkMeta::context`), never spliced into it; the
//! embedded and BM25 text is `context + "\n\n" + chunk`, and [`fit_context`] keeps that within
//! the chunk size limit by truncating the context.

use crate::error::{Error, Result};
use crate::header::header_context;
use crate::llm::{Llm, Prompt};
use chunklab_core::text::{ceil_char_boundary, floor_char_boundary};
use chunklab_core::Sizer;
use std::ops::Range;

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
    /// Use the [`header_context`] and count it in [`ContextWarnings::fallbacks`].
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
    /// Empty or malformed answers after one retry.
    pub on_failure: OnFailure,
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
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ContextWarnings {
    /// Chunks whose prompt held a window of the document (the document exceeds the context).
    pub windowed: usize,
    /// Chunks asked a second time after an empty or malformed answer.
    pub retried: usize,
    /// Chunks that got the header context after two unusable answers.
    pub fallbacks: usize,
    /// Contexts shortened to keep `context + chunk` within the size limit ([`fit_context`]).
    pub truncated: usize,
}

impl ContextWarnings {
    /// Add `o` to `self`.
    pub fn add(&mut self, o: &ContextWarnings) {
        self.windowed += o.windowed;
        self.retried += o.retried;
        self.fallbacks += o.fallbacks;
        self.truncated += o.truncated;
    }
}

/// Split `template` at the end of `{doc}`: (shared part, request part).
fn split_template(template: &str) -> Result<(&str, &str)> {
    let d = template.find("{doc}");
    let c = template.find("{chunk}");
    match (d, c) {
        (Some(d), Some(c)) if d < c => Ok(template.split_at(d + "{doc}".len())),
        _ => Err(Error::BadSpec {
            spec: template.chars().take(60).collect(),
            detail: "a context template needs {doc} and then {chunk}".into(),
        }),
    }
}

/// A usable answer: trimmed, not empty, with at least one letter or digit.
fn clean(answer: &str) -> Option<String> {
    let t = answer.trim().trim_matches('"').trim();
    t.chars()
        .any(|c| c.is_alphanumeric())
        .then(|| t.to_string())
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

/// One context per chunk of `doc`, in order.
///
/// Prompts share the document prefix (the local model reuses its KV cache, Anthropic its prompt
/// cache). A document that does not fit the model's context (or `max_doc_tokens`) is sent as a
/// window holding each chunk (counted in `windowed`); windows are aligned so that neighbouring
/// chunks share one, and its cached prefix. An empty or malformed answer is asked once more with a nudge;
/// a second failure is an error or, with [`OnFailure::Header`], the header context of `title`
/// and the chunk's headings. Backend errors (HTTP, unreachable) are returned as they are.
pub fn contextualize(
    llm: &dyn Llm,
    doc: &str,
    title: &str,
    chunks: &[ChunkRef<'_>],
    opts: &ContextOptions,
) -> Result<(Vec<String>, ContextWarnings)> {
    let (head, tail) = split_template(&opts.template)?;
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
        let chunk = doc.get(c.span.clone()).ok_or_else(|| Error::BadSpec {
            spec: format!("{:?}", c.span),
            detail: format!("chunk span outside the document of {} bytes", doc.len()),
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
    for (c, (chunk, _)) in chunks.iter().zip(texts) {
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
    let answers = llm.complete_all(&prompts);
    let mut out = Vec::with_capacity(chunks.len());
    for ((answer, prompt), c) in answers.into_iter().zip(&prompts).zip(chunks) {
        let first = answer?.text;
        if let Some(t) = clean(&first) {
            out.push(t);
            continue;
        }
        warnings.retried += 1;
        let nudge = Prompt {
            request: format!("{}\nAnswer with one sentence.", prompt.request),
            ..prompt.clone()
        };
        let second = llm.complete(&nudge)?.text;
        if let Some(t) = clean(&second) {
            out.push(t);
            continue;
        }
        match opts.on_failure {
            OnFailure::Header => {
                warnings.fallbacks += 1;
                out.push(header_context(title, c.headings));
            }
            OnFailure::Error => {
                return Err(Error::NoAnswer {
                    backend: crate::llm::full_name(llm),
                    what: format!("context of the chunk at bytes {:?}", c.span),
                    answer: second,
                })
            }
        }
    }
    Ok((out, warnings))
}

/// A context fitted to a size limit, and the real size of the embedded text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fitted {
    /// The context, possibly shortened (at a word boundary when there is one), possibly empty
    /// when the chunk alone fills the limit.
    pub context: String,
    /// Real size of `context + "\n\n" + body` (or of `body` alone when the context is empty).
    pub tokens: usize,
    /// Whether the context was shortened.
    pub truncated: bool,
}

/// The embedded text of a chunk with a context: `context + "\n\n" + body`.
pub fn with_context(context: &str, body: &str) -> String {
    if context.is_empty() {
        body.to_string()
    } else {
        format!("{context}\n\n{body}")
    }
}

/// Shorten `context` so that `context + "\n\n" + body` is at most `limit` in `sizer`'s real
/// units (`body` is the chunk's embedded text: prefix + span text).
///
/// ```
/// use chunklab_core::CharSizer;
/// use chunklab_llm::context::fit_context;
/// let f = fit_context(&CharSizer, "About the parks budget", "Budget: 14 M", 30);
/// assert!(f.truncated);
/// assert_eq!(f.context, "About the parks");
/// assert!(f.tokens <= 30);
/// ```
pub fn fit_context(sizer: &dyn Sizer, context: &str, body: &str, limit: usize) -> Fitted {
    let full = sizer.count(&with_context(context, body));
    if full <= limit || context.is_empty() {
        return Fitted {
            context: context.to_string(),
            tokens: full,
            truncated: false,
        };
    }
    // Largest char-boundary prefix that fits (sizes grow with the prefix for every sizer we
    // have; the result is verified below either way).
    let bounds: Vec<usize> = context.char_indices().map(|(i, _)| i).collect();
    let (mut lo, mut hi) = (0usize, bounds.len());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if sizer.count(&with_context(context[..bounds[mid - 1]].trim_end(), body)) <= limit
            || mid == 0
        {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    let mut cut = if lo == 0 { 0 } else { bounds[lo - 1] };
    // Back off to a word boundary when the cut is inside a word.
    if cut > 0 && !context[cut..].starts_with(char::is_whitespace) {
        if let Some(ws) = context[..cut].rfind(char::is_whitespace) {
            cut = ws;
        }
    }
    let mut ctx = context[..cut].trim_end().to_string();
    let mut tokens = sizer.count(&with_context(&ctx, body));
    if tokens > limit {
        ctx.clear();
        tokens = sizer.count(body);
    }
    Fitted {
        context: ctx,
        tokens,
        truncated: true,
    }
}
