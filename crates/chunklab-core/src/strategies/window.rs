//! Token windows shared by `fixed` and `sliding`: windows of `size` units advancing by
//! `size - overlap` units, snapped to char boundaries and verified against the real count.

use crate::chunk::Span;
use crate::sizer::{Measure, Sizer};
use crate::text::floor_char_boundary;

/// Byte offsets of unit boundaries, found with a cursor so that walking the document in order
/// costs O(n) even for the allocation-free char measure.
pub(crate) struct Boundaries<'a> {
    text: &'a str,
    measure: &'a Measure,
    idx: usize,
    byte: usize,
}

impl<'a> Boundaries<'a> {
    pub(crate) fn new(text: &'a str, measure: &'a Measure) -> Self {
        Self {
            text,
            measure,
            idx: 0,
            byte: 0,
        }
    }

    /// Byte offset where unit `i` starts (= where unit `i - 1` ends; 0 for `i == 0`), floored to a
    /// char boundary.
    pub(crate) fn start_of(&mut self, i: usize) -> usize {
        match self.measure {
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
            Measure::Chars => {
                while self.idx < i && self.byte < self.text.len() {
                    let c = self.text[self.byte..].chars().next().expect("not at end");
                    self.byte += c.len_utf8();
                    self.idx += 1;
                }
                while self.idx > i {
                    self.byte = floor_char_boundary(self.text, self.byte - 1);
                    self.idx -= 1;
                }
                self.byte
            }
        }
    }
}

/// Windows of at most `size` units; consecutive windows share `overlap` units. When `verify` is
/// set and the sizer is not additive, each window is re-counted for real and shrunk one unit at a
/// time until it fits, so the limit holds in the sizer's real units.
pub(crate) fn windows(
    text: &str,
    sizer: &dyn Sizer,
    size: usize,
    overlap: usize,
    verify: bool,
) -> Vec<Span> {
    debug_assert!(size > 0 && overlap < size);
    let measure = sizer.measure(text);
    let n = measure.len(text);
    let exact = !verify || sizer.is_additive();
    let mut b = Boundaries::new(text, &measure);
    let mut out = Vec::with_capacity(n / (size - overlap) + 1);
    let mut i = 0usize;
    while i < n {
        let mut j = (i + size).min(n);
        let start = b.start_of(i);
        let mut end = b.start_of(j);
        let mut tokens = j - i;
        if !exact {
            tokens = sizer.count_span(text, &measure, start, end);
            while tokens > size && j > i + 1 {
                j -= 1;
                end = b.start_of(j);
                tokens = sizer.count_span(text, &measure, start, end);
            }
        }
        if end > start {
            out.push(Span::new(start, end, tokens));
        }
        if j >= n {
            break;
        }
        i = (j - overlap.min(j - i - 1)).max(i + 1);
    }
    out
}
