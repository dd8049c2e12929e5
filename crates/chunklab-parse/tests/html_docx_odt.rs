//! The HTML, DOCX and ODT parsers on the real documents of `shared/datasets/documents` and on
//! hostile input: structure facts, span invariants, and errors instead of panics.

use crate::common::zip_of;
use chunklab_parse::docx::DocxParser;
use chunklab_parse::html::HtmlParser;
use chunklab_parse::odt::OdtParser;
use chunklab_parse::{ElementKind, Limits, ParseError, ParsedDocument, Parser};
use chunklab_test_support::shared_dir;
use std::path::{Path, PathBuf};

fn document(rel: &str) -> (PathBuf, Vec<u8>) {
    let path = shared_dir().join("datasets/documents").join(rel);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    (path, bytes)
}

fn parser_for(rel: &str) -> &'static dyn Parser {
    match rel.rsplit('.').next() {
        Some("html") => &HtmlParser,
        Some("docx") => &DocxParser,
        Some("odt") => &OdtParser,
        other => panic!("no parser for {other:?}"),
    }
}

fn parse(rel: &str) -> ParsedDocument {
    let (path, bytes) = document(rel);
    let doc = parser_for(rel)
        .parse(&bytes, &path, &Limits::default())
        .unwrap_or_else(|e| panic!("{rel}: {e}"));
    check_invariants(rel, &doc);
    doc
}

/// Spans on char boundaries inside the text, sorted, rows inside their table, and every
/// non-white-space character covered by some element.
fn check_invariants(what: &str, doc: &ParsedDocument) {
    let text = &doc.text;
    let mut covered = vec![false; text.len()];
    let mut prev = (0, usize::MAX);
    let mut table: Option<(usize, usize)> = None;
    for e in &doc.elements {
        assert!(
            e.start <= e.end && e.end <= text.len(),
            "{what}: span {e:?}"
        );
        assert!(
            text.is_char_boundary(e.start) && text.is_char_boundary(e.end),
            "{what}: {e:?} not on char boundaries"
        );
        assert!(
            (e.start, std::cmp::Reverse(e.end)) >= (prev.0, std::cmp::Reverse(prev.1)),
            "{what}: elements not sorted at {e:?}"
        );
        prev = (e.start, e.end);
        match e.kind {
            ElementKind::Table => table = Some((e.start, e.end)),
            ElementKind::TableRow { .. } => {
                let (ts, te) = table.expect("a row follows its table");
                assert!(
                    ts <= e.start && e.end <= te,
                    "{what}: row {e:?} outside its table"
                );
            }
            _ => {}
        }
        if let Some((first, last)) = e.lines {
            assert!(1 <= first && first <= last, "{what}: lines {e:?}");
        }
        covered[e.start..e.end].iter_mut().for_each(|c| *c = true);
    }
    for (i, c) in text.char_indices() {
        assert!(
            c.is_whitespace() || covered[i],
            "{what}: {c:?} at byte {i} is in no element: {:?}",
            text[i..].chars().take(40).collect::<String>()
        );
    }
}

fn span<'a>(doc: &'a ParsedDocument, e: &chunklab_parse::Element) -> &'a str {
    &doc.text[e.start..e.end]
}

/// (level, text) of the title (level 0) and headings.
fn headings(doc: &ParsedDocument) -> Vec<(u8, String)> {
    doc.elements
        .iter()
        .filter_map(|e| Some((e.kind.heading_level()?, span(doc, e).to_string())))
        .collect()
}

fn of_kind(doc: &ParsedDocument, pred: impl Fn(&ElementKind) -> bool) -> Vec<&str> {
    doc.elements
        .iter()
        .filter(|e| pred(&e.kind))
        .map(|e| span(doc, e))
        .collect()
}

const RAADSBESLUIT: [&str; 3] = [
    "html/raadsbesluit.html",
    "docx/raadsbesluit.docx",
    "odt/raadsbesluit.odt",
];

