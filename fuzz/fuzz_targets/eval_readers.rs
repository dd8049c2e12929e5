//! The evaluation readers on arbitrary input, chosen by the first byte: the queries JSONL reader
//! (`io::load_queries` from a file, which also reports invalid UTF-8 by line), the sweep TOML
//! reader (`sweep::parse_sweep`, then each configuration's `ChunkConfig` and label) and Chroma's
//! questions CSV reader (`chroma::parse_questions`), against two small documents. Problems with
//! line numbers, never a panic; what they accept must hold (spans inside their documents).
#![no_main]

use chunklab_eval::dataset::{Document, Query};
use chunklab_eval::sweep::{parse_sweep, SweepDefaults};
use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::OnceLock;

fn docs() -> &'static [Document] {
    static DOCS: OnceLock<Vec<Document>> = OnceLock::new();
    DOCS.get_or_init(|| {
        vec![
            Document {
                id: "a.md".into(),
                name: "a.md".into(),
                text: "# Wind\n\nWind turbines at sea. Één ĳsbeer 😀.\n".into(),
            },
            Document {
                id: "state_of_the_union".into(),
                name: "state_of_the_union.md".into(),
                text: "Parking permits for visitors.\n\nMy administration announced.".into(),
            },
        ]
    })
}

/// A scratch file for the reader that takes a path (one per process).
fn scratch() -> &'static PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    static FILE: OnceLock<PathBuf> = OnceLock::new();
    FILE.get_or_init(|| {
        let dir = DIR.get_or_init(|| tempfile::tempdir().expect("scratch dir"));
        dir.path().join("queries.jsonl")
    })
}

fn check_queries(queries: &[Query]) {
    let docs = docs();
    let mut ids = std::collections::HashSet::new();
    for q in queries {
        assert!(ids.insert(&q.id), "duplicate id {:?} accepted", q.id);
        assert!(!q.relevant_docs.is_empty() || !q.relevant_spans.is_empty());
        for s in &q.relevant_spans {
            let d = docs
                .iter()
                .find(|d| d.id == s.doc_id)
                .expect("known document");
            assert!(s.start_char < s.end_char && s.end_char <= d.text.chars().count());
        }
    }
}

fuzz_target!(
    init: chunklab_fuzz::init(),
    |data: &[u8]| {
        let Some((&which, rest)) = data.split_first() else {
            return;
        };
        match which % 3 {
            0 => {
                std::fs::write(scratch(), rest).expect("write scratch file");
                let got = chunklab_fuzz::guard(|| chunklab_eval::io::load_queries(scratch(), docs()));
                if let Ok(q) = got {
                    check_queries(&q);
                }
            }
            1 => {
                let Ok(text) = std::str::from_utf8(rest) else {
                    return;
                };
                let defaults = SweepDefaults {
                    model: "minilm".into(),
                    k: 5,
                };
                if let Ok(configs) = chunklab_fuzz::guard(|| parse_sweep(text, &defaults)) {
                    for c in configs {
                        let _ = chunklab_fuzz::guard(|| {
                            let _ = c.chunk.label();
                            c.chunk.config().map(|cfg| cfg.validate())
                        });
                    }
                }
            }
            _ => {
                let Ok(text) = std::str::from_utf8(rest) else {
                    return;
                };
                let got = chunklab_fuzz::guard(|| chunklab_eval::chroma::parse_questions(text, docs()));
                if let Ok(q) = got {
                    check_queries(&q);
                }
            }
        }
    }
);
