//! `lines` of a chunk is its own span's first and last source line, also when it starts or ends
//! inside a multi-line element (issue 20 item 1), and a split Markdown table repeats its header
//! with the delimiter row (issue 20 item 9): regression tests on the PostgreSQL catalog overview,
//! whose 66-line table `elements` splits into parts.

use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use chunklab_core::strategies::Elements;
use chunklab_core::text::LineIndex;
use chunklab_core::validate::check_lines;
use chunklab_core::{CharSizer, Chunker};
use std::sync::Arc;

const OVERVIEW: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/datasets/documents/markdown/md_postgresql-15_catalogs-overview.md"
);

/// The file as the Markdown parser lays it out: blocks between blank lines; a block whose second
/// line is a `---|---` delimiter is a table (its header row, then one row per line after the
/// delimiter); `#` lines are headings; everything else a paragraph. Every element has its lines.
fn parse(text: &str) -> ParsedDocument {
    let index = LineIndex::new(text);
    let mut els = Vec::new();
    let mut el = |kind, s: usize, e: usize| {
        let (a, b) = index.span_lines(text, s, e);
        els.push(Element::new(kind, s, e).with_lines(a, b));
    };
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        lines.push((at, at + line.trim_end().len()));
        at += line.len();
    }
    let blank = |&(s, e): &(usize, usize)| text[s..e].trim().is_empty();
    let delimiter = |&(s, e): &(usize, usize)| {
        let l = text[s..e].trim();
        l.contains("-|-") && l.chars().all(|c| matches!(c, '|' | '-' | ':' | ' '))
    };
    let mut i = 0;
    while i < lines.len() {
        if blank(&lines[i]) {
            i += 1;
            continue;
        }
        let mut j = i;
        while j < lines.len() && !blank(&lines[j]) {
            j += 1;
        }
        let block = &lines[i..j];
        if block.len() > 2 && delimiter(&block[1]) {
            el(ElementKind::Table, block[0].0, block[block.len() - 1].1);
            el(
                ElementKind::TableRow { header: true },
                block[0].0,
                block[0].1,
            );
            for &(s, e) in &block[2..] {
                el(ElementKind::TableRow { header: false }, s, e);
            }
        } else if text[block[0].0..].starts_with('#') {
            el(ElementKind::Heading { level: 2 }, block[0].0, block[0].1);
        } else {
            el(ElementKind::Paragraph, block[0].0, block[block.len() - 1].1);
        }
        i = j;
    }
    let mut doc = ParsedDocument::plain(text.to_string());
    doc.format = "markdown".into();
    doc.elements = els;
    doc
}

#[test]
fn split_table_parts_carry_their_own_lines() {
    let text =
        std::fs::read_to_string(OVERVIEW).unwrap_or_else(|e| panic!("cannot read {OVERVIEW}: {e}"));
    let doc = parse(&text);
    let table = doc
        .elements
        .iter()
        .find(|e| e.kind == ElementKind::Table)
        .expect("the overview has a table");
    assert_eq!(table.lines, Some((15, 80)));
    let chunks = Elements::new(Arc::new(CharSizer), 1000, 6, false)
        .unwrap()
        .chunk_parsed(&doc)
        .unwrap();
    check_lines(&doc, &chunks).unwrap();
    let parts: Vec<(u32, u32)> = chunks
        .iter()
        .filter(|(s, _)| s.start >= table.start && s.end <= table.end)
        .map(|(_, m)| m.lines.unwrap())
        .collect();
    assert!(parts.len() >= 4, "the table is split: {parts:?}");
    // Before the fix every part said (15, 80); now they follow each other through the table.
    assert_eq!(parts[0].0, 15);
    assert_eq!(parts[parts.len() - 1].1, 80);
    for w in parts.windows(2) {
        assert_eq!(w[1].0, w[0].1 + 1, "parts follow each other: {parts:?}");
    }
    // Every later part repeats the header with its `---|---` delimiter row (issue 20 item 9):
    // prefix and part together are still a Markdown table.
    let later: Vec<_> = chunks
        .iter()
        .filter(|(s, _)| s.start > table.start && s.end <= table.end)
        .collect();
    assert!(later.len() >= 3);
    for (_, m) in later {
        assert_eq!(
            m.prefix.as_deref(),
            Some("Catalog Name| Purpose  \n---|---\n")
        );
    }
}