#[test]
fn raadsbesluit_structure_in_all_three_formats() {
    let mut all_headings = Vec::new();
    for rel in RAADSBESLUIT {
        let doc = parse(rel);
        let h = headings(&doc);
        let expected: Vec<(u8, String)> = [
            (0, "Raadsbesluit 2020-117: Kader voor windenergie op land"),
            (2, "1. Aanleiding"),
            (2, "2. Beslispunten"),
            (2, "3. Motivering"),
            (3, "3.1 Ruimtelijke afweging"),
            (3, "3.2 Financiële gevolgen"),
            (2, "4. Stemverhouding"),
            (2, "5. Ondertekening"),
        ]
        .iter()
        .map(|(l, t)| (*l, t.to_string()))
        .collect();
        assert_eq!(h, expected, "{rel}");
        assert_eq!(doc.elements[0].kind, ElementKind::Title, "{rel}");
        assert_eq!(
            doc.metadata.get("title").map(String::as_str),
            Some("Raadsbesluit windenergie Voorbeeldstad 2020"),
            "{rel}"
        );

        // The table: a header row and four data rows, cells in order.
        let tables = of_kind(&doc, |k| *k == ElementKind::Table);
        assert_eq!(tables.len(), 1, "{rel}");
        let rows: Vec<(bool, &str)> = doc
            .elements
            .iter()
            .filter_map(|e| match e.kind {
                ElementKind::TableRow { header } => Some((header, span(&doc, e))),
                _ => None,
            })
            .collect();
        assert_eq!(
            rows,
            [
                (true, "Jaar | Zoekgebied | Turbines | Opbrengst (euro)"),
                (false, "2022 | Noord | 2 | 84.000"),
                (false, "2023 | Noord | 4 | 168.000"),
                (false, "2024 | Haven | 3 | 126.000"),
                (false, "2025 | Haven | 5 | 210.000"),
            ],
            "{rel}"
        );

        // The numbered list, with its numbers.
        let items = of_kind(&doc, |k| *k == ElementKind::ListItem);
        assert_eq!(items.len(), 4, "{rel}: {items:?}");
        assert_eq!(
            items[0], "1. Het kader \"Wind op land 2020\" vast te stellen.",
            "{rel}"
        );
        assert!(
            items[3].starts_with("4. Ten minste 50% lokaal eigendom"),
            "{rel}"
        );
        assert!(doc
            .text
            .contains("1. Het kader \"Wind op land 2020\" vast te stellen.\n2. Windturbines"));

        let paragraphs = of_kind(&doc, |k| *k == ElementKind::Paragraph);
        assert_eq!(paragraphs.len(), 7, "{rel}: {paragraphs:?}");
        assert!(
            paragraphs[6].ends_with("De voorzitter, drs. P. Jansen."),
            "{rel}"
        );
        all_headings.push(h);
    }
    assert_eq!(all_headings[0], all_headings[1]);
    assert_eq!(all_headings[0], all_headings[2]);
}

#[test]
fn raadsbesluit_html_keeps_source_lines() {
    let doc = parse("html/raadsbesluit.html");
    let line_of = |needle: &str| {
        doc.elements
            .iter()
            .find(|e| e.kind != ElementKind::Table && span(&doc, e).starts_with(needle))
            .and_then(|e| e.lines)
    };
    assert_eq!(line_of("Raadsbesluit 2020-117"), Some((4, 4)));
    assert_eq!(line_of("3.2 Financiële gevolgen"), Some((19, 19)));
    assert_eq!(line_of("Jaar | Zoekgebied"), Some((22, 22)));
    let table = doc
        .elements
        .iter()
        .find(|e| e.kind == ElementKind::Table)
        .unwrap();
    assert_eq!(table.lines, Some((21, 27)));
}

#[test]
fn pg_create_table_html() {
    let doc = parse("html/pg-sql-createtable.html");
    assert_eq!(
        doc.metadata.get("title").map(String::as_str),
        Some("CREATE TABLE")
    );
    let h = headings(&doc);
    let texts: Vec<&str> = h.iter().map(|(_, t)| t.as_str()).collect();
    for expected in [
        "CREATE TABLE",
        "Synopsis",
        "Description",
        "Parameters",
        "Notes",
        "Examples",
        "Compatibility",
        "See Also",
    ] {
        assert!(
            texts.contains(&expected),
            "missing heading {expected:?} in {texts:?}"
        );
    }
    // Navigation bars (DocBook navheader/navfooter) are gone.
    assert!(!doc.text.contains("Prev"), "navigation kept");
    let code = of_kind(&doc, |k| *k == ElementKind::Code);
    assert!(code.len() >= 20, "{} code blocks", code.len());
    assert!(
        code[0].starts_with("CREATE [ [ GLOBAL | LOCAL ] { TEMPORARY | TEMP } | UNLOGGED ] TABLE")
    );
    assert!(
        code.iter().any(|c| c.contains(
            "CREATE TABLE films (\n    code        char(5) CONSTRAINT firstkey PRIMARY KEY,"
        )),
        "{code:?}"
    );
}

#[test]
fn pg_runtime_config_html() {
    let doc = parse("html/pg-runtime-config-connection.html");
    let h = headings(&doc);
    assert_eq!(
        h[0],
        (2, "20.3. Connections and Authentication".to_string())
    );
    assert_eq!(h[1], (3, "20.3.1. Connection Settings".to_string()));
    assert!(h.contains(&(3, "20.3.3. SSL".to_string())), "{h:?}");
    // The generated table of contents is navigation: each section title appears once.
    assert_eq!(doc.text.matches("20.3.3. SSL").count(), 1);
    let terms = of_kind(&doc, |k| *k == ElementKind::Paragraph);
    assert!(
        terms.contains(&"listen_addresses (string)"),
        "{:?}",
        &terms[..5]
    );
}

