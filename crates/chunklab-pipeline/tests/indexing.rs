//! The library's index builder ([`IndexBuilder`]) end to end with the real MiniLM model (as
//! `chunklab index`'s tests use it): files and texts in, incremental runs, the one configuration
//! an index holds, and bad parameters named.

use chunklab_core::{ChunkConfig, Strategy};
use chunklab_pipeline::indexing::{IndexBuilder, IndexConfig, Progress};
use chunklab_pipeline::search::{SearchConfig, Searcher};
use chunklab_pipeline::{Pipeline, PipelineConfig};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

fn pipeline(size: usize) -> Arc<Pipeline> {
    Arc::new(
        Pipeline::new(PipelineConfig {
            chunking: ChunkConfig::new(Strategy::Recursive, size),
            ..PipelineConfig::default()
        })
        .unwrap(),
    )
}

fn samples() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../samples")
        .display()
        .to_string()
}

#[test]
fn files_and_texts_are_indexed_incrementally_and_searchable() {
    let dir = tempfile::tempdir().unwrap();
    let idx = dir.path().join("idx");
    let loc = idx.to_str().unwrap();
    let mut b = IndexBuilder::create(loc, pipeline(400), &IndexConfig::default()).unwrap();
    assert_eq!(b.model().0, "minilm");
    let mut events = Vec::new();
    let s = b
        .add_files(&[samples()], true, &mut |p| events.push(p))
        .unwrap();
    assert_eq!((s.added, s.updated, s.unchanged, s.failed), (3, 0, 0, 0));
    assert!(s.chunks > 3 && s.embedded == s.chunks, "{s:?}");
    assert!(matches!(events[0], Progress::Planned { docs: 3, .. }));
    assert!(events
        .iter()
        .any(|e| matches!(e, Progress::Committed { docs_done: 3, .. })));
    // Texts, with groups and fields.
    let fields = BTreeMap::from([("type".to_string(), "notitie".to_string())]);
    let n = b
        .add_text(
            "notitie-1",
            "De zeehondencrèche in Pieterburen krijgt een nieuwe subsidie.",
            None,
            &["team-a".to_string()],
            &fields,
        )
        .unwrap();
    assert_eq!(n, 1);
    // The same text again is left alone.
    assert_eq!(
        b.add_text(
            "notitie-1",
            "De zeehondencrèche in Pieterburen krijgt een nieuwe subsidie.",
            None,
            &["team-a".to_string()],
            &fields
        )
        .unwrap(),
        0
    );
    b.commit().unwrap();
    let searcher = Searcher::open(&idx, false).unwrap();
    let cfg = SearchConfig {
        k: 1,
        filter: vec!["type=notitie".into()],
        ..SearchConfig::default()
    };
    let hits = searcher
        .search("subsidie zeehonden", &cfg, Some(&["team-a".to_string()]))
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].doc_id, "notitie-1");
    // Another group does not see it.
    let none = searcher
        .search("subsidie zeehonden", &cfg, Some(&["team-b".to_string()]))
        .unwrap();
    assert!(none.is_empty(), "{none:?}");
    // Unchanged files are not read again; a run without the text's file removes nothing with
    // remove_missing off.
    let again = b.add_files(&[samples()], false, &mut |_| {}).unwrap();
    assert_eq!((again.added, again.unchanged, again.removed), (0, 3, 0));
    // One index, one configuration.
    let err = b.set_pipeline(pipeline(300)).unwrap_err().to_string();
    assert!(err.contains("size=300") || err.contains("300"), "{err}");
    b.set_pipeline(pipeline(400)).unwrap();
    let (docs, _) = b.finish().unwrap();
    assert_eq!(docs, 4);
}

#[test]
fn bad_parameters_are_named() {
    let dir = tempfile::tempdir().unwrap();
    let loc = dir.path().join("idx");
    let loc = loc.to_str().unwrap();
    let bad_acl = IndexConfig {
        acl: vec!["no-equals-sign".into()],
        ..IndexConfig::default()
    };
    let err = IndexBuilder::create(loc, pipeline(400), &bad_acl)
        .err()
        .unwrap()
        .to_string();
    assert!(err.starts_with("acl `no-equals-sign`"), "{err}");
    let builtin = IndexConfig {
        meta: vec!["**=source:x".into()],
        ..IndexConfig::default()
    };
    let err = format!(
        "{:#}",
        IndexBuilder::create(loc, pipeline(400), &builtin)
            .err()
            .unwrap()
    );
    assert!(err.contains("built-in filter field"), "{err}");
    let mut b = IndexBuilder::create(loc, pipeline(400), &IndexConfig::default()).unwrap();
    let err = b
        .add_text("", "tekst", None, &[], &BTreeMap::new())
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("doc_id"), "{err}");
    let err = b
        .add_files(
            &[dir.path().join("nope").display().to_string()],
            false,
            &mut |_| {},
        )
        .unwrap_err();
    assert!(format!("{err:#}").contains("nope"), "{err:#}");
}
