//! The PDF parser on real files (LibreOffice and DBLaTeX/xdvipdfmx output) and on PDFs built
//! here: structure facts (pages, title, heading levels and order, table rows, running headers),
//! reading order of two-column pages, hyphenation, pages without text, and bad input.

use chunklab_parse::pdf::PdfParser;
use chunklab_parse::{ElementKind, Limits, ParseError, ParsedDocument, Parser};
use chunklab_test_support::shared_dir;
use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, Stream};

fn real(name: &str) -> Vec<u8> {
    std::fs::read(shared_dir().join("datasets/documents/pdf").join(name)).unwrap()
}

fn parse(bytes: &[u8]) -> Result<ParsedDocument, ParseError> {
    PdfParser.parse(bytes, "test.pdf".as_ref(), &Limits::default())
}

fn text_of<'a>(doc: &'a ParsedDocument, e: &chunklab_parse::Element) -> &'a str {
    &doc.text[e.start..e.end]
}

/// Spans valid, sorted, pages monotone, table rows inside tables, and no text outside elements.
fn check_invariants(doc: &ParsedDocument) {
    let n = doc.pages.expect("pdf has pages");
    let mut last_page = 0;
    let mut last_start = 0;
    let mut covered = vec![false; doc.text.len()];
    for e in &doc.elements {
        assert!(e.start <= e.end && e.end <= doc.text.len(), "{e:?}");
        assert!(doc.text.is_char_boundary(e.start) && doc.text.is_char_boundary(e.end));
        assert!(e.start >= last_start, "elements sorted by start");
        last_start = e.start;
        let page = e.page.expect("every element has a page");
        assert!(
            page >= last_page && page <= n,
            "pages monotone: {page} after {last_page}"
        );
        last_page = page;
        covered[e.start..e.end].iter_mut().for_each(|c| *c = true);
        if let ElementKind::TableRow { .. } = e.kind {
            assert!(doc
                .elements
                .iter()
                .any(|t| t.kind == ElementKind::Table && t.start <= e.start && e.end <= t.end));
        }
    }
    for (i, c) in doc.text.char_indices() {
        assert!(
            c.is_whitespace() || covered[i],
            "char {c:?} at {i} is in no element"
        );
    }
    let breaks = doc
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::PageBreak)
        .count();
    assert_eq!(breaks as u32, n - 1, "one page break per new page");
}

fn headings(doc: &ParsedDocument) -> Vec<(String, u8)> {
    doc.elements
        .iter()
        .filter_map(|e| {
            e.kind
                .heading_level()
                .map(|l| (text_of(doc, e).to_string(), l))
        })
        .collect()
}

#[test]
fn raadsbesluit_structure() {
    let doc = parse(&real("raadsbesluit.pdf")).unwrap();
    check_invariants(&doc);
    assert_eq!(doc.pages, Some(2));
    assert!(doc.warnings.is_empty(), "{:?}", doc.warnings);
    let h = headings(&doc);
    let expect: Vec<(String, u8)> = [
        ("Raadsbesluit 2020-117: Kader voor windenergie op land", 0),
        ("1. Aanleiding", 1),
        ("2. Beslispunten", 1),
        ("3. Motivering", 1),
        ("3.1 Ruimtelijke afweging", 2),
        ("3.2 Financiële gevolgen", 2),
        ("4. Stemverhouding", 1),
        ("5. Ondertekening", 1),
    ]
    .iter()
    .map(|(t, l)| (t.to_string(), *l))
    .collect();
    assert_eq!(h, expect);
    assert_eq!(doc.elements[0].kind, ElementKind::Title);
    // The numbered decision points are list items.
    let items: Vec<&str> = doc
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::ListItem)
        .map(|e| text_of(&doc, e))
        .collect();
    assert_eq!(items.len(), 4);
    assert!(items[0].starts_with("1. Het kader"));
    // The table: a header row and four data rows, each row on its own line.
    let tables: Vec<_> = doc
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::Table)
        .collect();
    assert_eq!(tables.len(), 1);
    let rows: Vec<_> = doc
        .elements
        .iter()
        .filter(|e| matches!(e.kind, ElementKind::TableRow { .. }))
        .collect();
    assert_eq!(rows.len(), 5);
    assert_eq!(rows[0].kind, ElementKind::TableRow { header: true });
    let cells = |e: &chunklab_parse::Element| -> Vec<String> {
        text_of(&doc, e).split('\t').map(str::to_string).collect()
    };
    assert_eq!(
        cells(rows[0]),
        ["Jaar", "Zoekgebied", "Turbines", "Opbrengst (euro)"]
    );
    assert_eq!(cells(rows[1]), ["2022", "Noord", "2", "84.000"]);
    assert_eq!(cells(rows[4]), ["2025", "Haven", "5", "210.000"]);
    let table_text = text_of(&doc, tables[0]);
    assert_eq!(table_text.lines().count(), 5);
    assert!(table_text.lines().all(|l| !l.contains('\n')));
    // The paragraph that runs over the page break is one paragraph, with the break inside it.
    let p = doc
        .elements
        .iter()
        .find(|e| e.kind == ElementKind::Paragraph && text_of(&doc, e).starts_with("Het besluit"))
        .unwrap();
    assert!(text_of(&doc, p).contains("De fracties van Lokaal Belang"));
    let brk = doc
        .elements
        .iter()
        .find(|e| e.kind == ElementKind::PageBreak)
        .unwrap();
    assert!(p.start < brk.start && brk.start < p.end);
    assert_eq!(doc.page_at(p.end - 1), Some(2));
    assert_eq!(
        doc.metadata.get("title").map(String::as_str),
        Some("Raadsbesluit 2020-117: Kader voor windenergie op land")
    );
}

