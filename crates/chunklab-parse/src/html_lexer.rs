//! A forgiving HTML tokenizer: text, start tags (with their raw attribute source, parsed on
//! demand), end tags, and the raw content of `<script>`, `<style>`, `<title>` and friends.
//! Comments, doctypes and processing instructions are skipped. It never fails and never
//! recurses: any byte sequence is some sequence of tokens.

use std::borrow::Cow;

/// One token, borrowing from the source. Text is raw (entities not yet decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    Text(&'a str),
    Start {
        /// Lowercased tag name.
        name: Cow<'a, str>,
        /// The source between the name and the closing `>` (see [`attrs`]).
        attrs: &'a str,
        self_closing: bool,
    },
    End {
        name: Cow<'a, str>,
    },
    /// The content of a raw-text element (`script`, `style`, `title`, `textarea` ...), which
    /// follows its start tag.
    Raw {
        element: &'static str,
        text: &'a str,
    },
}

/// Elements whose content is not markup.
const RAW_TEXT: &[&str] = &[
    "script", "style", "title", "textarea", "xmp", "iframe", "noembed", "noframes", "noscript",
];

/// Tokenizer over a whole document; yields `(byte offset, token)`.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    pos: usize,
    raw: Option<&'static str>,
}

impl<'a> Lexer<'a> {
    pub fn new(src: &'a str) -> Self {
        Self {
            src,
            pos: 0,
            raw: None,
        }
    }

    fn start_tag(&mut self, at: usize) -> Token<'a> {
        let bytes = self.src.as_bytes();
        let name_end = (at + 1..bytes.len())
            .find(|&i| {
                matches!(
                    bytes[i],
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>'
                )
            })
            .unwrap_or(bytes.len());
        let (attrs_end, tag_end) = scan_attrs(bytes, name_end);
        self.pos = tag_end;
        let name = lower(&self.src[at + 1..name_end]);
        let attrs = &self.src[name_end..attrs_end];
        let self_closing = attrs.trim_end().ends_with('/');
        if let Some(raw) = RAW_TEXT.iter().find(|r| **r == name) {
            self.raw = Some(raw);
        }
        Token::Start {
            name,
            attrs,
            self_closing,
        }
    }

    fn end_tag(&mut self, at: usize) -> Token<'a> {
        let bytes = self.src.as_bytes();
        let name_end = (at + 2..bytes.len())
            .find(|&i| {
                matches!(
                    bytes[i],
                    b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>'
                )
            })
            .unwrap_or(bytes.len());
        let close = memchr(b'>', &bytes[name_end..]).map_or(bytes.len(), |i| name_end + i + 1);
        self.pos = close;
        Token::End {
            name: lower(&self.src[at + 2..name_end]),
        }
    }

    /// Skips from `at` past the first `end` (or to the end of input).
    fn skip_past(&mut self, at: usize, end: &str) {
        self.pos = self.src[at..]
            .find(end)
            .map_or(self.src.len(), |i| at + i + end.len());
    }
}

