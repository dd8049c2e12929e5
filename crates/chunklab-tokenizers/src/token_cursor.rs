//! [`Tiktoken`]'s [`UnitCursor`]: the document's tokens a block at a time, and exact window counts
//! that re-tokenize only the edges of a window.
//!
//! **Streaming.** A piece's end depends only on the text from the piece start on
//! ([`crate::fast_split`]), so the document's pieces can be scanned and tokenized a block of
//! about 64 KiB at a time, each block starting where the previous one's last piece ended. The
//! cursor holds the token ends from the current window on (8 bytes a token, each tagged with
//! whether a piece ends there) and drops the rest as the windows advance: memory no longer grows
//! with the document.
//!
//! **Window counts.** The real size of a window `text[s..e]` is the token count of the window text
//! alone. Its pieces (the split pattern run on `text[s..e]`) equal the document's pieces inside the
//! window except near the two edges:
//!
//! * *Start.* The window's pieces are scanned from `s` until one ends on a document piece
//!   boundary `A`. From a common boundary on, both sequences are produced by the same function of
//!   the text from that boundary on (no look-behind in either pattern), so they agree until the
//!   end effect below.
//! * *End.* Truncating the text at `e` leaves a document piece `[p, q)` (with `q <= e`, starting on
//!   a common boundary) unchanged when
//!   - the piece holds a non-whitespace char: it was matched by an alternative before the
//!     whitespace ones, and none of those (nor any alternative tried before them) has a look-ahead
//!     or `$`; a match of such alternatives depends only on the chars it consumed, so the document's
//!     match is still a match of the truncated text, and any match tried before it that succeeds on
//!     the truncated text would have succeeded on the document too;
//!   - the piece is whitespace only, and its whole whitespace run ends (at a non-whitespace char)
//!     before `e`: everything the whitespace alternatives look at, including the look-ahead
//!     `\s+(?!\S)`, then lies before `e`.
//!
//!   So with `B` the end of the last document piece in `(A, e]` whose last char is not
//!   whitespace, every document piece in `[A, B)` is unchanged (a whitespace-only piece there has
//!   a non-whitespace char after it, at `B - 1` at the latest), and `B` is a boundary of both.
//!
//! The count is then (pieces of `text[s..A]`, re-tokenized) + (the document's tokens in `(A, B]`,
//! from the held ends) + (pieces of `text[B..e]`, re-tokenized with `e` as the text end). When no
//! `A` or `B` is found the re-tokenized part simply covers the whole window, so the answer is
//! always `count(&text[s..e])`; `counts_of_spans_are_exact` checks that on random texts.

use crate::fast_split::Scanner;
use crate::tiktoken::{PieceTokens, Tiktoken};
use chunklab_core::text::floor_char_boundary;
use chunklab_core::{Sizer, UnitCursor};

/// Bytes of text tokenized per refill.
const BLOCK_BYTES: usize = 64 * 1024;
/// Windows shorter than this are simply counted.
const SMALL_SPAN: usize = 256;
/// Forgotten token ends are dropped once this many have piled up.
const DROP_AT: usize = 4096;
/// How many token ends the search for `B` looks back before giving up.
const TAIL_LOOKBACK: usize = 64;
/// Tag of a held token end: a piece ends there too.
const PIECE_END: u64 = 1;

pub(crate) struct TokenCursor<'a> {
    tik: Tiktoken,
    text: &'a str,
    scanner: Scanner<'a>,
    /// Where the next block starts (a piece boundary; the text length when done).
    pos: usize,
    /// Index of the token whose end is `ends[0]`.
    base: usize,
    /// `end << 1 | PIECE_END?` of tokens `base..`.
    ends: Vec<u64>,
}

impl<'a> TokenCursor<'a> {
    pub(crate) fn new(tik: Tiktoken, text: &'a str) -> Self {
        Self {
            tik,
            text,
            scanner: Scanner::new(text),
            pos: 0,
            base: 0,
            ends: Vec::new(),
        }
    }

    fn held(&self) -> usize {
        self.base + self.ends.len()
    }

