//! Machinery shared by the structure-aware strategies (`headings`, `elements`): the document is
//! measured once; a chunk is a stripped span plus an optional prefix (heading path, repeated table
//! header) whose size counts toward the limit; every emitted chunk's size is the real count of
//! `prefix + text`; a stretch that does not fit is split by the native `recursive` strategy with
//! the prefix's units taken off the budget.

use super::fixed::validate;
use super::recursive::Recursive;
use crate::chunk::{ChunkMeta, Span};
use crate::chunker::Locator;
use crate::document::ParsedDocument;
use crate::error::{config_err, param_err, Error, Result};
use crate::sizer::{Measure, Sizer, MAX_DOCUMENT_BYTES};
use crate::text::strip_span;
use std::collections::HashMap;
use std::sync::Arc;

/// Settings shared by the structure-aware strategies (`headings`, `elements`): the size limit,
/// how deep headings cut, whether the heading path becomes a counted prefix, and the recursive
/// splitter for text that is still too big.
#[derive(Debug)]
pub(crate) struct StructureConfig {
    pub(crate) sizer: Arc<dyn Sizer>,
    pub(crate) size: usize,
    pub(crate) max_level: u8,
    pub(crate) title_prefix: bool,
    pub(crate) splitter: Recursive,
}

impl StructureConfig {
    pub(crate) fn new(
        sizer: Arc<dyn Sizer>,
        size: usize,
        max_level: usize,
        title_prefix: bool,
    ) -> Result<Self> {
        validate(size, 0)?;
        if max_level == 0 {
            return param_err("max_level", "must be at least 1");
        }
        Ok(Self {
            splitter: Recursive::new(sizer.clone(), size, 0)?,
            sizer,
            size,
            max_level: max_level.min(u8::MAX as usize) as u8,
            title_prefix,
        })
    }

    /// The `Chunker::config` string of `strategy` with these settings.
    pub(crate) fn describe(&self, strategy: &str) -> String {
        format!(
            "{strategy} size={} max_level={} title_prefix={} unit={}",
            self.size,
            self.max_level,
            self.title_prefix,
            self.sizer.name()
        )
    }

    /// An `Emitter` for `doc` with these settings.
    pub(crate) fn emitter<'a>(&'a self, doc: &'a ParsedDocument) -> Result<Emitter<'a>> {
        Emitter::new(doc, self.sizer.as_ref(), self.size, &self.splitter)
    }
}

/// What `spans()` of a structure-aware strategy answers: it needs the parsed document.
pub(crate) fn requires_parsed<T>(strategy: &str) -> Result<T> {
    config_err(format!(
        "the `{strategy}` strategy requires a parsed document (Chunker::chunk_parsed; \
         `chunklab chunk` parses every file)"
    ))
}

/// Longest heading text (in chars) carried into a heading path; longer ones are cut with `…`.
const MAX_TITLE_CHARS: usize = 200;

/// A prefix and its size in the sizer's units.
pub(crate) type Prefix = (String, usize);

/// Emits the chunks of one parsed document.
pub(crate) struct Emitter<'a> {
    pub text: &'a str,
    pub size: usize,
    sizer: &'a dyn Sizer,
    measure: Measure,
    splitter: &'a Recursive,
    locator: Locator<'a>,
    prefix_units: HashMap<String, usize>,
    pub out: Vec<(Span, ChunkMeta)>,
}

