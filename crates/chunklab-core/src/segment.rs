//! Rule-based sentence and paragraph segmentation for English and Dutch.
//!
//! Both functions return byte spans that **tile** the text: they are contiguous, start at 0, end
//! at `text.len()`, and each span carries its trailing whitespace (leading whitespace of the
//! document belongs to the first span). Strategies strip the spans themselves.
//!
//! A sentence ends after `.` `!` `?` `…` (and the quotes or brackets that close right after them)
//! when whitespace and then an uppercase letter, digit, opening quote/bracket or list bullet
//! follow — unless the period belongs to an abbreviation ("Dhr.", "bijv.", "Mr.", "No. 5"), an
//! initial ("J.A. de Vries"), a chain like "d.w.z." or "U.S.", or a list number ("1." at the start
//! of a line). Numbers, times, URLs and file names (`3.14`, `10.30`, `v1.2.3`, `example.com`)
//! never split because no whitespace follows their periods. CJK full stops (`。！？`) always end a
//! sentence. A blank line always ends one; a single line break ends one only before a list item.
//!
//! The scan is linear: the candidate bytes (`.!?`, line breaks and the lead bytes of multi-byte
//! terminators) are found 64 bytes at a time with vectorizable comparisons, and only those
//! positions are examined.

use crate::abbreviations::{is_heading_noun, lookup, Abbrev};
use crate::lang::Lang;
use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Sentence spans of `text`, tiling it (see the module docs). `Lang::Auto` is resolved from the
/// text first.
///
/// ```
/// use chunklab_core::{segment::sentences, Lang};
/// let text = "Dhr. J.A. de Vries opent om 10.30 uur de vergadering. Hij leest art. 3.1 voor.";
/// let spans = sentences(text, Lang::Dutch);
/// let parts: Vec<&str> = spans.iter().map(|&(s, e)| &text[s..e]).collect();
/// assert_eq!(
///     parts,
///     ["Dhr. J.A. de Vries opent om 10.30 uur de vergadering. ", "Hij leest art. 3.1 voor."]
/// );
/// ```
pub fn sentences(text: &str, lang: Lang) -> Vec<(usize, usize)> {
    let lang = lang.resolve(text);
    tile(text, Scanner::new(text, lang, true).boundaries())
}

/// Paragraph spans of `text`: it is cut after every run of whitespace that holds a blank line
/// (`\n\s*\n`, CRLF included, or a form feed). The spans tile the text.
///
/// ```
/// use chunklab_core::segment::paragraphs;
/// let text = "Artikel 1\r\nDe raad besluit.\r\n\r\nArtikel 2\r\nSlot.";
/// let spans = paragraphs(text);
/// assert_eq!(&text[spans[0].0..spans[0].1], "Artikel 1\r\nDe raad besluit.\r\n\r\n");
/// assert_eq!(&text[spans[1].0..spans[1].1], "Artikel 2\r\nSlot.");
/// ```
pub fn paragraphs(text: &str) -> Vec<(usize, usize)> {
    tile(text, Scanner::new(text, Lang::English, false).boundaries())
}

/// Turn increasing cut positions (each `< text.len()`, at a non-whitespace char) into spans.
fn tile(text: &str, mut cuts: Vec<usize>) -> Vec<(usize, usize)> {
    if text.is_empty() {
        return Vec::new();
    }
    // A cut after leading whitespace only would make a whitespace-only first span.
    if cuts.first().is_some_and(|&c| text[..c].trim().is_empty()) {
        cuts.remove(0);
    }
    let mut spans = Vec::with_capacity(cuts.len() + 1);
    let mut start = 0;
    for c in cuts {
        spans.push((start, c));
        start = c;
    }
    spans.push((start, text.len()));
    spans
}

/// What a run of terminators consists of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    /// Exactly one ASCII period: abbreviation rules apply.
    Period,
    /// Ellipsis, `!`, `?` or a mix: ends a sentence before a capital.
    Other,
    /// Contains a CJK full stop: always ends a sentence.
    Cjk,
}

/// Terminator at byte `i`: its length and whether it is a CJK full stop.
#[inline]
fn terminator_at(b: &[u8], i: usize) -> Option<(usize, bool)> {
    match b[i] {
        b'.' | b'!' | b'?' => Some((1, false)),
        0xE2 | 0xE3 | 0xEF if i + 2 < b.len() => match (b[i], b[i + 1], b[i + 2]) {
            // … ‼ ⁇ ⁈ ⁉
            (0xE2, 0x80, 0xA6 | 0xBC) | (0xE2, 0x81, 0x87..=0x89) => Some((3, false)),
            // 。 ！ ？ ． ｡
            (0xE3, 0x80, 0x82) | (0xEF, 0xBC, 0x81 | 0x9F | 0x8E) | (0xEF, 0xBD, 0xA1) => {
                Some((3, true))
            }
            _ => None,
        },
        _ => None,
    }
}

