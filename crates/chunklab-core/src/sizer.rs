//! The `Sizer` seam: how long is a piece of text, in the units a size limit is given in.
//!
//! A sizer measures a whole document **once** ([`Sizer::measure`]) and strategies then ask the
//! resulting [`Measure`] how many units lie between two byte offsets, or where the n-th unit after
//! an offset ends — binary searches over token end offsets, never a re-tokenization of candidate
//! strings. Because real tokenizers are not additive (the tokens of a substring can differ from the
//! document's tokens at its edges), every emitted chunk is checked once with
//! [`Sizer::count_span`], which is the real count of the chunk text; that check is what makes size
//! limits a hard guarantee.
//!
//! Strategies that walk a document once front to back (`fixed`, `sliding`) take its units from a
//! [`UnitCursor`] instead: a sizer may stream them ([`Sizer::cursor`]; the tiktoken tokenizers
//! tokenize a block at a time and verify windows by re-tokenizing only their edges), and every
//! other sizer gets a [`MeasureCursor`] over its whole-document measure.

use crate::text::{advance_chars, count_chars, floor_char_boundary, retreat_chars};
use std::fmt;

/// A length function over text.
///
/// Implementations must be deterministic. `count(text)` is the ground truth; `measure` gives the
/// positions of units in a whole document for fast planning.
pub trait Sizer: Send + Sync {
    /// Stable short name, e.g. `chars`, `words`, `cl100k`, `hf:tokenizer.json`.
    fn name(&self) -> &str;

    /// The real size of `text` in this sizer's units.
    fn count(&self, text: &str) -> usize;

    /// Unit positions of a whole document, computed once.
    fn measure(&self, text: &str) -> Measure;

    /// The real size of `text[start..end]`, i.e. `count(&text[start..end])`. Implementations may use
    /// the document measure to avoid re-tokenizing the interior of the span, but must return
    /// exactly what `count` would.
    fn count_span(&self, text: &str, _measure: &Measure, start: usize, end: usize) -> usize {
        self.count(&text[start..end])
    }

    /// True when `count_span` always equals `measure.units_between` for spans that start and end
    /// on unit boundaries (chars, words). Strategies then skip the verification pass.
    fn is_additive(&self) -> bool {
        false
    }

    /// A [`UnitCursor`] over `text` for strategies that walk a document front to back (`fixed`,
    /// `sliding`), when the sizer can hand out units without measuring the whole document first.
    /// `None` (the default) makes them use [`MeasureCursor`] over [`Sizer::measure`].
    fn cursor<'a>(&'a self, _text: &'a str) -> Option<Box<dyn UnitCursor + 'a>> {
        None
    }
}

/// The units of one document, handed out front to back: what the window strategies need, without
/// necessarily holding every unit end of the document at once.
///
/// Unit `i` starts where unit `i - 1` ends ([`UnitCursor::boundary`]). Callers promise not to ask
/// about units below the last [`UnitCursor::forget`] point, so an implementation may drop them.
pub trait UnitCursor {
    /// `min(k, number of units in the document)`.
    fn len_upto(&mut self, k: usize) -> usize;

    /// Byte offset where unit `i` starts, floored to a char boundary: 0 for `i == 0`, the end of
    /// unit `i - 1` otherwise, the text length when `i` is past the last unit.
    fn boundary(&mut self, i: usize) -> usize;

    /// Units below `i` will not be asked about again.
    fn forget(&mut self, i: usize);

    /// The real size of `text[start..end]` (char boundaries), exactly `Sizer::count` of it.
    fn count_span(&mut self, start: usize, end: usize) -> usize;
}

/// The [`UnitCursor`] of any sizer: its [`Measure`] of the whole document and
/// [`Sizer::count_span`].
pub struct MeasureCursor<'a> {
    text: &'a str,
    sizer: &'a dyn Sizer,
    measure: Measure,
    len: usize,
    /// Char measure: the last position asked for, as (unit index, byte offset).
    idx: usize,
    byte: usize,
}

impl<'a> MeasureCursor<'a> {
    /// Measures `text` once.
    pub fn new(sizer: &'a dyn Sizer, text: &'a str) -> Self {
        let measure = sizer.measure(text);
        let len = measure.len(text);
        Self {
            text,
            sizer,
            measure,
            len,
            idx: 0,
            byte: 0,
        }
    }
}

impl UnitCursor for MeasureCursor<'_> {
    fn len_upto(&mut self, k: usize) -> usize {
        k.min(self.len)
    }

    fn boundary(&mut self, i: usize) -> usize {
        match &self.measure {
            Measure::Ends(e) => {
                if i == 0 {
                    0
                } else {
                    floor_char_boundary(
                        self.text,
                        e.get(i - 1).map_or(self.text.len(), |&x| x as usize),
                    )
                }
            }
            // A cursor, so that walking the document in order costs O(n).
            Measure::Chars => {
                if self.idx < i {
                    let (byte, passed) = advance_chars(self.text, self.byte, i - self.idx);
                    self.byte = byte;
                    self.idx += passed;
                } else if self.idx > i {
                    self.byte = retreat_chars(self.text, self.byte, self.idx - i);
                    self.idx = i;
                }
                self.byte
            }
        }
    }

    fn forget(&mut self, _i: usize) {}

    fn count_span(&mut self, start: usize, end: usize) -> usize {
        self.sizer.count_span(self.text, &self.measure, start, end)
    }
}

