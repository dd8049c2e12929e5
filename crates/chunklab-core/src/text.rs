//! Small text utilities shared by the strategies: Python-compatible whitespace, stripping a span,
//! char-boundary snapping and byte→char offset conversion.

/// Python's `str.isspace()`: Unicode whitespace plus the ASCII separators `\x1c`–`\x1f`.
///
/// LangChain strips chunks with Python's `str.strip()`, so compatibility needs exactly this set.
#[inline]
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\x1c'..='\x1f')
}

/// Python `str.isspace()` for one ASCII byte: `\t\n\x0b\x0c\r`, `\x1c`–`\x1f` and space.
#[inline]
fn is_ascii_py_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | 0x1c..=b' ')
}

/// Shrink `start..end` so that it starts and ends on a non-whitespace char (Python `strip()`).
/// Returns an empty range at `start` if the span is all whitespace.
pub fn strip_span(text: &str, start: usize, end: usize) -> (usize, usize) {
    let b = &text.as_bytes()[..end];
    // ASCII bytes are judged on their own; a multi-byte char is decoded only where one is met.
    let mut s = start;
    while s < end {
        if b[s] < 0x80 {
            if !is_ascii_py_space(b[s]) {
                break;
            }
            s += 1;
        } else {
            match text[s..end].chars().next() {
                Some(c) if is_py_space(c) => s += c.len_utf8(),
                _ => break,
            }
        }
    }
    if s == end {
        return (start, start);
    }
    let mut e = end;
    loop {
        if b[e - 1] < 0x80 {
            if !is_ascii_py_space(b[e - 1]) {
                break;
            }
            e -= 1;
        } else {
            match text[s..e].chars().next_back() {
                Some(c) if is_py_space(c) => e -= c.len_utf8(),
                _ => break,
            }
        }
    }
    (s, e)
}

