//! The library on real on-disk indexes (real tantivy, real HNSW, real files), with small
//! hand-made vectors so every expectation can be worked out by hand. The CLI tests run the same
//! code with the real MiniLM model and a real killed process.

use chunklab_core::ChunkMeta;
use chunklab_index::{
    bm25, Error, Index, IndexWriter, Mode, NewChunk, NewDocument, Query, Settings,
};
use std::path::Path;

fn settings(lang: &str) -> Settings {
    Settings {
        chunker: "paragraph size=200 unit=chars".into(),
        reading: "parser=auto".into(),
        unit: "chars".into(),
        tokenizer: None,
        model: "toy".into(),
        dim: 4,
        model_max_tokens: 64,
        hnsw: None,
        lang: lang.into(),
        run: None,
    }
}

fn unit(i: usize) -> Vec<f32> {
    let mut v = vec![0.0; 4];
    v[i % 4] = 1.0;
    v
}

/// A document whose chunks are its paragraphs (split on blank lines), chunk i with vector unit(i).
fn doc(doc_id: &str, text: &str, hash: &str) -> NewDocument {
    let mut chunks = Vec::new();
    let mut start = 0;
    for (i, para) in text.split("\n\n").enumerate() {
        let end = start + para.len();
        let sc = text[..start].chars().count();
        let ec = sc + para.chars().count();
        chunks.push(NewChunk::new(
            &format!("{doc_id}#{i}"),
            start,
            end,
            sc,
            ec,
            i,
            unit(i),
        ));
        start = end + 2;
    }
    NewDocument {
        doc_id: doc_id.into(),
        source: format!("corpus/{doc_id}"),
        hash: hash.into(),
        text: text.into(),
        acl: vec![],
        fields: Default::default(),
        chunks,
    }
}

fn ids(hits: &[chunklab_index::Hit]) -> Vec<String> {
    hits.iter().map(|h| h.chunk_id.clone()).collect()
}

#[test]
fn dutch_and_english_analyzers_fold_stem_and_drop_stopwords() {
    let t: Vec<String> = bm25::analyze(
        "nl",
        "De Moties over Windenergie werden aangenomen; geëist!",
    )
    .into_iter()
    .map(|t| t.1)
    .collect();
    assert!(
        !t.contains(&"de".to_string()) && !t.contains(&"over".to_string()),
        "{t:?}"
    );
    assert!(
        t.contains(&"geeist".to_string()) || t.iter().any(|x| x.starts_with("geeis")),
        "{t:?}"
    );
    assert_eq!(
        bm25::analyze("nl", "vergunningen")[0].1,
        bm25::analyze("nl", "vergunning")[0].1
    );
    let e: Vec<String> = bm25::analyze("en", "The parking permits of the café")
        .into_iter()
        .map(|t| t.1)
        .collect();
    assert_eq!(e, ["park", "permit", "cafe"]);
}

#[test]
fn uncommitted_and_unlisted_files_are_ignored_and_lagging_structures_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut w = IndexWriter::open(p, settings("en"), false).unwrap();
    w.add_document(doc(
        "a.txt",
        "Wind turbines at sea.\n\nParking permits for visitors.",
        "h1",
    ))
    .unwrap();
    w.finish().unwrap();

    // A writer that commits a second document but dies before saving the vector snapshot.
    let mut w = IndexWriter::open(p, settings("en"), false).unwrap();
    w.add_document(doc(
        "b.txt",
        "Bicycle lanes downtown.\n\nGarbage collection on Tuesday.",
        "h2",
    ))
    .unwrap();
    w.commit().unwrap();
    // ... and a third document that is never committed.
    w.add_document(doc("c.txt", "Uncommitted zebra text.", "h3"))
        .unwrap();
    std::mem::forget(w); // like a kill: no finish, no drop (the OS would release the lock)

    // Leftovers of an interrupted commit: a segment the manifest does not list.
    std::fs::write(
        p.join("store/0000000099.jsonl"),
        b"{\"op\":\"remove\",\"doc_id\":\"a.txt\"}\n",
    )
    .unwrap();

    let index = Index::open(p).unwrap();
    assert_eq!(index.store().docs().len(), 2);
    assert!(index.repairs().vectors_added == 2, "{:?}", index.repairs());
    let hits = index
        .search(&Query::new("garbage tuesday", Mode::Bm25, 5))
        .unwrap();
    assert_eq!(ids(&hits), ["b.txt#1"]);
    assert!(index
        .search(&Query::new("zebra", Mode::Bm25, 5))
        .unwrap()
        .is_empty());
    let v = unit(1);
    let hits = index
        .search(&Query::new("x", Mode::Dense, 2).with_vector(&v))
        .unwrap();
    assert_eq!(ids(&hits), ["a.txt#1", "b.txt#1"]);
}

