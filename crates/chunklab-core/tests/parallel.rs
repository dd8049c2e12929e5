//! Chunks of a large text are made on all cores (ids, char offsets, own lines, in groups): the
//! chunks are those of one thread, for every strategy and thread count, whole or windowed, and
//! each field is what it is by definition (the id of its span, the chars and lines before it).

use chunklab_core::chunker::chunk_source_text;
use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use chunklab_core::text::LineIndex;
use chunklab_core::{
    chunk_document, chunk_document_windowed, chunk_id_for, chunk_parsed_document, strategies,
    CharSizer, Chunk, ChunkConfig, Chunker, Document, Strategy,
};
use std::sync::Arc;

/// About 1.5 MB of text with multi-byte chars, blank lines and long lines: more than the
/// 1 MiB from which chunks are made in parallel.
fn text() -> String {
    let mut t = String::new();
    let mut k = 0u32;
    while t.len() < 1_500_000 {
        k += 1;
        t.push_str(&format!(
            "Artikel {k}. De raad besluit over windenergie op zee — één “besluit” 😀.\n"
        ));
        if k.is_multiple_of(7) {
            t.push('\n');
        }
        if k.is_multiple_of(31) {
            t.push_str(&"lange regel zonder einde ".repeat(40));
            t.push('\n');
        }
    }
    t
}

fn chunkers() -> Vec<Box<dyn Chunker>> {
    let mut cfgs: Vec<ChunkConfig> = [
        Strategy::Recursive,
        Strategy::Fixed,
        Strategy::Sentence,
        Strategy::Paragraph,
    ]
    .into_iter()
    .map(|s| ChunkConfig::new(s, 700))
    .collect();
    cfgs.push(ChunkConfig {
        levels: Some(vec![2000, 500, 120]),
        ..ChunkConfig::new(Strategy::Hierarchical, 2000)
    });
    cfgs.iter()
        .map(|c| strategies::build(c, Arc::new(CharSizer), None).expect("build"))
        .collect()
}

fn on<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool")
        .install(f)
}

/// Each field from its definition.
fn check_fields(text: &str, chunker: &dyn Chunker, chunks: &[Chunk<'_>]) {
    let mut chars = 0;
    let mut at = 0;
    for (i, c) in chunks.iter().enumerate() {
        assert_eq!(c.index, i);
        assert_eq!(c.total, chunks.len());
        assert_eq!(c.text, &text[c.start_byte..c.end_byte]);
        // Starts never go back (spans are in document order), so chars are counted onwards.
        assert!(c.start_byte >= at);
        chars += text[at..c.start_byte].chars().count();
        at = c.start_byte;
        assert_eq!(c.start_char, chars, "chunk {i}");
        assert_eq!(c.end_char, chars + c.text.chars().count(), "chunk {i}");
        let id = chunk_id_for(
            "doc",
            c.start_byte,
            c.end_byte,
            &chunker.config(),
            &c.meta,
            c.text,
        );
        assert_eq!(c.id, id, "chunk {i}");
    }
}

#[test]
fn chunks_made_on_many_threads_are_those_of_one() {
    let text = text();
    let doc = Document::new("doc", "mem", &text);
    for chunker in chunkers() {
        let one = on(1, || chunk_document(&doc, chunker.as_ref()).expect("chunk"));
        assert!(one.len() > 1000, "{}", chunker.strategy());
        check_fields(&text, chunker.as_ref(), &one);
        for threads in [2, 3, 4] {
            let many = on(threads, || {
                chunk_document(&doc, chunker.as_ref()).expect("chunk")
            });
            assert!(many == one, "{} on {threads} threads", chunker.strategy());
            // Windows large enough to be made in parallel, and small ones after them.
            for window in [3000, 100_000] {
                let mut got: Vec<Chunk> = Vec::new();
                on(threads, || {
                    chunk_document_windowed(&doc, chunker.as_ref(), window, |chunks, new| {
                        got.extend(chunks[new].iter().cloned());
                        Ok(())
                    })
                })
                .expect("windowed");
                assert!(got == one, "{} window {window}", chunker.strategy());
            }
        }
    }
}

#[test]
fn source_text_is_the_flat_parsed_document_on_any_number_of_threads() {
    let text = text();
    // The document the flat text parser makes: one element over the non-blank text, with lines.
    let index = LineIndex::new(&text);
    let mut flat = ParsedDocument::plain(text.clone());
    let end = text.trim_end().len();
    let (a, b) = index.span_lines(&text, 0, end);
    flat.elements
        .push(Element::new(ElementKind::Other, 0, end).with_lines(a, b));
    for chunker in chunkers() {
        if !chunker.reads_only_locations() {
            continue;
        }
        let parsed = on(1, || {
            chunk_parsed_document("doc", "mem", &flat, chunker.as_ref()).expect("parsed")
        });
        for threads in [1, 2, 4] {
            let source = on(threads, || {
                chunk_source_text(&Document::new("doc", "mem", &text), chunker.as_ref())
                    .expect("source")
            });
            assert!(source == parsed, "{} on {threads}", chunker.strategy());
        }
        for c in &parsed {
            let lines = index.span_lines(&text, c.start_byte, c.end_byte);
            assert_eq!(c.meta.lines, Some(lines));
        }
    }
    // All whitespace: no element, no lines.
    let blank = " \n\t\n".repeat(400_000);
    let chunker = strategies::build(
        &ChunkConfig::new(Strategy::Fixed, 500),
        Arc::new(CharSizer),
        None,
    )
    .expect("build");
    let blank_doc = ParsedDocument::plain(blank.clone());
    let parsed = chunk_parsed_document("doc", "mem", &blank_doc, chunker.as_ref()).expect("parsed");
    let source = on(2, || {
        chunk_source_text(&Document::new("doc", "mem", &blank), chunker.as_ref()).expect("source")
    });
    assert!(source == parsed);
    assert!(source.iter().all(|c| c.meta.lines.is_none()));
}