impl fmt::Debug for dyn Sizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sizer({})", self.name())
    }
}

/// Where the units of one document lie.
#[derive(Debug, Clone)]
pub enum Measure {
    /// Every char is one unit; positions are computed from the text on demand (no allocation).
    Chars,
    /// Units end at these byte offsets (non-decreasing, each `<= text.len()`). A unit's start is
    /// the previous unit's end; bytes a tokenizer skips (e.g. whitespace in WordPiece) belong to
    /// the following unit.
    Ends(Vec<u32>),
}

impl Measure {
    /// Number of units in the document.
    pub fn len(&self, text: &str) -> usize {
        match self {
            Measure::Chars => count_chars(text),
            Measure::Ends(e) => e.len(),
        }
    }

    /// True when the document has no units.
    pub fn is_empty(&self, text: &str) -> bool {
        self.len(text) == 0
    }

    /// Number of units that end in `(start, end]` — the exact size of an aligned span, an estimate
    /// otherwise.
    pub fn units_between(&self, text: &str, start: usize, end: usize) -> usize {
        if end <= start {
            return 0;
        }
        match self {
            Measure::Chars => count_chars(&text[start..end]),
            Measure::Ends(e) => units_upto(e, end) - units_upto(e, start),
        }
    }

    /// Index of the first unit that ends after byte `b`.
    pub fn unit_index(&self, text: &str, b: usize) -> usize {
        match self {
            Measure::Chars => count_chars(&text[..b]),
            Measure::Ends(e) => units_upto(e, b),
        }
    }

    /// Byte offset where unit `i` ends (the text length past the last unit).
    pub fn unit_end(&self, text: &str, i: usize) -> usize {
        match self {
            Measure::Chars => text
                .char_indices()
                .nth(i + 1)
                .map(|(b, _)| b)
                .unwrap_or(text.len()),
            Measure::Ends(e) => e.get(i).map(|&x| x as usize).unwrap_or(text.len()),
        }
    }
}

fn units_upto(ends: &[u32], b: usize) -> usize {
    ends.partition_point(|&e| (e as usize) <= b)
}

/// Counts Unicode scalar values (what Python's `len` counts).
#[derive(Debug, Clone, Copy, Default)]
pub struct CharSizer;

impl Sizer for CharSizer {
    fn name(&self) -> &str {
        "chars"
    }
    fn count(&self, text: &str) -> usize {
        count_chars(text)
    }
    fn measure(&self, _text: &str) -> Measure {
        Measure::Chars
    }
    fn count_span(&self, text: &str, _m: &Measure, start: usize, end: usize) -> usize {
        count_chars(&text[start..end])
    }
    fn is_additive(&self) -> bool {
        true
    }
}

/// Counts whitespace-separated words. A word unit ends where its last non-whitespace char ends;
/// the whitespace before a word belongs to that word.
#[derive(Debug, Clone, Copy, Default)]
pub struct WordSizer;

impl Sizer for WordSizer {
    fn name(&self) -> &str {
        "words"
    }
    fn count(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }
    fn measure(&self, text: &str) -> Measure {
        let mut ends = Vec::new();
        let mut in_word = false;
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            // ASCII bytes are judged on their own, other chars decoded.
            let (space, len) = if b[i] < 0x80 {
                (matches!(b[i], b'\t'..=b'\r' | b' '), 1)
            } else {
                let c = text[i..].chars().next().expect("char boundary");
                (c.is_whitespace(), c.len_utf8())
            };
            if space {
                if in_word {
                    ends.push(i as u32);
                }
                in_word = false;
            } else {
                in_word = true;
            }
            i += len;
        }
        if in_word {
            ends.push(text.len() as u32);
        }
        Measure::Ends(ends)
    }
    fn is_additive(&self) -> bool {
        true
    }
}

/// The largest document one `Measure` can address.
pub const MAX_DOCUMENT_BYTES: usize = u32::MAX as usize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chars_measure() {
        let t = "héllo wörld";
        let m = CharSizer.measure(t);
        assert_eq!(m.len(t), 11);
        assert_eq!(m.unit_end(t, 1), 3);
        assert_eq!(m.unit_index(t, 3), 2);
        assert_eq!(m.units_between(t, 0, t.len()), 11);
    }

    #[test]
    fn words_measure_is_exact_on_aligned_spans() {
        let t = "  een twee\n\ndrie  ";
        let m = WordSizer.measure(t);
        assert_eq!(m.len(t), 3);
        assert_eq!(m.unit_end(t, 0), 5);
        assert_eq!(m.units_between(t, 0, 10), 2);
        assert_eq!(WordSizer.count(&t[0..10]), 2);
    }
}
