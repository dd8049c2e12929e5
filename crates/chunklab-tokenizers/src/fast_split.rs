//! A hand-written pre-tokenizer for the `cl100k_base` and `o200k_base` split patterns.
//!
//! tiktoken cuts text into pieces with a regular expression before running BPE on each piece.
//! `bpe-openai` runs that expression with `regex-automata` (≈ 90 MB/s); this module walks the bytes
//! directly and produces **exactly** the same pieces several times faster.
//!
//! Exactness rests on two things:
//! * the character classes (`\p{L}`, `\p{N}`, `\s`, the case classes of o200k) are built from
//!   `regex-syntax`, the very tables `bpe-openai`'s regex is compiled from;
//! * the scanner below reproduces the regex's leftmost-first semantics alternative by alternative
//!   (the comments quote the alternative each branch implements), including bpe-openai's emulation
//!   of the look-ahead `\s+(?!\S)` by `\s+$ | \s+\s (minus its last char) | \s+`.
//!
//! The tests below (every code point in revealing contexts, tricky strings, the golden inputs)
//! and the property tests in `tiktoken.rs` compare every piece with `bpe_openai::*::split`.
//!
//! Both patterns are pure functions of the text *from the piece start on* (bpe-openai matches each
//! piece anchored on the remaining suffix), so a piece's end depends only on `text[start..]`.

use regex_syntax::hir::{Class, HirKind};
use std::sync::LazyLock;

/// Which tiktoken split pattern to reproduce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pattern {
    /// `cl100k_base`: `(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}|
    /// ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`
    Cl100k,
    /// `o200k_base`: letters split by case (`[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+`
    /// and the reverse) with optional trailing contractions, `/` allowed after punctuation.
    O200k,
}

/// `\p{L}`.
const LETTER: u8 = 1;
/// `\p{N}`.
const NUMBER: u8 = 2;
/// `\s` (Unicode `White_Space`).
const SPACE: u8 = 4;
/// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]` — o200k's "upper" letters (and marks).
const UPPER: u8 = 8;
/// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]` — o200k's "lower" letters (and marks).
const LOWER: u8 = 16;
/// `\r` or `\n`.
const NEWLINE: u8 = 32;

/// The class flags of every code point, in a two-stage table (blocks of 256 code points,
/// identical blocks shared).
struct Classes {
    ascii: [u8; 128],
    block_of: Vec<u16>,
    blocks: Vec<u8>,
}

static CLASSES: LazyLock<Classes> = LazyLock::new(Classes::build);

impl Classes {
    fn build() -> Self {
        let mut flat = vec![0u8; 0x11_0000];
        let classes = [
            (r"\p{L}", LETTER),
            (r"\p{N}", NUMBER),
            (r"\s", SPACE),
            (r"[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]", UPPER),
            (r"[\p{Ll}\p{Lm}\p{Lo}\p{M}]", LOWER),
            (r"[\r\n]", NEWLINE),
        ];
        for (pattern, flag) in classes {
            let hir = regex_syntax::parse(pattern).expect("valid class");
            let HirKind::Class(Class::Unicode(class)) = hir.kind() else {
                unreachable!("{pattern} is a Unicode class")
            };
            for range in class.ranges() {
                let code_points = range.start() as usize..=range.end() as usize;
                for entry in &mut flat[code_points] {
                    *entry |= flag;
                }
            }
        }
        let mut block_of = Vec::with_capacity(flat.len() / 256);
        let mut blocks: Vec<u8> = Vec::new();
        let mut seen = std::collections::HashMap::new();
        for block in flat.chunks(256) {
            let id = *seen.entry(block).or_insert_with(|| {
                blocks.extend_from_slice(block);
                blocks.len() / 256 - 1
            });
            block_of.push(u16::try_from(id).expect("few distinct blocks"));
        }
        let mut ascii = [0u8; 128];
        ascii.copy_from_slice(&flat[..128]);
        Self {
            ascii,
            block_of,
            blocks,
        }
    }

