//! The Markdown, reStructuredText and plain-text parsers, and the `headings` and `elements`
//! strategies on their output, on the real documents of `shared/datasets/documents`: heading
//! levels and paths, tables, code blocks, source lines, coverage, and every strategy's invariants
//! with chars, words and cl100k tokens.

use chunklab_core::strategies;
use chunklab_core::ChunkConfig as Options;

/// Build a core strategy (no model).
fn build(
    o: &Options,
    sizer: Arc<dyn chunklab_core::Sizer>,
) -> chunklab_core::Result<Box<dyn chunklab_core::Chunker>> {
    strategies::build(o, sizer, None)
}
use chunklab_core::validate::check_all_parsed;
use chunklab_core::{CharSizer, ChunkMeta, Span, WordSizer};
use chunklab_parse::detect::parser_for;
use chunklab_parse::{ElementKind, Limits, ParsedDocument};
use chunklab_test_support::shared_dir;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn documents() -> PathBuf {
    shared_dir().join("datasets/documents")
}

/// Parse a file the way the CLI does: parser by extension and content.
fn parse(path: &Path) -> ParsedDocument {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parser = parser_for(path, &bytes[..bytes.len().min(8192)]);
    let doc = parser
        .parse(&bytes, path, &Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(
        doc.text.as_bytes(),
        &bytes[..],
        "text formats keep the file as the text"
    );
    check_elements(&doc, path);
    // The file already read into a string parses to the same document.
    let text = String::from_utf8(bytes).expect("UTF-8 document");
    let from_string = parser
        .parse_string(text, path, &Limits::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert_eq!(from_string, doc, "{}: parse_string", path.display());
    doc
}

fn files(dir: &str, ext: &str) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(documents().join(dir))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .collect();
    out.sort();
    assert!(!out.is_empty());
    out
}

/// Spans on char boundaries and inside the text, sorted, rows inside their table, source lines
/// that match the spans, and every non-whitespace char inside some element.
fn check_elements(doc: &ParsedDocument, path: &Path) {
    let text = &doc.text;
    let mut covered = vec![false; text.len()];
    let mut table: Option<(usize, usize)> = None;
    let mut prev = 0;
    for e in &doc.elements {
        let name = format!("{}: {:?} {}..{}", path.display(), e.kind, e.start, e.end);
        assert!(e.start <= e.end && e.end <= text.len(), "{name}");
        assert!(
            text.is_char_boundary(e.start) && text.is_char_boundary(e.end),
            "{name}"
        );
        assert!(e.start >= prev, "{name}: not sorted");
        prev = e.start;
        match e.kind {
            ElementKind::Table => table = Some((e.start, e.end)),
            ElementKind::TableRow { .. } => {
                let (ts, te) = table.expect("a row follows its table");
                assert!(
                    e.start >= ts && e.end <= te,
                    "{name}: row outside its table"
                );
            }
            _ => {}
        }
        if let Some((a, b)) = e.lines {
            let first = text[..e.start].matches('\n').count() as u32 + 1;
            let last = text[..e.end.max(e.start + 1).min(text.len())]
                .matches('\n')
                .count() as u32
                + 1
                - u32::from(text[..e.end].ends_with('\n'));
            assert_eq!((a, b), (first, last.max(first)), "{name}: lines");
        }
        covered[e.start..e.end].iter_mut().for_each(|c| *c = true);
    }
    for (b, c) in text.char_indices() {
        assert!(
            c.is_whitespace() || covered[b],
            "{}: {c:?} at byte {b} is in no element",
            path.display()
        );
    }
}

fn headings(doc: &ParsedDocument) -> Vec<(u8, &str)> {
    doc.elements
        .iter()
        .filter_map(|e| Some((e.kind.heading_level()?, doc.title_of(e))))
        .collect()
}

fn chunk(
    doc: &ParsedDocument,
    strategy: &str,
    size: usize,
    title_prefix: bool,
) -> Vec<(Span, ChunkMeta)> {
    let opts = Options {
        strategy: strategy.parse().unwrap(),
        size,
        title_prefix,
        ..Options::default()
    };
    build(&opts, Arc::new(CharSizer))
        .unwrap()
        .chunk_parsed(doc)
        .unwrap()
}

fn cl100k() -> Arc<dyn chunklab_core::Sizer> {
    chunklab_tokenizers::sizer_from_spec("tokens", Some("cl100k"), false).unwrap()
}

#[test]
fn parse_string_is_parse() {
    // Byte order marks (the parsers leave one out), form feeds (pages), CRLF, and a format
    // without a string parser of its own (HTML: its bytes are parsed).
    let texts = [
        "# Titel\n\nTekst *met* nadruk.\n\n- een\n- twee\n",
        "\u{feff}# Titel\n\nTekst.\n",
        "\u{feff}\u{feff}Titel\n=====\n\nTekst.\n",
        "HOOFDSTUK 1\r\n\r\nDe raad besluit.\x0CPagina twee.\n",
        "",
        "<h1>Titel</h1><p>Tekst.</p>",
    ];
    for name in ["a.md", "a.rst", "a.txt", "a.html"] {
        let path = Path::new(name);
        for text in texts {
            let parser = parser_for(path, text.as_bytes());
            let want = parser
                .parse(text.as_bytes(), path, &Limits::default())
                .expect("parses");
            let got = parser
                .parse_string(text.to_string(), path, &Limits::default())
                .expect("parses");
            assert_eq!(got, want, "{name}: {text:?}");
        }
    }
}

#[test]
fn verordening_headings_lists_and_paths() {
    let doc = parse(&documents().join("nl_verordening_parkeren.txt"));
    assert_eq!(doc.format, "text");
    assert_eq!(
        doc.metadata["title"],
        "Parkeerverordening gemeente Voorbeeldstad 2021"
    );
    assert_eq!(
        headings(&doc),
        [
            (0, "Parkeerverordening gemeente Voorbeeldstad 2021"),
            (1, "Hoofdstuk 1. Algemene bepalingen"),
            (2, "Artikel 1 Begripsbepalingen"),
            (2, "Artikel 2 Reikwijdte"),
            (1, "Hoofdstuk 2. Vergunningen"),
            (2, "Artikel 3 Bewonersvergunning"),
            (2, "Artikel 4 Bezoekersregeling"),
            (2, "Artikel 5 Weigeringsgronden"),
            (1, "Hoofdstuk 3. Slotbepalingen"),
            (2, "Artikel 6 Inwerkingtreding"),
        ]
    );
    let items: Vec<_> = doc
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::ListItem)
        .map(|e| &doc.text[e.start..e.start + 2])
        .collect();
    assert_eq!(
        items,
        ["a.", "b.", "c.", "1.", "2.", "3.", "- ", "- ", "- "]
    );

    // Heading-aware chunks of about an article each carry the chapter and article.
    let chunks = chunk(&doc, "headings", 400, false);
    let art3 = chunks
        .iter()
        .find(|(s, _)| doc.text[s.start..s.end].contains("Per adres worden"))
        .unwrap();
    assert_eq!(
        art3.1.headings,
        [
            "Parkeerverordening gemeente Voorbeeldstad 2021",
            "Hoofdstuk 2. Vergunningen",
            "Artikel 3 Bewonersvergunning"
        ]
    );
    // The chunk starts at the chapter heading (line 14), which rides along with its first article.
    assert_eq!(art3.1.lines, Some((14, 19)));
    // No chunk is a chapter heading alone.
    assert!(chunks
        .iter()
        .all(|(s, _)| !doc.text[s.start..s.end].starts_with("Hoofdstuk") || s.len() > 40));
    // With --max-level 1 the paths stop at the chapters.
    let opts = Options {
        strategy: "headings".parse().unwrap(),
        size: 400,
        max_level: 1,
        ..Options::default()
    };
    let chunks = build(&opts, Arc::new(CharSizer))
        .unwrap()
        .chunk_parsed(&doc)
        .unwrap();
    assert!(chunks.iter().all(|(_, m)| m.headings.len() <= 2));
    for sizer in [
        Arc::new(CharSizer) as Arc<dyn chunklab_core::Sizer>,
        Arc::new(WordSizer),
    ] {
        for size in [1, 7, 30, 120, 1000] {
            check_all_parsed(&doc, sizer.clone(), size).unwrap();
        }
    }
    check_all_parsed(&doc, cl100k(), 64).unwrap();
}

