//! reStructuredText: section titles, paragraphs, list items, literal and code blocks, directives.
//! The document text is the file itself.
//!
//! * Section titles are underlined (`Title` / `=====`) or over- and underlined with one
//!   punctuation char; as in docutils, levels follow the order in which the adornment styles
//!   first appear (the first style is level 1). The element spans title and adornments; its
//!   `title` is the title text.
//! * A paragraph ending in `::` is followed by a literal block (`Code`); `code-block`, `code`,
//!   `sourcecode`, `testcode` and `doctest` directives are `Code` (with the directive's language)
//!   including their indented body; `>>>` blocks are `Code` (`pycon`).
//! * Other directives and comments (`.. note::`, `.. function:: f(x)`, `.. _label:`) are `Other`
//!   up to their first blank line; their indented body is parsed as ordinary blocks.
//! * Bullet and enumerated list items (`*`, `-`, `+`, `•`, `1.`, `#.`, `(a)`, `a)`) are
//!   `ListItem`s, with their indented continuation lines.
//! * Grid and simple tables and transitions (`----` alone) are `Other`.

use crate::support::{decode, element, finish, with_text, without_bom, LineIndex};
use crate::{Limits, ParseError, Parser};
use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use std::collections::BTreeMap;
use std::path::Path;

/// The reStructuredText parser.
///
/// ```
/// use chunklab_parse::{rst::RstParser, ElementKind, Limits, Parser};
/// use std::path::Path;
/// let rst = "=====\nTitel\n=====\n\nIntro::\n\n   print(1)\n\nSectie\n------\n\n* punt\n";
/// let doc = RstParser.parse(rst.as_bytes(), Path::new("a.rst"), &Limits::default()).unwrap();
/// let kinds: Vec<_> = doc.elements.iter().map(|e| (e.kind, doc.title_of(e))).collect();
/// assert_eq!(kinds, [
///     (ElementKind::Heading { level: 1 }, "Titel"),
///     (ElementKind::Paragraph, "Intro::"),
///     (ElementKind::Code, "print(1)"),
///     (ElementKind::Heading { level: 2 }, "Sectie"),
///     (ElementKind::ListItem, "* punt"),
/// ]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct RstParser;

impl Parser for RstParser {
    fn name(&self) -> &'static str {
        "rst"
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        _limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        Ok(parse_rst(decode(bytes)?))
    }

    fn parse_string(
        &self,
        text: String,
        _path: &Path,
        _limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        Ok(with_text(without_bom(text), rst_of))
    }
}

/// Directives whose body is code.
const CODE_DIRECTIVES: [&str; 5] = ["code-block", "code", "sourcecode", "testcode", "doctest"];

/// Parse reStructuredText `text` (see the module docs).
pub fn parse_rst(text: &str) -> ParsedDocument {
    ParsedDocument {
        text: text.to_string(),
        ..rst_of(text)
    }
}

