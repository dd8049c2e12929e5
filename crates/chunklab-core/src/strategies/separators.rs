//! Separators for `recursive`: a literal string, a regular expression (lookaround allowed, via
//! `fancy-regex`) or `""` (every char). A separator finds its matches with Python `re` semantics
//! and cuts a piece of text into smaller pieces, keeping the separator at the start of the next
//! piece, at the end of the previous one, or dropping it.
//!
//! Everything works on byte offsets into the searched text, so callers turn pieces into spans of
//! the original document by adding the piece's start.
//!
//! The regexes of chunklab's default separators ([`Builtin`]) have hand-written matchers that find
//! exactly the matches the regex engine finds, with byte scans instead of automata.

use super::KeepSeparator;
use crate::error::{Error, Result};
use memchr::memchr3;
use memchr::memmem::Finder;

/// One level of the separator hierarchy.
#[derive(Debug, Clone)]
pub(crate) struct Separator {
    /// The separator as the user wrote it (LangChain measures and joins with this string).
    pub(crate) source: String,
    pattern: Pattern,
    /// Where the separator goes; `None` = the chunker's `keep_separator` setting.
    pub(crate) keep: Option<KeepSeparator>,
}

#[derive(Debug, Clone)]
enum Pattern {
    Literal(Finder<'static>),
    Regex(fancy_regex::Regex),
    /// `""`: every char is a piece (LangChain `list(text)`).
    Chars,
    Builtin(Builtin),
}

/// A regular expression with a hand-written matcher that finds the same matches as the regex
/// engine does on any text (tested against it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Builtin {
    /// `\n(?:[ \t\r]*\n)+`: a line break followed by blank lines.
    BlankLines,
    /// `[.!?…]+["'”’»)\]]*\s+|[。！？]+`: sentence-ending punctuation, closing quotes or brackets
    /// and the whitespace after them, or a run of CJK full stops.
    SentenceEnd,
    /// `\s+`: a run of Unicode whitespace.
    Whitespace,
}

impl Builtin {
    /// The regular expression this matcher implements.
    pub(crate) fn pattern(self) -> &'static str {
        match self {
            Builtin::BlankLines => r"\n(?:[ \t\r]*\n)+",
            Builtin::SentenceEnd => r#"[.!?…]+["'”’»)\]]*\s+|[。！？]+"#,
            Builtin::Whitespace => r"\s+",
        }
    }

    /// The leftmost(-first) match in `hay[from..]`, as the regex engine finds it. `scan` carries
    /// what earlier searches in the same `hay` found ahead of their match.
    fn find(self, hay: &str, from: usize, scan: &mut BreakScan) -> Option<(usize, usize)> {
        match self {
            Builtin::BlankLines => find_blank_lines(hay.as_bytes(), from, scan),
            Builtin::SentenceEnd => find_sentence_end(hay, from),
            Builtin::Whitespace => find_whitespace(hay, from),
        }
    }
}

/// `\n(?:[ \t\r]*\n)+`. A match ends with a `\n` right after `[\n \t\r]`, a pair much rarer than
/// line breaks, so the pairs are found a block at a time ([`BreakScan`]) and each is
/// checked by walking back over the whitespace before it: the leftmost match starts at the first
/// `\n` of that run, and the greedy repetition ends it at the last `\n` of the run that follows.
fn find_blank_lines(b: &[u8], from: usize, scan: &mut BreakScan) -> Option<(usize, usize)> {
    let space = |c: u8| matches!(c, b' ' | b'\t' | b'\r' | b'\n');
    let mut from = from;
    loop {
        let i = scan.next(b, from);
        if i >= b.len() {
            return None;
        }
        let q = i + 1; // b[q] == b'\n'
        let mut r = q;
        while r > from && space(b[r - 1]) {
            r -= 1;
        }
        if let Some(start) = (r..q).find(|&p| b[p] == b'\n') {
            let mut end = q + 1;
            let mut k = end;
            while k < b.len() && space(b[k]) {
                k += 1;
                if b[k - 1] == b'\n' {
                    end = k;
                }
            }
            return Some((start, end));
        }
        // No `\n` in the run, so no match starts before `q`.
        from = q;
    }
}

/// Bytes per block in [`BreakScan`].
const BLOCK: usize = 64;