    /// Tokenizes blocks until at least `k` tokens are known or the text is done.
    fn fill_to(&mut self, k: usize) {
        while self.held() < k && self.pos < self.text.len() {
            let stop = (self.pos + BLOCK_BYTES).min(self.text.len());
            let (tik, ends) = (&self.tik, &mut self.ends);
            self.pos = tik.for_each_piece_in(&self.scanner, self.pos, stop, |start, tokens| {
                match tokens {
                    PieceTokens::Ends(mut mask) => {
                        while mask != 0 {
                            let end = (start + mask.trailing_zeros() as usize + 1) as u64;
                            ends.push(end << 1);
                            mask &= mask - 1;
                        }
                    }
                    PieceTokens::Long(piece) => {
                        let mut end = start;
                        for token in tik.encode_long(piece) {
                            end += tik.token_len(token);
                            ends.push((end as u64) << 1);
                        }
                    }
                }
                if let Some(last) = ends.last_mut() {
                    *last |= PIECE_END;
                }
            });
        }
    }

    /// The index in `ends` of the held token ending exactly at `b`.
    fn held_end(&self, b: usize) -> Option<usize> {
        let k = self.ends.partition_point(|&x| (x >> 1) < b as u64);
        (self.ends.get(k)? >> 1 == b as u64).then_some(k)
    }

    /// If `p` is a document piece boundary that the cursor can vouch for, the number of tokens
    /// that end at or before it.
    fn piece_boundary(&self, p: usize) -> Option<usize> {
        if p == 0 {
            return Some(0);
        }
        let k = self.held_end(p)?;
        (self.ends[k] & PIECE_END != 0).then_some(self.base + k + 1)
    }

    /// `B` for a window ending at `e` whose re-tokenized head ended at the common boundary `a`:
    /// the end of the last document piece in `(a, e]` whose last char is not whitespace, with the
    /// number of tokens that end at or before it.
    fn tail_start(&self, a: usize, e: usize) -> Option<(usize, usize)> {
        let upto = self.ends.partition_point(|&x| (x >> 1) <= e as u64);
        for k in (upto.saturating_sub(TAIL_LOOKBACK)..upto).rev() {
            let end = (self.ends[k] >> 1) as usize;
            if end <= a {
                return None;
            }
            if self.ends[k] & PIECE_END != 0 && !self.scanner.is_space_before(end) {
                return Some((end, self.base + k + 1));
            }
        }
        None
    }
}

