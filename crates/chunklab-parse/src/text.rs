//! Plain text: blocks are separated by blank lines; the first lines of a block can be headings,
//! the rest are list items (lines starting with `-`, `*`, `•`, `1.`, `a.`, `(a)` ...; indented
//! lines continue an item) and paragraphs. The document text is the file itself.
//!
//! Headings are recognized by their shape, on a short line that does not read like a sentence:
//! * keyword headings — `Deel`/`Part`/`Boek`, `Hoofdstuk`/`Chapter`/`Titel`, `Afdeling`/`Section`,
//!   `Paragraaf`/`§`, `Artikel`/`Article`/`Art.` followed by a number (`Hoofdstuk 3`,
//!   `Artikel 4a Bezoekers`, `HOOFDSTUK IV`), in that order of rank;
//! * numbered sections — `1 Inleiding`, `1.2 Titel`, `3.1.4. Details` (deeper numbers rank lower),
//!   unless the next line continues a numbered list;
//! * all-caps lines (`ALGEMENE BEPALINGEN`), ranked above everything else.
//!
//! Levels are the ranks that occur in the document, numbered from 1 (a document with
//! `Hoofdstuk` and `Artikel` headings gets levels 1 and 2). The first line of the document is its
//! `Title` when it stands alone, is short and does not end like a sentence. Form feeds (as
//! `pdftotext` writes between pages) become `PageBreak`s and give every element its page.

use crate::support::{decode, element, finish, with_text, without_bom, LineIndex};
use crate::{Limits, ParseError, Parser};
use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use chunklab_core::text::{count_newlines, strip_span};
use std::collections::BTreeMap;
use std::path::Path;

/// The plain-text parser.
///
/// ```
/// use chunklab_parse::{text::TextParser, ElementKind, Limits, Parser};
/// use std::path::Path;
/// let txt = "Parkeerverordening 2021\n\nHoofdstuk 1. Algemeen\n\nArtikel 1 Begrippen\n\
///            In deze verordening wordt verstaan onder:\na. bewoner: degene die woont;\n";
/// let doc = TextParser.parse(txt.as_bytes(), Path::new("v.txt"), &Limits::default()).unwrap();
/// let kinds: Vec<_> = doc.elements.iter().map(|e| (e.kind, &doc.text[e.start..e.end])).collect();
/// assert_eq!(kinds, [
///     (ElementKind::Title, "Parkeerverordening 2021"),
///     (ElementKind::Heading { level: 1 }, "Hoofdstuk 1. Algemeen"),
///     (ElementKind::Heading { level: 2 }, "Artikel 1 Begrippen"),
///     (ElementKind::Paragraph, "In deze verordening wordt verstaan onder:"),
///     (ElementKind::ListItem, "a. bewoner: degene die woont;"),
/// ]);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct TextParser;

impl Parser for TextParser {
    fn name(&self) -> &'static str {
        "text"
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        _limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        Ok(parse_text(decode(bytes)?))
    }

    fn parse_string(
        &self,
        text: String,
        _path: &Path,
        _limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        Ok(with_text(without_bom(text), text_of))
    }
}

impl TextParser {
    /// [`Parser::parse`] without the structure, for strategies that read only a document's
    /// text, pages and source lines ([`chunklab_core::Chunker::reads_only_locations`]): see
    /// [`parse_text_flat`].
    pub fn parse_flat(&self, bytes: &[u8]) -> Result<ParsedDocument, ParseError> {
        Ok(parse_text_flat(decode(bytes)?))
    }

    /// [`TextParser::parse_flat`] of text already in a `String`, which becomes the document's
    /// text (not copied; a byte order mark is left out, as [`Parser::parse`] does).
    pub fn parse_flat_string(&self, text: String) -> ParsedDocument {
        let text = without_bom(text);
        if text.contains('\x0C') {
            return with_text(text, text_of);
        }
        flat(text)
    }
}

/// Plain `text` as [`parse_text`] gives it to a [`chunklab_core::Locator`] (the same text,
/// pages and source lines for every span), without looking for headings, lists or a title: one
/// `Other` element spans the text (none when it is all whitespace), and the metadata is empty.
/// Text with form feeds (pages) is parsed in full. A few times faster than [`parse_text`], for
/// strategies whose chunks do not depend on the structure.
///
/// ```
/// use chunklab_parse::text::{parse_text, parse_text_flat};
/// use chunklab_core::Locator;
/// let txt = "Hoofdstuk 1\n\nDe raad besluit.\n- een\n- twee\n";
/// let (full, flat) = (parse_text(txt), parse_text_flat(txt));
/// assert_eq!(flat.elements.len(), 1);
/// assert_eq!(Locator::new(&flat).meta(13, 35).lines, Locator::new(&full).meta(13, 35).lines);
/// ```
pub fn parse_text_flat(text: &str) -> ParsedDocument {
    if text.contains('\x0C') {
        return parse_text(text);
    }
    flat(text.to_string())
}