#[test]
fn title_prefix_counts_real_tokens() {
    let doc = parse(&documents().join("nl_verordening_parkeren.txt"));
    let opts = Options {
        strategy: "headings".parse().unwrap(),
        size: 96,
        title_prefix: true,
        ..Options::default()
    };
    let sizer = cl100k();
    let chunks = build(&opts, sizer.clone())
        .unwrap()
        .chunk_parsed(&doc)
        .unwrap();
    assert!(chunks.len() >= 4);
    let mut prefixed = 0;
    for (s, m) in &chunks {
        let embedded = m.embed_text(&doc.text[s.start..s.end]);
        assert_eq!(s.tokens, sizer.count(&embedded));
        assert!(s.tokens <= 96);
        if let Some(p) = &m.prefix {
            assert_eq!(p, &format!("{}\n\n", m.headings.join(" > ")));
            prefixed += 1;
        }
    }
    assert!(prefixed >= chunks.len() - 1, "{chunks:?}");
}

#[test]
fn markdown_manual_pages() {
    for path in files("markdown", "md") {
        let doc = parse(&path);
        assert_eq!(doc.format, "markdown");
        // Every ATX heading line outside code is a heading element at its line.
        let heading_lines: Vec<u32> = doc
            .elements
            .iter()
            .filter(|e| matches!(e.kind, ElementKind::Heading { .. }))
            .map(|e| e.lines.unwrap().0)
            .collect();
        for (n, line) in doc.text.lines().enumerate() {
            if line.starts_with("## ") || line.starts_with("# ") {
                assert!(
                    heading_lines.contains(&(n as u32 + 1)),
                    "{}:{}",
                    path.display(),
                    n + 1
                );
            }
        }
        for size in [50, 400] {
            check_all_parsed(&doc, Arc::new(CharSizer), size)
                .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        check_all_parsed(&doc, Arc::new(WordSizer), 60).unwrap();
    }
}

#[test]
fn markdown_heading_paths_and_titles() {
    let doc = parse(&documents().join("markdown/md_django-3.2_ref_checks.md"));
    let h = headings(&doc);
    assert!(h.contains(&(1, "System check framework")));
    assert!(
        h.contains(&(3, "CheckMessage")),
        "inline code kept, ¶ dropped"
    );
    assert!(h.contains(&(4, "MySQL and MariaDB")));
    let chunks = chunk(&doc, "headings", 1200, false);
    let mysql = chunks
        .iter()
        .find(|(s, _)| doc.text[s.start..s.end].contains("#### MySQL and MariaDB"))
        .unwrap();
    assert_eq!(
        mysql.1.headings,
        [
            "System check framework",
            "Core system checks",
            "Database",
            "MySQL and MariaDB"
        ]
    );
    for (s, m) in &chunks {
        assert!(s.tokens <= 1200);
        let (a, b) = m.lines.unwrap();
        assert!(a <= b);
    }

    let doc = parse(&documents().join("markdown/md_postgresql-15_runtime-config-connection.md"));
    let h = headings(&doc);
    assert!(h.contains(&(2, "20.3. Connections and Authentication")));
    assert!(h.contains(&(3, "20.3.1. Connection Settings")));
    let chunks = chunk(&doc, "headings", 2000, true);
    let ssl = chunks
        .iter()
        .find(|(s, _)| doc.text[s.start..s.end].starts_with("### 20.3.3. SSL"))
        .expect("a chunk starts at the SSL section");
    let prefix = ssl.1.prefix.as_deref().unwrap();
    assert!(
        prefix.ends_with("20.3. Connections and Authentication > 20.3.3. SSL\n\n"),
        "{prefix:?}"
    );
}

#[test]
fn markdown_tables_split_by_rows_with_header() {
    let doc = parse(&documents().join("markdown/md_postgresql-15_catalogs-overview.md"));
    let table = doc
        .elements
        .iter()
        .find(|e| {
            e.kind == ElementKind::Table && doc.text[e.start..e.end].starts_with("Catalog Name")
        })
        .unwrap();
    let rows: Vec<_> = doc
        .elements
        .iter()
        .filter(|e| {
            matches!(e.kind, ElementKind::TableRow { .. })
                && e.start >= table.start
                && e.end <= table.end
        })
        .collect();
    assert_eq!(rows[0].kind, ElementKind::TableRow { header: true });
    assert!(doc.text[rows[1].start..rows[1].end].contains("pg_aggregate"));
    assert!(
        doc.text[rows.last().unwrap().start..rows.last().unwrap().end].contains("pg_user_mapping")
    );
    let data_rows = rows.len() - 1;
    assert!(data_rows > 60, "{data_rows}");

    let sizer = cl100k();
    let opts = Options {
        strategy: "elements".parse().unwrap(),
        size: 256,
        ..Options::default()
    };
    let chunks = build(&opts, sizer.clone())
        .unwrap()
        .chunk_parsed(&doc)
        .unwrap();
    let parts: Vec<_> = chunks
        .iter()
        .filter(|(s, m)| {
            m.kind.as_deref() == Some("table") && s.start >= table.start && s.end <= table.end
        })
        .collect();
    assert!(parts.len() >= 3, "{}", parts.len());
    let mut rows_seen = 0;
    for (s, m) in &parts[1..] {
        // The repeated header keeps its delimiter row, so every part is still a table.
        assert_eq!(
            m.prefix.as_deref(),
            Some("Catalog Name| Purpose  \n---|---\n")
        );
        let body = &doc.text[s.start..s.end];
        assert_eq!(s.tokens, sizer.count(&m.embed_text(body)));
        assert!(s.tokens <= 256);
        assert!(body.starts_with("[`pg_"), "parts start at a row: {body:?}");
        rows_seen += body.lines().count();
    }
    rows_seen += doc.text[parts[0].0.start..parts[0].0.end]
        .lines()
        .filter(|l| l.starts_with("[`pg_"))
        .count();
    assert_eq!(rows_seen, data_rows, "every row in exactly one part");
}

#[test]
fn markdown_code_blocks_stay_whole() {
    let doc = parse(&documents().join("markdown/md_django-3.2_topics_checks.md"));
    let codes: Vec<_> = doc
        .elements
        .iter()
        .filter(|e| e.kind == ElementKind::Code)
        .collect();
    assert!(!codes.is_empty());
    let chunks = chunk(&doc, "elements", 1500, false);
    for c in codes.iter().filter(|c| c.end - c.start <= 1000) {
        assert!(
            chunks
                .iter()
                .any(|(s, _)| s.start <= c.start && s.end >= c.end),
            "code block {}..{} was cut",
            c.start,
            c.end
        );
    }
}

#[test]
fn rst_python_docs() {
    for path in files("rst", "rst") {
        let doc = parse(&path);
        assert_eq!(doc.format, "rst");
        assert!(
            headings(&doc).iter().any(|h| h.0 == 1),
            "{}",
            path.display()
        );
        check_all_parsed(&doc, Arc::new(CharSizer), 300)
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let doc = parse(&documents().join("rst/rst_python-3.11_library_io.rst"));
    let h = headings(&doc);
    assert_eq!(
        h[0],
        (1, ":mod:`io` --- Core tools for working with streams")
    );
    assert_eq!(h[1], (2, "Overview"));
    assert!(h.contains(&(3, "Text I/O")));
    assert_eq!(
        doc.metadata["title"],
        ":mod:`io` --- Core tools for working with streams"
    );
    // "... specifying an encoding::" introduces a literal block.
    let intro = doc.text.find("specifying an encoding::").unwrap();
    let code = doc
        .elements
        .iter()
        .find(|e| e.kind == ElementKind::Code && e.start > intro)
        .unwrap();
    assert!(
        doc.text[code.start..code.end].starts_with("f = open(\"myfile.txt\""),
        "{:?}",
        &doc.text[code.start..code.end]
    );
    let chunks = chunk(&doc, "headings", 1500, false);
    let text_io = chunks
        .iter()
        .find(|(s, _)| doc.text[s.start..s.end].starts_with("Text I/O\n^^^^"))
        .unwrap();
    assert_eq!(
        text_io.1.headings,
        [
            ":mod:`io` --- Core tools for working with streams",
            "Overview",
            "Text I/O"
        ]
    );
}
