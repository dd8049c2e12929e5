//! Fitting a context to the chunk size: the embedded text is `context + "\n\n" + body` (only
//! `body` when the context is empty), kept within the size limit by shortening the context —
//! a model's context at a word boundary ([`fit_context`]), a header context by dropping whole
//! heading-path components ([`fit_header`]).

use crate::header::header_parts;
use chunklab_core::Sizer;

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

/// The embedded text of a chunk with a context: `context + "\n\n" + body`
/// ([`chunklab_core::embedded_text`]; an empty context adds no separator).
pub fn with_context(context: &str, body: &str) -> String {
    chunklab_core::embedded_text(Some(context), None, body)
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

/// Marks the heading-path components [`fit_header`] left out.
pub const ELIDED: &str = "…";

/// The header context of `title` and `headings` ([`crate::header::header_context`]) fitted so
/// that `context + "\n\n" + body` is at most `limit`: when the whole path does not fit, whole
/// components are dropped, never part of one. Kept in this order of preference: the title and
/// the nearest headings (`Title > … > Section > Subsection`, as many of the nearest as fit), the
/// title alone, the nearest heading alone, no context.
///
/// ```
/// use chunklab_core::CharSizer;
/// use chunklab_llm::fit::fit_header;
/// let path = ["Jaarverslag 2021".to_string(), "Financiën".to_string(), "Parken".to_string()];
/// let f = fit_header(&CharSizer, "Gemeente Utrecht", &path, "Budget: 14 M", 45);
/// assert_eq!(f.context, "Gemeente Utrecht > … > Parken");
/// assert!(f.truncated && f.tokens <= 45);
/// ```
pub fn fit_header(
    sizer: &dyn Sizer,
    title: &str,
    headings: &[String],
    body: &str,
    limit: usize,
) -> Fitted {
    let parts = header_parts(title, headings);
    let full = parts.join(" > ");
    let tokens = sizer.count(&with_context(&full, body));
    if tokens <= limit || parts.is_empty() {
        return Fitted {
            context: full,
            tokens,
            truncated: false,
        };
    }
    let has_title = !title.trim().is_empty();
    let (lead, path) = if has_title {
        (Some(parts[0]), &parts[1..])
    } else {
        (None, &parts[..])
    };
    let mut candidates: Vec<String> = Vec::new();
    for keep in (1..path.len()).rev() {
        let mut c: Vec<&str> = lead.into_iter().collect();
        c.push(ELIDED);
        c.extend(&path[path.len() - keep..]);
        candidates.push(c.join(" > "));
    }
    candidates.extend(lead.map(str::to_string));
    if has_title {
        candidates.extend(path.last().map(|h| h.to_string()));
    }
    for c in candidates {
        let tokens = sizer.count(&with_context(&c, body));
        if tokens <= limit {
            return Fitted {
                context: c,
                tokens,
                truncated: true,
            };
        }
    }
    Fitted {
        context: String::new(),
        tokens: sizer.count(body),
        truncated: true,
    }
}