/// Largest char boundary `<= i` (clamped to the text length).
#[inline]
pub fn floor_char_boundary(text: &str, i: usize) -> usize {
    if i >= text.len() {
        return text.len();
    }
    let mut i = i;
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// Smallest char boundary `>= i` (clamped to the text length).
#[inline]
pub fn ceil_char_boundary(text: &str, i: usize) -> usize {
    if i >= text.len() {
        return text.len();
    }
    let mut i = i;
    while !text.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Number of Unicode scalar values in `s`: its length minus its UTF-8 continuation bytes.
///
/// Blocks of 64 bytes are counted into a byte-wide accumulator, which compilers turn into a few
/// vector instructions per block; the rest is counted eight bytes at a time, the last few bytes
/// with one (overlapping) read of the final eight.
#[inline]
pub fn count_chars(s: &str) -> usize {
    /// 1 in each byte lane that holds a continuation byte (`0b10xx_xxxx`: top bit set, next clear).
    #[inline(always)]
    fn continuation_lanes(w: u64) -> u64 {
        (w & !(w << 1) & 0x8080_8080_8080_8080) >> 7
    }
    let b = s.as_bytes();
    let mut continuation = 0usize;
    let mut i = 0;
    while let Some(block) = b.get(i..i + 64) {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        let mut k = 0u8; // at most 64
        for &x in block {
            k += ((x as i8) < -0x40) as u8;
        }
        continuation += k as usize;
        i += 64;
    }
    // At most seven words and one partial word: each lane of `lanes` counts up to 8, then one
    // multiply adds the lanes up into the top byte.
    let mut lanes = 0u64;
    while let Some(word) = b.get(i..i + 8) {
        lanes += continuation_lanes(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        i += 8;
    }
    let rest = b.len() - i;
    if rest > 0 {
        if let Some(last) = b.len().checked_sub(8) {
            let word = u64::from_le_bytes(b[last..].try_into().expect("8 bytes"));
            // The final `rest` bytes are the top lanes of the word.
            lanes += continuation_lanes(word) >> (8 * (8 - rest));
        } else {
            continuation += b.iter().filter(|&&x| (x as i8) < -0x40).count();
        }
    }
    continuation += (lanes.wrapping_mul(0x0101_0101_0101_0101) >> 56) as usize;
    b.len() - continuation
}

/// Length of the longest all-ASCII prefix of `s` (where byte offsets are char offsets). Blocks of
/// 64 bytes are tested with a vectorizable reduction.
pub(crate) fn ascii_prefix_len(s: &str) -> usize {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(block) = b.get(i..i + 64) {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        if block.iter().fold(0u8, |acc, &x| acc | x) >= 0x80 {
            break;
        }
        i += 64;
    }
    i + b[i..].iter().take_while(|x| x.is_ascii()).count()
}

/// Byte offset `n` chars after the char boundary `from`, and how many chars were passed (fewer
/// than `n` only at the end of the text). Whole 64-byte blocks are skipped with the vectorized
/// count of [`count_chars`].
pub(crate) fn advance_chars(text: &str, from: usize, n: usize) -> (usize, usize) {
    let b = text.as_bytes();
    let (mut pos, mut left) = (from, n);
    while let Some(block) = b.get(pos..pos + 64) {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        let mut starts = 0u8; // char starts in the block, at most 64
        for &x in block {
            starts += ((x as i8) >= -0x40) as u8;
        }
        // The target is the start of char `left`, counting from 0: beyond the block if the block
        // holds no more than `left` starts.
        if starts as usize > left {
            break;
        }
        left -= starts as usize;
        pos += 64;
    }
    while pos < b.len() {
        if (b[pos] as i8) >= -0x40 {
            if left == 0 {
                return (pos, n);
            }
            left -= 1;
        }
        pos += 1;
    }
    // At the end of the text: a last char still in progress counts as passed.
    (b.len(), n - left)
}

/// Byte offset `n` chars before the char boundary `from` (0 at the start of the text), skipping
/// whole 64-byte blocks like [`advance_chars`].
pub(crate) fn retreat_chars(text: &str, from: usize, n: usize) -> usize {
    let b = text.as_bytes();
    let (mut pos, mut left) = (from, n);
    while let Some(block) = pos.checked_sub(64).map(|start| &b[start..pos]) {
        let block: &[u8; 64] = block.try_into().expect("64 bytes");
        let mut starts = 0u8;
        for &x in block {
            starts += ((x as i8) >= -0x40) as u8;
        }
        // The target is the `left`-th char start before `pos`: before the block if the block
        // holds fewer starts.
        if starts as usize >= left {
            break;
        }
        left -= starts as usize;
        pos -= 64;
    }
    while left > 0 && pos > 0 {
        pos -= 1;
        if (b[pos] as i8) >= -0x40 {
            left -= 1;
        }
    }
    pos
}

/// Converts byte offsets to char offsets with a cursor. Cheap when queries are close to each
/// other (chunks come out in order), correct for any order.
#[derive(Debug)]
pub struct CharCursor<'a> {
    text: &'a str,
    byte: usize,
    chr: usize,
}

impl<'a> CharCursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            byte: 0,
            chr: 0,
        }
    }

    /// A cursor that starts at byte `byte` of `text`, giving it the char offset `chr`: the
    /// chars before it, or 0 to count from there (then only bytes from `byte` on may be asked
    /// for), so cursors for parts of one text need not count from its start.
    pub fn starting_at(text: &'a str, byte: usize, chr: usize) -> Self {
        Self { text, byte, chr }
    }

    /// Char offset of the byte offset `b` (which must be a char boundary).
    pub fn char_at(&mut self, b: usize) -> usize {
        debug_assert!(self.text.is_char_boundary(b));
        if b >= self.byte {
            self.chr += count_chars(&self.text[self.byte..b]);
        } else {
            self.chr -= count_chars(&self.text[b..self.byte]);
        }
        self.byte = b;
        self.chr
    }
}

/// The number of `\n` bytes in `bytes` (counted in 64-byte blocks into a `u8`, which
/// vectorizes).
pub fn count_newlines(bytes: &[u8]) -> usize {
    let mut n = 0usize;
    let mut blocks = bytes.chunks_exact(64);
    for block in &mut blocks {
        let mut k = 0u8; // at most 64
        for &x in block {
            k += u8::from(x == b'\n');
        }
        n += k as usize;
    }
    n + blocks.remainder().iter().filter(|&&x| x == b'\n').count()
}

