//! Damaged PDFs: copies of a real file with one byte changed (made here, in a temporary
//! directory) must keep every page that can be recovered and say what was lost and why — never
//! lose text silently, never blame a damaged page on a missing OCR step, never panic.

use chunklab_parse::pdf::PdfParser;
use chunklab_parse::{Limits, ParsedDocument, Parser};
use chunklab_test_support::shared_dir;
use std::path::PathBuf;

const FILE: &str = "raadsbesluit.pdf";

fn original() -> Vec<u8> {
    std::fs::read(shared_dir().join("datasets/documents/pdf").join(FILE)).unwrap()
}

/// Writes a copy of the original with `edit` applied into a temporary directory and parses it.
fn parse_mutated(name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> ParsedDocument {
    let mut bytes = original();
    edit(&mut bytes);
    let dir = tempfile::tempdir().unwrap();
    let path: PathBuf = dir.path().join(name);
    std::fs::write(&path, &bytes).unwrap();
    let read = std::fs::read(&path).unwrap();
    let doc = PdfParser
        .parse(&read, &path, &Limits::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    doc
}

fn parse_original() -> ParsedDocument {
    PdfParser
        .parse(&original(), FILE.as_ref(), &Limits::default())
        .unwrap()
}

fn no_ocr_blame(doc: &ParsedDocument) {
    assert!(
        !doc.warnings.iter().any(|w| w.contains("OCR")),
        "a damaged page is not a scanned one: {:?}",
        doc.warnings
    );
}

#[test]
fn the_original_parses_cleanly() {
    let doc = parse_original();
    assert_eq!(doc.pages, Some(2));
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    assert!(doc.text.len() > 1500, "{} bytes", doc.text.len());
}

/// `1 0 obj` → `1$0 obj` (the header of page 1's object): the page is recovered from the
/// cross-reference table's offset, and the repair is reported.
#[test]
fn a_damaged_object_header_is_repaired() {
    let good = parse_original();
    let doc = parse_mutated("header.pdf", |b| {
        assert_eq!(&b[42117..42124], b"1 0 obj", "the test file changed");
        b[42118] = b'$';
    });
    assert_eq!(doc.pages, Some(2));
    assert_eq!(doc.text, good.text, "every page recovered");
    assert!(
        doc.warnings
            .iter()
            .any(|w| w.contains("recovered") && w.contains("1 0 (byte 42117)")),
        "{:?}",
        doc.warnings
    );
    no_ocr_blame(&doc);
}

/// The `xref` keyword destroyed: the table is rebuilt by scanning for objects.
#[test]
fn a_destroyed_cross_reference_table_is_rebuilt() {
    let good = parse_original();
    let doc = parse_mutated("xref.pdf", |b| {
        let at = b.windows(6).rposition(|w| w == b"\nxref\n").unwrap() + 1;
        assert_eq!(at, 44311, "the test file changed");
        b[at..at + 4].copy_from_slice(b"xxxx");
    });
    assert_eq!(doc.pages, Some(2));
    assert_eq!(doc.text, good.text);
    assert!(
        doc.warnings
            .iter()
            .any(|w| w.contains("cross-reference") && w.contains("rebuilt")),
        "{:?}",
        doc.warnings
    );
}

/// A flipped bit in page 1's compressed content: the text decoded before the damage is kept and
/// the loss is reported for page 1, naming the stream.
#[test]
fn damaged_page_content_is_reported() {
    let good = parse_original();
    let doc = parse_mutated("content.pdf", |b| b[671] ^= 0x01);
    assert_eq!(doc.pages, Some(2));
    assert!(doc.text.len() < good.text.len(), "text was lost");
    let warning = doc
        .warnings
        .iter()
        .find(|w| w.starts_with("page 1:") && w.contains("content stream"))
        .unwrap_or_else(|| panic!("no page 1 warning: {:?}", doc.warnings));
    assert!(warning.contains("damaged"), "{warning}");
    no_ocr_blame(&doc);
}

/// Seeded single-bit flips all over the file: never a panic, and wherever a tenth of the text
/// or more is lost, a warning says so.
#[test]
fn random_bit_flips_never_lose_text_silently() {
    let bytes = original();
    let good = parse_original();
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut silent = Vec::new();
    for _ in 0..40 {
        let at = (next() % bytes.len() as u64) as usize;
        let bit = 1u8 << (next() % 8);
        let mut damaged = bytes.clone();
        damaged[at] ^= bit;
        match PdfParser.parse(&damaged, FILE.as_ref(), &Limits::default()) {
            Err(_) => {}
            Ok(doc) => {
                if doc.text.len() * 10 < good.text.len() * 9 && doc.warnings.is_empty() {
                    silent.push((at, bit, doc.text.len()));
                }
            }
        }
    }
    assert!(silent.is_empty(), "text lost without a warning: {silent:?}");
}