#[test]
fn bm25_commit_ahead_of_the_manifest_is_rebuilt_from_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut w = IndexWriter::open(p, settings("en"), false).unwrap();
    w.add_document(doc("a.txt", "Wind turbines at sea.", "h1"))
        .unwrap();
    w.finish().unwrap();
    // Simulate a crash between the BM25 commit and the manifest of generation 2.
    {
        let _lock = chunklab_index::lock::WriterLock::acquire(p).unwrap();
        let mut b = bm25::Bm25::open_writer(p).unwrap();
        b.remove_doc("a.txt");
        b.commit(2).unwrap();
    }
    let index = Index::open(p).unwrap();
    assert!(index.repairs().bm25_rebuilt);
    assert_eq!(
        ids(&index
            .search(&Query::new("turbines", Mode::Bm25, 3))
            .unwrap()),
        ["a.txt#0"]
    );
    drop(index);
    // The next writer repairs the files.
    IndexWriter::open(p, settings("en"), false)
        .unwrap()
        .finish()
        .unwrap();
    let index = Index::open(p).unwrap();
    assert_eq!(index.repairs(), &Default::default());
}

#[test]
fn many_commits_compact_and_replacements_keep_one_copy() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut w = IndexWriter::open(p, settings("nl"), false).unwrap();
    for round in 0..40 {
        w.add_document(doc(
            "a.txt",
            &format!("Ronde {round} van de motie.\n\nTweede alinea."),
            &format!("h{round}"),
        ))
        .unwrap();
        w.add_document(doc(
            &format!("d{round}.txt"),
            "Parkeren voor bezoekers.",
            "x",
        ))
        .unwrap();
        w.commit().unwrap();
    }
    w.remove_document("d3.txt").unwrap();
    w.finish().unwrap();
    let index = Index::open(p).unwrap();
    assert!(
        index.manifest().segments.len() <= 33,
        "{}",
        index.manifest().segments.len()
    );
    assert_eq!(index.store().docs().len(), 40);
    assert_eq!(index.store().len(), 2 + 39);
    assert_eq!(index.vectors().len(), 41);
    assert_eq!(
        index.store().doc_text("a.txt").unwrap(),
        "Ronde 39 van de motie.\n\nTweede alinea."
    );
    let hits = index
        .search(&Query::new("ronde motie", Mode::Bm25, 10))
        .unwrap();
    assert_eq!(ids(&hits), ["a.txt#0"]);
    assert_eq!(hits[0].text, "Ronde 39 van de motie.");
}

#[test]
fn filters_act_inside_both_searches_and_hybrid_fuses() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut w = IndexWriter::open(p, settings("en"), false).unwrap();
    for i in 0..30 {
        let mut d = doc(
            &format!("other/{i}.txt"),
            "parking parking parking\n\nparking permits",
            &i.to_string(),
        );
        d.acl = vec!["team-b".into()];
        w.add_document(d).unwrap();
    }
    let mut d = doc(
        "besluiten/x.txt",
        "one parking mention\n\nnothing\n\nparking again",
        "x",
    );
    d.acl = vec!["team-a".into()];
    d.fields.insert("type".into(), "besluit".into());
    w.add_document(d).unwrap();
    w.finish().unwrap();
    let index = Index::open(p).unwrap();
    let v = unit(0);
    for mode in [Mode::Bm25, Mode::Dense, Mode::Hybrid] {
        for spec in ["source=besluiten/**", "acl=team-a", "type=besluit"] {
            let f = index.filter(&[spec.to_string()]).unwrap();
            let hits = index
                .search(
                    &Query::new("parking", mode, 2)
                        .with_vector(&v)
                        .with_filter(f),
                )
                .unwrap();
            assert_eq!(hits.len(), 2, "{mode:?} {spec}");
            assert!(
                hits.iter().all(|h| h.doc_id == "besluiten/x.txt"),
                "{mode:?} {spec}"
            );
        }
    }
    let e = index.filter(&["colour=red".into()]).unwrap_err();
    assert!(
        matches!(e, Error::BadFilter(_)) && e.to_string().contains("type"),
        "{e}"
    );
    // Hybrid: a chunk both retrievers rank first wins; ties are broken by key.
    let hits = index
        .search(&Query::new("mention", Mode::Hybrid, 1).with_vector(&v))
        .unwrap();
    assert_eq!(ids(&hits), ["besluiten/x.txt#0"]);
    assert!(hits[0].bm25_rank == Some(1));
}

