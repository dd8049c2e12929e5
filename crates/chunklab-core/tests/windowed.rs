//! `chunk_document_windowed` gives exactly `chunk_document`'s chunks, a window at a time, each
//! window with its neighbours (what the CLI's big-document path writes from).

use chunklab_core::{
    chunk_document, chunk_document_windowed, strategies, CharSizer, Chunk, ChunkConfig, Document,
    Strategy,
};
use proptest::prelude::*;
use std::sync::Arc;

fn configs(size: usize) -> Vec<ChunkConfig> {
    let mut out: Vec<ChunkConfig> = [
        Strategy::Recursive,
        Strategy::Fixed,
        Strategy::Sentence,
        Strategy::Paragraph,
    ]
    .into_iter()
    .map(|s| ChunkConfig::new(s, size))
    .collect();
    out.push(ChunkConfig {
        levels: Some(vec![size * 4, size * 2, size]),
        ..ChunkConfig::new(Strategy::Hierarchical, size * 4)
    });
    out
}

fn check(text: &str, size: usize, window: usize) {
    let doc = Document::new("doc", "mem", text);
    for cfg in configs(size) {
        let chunker = strategies::build(&cfg, Arc::new(CharSizer), None).expect("build");
        let whole = match chunk_document(&doc, chunker.as_ref()) {
            Ok(c) => c,
            Err(_) => continue, // a size the strategy refuses: the windowed call must refuse too
        };
        let mut got: Vec<Chunk> = Vec::new();
        let n = chunk_document_windowed(&doc, chunker.as_ref(), window, |chunks, new| {
            assert!(new.end - new.start <= window.max(1));
            let first = chunks[new.start].index;
            // The neighbours the document has are in the slice.
            assert_eq!(new.start, usize::from(first > 0), "{}", cfg.strategy);
            let last = chunks[new.end - 1].index;
            assert_eq!(chunks.len() - new.end, usize::from(last + 1 < whole.len()));
            for (j, c) in chunks.iter().enumerate() {
                assert_eq!(c, &whole[first - new.start + j]);
            }
            got.extend(chunks[new].iter().cloned());
            Ok(())
        })
        .expect("windowed");
        assert_eq!(n, whole.len());
        assert_eq!(got, whole, "{} window {window}", cfg.strategy);
    }
}

#[test]
fn hierarchical_parents_outside_the_window_keep_their_ids() {
    let text = "Artikel 1. De raad besluit over windenergie op zee. ".repeat(40);
    for window in [1, 2, 3, 7, 1000] {
        check(&text, 60, window);
    }
}

#[test]
fn an_empty_document_has_no_windows() {
    let doc = Document::new("doc", "mem", "");
    let chunker = strategies::build(
        &ChunkConfig::new(Strategy::Recursive, 10),
        Arc::new(CharSizer),
        None,
    )
    .expect("build");
    let n = chunk_document_windowed(&doc, chunker.as_ref(), 4, |_, _| panic!("no chunks"))
        .expect("windowed");
    assert_eq!(n, 0);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]
    #[test]
    fn windows_equal_the_whole(
        t in "([a-zé]{1,9}[ .\n]{1,3}){0,80}",
        size in 8usize..80,
        window in 1usize..9,
    ) {
        check(&t, size, window);
    }
}
