//! Small text utilities shared by the strategies: Python-compatible whitespace, stripping a span,
//! char-boundary snapping and byte→char offset conversion.

/// Python's `str.isspace()`: Unicode whitespace plus the ASCII separators `\x1c`–`\x1f`.
///
/// LangChain strips chunks with Python's `str.strip()`, so compatibility needs exactly this set.
#[inline]
pub fn is_py_space(c: char) -> bool {
    c.is_whitespace() || matches!(c, '\x1c'..='\x1f')
}

/// Shrink `start..end` so that it starts and ends on a non-whitespace char (Python `strip()`).
/// Returns an empty range at `start` if the span is all whitespace.
pub fn strip_span(text: &str, start: usize, end: usize) -> (usize, usize) {
    let s = &text[start..end];
    let lead = s.len() - s.trim_start_matches(is_py_space).len();
    if lead == s.len() {
        return (start, start);
    }
    let trail = s.len() - s.trim_end_matches(is_py_space).len();
    (start + lead, end - trail)
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

/// Number of Unicode scalar values in `bytes` (which must be valid UTF-8): counts the bytes that
/// are not UTF-8 continuation bytes.
#[inline]
pub fn count_chars(s: &str) -> usize {
    s.as_bytes().iter().filter(|&&b| (b as i8) >= -0x40).count()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_matches_python() {
        let t = "\x1c  héllo \u{a0}\n";
        let (s, e) = strip_span(t, 0, t.len());
        assert_eq!(&t[s..e], "héllo");
        assert_eq!(strip_span(" \n\t", 0, 3), (0, 0));
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
    fn boundaries() {
        let t = "a€b";
        assert_eq!(floor_char_boundary(t, 2), 1);
        assert_eq!(ceil_char_boundary(t, 2), 4);
        assert_eq!(floor_char_boundary(t, 99), t.len());
    }
}