#[test]
fn pg_create_table_docx_and_odt() {
    for rel in ["docx/pg-sql-createtable.docx", "odt/pg-sql-createtable.odt"] {
        let doc = parse(rel);
        let h = headings(&doc);
        let texts: Vec<&str> = h.iter().map(|(_, t)| t.as_str()).collect();
        for expected in [
            "CREATE TABLE",
            "Synopsis",
            "Description",
            "Parameters",
            "Examples",
            "Compatibility",
        ] {
            assert!(
                texts.contains(&expected),
                "{rel}: missing heading {expected:?} in {texts:?}"
            );
        }
        let code = of_kind(&doc, |k| *k == ElementKind::Code);
        assert!(code.len() >= 15, "{rel}: {} code blocks", code.len());
        assert!(
            code.iter().any(|c| c.contains(
                "CREATE TABLE films (\n    code        char(5) CONSTRAINT firstkey PRIMARY KEY,"
            )),
            "{rel}: {code:?}"
        );
    }
}

fn expect_error(parser: &dyn Parser, bytes: &[u8], limits: &Limits) -> ParseError {
    match parser.parse(bytes, Path::new("bad"), limits) {
        Ok(doc) => panic!(
            "{}: parsed bad input: {:?}",
            parser.name(),
            &doc.text[..doc.text.len().min(100)]
        ),
        Err(e) => e,
    }
}

#[test]
fn truncated_empty_and_random_containers_are_errors() {
    for rel in [
        "docx/raadsbesluit.docx",
        "odt/raadsbesluit.odt",
        "docx/pg-sql-createtable.docx",
        "odt/pg-sql-createtable.odt",
    ] {
        let (_, bytes) = document(rel);
        let parser = parser_for(rel);
        let e = expect_error(parser, &bytes[..bytes.len() / 2], &Limits::default());
        assert!(matches!(e, ParseError::Invalid { .. }), "{rel}: {e}");
        assert!(e.to_string().contains("zip"), "{rel}: {e}");
        // Every shorter prefix fails cleanly too.
        for cut in (0..bytes.len()).step_by(bytes.len() / 37 + 1) {
            let _ = parser.parse(&bytes[..cut], Path::new(rel), &Limits::default());
        }
    }
    let mut random = Vec::with_capacity(64 << 10);
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for _ in 0..(64 << 10) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        random.push(x as u8);
    }
    for parser in [&DocxParser as &dyn Parser, &OdtParser] {
        assert!(matches!(
            expect_error(parser, b"", &Limits::default()),
            ParseError::Invalid { .. }
        ));
        assert!(matches!(
            expect_error(parser, &random, &Limits::default()),
            ParseError::Invalid { .. }
        ));
        let mut pk = b"PK\x03\x04".to_vec();
        pk.extend_from_slice(&random);
        assert!(matches!(
            expect_error(parser, &pk, &Limits::default()),
            ParseError::Invalid { .. }
        ));
    }
    // HTML takes any bytes: random bytes give some text, never a panic.
    let doc = HtmlParser
        .parse(&random, Path::new("r.html"), &Limits::default())
        .unwrap();
    check_invariants("random html", &doc);
    assert!(!doc.warnings.is_empty(), "invalid UTF-8 is reported");
    let doc = HtmlParser
        .parse(b"", Path::new("e.html"), &Limits::default())
        .unwrap();
    assert!(doc.text.is_empty() && doc.elements.is_empty());
}

/// Issue 19 item 5: a small container of many tiny paragraphs must not turn into gigabytes of
/// elements; past `max_elements` it is a clear limit error, below it parses.
#[test]
fn many_tiny_paragraphs_stop_at_the_element_limit() {
    let paras = 50_000;
    let mut docx_body = b"<w:document xmlns:w=\"w\"><w:body>".to_vec();
    let mut odt_body = b"<office:document-content><office:body><office:text>".to_vec();
    for _ in 0..paras {
        docx_body.extend_from_slice(b"<w:p><w:r><w:t>a</w:t></w:r></w:p>");
        odt_body.extend_from_slice(b"<text:p>a</text:p>");
    }
    docx_body.extend_from_slice(b"</w:body></w:document>");
    odt_body.extend_from_slice(b"</office:text></office:body></office:document-content>");
    let docx = zip_of(&[("word/document.xml", &docx_body)]);
    let odt = zip_of(&[
        ("mimetype", b"application/vnd.oasis.opendocument.text"),
        ("content.xml", &odt_body),
    ]);
    let few = Limits {
        max_elements: 10_000,
        ..Limits::default()
    };
    for (parser, bytes) in [(&DocxParser as &dyn Parser, &docx), (&OdtParser, &odt)] {
        let e = expect_error(parser, bytes, &few);
        assert!(
            matches!(e, ParseError::Limit { limit: 10_000, .. }),
            "{}: {e}",
            parser.name()
        );
        assert!(e.to_string().contains("elements"), "{e}");
        let doc = parser
            .parse(bytes, Path::new("many"), &Limits::default())
            .unwrap();
        assert_eq!(doc.elements.len(), paras, "{}", parser.name());
    }
}