/// Finds the positions `i` with `b[i + 1] == b'\n'` and `b[i] <= b' '` (a line break right after
/// whitespace, a control char or another line break) a 64-byte block at a time: a branch-free
/// reduction that compilers turn into a few vector instructions tests each block, and the hits
/// of a block are kept as a bit mask for the searches that follow.
#[derive(Debug, Clone, Copy)]
struct BreakScan {
    /// The block whose hits `bits` holds (`usize::MAX`: none yet).
    block: usize,
    bits: u64,
}

impl Default for BreakScan {
    fn default() -> Self {
        Self {
            block: usize::MAX,
            bits: 0,
        }
    }
}

impl BreakScan {
    /// The first hit at or after `from` in `b` (the same slice on every call), or `b.len()`.
    fn next(&mut self, b: &[u8], from: usize) -> usize {
        #[inline(always)]
        fn hit(x: u8, next: u8) -> bool {
            (next == b'\n') & (x <= b' ')
        }
        let mut i = from;
        if (self.block..self.block.saturating_add(BLOCK)).contains(&from) {
            let rest = self.bits & (!0u64 << (from - self.block));
            if rest != 0 {
                return self.block + rest.trailing_zeros() as usize;
            }
            i = self.block + BLOCK;
        }
        while let Some(block) = b.get(i..i + BLOCK + 1) {
            let block: &[u8; BLOCK + 1] = block.try_into().expect("BLOCK + 1 bytes");
            let mut any = false;
            for j in 0..BLOCK {
                any |= hit(block[j], block[j + 1]);
            }
            if any {
                // One bit per position (the multiply gathers the 0/1 bytes of a word into one byte).
                let mut flags = [0u8; BLOCK];
                for j in 0..BLOCK {
                    flags[j] = hit(block[j], block[j + 1]) as u8;
                }
                let mut bits = 0u64;
                for (k, word) in flags.chunks_exact(8).enumerate() {
                    let word = u64::from_le_bytes(word.try_into().expect("8 bytes"));
                    bits |= (word.wrapping_mul(0x0102_0408_1020_4080) >> 56) << (8 * k);
                }
                *self = Self { block: i, bits };
                return i + bits.trailing_zeros() as usize;
            }
            i += BLOCK;
        }
        (i..b.len().saturating_sub(1))
            .find(|&j| hit(b[j], b[j + 1]))
            .unwrap_or(b.len())
    }
}

/// Length of the Unicode whitespace char (`\s`, `char::is_whitespace`) at byte `i`, or 0.
#[inline]
fn white_space_len(hay: &str, i: usize) -> usize {
    let b = hay.as_bytes()[i];
    if b < 0x80 {
        return matches!(b, b'\t'..=b'\r' | b' ') as usize;
    }
    // Lead bytes of U+0085, U+00A0, U+1680, U+2000–U+205F and U+3000.
    if !matches!(b, 0xC2 | 0xE1 | 0xE2 | 0xE3) {
        return 0;
    }
    match hay[i..].chars().next() {
        Some(c) if c.is_whitespace() => c.len_utf8(),
        _ => 0,
    }
}

/// `\s+`.
fn find_whitespace(hay: &str, from: usize) -> Option<(usize, usize)> {
    let mut i = from;
    while i < hay.len() {
        let n = white_space_len(hay, i);
        if n > 0 {
            let mut end = i + n;
            while end < hay.len() {
                match white_space_len(hay, end) {
                    0 => break,
                    n => end += n,
                }
            }
            return Some((i, end));
        }
        i += 1;
    }
    None
}

/// Length of `[.!?…]` at byte `i`, or 0.
#[inline]
fn terminator_len(b: &[u8], i: usize) -> usize {
    match b[i] {
        b'.' | b'!' | b'?' => 1,
        0xE2 if b.get(i + 1..i + 3) == Some(&[0x80, 0xA6]) => 3, // …
        _ => 0,
    }
}

/// Length of `["'”’»)\]]` at byte `i`, or 0.
#[inline]
fn closer_len(b: &[u8], i: usize) -> usize {
    match b[i] {
        b'"' | b'\'' | b')' | b']' => 1,
        0xC2 if b.get(i + 1) == Some(&0xBB) => 2, // »
        0xE2 if matches!(b.get(i + 1..i + 3), Some([0x80, 0x9D | 0x99])) => 3, // ” ’
        _ => 0,
    }
}

