//! Separators for `recursive`: a literal string, a regular expression (lookaround allowed, via
//! `fancy-regex`) or `""` (every char). A separator finds its matches with Python `re` semantics
//! and cuts a piece of text into smaller pieces, keeping the separator at the start of the next
//! piece, at the end of the previous one, or dropping it.
//!
//! Everything works on byte offsets into the searched text, so callers turn pieces into spans of
//! the original document by adding the piece's start.

use super::KeepSeparator;
use crate::error::{Error, Result};
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

    /// Python `re.search(separator, hay) is not None`.
    pub(crate) fn occurs_in(&self, hay: &str) -> Result<bool> {
        match &self.pattern {
            Pattern::Chars => Ok(true),
            Pattern::Literal(f) => Ok(f.find(hay.as_bytes()).is_some()),
            Pattern::Regex(re) => Ok(re.find(hay).map_err(|e| self.runtime(e))?.is_some()),
        }
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
    done: bool,
}

impl Pieces<'_> {
    /// The next non-empty piece as a byte range of the searched text.
    pub(crate) fn next_piece(&mut self) -> Result<Option<(usize, usize)>> {
        while !self.done {
            if let Pattern::Chars = self.sep.pattern {
                return Ok(self.next_char());
            }
            let piece = match self.next_match()? {
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