impl<'a> Iterator for Lexer<'a> {
    type Item = (usize, Token<'a>);

    fn next(&mut self) -> Option<Self::Item> {
        let bytes = self.src.as_bytes();
        loop {
            let at = self.pos;
            if at >= bytes.len() {
                return None;
            }
            if let Some(element) = self.raw.take() {
                let end = find_end_tag(self.src, at, element);
                self.pos = end;
                if end > at {
                    return Some((
                        at,
                        Token::Raw {
                            element,
                            text: &self.src[at..end],
                        },
                    ));
                }
                continue;
            }
            if bytes[at] != b'<' {
                let end = memchr(b'<', &bytes[at + 1..]).map_or(bytes.len(), |i| at + 1 + i);
                self.pos = end;
                return Some((at, Token::Text(&self.src[at..end])));
            }
            let next = bytes.get(at + 1).copied().unwrap_or(0);
            match next {
                b'a'..=b'z' | b'A'..=b'Z' => return Some((at, self.start_tag(at))),
                b'/' => match bytes.get(at + 2).copied().unwrap_or(0) {
                    b'a'..=b'z' | b'A'..=b'Z' => return Some((at, self.end_tag(at))),
                    b'>' => self.pos = at + 3,
                    _ => self.skip_past(at, ">"),
                },
                b'!' if self.src[at..].starts_with("<!--") => {
                    // `<!-->` and `<!--->` are (empty) comments too.
                    let body = at + 4;
                    if self.src[body..].starts_with('>') {
                        self.pos = body + 1;
                    } else if self.src[body..].starts_with("->") {
                        self.pos = body + 2;
                    } else {
                        self.skip_past(body, "-->");
                    }
                }
                b'!' | b'?' => self.skip_past(at, ">"),
                _ => {
                    // A lone `<` is text.
                    let end = memchr(b'<', &bytes[at + 1..]).map_or(bytes.len(), |i| at + 1 + i);
                    self.pos = end;
                    return Some((at, Token::Text(&self.src[at..end])));
                }
            }
        }
    }
}

/// Scans attributes from `i` (just after the tag name) to the tag's `>`, respecting quoted
/// values. Returns (end of the attribute source, position after `>`).
fn scan_attrs(bytes: &[u8], mut i: usize) -> (usize, usize) {
    while i < bytes.len() {
        match bytes[i] {
            b'>' => return (i, i + 1),
            b'=' => {
                i += 1;
                while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                if i < bytes.len() && (bytes[i] == b'"' || bytes[i] == b'\'') {
                    let q = bytes[i];
                    match memchr(q, &bytes[i + 1..]) {
                        Some(j) => i += j + 2,
                        None => return (bytes.len(), bytes.len()),
                    }
                }
            }
            _ => i += 1,
        }
    }
    (bytes.len(), bytes.len())
}

/// Attributes of a start tag's raw attribute source, as (lowercased name, raw value).
pub(crate) fn attrs(src: &str) -> impl Iterator<Item = (Cow<'_, str>, &str)> {
    let bytes = src.as_bytes();
    let mut i = 0;
    std::iter::from_fn(move || {
        loop {
            while i < bytes.len() && (bytes[i].is_ascii_whitespace() || bytes[i] == b'/') {
                i += 1;
            }
            if i >= bytes.len() {
                return None;
            }
            let name_start = i;
            i += 1; // the first character may be '='
            while i < bytes.len()
                && !bytes[i].is_ascii_whitespace()
                && !matches!(bytes[i], b'=' | b'/' | b'>')
            {
                i += 1;
            }
            let name = &src[name_start..i];
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= bytes.len() || bytes[i] != b'=' {
                return Some((lower(name), ""));
            }
            i += 1;
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i >= bytes.len() {
                return Some((lower(name), ""));
            }
            let value = if bytes[i] == b'"' || bytes[i] == b'\'' {
                let q = bytes[i];
                let start = i + 1;
                let end = memchr(q, &bytes[start..]).map_or(bytes.len(), |j| start + j);
                i = (end + 1).min(bytes.len());
                &src[start..end]
            } else {
                let start = i;
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() && bytes[i] != b'>' {
                    i += 1;
                }
                &src[start..i]
            };
            if !name.is_empty() {
                return Some((lower(name), value));
            }
        }
    })
}

/// The raw value of attribute `key` (lowercase) in a raw attribute source.
pub(crate) fn attr<'a>(src: &'a str, key: &str) -> Option<&'a str> {
    if src.is_empty() {
        return None;
    }
    attrs(src).find(|(k, _)| k == key).map(|(_, v)| v)
}

/// Where the raw content of `element` ends: at its `</element` end tag, or the end of input.
fn find_end_tag(src: &str, from: usize, element: &str) -> usize {
    let bytes = src.as_bytes();
    let mut i = from;
    while let Some(j) = memchr(b'<', &bytes[i..]) {
        let at = i + j;
        let name_start = at + 2;
        let name_end = name_start + element.len();
        if bytes.get(at + 1) == Some(&b'/')
            && name_end <= bytes.len()
            && bytes[name_start..name_end].eq_ignore_ascii_case(element.as_bytes())
            && bytes
                .get(name_end)
                .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>'))
        {
            return at;
        }
        i = at + 1;
    }
    src.len()
}

fn lower(s: &str) -> Cow<'_, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

fn memchr(needle: u8, haystack: &[u8]) -> Option<usize> {
    haystack.iter().position(|&b| b == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(src: &str) -> Vec<Token<'_>> {
        Lexer::new(src).map(|(_, t)| t).collect()
    }

    #[test]
    fn tags_text_and_raw() {
        let t = tokens("<P class='a>b'>x<!-- c --><script>if (a<b) {}</script></p>");
        assert_eq!(
            t,
            vec![
                Token::Start {
                    name: "p".into(),
                    attrs: " class='a>b'",
                    self_closing: false
                },
                Token::Text("x"),
                Token::Start {
                    name: "script".into(),
                    attrs: "",
                    self_closing: false
                },
                Token::Raw {
                    element: "script",
                    text: "if (a<b) {}"
                },
                Token::End {
                    name: "script".into()
                },
                Token::End { name: "p".into() },
            ]
        );
    }

    #[test]
    fn attributes() {
        let a: Vec<_> = attrs(r#" id=x CLASS="a b" hidden data-v='1' /"#).collect();
        assert_eq!(
            a,
            vec![
                ("id".into(), "x"),
                ("class".into(), "a b"),
                ("hidden".into(), ""),
                ("data-v".into(), "1")
            ]
        );
        assert_eq!(attr(" role=navigation", "role"), Some("navigation"));
    }

    #[test]
    fn malformed_input_ends() {
        for src in [
            "<",
            "<a",
            "<a href='x",
            "</",
            "<!--",
            "a < b",
            "<!doctype",
            "<script>x",
        ] {
            let joined: usize = Lexer::new(src).count();
            assert!(joined <= 3, "{src}");
        }
        assert_eq!(tokens("a < b"), vec![Token::Text("a "), Token::Text("< b")]);
    }
}