#[test]
fn zip_bombs_stop_at_the_limits() {
    // One megabyte of one paragraph's text, deflated to a few kilobytes.
    let mut body = b"<w:document xmlns:w=\"w\"><w:body><w:p><w:r><w:t>".to_vec();
    body.extend(std::iter::repeat_n(b'a', 1 << 20));
    body.extend_from_slice(b"</w:t></w:r></w:p></w:body></w:document>");
    let docx = zip_of(&[("word/document.xml", &body)]);
    let mut odt_body = b"<office:document-content><office:body><office:text><text:p>".to_vec();
    odt_body.extend(std::iter::repeat_n(b'a', 1 << 20));
    odt_body.extend_from_slice(b"</text:p></office:text></office:body></office:document-content>");
    let odt = zip_of(&[
        ("mimetype", b"application/vnd.oasis.opendocument.text"),
        ("content.xml", &odt_body),
    ]);
    assert!(docx.len() < 10_000 && odt.len() < 10_000);
    let tight = Limits {
        max_decompressed_bytes: 64 << 10,
        ..Limits::default()
    };
    for (parser, bytes) in [(&DocxParser as &dyn Parser, &docx), (&OdtParser, &odt)] {
        let e = expect_error(parser, bytes, &tight);
        assert!(matches!(e, ParseError::Limit { .. }), "{e}");
        // Within the default limits the same file parses: one 1 MB paragraph.
        let doc = parser
            .parse(bytes, Path::new("big"), &Limits::default())
            .unwrap();
        assert_eq!(doc.text.len(), 1 << 20);
        assert_eq!(doc.elements.len(), 1);
    }
    // Too many entries.
    let names: Vec<String> = (0..50).map(|i| format!("junk/{i}")).collect();
    let entries: Vec<(&str, &[u8])> = names.iter().map(|n| (n.as_str(), &b"x"[..])).collect();
    let many = zip_of(&entries);
    let few = Limits {
        max_zip_entries: 20,
        ..Limits::default()
    };
    for parser in [&DocxParser as &dyn Parser, &OdtParser] {
        assert!(matches!(
            expect_error(parser, &many, &few),
            ParseError::Limit { .. }
        ));
    }
}

#[test]
fn missing_parts_and_encryption_are_reported() {
    let no_document = zip_of(&[("word/styles.xml", b"<w:styles/>")]);
    let e = expect_error(&DocxParser, &no_document, &Limits::default());
    assert!(e.to_string().contains("word/document.xml"), "{e}");
    let no_content = zip_of(&[("mimetype", b"application/vnd.oasis.opendocument.text")]);
    let e = expect_error(&OdtParser, &no_content, &Limits::default());
    assert!(e.to_string().contains("content.xml"), "{e}");

    let manifest = br#"<manifest:manifest><manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data manifest:checksum-type="SHA1"/></manifest:file-entry></manifest:manifest>"#;
    let encrypted_odt = zip_of(&[
        ("META-INF/manifest.xml", manifest),
        ("content.xml", b"\x01\x02garbage"),
    ]);
    assert!(matches!(
        expect_error(&OdtParser, &encrypted_odt, &Limits::default()),
        ParseError::Encrypted { .. }
    ));

    // A password-protected DOCX is an OLE compound file holding an "EncryptedPackage" stream.
    let mut ole = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    ole.resize(512, 0);
    ole.extend(
        "EncryptedPackage"
            .encode_utf16()
            .flat_map(|u| u.to_le_bytes()),
    );
    assert!(matches!(
        expect_error(&DocxParser, &ole, &Limits::default()),
        ParseError::Encrypted { .. }
    ));
    ole.truncate(512);
    let e = expect_error(&DocxParser, &ole, &Limits::default());
    assert!(e.to_string().contains(".doc"), "{e}");

    let broken_xml = zip_of(&[(
        "word/document.xml",
        b"<w:document><w:body><w:p></w:x></w:body>",
    )]);
    let e = expect_error(&DocxParser, &broken_xml, &Limits::default());
    assert!(e.to_string().contains("malformed XML"), "{e}");
}

/// A tiny deterministic generator for the mutation tests.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Mutates one byte range of `bytes`: flips bytes, cuts, or duplicates a slice.
fn mutate(rng: &mut XorShift, bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    if out.is_empty() {
        return out;
    }
    match rng.below(3) {
        0 => {
            for _ in 0..1 + rng.below(8) {
                let i = rng.below(out.len());
                out[i] = rng.next() as u8;
            }
        }
        1 => out.truncate(rng.below(out.len())),
        _ => {
            let a = rng.below(out.len());
            let b = (a + rng.below(200)).min(out.len());
            let slice = out[a..b].to_vec();
            let at = rng.below(out.len());
            out.splice(at..at, slice);
        }
    }
    out
}

