//! tiktoken-compatible BPE (`cl100k_base`, `o200k_base`); its `Sizer` impl is in
//! `tiktoken_sizer.rs`.
//!
//! Counting and measuring go around bpe-openai's regex pre-tokenizer and most of its BPE work:
//! pieces come from the hand-written scanner in [`crate::fast_split`], and a piece's tokens from
//! [`crate::piece_cache`] (per-thread memo, whole-token lookup, in-crate merge), falling back
//! to bpe-openai's encoder for pieces over 64 bytes. Everything is exact: the tests below compare
//! pieces, counts, token ends and ids with bpe-openai (itself tested against tiktoken).

use crate::fast_split::{self, Pattern, Scanner};
use crate::piece_cache::{with_piece_tokenizer, PieceTokenizer, MAX_PIECE_LEN};

/// An OpenAI BPE tokenizer with its vocabulary compiled in.
///
/// `measure` walks the pre-tokenizer's pieces of the document once and records where every
/// token ends; `count` and `measure` run at a few hundred MB/s on prose and Markdown (memoizing
/// pieces per thread, so repeated vocabulary is nearly free). Counts equal tiktoken's.
///
/// ```
/// use chunklab_core::Sizer;
/// use chunklab_tokenizers::Tiktoken;
/// let o200k = Tiktoken::o200k();
/// let text = "Hello world, hallo wereld!";
/// assert_eq!(o200k.count(text), o200k.encode(text).len());
/// let measure = o200k.measure(text);
/// assert_eq!(measure.len(text), o200k.count(text));
/// assert_eq!(o200k.pieces(text).collect::<Vec<_>>(), ["Hello", " world", ",", " hallo", " wereld", "!"]);
/// ```
#[derive(Clone, Copy)]
pub struct Tiktoken {
    pub(crate) name: &'static str,
    pub(crate) tok: &'static bpe_openai::Tokenizer,
    pattern: Pattern,
    /// Index of this vocabulary's per-thread piece cache.
    cache_id: usize,
}

impl std::fmt::Debug for Tiktoken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Tiktoken({})", self.name)
    }
}

impl Tiktoken {
    /// `cl100k_base` (GPT-4, GPT-3.5, text-embedding-3-*).
    pub fn cl100k() -> Self {
        Self {
            name: "cl100k",
            tok: bpe_openai::cl100k_base(),
            pattern: Pattern::Cl100k,
            cache_id: 0,
        }
    }

    /// `o200k_base` (GPT-4o and later).
    pub fn o200k() -> Self {
        Self {
            name: "o200k",
            tok: bpe_openai::o200k_base(),
            pattern: Pattern::O200k,
            cache_id: 1,
        }
    }