#[test]
fn pg_create_table_structure() {
    let doc = parse(&real("pg-sql-createtable.pdf")).unwrap();
    check_invariants(&doc);
    assert_eq!(doc.pages, Some(25));
    let h = headings(&doc);
    let level_of = |t: &str| h.iter().find(|(s, _)| s == t).map(|x| x.1);
    let order: Vec<usize> = [
        "Synopsis",
        "Description",
        "Parameters",
        "Notes",
        "Examples",
        "Compatibility",
        "See Also",
    ]
    .iter()
    .map(|t| {
        h.iter()
            .position(|(s, _)| s == t)
            .unwrap_or_else(|| panic!("heading {t} missing: {h:?}"))
    })
    .collect();
    assert!(
        order.windows(2).all(|w| w[0] < w[1]),
        "section order {order:?}"
    );
    let l = level_of("Synopsis").unwrap();
    for t in [
        "Description",
        "Parameters",
        "Notes",
        "Examples",
        "Compatibility",
        "See Also",
    ] {
        assert_eq!(level_of(t), Some(l), "{t} has the level of Synopsis");
    }
    // The synopsis is monospace: code blocks keeping their lines.
    let code = doc
        .elements
        .iter()
        .find(|e| e.kind == ElementKind::Code)
        .unwrap();
    assert!(text_of(&doc, code).starts_with("CREATE [ [ GLOBAL | LOCAL ]"));
    assert!(text_of(&doc, code).contains('\n'));
    let desc = doc
        .elements
        .iter()
        .find(|e| text_of(&doc, e) == "Description")
        .unwrap();
    assert_eq!(desc.page, Some(2));
    // Monospaced example code in columns is code, not a table with tabs.
    let example = doc
        .elements
        .iter()
        .find(|e| text_of(&doc, e).contains("code char(5) CONSTRAINT firstkey PRIMARY KEY"))
        .expect("the films example");
    assert_eq!(example.kind, ElementKind::Code);
    assert!(text_of(&doc, example).contains("\n    title varchar(40) NOT NULL,"));
    assert!(!doc
        .elements
        .iter()
        .any(|e| e.kind == ElementKind::Table && text_of(&doc, e).contains("PRIMARY")));
}