#[test]
fn mutated_office_xml_never_panics() {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    for (rel, main) in [
        ("docx/raadsbesluit.docx", "word/document.xml"),
        ("odt/raadsbesluit.odt", "content.xml"),
    ] {
        let (_, bytes) = document(rel);
        let mut archive = zip::ZipArchive::new(std::io::Cursor::new(&bytes[..])).unwrap();
        let mut entries: Vec<(String, Vec<u8>)> = Vec::new();
        for i in 0..archive.len() {
            let mut f = archive.by_index(i).unwrap();
            let mut content = Vec::new();
            std::io::Read::read_to_end(&mut f, &mut content).unwrap();
            entries.push((f.name().to_string(), content));
        }
        let parser = parser_for(rel);
        let (mut ok, mut err) = (0, 0);
        for round in 0..150 {
            // Mutate the main part, or (every third round) the styles/numbering/meta parts.
            let target = if round % 3 == 0 {
                rng.below(entries.len())
            } else {
                entries.iter().position(|(n, _)| n == main).unwrap()
            };
            let mutated: Vec<(&str, Vec<u8>)> = entries
                .iter()
                .enumerate()
                .map(|(i, (n, c))| {
                    (
                        n.as_str(),
                        if i == target {
                            mutate(&mut rng, c)
                        } else {
                            c.clone()
                        },
                    )
                })
                .collect();
            let refs: Vec<(&str, &[u8])> =
                mutated.iter().map(|(n, c)| (*n, c.as_slice())).collect();
            match parser.parse(&zip_of(&refs), Path::new(rel), &Limits::default()) {
                Ok(doc) => {
                    check_invariants(rel, &doc);
                    ok += 1;
                }
                Err(_) => err += 1,
            }
        }
        assert!(ok > 0 && err > 0, "{rel}: {ok} parsed, {err} errors");
    }
}

#[test]
fn mutated_html_never_panics() {
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    for rel in ["html/raadsbesluit.html", "html/pg-sql-createtable.html"] {
        let (_, bytes) = document(rel);
        for _ in 0..60 {
            let doc = HtmlParser
                .parse(
                    &mutate(&mut rng, &bytes),
                    Path::new(rel),
                    &Limits::default(),
                )
                .unwrap();
            check_invariants(rel, &doc);
        }
    }
}

#[test]
fn hostile_html() {
    // 10,000 nested divs: no stack overflow, all text kept, a warning about the depth.
    let mut deep = String::new();
    for i in 0..10_000 {
        deep.push_str(&format!("<div>d{i} "));
    }
    for _ in 0..10_000 {
        deep.push_str("</div>");
    }
    deep.push_str("<p>after</p>");
    let doc = HtmlParser
        .parse(deep.as_bytes(), Path::new("deep.html"), &Limits::default())
        .unwrap();
    check_invariants("deep", &doc);
    assert!(doc.text.contains("d0") && doc.text.contains("d9999") && doc.text.ends_with("after"));
    assert_eq!(doc.text.matches('d').count(), 10_000);
    assert!(
        doc.warnings.iter().any(|w| w.contains("nested deeper")),
        "{:?}",
        doc.warnings
    );

    // Unclosed inline tags, 10,000 deep.
    let spans = "<span><b>x ".repeat(10_000);
    let doc = HtmlParser
        .parse(
            spans.as_bytes(),
            Path::new("spans.html"),
            &Limits::default(),
        )
        .unwrap();
    check_invariants("spans", &doc);
    assert_eq!(doc.text.matches('x').count(), 10_000);

    // A 1 MB single line of text.
    let line = format!(
        "<html><body><p>{}</p></body></html>",
        "word ".repeat(200_000)
    );
    let doc = HtmlParser
        .parse(line.as_bytes(), Path::new("line.html"), &Limits::default())
        .unwrap();
    check_invariants("line", &doc);
    assert_eq!(doc.elements.len(), 1);
    assert_eq!(doc.elements[0].lines, Some((1, 1)));
    assert_eq!(doc.text.len(), 200_000 * 5 - 1);

    // Malformed fragments.
    for src in [
        "<",
        "<<<>>>",
        "<table><td>a<tr>b",
        "</p></p><li>",
        "<!--",
        "<pre>",
        "<a href='x",
        "&#xFFFFFFFF; &bogus; &amp",
        "<ol start=-5><li>x</ol>",
        "<table><table><td>a</td></table>b",
        "\u{feff}<h1>\u{0}</h1>",
    ] {
        let doc = HtmlParser
            .parse(src.as_bytes(), Path::new("f.html"), &Limits::default())
            .unwrap();
        check_invariants(src, &doc);
    }
}