impl<'a> Emitter<'a> {
    pub fn new(
        doc: &'a ParsedDocument,
        sizer: &'a dyn Sizer,
        size: usize,
        splitter: &'a Recursive,
    ) -> Result<Self> {
        if doc.text.len() > MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(doc.text.len()));
        }
        Ok(Self {
            text: &doc.text,
            size,
            sizer,
            measure: sizer.measure(&doc.text),
            splitter,
            locator: Locator::new(doc),
            prefix_units: HashMap::new(),
            out: Vec::new(),
        })
    }

    /// Planned units of `text[start..end]` without its surrounding whitespace.
    pub fn units(&self, start: usize, end: usize) -> usize {
        let (s, e) = strip_span(self.text, start, end);
        self.measure.units_between(self.text, s, e)
    }

    /// Whether `text[start..end]` with a prefix of `prefix_units` fits by plan.
    pub fn fits(&self, start: usize, end: usize, prefix_units: usize) -> bool {
        self.units(start, end) + prefix_units <= self.size
    }

    /// The first candidate prefix that takes at most half the size (so at least half is left for
    /// text), with its size; `None` when none is that small.
    pub fn choose_prefix(
        &mut self,
        candidates: impl IntoIterator<Item = String>,
    ) -> Option<Prefix> {
        for c in candidates {
            if c.is_empty() {
                continue;
            }
            let units = match self.prefix_units.get(&c) {
                Some(&u) => u,
                None => {
                    let u = self.sizer.count(&c);
                    self.prefix_units.insert(c.clone(), u);
                    u
                }
            };
            if units <= self.size / 2 {
                return Some((c, units));
            }
        }
        None
    }

    /// Emit `text[start..end]` (stripped) as one chunk if it fits for real, otherwise split it.
    pub fn emit(
        &mut self,
        start: usize,
        end: usize,
        prefix: Option<&Prefix>,
        meta: &ChunkMeta,
    ) -> Result<()> {
        let (s, e) = strip_span(self.text, start, end);
        if s == e {
            return Ok(());
        }
        let pu = prefix.map_or(0, |p| p.1);
        if self.measure.units_between(self.text, s, e) + pu <= self.size {
            let real = self.real(s, e, prefix);
            if real <= self.size {
                self.push(s, e, real, prefix, meta);
                return Ok(());
            }
        }
        self.split(s, e, prefix, meta)
    }

    /// Emit `text[start..end]` as one chunk when it fits for real; `false` (nothing emitted)
    /// otherwise. Whitespace-only text counts as emitted.
    pub fn try_emit(
        &mut self,
        start: usize,
        end: usize,
        prefix: Option<&Prefix>,
        meta: &ChunkMeta,
    ) -> bool {
        let (s, e) = strip_span(self.text, start, end);
        if s == e {
            return true;
        }
        let pu = prefix.map_or(0, |p| p.1);
        if self.measure.units_between(self.text, s, e) + pu > self.size {
            return false;
        }
        let real = self.real(s, e, prefix);
        if real > self.size {
            return false;
        }
        self.push(s, e, real, prefix, meta);
        true
    }

    /// Merge neighbouring chunks emitted from index `from` on that have the same heading path,
    /// kind and prefix while together they fit for real (Docling's `merge_peers`). The merged
    /// chunk spans from the first one's start to the last one's end.
    pub fn merge_peers(&mut self, from: usize) {
        let rest = self.out.split_off(from.min(self.out.len()));
        for (span, meta) in rest {
            if self.out.len() > from {
                let (last, lm) = self.out.last().expect("not empty");
                let peers = lm.headings == meta.headings
                    && lm.kind == meta.kind
                    && lm.prefix == meta.prefix;
                if peers {
                    let start = last.start;
                    let prefix = lm.prefix.clone().map(|p| {
                        let units = match self.prefix_units.get(&p) {
                            Some(&u) => u,
                            None => self.sizer.count(&p),
                        };
                        (p, units)
                    });
                    let pu = prefix.as_ref().map_or(0, |p| p.1);
                    if self.fits(start, span.end, pu) {
                        let real = self.real(start, span.end, prefix.as_ref());
                        if real <= self.size {
                            let (_, m) = self.out.pop().expect("not empty");
                            self.push(start, span.end, real, prefix.as_ref(), &m);
                            continue;
                        }
                    }
                }
            }
            self.out.push((span, meta));
        }
    }

    /// Split `text[start..end]` with the recursive strategy into chunks that fit with the prefix.
    pub fn split(
        &mut self,
        start: usize,
        end: usize,
        prefix: Option<&Prefix>,
        meta: &ChunkMeta,
    ) -> Result<()> {
        let budget = self.size - prefix.map_or(0, |p| p.1.min(self.size));
        self.split_within(start, end, prefix, meta, budget)
    }

    fn split_within(
        &mut self,
        start: usize,
        end: usize,
        prefix: Option<&Prefix>,
        meta: &ChunkMeta,
        budget: usize,
    ) -> Result<()> {
        if budget == 0 {
            // The prefix leaves no room: the text goes without it.
            return self.split_within(start, end, None, meta, self.size);
        }
        let spans = match self
            .splitter
            .spans_in(self.text, &self.measure, (start, end), budget)
        {
            Ok(s) => s,
            Err(Error::TooSmall { .. }) if prefix.is_some() => {
                return self.split_within(start, end, None, meta, self.size)
            }
            Err(e) => return Err(e),
        };
        for sp in spans {
            if prefix.is_none() {
                self.push(sp.start, sp.end, sp.tokens, None, meta);
                continue;
            }
            let real = self.real(sp.start, sp.end, prefix);
            if real <= self.size {
                self.push(sp.start, sp.end, real, prefix, meta);
            } else {
                // Prefix and text tokenize differently together: retry with less room.
                let smaller = budget.saturating_sub((real - self.size).max(1));
                self.split_within(sp.start, sp.end, prefix, meta, smaller)?;
            }
        }
        Ok(())
    }

    /// The real size of `prefix + text[s..e]`. Additive sizers add the parts (exact for a span
    /// that ends on a unit boundary after a prefix ending in whitespace); others count the
    /// concatenation once.
    fn real(&self, s: usize, e: usize, prefix: Option<&Prefix>) -> usize {
        let on_unit_end = match &self.measure {
            Measure::Chars => true,
            Measure::Ends(ends) => e == self.text.len() || ends.binary_search(&(e as u32)).is_ok(),
        };
        let additive = self.sizer.is_additive()
            && on_unit_end
            && prefix.is_none_or(|p| p.0.ends_with(char::is_whitespace));
        match prefix {
            None if additive => self.measure.units_between(self.text, s, e),
            None => self.sizer.count_span(self.text, &self.measure, s, e),
            Some((_, pu)) if additive => pu + self.measure.units_between(self.text, s, e),
            Some((p, _)) => {
                let mut joined = String::with_capacity(p.len() + e - s);
                joined.push_str(p);
                joined.push_str(&self.text[s..e]);
                self.sizer.count(&joined)
            }
        }
    }

    fn push(
        &mut self,
        s: usize,
        e: usize,
        tokens: usize,
        prefix: Option<&Prefix>,
        meta: &ChunkMeta,
    ) {
        let located = self.locator.meta(s, e);
        let mut m = meta.clone();
        m.page = located.page;
        m.page_end = located.page_end;
        m.lines = located.lines;
        m.prefix = prefix.map(|p| p.0.clone());
        self.out.push((Span::new(s, e, tokens), m));
    }
}