/// Byte offset → 1-based line number with a cursor, as [`LineIndex::line`] gives it but without
/// an index of every line: each query counts the newlines between the previous query and this
/// one. Cheap when queries are close to each other (chunks come out in order, overlapping a
/// little), correct for any order; allocates nothing.
///
/// ```
/// use chunklab_core::text::{LineCursor, LineIndex};
/// let text = "# Kop\n\nEen alinea\nover twee regels.\n";
/// let (cursor, index) = (LineCursor::new(text), LineIndex::new(text));
/// for b in [30, 0, 7, 6, 36, 17] {
///     assert_eq!(cursor.line(b), index.line(b));
/// }
/// assert_eq!(cursor.span_lines(7, 35), index.span_lines(text, 7, 35));
/// ```
#[derive(Debug)]
pub struct LineCursor<'a> {
    text: &'a str,
    /// (byte offset, newlines before it) of the last query.
    at: std::cell::Cell<(usize, usize)>,
}

impl<'a> LineCursor<'a> {
    /// A cursor at the start of `text`.
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            at: std::cell::Cell::new((0, 0)),
        }
    }

    /// A cursor at byte `byte` of `text`, counting `newlines` newlines before it: the real
    /// count, or 0 to count lines from there (then only bytes from `byte` on may be asked
    /// for), so cursors for parts of one text need not count from its start.
    pub fn starting_at(text: &'a str, byte: usize, newlines: usize) -> Self {
        Self {
            text,
            at: std::cell::Cell::new((byte, newlines)),
        }
    }

    /// 1-based line of byte offset `b` (a `\n` belongs to the line it ends); `b` past the end
    /// counts as the end.
    pub fn line(&self, b: usize) -> u32 {
        let b = b.min(self.text.len());
        let bytes = self.text.as_bytes();
        let (pos, before) = self.at.get();
        let before = if b >= pos {
            before + count_newlines(&bytes[pos..b])
        } else {
            before - count_newlines(&bytes[b..pos])
        };
        self.at.set((b, before));
        before as u32 + 1
    }

    /// First and last line of `text[start..end]` without its surrounding whitespace, as
    /// [`LineIndex::span_lines`].
    pub fn span_lines(&self, start: usize, end: usize) -> (u32, u32) {
        let (s, e) = match strip_span(self.text, start, end) {
            (s, e) if s < e => (s, e),
            _ => (start, end),
        };
        self.lines(s, e)
    }

    /// First and last line of `start..end` as it is (the line of `start` when it is empty).
    pub fn lines(&self, start: usize, end: usize) -> (u32, u32) {
        let first = self.line(start);
        (first, self.line(end.max(start + 1) - 1).max(first))
    }
}

