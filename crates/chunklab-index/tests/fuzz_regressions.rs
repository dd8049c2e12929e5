//! Crashes the `index_open` fuzz target found (fuzz/, docs/RELIABILITY.md), kept as tests.

use chunklab_index::{check, Index, IndexWriter, Mode, NewChunk, NewDocument, Query, Settings};
use std::path::{Path, PathBuf};

fn settings() -> Settings {
    Settings {
        chunker: "paragraph size=100 unit=chars".into(),
        reading: String::new(),
        unit: "chars".into(),
        tokenizer: None,
        model: "toy".into(),
        dim: 2,
        model_max_tokens: 16,
        hnsw: None,
        lang: "en".into(),
        run: None,
    }
}

fn doc(doc_id: &str, text: &str, v: [f32; 2]) -> NewDocument {
    let end = text.len();
    NewDocument {
        doc_id: doc_id.into(),
        source: doc_id.into(),
        hash: doc_id.into(),
        text: text.into(),
        acl: vec![],
        fields: Default::default(),
        chunks: vec![NewChunk::new(
            &format!("{doc_id}#0"),
            0,
            end,
            0,
            end,
            0,
            v.to_vec(),
        )],
    }
}

fn fast_fields(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::fs::read_dir(dir.join("bm25"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "fast"))
        .collect();
    out.sort();
    out
}

/// fuzz/artifacts/index_open/crash-751f8adb…: 17 bytes written over a BM25 fast-field file at
/// offset 16 made tantivy panic (`mid > len` in ownedbytes) inside `Index::open`, where the BM25
/// reader was not guarded. Now the damaged BM25 index is rebuilt from the store in memory, as
/// for any other damage to it.
#[test]
fn a_damaged_bm25_fast_field_file_is_rebuilt_not_a_panic() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src.idx");
    let mut w = IndexWriter::open(&src, settings(), false).unwrap();
    w.add_document(doc("a.txt", "Wind turbines at sea.", [1.0, 0.0]))
        .unwrap();
    w.commit().unwrap();
    w.add_document(doc("b.txt", "Parking permits for visitors.", [0.0, 1.0]))
        .unwrap();
    w.finish().unwrap();
    let files = fast_fields(&src);
    assert!(!files.is_empty(), "no fast-field file to damage");
    for (i, file) in files.iter().enumerate() {
        let dir = tmp.path().join(format!("damaged-{i}.idx"));
        copy_dir(&src, &dir);
        let target = dir.join("bm25").join(file.file_name().unwrap());
        let mut bytes = std::fs::read(&target).unwrap();
        for (j, b) in br#"{"generation": 9}"#.iter().enumerate() {
            match bytes.get_mut(16 + j) {
                Some(x) => *x = *b,
                None => bytes.push(*b),
            }
        }
        std::fs::write(&target, bytes).unwrap();
        let index = Index::open(&dir).expect("the store is sound; BM25 is rebuilt from it");
        let hits = index.search(&Query::new("parking", Mode::Bm25, 1)).unwrap();
        assert_eq!(hits[0].doc_id, "b.txt");
        let _ = check(&dir).unwrap();
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let dst = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).unwrap();
        }
    }
}

/// fuzz/artifacts/index_open (docs/RELIABILITY.md, crash 3): bytes overwritten near the end of
/// a BM25 `.store` file (its skip index) made tantivy read a length of hundreds of gigabytes
/// and allocate it while `Index::open` opened the reader: an abort no `catch_unwind` can stop.
/// The BM25 files' checksums are now verified before the reader is opened, so the damage is
/// found first and BM25 is rebuilt from the store.
#[test]
fn a_damaged_bm25_store_file_is_found_before_tantivy_reads_it() {
    let tmp = tempfile::tempdir().unwrap();
    let src = tmp.path().join("src.idx");
    let mut w = IndexWriter::open(&src, settings(), false).unwrap();
    w.add_document(doc("a.txt", "Wind turbines at sea.", [1.0, 0.0]))
        .unwrap();
    w.add_document(doc("b.txt", "Parking permits for visitors.", [0.0, 1.0]))
        .unwrap();
    w.finish().unwrap();
    let stores: Vec<PathBuf> = std::fs::read_dir(src.join("bm25"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "store"))
        .collect();
    assert!(!stores.is_empty(), "no BM25 store file to damage");
    // The crash input's bytes (`bb 00 22 3a …`), written over each BM25 store file at every
    // offset in turn, each on a fresh copy.
    let pattern = [
        0xbb, 0x00, 0x22, 0x3a, 0x20, 0x36, 0x22, 0x7d, 0x77, 0x69, 0x00, 0x6e, 0x64, 0x69, 0x00,
        0x6e, 0x64,
    ];
    let mut n = 0;
    for file in &stores {
        let len = std::fs::metadata(file).unwrap().len() as usize;
        for at in 0..len {
            let dir = tmp.path().join(format!("damaged-{n}.idx"));
            n += 1;
            copy_dir(&src, &dir);
            let target = dir.join("bm25").join(file.file_name().unwrap());
            let mut bytes = std::fs::read(&target).unwrap();
            for (i, b) in pattern.iter().enumerate() {
                match bytes.get_mut(at + i) {
                    Some(x) => *x = *b,
                    None => bytes.push(*b),
                }
            }
            std::fs::write(&target, bytes).unwrap();
            let index = Index::open(&dir).expect("the store is sound; BM25 is rebuilt from it");
            let hits = index.search(&Query::new("parking", Mode::Bm25, 1)).unwrap();
            assert_eq!(hits[0].doc_id, "b.txt", "damage at byte {at}");
            std::fs::remove_dir_all(&dir).unwrap();
        }
    }
    assert!(n > 0);
}