/// True when the bytes at `i` start a line break (`\n`, `\r`, form feed, U+2028, U+2029).
#[inline]
fn line_break_at(b: &[u8], i: usize) -> bool {
    match b[i] {
        b'\n' | b'\r' | 0x0C => true,
        0xE2 => b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xA8 | 0xA9)),
        _ => false,
    }
}

/// Closing quotes and brackets that may follow a terminator inside the same sentence.
fn is_closer(c: char) -> bool {
    matches!(
        c,
        ')' | ']'
            | '}'
            | '"'
            | '\''
            | '”'
            | '’'
            | '»'
            | '›'
            | '」'
            | '』'
            | '）'
            | '】'
            | '〉'
            | '》'
    )
}

/// Opening quotes and brackets that may start a sentence.
fn is_opener(c: char) -> bool {
    matches!(
        c,
        '(' | '['
            | '{'
            | '"'
            | '\''
            | '“'
            | '‘'
            | '„'
            | '‚'
            | '«'
            | '‹'
            | '¿'
            | '¡'
            | '「'
            | '『'
            | '（'
    )
}

/// Can a sentence start with `c`?
fn starts_sentence(c: char) -> bool {
    c.is_numeric()
        || (c.is_alphabetic() && !c.is_lowercase())
        || is_opener(c)
        || matches!(
            c,
            '•' | '◦' | '▪' | '‣' | '·' | '-' | '–' | '—' | '*' | '#' | '§' | '`'
        )
}

/// End of the whitespace run at `i` and how many line breaks it holds (a form feed or U+2029
/// counts as two: they always separate paragraphs).
fn skip_ws(text: &str, mut i: usize) -> (usize, usize) {
    let b = text.as_bytes();
    let mut breaks = 0;
    while i < b.len() {
        match b[i] {
            b' ' | b'\t' => i += 1,
            b'\n' | 0x0B => {
                breaks += 1;
                i += 1;
            }
            b'\r' => {
                breaks += (b.get(i + 1) != Some(&b'\n')) as usize;
                i += 1;
            }
            0x0C => {
                breaks += 2;
                i += 1;
            }
            x if x < 0x80 => break,
            _ => {
                let c = text[i..].chars().next().expect("char boundary");
                if !c.is_whitespace() {
                    break;
                }
                breaks += match c {
                    '\u{85}' | '\u{2028}' => 1,
                    '\u{2029}' => 2,
                    _ => 0,
                };
                i += c.len_utf8();
            }
        }
    }
    (i, breaks)
}

/// Does a list item start at `i` ("1.", "2)", "3.1", "a.", "iv.", "(b)", "-", "•" followed by
/// whitespace)?
fn list_item_at(text: &str, i: usize) -> bool {
    let rest = &text.as_bytes()[i..];
    let ws_at = |j: usize| match rest.get(j) {
        Some(&c) if c < 0x80 => (c as char).is_ascii_whitespace(),
        Some(_) => text[i + j..].starts_with(char::is_whitespace),
        None => false,
    };
    match rest.first() {
        Some(b'-' | b'*') => return ws_at(1),
        Some(b'(') => {}
        Some(c) if c.is_ascii_alphanumeric() => {}
        // The other bullets are multi-byte; any other char starts no list item.
        Some(0x80..) => {
            let c = text[i..].chars().next().expect("char boundary");
            return matches!(c, '•' | '◦' | '▪' | '‣' | '·' | '–' | '—' | '○' | '■' | '□')
                && ws_at(c.len_utf8());
        }
        _ => return false,
    }
    let (open, body) = match rest.first() {
        Some(b'(') => (1, &rest[1..]),
        _ => (0, rest),
    };
    // Labels have at most four chars: counting a fifth is enough to reject longer words.
    let label = body
        .iter()
        .take(5)
        .take_while(|b| b.is_ascii_alphanumeric())
        .count();
    if label == 0 || label > 4 {
        return false;
    }
    let l = &body[..label];
    let digits = l.iter().all(u8::is_ascii_digit);
    let roman = l.iter().all(|b| matches!(b, b'i' | b'v' | b'x'))
        || l.iter().all(|b| matches!(b, b'I' | b'V' | b'X'));
    if !(digits && label <= 3 || roman || label == 1) {
        return false;
    }
    let mut j = open + label;
    if digits {
        // Section numbers: 3.1, 3.1.2
        while rest.get(j) == Some(&b'.') && rest.get(j + 1).is_some_and(u8::is_ascii_digit) {
            j += 1;
            while rest.get(j).is_some_and(u8::is_ascii_digit) {
                j += 1;
            }
        }
        if j > open + label && ws_at(j) {
            return open == 0;
        }
    }
    match rest.get(j) {
        Some(b')') => ws_at(j + 1),
        Some(b'.') if open == 0 => ws_at(j + 1),
        _ => false,
    }
}