#[test]
fn shaping_small_to_big_auto_merge_merge_and_docs() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut w = IndexWriter::open(p, settings("en"), false).unwrap();
    // A parent over the whole text, three children.
    let text = "alpha beta\n\ngamma delta\n\nepsilon zeta";
    let mut d = doc("h.txt", text, "h");
    let child = |c: &mut NewChunk| {
        c.meta = ChunkMeta {
            level: Some(1),
            parent_id: Some("h.txt#parent".into()),
            ..Default::default()
        };
    };
    for c in &mut d.chunks {
        child(c);
    }
    let mut parent = NewChunk::new(
        "h.txt#parent",
        0,
        text.len(),
        0,
        text.chars().count(),
        3,
        unit(3),
    );
    parent.meta.level = Some(0);
    d.chunks.push(parent);
    w.add_document(d).unwrap();
    w.add_document(doc("o.txt", "alpha elsewhere", "o"))
        .unwrap();
    w.finish().unwrap();
    let index = Index::open(p).unwrap();
    assert!(index.is_hierarchical());

    let mut q = Query::new("alpha gamma", Mode::Bm25, 5);
    q.small_to_big = true;
    let hits = index.search(&q).unwrap();
    assert_eq!(ids(&hits)[..1], ["h.txt#parent"]);
    assert_eq!(hits[0].text, text);
    assert_eq!(hits[0].chunks.len(), 2);

    // Two of three children retrieved: merged at 0.5, not at 0.9.
    let mut q = Query::new("alpha gamma", Mode::Bm25, 5);
    q.auto_merge = Some(0.5);
    assert!(ids(&index.search(&q).unwrap()).contains(&"h.txt#parent".to_string()));
    q.auto_merge = Some(0.9);
    let got = ids(&index.search(&q).unwrap());
    assert!(
        got.contains(&"h.txt#0".to_string()) && got.contains(&"h.txt#1".to_string()),
        "{got:?}"
    );

    // Consecutive chunks merge into one exact span.
    let mut q = Query::new("alpha gamma epsilon", Mode::Bm25, 5)
        .with_filter(index.filter(&["level=1".into()]).unwrap());
    q.merge = true;
    let hits = index.search(&q).unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].text, text);
    assert_eq!(
        (hits[0].start_char, hits[0].end_char),
        (0, text.chars().count())
    );

    let mut q = Query::new("alpha", Mode::Bm25, 5);
    q.docs = true;
    let hits = index.search(&q).unwrap();
    let docs: Vec<&str> = hits.iter().map(|h| h.doc_id.as_str()).collect();
    assert_eq!(docs.len(), 2, "{docs:?}");
}

#[test]
fn bad_documents_and_queries_are_refused_without_side_effects() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let mut w = IndexWriter::open(p, settings("en"), false).unwrap();
    let mut d = doc("a.txt", "héllo", "h");
    d.chunks[0].end_byte = 2; // inside 'é'
    assert!(matches!(w.add_document(d), Err(Error::BadDocument(_))));
    let mut d = doc("a.txt", "hello", "h");
    d.chunks[0].vector = vec![1.0, 1.0, 0.0, 0.0]; // not normalized
    assert!(w.add_document(d).is_err());
    assert!(w.store().is_empty());
    w.add_document(doc("a.txt", "hello", "h")).unwrap();
    w.finish().unwrap();
    let index = Index::open(p).unwrap();
    assert!(matches!(
        index.search(&Query::new(" ", Mode::Bm25, 3)),
        Err(Error::BadQuery(_))
    ));
    assert!(matches!(
        index.search(&Query::new("x", Mode::Dense, 3)),
        Err(Error::BadQuery(_))
    ));
    assert!(matches!(
        index.search(&Query::new("x", Mode::Dense, 3).with_vector(&[1.0])),
        Err(Error::BadQuery(_))
    ));
    // Other settings are refused, naming the difference.
    let mut other = settings("en");
    other.model = "e5-small".into();
    other.dim = 4;
    let e = IndexWriter::open(p, other, false).err().unwrap();
    assert!(
        e.to_string()
            .contains("model: index has `toy`, this run has `e5-small`")
            && e.to_string().contains("--rebuild"),
        "{e}"
    );
    assert!(matches!(
        Index::open(&p.join("missing")),
        Err(Error::Missing { .. })
    ));
}

