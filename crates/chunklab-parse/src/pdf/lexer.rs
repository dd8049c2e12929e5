//! A content-stream tokenizer: operands and operators, borrowing from the stream bytes where it
//! can. (lopdf's general object parser is about ten times slower on content streams, which are
//! most of the work of text extraction.) Malformed input never fails: junk bytes are skipped.

use std::borrow::Cow;

/// Nesting of arrays/dictionaries inside one operand.
const MAX_DEPTH: usize = 32;

/// An operand of a content-stream operator.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Operand<'a> {
    Number(f32),
    Name(&'a [u8]),
    String(Cow<'a, [u8]>),
    Array(Vec<Operand<'a>>),
    /// A dictionary, boolean, null: nothing text extraction reads.
    Other,
}

impl Operand<'_> {
    pub fn number(&self) -> Option<f32> {
        match self {
            Operand::Number(n) => Some(*n),
            _ => None,
        }
    }
}

/// Reads operations one at a time.
pub(super) struct Lexer<'a> {
    data: &'a [u8],
    pos: usize,
}

fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\n' | b'\r' | b'\t' | b'\x0c' | 0)
}

fn is_delim(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

impl<'a> Lexer<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Lexer { data, pos: 0 }
    }

    /// The next operator, with its operands in `operands` (cleared first). None at the end.
    pub fn next_op(&mut self, operands: &mut Vec<Operand<'a>>) -> Option<&'a [u8]> {
        operands.clear();
        loop {
            self.skip_space();
            let &b = self.data.get(self.pos)?;
            if is_delim(b) || b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.') {
                match self.operand(0) {
                    Some(op) => {
                        if operands.len() < 64 {
                            operands.push(op);
                        }
                    }
                    None => self.pos += 1,
                }
                continue;
            }
            let word = self.word();
            match word {
                b"true" | b"false" | b"null" => operands.push(Operand::Other),
                b"BI" => {
                    self.skip_inline_image();
                    operands.clear();
                }
                _ => return Some(word),
            }
        }
    }

    fn skip_space(&mut self) {
        while let Some(&b) = self.data.get(self.pos) {
            if is_white(b) {
                self.pos += 1;
            } else if b == b'%' {
                while self.pos < self.data.len() && !matches!(self.data[self.pos], b'\n' | b'\r') {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// A regular word (operator or keyword); at least one byte is consumed.
    fn word(&mut self) -> &'a [u8] {
        let start = self.pos;
        while let Some(&b) = self.data.get(self.pos) {
            if is_white(b) || is_delim(b) {
                break;
            }
            self.pos += 1;
        }
        if self.pos == start {
            self.pos += 1;
        }
        &self.data[start..self.pos]
    }

    fn operand(&mut self, depth: usize) -> Option<Operand<'a>> {
        self.skip_space();
        let &b = self.data.get(self.pos)?;
        match b {
            b'/' => {
                self.pos += 1;
                let start = self.pos;
                while let Some(&c) = self.data.get(self.pos) {
                    if is_white(c) || is_delim(c) {
                        break;
                    }
                    self.pos += 1;
                }
                Some(Operand::Name(&self.data[start..self.pos]))
            }
            b'(' => Some(Operand::String(self.literal_string())),
            b'<' if self.data.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                self.skip_dict(depth);
                Some(Operand::Other)
            }
            b'<' => Some(Operand::String(Cow::Owned(self.hex_string()))),
            b'[' => {
                self.pos += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_space();
                    match self.data.get(self.pos) {
                        None => break,
                        Some(b']') => {
                            self.pos += 1;
                            break;
                        }
                        Some(_) if depth >= MAX_DEPTH => self.pos += 1,
                        Some(&c)
                            if is_delim(c)
                                || c.is_ascii_digit()
                                || matches!(c, b'+' | b'-' | b'.') =>
                        {
                            match self.operand(depth + 1) {
                                Some(op) => items.push(op),
                                None => self.pos += 1,
                            }
                        }
                        Some(_) => {
                            // A keyword inside an array (true/false/null, or junk).
                            self.word();
                            items.push(Operand::Other);
                        }
                    }
                }
                Some(Operand::Array(items))
            }
            b'+' | b'-' | b'.' | b'0'..=b'9' => Some(self.number()),
            _ => None,
        }
    }

    fn number(&mut self) -> Operand<'a> {
        let start = self.pos;
        while let Some(&c) = self.data.get(self.pos) {
            if c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let text = std::str::from_utf8(&self.data[start..self.pos]).unwrap_or("0");
        // Tolerate "--5" and "1.2.3" the way readers do: parse the longest valid prefix.
        let value = text.parse::<f32>().ok().or_else(|| {
            let t = text.trim_start_matches(['+', '-']);
            let neg = text.starts_with('-');
            let end = t.find(['+', '-']).unwrap_or(t.len());
            let mut t = &t[..end];
            if let Some(second) = t.match_indices('.').nth(1) {
                t = &t[..second.0];
            }
            t.parse::<f32>().ok().map(|v| if neg { -v } else { v })
        });
        Operand::Number(value.filter(|v| v.is_finite()).unwrap_or(0.0))
    }

    fn literal_string(&mut self) -> Cow<'a, [u8]> {
        self.pos += 1;
        let start = self.pos;
        let mut depth = 1;
        let mut plain = true;
        while let Some(&c) = self.data.get(self.pos) {
            match c {
                b'\\' => {
                    plain = false;
                    self.pos += 1;
                }
                b'(' => depth += 1,
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                b'\r' => plain = false,
                _ => {}
            }
            self.pos += 1;
        }
        let end = self.pos.min(self.data.len());
        self.pos = (self.pos + 1).min(self.data.len());
        let raw = &self.data[start..end];
        if plain {
            Cow::Borrowed(raw)
        } else {
            Cow::Owned(unescape(raw))
        }
    }

    fn hex_string(&mut self) -> Vec<u8> {
        self.pos += 1;
        let mut out = Vec::new();
        let mut high: Option<u8> = None;
        while let Some(&c) = self.data.get(self.pos) {
            self.pos += 1;
            if c == b'>' {
                break;
            }
            let Some(v) = (c as char).to_digit(16) else {
                continue;
            };
            match high.take() {
                Some(h) => out.push((h << 4) | v as u8),
                None => high = Some(v as u8),
            }
        }
        if let Some(h) = high {
            out.push(h << 4);
        }
        out
    }

    /// Skips a dictionary body (after `<<`), nested ones included.
    fn skip_dict(&mut self, depth: usize) {
        loop {
            self.skip_space();
            match self.data.get(self.pos) {
                None => return,
                Some(b'>') => {
                    self.pos += if self.data.get(self.pos + 1) == Some(&b'>') {
                        2
                    } else {
                        1
                    };
                    return;
                }
                Some(_) if depth >= MAX_DEPTH => self.pos += 1,
                Some(&c)
                    if is_delim(c) || c.is_ascii_digit() || matches!(c, b'+' | b'-' | b'.') =>
                {
                    if self.operand(depth + 1).is_none() {
                        self.pos += 1;
                    }
                }
                Some(_) => {
                    self.word();
                }
            }
        }
    }

    /// Skips `BI <dict> ID <binary> EI`: the binary ends at whitespace + "EI" + whitespace/end.
    fn skip_inline_image(&mut self) {
        let d = self.data;
        let Some(id) = find(d, self.pos, b"ID") else {
            self.pos = d.len();
            return;
        };
        let mut i = id + 3;
        while i + 2 <= d.len() {
            if &d[i..i + 2] == b"EI"
                && is_white(d[i - 1])
                && d.get(i + 2).is_none_or(|&b| is_white(b) || is_delim(b))
            {
                self.pos = i + 2;
                return;
            }
            i += 1;
        }
        self.pos = d.len();
    }
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Resolves the escapes of a literal string.
fn unescape(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(raw.len());
    let mut i = 0;
    while i < raw.len() {
        let c = raw[i];
        i += 1;
        if c == b'\r' {
            // An end of line inside a string reads as \n.
            out.push(b'\n');
            if raw.get(i) == Some(&b'\n') {
                i += 1;
            }
            continue;
        }
        if c != b'\\' {
            out.push(c);
            continue;
        }
        let Some(&e) = raw.get(i) else { break };
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b'r' => out.push(b'\r'),
            b't' => out.push(b'\t'),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'\r' => {
                if raw.get(i) == Some(&b'\n') {
                    i += 1;
                }
            }
            b'\n' => {}
            b'0'..=b'7' => {
                let mut v = (e - b'0') as u32;
                for _ in 0..2 {
                    match raw.get(i) {
                        Some(&d @ b'0'..=b'7') => {
                            v = v * 8 + (d - b'0') as u32;
                            i += 1;
                        }
                        _ => break,
                    }
                }
                out.push(v as u8);
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ops(src: &[u8]) -> Vec<(String, Vec<Operand<'_>>)> {
        let mut lx = Lexer::new(src);
        let mut operands = Vec::new();
        let mut out = Vec::new();
        while let Some(op) = lx.next_op(&mut operands) {
            out.push((String::from_utf8_lossy(op).into_owned(), operands.clone()));
        }
        out
    }

    #[test]
    fn operators_and_operands() {
        let v = ops(b"BT /F1 12 Tf 1 0 0 1 56.8 -7.5 Tm [(Wind)-250(energie\\)) <0041 42>] TJ ET");
        assert_eq!(v[0].0, "BT");
        assert_eq!(
            v[1],
            (
                "Tf".into(),
                vec![Operand::Name(b"F1"), Operand::Number(12.0)]
            )
        );
        assert_eq!(v[2].0, "Tm");
        assert_eq!(v[2].1.len(), 6);
        let Operand::Array(items) = &v[3].1[0] else {
            panic!()
        };
        assert_eq!(items[0], Operand::String(Cow::Borrowed(b"Wind")));
        assert_eq!(items[1], Operand::Number(-250.0));
        assert_eq!(items[2], Operand::String(Cow::Owned(b"energie)".to_vec())));
        assert_eq!(
            items[3],
            Operand::String(Cow::Owned(b"\x00\x41\x42".to_vec()))
        );
        assert_eq!(v[4].0, "ET");
    }

    #[test]
    fn escapes_dicts_and_inline_images() {
        let v = ops(
            b"(a\\101\\(b\\\nc) Tj /Span <</MCID 3 /Alt (x)>> BDC BI /W 2 /H 2 ID \x00EI\x01 EI Q",
        );
        assert_eq!(v[0].1[0], Operand::String(Cow::Owned(b"aA(bc".to_vec())));
        assert_eq!(v[1].0, "BDC");
        assert_eq!(v[2].0, "Q");
    }

    #[test]
    fn junk_never_hangs() {
        for junk in [
            &b"(((("[..],
            b"<<<<",
            b"[[[[",
            b"<zz",
            b"]]>>))",
            b"BI /W",
            b"--..++ 1.2.3 Tz",
            b"\xff\xfe",
        ] {
            let _ = ops(junk);
        }
        assert_eq!(
            ops(b"1.2.3 --4 Td")[0].1,
            vec![Operand::Number(1.2), Operand::Number(-4.0)]
        );
    }
}