/// True when `。`, `！` or `？` starts at byte `i`.
#[inline]
fn is_cjk_stop(b: &[u8], i: usize) -> bool {
    matches!(
        b.get(i..i + 3),
        Some([0xE3, 0x80, 0x82] | [0xEF, 0xBC, 0x81 | 0x9F])
    )
}

/// `[.!?…]+["'”’»)\]]*\s+|[。！？]+`. The three classes are disjoint, so the greedy runs never
/// give anything back: a terminator run matches iff its closers are followed by whitespace, and
/// if it does not, no match starts inside it either.
fn find_sentence_end(hay: &str, from: usize) -> Option<(usize, usize)> {
    let b = hay.as_bytes();
    let mut from = from;
    // The first ASCII terminator at or after `from` (still the first while `from` <= it).
    let mut next_ascii: Option<usize> = None;
    loop {
        let ascii = match next_ascii {
            Some(a) if a >= from => a,
            _ => memchr3(b'.', b'!', b'?', b.get(from..)?).map_or(b.len(), |i| from + i),
        };
        next_ascii = Some(ascii);
        // A multi-byte terminator before it: `…` or a CJK stop (lead bytes E2, E3, EF).
        let mut at = ascii;
        let mut w = from;
        while let Some(i) = memchr3(0xE2, 0xE3, 0xEF, &b[w..ascii]) {
            let i = w + i;
            if terminator_len(b, i) > 0 || is_cjk_stop(b, i) {
                at = i;
                break;
            }
            w = i + 1;
        }
        if at >= b.len() {
            return None;
        }
        let mut end = at;
        if is_cjk_stop(b, at) {
            while is_cjk_stop(b, end) {
                end += 3;
            }
            return Some((at, end));
        }
        while end < b.len() {
            match terminator_len(b, end) {
                0 => break,
                n => end += n,
            }
        }
        let run_end = end;
        while end < b.len() {
            match closer_len(b, end) {
                0 => break,
                n => end += n,
            }
        }
        let spaces = end;
        while end < b.len() {
            match white_space_len(hay, end) {
                0 => break,
                n => end += n,
            }
        }
        if end > spaces {
            return Some((at, end));
        }
        from = run_end;
    }
}

impl Separator {
    /// A literal separator; `""` splits into chars.
    pub(crate) fn literal(s: &str) -> Self {
        let pattern = if s.is_empty() {
            Pattern::Chars
        } else {
            Pattern::Literal(Finder::new(s.as_bytes()).into_owned())
        };
        Self {
            source: s.to_string(),
            pattern,
            keep: None,
        }
    }

    /// The separator `builtin.pattern()` with its hand-written matcher.
    pub(crate) fn builtin(builtin: Builtin) -> Self {
        Self {
            source: builtin.pattern().to_string(),
            pattern: Pattern::Builtin(builtin),
            keep: None,
        }
    }

    /// A regular-expression separator (`fancy-regex` syntax, close to Python's `re`); `""` splits
    /// into chars.
    pub(crate) fn regex(pattern: &str) -> Result<Self> {
        if pattern.is_empty() {
            return Ok(Self::literal(""));
        }
        let re = fancy_regex::Regex::new(pattern).map_err(|e| Error::Pattern {
            pattern: pattern.to_string(),
            message: e.to_string(),
        })?;
        Ok(Self {
            source: pattern.to_string(),
            pattern: Pattern::Regex(re),
            keep: None,
        })
    }

    /// The same separator with a fixed keep mode that overrides the chunker's setting.
    pub(crate) fn keeping(mut self, keep: KeepSeparator) -> Self {
        self.keep = Some(keep);
        self
    }

    /// True for `""` (split into chars / units).
    pub(crate) fn is_chars(&self) -> bool {
        matches!(self.pattern, Pattern::Chars)
    }

    /// Python `re.search(separator, hay) is not None` (the chunkers use
    /// [`Separator::pieces_if_occurs`], which tests and splits with one search).
    #[cfg(test)]
    pub(crate) fn occurs_in(&self, hay: &str) -> Result<bool> {
        match &self.pattern {
            Pattern::Chars => Ok(true),
            Pattern::Literal(f) => Ok(f.find(hay.as_bytes()).is_some()),
            Pattern::Regex(re) => Ok(re.find(hay).map_err(|e| self.runtime(e))?.is_some()),
            Pattern::Builtin(b) => Ok(b.find(hay, 0, &mut BreakScan::default()).is_some()),
        }
    }