#[test]
fn a_second_writer_is_refused_while_readers_open() {
    let dir = tempfile::tempdir().unwrap();
    let p: &Path = dir.path();
    let w = IndexWriter::open(p, settings("en"), false).unwrap();
    let e = IndexWriter::open(p, settings("en"), false).err().unwrap();
    assert!(matches!(e, Error::Locked { pid: Some(_), .. }), "{e}");
    Index::open(p).unwrap();
    w.finish().unwrap();
    IndexWriter::open(p, settings("en"), false).unwrap();
}

#[test]
fn a_text_only_index_has_bm25_and_refuses_dense_search() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = settings("en");
    s.model = String::new();
    s.dim = 0;
    let mut d = doc(
        "a",
        "Wind turbines at sea.\n\nParking permits for visitors.",
        "h1",
    );
    for c in &mut d.chunks {
        c.vector.clear();
    }
    let mut w = IndexWriter::open(dir.path(), s.clone(), false).unwrap();
    w.add_document(d.clone()).unwrap();
    w.finish().unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.repairs(), &chunklab_index::Repairs::default());
    let hits = index.search(&Query::new("parking", Mode::Bm25, 3)).unwrap();
    assert_eq!(ids(&hits), vec!["a#1"]);
    let err = index
        .search(&Query::new("parking", Mode::Hybrid, 3).with_vector(&[]))
        .unwrap_err();
    assert!(err.to_string().contains("no vectors"), "{err}");
    // Replacing and removing documents works without vectors, and reopening finds no snapshot
    // to repair.
    let mut w = IndexWriter::open(dir.path(), s, false).unwrap();
    d.hash = "h2".into();
    w.add_document(d).unwrap();
    assert!(w.remove_document("a").unwrap());
    w.finish().unwrap();
    let index = Index::open(dir.path()).unwrap();
    assert!(index
        .search(&Query::new("parking", Mode::Bm25, 3))
        .unwrap()
        .is_empty());
    // A vector where the index has none is refused.
    let mut w = IndexWriter::open(dir.path(), index.settings().clone(), false).unwrap();
    let e = w.add_document(doc("b", "One.\n\nTwo.", "h3")).unwrap_err();
    assert!(e.to_string().contains("vector of 4 dimensions"), "{e}");
}

/// A reranker that scores passages by length and remembers what it was given.
struct Recording(std::sync::Mutex<Vec<String>>);

impl chunklab_index::Rerank for Recording {
    fn rerank(&self, _query: &str, passages: &[&str]) -> Result<Vec<f32>, String> {
        let mut seen = self.0.lock().unwrap();
        seen.extend(passages.iter().map(|p| p.to_string()));
        Ok(passages.iter().map(|p| p.len() as f32).collect())
    }
}

#[test]
fn the_store_holds_chunks_without_texts_and_cuts_them_from_the_documents() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path();
    let text_a = "Windenergie op zee.\n\nDe motie over windmolens is aangenomen.\n\nSlot.";
    let text_b = "Parkeren voor bezoekers.\n\nWindmolens in de polder.";
    let mut w = IndexWriter::open(p, settings("nl"), false).unwrap();
    w.add_document(doc("a.txt", text_a, "h1")).unwrap();
    w.commit().unwrap();
    // A pending document's chunks are cut from the pending text.
    w.add_document(doc("b.txt", text_b, "h2")).unwrap();
    let key_b = w.store().key_of("b.txt#1").unwrap();
    assert_eq!(w.store().chunk(key_b).unwrap().text, "");
    assert_eq!(
        w.store().chunk_with_text(key_b).unwrap().unwrap().text,
        "Windmolens in de polder."
    );
    w.finish().unwrap();

    let index = Index::open(p).unwrap();
    let store = index.store();
    // Replayed records hold no text either; every way of asking for one cuts it exactly.
    assert!(store.chunks().iter().all(|c| c.text.is_empty()));
    let all: Vec<_> = store.chunks_with_text().map(Result::unwrap).collect();
    let want: Vec<&str> = text_a.split("\n\n").chain(text_b.split("\n\n")).collect();
    assert_eq!(
        all.iter().map(|c| c.text.as_str()).collect::<Vec<_>>(),
        want
    );
    assert!(all.windows(2).all(|w| w[0].key < w[1].key));
    assert!(store.chunk_with_text(u64::MAX).unwrap().is_none());

    // Hits carry their texts, and a reranker sees them (with nothing else: no prefix here).
    let reranker = Recording(Default::default());
    let mut q = Query::new("windmolens", Mode::Bm25, 2);
    q.rerank = Some(&reranker);
    q.rerank_top = 5;
    let hits = index.search(&q).unwrap();
    assert_eq!(
        hits.iter().map(|h| h.text.as_str()).collect::<Vec<_>>(),
        [
            "De motie over windmolens is aangenomen.",
            "Windmolens in de polder."
        ]
    );
    let mut seen = reranker.0.into_inner().unwrap();
    seen.sort();
    assert_eq!(
        seen,
        [
            "De motie over windmolens is aangenomen.",
            "Windmolens in de polder."
        ]
    );
}

