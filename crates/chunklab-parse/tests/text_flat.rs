//! `TextParser::parse_flat` and `parse_flat_string` (plain text without its structure) give
//! every strategy that reads only locations ([`Chunker::reads_only_locations`]) exactly the
//! chunks of the full parse:
//! same spans, ids, char offsets, pages and source lines, on generated texts with headings,
//! lists, titles, odd whitespace, CRLF, a byte order mark and form feeds, and on the
//! repository's own Markdown documents read as plain text.

use chunklab_core::document::ParsedDocument;
use chunklab_core::{
    chunk_parsed_document, strategies, CharSizer, ChunkConfig, Chunker, Strategy, WordSizer,
};
use chunklab_parse::text::TextParser;
use chunklab_parse::{Limits, Parser};
use std::path::Path;
use std::sync::Arc;

/// The strategies that opt in, at sizes small enough to make many chunks.
fn chunkers() -> Vec<Box<dyn Chunker>> {
    let mut out = Vec::new();
    for (strategy, size, overlap) in [
        (Strategy::Recursive, 40, 8),
        (Strategy::Recursive, 300, 30),
        (Strategy::Fixed, 50, 10),
        (Strategy::Sliding, 60, 20),
        (Strategy::Sentence, 80, 0),
        (Strategy::Paragraph, 120, 0),
    ] {
        let mut cfg = ChunkConfig::new(strategy, size);
        cfg.overlap = overlap;
        if strategy == Strategy::Sliding {
            cfg.overlap = 0;
        }
        let sizer: Arc<dyn chunklab_core::Sizer> = if strategy == Strategy::Paragraph {
            Arc::new(WordSizer)
        } else {
            Arc::new(CharSizer)
        };
        let c = strategies::build(&cfg, sizer, None).expect("strategy builds");
        assert!(c.reads_only_locations(), "{} should opt in", c.strategy());
        out.push(c);
    }
    out
}

fn parse_both(bytes: &[u8]) -> (ParsedDocument, ParsedDocument) {
    let full = TextParser
        .parse(bytes, Path::new("t.txt"), &Limits::default())
        .expect("full parse");
    let flat = TextParser.parse_flat(bytes).expect("flat parse");
    (full, flat)
}

fn assert_same_chunks(name: &str, bytes: &[u8], chunkers: &[Box<dyn Chunker>]) {
    let (full, flat) = parse_both(bytes);
    let owned = String::from_utf8(bytes.to_vec()).expect("UTF-8 test text");
    let from_string = TextParser.parse_flat_string(owned);
    for (how, flat) in [("bytes", &flat), ("string", &from_string)] {
        assert_eq!(full.text, flat.text, "{name}: text ({how})");
        assert_eq!(full.pages, flat.pages, "{name}: pages ({how})");
        for c in chunkers {
            let a = chunk_parsed_document("d", "s", &full, c.as_ref()).expect("full chunks");
            let b = chunk_parsed_document("d", "s", flat, c.as_ref()).expect("flat chunks");
            assert_eq!(a, b, "{name}: {} ({how})", c.config());
        }
    }
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[(self.next() % xs.len() as u64) as usize]
    }
}

const LINES: &[&str] = &[
    "Hoofdstuk 3. Algemeen",
    "ALGEMENE BEPALINGEN",
    "1.2 Titel van de paragraaf",
    "Artikel 4a Bezoekers",
    "- een punt in de lijst",
    "  vervolg van het punt",
    "a. bewoner: degene die woont;",
    "(iv) nog een punt",
    "De raad besluit het volgende. Dit is een zin die doorloopt en eindigt.",
    "Korte regel",
    "Zeer lange regel met veel woorden die geen kop kan zijn omdat hij veel te lang is voor een kop en dus een alinea wordt.",
    "",
    "",
    "   ",
    "\t",
    "\u{a0}\u{3000}",
    "\u{1c}",
    "windenergie 😀 café ☃",
    "\r",
    "\u{0c}",
    "\u{0c}2 Resultaten",
];

#[test]
fn flat_parse_gives_the_same_chunks_on_generated_texts() {
    let chunkers = chunkers();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..400 {
        let n = (rng.next() % 40) as usize;
        let mut text = String::new();
        if case % 7 == 0 {
            text.push('\u{feff}');
        }
        for _ in 0..n {
            text.push_str(rng.pick(LINES));
            text.push_str(if rng.next().is_multiple_of(5) {
                "\r\n"
            } else {
                "\n"
            });
        }
        if rng.next().is_multiple_of(2) {
            text.pop();
        }
        assert_same_chunks(
            &format!("case {case}: {text:?}"),
            text.as_bytes(),
            &chunkers,
        );
    }
    for edge in [
        "",
        "\n\n",
        "x",
        "😀",
        "\u{c}",
        "a\r\n\r\nb",
        " \u{a0} ",
        "\u{1c}\u{1d}",
    ] {
        assert_same_chunks(&format!("{edge:?}"), edge.as_bytes(), &chunkers);
    }
}

#[test]
fn flat_parse_gives_the_same_chunks_on_the_repository_docs() {
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let mut n = 0;
    let chunkers = chunkers();
    for entry in std::fs::read_dir(&docs).expect("docs/ exists") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_some_and(|e| e == "md") {
            let bytes = std::fs::read(&path).expect("readable");
            assert_same_chunks(&path.display().to_string(), &bytes, &chunkers);
            n += 1;
        }
    }
    assert!(n >= 3, "expected the repository's docs/*.md, found {n}");
}

#[test]
fn flat_parse_keeps_no_structure_but_the_lines() {
    let (full, flat) = parse_both(b"Titel\n\nHoofdstuk 1\n\n- a\n- b\n\n");
    assert!(full.elements.len() > 1 && full.metadata.contains_key("title"));
    assert_eq!(flat.elements.len(), 1);
    assert_eq!(flat.elements[0].lines, Some((1, 6)));
    assert!(flat.metadata.is_empty());
    assert!(parse_both(b" \n\t\n").1.elements.is_empty());
}