/// [`parse_rst`] with the document's text left empty.
fn rst_of(text: &str) -> ParsedDocument {
    let index = LineIndex::new(text);
    let lines = lines_of(text);
    let n = lines.len();
    let mut elements: Vec<Element> = Vec::new();
    let mut styles: Vec<(char, bool)> = Vec::new();
    let el = |kind, from: usize, to: usize| {
        element(text, &index, kind, lines[from].start, lines[to - 1].end)
    };
    let mut i = 0;
    while i < n {
        let line = lines[i];
        if line.blank {
            i += 1;
            continue;
        }
        let t = line.trimmed(text);
        // Section titles.
        if let Some((title, last, style)) = title_at(text, &lines, i) {
            let level = match styles.iter().position(|&s| s == style) {
                Some(p) => p + 1,
                None => {
                    styles.push(style);
                    styles.len()
                }
            };
            let level = level.min(u8::MAX as usize) as u8;
            if let Some(e) = el(ElementKind::Heading { level }, i, last + 1) {
                elements.push(e.with_title(lines[title].trimmed(text)));
            }
            i = last + 1;
            continue;
        }
        let end = block_end(&lines, i);
        if t.starts_with("..") && (t.len() == 2 || t[2..].starts_with(' ')) {
            // Directive or comment.
            let name = t[2..].trim_start().split("::").next().unwrap_or("").trim();
            let is_directive = t.contains("::");
            if is_directive && CODE_DIRECTIVES.contains(&name) {
                let body = indented_end(&lines, end, line.indent);
                if let Some(mut e) = el(ElementKind::Code, i, body.max(end)) {
                    let arg = t.split_once("::").map(|(_, a)| a.trim()).unwrap_or("");
                    e.set_language(arg.split_whitespace().next().map(str::to_string));
                    elements.push(e);
                }
                i = body.max(end);
            } else {
                elements.extend(el(ElementKind::Other, i, end));
                i = end;
            }
            continue;
        }
        if t.starts_with(">>>") {
            if let Some(mut e) = el(ElementKind::Code, i, end) {
                e.set_language(Some("pycon".into()));
                elements.push(e);
            }
            i = end;
            continue;
        }
        if is_table_border(t) || is_adornment(t) {
            elements.extend(el(ElementKind::Other, i, end));
            i = end;
            continue;
        }
        if is_list_item(t) {
            // Items of one block: each runs until the next line at its indentation or less.
            let mut j = i + 1;
            while j < end && lines[j].indent > line.indent {
                j += 1;
            }
            elements.extend(el(ElementKind::ListItem, i, j));
            i = j;
            continue;
        }
        elements.extend(el(ElementKind::Paragraph, i, end));
        i = end;
        let last = lines[end - 1].trimmed(text);
        if last.ends_with("::") {
            // A literal block: the following lines indented more than the paragraph.
            let mut k = end;
            while k < n && lines[k].blank {
                k += 1;
            }
            if k < n && lines[k].indent > line.indent {
                let stop = indented_end(&lines, k, line.indent);
                elements.extend(el(ElementKind::Code, k, stop));
                i = stop;
            }
        }
    }
    finish(text, &index, &mut elements);
    let mut metadata = BTreeMap::new();
    if let Some(t) = elements.iter().find(|e| e.kind.heading_level() == Some(1)) {
        metadata.insert("title".into(), t.title().unwrap_or_default().to_string());
    }
    ParsedDocument {
        text: String::new(),
        elements,
        format: "rst".into(),
        metadata,
        warnings: Vec::new(),
        pages: None,
    }
}

/// One line: byte range without its line break, indentation (in chars), blank or not.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    indent: usize,
    blank: bool,
}

impl Line {
    fn trimmed<'t>(&self, text: &'t str) -> &'t str {
        text[self.start..self.end].trim()
    }
}

fn lines_of(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let body = piece.trim_end_matches(['\n', '\r']);
        let indent = body.len() - body.trim_start().len();
        out.push(Line {
            start,
            end: start + body.len(),
            indent,
            blank: body.trim().is_empty(),
        });
        start += piece.len();
    }
    out
}

/// First line after the block starting at `i` (the next blank line or the end).
fn block_end(lines: &[Line], i: usize) -> usize {
    let mut j = i + 1;
    while j < lines.len() && !lines[j].blank {
        j += 1;
    }
    j
}

/// From `from`, the end of the lines that are blank or indented more than `indent`, without
/// trailing blank lines.
fn indented_end(lines: &[Line], from: usize, indent: usize) -> usize {
    let mut j = from;
    let mut last = from;
    while j < lines.len() && (lines[j].blank || lines[j].indent > indent) {
        j += 1;
        if !lines[j - 1].blank {
            last = j;
        }
    }
    last
}

/// A line of one repeated punctuation char, at least 3 long (a section adornment or transition).
fn is_adornment(t: &str) -> bool {
    let mut chars = t.chars();
    let Some(c) = chars.next() else { return false };
    c.is_ascii_punctuation() && t.len() >= 3 && chars.all(|x| x == c)
}

/// `+---+---+` (grid table) or `====  ====` (simple table).
fn is_table_border(t: &str) -> bool {
    (t.starts_with("+-") || t.starts_with("+=")) && t.ends_with('+')
        || (t.starts_with("==") && t.contains(' ') && t.chars().all(|c| c == '=' || c == ' '))
}