    /// Where `hay` can be cut into blocks of at least `block` bytes (the first cut is 0, the
    /// last `hay.len()`) so that the pieces of each block, offset by its start, are the pieces
    /// of `hay`. Only for a literal separator (`None` for any other): a block begins at a match
    /// that the scan from the start makes too, because no match starts less than a separator's
    /// length before it; before that match with `keep` start or none, after it with end.
    pub(crate) fn block_cuts(
        &self,
        hay: &str,
        block: usize,
        keep: KeepSeparator,
    ) -> Option<Vec<usize>> {
        let Pattern::Literal(f) = &self.pattern else {
            return None;
        };
        let (b, n) = (hay.as_bytes(), f.needle().len());
        let mut cuts = vec![0];
        let mut from = block;
        while from < b.len() {
            let Some(at) = f.find(&b[from..]).map(|i| from + i) else {
                break;
            };
            let lo = at.saturating_sub(n - 1);
            if f.find(&b[lo..at + n - 1]).is_some() {
                // A match starts inside the separator's length before: the scan may pass `at`.
                from = at + 1;
                continue;
            }
            let cut = match self.keep.unwrap_or(keep) {
                KeepSeparator::End => at + n,
                KeepSeparator::Start | KeepSeparator::Drop => at,
            };
            if hay.len() - cut < block {
                break;
            }
            cuts.push(cut);
            from = cut + block;
        }
        cuts.push(hay.len());
        Some(cuts)
    }

    /// [`Separator::pieces`] of `hay` if the separator occurs in it (Python `re.search`),
    /// with one search for both: the first match found by the test is the first cut.
    pub(crate) fn pieces_if_occurs<'a>(
        &'a self,
        hay: &'a str,
        keep: KeepSeparator,
    ) -> Result<Option<Pieces<'a>>> {
        let mut pieces = self.pieces(hay, keep);
        if self.is_chars() {
            return Ok(Some(pieces));
        }
        Ok(pieces.next_match()?.map(|m| {
            pieces.pending = Some(m);
            pieces
        }))
    }

    /// The non-empty pieces of `hay` cut at this separator's matches (Python
    /// `re.split(f"({sep})", hay)` recombined as LangChain's `_split_text_with_regex` does, empty
    /// pieces dropped). Pieces are produced lazily, so splitting a huge text into chars costs no
    /// memory.
    pub(crate) fn pieces<'a>(&'a self, hay: &'a str, keep: KeepSeparator) -> Pieces<'a> {
        Pieces {
            sep: self,
            hay,
            keep: self.keep.unwrap_or(keep),
            pos: 0,
            cut: 0,
            empty_at: None,
            pending: None,
            scan: BreakScan::default(),
            done: false,
        }
    }

    fn runtime(&self, e: fancy_regex::Error) -> Error {
        Error::Pattern {
            pattern: self.source.clone(),
            message: e.to_string(),
        }
    }
}

/// Lazy piece iterator of [`Separator::pieces`].
pub(crate) struct Pieces<'a> {
    sep: &'a Separator,
    hay: &'a str,
    keep: KeepSeparator,
    /// Where the next match search starts.
    pos: usize,
    /// Where the next piece starts.
    cut: usize,
    /// End of the previous match if it was empty (Python does not match empty there again).
    empty_at: Option<usize>,
    /// A match already found (by [`Separator::pieces_if_occurs`]) and not yet cut at.
    pending: Option<(usize, usize)>,
    /// State of the blank-line scan between matches.
    scan: BreakScan,
    done: bool,
}