/// Does the token starting at `start` stand where a list number would (start of text or line,
/// or right after `:` or `;`)? Not after a period: "blz. 12. Het" ends a sentence.
fn list_position(text: &str, start: usize) -> bool {
    let mut blanks = 0;
    for c in text[..start].chars().rev() {
        match c {
            ' ' | '\t' | '\u{a0}' if blanks < 64 => blanks += 1,
            '\n' | '\r' | '\x0c' | '\u{2028}' | '\u{2029}' | ':' | ';' => return true,
            _ => return false,
        }
    }
    true
}

/// "3", "3.1", "12.4.2", "iv", "IV": what numbers a chapter or article.
fn is_number_label(token: &str) -> bool {
    let b = token.as_bytes();
    let roman = |ok: &[u8]| b.len() <= 4 && b.iter().all(|c| ok.contains(c));
    roman(b"ivx")
        || roman(b"IVX")
        || b.first().is_some_and(u8::is_ascii_digit)
            && token
                .split('.')
                .all(|seg| (1..=3).contains(&seg.len()) && seg.bytes().all(|c| c.is_ascii_digit()))
}

/// Is the word before the token at `start` a capitalised heading noun ("Hoofdstuk", "Artikel",
/// "Chapter")?
fn after_heading_noun(text: &str, start: usize, lang: Lang) -> bool {
    let head = &text[..start];
    let word = head.trim_end_matches([' ', '\t', '\u{a0}']);
    if word.len() == head.len() || head.len() - word.len() > 4 {
        return false;
    }
    let from = word
        .char_indices()
        .rev()
        .take(17)
        .take_while(|(_, c)| c.is_alphabetic())
        .last()
        .map_or(word.len(), |(i, _)| i);
    let word = &word[from..];
    word.len() <= 16
        && word.starts_with(|c: char| c.is_ascii_uppercase())
        && word.is_ascii()
        && is_heading_noun(&word.to_ascii_lowercase(), lang)
}

/// Does the period at byte `dot` (followed by whitespace and then `next`) belong to the word
/// before it rather than end a sentence?
fn period_is_abbreviation(text: &str, dot: usize, next: char, lang: Lang) -> bool {
    const MAX_TOKEN: usize = 40;
    // The token before the period: back to whitespace (ASCII bytes are judged without decoding).
    let b = text.as_bytes();
    let mut start = dot;
    while start > 0 {
        let i = if b[start - 1] < 0x80 {
            if matches!(b[start - 1], b'\t'..=b'\r' | b' ') {
                break;
            }
            start - 1
        } else {
            let c = text[..start].chars().next_back().expect("start > 0");
            if c.is_whitespace() {
                break;
            }
            start - c.len_utf8()
        };
        if dot - i > MAX_TOKEN {
            return false;
        }
        start = i;
    }
    let raw = &text[start..dot];
    // (Openers are `([{"'` or multi-byte: most tokens start with none.)
    let token = match raw.as_bytes().first() {
        Some(&c) if c < 0x80 && !matches!(c, b'(' | b'[' | b'{' | b'"' | b'\'') => raw,
        _ => raw.trim_start_matches(is_opener),
    };
    if token.is_empty() {
        return false;
    }
    let lone_label = token.len() <= 3 && token.bytes().all(|b| b.is_ascii_digit())
        || token.len() <= 4 && token.bytes().all(|b| matches!(b, b'i' | b'v' | b'x'))
        || token.len() <= 4 && token.bytes().all(|b| matches!(b, b'I' | b'V' | b'X'))
        || token.chars().count() == 1 && token.chars().all(char::is_alphabetic);
    if lone_label && raw.len() == token.len() && list_position(text, start) {
        return true;
    }
    if raw.len() == token.len() && is_number_label(token) && after_heading_noun(text, start, lang) {
        return true; // "Hoofdstuk 1. Algemene bepalingen", "Chapter IV. The end"
    }
    let mut letters = 0;
    let t = token.as_bytes();
    // Two ASCII chars before any period: not a chain (most words end here).
    let single_letter_chain = !(t[0] < 0x80 && t.len() >= 2 && t[1] != b'.')
        && token.split('.').all(|seg| {
            letters += 1;
            let mut cs = seg.chars();
            matches!((cs.next(), cs.next()), (Some(c), None) if c.is_alphabetic())
        });
    if single_letter_chain && letters == 1 && token.chars().all(char::is_uppercase) {
        return true; // an initial: "J. de Vries"
    }
    let mut buf = [0u8; MAX_TOKEN];
    if !token.is_ascii() || token.len() > buf.len() {
        return single_letter_chain && letters > 1;
    }
    let lower = &mut buf[..token.len()];
    lower.copy_from_slice(token.as_bytes());
    lower.make_ascii_lowercase();
    match lookup_memoized(lower, lang) {
        Some(Abbrev::Never) => true,
        Some(Abbrev::BeforeNumber) => !next.is_alphabetic() || next.is_lowercase(),
        Some(Abbrev::Terminal) => false,
        None => single_letter_chain && letters > 1,
    }
}

