//! Shared mechanics of the model-driven strategies (`semantic`, `cluster`): the units of a parsed
//! document (cut where its elements allow), embedding units in batches, and emitting groups of
//! consecutive units as spans that never exceed the size limit.

use super::Recursive;
use crate::chunk::Span;
use crate::document::{ElementKind, ParsedDocument};
use crate::error::Result;
use crate::sizer::{Measure, Sizer};
use crate::text::strip_span;
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

/// A unit of a parsed document for the model-driven strategies (a sentence for `semantic`, a
/// piece for `cluster`): a stripped, non-empty byte range, and whether it is a heading (which
/// belongs with what follows it and so never ends a chunk).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Unit {
    pub start: usize,
    pub end: usize,
    pub heading: bool,
}

/// The units of `doc.text` cut at `cuts` (sentence or piece ends, any order) and at the starts
/// and ends of its elements, but never inside a heading, a code block, an inline link
/// (`[text](url "title")`) or an inline code span: a heading or a link is always whole in one
/// unit, and a heading is never part of the next paragraph's unit.
pub(crate) fn units_of(doc: &ParsedDocument, cuts: impl IntoIterator<Item = usize>) -> Vec<Unit> {
    let text = doc.text.as_str();
    let valid = |s: usize, e: usize| {
        s < e && e <= text.len() && text.is_char_boundary(s) && text.is_char_boundary(e)
    };
    let mut at: Vec<usize> = cuts.into_iter().filter(|&c| c <= text.len()).collect();
    let mut atoms: Vec<(usize, usize)> = inline_atoms(text);
    let mut headings: Vec<(usize, usize)> = Vec::new();
    for e in doc.elements.iter().filter(|e| valid(e.start, e.end)) {
        at.push(e.start);
        at.push(e.end);
        if e.kind.heading_level().is_some() {
            headings.push((e.start, e.end));
            atoms.push((e.start, e.end));
        } else if e.kind == ElementKind::Code {
            atoms.push((e.start, e.end));
        }
    }
    at.push(0);
    at.push(text.len());
    at.retain(|&c| text.is_char_boundary(c));
    atoms.sort_unstable();
    headings.sort_unstable();
    at.sort_unstable();
    at.dedup();
    // Drop the cuts strictly inside an atom (atoms sorted by start; a sweep over the cuts).
    let mut reach = 0usize;
    let mut k = 0;
    at.retain(|&c| {
        while k < atoms.len() && atoms[k].0 < c {
            reach = reach.max(atoms[k].1);
            k += 1;
        }
        c >= reach
    });
    let mut out = Vec::with_capacity(at.len());
    for w in at.windows(2) {
        let (s, e) = strip_span(text, w[0], w[1]);
        if s < e {
            let i = headings.partition_point(|h| h.1 <= s);
            let heading = headings.get(i).is_some_and(|h| h.0 <= s && e <= h.1);
            out.push(Unit {
                start: s,
                end: e,
                heading,
            });
        }
    }
    out
}

/// Longest inline link or code span taken as one atom, in bytes.
const MAX_ATOM_BYTES: usize = 2000;

/// Byte ranges of the Markdown inline links and images (`[text](target "title")`) and inline code
/// spans (`` `code` ``) of `text`, each on one line.
fn inline_atoms(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'`' => {
                let run = b[i..].iter().take_while(|&&c| c == b'`').count();
                let close = find_run(b, i + run, run);
                match close {
                    Some(j) => {
                        out.push((i, j + run));
                        i = j + run;
                    }
                    None => i += run,
                }
            }
            b'[' => match link_end(b, i) {
                Some(j) => {
                    out.push((i, j));
                    i = j;
                }
                None => i += 1,
            },
            _ => i += 1,
        }
    }
    out
}

/// Start of the next run of exactly `run` backticks from `from` on the same line.
fn find_run(b: &[u8], from: usize, run: usize) -> Option<usize> {
    let mut j = from;
    while j < b.len() && j - from < MAX_ATOM_BYTES {
        match b[j] {
            b'\n' => return None,
            b'`' => {
                let n = b[j..].iter().take_while(|&&c| c == b'`').count();
                if n == run {
                    return Some(j);
                }
                j += n;
            }
            _ => j += 1,
        }
    }
    None
}

/// End of the link `[text](target ...)` opening at `b[open] == b'['`, on one line, with nested
/// brackets in the text and parentheses in the target.
fn link_end(b: &[u8], open: usize) -> Option<usize> {
    let limit = b.len().min(open + MAX_ATOM_BYTES);
    let mut depth = 0usize;
    let mut j = open;
    while j < limit {
        match b[j] {
            b'\n' => return None,
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            _ => {}
        }
        j += 1;
    }
    if j + 1 >= limit || b[j] != b']' || b[j + 1] != b'(' {
        return None;
    }
    let mut depth = 0usize;
    let mut quoted = false;
    for (k, &c) in b.iter().enumerate().take(limit).skip(j + 1) {
        match c {
            b'\n' => return None,
            b'"' => quoted = !quoted,
            b'(' if !quoted => depth += 1,
            b')' if !quoted => {
                depth -= 1;
                if depth == 0 {
                    return Some(k + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// Where the model-driven strategies may end a chunk: after unit `i` unless it is a heading
/// (the last unit always may).
pub(crate) fn may_end(units: &[Unit], i: usize) -> bool {
    i + 1 >= units.len() || !units[i].heading
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Element;

    #[test]
    fn headings_and_links_stay_whole() {
        let text =
            "### 20.3.1. Connection Settings\n\nSee [Section 21.5](auth.html \"21.5. Password\") \
                    for details. Use `a.b. c` here. Next one.\n";
        let mut doc = ParsedDocument::plain(text.into());
        doc.format = "markdown".into();
        let h = text.find('\n').unwrap();
        doc.elements
            .push(Element::new(ElementKind::Heading { level: 3 }, 0, h));
        doc.elements
            .push(Element::new(ElementKind::Paragraph, h + 2, text.len() - 1));
        let sents = crate::segment::sentences(text, crate::Lang::English);
        let units = units_of(&doc, sents.iter().map(|s| s.1));
        let texts: Vec<&str> = units.iter().map(|u| &text[u.start..u.end]).collect();
        assert_eq!(
            texts,
            [
                "### 20.3.1. Connection Settings",
                "See [Section 21.5](auth.html \"21.5. Password\") for details.",
                "Use `a.b. c` here.",
                "Next one."
            ]
        );
        assert_eq!(
            units.iter().map(|u| u.heading).collect::<Vec<_>>(),
            [true, false, false, false]
        );
        assert!(!may_end(&units, 0) && may_end(&units, 1) && may_end(&units, 3));
    }
}
