//! Helpers shared by the parsers whose document text is the file itself (Markdown, reST, plain
//! text): 1-based line numbers of byte offsets, UTF-8 decoding with the offset of a bad byte,
//! and the final pass that sorts elements and puts stray text into `Other` elements so that no
//! non-whitespace char is outside every element.

use crate::ParseError;
use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use chunklab_core::text::strip_span;
use std::cmp::Reverse;

/// The text of a text-format file: UTF-8 (a byte order mark is left out of the text).
pub(crate) fn decode(bytes: &[u8]) -> Result<&str, ParseError> {
    let (bom, rest) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (3, rest),
        None => (0, bytes),
    };
    std::str::from_utf8(rest).map_err(|e| ParseError::NotUtf8 {
        offset: bom + e.valid_up_to(),
    })
}

pub(crate) use chunklab_core::text::LineIndex;

/// The document `parse` makes of `text` (its text left empty), with `text` moved in rather than
/// copied.
pub(crate) fn with_text(
    text: String,
    parse: impl FnOnce(&str) -> ParsedDocument,
) -> ParsedDocument {
    let mut doc = parse(&text);
    doc.text = text;
    doc
}

/// `text` without a leading byte order mark, as [`decode`] leaves it out.
pub(crate) fn without_bom(mut text: String) -> String {
    if text.starts_with('\u{feff}') {
        text.drain(..'\u{feff}'.len_utf8());
    }
    text
}

/// A new element over `text[start..end]` stripped of surrounding whitespace, with its source
/// lines; `None` when that is empty.
pub(crate) fn element(
    text: &str,
    lines: &LineIndex,
    kind: ElementKind,
    start: usize,
    end: usize,
) -> Option<Element> {
    let (s, e) = strip_span(text, start, end.min(text.len()));
    if s >= e {
        return None;
    }
    let (a, b) = lines.lines(s, e);
    Some(Element::new(kind, s, e).with_lines(a, b))
}

/// Sort `elements` (by start, then longest first) and add an `Other` element over every stretch
/// of non-whitespace text that no element covers.
pub(crate) fn finish(text: &str, lines: &LineIndex, elements: &mut Vec<Element>) {
    elements.sort_by_key(|e| (e.start, Reverse(e.end)));
    let mut gaps = Vec::new();
    let mut covered = 0;
    for e in elements.iter() {
        if e.start > covered {
            gaps.extend(element(text, lines, ElementKind::Other, covered, e.start));
        }
        covered = covered.max(e.end);
    }
    if covered < text.len() {
        gaps.extend(element(
            text,
            lines,
            ElementKind::Other,
            covered,
            text.len(),
        ));
    }
    if !gaps.is_empty() {
        elements.extend(gaps);
        elements.sort_by_key(|e| (e.start, Reverse(e.end)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_and_gaps() {
        let text = "a\n\nbc\nd";
        let idx = LineIndex::new(text);
        assert_eq!(idx.line(0), 1);
        assert_eq!(idx.line(3), 3);
        assert_eq!(idx.lines(3, 6), (3, 3));
        assert_eq!(idx.lines(3, 8), (3, 4));
        let mut els = vec![element(text, &idx, ElementKind::Paragraph, 3, 5).unwrap()];
        finish(text, &idx, &mut els);
        let spans: Vec<_> = els.iter().map(|e| (e.kind, e.start, e.end)).collect();
        assert_eq!(
            spans,
            [
                (ElementKind::Other, 0, 1),
                (ElementKind::Paragraph, 3, 5),
                (ElementKind::Other, 6, 7)
            ]
        );
        assert!(decode(b"ok\xff").is_err());
        assert_eq!(decode(b"\xEF\xBB\xBFhi").unwrap(), "hi");
    }
}
