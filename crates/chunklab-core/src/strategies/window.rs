//! Token windows shared by `fixed` and `sliding`: windows of `size` units advancing by
//! `size - overlap` units, snapped to char boundaries and verified against the real count.

use crate::chunk::Span;
use crate::error::{Error, Result};
use crate::sizer::{Measure, Sizer};
use crate::text::{advance_chars, floor_char_boundary, retreat_chars};

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
) -> Result<Vec<Span>> {
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
            if tokens > size {
                // One unit that does not fit on its own (tokens split a char, or the edges of
                // the span tokenize differently): cut at the last char boundary that fits.
                (end, tokens) = fit_by_chars(text, sizer, &measure, start, end, size)?;
                while j > i + 1 && b.start_of(j - 1) >= end {
                    j -= 1;
                }
            }
        }
        if end > start {
            out.push(Span::new(start, end, tokens));
        }
        if end < b.start_of(j) {
            // The window was cut inside unit `j - 1`: continue from the cut, with no overlap.
            let rest = windows_from(text, sizer, end, size, overlap, verify)?;
            out.extend(rest);
            break;
        }
        if j >= n {
            break;
        }
        i = (j - overlap.min(j - i - 1)).max(i + 1);
    }
    Ok(out)
}

/// Windows over `text[from..]`, with offsets shifted back into `text`.
fn windows_from(
    text: &str,
    sizer: &dyn Sizer,
    from: usize,
    size: usize,
    overlap: usize,
    verify: bool,
) -> Result<Vec<Span>> {
    let rest = windows(&text[from..], sizer, size, overlap, verify)?;
    Ok(rest
        .into_iter()
        .map(|s| Span::new(s.start + from, s.end + from, s.tokens))
        .collect())
}

/// The longest prefix of `text[start..end]` ending on a char boundary whose real size fits, or
/// [`Error::TooSmall`] when not even its first char fits.
pub(crate) fn fit_by_chars(
    text: &str,
    sizer: &dyn Sizer,
    measure: &Measure,
    start: usize,
    end: usize,
    size: usize,
) -> Result<(usize, usize)> {
    let mut e = end;
    while e > start {
        e = floor_char_boundary(text, e - 1);
        if e == start {
            break;
        }
        let t = sizer.count_span(text, measure, start, e);
        if t <= size {
            return Ok((e, t));
        }
    }
    let first = text[start..].chars().next().map_or(0, char::len_utf8);
    Err(Error::TooSmall {
        text: text[start..start + first].to_string(),
        offset: start,
        units: sizer.count_span(text, measure, start, start + first),
        size,
    })
}
