//! Greedy packing of whole pieces (paragraphs, sentences, words) into chunks of at most `size`
//! units, shared by `sentence` and `paragraph`.
//!
//! The document is measured once. Every piece is a stripped span with the unit index at both of
//! its ends, so the planned size of any run of pieces is one subtraction. Each emitted chunk is
//! counted once with [`Sizer::count_span`] unless the sizer is additive and the chunk lies on unit
//! boundaries; a chunk that does not fit for real gives back its last piece and is counted again.
//! A piece that does not fit on its own is cut at the next finer [`Level`], then at words, and
//! finally at unit boundaries, so the limit always holds.

use super::window::fit_by_chars;
use crate::chunk::Span;
use crate::error::Result;
use crate::lang::Lang;
use crate::segment::sentences;
use crate::sizer::{Measure, Sizer};
use crate::text::{
    advance_chars, ascii_prefix_len, ceil_char_boundary, count_chars, floor_char_boundary,
    is_py_space, strip_span,
};

/// A stripped span of the text (never empty) and the unit index at its start and end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    pub start: usize,
    pub end: usize,
    units_start: usize,
    units_end: usize,
}

/// How to cut a piece that is too large on its own, finest last. After the listed levels a piece
/// is cut at unit boundaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Level {
    /// At sentence ends, with the rules of this (resolved) language.
    Sentences(Lang),
    /// At whitespace.
    Words,
}

/// Packs pieces of one document into spans.
pub(crate) struct Packer<'a> {
    text: &'a str,
    sizer: &'a dyn Sizer,
    measure: Measure,
    /// With the char measure: the text is ASCII up to here (see [`UnitCursor`]).
    ascii_end: usize,
    size: usize,
    out: Vec<Span>,
}

impl<'a> Packer<'a> {
    /// Measure `text` once with `sizer`; chunks will hold at most `size` units.
    pub(crate) fn new(text: &'a str, sizer: &'a dyn Sizer, size: usize) -> Self {
        debug_assert!(size > 0);
        let measure = sizer.measure(text);
        let ascii_end = match measure {
            Measure::Chars => ascii_prefix_len(text),
            Measure::Ends(_) => 0,
        };
        Self {
            text,
            sizer,
            measure,
            ascii_end,
            size,
            out: Vec::new(),
        }
    }

    /// The spans emitted so far, in document order.
    pub(crate) fn finish(self) -> Vec<Span> {
        self.out
    }

    /// Strip `spans` (in document order, not overlapping) into pieces, dropping whitespace-only
    /// ones.
    pub(crate) fn pieces(&self, spans: impl IntoIterator<Item = (usize, usize)>) -> Vec<Piece> {
        let mut cursor = UnitCursor::new(self.text, &self.measure, self.ascii_end, 0, 0);
        spans
            .into_iter()
            .filter_map(|(s, e)| {
                let (start, end) = strip_span(self.text, s, e);
                (start < end).then(|| Piece {
                    start,
                    end,
                    units_start: cursor.at(start),
                    units_end: cursor.at(end),
                })
            })
            .collect()
    }

    /// Sub-pieces of `piece` at `level`.
    fn sub_pieces(&self, piece: &Piece, level: Level) -> Vec<Piece> {
        let mut cursor = UnitCursor::new(
            self.text,
            &self.measure,
            self.ascii_end,
            piece.start,
            piece.units_start,
        );
        let mut make = |start: usize, end: usize| Piece {
            start,
            end,
            units_start: cursor.at(start),
            units_end: cursor.at(end),
        };
        let slice = &self.text[piece.start..piece.end];
        match level {
            Level::Sentences(lang) => sentences(slice, lang)
                .into_iter()
                .filter_map(|(s, e)| {
                    let (s, e) = strip_span(slice, s, e);
                    (s < e).then(|| make(piece.start + s, piece.start + e))
                })
                .collect(),
            Level::Words => {
                let mut words = Vec::new();
                let mut word_start = None;
                let bytes = slice.as_bytes();
                let mut i = 0;
                while i < bytes.len() {
                    // ASCII bytes are judged on their own, other chars decoded.
                    let (space, len) = if bytes[i] < 0x80 {
                        (is_py_space(bytes[i] as char), 1)
                    } else {
                        let c = slice[i..].chars().next().expect("char boundary");
                        (is_py_space(c), c.len_utf8())
                    };
                    match (space, word_start) {
                        (true, Some(s)) => {
                            words.push(make(piece.start + s, piece.start + i));
                            word_start = None;
                        }
                        (false, None) => word_start = Some(i),
                        _ => {}
                    }
                    i += len;
                }
                if let Some(s) = word_start {
                    words.push(make(piece.start + s, piece.end));
                }
                words
            }
        }
    }