    /// Token ids of `text`, as tiktoken's `encode` returns them (special tokens as plain text).
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut tokens = Vec::with_capacity(text.len() / 4 + 1);
        for piece in self.pieces(text) {
            tokens.extend(self.tok.bpe.encode_via_backtracking(piece.as_bytes()));
        }
        tokens
    }

    /// The pre-tokenizer pieces of `text` (tiktoken's split regex), in order; BPE never merges
    /// across them.
    pub fn pieces<'a>(&self, text: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        fast_split::split(self.pattern, text)
    }

    /// Calls `visit(start, tokens)` for every piece of `text`, in order.
    #[inline]
    pub(crate) fn for_each_piece(&self, text: &str, visit: impl FnMut(usize, PieceTokens<'_>)) {
        self.for_each_piece_in(&Scanner::new(text), 0, text.len(), visit);
    }

    /// Calls `visit(start, tokens)` for the pieces of the scanner's text that start in
    /// `from..stop`, in order, where `from` is a piece start; returns where the last one ends.
    #[inline]
    pub(crate) fn for_each_piece_in(
        &self,
        scanner: &Scanner<'_>,
        from: usize,
        stop: usize,
        mut visit: impl FnMut(usize, PieceTokens<'_>),
    ) -> usize {
        let bytes = scanner.bytes();
        with_piece_tokenizer(self.cache_id, &self.tok.bpe, |pieces| {
            let mut start = from;
            while start < stop {
                let end = scanner.piece_end(self.pattern, start);
                if end - start <= MAX_PIECE_LEN {
                    visit(
                        start,
                        PieceTokens::Ends(pieces.token_ends(bytes, start, end)),
                    );
                } else {
                    visit(start, PieceTokens::Long(&bytes[start..end]));
                }
                start = end;
            }
            start
        })
    }

    /// The number of tokens of the piece `bytes[start..end]`.
    #[inline]
    pub(crate) fn piece_count(
        &self,
        pieces: &mut PieceTokenizer<'_>,
        bytes: &[u8],
        start: usize,
        end: usize,
    ) -> usize {
        if end - start <= MAX_PIECE_LEN {
            tokens_in(pieces.token_ends(bytes, start, end))
        } else {
            self.tok.bpe.count(&bytes[start..end])
        }
    }

    /// Runs `f` with this vocabulary's piece tokenizer (this thread's cache).
    #[inline]
    pub(crate) fn with_pieces<R>(&self, f: impl FnOnce(&mut PieceTokenizer<'_>) -> R) -> R {
        with_piece_tokenizer(self.cache_id, &self.tok.bpe, f)
    }

    pub(crate) fn pattern(&self) -> Pattern {
        self.pattern
    }

    /// The byte length of token `id`.
    #[inline]
    pub(crate) fn token_len(&self, id: u32) -> usize {
        self.tok.bpe.token_len(id)
    }

    /// bpe-openai's encoder for pieces over [`MAX_PIECE_LEN`] bytes.
    pub(crate) fn encode_long(&self, piece: &[u8]) -> Vec<u32> {
        self.tok.bpe.encode_via_backtracking(piece)
    }
}

/// The number of tokens of a piece with token end mask `mask`: its set bits. Most pieces are one
/// token, and without the `popcnt` instruction (not in the x86-64 baseline) `count_ones` is a
/// dozen instructions, so the one-bit case goes first.
#[inline(always)]
pub(crate) fn tokens_in(mask: u64) -> usize {
    if mask & mask.wrapping_sub(1) == 0 {
        (mask != 0) as usize
    } else {
        mask.count_ones() as usize
    }
}

/// The tokens of one piece, as [`Tiktoken::for_each_piece`] hands them over.
pub(crate) enum PieceTokens<'a> {
    /// The token end mask of a piece of at most 64 bytes: bit `i` is set when a token ends
    /// after byte `i + 1` of the piece.
    Ends(u64),
    /// A piece of more than 64 bytes, still to be BPE-encoded.
    Long(&'a [u8]),
}

#[cfg(test)]
mod tests {
    use super::*;
    use chunklab_core::{Measure, Sizer};
    use proptest::prelude::*;

    #[test]
    fn counts_match_tiktoken_reference() {
        // Reference values from Python tiktoken 0.14 (cl100k_base / o200k_base).
        let cl = Tiktoken::cl100k();
        assert_eq!(cl.count("hello world"), 2);
        assert_eq!(cl.count(""), 0);
        let o = Tiktoken::o200k();
        assert_eq!(o.count("hello world"), 2);
    }

    fn both() -> [(Tiktoken, &'static bpe_openai::Tokenizer); 2] {
        [
            (Tiktoken::cl100k(), bpe_openai::cl100k_base()),
            (Tiktoken::o200k(), bpe_openai::o200k_base()),
        ]
    }

    /// Pieces, count, measure and encode all equal bpe-openai's (the tiktoken reference).
    #[track_caller]
    fn assert_exact(ours: Tiktoken, reference: &bpe_openai::Tokenizer, text: &str) {
        let pieces: Vec<&str> = ours.pieces(text).collect();
        let expected: Vec<&str> = reference.split(text).collect();
        assert_eq!(pieces, expected, "{ours:?} pieces of {text:?}");
        let tokens = reference.encode(text);
        assert_eq!(ours.encode(text), tokens, "{ours:?} encode of {text:?}");
        // Twice: the second run is served from the warm piece cache.
        for _ in 0..2 {
            assert_eq!(ours.count(text), tokens.len(), "{ours:?} count of {text:?}");
            let Measure::Ends(ends) = ours.measure(text) else {
                panic!("token measure")
            };
            let expected_ends: Vec<u32> = tokens
                .iter()
                .scan(0, |pos, &t| {
                    *pos += reference.bpe.token_len(t) as u32;
                    Some(*pos)
                })
                .collect();
            assert_eq!(ends, expected_ends, "{ours:?} measure of {text:?}");
        }
    }

    #[test]
    fn tricky_strings_are_exact() {
        let long_word = "ab".repeat(1500);
        let cases = [
            "",
            "  \n\n  x",
            "trailing spaces   ",
            "'S",
            "x'S x'LL don't",
            "123456",
            "a\u{0301}",
            "De raad besluit: windenergie 2018–2022 😀 \r\n\r\n  spaces\tand   tabs. 中文",
            "supercalifragilisticexpialidocious antidisestablishmentarianism                  x",
            "ééééééééééééééé 👍🏽👍🏽👍🏽👍🏽 ================================================================",
            &long_word,
        ];
        for (ours, reference) in both() {
            for text in cases {
                assert_exact(ours, reference, text);
            }
        }
    }

    #[test]
    fn golden_inputs_are_exact() {
        let dir = chunklab_test_support::shared_path("golden/langchain/inputs");
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for (ours, reference) in both() {
                assert_exact(ours, reference, &text);
            }
        }
    }

    /// Fragments that exercise every branch of the split patterns.
    const ATOMS: &[&str] = &[
        "a", "Z", "x", "Hello", "world", "DE", "raad", "één", "ë", "ï", "ß", "ſ", "IJ", "ǅ", "ʰ",
        "ª", "\u{301}", "\u{20dd}", "\u{903}", "'", "'s", "'S", "'t", "'re", "'RE", "'ve", "'m",
        "'ll", "'LL", "'d", "’", " ", "  ", "\t", "\n", "\r\n", "\r", "\u{a0}", "\u{3000}",
        "\u{2028}", "\u{85}", "\u{b}", "\u{1c}", "\0", "0", "7", "123456", "½", "٣", "Ⅻ", "!", ".",
        ",", "/", "//", "-", "_", "#", "**", "```", "😀", "👍🏽", "中", "文", "日本",
    ];

    fn text_strategy() -> impl Strategy<Value = String> {
        let atom = prop_oneof![
            4 => proptest::sample::select(ATOMS).prop_map(str::to_string),
            1 => any::<char>().prop_map(String::from),
        ];
        proptest::collection::vec(atom, 0..48).prop_map(|atoms| atoms.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn random_mixes_are_exact(text in text_strategy()) {
            for (ours, reference) in both() {
                assert_exact(ours, reference, &text);
            }
        }
    }

    #[test]
    fn measure_agrees_with_count_and_tiles_text() {
        let text = "De raad besluit: windenergie 2018–2022 😀 \r\n\r\n  spaces\tand   tabs. 中文";
        for t in [Tiktoken::cl100k(), Tiktoken::o200k()] {
            let m = t.measure(text);
            assert_eq!(m.len(text), t.count(text));
            assert_eq!(m.unit_end(text, m.len(text) - 1), text.len());
        }
    }
}