impl UnitCursor for TokenCursor<'_> {
    fn len_upto(&mut self, k: usize) -> usize {
        self.fill_to(k);
        k.min(self.held())
    }

    fn boundary(&mut self, i: usize) -> usize {
        if i == 0 {
            return 0;
        }
        self.fill_to(i);
        if i > self.held() {
            return self.text.len();
        }
        assert!(i > self.base, "token {} was forgotten", i - 1);
        floor_char_boundary(self.text, (self.ends[i - 1 - self.base] >> 1) as usize)
    }

    fn forget(&mut self, i: usize) {
        let drop = i.saturating_sub(self.base).min(self.ends.len());
        if drop >= DROP_AT {
            self.ends.drain(..drop);
            self.base += drop;
        }
    }

    fn count_span(&mut self, s: usize, e: usize) -> usize {
        if e <= s {
            return 0;
        }
        if e - s < SMALL_SPAN {
            return self.tik.count(&self.text[s..e]);
        }
        // The window's own pieces: the pattern run on the text up to `e`.
        let window = Scanner::new(&self.text[..e]);
        let bytes = window.bytes();
        let pattern = self.tik.pattern();
        self.tik.with_pieces(|pieces| {
            let mut count = 0;
            let mut p = s;
            let mut common = None;
            while p < e {
                if let Some(tokens_before) = self.piece_boundary(p) {
                    common = Some(tokens_before);
                    break;
                }
                let q = window.piece_end(pattern, p);
                count += self.tik.piece_count(pieces, bytes, p, q);
                p = q;
            }
            if let Some(tokens_before_a) = common {
                if let Some((b, tokens_before_b)) = self.tail_start(p, e) {
                    count += tokens_before_b - tokens_before_a;
                    p = b;
                }
            }
            while p < e {
                let q = window.piece_end(pattern, p);
                count += self.tik.piece_count(pieces, bytes, p, q);
                p = q;
            }
            count
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Fragments heavy in what makes window edges differ: whitespace runs before words and
    /// punctuation, newlines, contractions, digits, long words, multi-byte chars.
    const ATOMS: &[&str] = &[
        "a",
        "the",
        " the",
        "Hello",
        " world",
        "supercalifragilistic",
        " ",
        "  ",
        "   ",
        "\t",
        "\n",
        "\n\n",
        "\r\n",
        " \n",
        "\u{a0}",
        "\u{3000}",
        "'s",
        "'re",
        "'LL",
        "'",
        "don't",
        "123",
        "4567",
        "!",
        ".",
        ",",
        "...",
        " !!",
        "--",
        "//",
        "é",
        "één",
        "中文",
        "😀",
        "👍🏽",
        "\u{301}",
    ];

    fn text_strategy() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            6 => proptest::sample::select(ATOMS).prop_map(str::to_string),
            1 => any::<char>().prop_map(String::from),
        ];
        proptest::collection::vec(atom, 0..400).prop_map(|atoms| atoms.concat())
    }

    /// Char boundaries of `text`, including its length.
    fn boundaries(text: &str) -> Vec<usize> {
        text.char_indices()
            .map(|(b, _)| b)
            .chain([text.len()])
            .collect()
    }

    #[track_caller]
    fn assert_span_counts(tik: Tiktoken, text: &str, picks: &[(usize, usize)]) {
        let mut cursor = TokenCursor::new(tik, text);
        let n = cursor.len_upto(usize::MAX);
        assert_eq!(n, tik.count(text));
        let Measure::Ends(ends) = tik.measure(text) else {
            panic!("token measure")
        };
        for i in 0..=n {
            let want = if i == 0 {
                0
            } else {
                floor_char_boundary(text, ends[i - 1] as usize)
            };
            assert_eq!(cursor.boundary(i), want, "boundary {i}");
        }
        let cuts = boundaries(text);
        // Spans between token boundaries (what windows ask) and between any char boundaries.
        let token_cuts: Vec<usize> = (0..=n).map(|i| cursor.boundary(i)).collect();
        for &(x, y) in picks {
            for set in [&token_cuts, &cuts] {
                let (a, b) = (set[x % set.len()], set[y % set.len()]);
                let (s, e) = (a.min(b), a.max(b));
                assert_eq!(
                    cursor.count_span(s, e),
                    tik.count(&text[s..e]),
                    "{tik:?} span {s}..{e} of {text:?}"
                );
            }
        }
    }

    use chunklab_core::Measure;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        #[test]
        fn counts_of_spans_are_exact(
            text in text_strategy(),
            picks in proptest::collection::vec((any::<usize>(), any::<usize>()), 1..24),
        ) {
            for tik in [Tiktoken::cl100k(), Tiktoken::o200k()] {
                assert_span_counts(tik, &text, &picks);
            }
        }
    }

    #[test]
    fn whitespace_edges_are_exact() {
        let text = format!(
            "{}x{}\n\n  y  !!\n{}",
            "a b  c   d\n".repeat(40),
            "   ".repeat(60),
            "  \t z".repeat(50)
        );
        let picks: Vec<(usize, usize)> = (0..400).map(|i| (i * 7, i * 13 + 300)).collect();
        for tik in [Tiktoken::cl100k(), Tiktoken::o200k()] {
            assert_span_counts(tik, &text, &picks);
        }
    }

    #[test]
    fn forgetting_keeps_later_tokens() {
        let text = "Een zin over windenergie, en nog een. ".repeat(5000);
        let tik = Tiktoken::cl100k();
        let Measure::Ends(ends) = tik.measure(&text) else {
            panic!()
        };
        let mut cursor = TokenCursor::new(tik, &text);
        let mut i = 0;
        while i + 512 < ends.len() {
            assert_eq!(cursor.boundary(i + 512), ends[i + 511] as usize);
            let (s, e) = (cursor.boundary(i), cursor.boundary(i + 512));
            assert_eq!(cursor.count_span(s, e), tik.count(&text[s..e]));
            i += 448;
            cursor.forget(i - 1);
        }
        assert!(cursor.ends.len() < 3 * BLOCK_BYTES / 4);
        assert_eq!(cursor.len_upto(usize::MAX), ends.len());
    }
}