/// [`lookup`] of a lowercase ASCII token, memoized per thread for tokens of up to 14 bytes:
/// documents repeat the words that end their sentences. The memo is cleared when it grows large.
fn lookup_memoized(lower: &[u8], lang: Lang) -> Option<Abbrev> {
    const MAX_ENTRIES: usize = 1 << 16;
    let slow = || lookup(std::str::from_utf8(lower).expect("ASCII"), lang);
    if lower.len() > 14 {
        return slow();
    }
    // The bytes, zero-padded, the language and the length: distinct inputs, distinct keys.
    let mut key = [0u8; 16];
    key[..lower.len()].copy_from_slice(lower);
    key[14] = lang as u8;
    key[15] = lower.len() as u8;
    let key = u128::from_le_bytes(key);
    ABBREV_MEMO.with(|memo| {
        let mut memo = memo.borrow_mut();
        if let Some(&answer) = memo.get(&key) {
            return answer;
        }
        if memo.len() >= MAX_ENTRIES {
            memo.clear();
        }
        let answer = slow();
        memo.insert(key, answer);
        answer
    })
}

thread_local! {
    static ABBREV_MEMO: RefCell<HashMap<u128, Option<Abbrev>, BuildHasherDefault<KeyHasher>>> =
        RefCell::default();
}

/// Hashes the `u128` keys of the abbreviation memo with one multiply.
#[derive(Default)]
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0.rotate_left(8) ^ b as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        }
    }
    fn write_u128(&mut self, key: u128) {
        let folded = key as u64 ^ (key >> 64) as u64;
        self.0 = (folded ^ self.0)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(29);
    }
}

/// Candidate positions in increasing order: the bytes a boundary can start at (sentence
/// punctuation, line-break bytes, lead bytes of multi-byte terminators and line separators).
/// Each 64-byte block is tested with branch-free comparisons that compilers vectorize, and its
/// hits are kept as a bit mask.
struct Candidates<'a> {
    bytes: &'a [u8],
    sentences: bool,
    /// Where the next block starts.
    next_block: usize,
    /// Where the block of `bits` starts.
    block: usize,
    bits: u64,
}

impl<'a> Candidates<'a> {
    fn new(bytes: &'a [u8], sentences: bool) -> Self {
        Self {
            bytes,
            sentences,
            next_block: 0,
            block: 0,
            bits: 0,
        }
    }

    /// One bit per byte of `block` that `hit` accepts (the multiply gathers the 0/1 bytes of a
    /// word into one byte).
    #[inline(always)]
    fn block_bits(block: &[u8; 64], hit: impl Fn(u8) -> bool) -> u64 {
        let mut flags = [0u8; 64];
        for (f, &x) in flags.iter_mut().zip(block) {
            *f = hit(x) as u8;
        }
        let mut bits = 0u64;
        for (k, word) in flags.chunks_exact(8).enumerate() {
            let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            bits |= (word.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
        }
        bits
    }
}

impl Iterator for Candidates<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.bits == 0 {
            if self.next_block >= self.bytes.len() {
                return None;
            }
            self.block = self.next_block;
            self.next_block += 64;
            // The last block is zero-padded (0 is no candidate).
            let mut padded = [0u8; 64];
            let block: &[u8; 64] = match self.bytes.get(self.block..self.block + 64) {
                Some(full) => full.try_into().expect("64 bytes"),
                None => {
                    let rest = &self.bytes[self.block..];
                    padded[..rest.len()].copy_from_slice(rest);
                    &padded
                }
            };
            // `|` rather than `||`: every comparison runs, so the block vectorizes.
            self.bits = if self.sentences {
                Self::block_bits(block, |x| {
                    (x == b'.')
                        | (x == b'!')
                        | (x == b'?')
                        | (x == b'\n')
                        | (x == b'\r')
                        | (x == 0x0C)
                        | (x == 0xE2)
                        | (x == 0xE3)
                        | (x == 0xEF)
                })
            } else {
                // Paragraph mode only needs U+2029 (E2 80 A9) of the multi-byte chars.
                Self::block_bits(block, |x| {
                    (x == b'\n') | (x == b'\r') | (x == 0x0C) | (x == 0xE2)
                })
            };
        }
        let i = self.block + self.bits.trailing_zeros() as usize;
        self.bits &= self.bits - 1;
        Some(i)
    }
}

