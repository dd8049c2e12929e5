//! Issue 19 items 3 and 4: checksummed store files and records (damage found on open and on
//! read, named by file and document), `check`, and the repair `IndexWriter::open` makes
//! (BM25 and vectors rebuilt from the store, damaged documents dropped), on real indexes whose
//! files are damaged by hand.

use chunklab_index::{
    check, repair, Error, Index, IndexWriter, Mode, NewChunk, NewDocument, Query, Settings,
};
use std::path::{Path, PathBuf};

fn settings() -> Settings {
    Settings {
        chunker: "paragraph size=200 unit=chars".into(),
        reading: "parser=auto".into(),
        unit: "chars".into(),
        tokenizer: None,
        model: "toy".into(),
        dim: 2,
        model_max_tokens: 64,
        hnsw: None,
        lang: "en".into(),
        run: None,
    }
}

fn doc(doc_id: &str, text: &str, v: [f32; 2]) -> NewDocument {
    let mut chunks = Vec::new();
    let mut start = 0;
    for (i, para) in text.split("\n\n").enumerate() {
        let end = start + para.len();
        chunks.push(NewChunk::new(
            &format!("{doc_id}#{i}"),
            start,
            end,
            start,
            end,
            i,
            v.to_vec(),
        ));
        start = end + 2;
    }
    NewDocument {
        doc_id: doc_id.into(),
        source: doc_id.into(),
        hash: doc_id.into(),
        text: text.into(),
        acl: vec![],
        fields: Default::default(),
        chunks,
    }
}

const A: &str = "wind turbines at sea\n\nmore wind on land";
const B: &str = "parking permits for visitors\n\nparking near the town hall";

fn build(dir: &Path) {
    let mut w = IndexWriter::open(dir, settings(), false).unwrap();
    w.add_document(doc("a.txt", A, [1.0, 0.0])).unwrap();
    w.add_document(doc("b.txt", B, [0.0, 1.0])).unwrap();
    w.finish().unwrap();
}

/// Files under `dir/sub` whose name ends with `ext`, sorted.
fn files(dir: &Path, sub: &str, ext: &str) -> Vec<PathBuf> {
    let mut f: Vec<PathBuf> = std::fs::read_dir(dir.join(sub))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(ext))
        .collect();
    f.sort();
    f
}

fn only(dir: &Path, sub: &str, ext: &str) -> PathBuf {
    let f = files(dir, sub, ext);
    assert_eq!(f.len(), 1, "{f:?}");
    f[0].clone()
}

/// Overwrite the first occurrence of `from` in `path` with `to` (same length).
fn replace_bytes(path: &Path, from: &[u8], to: &[u8]) {
    assert_eq!(from.len(), to.len());
    let mut bytes = std::fs::read(path).unwrap();
    let at = bytes
        .windows(from.len())
        .position(|w| w == from)
        .unwrap_or_else(|| panic!("{} holds no {from:?}", path.display()));
    bytes[at..at + to.len()].copy_from_slice(to);
    std::fs::write(path, bytes).unwrap();
}

fn flip(path: &Path, at: usize) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 0x5a;
    std::fs::write(path, bytes).unwrap();
}

fn bm25_hits(dir: &Path, q: &str) -> Vec<String> {
    let index = Index::open(dir).unwrap();
    let mut q = Query::new(q, Mode::Bm25, 10);
    q.merge = true;
    index
        .search(&q)
        .unwrap()
        .into_iter()
        .map(|h| h.text)
        .collect()
}

fn corrupt_error(e: Error) -> (PathBuf, String) {
    match e {
        Error::Corrupt { path, reason } => (path, reason),
        other => panic!("expected a corrupt-file error, got {other}"),
    }
}

#[test]
fn injected_text_bytes_are_found_on_open_and_name_the_document() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let txt = only(dir.path(), "store", ".txt");
    // Same length: the manifest's length check alone did not see this, and `--merge` (which
    // cuts spans from the stored text) returned the injected bytes.
    replace_bytes(&txt, b"town hall", b"EVIL HALL");
    let (path, reason) = corrupt_error(Index::open(dir.path()).err().expect("damage found"));
    assert_eq!(path, txt);
    assert!(
        reason.contains("`b.txt`") && !reason.contains("a.txt"),
        "{reason}"
    );
}