/// Parse throughput in release builds: `cargo test --release -p chunklab-parse --test
/// integration -- --ignored --nocapture html_docx_odt::throughput`.
#[test]
#[ignore]
fn throughput() {
    let files = [
        "html/raadsbesluit.html",
        "html/pg-sql-createtable.html",
        "html/pg-runtime-config-connection.html",
        "docx/raadsbesluit.docx",
        "docx/pg-sql-createtable.docx",
        "odt/raadsbesluit.odt",
        "odt/pg-sql-createtable.odt",
    ];
    for rel in files {
        let (path, bytes) = document(rel);
        let parser = parser_for(rel);
        let runs = (20_000_000 / bytes.len()).clamp(20, 5_000);
        let t = std::time::Instant::now();
        let mut text_bytes = 0;
        for _ in 0..runs {
            let doc = parser.parse(&bytes, &path, &Limits::default()).unwrap();
            text_bytes = doc.text.len();
        }
        let secs = t.elapsed().as_secs_f64() / runs as f64;
        println!(
            "{rel:42} {:>7} B file, {:>7} B text: {:7.1} µs/parse, {:7.1} MB/s of file",
            bytes.len(),
            text_bytes,
            secs * 1e6,
            bytes.len() as f64 / secs / 1e6
        );
    }
}

fn texts_by_kind(doc: &ParsedDocument) -> Vec<(String, &str)> {
    doc.elements
        .iter()
        .map(|e| {
            let kind = match e.kind {
                ElementKind::Heading { level } => format!("h{level}"),
                ElementKind::TableRow { header: true } => "header_row".into(),
                k => k.name().into(),
            };
            (kind, span(doc, e))
        })
        .collect()
}