/// [`parse_text_flat`] of text without form feeds.
fn flat(text: String) -> ParsedDocument {
    let (s, e) = strip_span(&text, 0, text.len());
    let mut elements = Vec::new();
    if s < e {
        let bytes = text.as_bytes();
        let first = count_newlines(&bytes[..s]) as u32 + 1;
        let last = first + count_newlines(&bytes[s..e - 1]) as u32;
        elements.push(Element::new(ElementKind::Other, s, e).with_lines(first, last));
    }
    ParsedDocument {
        text,
        elements,
        format: "text".into(),
        metadata: BTreeMap::new(),
        warnings: Vec::new(),
        pages: None,
    }
}

/// Longest line (in bytes) that can be a heading.
const MAX_HEADING_BYTES: usize = 160;
/// Most words a heading can have.
const MAX_HEADING_WORDS: usize = 14;
/// Rank of numbered sections of depth 1 (deeper ones rank one lower per level).
const NUMBERED_RANK: u8 = 10;

/// Parse plain `text` (see the module docs).
pub fn parse_text(text: &str) -> ParsedDocument {
    ParsedDocument {
        text: text.to_string(),
        ..text_of(text)
    }
}

/// [`parse_text`] with the document's text left empty.
fn text_of(text: &str) -> ParsedDocument {
    let index = LineIndex::new(text);
    let lines = lines_of(text);
    let mut elements: Vec<Element> = Vec::new();
    // (element index, rank) of each heading; ranks become levels at the end.
    let mut headings: Vec<(usize, u8)> = Vec::new();
    let mut first_block = true;
    let mut i = 0;
    while i < lines.len() {
        if lines[i].blank {
            i += 1;
            continue;
        }
        // A block runs to the next blank line or page break.
        let mut end = i + 1;
        while end < lines.len() && !lines[end].blank && !lines[end].feed {
            end += 1;
        }
        let block = &lines[i..end];
        let mut k = 0;
        // The document title: a lone short first line with more text after it.
        if first_block && block.len() == 1 && lines[end..].iter().any(|l| !l.blank) {
            let t = block[0].text(text);
            if heading_rank(t).is_none()
                && t.len() <= MAX_HEADING_BYTES
                && !t.ends_with(['.', ',', ';', ':', '!', '?'])
                && list_marker(t).is_none()
            {
                elements.extend(block[0].element(text, &index, ElementKind::Title));
                k = 1;
            }
        }
        first_block = false;
        // Leading heading lines.
        while k < block.len() {
            let t = block[k].text(text);
            let Some(rank) = heading_rank(t) else { break };
            let next_is_list = block
                .get(k + 1)
                .is_some_and(|n| list_marker(n.text(text)).is_some());
            if rank >= NUMBERED_RANK && next_is_list && list_marker(t).is_some() {
                break; // "1. Foo\n2. Bar": a numbered list, not a heading
            }
            if let Some(e) = block[k].element(text, &index, ElementKind::Heading { level: 1 }) {
                headings.push((elements.len(), rank));
                elements.push(e);
            }
            k += 1;
        }
        // List items and paragraphs.
        while k < block.len() {
            let t = block[k].text(text);
            let item = list_marker(t).is_some();
            let mut j = k + 1;
            while j < block.len() {
                let n = block[j].text(text);
                let continues = if item {
                    list_marker(n).is_none() && block[j].indented(text)
                } else {
                    list_marker(n).is_none()
                };
                if !continues {
                    break;
                }
                j += 1;
            }
            let kind = if item {
                ElementKind::ListItem
            } else {
                ElementKind::Paragraph
            };
            elements.extend(element(
                text,
                &index,
                kind,
                block[k].start,
                block[j - 1].end,
            ));
            k = j;
        }
        i = end;
    }
    // Ranks → levels 1.. in rank order.
    let mut ranks: Vec<u8> = headings.iter().map(|h| h.1).collect();
    ranks.sort_unstable();
    ranks.dedup();
    for &(e, rank) in &headings {
        let level = ranks.iter().position(|&r| r == rank).unwrap_or(0) as u8 + 1;
        elements[e].kind = ElementKind::Heading { level };
    }
    let mut metadata = BTreeMap::new();
    if let Some(t) = elements.iter().find(|e| e.kind == ElementKind::Title) {
        metadata.insert("title".into(), text[t.start..t.end].to_string());
    }
    let pages = paginate(text, &mut elements);
    finish(text, &index, &mut elements);
    ParsedDocument {
        text: String::new(),
        elements,
        format: "text".into(),
        metadata,
        warnings: Vec::new(),
        pages,
    }
}

