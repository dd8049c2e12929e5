//! Issue 19 item 5: the main part of a DOCX (`word/document.xml`) and of an ODT (`content.xml`)
//! is streamed out of the zip entry instead of being decompressed whole. These tests check that
//! streaming changes nothing a reader sees — text and elements of a few-megabyte document of tiny
//! paragraphs (many read-buffer boundaries), long runs and entity references across boundaries,
//! automatic styles read from the head of `content.xml` — and that the decompression budget still
//! counts every part exactly once.

use crate::common::zip_of;
use chunklab_parse::docx::DocxParser;
use chunklab_parse::odt::OdtParser;
use chunklab_parse::{ElementKind, Limits, ParseError, ParsedDocument, Parser};
use std::io::Write;
use std::path::Path;

const WORDS: &[&str] = &[
    "de",
    "raad",
    "motie",
    "brief",
    "college",
    "gemeente",
    "besluit",
    "parkeren",
    "vergunning",
    "straat",
    "één",
    "café",
    "Ærø",
    "x",
];

/// Paragraph texts: one to four words, varied (deterministic).
fn paragraph_texts(n: usize) -> Vec<String> {
    let mut state = 19u64;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize
    };
    (0..n)
        .map(|_| {
            let words = 1 + next() % 4;
            (0..words)
                .map(|_| WORDS[next() % WORDS.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn docx_body(paras: &[String]) -> Vec<u8> {
    let mut body =
        br#"<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="w"><w:body>"#.to_vec();
    for p in paras {
        write!(body, "<w:p><w:r><w:t>{p}</w:t></w:r></w:p>").unwrap();
    }
    body.extend_from_slice(b"<w:sectPr/></w:body></w:document>");
    body
}

fn odt_body(paras: &[String]) -> Vec<u8> {
    let mut body = br#"<?xml version="1.0" encoding="UTF-8"?><office:document-content><office:automatic-styles/><office:body><office:text>"#.to_vec();
    for p in paras {
        write!(body, "<text:p>{p}</text:p>").unwrap();
    }
    body.extend_from_slice(b"</office:text></office:body></office:document-content>");
    body
}

const ODT_MIME: &[u8] = b"application/vnd.oasis.opendocument.text";

fn parse(parser: &dyn Parser, bytes: &[u8], limits: &Limits) -> Result<ParsedDocument, ParseError> {
    parser.parse(bytes, Path::new("stream-test"), limits)
}

/// Each paragraph is one element whose span holds exactly its text, blank-line separated.
fn assert_paragraphs(what: &str, doc: &ParsedDocument, paras: &[String]) {
    assert_eq!(doc.elements.len(), paras.len(), "{what}: element count");
    assert_eq!(doc.text, paras.join("\n\n"), "{what}: text");
    for (e, p) in doc.elements.iter().zip(paras) {
        assert_eq!(e.kind, ElementKind::Paragraph, "{what}");
        assert_eq!(&doc.text[e.start..e.end], p, "{what}");
    }
}

#[test]
fn a_few_megabytes_of_tiny_paragraphs_read_the_same_streamed() {
    let paras = paragraph_texts(120_000);
    let docx_xml = docx_body(&paras);
    let odt_xml = odt_body(&paras);
    // Many 64 KiB read buffers' worth of XML.
    assert!(docx_xml.len() > 4 << 20 && odt_xml.len() > 2 << 20);
    let docx = zip_of(&[("word/document.xml", &docx_xml)]);
    let odt = zip_of(&[("mimetype", ODT_MIME), ("content.xml", &odt_xml)]);
    let doc = parse(&DocxParser, &docx, &Limits::default()).unwrap();
    assert_paragraphs("docx", &doc, &paras);
    let doc = parse(&OdtParser, &odt, &Limits::default()).unwrap();
    assert_paragraphs("odt", &doc, &paras);
}

#[test]
fn long_runs_and_references_cross_read_buffers_intact() {
    // A 300 KB run of words with an entity reference and a multi-byte character every few
    // hundred bytes: the references and characters land on every offset of a buffer boundary.
    let mut raw = String::new();
    let mut expected = String::new();
    let mut i = 0;
    while raw.len() < 300_000 {
        let word = WORDS[i % WORDS.len()];
        raw.push_str(word);
        expected.push_str(word);
        let (r, e) = match i % 3 {
            0 => ("&amp;", "&"),
            1 => ("&#233;", "é"),
            _ => (" ", " "),
        };
        raw.push_str(r);
        expected.push_str(e);
        i += 1;
    }
    let expected = expected.trim_end().to_string();
    let paras = vec![raw];
    let docx = zip_of(&[("word/document.xml", &docx_body(&paras))]);
    let odt = zip_of(&[("mimetype", ODT_MIME), ("content.xml", &odt_body(&paras))]);
    for (parser, bytes) in [(&DocxParser as &dyn Parser, &docx), (&OdtParser, &odt)] {
        let doc = parse(parser, bytes, &Limits::default()).unwrap();
        assert_eq!(doc.text, expected, "{}", parser.name());
        assert_eq!(doc.elements.len(), 1, "{}", parser.name());
    }
}

#[test]
fn odt_automatic_styles_come_from_the_head_of_content_xml() {
    // P1 (automatic, in content.xml) is a child of "Heading 1": its paragraph is a heading;
    // P2 names a list style defined there too.
    let content = br#"<office:document-content>
<office:automatic-styles>
  <style:style style:name="P1" style:family="paragraph" style:parent-style-name="Heading_20_1"/>
  <text:list-style style:name="L1">
    <text:list-level-style-number text:level="1" style:num-format="a" style:num-suffix=")"/>
  </text:list-style>
</office:automatic-styles>
<office:body><office:text>
  <text:p text:style-name="P1">Streamed heading</text:p>
  <text:p>Body text.</text:p>
  <text:list text:style-name="L1">
    <text:list-item><text:p>first</text:p></text:list-item>
    <text:list-item><text:p>second</text:p></text:list-item>
  </text:list>
</office:text></office:body></office:document-content>"#;
    let odt = zip_of(&[("mimetype", ODT_MIME), ("content.xml", content)]);
    let doc = parse(&OdtParser, &odt, &Limits::default()).unwrap();
    assert_eq!(
        doc.text,
        "Streamed heading\n\nBody text.\n\na) first\nb) second"
    );
    let kinds: Vec<ElementKind> = doc.elements.iter().map(|e| e.kind).collect();
    assert_eq!(
        kinds,
        [
            ElementKind::Title,
            ElementKind::Paragraph,
            ElementKind::ListItem,
            ElementKind::ListItem
        ]
    );
}

/// The budget covers the decompressed bytes of all parts read, each once: a limit of exactly
/// their sum parses, one byte less is a limit error (ODT's first look at the head of
/// `content.xml` is not charged).
#[test]
fn the_budget_counts_every_part_once() {
    let paras = paragraph_texts(5_000);
    let docx_xml = docx_body(&paras);
    let styles = br#"<w:styles xmlns:w="w"><w:style w:type="paragraph" w:styleId="Normal"><w:name w:val="Normal"/></w:style></w:styles>"#;
    let docx = zip_of(&[
        ("word/document.xml", &docx_xml),
        ("word/styles.xml", styles),
    ]);
    let docx_total = (docx_xml.len() + styles.len()) as u64;

    let odt_xml = odt_body(&paras);
    let odt_styles = br#"<office:document-styles><office:styles/></office:document-styles>"#;
    let odt = zip_of(&[
        ("mimetype", ODT_MIME),
        ("styles.xml", odt_styles),
        ("content.xml", &odt_xml),
    ]);
    let odt_total = (ODT_MIME.len() + odt_styles.len() + odt_xml.len()) as u64;

    for (parser, bytes, total) in [
        (&DocxParser as &dyn Parser, &docx, docx_total),
        (&OdtParser, &odt, odt_total),
    ] {
        let name = parser.name();
        let exact = Limits {
            max_decompressed_bytes: total,
            ..Limits::default()
        };
        let doc = parse(parser, bytes, &exact).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_paragraphs(name, &doc, &paras);
        let short = Limits {
            max_decompressed_bytes: total - 1,
            ..Limits::default()
        };
        let e = parse(parser, bytes, &short).unwrap_err();
        assert!(
            matches!(e, ParseError::Limit { limit, .. } if limit == total - 1),
            "{name}: {e}"
        );
        assert!(e.to_string().contains("decompressed size"), "{name}: {e}");
    }
}

/// A main part whose deflated data is damaged mid-way is an error naming the part (a corrupt
/// part or malformed XML), never a panic and never a silently shortened document.
#[test]
fn a_damaged_main_part_is_an_error() {
    let paras = paragraph_texts(20_000);
    for (parser, part, xml) in [
        (
            &DocxParser as &dyn Parser,
            "word/document.xml",
            docx_body(&paras),
        ),
        (&OdtParser, "content.xml", odt_body(&paras)),
    ] {
        let bytes = zip_of(&[(part, &xml)]);
        let name = parser.name();
        // The part's data starts after its local header (30 bytes + name); damage its middle.
        let data_start = 30 + part.len();
        let data_end = bytes
            .windows(4)
            .rposition(|w| w == b"PK\x01\x02")
            .expect("central directory");
        let mut failures = 0;
        for k in 1..8 {
            let mut damaged = bytes.clone();
            let at = data_start + (data_end - data_start) * k / 8;
            damaged[at] ^= 0x5a;
            damaged[at + 1] ^= 0xa5;
            match parse(parser, &damaged, &Limits::default()) {
                Err(ParseError::Invalid { message, .. }) => {
                    assert!(message.contains(part), "{name}: {message}");
                    failures += 1;
                }
                Err(e) => panic!("{name}: unexpected error {e}"),
                Ok(doc) => panic!(
                    "{name}: damage at byte {at} went unnoticed ({} elements)",
                    doc.elements.len()
                ),
            }
        }
        assert_eq!(failures, 7, "{name}");
    }
}