    /// Pack `pieces` greedily into chunks; each chunk after the first repeats the last `overlap`
    /// pieces of the previous one where they fit (always leaving at least one new piece). Pieces
    /// too large on their own are cut at `finer` levels.
    pub(crate) fn pack(&mut self, pieces: &[Piece], overlap: usize, finer: &[Level]) -> Result<()> {
        let size = self.size;
        let planned = |a: usize, b: usize| pieces[b].units_end - pieces[a].units_start;
        // `first` is where the next chunk may start (overlap), `fresh` the first uncovered piece.
        let (mut first, mut fresh) = (0, 0);
        while fresh < pieces.len() {
            if planned(fresh, fresh) > size {
                self.split(&pieces[fresh], finer)?;
                fresh += 1;
                first = fresh;
                continue;
            }
            let mut start = first;
            while planned(start, fresh) > size {
                start += 1;
            }
            let mut end = fresh;
            while end + 1 < pieces.len() && planned(start, end + 1) <= size {
                end += 1;
            }
            let mut tokens = planned(start, end);
            if !self.exact(pieces[start].start, pieces[end].end) {
                loop {
                    let (a, b) = (pieces[start].start, pieces[end].end);
                    tokens = self.sizer.count_span(self.text, &self.measure, a, b);
                    if tokens <= size {
                        break;
                    }
                    if end > fresh {
                        end -= 1;
                    } else if start < fresh {
                        start += 1;
                    } else {
                        break;
                    }
                }
                if tokens > size {
                    // The new piece alone is too large in real units.
                    self.split(&pieces[fresh], finer)?;
                    fresh += 1;
                    first = fresh;
                    continue;
                }
            }
            self.out
                .push(Span::new(pieces[start].start, pieces[end].end, tokens));
            fresh = end + 1;
            first = (end + 1).saturating_sub(overlap).max(start + 1);
        }
        Ok(())
    }

    /// Cut a piece that does not fit at the first of `finer`, or at unit boundaries.
    fn split(&mut self, piece: &Piece, finer: &[Level]) -> Result<()> {
        match finer.split_first() {
            Some((&level, rest)) => {
                let subs = self.sub_pieces(piece, level);
                self.pack(&subs, 0, rest)
            }
            None => self.split_units(piece),
        }
    }

    /// Consecutive windows of at most `size` units over a piece (a word, in practice), each
    /// counted for real and shrunk until it fits.
    fn split_units(&mut self, piece: &Piece) -> Result<()> {
        let (text, size) = (self.text, self.size);
        let mut a = piece.start;
        while a < piece.end {
            let mut k = size;
            loop {
                let b = self.advance_units(a, k, piece.end);
                if b <= a {
                    // Not even one unit ends on a char boundary: take one char; if that alone is
                    // larger than the limit, `fit_by_chars` reports it.
                    let one = ceil_char_boundary(text, a + 1);
                    let tokens = self.sizer.count_span(text, &self.measure, a, one);
                    let (b, tokens) = if tokens <= size {
                        (one, tokens)
                    } else {
                        fit_by_chars(text, self.sizer, &self.measure, a, one, size)?
                    };
                    self.out.push(Span::new(a, b, tokens));
                    a = b;
                    break;
                }
                let tokens = self.sizer.count_span(text, &self.measure, a, b);
                if tokens <= size {
                    self.out.push(Span::new(a, b, tokens));
                    a = b;
                    break;
                }
                k = k.saturating_sub((tokens - size).max(1));
            }
        }
        Ok(())
    }

    /// Byte offset where the `k`-th unit after byte `a` ends, floored to a char boundary and
    /// clamped to `limit` (`a` for `k == 0`). Chars are walked directly because
    /// [`Measure::unit_end`] counts chars from the start of the text.
    fn advance_units(&self, a: usize, k: usize, limit: usize) -> usize {
        if k == 0 {
            return a;
        }
        match &self.measure {
            Measure::Chars => advance_chars(&self.text[..limit], a, k).0,
            Measure::Ends(_) => {
                let first = self.measure.unit_index(self.text, a);
                let end = self.measure.unit_end(self.text, first + k - 1).min(limit);
                floor_char_boundary(self.text, end)
            }
        }
    }