    #[inline]
    fn of(&self, cp: u32) -> u8 {
        let block = self.block_of[(cp >> 8) as usize] as usize;
        self.blocks[block * 256 + (cp & 0xFF) as usize]
    }
}

const ONES: u64 = 0x0101_0101_0101_0101;
/// Bit 7 of every byte.
const HIGH: u64 = ONES * 0x80;

/// Bit 7 of each byte of the result is set when that byte of `word` is ASCII and in `lo..=hi`
/// (`0 < lo <= hi < 0x80`); all other bits are clear. Per byte, bit 7 of `at_least_lo` /
/// `above_hi` says whether the low 7 bits are `>= lo` / `> hi` (no carry crosses bytes:
/// 0x7F + 0x7F < 0x100).
#[inline(always)]
fn in_range(word: u64, lo: u8, hi: u8) -> u64 {
    let low7 = word & !HIGH;
    let at_least_lo = low7 + ONES * (0x80 - lo as u64);
    let above_hi = low7 + ONES * (0x7F - hi as u64);
    at_least_lo & !above_hi & !word & HIGH
}

/// Splits `text` like `bpe_openai::{cl100k_base,o200k_base}().split(text)`.
pub(crate) fn split(pattern: Pattern, text: &str) -> Pieces<'_> {
    Pieces {
        scanner: Scanner::new(text),
        pattern,
        pos: 0,
    }
}

/// The pieces of a text, in order; they tile the text exactly.
pub(crate) struct Pieces<'a> {
    scanner: Scanner<'a>,
    pattern: Pattern,
    pos: usize,
}

impl<'a> Iterator for Pieces<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.pos >= self.scanner.text.len() {
            return None;
        }
        let start = self.pos;
        self.pos = self.scanner.piece_end(self.pattern, start);
        Some(&self.scanner.text_str[start..self.pos])
    }
}

/// Finds piece ends in one text.
pub(crate) struct Scanner<'a> {
    text_str: &'a str,
    text: &'a [u8],
    classes: &'static Classes,
}