#[test]
fn docx_styles_numbering_and_revisions() {
    let styles = br#"<w:styles>
      <w:style w:type="paragraph" w:default="1" w:styleId="Standaard"><w:name w:val="Normal"/></w:style>
      <w:style w:type="paragraph" w:styleId="Titel"><w:name w:val="Title"/></w:style>
      <w:style w:type="paragraph" w:styleId="Kop1"><w:name w:val="Kop 1"/></w:style>
      <w:style w:type="paragraph" w:styleId="Eigen"><w:name w:val="Mijn kopje"/><w:basedOn w:val="Standaard"/><w:pPr><w:outlineLvl w:val="1"/></w:pPr></w:style>
      <w:style w:type="paragraph" w:styleId="Lijst"><w:name w:val="List Number"/><w:pPr><w:numPr><w:numId w:val="5"/></w:numPr></w:pPr></w:style>
      <w:style w:type="paragraph" w:styleId="Bijschrift"><w:name w:val="caption"/></w:style>
      <w:style w:type="paragraph" w:styleId="Code"><w:name w:val="HTML Preformatted"/></w:style>
    </w:styles>"#;
    let numbering = br#"<w:numbering>
      <w:abstractNum w:abstractNumId="0">
        <w:lvl w:ilvl="0"><w:start w:val="1"/><w:numFmt w:val="decimal"/><w:lvlText w:val="%1."/></w:lvl>
        <w:lvl w:ilvl="1"><w:start w:val="1"/><w:numFmt w:val="lowerLetter"/><w:lvlText w:val="%1.%2)"/></w:lvl>
      </w:abstractNum>
      <w:abstractNum w:abstractNumId="1"><w:lvl w:ilvl="0"><w:numFmt w:val="bullet"/><w:lvlText w:val="&#61623;"/></w:lvl></w:abstractNum>
      <w:num w:numId="5"><w:abstractNumId w:val="0"/></w:num>
      <w:num w:numId="6"><w:abstractNumId w:val="1"/></w:num>
    </w:numbering>"#;
    let body = br#"<w:document><w:body>
      <w:p><w:pPr><w:pStyle w:val="Titel"/></w:pPr><w:r><w:t>Verordening</w:t></w:r></w:p>
      <w:p><w:pPr><w:pStyle w:val="Kop1"/><w:numPr><w:ilvl w:val="0"/><w:numId w:val="5"/></w:numPr></w:pPr><w:r><w:t>Hoofdstuk</w:t></w:r><w:r><w:br/><w:t>een</w:t></w:r></w:p>
      <w:p><w:pPr><w:pStyle w:val="Eigen"/></w:pPr><w:r><w:t>Artikel 1</w:t></w:r></w:p>
      <w:p><w:r><w:t xml:space="preserve">Tekst </w:t></w:r><w:del><w:r><w:delText>weg</w:delText></w:r></w:del><w:ins><w:r><w:t>erbij</w:t></w:r></w:ins>
        <w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t xml:space="preserve"> 7</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r>
        <w:r><w:drawing><wps:txbx><w:txbxContent><w:p><w:r><w:t>In een tekstvak</w:t></w:r></w:p></w:txbxContent></wps:txbx></w:drawing></w:r>
        <w:r><mc:AlternateContent><mc:Choice><w:t>x</w:t></mc:Choice><mc:Fallback><w:t>dubbel</w:t></mc:Fallback></mc:AlternateContent></w:r></w:p>
      <w:p><w:pPr><w:pStyle w:val="Lijst"/></w:pPr><w:r><w:t>eerste</w:t></w:r></w:p>
      <w:p><w:pPr><w:pStyle w:val="Lijst"/><w:numPr><w:ilvl w:val="1"/></w:numPr></w:pPr><w:r><w:t>sub</w:t></w:r></w:p>
      <w:p><w:pPr><w:pStyle w:val="Lijst"/></w:pPr><w:r><w:t>tweede</w:t></w:r></w:p>
      <w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="6"/></w:numPr></w:pPr><w:r><w:t>bol</w:t></w:r></w:p>
      <w:tbl><w:tr><w:trPr><w:tblHeader/></w:trPr><w:tc><w:p><w:r><w:t>A</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>B</w:t></w:r></w:p><w:p><w:r><w:t>C</w:t></w:r></w:p></w:tc></w:tr>
        <w:tr><w:tc><w:p><w:r><w:t>1</w:t></w:r></w:p></w:tc><w:tc><w:tbl><w:tr><w:tc><w:p><w:r><w:t>in</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc></w:tr>
        <w:tr><w:tc><w:p><w:r><w:t>2</w:t></w:r></w:p></w:tc><w:tc/></w:tr></w:tbl>
      <w:p><w:pPr><w:pStyle w:val="Bijschrift"/></w:pPr><w:r><w:t>Tabel 1</w:t></w:r></w:p>
      <w:p><w:pPr><w:pStyle w:val="Code"/></w:pPr><w:r><w:t>fn main() {</w:t></w:r></w:p>
      <w:p><w:pPr><w:pStyle w:val="Code"/></w:pPr></w:p>
      <w:p><w:pPr><w:pStyle w:val="Code"/></w:pPr><w:r><w:tab/><w:t>run();</w:t></w:r></w:p>
      <w:p><w:pPr><w:pStyle w:val="Code"/></w:pPr><w:r><w:t>}</w:t></w:r></w:p>
      <w:sectPr><w:headerReference/></w:sectPr>
    </w:body></w:document>"#;
    let core = br#"<cp:coreProperties><dc:title>Parkeren</dc:title><dc:creator>Gemeente</dc:creator><dc:subject></dc:subject></cp:coreProperties>"#;
    let bytes = zip_of(&[
        ("word/document.xml", body),
        ("word/styles.xml", styles),
        ("word/numbering.xml", numbering),
        ("docProps/core.xml", core),
    ]);
    let doc = DocxParser
        .parse(&bytes, Path::new("t.docx"), &Limits::default())
        .unwrap();
    check_invariants("synthetic docx", &doc);
    let got = texts_by_kind(&doc);
    let want: Vec<(String, &str)> = [
        ("title", "Verordening"),
        ("h1", "Hoofdstuk een"),
        ("h2", "Artikel 1"),
        ("paragraph", "Tekst erbij 7x"),
        ("paragraph", "In een tekstvak"),
        ("list_item", "1. eerste"),
        ("list_item", "1.a) sub"),
        ("list_item", "2. tweede"),
        ("list_item", "- bol"),
        ("table", "A | B C\n1 | in\n2 | "),
        ("header_row", "A | B C"),
        ("table_row", "1 | in"),
        ("table_row", "2 | "),
        ("caption", "Tabel 1"),
        ("code", "fn main() {\n\n\trun();\n}"),
    ]
    .iter()
    .map(|(k, t)| (k.to_string(), *t))
    .collect();
    assert_eq!(got, want);
    assert!(
        doc.text.contains("1. eerste\n  1.a) sub\n2. tweede\n- bol"),
        "{}",
        doc.text
    );
    assert_eq!(
        doc.metadata.get("title").map(String::as_str),
        Some("Parkeren")
    );
    assert_eq!(
        doc.metadata.get("author").map(String::as_str),
        Some("Gemeente")
    );
    assert!(!doc.metadata.contains_key("subject"));
}