impl Pieces<'_> {
    /// The next non-empty piece as a byte range of the searched text.
    pub(crate) fn next_piece(&mut self) -> Result<Option<(usize, usize)>> {
        while !self.done {
            if let Pattern::Chars = self.sep.pattern {
                return Ok(self.next_char());
            }
            let next = match self.pending.take() {
                Some(m) => Some(m),
                None => self.next_match()?,
            };
            let piece = match next {
                Some((ms, me)) => {
                    let (start, end, next) = match self.keep {
                        KeepSeparator::Start => (self.cut, ms, ms),
                        KeepSeparator::End => (self.cut, me, me),
                        KeepSeparator::Drop => (self.cut, ms, me),
                    };
                    self.cut = next;
                    (start, end)
                }
                None => {
                    self.done = true;
                    (self.cut, self.hay.len())
                }
            };
            if piece.1 > piece.0 {
                return Ok(Some(piece));
            }
        }
        Ok(None)
    }

    fn next_char(&mut self) -> Option<(usize, usize)> {
        let c = self.hay[self.cut..].chars().next();
        match c {
            Some(c) => {
                let start = self.cut;
                self.cut += c.len_utf8();
                Some((start, self.cut))
            }
            None => {
                self.done = true;
                None
            }
        }
    }

    /// Next match with Python `re.finditer` semantics: non-overlapping, leftmost; an empty match
    /// is allowed right after a non-empty one but not twice at the same position.
    fn next_match(&mut self) -> Result<Option<(usize, usize)>> {
        if self.pos > self.hay.len() {
            return Ok(None);
        }
        match &self.sep.pattern {
            Pattern::Chars => unreachable!("chars are handled by next_char"),
            Pattern::Literal(f) => Ok(f.find(&self.hay.as_bytes()[self.pos..]).map(|i| {
                let m = (self.pos + i, self.pos + i + f.needle().len());
                self.pos = m.1;
                m
            })),
            Pattern::Builtin(b) => Ok(b.find(self.hay, self.pos, &mut self.scan).inspect(|m| {
                // Built-in matches are never empty.
                self.pos = m.1;
            })),
            Pattern::Regex(re) => {
                let mut from = self.pos;
                loop {
                    let Some(m) = re
                        .find_from_pos(self.hay, from)
                        .map_err(|e| self.sep.runtime(e))?
                    else {
                        return Ok(None);
                    };
                    if m.start() == m.end() && self.empty_at == Some(m.start()) {
                        // Python must advance: retry one char further on.
                        match self.hay[m.start()..].chars().next() {
                            Some(c) => from = m.start() + c.len_utf8(),
                            None => return Ok(None),
                        }
                        continue;
                    }
                    self.empty_at = (m.start() == m.end()).then_some(m.end());
                    self.pos = m.end();
                    return Ok(Some((m.start(), m.end())));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(sep: &Separator, hay: &str, keep: KeepSeparator) -> Vec<String> {
        let mut p = sep.pieces(hay, keep);
        let mut out = Vec::new();
        while let Some((s, e)) = p.next_piece().unwrap() {
            out.push(hay[s..e].to_string());
        }
        out
    }

    #[test]
    fn keep_modes_match_langchain() {
        let sep = Separator::literal("\n\n");
        let t = "a\n\nb\n\n\n\nc\n\n";
        assert_eq!(
            split(&sep, t, KeepSeparator::Start),
            ["a", "\n\nb", "\n\n", "\n\nc", "\n\n"]
        );
        assert_eq!(
            split(&sep, t, KeepSeparator::End),
            ["a\n\n", "b\n\n", "\n\n", "c\n\n"]
        );
        assert_eq!(split(&sep, t, KeepSeparator::Drop), ["a", "b", "c"]);
    }

    #[test]
    fn regex_lookahead_and_chars() {
        let sep = Separator::regex(r"\n(?=Artikel \d+)").unwrap();
        let t = "Intro\nArtikel 1\nTekst\nArtikel 2 slot";
        assert!(sep.occurs_in(t).unwrap());
        assert_eq!(
            split(&sep, t, KeepSeparator::Start),
            ["Intro", "\nArtikel 1\nTekst", "\nArtikel 2 slot"]
        );
        assert_eq!(
            split(&Separator::literal(""), "aé😀", KeepSeparator::Start),
            ["a", "é", "😀"]
        );
        assert!(Separator::regex("(").is_err());
    }

    /// The built-in matchers against the regex engine: same match from every start position.
    fn assert_builtins_match_regex(hay: &str) {
        for builtin in [
            Builtin::BlankLines,
            Builtin::SentenceEnd,
            Builtin::Whitespace,
        ] {
            let re = fancy_regex::Regex::new(builtin.pattern()).unwrap();
            let mut shared = BreakScan::default();
            for from in (0..=hay.len()).filter(|&i| hay.is_char_boundary(i)) {
                let want = re
                    .find_from_pos(hay, from)
                    .unwrap()
                    .map(|m| (m.start(), m.end()));
                let got = builtin.find(hay, from, &mut BreakScan::default());
                assert_eq!(got, want, "{builtin:?} {hay:?} from {from}");
                assert_eq!(builtin.find(hay, from, &mut shared), want, "shared scan");
            }
            let (a, b) = (
                Separator::builtin(builtin),
                Separator::regex(builtin.pattern()),
            );
            let b = b.unwrap();
            assert_eq!(a.occurs_in(hay).unwrap(), b.occurs_in(hay).unwrap());
            for keep in [
                KeepSeparator::Start,
                KeepSeparator::End,
                KeepSeparator::Drop,
            ] {
                assert_eq!(split(&a, hay, keep), split(&b, hay, keep));
            }
        }
    }

    #[test]
    fn builtins_find_what_their_regex_finds() {
        for hay in [
            "",
            "\n",
            "\n\n",
            "a\n \t\r\n \nb\n \n\n  c\n x\n\r",
            "Zin. Nog een!  En?\n\"Ja.\" (Nee.) ‘Ok’… “Dus.” »Nou.« Eind.",
            "3.14 en v1.2.3. Klaar.\u{a0}Volgende.\u{2003}x.\u{85}y.\u{2028}z.\u{3000}",
            "中文。日本語！好？？ 한국어. ！。x",
            "..x ...\t?!\"’) \x1c.\x1c .\x0b",
            "—”’»… —x”. ’… ",
        ] {
            assert_builtins_match_regex(hay);
        }
        // Pseudo-random texts over the chars the patterns care about.
        let alphabet: Vec<char> =
            " \t\r\n\x0b\x0c\x1c\u{85}\u{a0}\u{1680}\u{2000}\u{200b}\u{2028}\u{3000}\
                                   .!?…\"'”’»)]([“—。！？．ab中é😀"
                .chars()
                .collect();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed as usize
        };
        for _ in 0..3000 {
            let len = next() % 24;
            let hay: String = (0..len)
                .map(|_| alphabet[next() % alphabet.len()])
                .collect();
            assert_builtins_match_regex(&hay);
        }
        // Longer texts with sparse separators cross the 64-byte blocks of the blank-line scan.
        for _ in 0..200 {
            let len = 60 + next() % 200;
            let hay: String = (0..len)
                .map(|_| match next() % 16 {
                    0 => alphabet[next() % alphabet.len()],
                    1 => '\n',
                    2 => ' ',
                    _ => 'x',
                })
                .collect();
            assert_builtins_match_regex(&hay);
        }
    }

    #[test]
    fn regex_whitespace_class_is_char_is_whitespace() {
        let all: String = (0..=0x10FFFFu32).filter_map(char::from_u32).collect();
        let re = fancy_regex::Regex::new(r"\s").unwrap();
        let mut from = 0;
        let mut regex_ws = Vec::new();
        while let Some(m) = re.find_from_pos(&all, from).unwrap() {
            regex_ws.push(all[m.start()..].chars().next().unwrap());
            from = m.end();
        }
        let std_ws: Vec<char> = all.chars().filter(|c| c.is_whitespace()).collect();
        assert_eq!(regex_ws, std_ws);
    }

    #[test]
    fn pieces_if_occurs_is_occurs_in_and_pieces() {
        let hay = "a, b; c\n\nd. E";
        for sep in [
            Separator::literal(", "),
            Separator::literal("x"),
            Separator::literal(""),
            Separator::regex(r"\n+").unwrap(),
            Separator::regex("q*").unwrap(),
            Separator::builtin(Builtin::SentenceEnd),
            Separator::builtin(Builtin::BlankLines),
        ] {
            let got = sep.pieces_if_occurs(hay, KeepSeparator::End).unwrap();
            assert_eq!(got.is_some(), sep.occurs_in(hay).unwrap());
            if let Some(mut p) = got {
                let mut pieces = Vec::new();
                while let Some((s, e)) = p.next_piece().unwrap() {
                    pieces.push(hay[s..e].to_string());
                }
                assert_eq!(pieces, split(&sep, hay, KeepSeparator::End));
            }
        }
    }

    #[test]
    fn empty_matches_follow_python() {
        // re.split(r'x*', 'axbc') == ['', 'a', '', 'b', 'c', '']
        let sep = Separator::regex("x*").unwrap();
        assert_eq!(split(&sep, "axbc", KeepSeparator::Drop), ["a", "b", "c"]);
        assert_eq!(
            split(&sep, "axbc", KeepSeparator::Start),
            ["a", "x", "b", "c"]
        );
    }
}