fn is_list_item(t: &str) -> bool {
    let Some((marker, rest)) = t.split_once(' ') else {
        return false;
    };
    if rest.trim().is_empty() {
        return false;
    }
    if matches!(marker, "*" | "-" | "+" | "•") {
        return true;
    }
    let inner = marker
        .strip_prefix('(')
        .and_then(|m| m.strip_suffix(')'))
        .or_else(|| marker.strip_suffix(['.', ')']));
    inner.is_some_and(|m| {
        m == "#"
            || (!m.is_empty() && m.len() <= 3 && m.bytes().all(|b| b.is_ascii_digit()))
            || (m.len() == 1 && m.bytes().all(|b| b.is_ascii_alphabetic()))
    })
}

/// A section title starting at line `i`: (title line, last adornment line, style).
fn title_at(text: &str, lines: &[Line], i: usize) -> Option<(usize, usize, (char, bool))> {
    let at = |k: usize| lines.get(k).filter(|l| !l.blank).map(|l| l.trimmed(text));
    let first = at(i)?;
    let preceded = i == 0 || lines[i - 1].blank;
    if !preceded || lines[i].indent > 0 {
        return None;
    }
    let adorn_char = |t: &str| t.chars().next().filter(|_| is_adornment(t));
    if let Some(c) = adorn_char(first) {
        // Overline, title, underline with the same char.
        let title = at(i + 1)?;
        let under = at(i + 2)?;
        if adorn_char(under) == Some(c) && !is_adornment(title) {
            return Some((i + 1, i + 2, (c, true)));
        }
        return None;
    }
    let under = at(i + 1)?;
    let c = adorn_char(under)?;
    if lines[i + 1].indent > 0 {
        return None;
    }
    // The underline should be as long as the title; docutils accepts (with a warning) shorter
    // ones of 4+ chars.
    let long_enough = under.chars().count() >= first.chars().count().min(4);
    long_enough.then_some((i, i + 1, (c, false)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_by_first_appearance_and_blocks() {
        let rst = "Hoofd\n=====\n\n.. note::\n\n   Let op.\n\nSub\n---\n\n- a\n  vervolg\n- b\n\n\
                   .. code-block:: python\n\n   x = 1\n\n   y = 2\n\nNa.\n\n>>> 1 + 1\n2\n\n\
                   Tweede\n======\n\n+---+\n| a |\n+---+\n\n-----\n\nSlot.\n";
        let doc = parse_rst(rst);
        let got: Vec<_> = doc
            .elements
            .iter()
            .map(|e| (e.kind.name(), e.kind.heading_level(), doc.title_of(e)))
            .collect();
        assert_eq!(
            got,
            [
                ("heading", Some(1), "Hoofd"),
                ("other", None, ".. note::"),
                ("paragraph", None, "Let op."),
                ("heading", Some(2), "Sub"),
                ("list_item", None, "- a\n  vervolg"),
                ("list_item", None, "- b"),
                (
                    "code",
                    None,
                    ".. code-block:: python\n\n   x = 1\n\n   y = 2"
                ),
                ("paragraph", None, "Na."),
                ("code", None, ">>> 1 + 1\n2"),
                ("heading", Some(1), "Tweede"),
                ("other", None, "+---+\n| a |\n+---+"),
                ("other", None, "-----"),
                ("paragraph", None, "Slot."),
            ]
        );
        assert_eq!(doc.elements[6].language(), Some("python"));
        assert_eq!(doc.elements[0].lines, Some((1, 2)));
        assert_eq!(doc.metadata["title"], "Hoofd");
    }

    #[test]
    fn edge_inputs() {
        for t in [
            "",
            "===",
            "a\n===",
            "::\n\n  x",
            "..",
            "* ",
            "😀\n---",
            "x\n\r\n  \n",
        ] {
            let doc = parse_rst(t);
            for e in &doc.elements {
                assert!(e.start < e.end && e.end <= t.len() && t.is_char_boundary(e.start));
            }
        }
    }
}