#[test]
fn odt_styles_lists_notes_and_tables() {
    let styles = br#"<office:document-styles><office:styles>
      <style:style style:name="Heading" style:family="paragraph"/>
      <style:style style:name="Kop_20_1" style:display-name="Kop 1" style:family="paragraph" style:parent-style-name="Heading"/>
      <style:style style:name="Title" style:family="paragraph" style:parent-style-name="Heading"/>
      <style:style style:name="Preformatted_20_Text" style:display-name="Preformatted Text" style:family="paragraph"/>
      <style:style style:name="Caption" style:family="paragraph"/>
      <style:style style:name="Table" style:family="paragraph" style:parent-style-name="Caption"/>
      <text:list-style style:name="Bullets"><text:list-level-style-bullet text:level="1" text:bullet-char="&#8226;"/></text:list-style>
    </office:styles></office:document-styles>"#;
    let content = br#"<office:document-content><office:automatic-styles>
      <style:style style:name="P1" style:family="paragraph" style:parent-style-name="Kop_20_1"/>
      <style:style style:name="P2" style:family="paragraph" style:parent-style-name="Preformatted_20_Text"/>
      <text:list-style style:name="L1">
        <text:list-level-style-number text:level="1" style:num-suffix="." style:num-format="1"/>
        <text:list-level-style-number text:level="2" style:num-suffix=")" style:num-format="a" text:display-levels="2"/>
      </text:list-style>
    </office:automatic-styles><office:body><office:text>
      <text:sequence-decls><text:sequence-decl text:name="Table"/></text:sequence-decls>
      <text:p text:style-name="Title">Handboek</text:p>
      <text:table-of-content><text:index-body><text:p>Inleiding 1</text:p></text:index-body></text:table-of-content>
      <text:p text:style-name="P1">Inleiding</text:p>
      <text:h text:outline-level="2"><text:number>1.1</text:number>Doel</text:h>
      <text:p>Een<text:s text:c="3"/>zin<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>Voetnoot.</text:p></text:note-body></text:note> met
         regels.<text:tracked-changes/><office:annotation><text:p>commentaar</text:p></office:annotation></text:p>
      <text:list text:style-name="L1">
        <text:list-item><text:p>een</text:p>
          <text:list><text:list-item><text:p>sub</text:p></text:list-item></text:list></text:list-item>
        <text:list-item><text:p>twee</text:p><text:p>vervolg</text:p></text:list-item>
      </text:list>
      <text:list text:style-name="Bullets"><text:list-item><text:p>bol</text:p></text:list-item></text:list>
      <text:list text:style-name="L1" text:continue-numbering="true"><text:list-item><text:p>drie</text:p></text:list-item></text:list>
      <table:table><table:table-header-rows><table:table-row><table:table-cell><text:p>K</text:p></table:table-cell><table:table-cell table:number-columns-repeated="2"><text:p>L</text:p></table:table-cell></table:table-row></table:table-header-rows>
        <table:table-row><table:table-cell><text:p>1</text:p></table:table-cell><table:covered-table-cell/><table:table-cell table:number-columns-repeated="1000"/></table:table-row></table:table>
      <text:p text:style-name="Table">Tabel 1: maten</text:p>
      <text:p text:style-name="P2">SELECT 1;</text:p><text:p text:style-name="P2"><text:s text:c="2"/>FROM x;</text:p>
    </office:text></office:body></office:document-content>"#;
    let meta = br#"<office:document-meta><office:meta><dc:title>Het handboek</dc:title><meta:initial-creator>Jan</meta:initial-creator><meta:keyword>a</meta:keyword><meta:keyword>b</meta:keyword></office:meta></office:document-meta>"#;
    let bytes = zip_of(&[
        ("mimetype", b"application/vnd.oasis.opendocument.text"),
        ("content.xml", content),
        ("styles.xml", styles),
        ("meta.xml", meta),
    ]);
    let doc = OdtParser
        .parse(&bytes, Path::new("t.odt"), &Limits::default())
        .unwrap();
    check_invariants("synthetic odt", &doc);
    let got = texts_by_kind(&doc);
    let want: Vec<(String, &str)> = [
        ("title", "Handboek"),
        ("other", "Inleiding 1"),
        ("h1", "Inleiding"),
        ("h2", "Doel"),
        ("paragraph", "Een zin met regels."),
        ("paragraph", "Voetnoot."),
        ("list_item", "1. een"),
        ("list_item", "1.a) sub"),
        ("list_item", "2. twee"),
        ("list_item", "vervolg"),
        ("list_item", "- bol"),
        ("list_item", "3. drie"),
        ("table", "K | L | L\n1 | "),
        ("header_row", "K | L | L"),
        ("table_row", "1 | "),
        ("caption", "Tabel 1: maten"),
        ("code", "SELECT 1;\n  FROM x;"),
    ]
    .iter()
    .map(|(k, t)| (k.to_string(), *t))
    .collect();
    assert_eq!(got, want);
    assert_eq!(doc.metadata.get("author").map(String::as_str), Some("Jan"));
    assert_eq!(
        doc.metadata.get("keywords").map(String::as_str),
        Some("a, b")
    );
    assert_eq!(
        doc.metadata.get("title").map(String::as_str),
        Some("Het handboek")
    );
}