impl<'a> Scanner<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        Self {
            text_str: text,
            text: text.as_bytes(),
            classes: &CLASSES,
        }
    }

    /// The scanned text's bytes.
    pub(crate) fn bytes(&self) -> &'a [u8] {
        self.text
    }

    /// End of the piece that starts at `start` (`start < text.len()`, on a char boundary).
    #[inline]
    pub(crate) fn piece_end(&self, pattern: Pattern, start: usize) -> usize {
        match pattern {
            Pattern::Cl100k => self.cl100k_end(start),
            Pattern::O200k => self.o200k_end(start),
        }
    }

    /// True when the char that ends at byte `b` (`0 < b <= text.len()`, a char boundary) is
    /// whitespace (`\s`).
    pub(crate) fn is_space_before(&self, b: usize) -> bool {
        let mut i = b - 1;
        while i > 0 && self.text[i] & 0xC0 == 0x80 {
            i -= 1;
        }
        self.class(i).0 & SPACE != 0
    }

    /// Class flags and UTF-8 length of the char at `i` (`i < text.len()`).
    #[inline(always)]
    fn class(&self, i: usize) -> (u8, usize) {
        let b0 = self.text[i];
        if b0 < 0x80 {
            return (self.classes.ascii[b0 as usize], 1);
        }
        self.class_multibyte(i)
    }

    #[inline(never)]
    fn class_multibyte(&self, i: usize) -> (u8, usize) {
        let t = self.text;
        let b0 = t[i] as u32;
        let (cp, len) = if b0 < 0xE0 {
            (((b0 & 0x1F) << 6) | (t[i + 1] as u32 & 0x3F), 2)
        } else if b0 < 0xF0 {
            let cp =
                ((b0 & 0x0F) << 12) | ((t[i + 1] as u32 & 0x3F) << 6) | (t[i + 2] as u32 & 0x3F);
            (cp, 3)
        } else {
            let cp = ((b0 & 0x07) << 18)
                | ((t[i + 1] as u32 & 0x3F) << 12)
                | ((t[i + 2] as u32 & 0x3F) << 6)
                | (t[i + 3] as u32 & 0x3F);
            (cp, 4)
        };
        (self.classes.of(cp), len)
    }

    /// Class flags of the char at `i`, or 0 past the end.
    #[inline(always)]
    fn class_at(&self, i: usize) -> (u8, usize) {
        if i < self.text.len() {
            self.class(i)
        } else {
            (0, 0)
        }
    }

    /// End of the longest run from `i` of chars having any of `flags`, where the ASCII bytes
    /// having them are exactly those in `lo..=hi` once OR-ed with `fold` (letters: `a..=z`
    /// folding `0x20`; o200k upper: `A..=Z`; o200k lower: `a..=z`). ASCII stretches go eight
    /// bytes at a time.
    #[inline(always)]
    fn run_end_ascii_range(&self, mut i: usize, flags: u8, lo: u8, hi: u8, fold: u8) -> usize {
        loop {
            i = self.ascii_run_end(i, lo, hi, fold);
            if i < self.text.len() && self.text[i] >= 0x80 {
                let (f, len) = self.class_multibyte(i);
                if f & flags != 0 {
                    i += len;
                    continue;
                }
            }
            return i;
        }
    }

    /// End of the longest run from `i` of ASCII bytes in `lo..=hi` once OR-ed with `fold`
    /// (`0 < lo <= hi < 0x80`).
    #[inline(always)]
    fn ascii_run_end(&self, mut i: usize, lo: u8, hi: u8, fold: u8) -> usize {
        let t = self.text;
        while let Some(word) = self.word_at(i) {
            let outside = !in_range(word | (ONES * fold as u64), lo, hi) & HIGH;
            if outside != 0 {
                return i + (outside.trailing_zeros() / 8) as usize;
            }
            i += 8;
        }
        while i < t.len() && (lo..=hi).contains(&(t[i] | fold)) {
            i += 1;
        }
        i
    }

    /// The eight bytes at `i` as a little-endian word, if there are eight.
    #[inline(always)]
    fn word_at(&self, i: usize) -> Option<u64> {
        let bytes = self.text.get(i..i + 8)?;
        Some(u64::from_le_bytes(bytes.try_into().expect("8 bytes")))
    }

    /// End of the longest run from `i` of chars having none of `flags`.
    #[inline(always)]
    fn run_end_without(&self, mut i: usize, flags: u8) -> usize {
        while i < self.text.len() {
            let (f, len) = self.class(i);
            if f & flags != 0 {
                break;
            }
            i += len;
        }
        i
    }

    /// `\p{N}{1,3}` from `i`, where the char at `i` is a number.
    #[inline]
    fn digits_end(&self, mut i: usize) -> usize {
        for _ in 0..3 {
            let (f, len) = self.class_at(i);
            if f & NUMBER == 0 {
                break;
            }
            i += len;
        }
        i
    }

    /// End of `(?i:'s|'t|'re|'ve|'m|'ll|'d)` when it matches at `i` (the apostrophe).
    /// Case-insensitive matching follows Unicode simple case folding, so `s` also matches `ſ`
    /// (U+017F); none of the other letters has a non-ASCII fold.
    #[inline]
    fn contraction_end(&self, i: usize) -> Option<usize> {
        let t = self.text;
        if t.get(i) != Some(&b'\'') {
            return None;
        }
        let second = t.get(i + 2).map(u8::to_ascii_lowercase);
        match t.get(i + 1)?.to_ascii_lowercase() {
            b's' | b't' | b'm' | b'd' => Some(i + 2),
            b'r' | b'v' if second == Some(b'e') => Some(i + 3),
            b'l' if second == Some(b'l') => Some(i + 3),
            // 'ſ' is C5 BF.
            0xC5 if second == Some(0xBF) => Some(i + 3),
            _ => None,
        }
    }

    /// `[^\s\p{L}\p{N}]+[\r\n]*` (cl100k), or with `slash` `[^\s\p{L}\p{N}]+[\r\n/]*` (o200k),
    /// from `i` where the char at `i` is such a "punctuation" char.
    #[inline]
    fn punctuation_end(&self, i: usize, slash: bool) -> usize {
        let mut end = self.run_end_without(i, LETTER | NUMBER | SPACE);
        while let Some(&b) = self.text.get(end) {
            if b == b'\r' || b == b'\n' || (slash && b == b'/') {
                end += 1;
            } else {
                break;
            }
        }
        end
    }

    /// The whitespace alternatives `\s*[\r\n]+ | \s+$ | \s+\s (minus the look-ahead char) | \s+`
    /// at `start`, where the char at `start` is whitespace.
    #[inline]
    fn whitespace_end(&self, start: usize) -> usize {
        let mut i = start;
        let mut last_newline_end = None;
        let mut last_char_start = start;
        while i < self.text.len() {
            let (f, len) = self.class(i);
            if f & SPACE == 0 {
                break;
            }
            if f & NEWLINE != 0 {
                last_newline_end = Some(i + len);
            }
            last_char_start = i;
            i += len;
        }
        if let Some(end) = last_newline_end {
            // `\s*[\r\n]+`: backtracks to the last newline of the run.
            end
        } else if i == self.text.len() || last_char_start == start {
            // `\s+$`, or a single whitespace char before a non-space (`\s+`).
            i
        } else {
            // `\s+(?!\S)`: leave the last whitespace char to the next piece.
            last_char_start
        }
    }

    /// `\p{L}*` from `i`.
    #[inline(always)]
    fn letters_end(&self, i: usize) -> usize {
        self.run_end_ascii_range(i, LETTER, b'a', b'z', 0x20)
    }

    fn cl100k_end(&self, start: usize) -> usize {
        let (f0, len0) = self.class(start);
        let next = start + len0;
        // (?i:'s|'t|'re|'ve|'m|'ll|'d)
        if let Some(end) = self.contraction_end(start) {
            return end;
        }
        // [^\r\n\p{L}\p{N}]?\p{L}+
        if f0 & LETTER != 0 {
            return self.letters_end(next);
        }
        if f0 & (NUMBER | NEWLINE) == 0 {
            let (f1, len1) = self.class_at(next);
            if f1 & LETTER != 0 {
                return self.letters_end(next + len1);
            }
        }
        // \p{N}{1,3}
        if f0 & NUMBER != 0 {
            return self.digits_end(start);
        }
        // ' ?[^\s\p{L}\p{N}]+[\r\n]*'
        if f0 & SPACE == 0 {
            return self.punctuation_end(start, false);
        }
        if self.text[start] == b' ' {
            let (f1, _) = self.class_at(next);
            if next < self.text.len() && f1 & (LETTER | NUMBER | SPACE) == 0 {
                return self.punctuation_end(next, false);
            }
        }
        self.whitespace_end(start)
    }

    fn o200k_end(&self, start: usize) -> usize {
        let (f0, len0) = self.class(start);
        let next = start + len0;
        // [^\r\n\p{L}\p{N}]? then the letter alternatives; the optional prefix char is tried
        // first, then no prefix (a mark can be either), and all of the first alternative's
        // options come before the second's.
        // (Both word alternatives fail at once on an ASCII non-letter or the end of the text.)
        let may_prefix = f0 & (LETTER | NUMBER | NEWLINE) == 0
            && self
                .text
                .get(next)
                .is_some_and(|&b| b >= 0x80 || b.is_ascii_alphabetic());
        let may_start_word = f0 & (UPPER | LOWER) != 0;
        if may_prefix {
            if let Some(end) = self.o200k_lower_word(next) {
                return end;
            }
        }
        if may_start_word {
            if let Some(end) = self.o200k_lower_word(start) {
                return end;
            }
        }
        if may_prefix {
            if let Some(end) = self.o200k_upper_word(next) {
                return end;
            }
        }
        if may_start_word {
            if let Some(end) = self.o200k_upper_word(start) {
                return end;
            }
        }
        // \p{N}{1,3}
        if f0 & NUMBER != 0 {
            return self.digits_end(start);
        }
        // ' ?[^\s\p{L}\p{N}]+[\r\n/]*'
        if f0 & SPACE == 0 {
            return self.punctuation_end(start, true);
        }
        if self.text[start] == b' ' {
            let (f1, _) = self.class_at(next);
            if next < self.text.len() && f1 & (LETTER | NUMBER | SPACE) == 0 {
                return self.punctuation_end(next, true);
            }
        }
        self.whitespace_end(start)
    }

    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
    /// anchored at `i`.
    #[inline]
    fn o200k_lower_word(&self, mut i: usize) -> Option<usize> {
        // The greedy "upper" run; remember where its last char that is also "lower" ends, which
        // is where the match ends if the run is not followed by a lower-only char. (ASCII
        // capitals are upper only.)
        let mut fallback = None;
        loop {
            i = self.ascii_run_end(i, b'A', b'Z', 0);
            if i >= self.text.len() || self.text[i] < 0x80 {
                break;
            }
            let (f, len) = self.class_multibyte(i);
            if f & UPPER == 0 {
                break;
            }
            i += len;
            if f & LOWER != 0 {
                fallback = Some(i);
            }
        }
        let (f, _) = self.class_at(i);
        let end = if f & LOWER != 0 {
            self.lower_run_end(i)
        } else {
            fallback?
        };
        Some(self.contraction_end(end).unwrap_or(end))
    }

    /// `[\p{Ll}\p{Lm}\p{Lo}\p{M}]*` from `i`.
    #[inline(always)]
    fn lower_run_end(&self, i: usize) -> usize {
        self.run_end_ascii_range(i, LOWER, b'a', b'z', 0)
    }

    /// `[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?`
    /// anchored at `i`.
    #[inline]
    fn o200k_upper_word(&self, i: usize) -> Option<usize> {
        let upper_end = self.run_end_ascii_range(i, UPPER, b'A', b'Z', 0);
        if upper_end == i {
            return None;
        }
        let end = self.lower_run_end(upper_end);
        Some(self.contraction_end(end).unwrap_or(end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reference(pattern: Pattern) -> &'static bpe_openai::Tokenizer {
        match pattern {
            Pattern::Cl100k => bpe_openai::cl100k_base(),
            Pattern::O200k => bpe_openai::o200k_base(),
        }
    }

    /// Asserts our pieces equal bpe-openai's, pointing at the first difference.
    #[track_caller]
    fn assert_same_pieces(pattern: Pattern, text: &str) {
        let ours: Vec<&str> = split(pattern, text).collect();
        let theirs: Vec<&str> = reference(pattern).split(text).collect();
        if ours != theirs {
            let i = ours.iter().zip(&theirs).take_while(|(a, b)| a == b).count();
            let lo = i.saturating_sub(3);
            panic!(
                "{pattern:?} pieces differ at piece {i} of {text:?}\n ours:   {:?}\n theirs: {:?}",
                &ours[lo..(i + 3).min(ours.len())],
                &theirs[lo..(i + 3).min(theirs.len())]
            );
        }
    }

    const PATTERNS: [Pattern; 2] = [Pattern::Cl100k, Pattern::O200k];

    #[test]
    fn tricky_strings_split_like_bpe_openai() {
        let cases = [
            "",
            " ",
            "  ",
            "  \n\n  x",
            "trailing spaces   ",
            "trailing tab\t",
            "'S",
            "'s 't 're 've 'm 'll 'd 'S 'T 'RE 'Ve 'M 'LL 'D",
            "'r 'v 'l 'x '' 's' don't DON'T I'll we'RE",
            "'ſ xſ 'ſa x'ſa x'ſ x'S x'sa x'LLa x'Re x'r x'v x'l",
            "123456",
            "1234567 12 a1b2 ½½½½ ٣٣٣٣",
            "a\u{0301}",
            "\u{0301}a \u{0301}\u{0301}A !\u{0301} 1\u{0301} \u{0301}",
            "e\u{0301}cole ÉCOLE école Ecole DéCOUVERTE",
            "HelloWorld helloWORLD HELLOworld ǅemal ʰa ªb",
            "\r\n\r\n",
            "a\r\n  b \r \n\tc",
            "x  \t  y",
            "x \u{a0}\u{3000}y \u{2028} \u{85}",
            "path/to/file // comment\n/* c */ a!/b ?/\n/\r/",
            "  !!  !!\n\n  ,\n",
            "😀😀 😀a a😀 👍🏽 中文 日本語テキスト",
            "\0\u{1c}\u{1f}\u{b}\u{c}\u{feff}\u{200b}x",
            "   \n",
            "\n   ",
            "a \n",
        ];
        for pattern in PATTERNS {
            for text in cases {
                assert_same_pieces(pattern, text);
            }
        }
    }

    #[test]
    fn golden_inputs_split_like_bpe_openai() {
        let dir = chunklab_test_support::shared_path("golden/langchain/inputs");
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut files = 0;
        for entry in entries {
            let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for pattern in PATTERNS {
                assert_same_pieces(pattern, &text);
            }
            files += 1;
        }
        assert!(files > 0);
    }

    /// Every code point in contexts that reveal each of its class flags; one long text per
    /// pattern so the regex comparison stays fast. Covers planes 0–3 and the tag / variation
    /// selector block fully and samples the rest (unassigned or private use).
    #[test]
    fn every_code_point_classifies_like_the_regex() {
        let code_points = (0..0x4_0000u32)
            .chain(0xE_0000..0xE_0200)
            .chain((0x4_0000..0x11_0000).step_by(251))
            .filter_map(char::from_u32);
        let mut text = String::new();
        for c in code_points {
            use std::fmt::Write;
            write!(
                text,
                "a{c}a A{c}b 1{c}2 !{c}! '{c} {c}x\t{c}\n{c}' {c}{c}A {c}"
            )
            .unwrap();
        }
        for pattern in PATTERNS {
            assert_same_pieces(pattern, &text);
        }
    }

    /// The ASCII ranges the eight-bytes-at-a-time runs rely on.
    #[test]
    fn ascii_classes_are_the_ranges_the_fast_runs_assume() {
        for b in 0..0x80u8 {
            let f = CLASSES.ascii[b as usize];
            assert_eq!(f & LETTER != 0, b.is_ascii_alphabetic(), "{b}");
            assert_eq!(f & UPPER != 0, b.is_ascii_uppercase(), "{b}");
            assert_eq!(f & LOWER != 0, b.is_ascii_lowercase(), "{b}");
        }
        let text = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ`{@[é";
        let scanner = Scanner::new(text);
        for start in 0..text.len() {
            for (lo, hi, fold) in [
                (b'a', b'z', 0x20),
                (b'A', b'Z', 0),
                (b'a', b'z', 0),
                (b'`', b'{', 0),
            ] {
                let expected = start
                    + text.as_bytes()[start..]
                        .iter()
                        .take_while(|&&b| (lo..=hi).contains(&(b | fold)))
                        .count();
                assert_eq!(
                    scanner.ascii_run_end(start, lo, hi, fold),
                    expected,
                    "{start} {lo}"
                );
            }
        }
    }

    #[test]
    fn class_table_matches_char_predicates_where_they_agree() {
        // Sanity: White_Space is what `char::is_whitespace` implements.
        for cp in 0..0x11_0000u32 {
            if let Some(c) = char::from_u32(cp) {
                assert_eq!(CLASSES.of(cp) & SPACE != 0, c.is_whitespace(), "{c:?}");
            }
        }
    }
}