/// The `m` the newest vector snapshot of the index in `dir` was saved with.
fn snapshot_m(dir: &Path) -> u64 {
    let mut snapshots: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("vectors-")
        })
        .collect();
    snapshots.sort();
    let json = std::fs::read(snapshots.last().unwrap().join("vectors.json")).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    v["m"].as_u64().unwrap()
}

#[test]
fn the_graph_settings_are_chosen_once_and_kept() {
    use chunklab_index::{HnswSettings, Manifest};
    let dir = tempfile::tempdir().unwrap();
    let fast = HnswSettings::new(24, 80).unwrap();
    let with = |hnsw| Settings {
        hnsw,
        ..settings("en")
    };
    let mut w = IndexWriter::open(dir.path(), with(Some(fast)), false).unwrap();
    w.add_document(doc("a.txt", "Wind.\n\nZon.", "h1")).unwrap();
    w.finish().unwrap();
    assert_eq!(
        Manifest::read(dir.path()).unwrap().settings.hnsw,
        Some(fast)
    );
    assert_eq!(snapshot_m(dir.path()), 24, "the graph is built with them");

    // A run that names none takes the index's; one that names others is refused.
    let mut w = IndexWriter::open(dir.path(), with(None), false).unwrap();
    w.add_document(doc("b.txt", "Water.", "h2")).unwrap();
    w.finish().unwrap();
    assert_eq!(
        Manifest::read(dir.path()).unwrap().settings.hnsw,
        Some(fast)
    );
    assert_eq!(snapshot_m(dir.path()), 24);
    let e = IndexWriter::open(dir.path(), with(Some(HnswSettings::DIRECTORY)), false)
        .err()
        .unwrap();
    let Error::Refused(refusal) = &e else {
        panic!("not refused for its settings: {e}")
    };
    assert!(refusal.mismatch.only("hnsw"), "{e}");
    assert_eq!(
        (
            refusal.mismatch.0[0].stored.as_str(),
            refusal.mismatch.0[0].asked.as_str()
        ),
        ("m=24,ef_construction=80", "m=16,ef_construction=128")
    );
    assert!(
        e.to_string().contains("hnsw: index has `m=24,ef_construction=80`, this run has `m=16,ef_construction=128`); use a new --index directory"),
        "{e}"
    );
    let mut w = IndexWriter::open(dir.path(), with(Some(HnswSettings::DIRECTORY)), true).unwrap();
    w.add_document(doc("a.txt", "Wind.", "h3")).unwrap();
    w.finish().unwrap();
    assert_eq!(snapshot_m(dir.path()), 16, "rebuilt with the new ones");

    // A manifest written before the settings were recorded was built with the defaults; one
    // whose settings are out of range is refused as damaged.
    let path = dir.path().join("manifest.json");
    let mut v: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    v["settings"].as_object_mut().unwrap().remove("hnsw");
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    let m = Manifest::read(dir.path()).unwrap();
    assert_eq!(m.settings.hnsw, Some(HnswSettings::DIRECTORY));
    assert!(Index::open(dir.path()).is_ok());
    v["settings"]["hnsw"] = serde_json::json!({"m": 0, "ef_construction": 80});
    std::fs::write(&path, serde_json::to_vec(&v).unwrap()).unwrap();
    let e = Manifest::read(dir.path()).unwrap_err().to_string();
    assert!(e.contains("hnsw_m: 0 (must be 2 to 100)"), "{e}");
}