/// Byte offset → 1-based line number of a text, by its own `\n`s. Built once per text.
///
/// ```
/// use chunklab_core::text::LineIndex;
/// let text = "# Kop\n\nEen alinea\nover twee regels.\n";
/// let lines = LineIndex::new(text);
/// assert_eq!(lines.line(0), 1);
/// assert_eq!(lines.span_lines(text, 7, 35), (3, 4));
/// // Surrounding whitespace does not count: the span starts at the blank line's `\n`.
/// assert_eq!(lines.span_lines(text, 5, 17), (3, 3));
/// ```
#[derive(Debug, Clone)]
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    /// The line starts of `text`.
    pub fn new(text: &str) -> Self {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        Self { starts }
    }

    /// 1-based line of byte offset `b` (a `\n` belongs to the line it ends).
    pub fn line(&self, b: usize) -> u32 {
        self.starts.partition_point(|&s| s <= b) as u32
    }

    /// First and last line of `text[start..end]` without its surrounding whitespace (of the whole
    /// span when it is all whitespace; the line of `start` when it is empty).
    pub fn span_lines(&self, text: &str, start: usize, end: usize) -> (u32, u32) {
        let (s, e) = match strip_span(text, start, end) {
            (s, e) if s < e => (s, e),
            _ => (start, end),
        };
        self.lines(s, e)
    }

    /// First and last line of `start..end` as it is (the line of `start` when it is empty).
    pub fn lines(&self, start: usize, end: usize) -> (u32, u32) {
        let first = self.line(start);
        (first, self.line(end.max(start + 1) - 1).max(first))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_matches_python() {
        let t = "\x1c  héllo \u{a0}\n";
        let (s, e) = strip_span(t, 0, t.len());
        assert_eq!(&t[s..e], "héllo");
        assert_eq!(strip_span(" \n\t", 0, 3), (0, 0));
        let t = "\u{a0}\x1d a\u{2003}b \u{3000}\x0b";
        let (s, e) = strip_span(t, 0, t.len());
        assert_eq!(&t[s..e], t.trim_matches(is_py_space));
        assert_eq!(strip_span(t, 2, 2), (2, 2));
    }

    #[test]
    fn ascii_space_matches_is_py_space() {
        for b in 0u8..0x80 {
            assert_eq!(is_ascii_py_space(b), is_py_space(b as char), "{b:#x}");
        }
    }

    #[test]
    fn count_chars_at_every_length_and_offset() {
        let t = "aé€😀b".repeat(40);
        for start in 0..t.len() {
            for end in start..t.len() {
                if t.is_char_boundary(start) && t.is_char_boundary(end) {
                    assert_eq!(count_chars(&t[start..end]), t[start..end].chars().count());
                }
            }
        }
    }

    #[test]
    fn line_cursor_equals_line_index_in_any_order() {
        let t = "a\n\nb\u{e9}\nc\n".repeat(40) + "\n\n tail";
        let (cursor, index) = (LineCursor::new(&t), LineIndex::new(&t));
        let mut order: Vec<usize> = (0..=t.len()).collect();
        order.extend((0..=t.len()).rev().step_by(3));
        order.extend([7, 200, 3, t.len(), 0, 150]);
        for b in order {
            assert_eq!(cursor.line(b), index.line(b), "byte {b}");
        }
        for (s, e) in [(0, 5), (3, 90), (1, 1), (100, 101), (0, t.len())] {
            let (s, e) = (floor_char_boundary(&t, s), floor_char_boundary(&t, e));
            assert_eq!(
                cursor.span_lines(s, e),
                index.span_lines(&t, s, e),
                "{s}..{e}"
            );
        }
        assert_eq!(count_newlines(&[b'\n'; 300]), 300);
    }

    #[test]
    fn char_cursor_both_directions() {
        let t = "aé€😀b";
        let mut c = CharCursor::new(t);
        assert_eq!(c.char_at(t.len()), 5);
        assert_eq!(c.char_at(1), 1);
        assert_eq!(c.char_at(3), 2);
        assert_eq!(c.char_at(0), 0);
    }

    #[test]
    fn advance_and_retreat_by_chars() {
        let t = format!("{}{}", "aé€😀b".repeat(30), "x".repeat(70));
        let starts: Vec<usize> = t.char_indices().map(|(i, _)| i).collect();
        for (k, &from) in starts.iter().enumerate() {
            for n in 0..starts.len() + 3 {
                let want = starts.get(k + n).copied().unwrap_or(t.len());
                let passed = n.min(starts.len() - k);
                assert_eq!(
                    advance_chars(&t, from, n),
                    (want, passed),
                    "from {from} n {n}"
                );
                assert_eq!(retreat_chars(&t, from, n), starts[k.saturating_sub(n)]);
            }
        }
        assert_eq!(advance_chars("", 0, 3), (0, 0));
    }

    #[test]
    fn ascii_prefix() {
        for n in [0, 1, 63, 64, 65, 130] {
            let t = format!("{}é{}", "a".repeat(n), "b".repeat(70));
            assert_eq!(ascii_prefix_len(&t), n);
            assert_eq!(ascii_prefix_len(&t[..n]), n);
        }
    }

    #[test]
    fn boundaries() {
        let t = "a€b";
        assert_eq!(floor_char_boundary(t, 2), 1);
        assert_eq!(ceil_char_boundary(t, 2), 4);
        assert_eq!(floor_char_boundary(t, 99), t.len());
    }
}