#[test]
fn debian_reference_structure() {
    let doc = parse(&real("debian-reference.en.pdf")).unwrap();
    check_invariants(&doc);
    assert_eq!(doc.pages, Some(261));
    // The cover is an image.
    assert_eq!(
        doc.warnings,
        ["no text on page 1: scanned? OCR not enabled"]
    );
    // Running headers ("Debian Reference 57 / 233") on nearly every page: recognised, listed in
    // the metadata one per page, and kept out of the text (and so out of every chunk).
    let headers: Vec<&str> = doc.metadata["page_headers"].lines().collect();
    assert!(headers.len() >= 250, "{} page headers", headers.len());
    assert!(headers.iter().all(|l| l
        .split_once(": ")
        .unwrap()
        .1
        .starts_with("Debian Reference")));
    assert!(
        headers.contains(&"85: Debian Reference 57 / 233"),
        "{headers:?}"
    );
    assert!(!doc
        .elements
        .iter()
        .any(|e| matches!(e.kind, ElementKind::PageHeader | ElementKind::PageFooter)));
    let running = doc.text.lines().filter(|l| {
        l.split_once("Debian Reference ")
            .is_some_and(|(_, rest)| rest.contains(" / 233"))
    });
    assert_eq!(running.count(), 0, "running headers left in the text");
    let h = headings(&doc);
    assert!(h.iter().all(|(t, _)| !t.contains(" / 233")));
    let find = |t: &str| {
        h.iter()
            .position(|(s, _)| s == t)
            .unwrap_or_else(|| panic!("{t} missing"))
    };
    let (chapter, section, sub) = (
        find("GNU/Linux tutorials"),
        find("1.1 Console basics"),
        find("1.1.1 The shell prompt"),
    );
    assert!(chapter < section && section < sub);
    assert!(
        h[chapter].1 < h[section].1 && h[section].1 < h[sub].1,
        "{:?} {:?} {:?}",
        h[chapter],
        h[section],
        h[sub]
    );
    // Admonition labels repeated hundreds of times are not headings.
    assert!(!h.iter().any(|(t, _)| t == "Note" || t == "Tip"));
    assert_eq!(
        doc.metadata.get("title").map(String::as_str),
        Some("Debian Reference")
    );
}

// ---- PDFs built here --------------------------------------------------------------------

/// One piece of text: x, y, size, bold, text (ASCII).
type Piece<'a> = (f32, f32, f32, bool, &'a str);

/// A PDF with one page per entry (A4), Helvetica and Helvetica-Bold.
fn build_pdf(pages: &[Vec<Piece<'_>>]) -> Document {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let regular = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let bold = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica-Bold", "Encoding" => "WinAnsiEncoding",
    });
    let resources = doc.add_object(dictionary! {
        "Font" => dictionary! { "F1" => regular, "F2" => bold },
    });
    let mut kids = Vec::new();
    for pieces in pages {
        let mut ops = Vec::new();
        for &(x, y, size, is_bold, text) in pieces {
            ops.push(Operation::new("BT", vec![]));
            ops.push(Operation::new(
                "Tf",
                vec![(if is_bold { "F2" } else { "F1" }).into(), size.into()],
            ));
            ops.push(Operation::new("Td", vec![x.into(), y.into()]));
            ops.push(Operation::new("Tj", vec![Object::string_literal(text)]));
            ops.push(Operation::new("ET", vec![]));
        }
        let content = Content { operations: ops };
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
            "Resources" => resources,
        });
        kids.push(page.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }),
    );
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    doc
}

fn save(mut doc: Document) -> Vec<u8> {
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// Lines of body text at 10 pt, 12 pt apart, starting at `y`.
fn column<'a>(x: f32, y: f32, lines: &[&'a str]) -> Vec<Piece<'a>> {
    lines
        .iter()
        .enumerate()
        .map(|(i, t)| (x, y - 12.0 * i as f32, 10.0, false, *t))
        .collect()
}

#[test]
fn two_columns_read_in_order_with_hyphenation() {
    let left = [
        "Windturbines leveren in de provincie",
        "Noord-Holland steeds meer stroom. De",
        "gemeente wil de opbrengst van wind-",
        "energie delen met de omwonenden en",
        "kiest voor lokaal eigendom in Noord-",
        "Holland en daarbuiten, zoals bepaald.",
        "De raad stemt in met het kader voor",
        "de komende jaren en de evaluatie.",
    ];
    let right = [
        "Rechts begint de tweede kolom met",
        "een eigen alinea over participatie",
        "van bewoners in de zoekgebieden en",
        "de verdeling van de opbrengsten via",
        "een fonds dat de gemeente opricht.",
        "Het fonds wordt jaarlijks herzien en",
        "de resultaten worden gepubliceerd.",
        "Zo blijft het proces transparant.",
    ];
    let mut page = vec![(
        50.0,
        780.0,
        20.0,
        true,
        "Kader voor windenergie op land in de gemeente",
    )];
    page.extend(column(50.0, 740.0, &left));
    page.extend(column(310.0, 740.0, &right));
    let doc = parse(&save(build_pdf(&[page]))).unwrap();
    check_invariants(&doc);
    assert_eq!(doc.elements[0].kind, ElementKind::Title);
    let paras: Vec<&str> = doc
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::Paragraph)
        .map(|e| text_of(&doc, e))
        .collect();
    assert_eq!(paras.len(), 2, "{paras:?}");
    assert!(paras[0].starts_with("Windturbines leveren"));
    assert!(
        paras[0].contains("provincie Noord-Holland steeds"),
        "mid-line hyphen kept"
    );
    assert!(
        paras[0].contains("opbrengst van windenergie delen"),
        "hyphenated line end rejoined"
    );
    assert!(
        paras[0].contains("in Noord-Holland en daarbuiten"),
        "hyphen before a capital kept"
    );
    assert!(paras[0].ends_with("de komende jaren en de evaluatie."));
    assert!(paras[1].starts_with("Rechts begint de tweede kolom"));
    assert!(paras[1].ends_with("Zo blijft het proces transparant."));
}