/// One linear pass that collects cut positions.
struct Scanner<'a> {
    text: &'a str,
    lang: Lang,
    sentences: bool,
    cuts: Vec<usize>,
    /// Candidates before this byte were consumed by an earlier candidate's scan.
    skip_until: usize,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str, lang: Lang, sentences: bool) -> Self {
        Self {
            text,
            lang,
            sentences,
            cuts: Vec::new(),
            skip_until: 0,
        }
    }

    fn cut(&mut self, at: usize) {
        if at < self.text.len() && self.cuts.last().is_none_or(|&l| l < at) {
            self.cuts.push(at);
        }
    }

    fn boundaries(mut self) -> Vec<usize> {
        let sentences = self.sentences;
        let b = self.text.as_bytes();
        for i in Candidates::new(b, sentences) {
            if i < self.skip_until {
                continue;
            }
            if line_break_at(b, i) {
                self.line_break(i, sentences);
            } else if sentences {
                if let Some((_, cjk)) = terminator_at(b, i) {
                    self.terminator(i, cjk);
                }
            }
        }
        self.cuts
    }

    /// A line break at `i`: cut after a blank line, or (sentences) before a list item.
    fn line_break(&mut self, i: usize, sentences: bool) {
        // Most lines start with a printable ASCII char: one break, no whitespace to skip.
        if let (b'\n', Some(&(b'!'..=b'~'))) =
            (self.text.as_bytes()[i], self.text.as_bytes().get(i + 1))
        {
            self.skip_until = i + 1;
            if sentences && list_item_at(self.text, i + 1) {
                self.cut(i + 1);
            }
            return;
        }
        let (q, breaks) = skip_ws(self.text, i);
        self.skip_until = q;
        if q < self.text.len() && (breaks >= 2 || sentences && list_item_at(self.text, q)) {
            self.cut(q);
        }
    }

    /// A run of terminators starting at `i`.
    fn terminator(&mut self, i: usize, first_cjk: bool) {
        let (text, b) = (self.text, self.text.as_bytes());
        let mut j = i;
        let mut count = 0;
        let mut run = if first_cjk { Run::Cjk } else { Run::Period };
        while j < b.len() {
            match terminator_at(b, j) {
                Some((len, cjk)) => {
                    if cjk {
                        run = Run::Cjk;
                    } else if run == Run::Period && (b[j] != b'.' || count > 0) {
                        run = Run::Other;
                    }
                    count += 1;
                    j += len;
                }
                None => break,
            }
        }
        loop {
            match b.get(j) {
                Some(b')' | b']' | b'}' | b'"' | b'\'') => j += 1,
                Some(0x80..) => match text[j..].chars().next().filter(|&c| is_closer(c)) {
                    Some(c) => j += c.len_utf8(),
                    None => break,
                },
                _ => break,
            }
        }
        self.skip_until = j;
        if j >= b.len() {
            return;
        }
        let (q, breaks) = skip_ws(text, j);
        if run == Run::Cjk {
            self.skip_until = q;
            self.cut(q);
            return;
        }
        if q == j {
            return; // "3.14", "example.com", "Nee.\"zei"
        }
        self.skip_until = q;
        if q >= b.len() {
            return;
        }
        if breaks >= 2 || breaks == 1 && list_item_at(text, q) {
            self.cut(q);
            return;
        }
        let next = text[q..].chars().next().expect("q < len");
        if !starts_sentence(next) {
            return;
        }
        if run == Run::Period && period_is_abbreviation(text, i, next, self.lang) {
            return;
        }
        self.cut(q);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, lang: Lang) -> Vec<&str> {
        let spans = sentences(text, lang);
        check_tiling(text, &spans);
        spans.iter().map(|&(s, e)| &text[s..e]).collect()
    }

    fn trimmed(text: &str, lang: Lang) -> Vec<&str> {
        split(text, lang).into_iter().map(str::trim).collect()
    }

    fn check_tiling(text: &str, spans: &[(usize, usize)]) {
        if text.is_empty() {
            assert!(spans.is_empty());
            return;
        }
        assert_eq!(spans.first().unwrap().0, 0);
        assert_eq!(spans.last().unwrap().1, text.len());
        for w in spans.windows(2) {
            assert_eq!(w[0].1, w[1].0);
        }
        for &(s, e) in spans {
            assert!(s < e && text.is_char_boundary(s) && text.is_char_boundary(e));
            let blank = text[s..e].trim().is_empty();
            assert!(
                !blank || spans.len() == 1,
                "whitespace-only span in {text:?}"
            );
        }
    }

    /// Each entry must come out as exactly one sentence.
    fn assert_one(lang: Lang, cases: &[&str]) {
        for t in cases {
            assert_eq!(trimmed(t, lang), [t.trim()], "split inside {t:?}");
        }
    }

    #[test]
    fn basic_english() {
        assert_eq!(
            trimmed(
                "The council met. It adopted the motion! Did it? Yes.",
                Lang::English
            ),
            [
                "The council met.",
                "It adopted the motion!",
                "Did it?",
                "Yes."
            ]
        );
    }

    #[test]
    fn spans_keep_trailing_whitespace() {
        assert_eq!(
            split("  Eén.  Twee.\n", Lang::Dutch),
            ["  Eén.  ", "Twee.\n"]
        );
    }

    #[test]
    fn dutch_abbreviations_do_not_split() {
        assert_one(
            Lang::Dutch,
            &[
                "Dhr. Jansen en Mevr. De Boer waren aanwezig.",
                "Mw. Bakker sprak namens de fractie.",
                "Er zijn kosten, bijv. Voor onderhoud en beheer.",
                "Zij noemde o.a. De Uithof en Leidsche Rijn.",
                "Het plan, d.w.z. De tweede variant, is gekozen.",
                "Wij kiezen i.p.v. Optie A voor optie B.",
                "Het besluit m.b.t. Het Stationsgebied is genomen.",
                "Een brief t.a.v. Het college van B en W.",
                "Te koop: fiets z.g.a.n. Voor een zacht prijsje.",
                "Zie motie nr. 12 van de fractie.",
                "Zie blz. 14 van de nota.",
                "Op grond van art. 3.1 van de verordening.",
                "Op 12 mei jl. heeft de raad besloten.",
                "Stoelen, tafels e.d. worden vergoed.",
                "Appels, peren etc. worden geleverd.",
                "De motie van mr. J.A. de Vries is aangenomen.",
                "Dr. Pietersen en Prof. Smit gaven advies.",
                "Ir. Van Dam en Drs. Kok waren er ook.",
                "De vergadering begint om 10.30 uur in de raadzaal.",
                "Het bedrag is € 1.400,50 inclusief btw.",
                "Zie www.utrecht.nl en info@utrecht.nl voor meer.",
                "Het document heet besluit-v1.2.3.pdf en staat online.",
                "De uitkomst van 3.14 is bekend.",
                "Hij aarzelde... en ging toen zitten.",
                "Zij verwees naar Fig. 3 in de bijlage.",
                "De gemeente, vgl. De Rijksoverheid, volgt dit beleid.",
                "Hoofdstuk 1. Algemene bepalingen gelden hier.",
                "Zie Artikel 3.1. Begrippen voor de definities.",
            ],
        );
    }

    #[test]
    fn english_abbreviations_do_not_split() {
        assert_one(
            Lang::English,
            &[
                "Mr. Smith met Mrs. Jones and Ms. Brown.",
                "Dr. Watson lives on Baker St. In London.",
                "Some fruits, e.g. Apples, are sweet.",
                "One fruit, i.e. The apple, was chosen.",
                "It was Ajax vs. Feyenoord last night.",
                "Acme Inc. Announced record profits.",
                "See No. 5 and Fig. 3 for details.",
                "The U.S. Senate voted today.",
                "Prof. J. R. R. Tolkien wrote it.",
                "Pi is 3.14 and the meeting is at 10.30 today.",
                "Visit example.com or read notes-v1.2.3.txt now.",
                "He paused... and then spoke.",
                "As shown by Smith et al. (2020) the effect holds.",
                "In Roe v. Wade the court ruled.",
                "Chapter IV. The Return begins here.",
            ],
        );
    }

    #[test]
    fn sentence_ends_after_abbreviation_like_words_when_they_end_it() {
        assert_eq!(
            trimmed(
                "We ate in 2021. Then we left. Art. It was art. Then.",
                Lang::English
            ),
            [
                "We ate in 2021.",
                "Then we left.",
                "Art.",
                "It was art.",
                "Then."
            ]
        );
        // "no." is a word before a capital, a label before a number.
        assert_eq!(
            trimmed("She said no. Then she left.", Lang::English),
            ["She said no.", "Then she left."]
        );
        // Terminal chains end a sentence before a capital.
        assert_eq!(
            trimmed("Op maandag a.s. De raad vergadert dan.", Lang::Dutch),
            ["Op maandag a.s.", "De raad vergadert dan."]
        );
        assert_eq!(
            trimmed("Wij danken u. De raad.", Lang::Dutch),
            ["Wij danken u.", "De raad."]
        );
    }

    #[test]
    fn lowercase_continuation_is_not_a_break() {
        assert_one(
            Lang::Dutch,
            &["Het voorstel. en de motie werden besproken."],
        );
        assert_one(Lang::English, &["What? he asked. so? no! she said."]);
    }

    #[test]
    fn quotes_and_brackets_close_the_sentence() {
        assert_eq!(
            trimmed(
                "He said \"Stop.\" Then he left. (See annex 2.) Next.",
                Lang::English
            ),
            [
                "He said \"Stop.\"",
                "Then he left.",
                "(See annex 2.)",
                "Next."
            ]
        );
        assert_eq!(
            trimmed("Zij zei: ‘Nee.’ Daarna ging zij weg.", Lang::Dutch),
            ["Zij zei: ‘Nee.’", "Daarna ging zij weg."]
        );
        assert_one(Lang::Dutch, &["Hij zei \"Nee.\" en vertrok."]);
    }

    #[test]
    fn ellipsis_and_mixed_runs() {
        assert_eq!(
            trimmed("Wait... What?! Really… Yes.", Lang::English),
            ["Wait...", "What?!", "Really…", "Yes."]
        );
    }

    #[test]
    fn municipal_motion() {
        let text = "De raad van de gemeente Utrecht, in vergadering bijeen op 12 mei 2021, \
                    gehoord de beraadslaging,\n\noverwegende dat:\n\
                    - de gemeente o.a. via het Klimaatplan 2030 duurzame energie wil stimuleren;\n\
                    - dhr. Jansen namens de bewoners een petitie heeft aangeboden;\n\n\
                    verzoekt het college:\n\
                    1. Een plan op te stellen voor zonnepanelen op gemeentelijke daken, \
                    bijv. Op sporthallen en scholen.\n\
                    2. De raad hierover vóór 1 jan. 2022 te informeren.\n\n\
                    en gaat over tot de orde van de dag.";
        assert_eq!(
            trimmed(text, Lang::Dutch),
            [
                "De raad van de gemeente Utrecht, in vergadering bijeen op 12 mei 2021, \
                 gehoord de beraadslaging,",
                "overwegende dat:",
                "- de gemeente o.a. via het Klimaatplan 2030 duurzame energie wil stimuleren;",
                "- dhr. Jansen namens de bewoners een petitie heeft aangeboden;",
                "verzoekt het college:",
                "1. Een plan op te stellen voor zonnepanelen op gemeentelijke daken, \
                 bijv. Op sporthallen en scholen.",
                "2. De raad hierover vóór 1 jan. 2022 te informeren.",
                "en gaat over tot de orde van de dag.",
            ]
        );
    }

    #[test]
    fn raadsbesluit_with_articles() {
        let text = "Besluit van de raad van de gemeente Utrecht van 8 juli 2021, nr. 2021/123.\n\
                    De raad besluit, gelet op art. 147 van de Gemeentewet en het voorstel van \
                    B. en W. d.d. 1 juni 2021: Vast te stellen de Verordening Parkeren 2021. \
                    Deze verordening treedt in werking op 1 jan. 2022. Zij wordt aangehaald \
                    als \"Parkeerverordening\". Aldus besloten door mw. drs. A.B. Pietersen, \
                    voorzitter.";
        assert_eq!(
            trimmed(text, Lang::Dutch),
            [
                "Besluit van de raad van de gemeente Utrecht van 8 juli 2021, nr. 2021/123.",
                "De raad besluit, gelet op art. 147 van de Gemeentewet en het voorstel van \
                 B. en W. d.d. 1 juni 2021: Vast te stellen de Verordening Parkeren 2021.",
                "Deze verordening treedt in werking op 1 jan. 2022.",
                "Zij wordt aangehaald als \"Parkeerverordening\".",
                "Aldus besloten door mw. drs. A.B. Pietersen, voorzitter.",
            ]
        );
    }

    #[test]
    fn enumerations() {
        assert_eq!(
            trimmed("1. Eerste punt\n2. Tweede punt\n3. Derde punt", Lang::Dutch),
            ["1. Eerste punt", "2. Tweede punt", "3. Derde punt"]
        );
        assert_eq!(
            trimmed(
                "Besluit:\na. Het plan\nb) De kosten\n(c) Het budget\niv. Slot",
                Lang::Dutch
            ),
            [
                "Besluit:",
                "a. Het plan",
                "b) De kosten",
                "(c) Het budget",
                "iv. Slot"
            ]
        );
        assert_eq!(
            trimmed("3.1 Inleiding\n3.2 Aanleiding\n• Punt\n* Ster", Lang::Dutch),
            ["3.1 Inleiding", "3.2 Aanleiding", "• Punt", "* Ster"]
        );
        // Inline numbering after a colon or semicolon stays with its item.
        assert_eq!(
            trimmed(
                "De raad besluit: 1. Het plan vast te stellen; 2. Geld vrij te maken.",
                Lang::Dutch
            ),
            ["De raad besluit: 1. Het plan vast te stellen; 2. Geld vrij te maken."]
        );
    }

    #[test]
    fn hard_wrapped_lines_do_not_split() {
        assert_one(
            Lang::Dutch,
            &["De raad van de gemeente\nUtrecht heeft op 12 mei 2021\nbesloten het voorstel\nAan te nemen."],
        );
    }

    #[test]
    fn blank_lines_always_split() {
        assert_eq!(
            trimmed(
                "Artikel 1\n\nDhr.\n\nSlot zonder punt\r\n\r\nNog een\x0cPagina",
                Lang::Dutch
            ),
            ["Artikel 1", "Dhr.", "Slot zonder punt", "Nog een", "Pagina"]
        );
    }

    #[test]
    fn cjk_full_stops_split() {
        assert_eq!(
            trimmed("今天天气很好。我们去公园吧！你来吗？好的", Lang::English),
            ["今天天气很好。", "我们去公园吧！", "你来吗？", "好的"]
        );
        assert_eq!(
            trimmed("「行くよ。」そう言った。", Lang::English),
            ["「行くよ。」", "そう言った。"]
        );
    }

    #[test]
    fn edge_inputs() {
        assert!(sentences("", Lang::Auto).is_empty());
        assert_eq!(sentences("   \n\n  ", Lang::Auto), [(0, 7)]);
        assert_eq!(
            split("geen leestekens hier", Lang::Dutch),
            ["geen leestekens hier"]
        );
        assert_eq!(split("\n\n  Tekst.", Lang::Dutch), ["\n\n  Tekst."]);
        assert_eq!(trimmed("Leuk! 🎉 Echt.", Lang::Dutch), ["Leuk! 🎉 Echt."]);
        assert_eq!(
            trimmed("Super 😀. Nog eens 👍🏽! Klaar.", Lang::Dutch),
            ["Super 😀.", "Nog eens 👍🏽!", "Klaar."]
        );
        assert_eq!(trimmed("Eén.\r\nTwee.\r\n", Lang::Dutch), ["Eén.", "Twee."]);
        let long = "X".repeat(3000);
        let text = format!("{long}. {long}.{long}? Ja");
        assert_eq!(split(&text, Lang::Dutch).len(), 3);
        for t in [
            ".", "...", "!?", "。", ". .", "a.\n\n.", "\u{2029}", "…", "(", "\"", "1.", "\r",
        ] {
            split(t, Lang::Dutch);
            split(t, Lang::English);
            check_tiling(t, &paragraphs(t));
        }
        // Truncated multi-byte sequences can't occur in &str, but odd ones must not panic.
        split("x\u{2028}- y", Lang::Dutch);
        split("Ja.\u{2029}Nee.", Lang::Dutch);
    }

    #[test]
    fn unicode_whitespace() {
        assert_eq!(
            trimmed("Eén.\u{a0}Twee.\u{3000}Drie.\u{2028}- vier", Lang::Dutch),
            ["Eén.", "Twee.", "Drie.", "- vier"]
        );
    }

    #[test]
    fn auto_language_uses_dutch_lists() {
        // "vol." is an English abbreviation but a Dutch word.
        let nl = "De zaal is vol. De raad begint met de vergadering van het jaar.";
        assert_eq!(trimmed(nl, Lang::Auto).len(), 2);
        let en = "See vol. 3 of the report for the details of the motion.";
        assert_eq!(trimmed(en, Lang::Auto).len(), 1);
    }

    #[test]
    fn paragraphs_tile_and_split_at_blank_lines() {
        let text = "\n\nEen\nregel.\n \t\nTwee.\r\n\r\n\r\nDrie\u{2029}Vier\n";
        let spans = paragraphs(text);
        check_tiling(text, &spans);
        let parts: Vec<_> = spans.iter().map(|&(s, e)| text[s..e].trim()).collect();
        assert_eq!(parts, ["Een\nregel.", "Twee.", "Drie", "Vier"]);
        assert!(paragraphs("").is_empty());
        assert_eq!(paragraphs(" "), [(0, 1)]);
        assert_eq!(
            paragraphs("Geen witregel. Twee zinnen.\nEn een regel."),
            [(0, 41)]
        );
    }

    #[test]
    fn segmentation_is_linear_on_pathological_input() {
        // Many candidates in long runs must not cause quadratic rescans.
        let text = format!(
            "{}{}{}",
            ".".repeat(200_000),
            "\n".repeat(200_000),
            " .".repeat(100_000)
        );
        let spans = sentences(&text, Lang::Dutch);
        check_tiling(&text, &spans);
    }

    /// `cargo test --release -p chunklab-core segment_throughput -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn segment_throughput() {
        let dir = chunklab_test_support::shared_path("golden/langchain/inputs");
        let mut corpus = String::new();
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            corpus.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default());
            corpus.push_str("\n\n");
        }
        let text = corpus.repeat((200 << 20) / corpus.len().max(1) + 1);
        for (name, lang) in [("en", Lang::English), ("nl", Lang::Dutch)] {
            let t = std::time::Instant::now();
            let n = sentences(&text, lang).len();
            let s = t.elapsed().as_secs_f64();
            eprintln!(
                "sentences {name}: {:.0} MiB in {s:.3}s = {:.0} MiB/s, {n} sentences",
                text.len() as f64 / 1048576.0,
                text.len() as f64 / 1048576.0 / s
            );
        }
        let t = std::time::Instant::now();
        let n = paragraphs(&text).len();
        let s = t.elapsed().as_secs_f64();
        eprintln!(
            "paragraphs: {:.0} MiB/s, {n} paragraphs",
            text.len() as f64 / 1048576.0 / s
        );
    }
}