#[test]
fn a_damaged_vector_row_is_found_on_open_and_names_the_document() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let vec = only(dir.path(), "store", ".vec");
    // Row 0 is chunk a.txt#0: key (8 bytes), then 1.0f32; damage its first float.
    flip(&vec, 11);
    let (path, reason) = corrupt_error(Index::open(dir.path()).err().expect("damage found"));
    assert_eq!(path, vec);
    assert!(
        reason.contains("`a.txt`") && !reason.contains("b.txt"),
        "{reason}"
    );
}

#[test]
fn damage_after_open_is_found_on_read() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let index = Index::open(dir.path()).unwrap();
    replace_bytes(
        &only(dir.path(), "store", ".txt"),
        b"town hall",
        b"EVIL HALL",
    );
    let mut q = Query::new("parking", Mode::Bm25, 10);
    q.merge = true;
    let e = index
        .search(&q)
        .expect_err("the damaged text is not returned");
    let (_, reason) = corrupt_error(e);
    assert!(reason.contains("text of document `b.txt`"), "{reason}");
    // Vectors read from the store (a snapshot catching up) are checked too.
    flip(&only(dir.path(), "store", ".vec"), 11);
    let key = index.store().docs()["a.txt"].keys[0];
    let (_, reason) = corrupt_error(index.store().vectors(&[key]).unwrap_err());
    assert!(
        reason.contains("chunk `a.txt#0` of document `a.txt`"),
        "{reason}"
    );
}

#[test]
fn check_passes_a_sound_index_and_lists_damage_per_file_and_document() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let report = check(dir.path()).unwrap();
    assert!(report.is_ok(), "{report}");
    assert_eq!((report.documents, report.chunks), (2, 4));

    replace_bytes(
        &only(dir.path(), "store", ".txt"),
        b"town hall",
        b"EVIL HALL",
    );
    let pos = files(dir.path(), "bm25", ".idx");
    assert!(!pos.is_empty());
    flip(&pos[0], 0);
    let report = check(dir.path()).unwrap();
    assert!(!report.is_ok() && report.repairable(), "{report}");
    assert_eq!(report.affected_documents(), ["b.txt"]);
    let txt = report
        .problems
        .iter()
        .find(|p| p.path.extension().is_some_and(|e| e == "txt"))
        .expect("the .txt problem");
    assert!(txt.what.contains("checksum"), "{report}");
    assert!(
        report.problems.iter().any(|p| p.path == pos[0]),
        "the damaged BM25 file is named: {report}"
    );
    let shown = report.to_string();
    assert!(
        shown.contains("2 problems") && shown.contains("`b.txt`"),
        "{shown}"
    );

    std::fs::write(dir.path().join("manifest.json"), b"{\"format\": 1, \"gen").unwrap();
    let report = check(dir.path()).unwrap();
    assert!(!report.repairable(), "{report}");
    assert!(matches!(
        check(&dir.path().join("nothing-here")),
        Err(Error::Missing { .. })
    ));
}

#[test]
fn opening_for_writing_rebuilds_damaged_bm25_files_from_the_store() {
    // Before: a truncated meta.json made `IndexWriter::open` fail with a raw tantivy error, and
    // a damaged postings file passed unnoticed ("unchanged") while BM25 searches failed.
    for (file, truncate) in [
        ("meta.json", true),
        (".managed.json", true),
        (".fast", true),
        (".store", true),
        (".idx", false),
        (".term", false),
    ] {
        let dir = tempfile::tempdir().unwrap();
        build(dir.path());
        let want = bm25_hits(dir.path(), "parking");
        let targets: Vec<PathBuf> = files(dir.path(), "bm25", file);
        assert!(!targets.is_empty(), "no {file} file");
        for t in &targets {
            if truncate {
                let len = std::fs::metadata(t).unwrap().len();
                std::fs::OpenOptions::new()
                    .write(true)
                    .open(t)
                    .unwrap()
                    .set_len(len / 2)
                    .unwrap();
            } else {
                flip(t, 0);
            }
        }
        assert!(!check(dir.path()).unwrap().is_ok(), "{file}");
        let w = IndexWriter::open(dir.path(), settings(), false)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(w.repaired().bm25_rebuilt, "{file}");
        assert!(w.repaired().dropped_documents.is_empty(), "{file}");
        w.finish().unwrap();
        let report = check(dir.path()).unwrap();
        assert!(report.is_ok(), "{file}: {report}");
        assert_eq!(bm25_hits(dir.path(), "parking"), want, "{file}");
    }
}