#[test]
fn pages_without_text_are_reported_as_ranges() {
    let text_page = |t: &'static str| vec![(50.0, 780.0, 10.0, false, t)];
    let mut pages = vec![text_page("Eerste pagina."), text_page("Tweede pagina.")];
    pages.extend((3..=7).map(|_| Vec::new()));
    pages.push(text_page("Laatste pagina."));
    pages.push(Vec::new());
    let doc = parse(&save(build_pdf(&pages))).unwrap();
    check_invariants(&doc);
    assert_eq!(doc.pages, Some(9));
    assert_eq!(
        doc.warnings,
        ["no text on pages 3–7, 9: scanned? OCR not enabled"]
    );
    let last = doc
        .elements
        .iter()
        .find(|e| text_of(&doc, e) == "Laatste pagina.")
        .unwrap();
    assert_eq!(last.page, Some(8));
    // A document with no text at all parses to an empty text with the warning.
    let doc = parse(&save(build_pdf(&[Vec::new(), Vec::new()]))).unwrap();
    assert!(doc.text.is_empty());
    assert_eq!(
        doc.warnings,
        ["no text on pages 1–2: scanned? OCR not enabled"]
    );
}

#[test]
fn running_headers_and_footers() {
    let pages: Vec<Vec<Piece<'_>>> = (1..=4)
        .map(|i| {
            let mut p = vec![(
                50.0,
                810.0,
                9.0,
                false,
                "Gemeente Voorbeeldstad - Raadsvoorstel",
            )];
            p.push((
                50.0,
                740.0,
                16.0,
                true,
                ["Inleiding", "Analyse", "Besluit", "Bijlage"][i - 1],
            ));
            p.extend(column(
                50.0,
                710.0,
                &[
                    "Gewone tekst van deze pagina loopt door",
                    "tot het einde van de regel hier.",
                ],
            ));
            p.push((
                270.0,
                30.0,
                9.0,
                false,
                [
                    "Pagina 1 van 4",
                    "Pagina 2 van 4",
                    "Pagina 3 van 4",
                    "Pagina 4 van 4",
                ][i - 1],
            ));
            p
        })
        .collect();
    let doc = parse(&save(build_pdf(&pages))).unwrap();
    check_invariants(&doc);
    let kinds = |k: ElementKind| doc.elements.iter().filter(|e| e.kind == k).count();
    assert_eq!(kinds(ElementKind::PageHeader), 0);
    assert_eq!(kinds(ElementKind::PageFooter), 0);
    assert!(!doc.text.contains("Raadsvoorstel") && !doc.text.contains("Pagina"));
    assert_eq!(
        doc.metadata["page_headers"],
        (1..=4)
            .map(|p| format!("{p}: Gemeente Voorbeeldstad - Raadsvoorstel"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    assert_eq!(
        doc.metadata["page_footers"].lines().nth(2),
        Some("3: Pagina 3 van 4")
    );
    let h = headings(&doc);
    assert_eq!(
        h.iter().map(|x| x.0.as_str()).collect::<Vec<_>>(),
        ["Inleiding", "Analyse", "Besluit", "Bijlage"]
    );
    assert!(h.iter().all(|x| x.1 == 1));
}

#[test]
fn encrypted_pdfs() {
    use lopdf::{EncryptionState, EncryptionVersion, Permissions};
    let encrypt = |user: &str| {
        let mut doc = build_pdf(&[vec![(50.0, 780.0, 10.0, false, "Geheime tekst.")]]);
        doc.trailer.set(
            "ID",
            vec![
                Object::string_literal("0123456789abcdef"),
                Object::string_literal("0123456789abcdef"),
            ],
        );
        let version = EncryptionVersion::V2 {
            document: &doc,
            owner_password: "owner",
            user_password: user,
            key_length: 128,
            permissions: Permissions::all(),
        };
        let state = EncryptionState::try_from(version).unwrap();
        doc.encrypt(&state).unwrap();
        save(doc)
    };
    assert!(matches!(
        parse(&encrypt("secret")),
        Err(ParseError::Encrypted { .. })
    ));
    // An empty user password (owner-only protection) is opened.
    let doc = parse(&encrypt("")).unwrap();
    assert!(doc.text.contains("Geheime tekst."), "{:?}", doc.text);
}

#[test]
fn bad_input_is_an_error_not_a_panic() {
    let invalid =
        |r: Result<ParsedDocument, ParseError>| matches!(r, Err(ParseError::Invalid { .. }));
    assert!(invalid(parse(b"")));
    let mut noise = Vec::new();
    let mut x: u32 = 12345;
    for _ in 0..50_000 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        noise.push((x >> 16) as u8);
    }
    assert!(invalid(parse(&noise)));
    let mut fake = b"%PDF-1.7\n".to_vec();
    fake.extend_from_slice(&noise);
    assert!(invalid(parse(&fake)));
    let real = real("raadsbesluit.pdf");
    assert!(
        invalid(parse(&real[..real.len() / 2])),
        "first half of a real file"
    );
    // Cut anywhere or with bytes flipped: an error or a document, never a panic.
    for cut in (1..16).map(|k| real.len() * k / 16) {
        let _ = parse(&real[..cut]);
    }
    for k in 1..64 {
        let mut broken = real.clone();
        let i = broken.len() * k / 64;
        broken[i] ^= 0x5a;
        if let Ok(doc) = parse(&broken) {
            check_invariants(&doc);
        }
    }
}

#[test]
fn content_over_the_byte_budget_is_not_expanded() {
    let bytes = real("pg-sql-createtable.pdf");
    // The file itself fits, its decoded page content does not.
    let limits = Limits {
        max_decompressed_bytes: bytes.len() as u64 + 1,
        ..Limits::default()
    };
    match PdfParser.parse(&bytes, "x.pdf".as_ref(), &limits) {
        Err(ParseError::Limit { .. }) => {}
        other => panic!(
            "expected a limit error, got {:?}",
            other.map(|d| d.warnings)
        ),
    }
    let small = Limits {
        max_decompressed_bytes: 4096,
        ..Limits::default()
    };
    assert!(matches!(
        PdfParser.parse(&bytes, "x.pdf".as_ref(), &small),
        Err(ParseError::Limit { .. })
    ));
}

/// Reference check against poppler's `pdftotext` (tests only): every non-space character
/// pdftotext extracts is in our text too (as a multiset). Run it with `--ignored` where
/// `pdftotext` is installed; without it the test fails rather than passing unchecked.
#[test]
#[ignore = "needs poppler's pdftotext on PATH (poppler-utils)"]
fn no_text_lost_compared_with_pdftotext() {
    use std::collections::HashMap;
    let dir = shared_dir().join("datasets/documents/pdf");
    for name in [
        "raadsbesluit.pdf",
        "pg-sql-createtable.pdf",
        "debian-reference.en.pdf",
    ] {
        let path = dir.join(name);
        let out = std::process::Command::new("pdftotext")
            .arg(&path)
            .arg("-")
            .output()
            .unwrap_or_else(|e| {
                panic!("cannot run pdftotext (install poppler-utils) on {name}: {e}")
            });
        assert!(
            out.status.success(),
            "pdftotext {}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let reference = String::from_utf8_lossy(&out.stdout);
        let doc = parse(&std::fs::read(&path).unwrap()).unwrap();
        let mut count: HashMap<char, i64> = HashMap::new();
        for c in doc.text.chars().filter(|c| !c.is_whitespace()) {
            *count.entry(c).or_default() += 1;
        }
        let mut missing = 0;
        for c in reference
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '\u{c}')
        {
            let n = count.entry(c).or_default();
            *n -= 1;
            if *n < 0 {
                missing += 1;
            }
        }
        assert_eq!(
            missing, 0,
            "{name}: {missing} characters of pdftotext's output are missing"
        );
    }
}