/// A heading's text for a heading path: whitespace runs collapsed to one space, cut at
/// [`MAX_TITLE_CHARS`].
pub(crate) fn clean_title(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len().min(MAX_TITLE_CHARS * 4));
    for (n, word) in raw.split_whitespace().enumerate() {
        if n > 0 {
            out.push(' ');
        }
        out.push_str(word);
        if out.chars().count() > MAX_TITLE_CHARS {
            let cut = out
                .char_indices()
                .nth(MAX_TITLE_CHARS)
                .map_or(out.len(), |(b, _)| b);
            out.truncate(cut);
            out.push('…');
            break;
        }
    }
    out
}

/// Prefix candidates for a heading path, best first: the whole path, then its last heading.
/// Each ends with a blank line.
pub(crate) fn path_prefixes(path: &[String]) -> Vec<String> {
    match path {
        [] => Vec::new(),
        [one] => vec![format!("{one}\n\n")],
        [.., last] => vec![format!("{}\n\n", path.join(" > ")), format!("{last}\n\n")],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn titles_are_cleaned_and_bounded() {
        assert_eq!(
            clean_title("  Artikel 3\n  Bewonersvergunning "),
            "Artikel 3 Bewonersvergunning"
        );
        let long = "x".repeat(5000);
        let t = clean_title(&long);
        assert_eq!(t.chars().count(), MAX_TITLE_CHARS + 1);
        assert!(t.ends_with('…'));
    }

    #[test]
    fn path_prefix_candidates() {
        let p = vec![
            "Hoofdstuk 2. Vergunningen".to_string(),
            "Artikel 3".to_string(),
        ];
        assert_eq!(
            path_prefixes(&p),
            ["Hoofdstuk 2. Vergunningen > Artikel 3\n\n", "Artikel 3\n\n"]
        );
        assert!(path_prefixes(&[]).is_empty());
    }
}