#[test]
fn repair_drops_damaged_documents_and_rebuilds_the_vectors_without_them() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    replace_bytes(
        &only(dir.path(), "store", ".txt"),
        b"town hall",
        b"EVIL HALL",
    );
    for snapshot in std::fs::read_dir(dir.path()).unwrap() {
        let p = snapshot.unwrap().path();
        if p.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("vectors-")
        {
            std::fs::remove_dir_all(p).unwrap();
        }
    }
    let repaired = repair(dir.path()).unwrap();
    assert_eq!(repaired.dropped_documents, ["b.txt"]);
    assert!(repaired.bm25_rebuilt && repaired.vectors_rebuilt);
    assert_eq!(repaired.damage.len(), 1);
    let report = check(dir.path()).unwrap();
    assert!(report.is_ok(), "{report}");
    assert_eq!(report.documents, 1);
    let index = Index::open(dir.path()).unwrap();
    assert!(index
        .search(&Query::new("parking", Mode::Bm25, 5))
        .unwrap()
        .is_empty());
    let dense = index
        .search(&Query::new("x", Mode::Dense, 5).with_vector(&[0.0, 1.0]))
        .unwrap();
    assert!(dense.iter().all(|h| h.doc_id == "a.txt"), "{dense:?}");
    drop(index);
    // Indexing the dropped document again makes the index whole.
    let mut w = IndexWriter::open(dir.path(), settings(), false).unwrap();
    assert!(!w.repaired().any());
    w.add_document(doc("b.txt", B, [0.0, 1.0])).unwrap();
    w.finish().unwrap();
    assert_eq!(
        bm25_hits(dir.path(), "town hall"),
        ["parking near the town hall"]
    );
    assert!(check(dir.path()).unwrap().is_ok());
}

#[test]
fn a_damaged_records_file_drops_the_documents_it_mentions() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    let mut w = IndexWriter::open(dir.path(), settings(), false).unwrap();
    w.add_document(doc("c.txt", "harbour cranes", [1.0, 0.0]))
        .unwrap();
    w.finish().unwrap();
    let records = files(dir.path(), "store", ".jsonl");
    assert_eq!(records.len(), 2);
    replace_bytes(&records[1], b"harbour", b"HARBOUR");
    let (path, reason) = corrupt_error(Index::open(dir.path()).err().unwrap());
    assert_eq!(path, records[1]);
    assert!(reason.contains("`c.txt`"), "{reason}");
    let repaired = repair(dir.path()).unwrap();
    assert_eq!(repaired.dropped_documents, ["c.txt"]);
    let report = check(dir.path()).unwrap();
    assert!(report.is_ok() && report.documents == 2, "{report}");
}

#[test]
fn indexes_written_before_checksums_are_still_read() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path());
    // Strip every checksum this version adds, as a format-1 writer wrote them.
    let records = only(dir.path(), "store", ".jsonl");
    let mut out = Vec::new();
    for line in std::fs::read(&records).unwrap().split(|&b| b == b'\n') {
        if line.is_empty() {
            continue;
        }
        let mut v: serde_json::Value = serde_json::from_slice(line).unwrap();
        let o = v.as_object_mut().unwrap();
        o.remove("text_hash");
        o.remove("vector_hash");
        serde_json::to_writer(&mut out, &v).unwrap();
        out.push(b'\n');
    }
    std::fs::write(&records, &out).unwrap();
    let mpath = dir.path().join("manifest.json");
    let mut m: serde_json::Value = serde_json::from_slice(&std::fs::read(&mpath).unwrap()).unwrap();
    let seg = &mut m["segments"][0];
    seg["records_len"] = out.len().into();
    seg["records_hash"] = blake3::hash(&out).to_hex().to_string().into();
    let seg = seg.as_object_mut().unwrap();
    seg.remove("vectors_hash");
    seg.remove("texts_hash");
    std::fs::write(&mpath, serde_json::to_vec(&m).unwrap()).unwrap();

    assert_eq!(
        bm25_hits(dir.path(), "town hall"),
        ["parking near the town hall"]
    );
    assert!(check(dir.path()).unwrap().is_ok());
}