/// One line: byte range without its line break; blank when only whitespace (form feeds too).
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    blank: bool,
    /// Starts with a form feed (a new page).
    feed: bool,
}

impl Line {
    fn text<'t>(&self, text: &'t str) -> &'t str {
        text[self.start..self.end].trim()
    }

    fn indented(&self, text: &str) -> bool {
        text[self.start..self.end].starts_with([' ', '\t'])
    }

    fn element(&self, text: &str, index: &LineIndex, kind: ElementKind) -> Option<Element> {
        element(text, index, kind, self.start, self.end)
    }
}

fn lines_of(text: &str) -> Vec<Line> {
    let mut out = Vec::new();
    let mut start = 0;
    for piece in text.split_inclusive('\n') {
        let body = piece.trim_end_matches(['\n', '\r']);
        out.push(Line {
            start,
            end: start + body.len(),
            blank: body.trim().is_empty(),
            feed: body.trim_start_matches([' ', '\t']).starts_with('\x0C'),
        });
        start += piece.len();
    }
    out
}

/// The heading rank of a line (lower is higher in the hierarchy), if it looks like a heading.
fn heading_rank(t: &str) -> Option<u8> {
    if t.is_empty() || t.len() > MAX_HEADING_BYTES || t.ends_with([',', ';']) {
        return None;
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    if words.len() > MAX_HEADING_WORDS {
        return None;
    }
    let sentence = t.ends_with(['.', ':', '!', '?']) && words.len() > 3;
    // Keyword headings: "Hoofdstuk 3", "Artikel 4a Bezoekers", "§ 2".
    let first = words[0].to_lowercase();
    let rank = match first.trim_end_matches('.') {
        "deel" | "part" | "boek" | "book" => Some(1),
        "hoofdstuk" | "chapter" | "titel" => Some(2),
        "afdeling" | "section" => Some(3),
        "paragraaf" | "§" => Some(4),
        "artikel" | "article" | "art" => Some(5),
        _ => None,
    };
    if let Some(rank) = rank {
        let numbered = words.get(1).is_some_and(|w| section_number(w));
        return (numbered && !sentence).then_some(rank);
    }
    if sentence {
        return None;
    }
    // Numbered sections: "1 Inleiding", "1.2 Titel", "3.1.4. Details".
    if let Some(depth) = numbering_depth(words[0]) {
        let title = words.get(1)?;
        let starts_upper = title.chars().next().is_some_and(|c| c.is_uppercase());
        return starts_upper.then_some(NUMBERED_RANK + depth.min(20) - 1);
    }
    // All-caps lines.
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    if letters >= 3 && !t.chars().any(|c| c.is_lowercase()) && !t.ends_with('.') {
        return Some(0);
    }
    None
}

/// `3`, `3a`, `IV`, `1.2`, `3.` — what follows a heading keyword.
fn section_number(w: &str) -> bool {
    let w = w.trim_end_matches(['.', ':']);
    let digits = w.trim_end_matches(|c: char| c.is_ascii_lowercase());
    let arabic = !digits.is_empty()
        && digits.chars().all(|c| c.is_ascii_digit() || c == '.')
        && digits.starts_with(|c: char| c.is_ascii_digit());
    let roman = !w.is_empty() && w.len() <= 6 && w.chars().all(|c| "IVXLC".contains(c));
    arabic || roman
}

/// Depth of a section number `1`, `1.`, `1.2`, `3.1.4.` (numbers of at most 3 digits).
fn numbering_depth(w: &str) -> Option<u8> {
    let w = w.strip_suffix('.').unwrap_or(w);
    let mut depth = 0u8;
    for part in w.split('.') {
        if part.is_empty() || part.len() > 3 || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        depth = depth.saturating_add(1);
    }
    Some(depth)
}

/// The list marker a line starts with: `-`, `*`, `•`, `–`, `+`, `1.`, `1)`, `a.`, `a)`, `(a)`,
/// `(iv)`, followed by a space.
fn list_marker(t: &str) -> Option<&str> {
    let (marker, rest) = t.split_once([' ', '\t'])?;
    if rest.trim().is_empty() {
        return None;
    }
    let bullet = matches!(marker, "-" | "*" | "•" | "–" | "+" | "·" | "o");
    let inner = marker
        .strip_prefix('(')
        .and_then(|m| m.strip_suffix(')'))
        .or_else(|| marker.strip_suffix(['.', ')']));
    let enumerated = inner.is_some_and(|m| {
        let digits = !m.is_empty() && m.len() <= 3 && m.bytes().all(|b| b.is_ascii_digit());
        let letter = m.len() == 1 && m.bytes().all(|b| b.is_ascii_lowercase());
        let roman = !m.is_empty() && m.len() <= 5 && m.chars().all(|c| "ivxl".contains(c));
        digits || letter || roman
    });
    (bullet || enumerated).then_some(marker)
}

/// Page breaks at form feeds, and every element's page; the number of pages, if there are form
/// feeds at all.
fn paginate(text: &str, elements: &mut Vec<Element>) -> Option<u32> {
    let feeds: Vec<usize> = text.match_indices('\x0C').map(|(b, _)| b).collect();
    if feeds.is_empty() {
        return None;
    }
    for e in elements.iter_mut() {
        e.page = Some(feeds.partition_point(|&f| f < e.start) as u32 + 1);
    }
    for (n, &f) in feeds.iter().enumerate() {
        elements.push(Element::new(ElementKind::PageBreak, f + 1, f + 1).with_page(n as u32 + 2));
    }
    Some(feeds.len() as u32 + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headings(doc: &ParsedDocument) -> Vec<(u8, &str)> {
        doc.elements
            .iter()
            .filter_map(|e| Some((e.kind.heading_level()?, &doc.text[e.start..e.end])))
            .collect()
    }

    #[test]
    fn heading_shapes() {
        assert_eq!(heading_rank("Hoofdstuk 2. Vergunningen"), Some(2));
        assert_eq!(heading_rank("HOOFDSTUK IV"), Some(2));
        assert_eq!(heading_rank("Artikel 4a Bezoekers"), Some(5));
        assert_eq!(
            heading_rank("Artikel 4 van de wet is van toepassing op alle gevallen."),
            None
        );
        assert_eq!(heading_rank("1.2 Titel"), Some(NUMBERED_RANK + 1));
        assert_eq!(heading_rank("3.1.4. Details"), Some(NUMBERED_RANK + 2));
        assert_eq!(heading_rank("1.400,50 euro"), None);
        assert_eq!(heading_rank("ALGEMENE BEPALINGEN"), Some(0));
        assert_eq!(heading_rank("Het college besluit."), None);
        assert_eq!(heading_rank("2021"), None);
        assert_eq!(list_marker("a. bewoner: degene"), Some("a."));
        assert_eq!(list_marker("(iv) iets"), Some("(iv)"));
        assert_eq!(list_marker("Artikel 4"), None);
    }

    #[test]
    fn numbered_sections_lists_and_pages() {
        let txt = "1 Inleiding\nDit rapport gaat over wind.\n\n1.1 Doel\nHet doel is:\n- meten\n  en rekenen\n- delen\n\n1. Eerste\n2. Tweede\n\x0C2 Resultaten\r\nZie tabel.\r\n";
        let doc = parse_text(txt);
        assert_eq!(
            headings(&doc),
            [(1, "1 Inleiding"), (2, "1.1 Doel"), (1, "2 Resultaten")]
        );
        let items: Vec<_> = doc
            .elements
            .iter()
            .filter(|e| e.kind == ElementKind::ListItem)
            .map(|e| &doc.text[e.start..e.end])
            .collect();
        assert_eq!(
            items,
            ["- meten\n  en rekenen", "- delen", "1. Eerste", "2. Tweede"]
        );
        assert_eq!(doc.pages, Some(2));
        let last = doc.elements.last().unwrap();
        assert_eq!(
            (last.page, &doc.text[last.start..last.end]),
            (Some(2), "Zie tabel.")
        );
        assert!(doc
            .elements
            .iter()
            .any(|e| e.kind == ElementKind::PageBreak));
    }

    #[test]
    fn edge_inputs() {
        for t in [
            "",
            "\n\n",
            "x",
            "😀",
            "\x0C",
            "a\r\n\r\nb",
            &"woord ".repeat(100_000),
        ] {
            let doc = parse_text(t);
            for e in &doc.elements {
                assert!(e.start <= e.end && e.end <= t.len());
                assert!(t.is_char_boundary(e.start) && t.is_char_boundary(e.end));
            }
        }
        assert!(parse_text("Alleen een titel").elements[0].kind == ElementKind::Paragraph);
    }
}