    /// True when the planned size of `text[a..b]` is its real size: an additive sizer and a span
    /// on unit boundaries (it ends where a unit ends, and cuts only whitespace off the unit it
    /// starts in).
    fn exact(&self, a: usize, b: usize) -> bool {
        if !self.sizer.is_additive() {
            return false;
        }
        match &self.measure {
            Measure::Chars => true,
            Measure::Ends(ends) => {
                let ends_on_unit = ends.binary_search(&(b as u32)).is_ok();
                let i = ends.partition_point(|&e| (e as usize) <= a);
                let unit_start = if i == 0 { 0 } else { ends[i - 1] as usize };
                let cut = self.text.get(unit_start..a);
                ends_on_unit && cut.is_some_and(|s| s.chars().all(char::is_whitespace))
            }
        }
    }
}

/// Unit indices ([`Measure::unit_index`]) of non-decreasing byte offsets in linear total time
/// (for chars, counting only the bytes between consecutive offsets, and nothing in the ASCII
/// prefix of the text, where the char index is the byte offset).
struct UnitCursor<'a> {
    text: &'a str,
    measure: &'a Measure,
    ascii_end: usize,
    byte: usize,
    index: usize,
}

impl<'a> UnitCursor<'a> {
    fn new(
        text: &'a str,
        measure: &'a Measure,
        ascii_end: usize,
        byte: usize,
        index: usize,
    ) -> Self {
        Self {
            text,
            measure,
            ascii_end,
            byte,
            index,
        }
    }

    fn at(&mut self, b: usize) -> usize {
        match self.measure {
            Measure::Chars => {
                debug_assert!(b >= self.byte);
                self.index = if b <= self.ascii_end {
                    b
                } else {
                    self.index + count_chars(&self.text[self.byte..b])
                };
                self.byte = b;
                self.index
            }
            Measure::Ends(_) => self.measure.unit_index(self.text, b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizer::{CharSizer, WordSizer};
    use crate::validate::{check_spans, Expect};

    fn texts(spans: &[Span], text: &str) -> Vec<String> {
        spans
            .iter()
            .map(|s| text[s.start..s.end].to_string())
            .collect()
    }

    fn pack_words(text: &str, sizer: &dyn Sizer, size: usize, overlap: usize) -> Vec<Span> {
        let mut p = Packer::new(text, sizer, size);
        let pieces = p.pieces([(0, text.len())]);
        let words: Vec<Piece> = pieces
            .iter()
            .flat_map(|pc| p.sub_pieces(pc, Level::Words))
            .collect();
        p.pack(&words, overlap, &[]).unwrap();
        p.finish()
    }

    #[test]
    fn packs_words_greedily_with_overlap() {
        let text = "een twee drie vier vijf";
        let spans = pack_words(text, &WordSizer, 2, 1);
        assert_eq!(
            texts(&spans, text),
            ["een twee", "twee drie", "drie vier", "vier vijf"]
        );
        let spans = pack_words(text, &CharSizer, 9, 0);
        assert_eq!(texts(&spans, text), ["een twee", "drie vier", "vijf"]);
    }

    #[test]
    fn overlap_never_blocks_progress() {
        let text = "aaaa bbbb cccc";
        // Overlap larger than what fits: the next chunk drops it rather than repeating a chunk.
        let spans = pack_words(text, &CharSizer, 9, 5);
        assert_eq!(texts(&spans, text), ["aaaa bbbb", "bbbb cccc"]);
        let spans = pack_words(text, &CharSizer, 4, 5);
        assert_eq!(texts(&spans, text), ["aaaa", "bbbb", "cccc"]);
    }

    #[test]
    fn unit_split_of_a_long_word() {
        let text = "é".repeat(25);
        let spans = pack_words(&text, &CharSizer, 10, 0);
        assert_eq!(
            spans.iter().map(|s| s.tokens).collect::<Vec<_>>(),
            [10, 10, 5]
        );
        check_spans(
            &text,
            &spans,
            &CharSizer,
            Expect {
                size: 10,
                overlap: false,
            },
        )
        .unwrap();
    }

    #[test]
    fn word_sizer_with_separator_chars_at_word_edges() {
        // \x1c is whitespace for strip rules but part of a word for WordSizer.
        let text = "a\x1c b \x1cc d";
        for size in 1..4 {
            let spans = pack_words(text, &WordSizer, size, 0);
            check_spans(
                text,
                &spans,
                &WordSizer,
                Expect {
                    size,
                    overlap: false,
                },
            )
            .unwrap();
        }
    }
}
