//! Token windows shared by `fixed` and `sliding`: windows of `size` units advancing by
//! `size - overlap` units, snapped to char boundaries and verified against the real count.

use crate::chunk::Span;
use crate::error::{Error, Result};
use crate::sizer::{Measure, MeasureCursor, Sizer};
use crate::text::floor_char_boundary;

/// Windows of at most `size` units; consecutive windows share `overlap` units. When `verify` is
/// set and the sizer is not additive, each window is re-counted for real and shrunk one unit at a
/// time until it fits, so the limit holds in the sizer's real units.
///
/// The document's units come from the sizer's [`UnitCursor`], front to back; units before the
/// current window are released as the windows advance, so a sizer with its own cursor (the
/// tiktoken tokenizers) never holds the whole document's unit ends.
pub(crate) fn windows(
    text: &str,
    sizer: &dyn Sizer,
    size: usize,
    overlap: usize,
    verify: bool,
) -> Result<Vec<Span>> {
    debug_assert!(size > 0 && overlap < size);
    let mut cursor = sizer
        .cursor(text)
        .unwrap_or_else(|| Box::new(MeasureCursor::new(sizer, text)));
    let b = cursor.as_mut();
    let exact = !verify || sizer.is_additive();
    let mut out = Vec::new();
    let mut i = 0usize;
    while b.len_upto(i + 1) > i {
        let mut j = b.len_upto(i + size);
        let start = b.boundary(i);
        let mut end = b.boundary(j);
        let mut tokens = j - i;
        if !exact {
            tokens = b.count_span(start, end);
            while tokens > size && j > i + 1 {
                j -= 1;
                end = b.boundary(j);
                tokens = b.count_span(start, end);
            }
            if tokens > size {
                // One unit that does not fit on its own (tokens split a char, or the edges of
                // the span tokenize differently): cut at the last char boundary that fits.
                (end, tokens) =
                    fit_by_chars_with(text, start, end, size, |s, e| b.count_span(s, e))?;
                while j > i + 1 && b.boundary(j - 1) >= end {
                    j -= 1;
                }
            }
        }
        if end > start {
            out.push(Span::new(start, end, tokens));
        }
        if end < b.boundary(j) {
            // The window was cut inside unit `j - 1`: continue from the cut, with no overlap.
            drop(cursor);
            let rest = windows_from(text, sizer, end, size, overlap, verify)?;
            out.extend(rest);
            break;
        }
        if b.len_upto(j + 1) <= j {
            break;
        }
        i = (j - overlap.min(j - i - 1)).max(i + 1);
        b.forget(i.saturating_sub(1));
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
    fit_by_chars_with(text, start, end, size, |s, e| {
        sizer.count_span(text, measure, s, e)
    })
}

/// [`fit_by_chars`] with the real size of `text[s..e]` given by `count`.
fn fit_by_chars_with(
    text: &str,
    start: usize,
    end: usize,
    size: usize,
    mut count: impl FnMut(usize, usize) -> usize,
) -> Result<(usize, usize)> {
    let mut e = end;
    while e > start {
        e = floor_char_boundary(text, e - 1);
        if e == start {
            break;
        }
        let t = count(start, e);
        if t <= size {
            return Ok((e, t));
        }
    }
    let first = text[start..].chars().next().map_or(0, char::len_utf8);
    Err(Error::TooSmall {
        text: text[start..start + first].to_string(),
        offset: start,
        units: count(start, start + first),
        size,
    })
}
