//! Property tests of the structure-aware strategies (`headings`, `elements`) and of every other
//! strategy through `chunk_parsed`: on random parsed documents (headings of random levels, tables
//! with header rows, lists, code, pages, and some broken elements) every chunk is exact, within
//! the size counting its prefix, covering and deterministic, and its `lines` are those of its own
//! span in the text (see `validate::check_all_parsed`).

use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use chunklab_core::strategies::Headings;
use chunklab_core::text::LineIndex;
use chunklab_core::validate::{check_all_parsed, check_parsed, Expect};
use chunklab_core::{CharSizer, Chunker, Measure, Sizer, WordSizer};
use proptest::prelude::*;
use std::sync::Arc;

/// A block of the generated document.
#[derive(Debug, Clone)]
enum Block {
    Heading(u8, String),
    Paragraph(String),
    List(Vec<String>),
    Table(Vec<String>, bool),
    Code(String),
    PageBreak,
}

fn phrase() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop_oneof![
            6 => "[a-z]{1,10}",
            1 => Just("één".to_string()),
            1 => Just("😀".to_string()),
            1 => Just("中文。".to_string()),
            1 => Just("x".repeat(300)),
            1 => Just("Artikel 4.".to_string()),
        ],
        1..25,
    )
    .prop_map(|w| w.join(" "))
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        2 => (0u8..5, phrase()).prop_map(|(l, t)| Block::Heading(l, t)),
        4 => phrase().prop_map(Block::Paragraph),
        1 => prop::collection::vec(phrase(), 1..6).prop_map(Block::List),
        1 => (prop::collection::vec(phrase(), 1..12), any::<bool>()).prop_map(|(r, h)| Block::Table(r, h)),
        1 => phrase().prop_map(|w| Block::Code(w.replace(' ', "\n"))),
        1 => Just(Block::PageBreak),
    ]
}

/// Lay the blocks out as text with elements; `noise` adds broken elements (out of range, inside
/// a char, reversed) that strategies must ignore without panicking.
fn document(blocks: &[Block], noise: bool) -> ParsedDocument {
    let mut text = String::new();
    let mut els = Vec::new();
    let mut page = 1;
    fn push(text: &mut String, els: &mut Vec<Element>, kind: ElementKind, s: &str, page: u32) {
        let start = text.len();
        text.push_str(s);
        els.push(Element::new(kind, start, text.len()).with_page(page));
        text.push_str("\n\n");
    }
    for b in blocks {
        match b {
            Block::Heading(0, t) => push(&mut text, &mut els, ElementKind::Title, t, page),
            Block::Heading(l, t) => {
                let marked = format!("{} {t}", "#".repeat(*l as usize));
                push(
                    &mut text,
                    &mut els,
                    ElementKind::Heading { level: *l },
                    &marked,
                    page,
                );
                els.last_mut().unwrap().set_title(Some(t.clone()));
            }
            // Some paragraphs run over several lines, so chunks start and end inside them.
            Block::Paragraph(t) => {
                let t = t.replacen(' ', "\n", 2);
                push(&mut text, &mut els, ElementKind::Paragraph, &t, page)
            }
            Block::Code(t) => push(&mut text, &mut els, ElementKind::Code, t, page),
            Block::List(items) => {
                for i in items {
                    push(
                        &mut text,
                        &mut els,
                        ElementKind::ListItem,
                        &format!("- {i}"),
                        page,
                    );
                }
            }
            Block::Table(rows, header) => {
                let at = els.len();
                let start = text.len();
                els.push(Element::new(ElementKind::Table, start, start).with_page(page));
                for (k, r) in rows.iter().enumerate() {
                    let start = text.len();
                    text.push_str(&format!("| {r} |"));
                    let kind = ElementKind::TableRow {
                        header: *header && k == 0,
                    };
                    els.push(Element::new(kind, start, text.len()).with_page(page));
                    text.push('\n');
                }
                els[at].end = text.len() - 1;
                text.push('\n');
            }
            Block::PageBreak => {
                page += 1;
                els.push(
                    Element::new(ElementKind::PageBreak, text.len(), text.len()).with_page(page),
                );
            }
        }
    }
    // Source lines as a Markdown parser gives them (the text is the source file).
    let index = LineIndex::new(&text);
    for e in &mut els {
        let (a, b) = index.span_lines(&text, e.start, e.end);
        e.lines = Some((a, b));
    }
    if noise && !text.is_empty() {
        els.push(Element::new(
            ElementKind::Heading { level: 1 },
            text.len(),
            text.len() + 10,
        ));
        els.push(Element::new(ElementKind::Paragraph, 5, 2));
        if let Some((b, c)) = text.char_indices().find(|(_, c)| c.len_utf8() > 1) {
            els.push(Element::new(
                ElementKind::Heading { level: 2 },
                b + 1,
                b + c.len_utf8(),
            ));
        }
    }
    els.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end)));
    let mut doc = ParsedDocument::plain(text);
    doc.elements = els;
    doc.pages = Some(page);
    doc
}

/// Not additive: one unit per two chars, so a prefix and a text counted together differ from the
/// sum of their counts.
struct Pairs;
impl Sizer for Pairs {
    fn name(&self) -> &str {
        "pairs"
    }
    fn count(&self, text: &str) -> usize {
        text.chars().count().div_ceil(2)
    }
    fn measure(&self, text: &str) -> Measure {
        let ends: Vec<u32> = text
            .char_indices()
            .skip(1)
            .step_by(2)
            .map(|(b, c)| (b + c.len_utf8()) as u32)
            .collect();
        let mut ends = ends;
        if text.chars().count() % 2 == 1 {
            ends.push(text.len() as u32);
        }
        Measure::Ends(ends)
    }
}

fn run(doc: &ParsedDocument, sizer: Arc<dyn Sizer>, size: usize) {
    if let Err(e) = check_all_parsed(doc, sizer.clone(), size) {
        panic!("{e}\ntext: {:?}\nelements: {:?}", doc.text, doc.elements);
    }
    // `headings` merging sibling sections (not in the catalog's options).
    let merging = Headings::new(sizer.clone(), size, 6, size.is_multiple_of(2))
        .unwrap()
        .with_merge_siblings(true);
    let expect = Expect {
        size,
        overlap: false,
    };
    let checked = match merging.chunk_parsed(doc) {
        Ok(chunks) => check_parsed(doc, &chunks, sizer.as_ref(), expect),
        Err(chunklab_core::Error::TooSmall { units, size, .. }) if units > size => Ok(()),
        Err(e) => Err(e.to_string()),
    };
    if let Err(e) = checked {
        panic!(
            "merge_siblings: {e}\ntext: {:?}\nelements: {:?}",
            doc.text, doc.elements
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn chars(blocks in prop::collection::vec(block(), 0..14), size in 1usize..300, noise: bool) {
        run(&document(&blocks, noise), Arc::new(CharSizer), size);
    }

    #[test]
    fn words(blocks in prop::collection::vec(block(), 0..14), size in 1usize..60, noise: bool) {
        run(&document(&blocks, noise), Arc::new(WordSizer), size);
    }

    #[test]
    fn pairs(blocks in prop::collection::vec(block(), 0..14), size in 1usize..150, noise: bool) {
        run(&document(&blocks, noise), Arc::new(Pairs), size);
    }
}

#[test]
fn empty_and_whitespace_documents() {
    for text in ["", " ", "\n\n\t", "a"] {
        let doc = ParsedDocument::plain(text.to_string());
        run(&doc, Arc::new(CharSizer), 1);
        run(&doc, Arc::new(WordSizer), 3);
    }
}
