//! `semantic` and `cluster` on a parsed document respect its elements (issue 20 item 3): no chunk
//! ends with a heading cut from its section, no heading or inline link is cut in two, and
//! `min_size` holds for every chunk but the document's last. Driven by a deterministic
//! bag-of-words embedder (the core's own `TextEmbedder` seam) on the PostgreSQL connection
//! settings page, whose headings (`### 20.3.1. Connection Settings`) and link titles
//! (`"21.5. Password Authentication"`) look like sentence ends.

use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use chunklab_core::strategies::{Breakpoint, Cluster, Semantic};
use chunklab_core::text::LineIndex;
use chunklab_core::validate::{check_parsed, Expect};
use chunklab_core::{ChunkMeta, Chunker, Lang, Span, TextEmbedder, WordSizer};
use std::sync::Arc;

const CONNECTION: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../data/datasets/documents/markdown/md_postgresql-15_runtime-config-connection.md"
);

/// Words hashed into 64 dimensions, normalized: similar texts are close, deterministically.
struct Bag;
impl TextEmbedder for Bag {
    fn name(&self) -> &str {
        "bag"
    }
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        Ok(texts
            .iter()
            .map(|t| {
                let mut v = vec![0f32; 64];
                for w in t.split_whitespace() {
                    let h = w.bytes().fold(7u32, |h, b| h.wrapping_mul(31) ^ b as u32);
                    v[(h % 64) as usize] += 1.0;
                }
                let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
                v.iter().map(|x| x / n).collect()
            })
            .collect())
    }
}

/// The page as the Markdown parser lays it out: `#` lines are headings (with their lines),
/// other blocks between blank lines paragraphs.
fn parse(text: &str) -> ParsedDocument {
    let index = LineIndex::new(text);
    let mut doc = ParsedDocument::plain(text.to_string());
    doc.format = "markdown".into();
    let mut at = 0;
    let mut block: Option<(usize, usize)> = None;
    let push = |doc: &mut ParsedDocument, kind, s: usize, e: usize| {
        let (a, b) = index.span_lines(text, s, e);
        doc.elements.push(Element::new(kind, s, e).with_lines(a, b));
    };
    for line in text.split_inclusive('\n') {
        let (s, e) = (at, at + line.trim_end().len());
        at += line.len();
        if line.trim().is_empty() || line.starts_with('#') {
            if let Some((bs, be)) = block.take() {
                push(&mut doc, ElementKind::Paragraph, bs, be);
            }
            if line.starts_with('#') {
                let level = line.bytes().take_while(|&b| b == b'#').count() as u8;
                push(&mut doc, ElementKind::Heading { level }, s, e);
            }
            continue;
        }
        block = Some(block.map_or((s, e), |(bs, _)| (bs, e)));
    }
    if let Some((bs, be)) = block {
        push(&mut doc, ElementKind::Paragraph, bs, be);
    }
    doc
}

fn read() -> ParsedDocument {
    let text = std::fs::read_to_string(CONNECTION)
        .unwrap_or_else(|e| panic!("cannot read {CONNECTION}: {e}"));
    parse(&text)
}

/// Inline links `[text](target "title")` of `text`, as byte ranges.
fn links(text: &str) -> Vec<(usize, usize)> {
    let re = fancy_regex::Regex::new(r#"\[[^\]\n]*\]\((?:[^)"\n]|"[^"\n]*")*\)"#).unwrap();
    re.find_iter(text)
        .map(|m| m.unwrap())
        .map(|m| (m.start(), m.end()))
        .collect()
}

/// The element checks of this file, with the chunk invariants (exact, bounded, covering, lines).
fn check(doc: &ParsedDocument, chunks: &[(Span, ChunkMeta)], size: usize, min: usize) {
    let text = doc.text.as_str();
    check_parsed(
        doc,
        chunks,
        &WordSizer,
        Expect {
            size,
            overlap: false,
        },
    )
    .unwrap();
    let links = links(text);
    assert!(links.len() > 10, "the page has links: {}", links.len());
    for (i, (s, _)) in chunks.iter().enumerate() {
        let body = &text[s.start..s.end];
        for (a, b) in &links {
            for cut in [s.start, s.end] {
                assert!(
                    !(a < &cut && &cut < b),
                    "chunk {i} cuts the link {:?}: {body:?}",
                    &text[*a..*b]
                );
            }
        }
        for h in doc
            .elements
            .iter()
            .filter(|e| e.kind.heading_level().is_some())
        {
            assert!(
                !(h.start < s.end && s.end < h.end || h.start < s.start && s.start < h.end),
                "chunk {i} cuts the heading {:?}",
                &text[h.start..h.end]
            );
            if i + 1 < chunks.len() {
                assert!(
                    s.end != h.end,
                    "chunk {i} ends with the heading {:?}, cut from its section",
                    &text[h.start..h.end]
                );
            }
        }
        if i + 1 < chunks.len() {
            assert!(
                s.tokens >= min,
                "chunk {i} has {} < {min} words: {body:?}",
                s.tokens
            );
        }
    }
}

#[test]
fn semantic_sentences_respect_headings_links_and_min_size() {
    let doc = read();
    // Percentile 0 cuts after nearly every sentence: every unit boundary shows.
    for (size, min, percentile) in [
        (120, 0, 0.0),
        (120, 40, 0.0),
        (60, 25, 0.0),
        (120, 0, 95.0),
        // Percentile 100: no breakpoint, every group is over the limit and cut down.
        (120, 0, 100.0),
        (200, 50, 100.0),
        (300, 64, 95.0),
    ] {
        let chunker = Semantic::new(Arc::new(WordSizer), size, Arc::new(Bag), Lang::Auto)
            .unwrap()
            .with_min_size(Some(min))
            .unwrap()
            .with_breakpoint(Breakpoint::Percentile, Some(percentile))
            .unwrap();
        let chunks = chunker.chunk_parsed(&doc).unwrap();
        assert!(chunks.len() > 3, "{size}: {}", chunks.len());
        check(&doc, &chunks, size, min);
    }
}

#[test]
fn cluster_pieces_respect_headings_and_links() {
    let doc = read();
    for (size, piece) in [(120, 30), (200, 50), (60, 10)] {
        let chunker = Cluster::new(Arc::new(WordSizer), size, piece, Arc::new(Bag)).unwrap();
        let chunks = chunker.chunk_parsed(&doc).unwrap();
        assert!(chunks.len() > 3, "{size}: {}", chunks.len());
        check(&doc, &chunks, size, 0);
    }
}
