//! The index open path on damaged index directories. `init` writes a small real index (three
//! documents, two commits so the store has more than one segment) to a scratch dir; each input
//! picks one of its files (first byte) and a mutation (second byte: replace the contents with the
//! rest of the input, truncate, overwrite at an offset, flip bits, delete), applied to a fresh
//! copy. Then `Index::open`, BM25 / dense / hybrid searches, a document text read and `check()`:
//! errors, never a panic (chunklab catches tantivy's own panics by design).
//!
//! **The fresh copy is cheap.** Each input gets a new work directory in which every file the
//! input does not damage is a hard link to the template's file, the damaged file is written
//! anew (or left out: delete), and lock files (which tantivy opens for writing to `flock` them)
//! are written as copies. This is the same directory as a full copy for everything that only
//! reads, and the open / search / check path only reads index files: after every input the
//! template's files are compared byte for byte with what `init` wrote, so a write through a
//! link is a crash here, not a silently damaged template. `CHUNKLAB_FUZZ_FULL_COPY=1` copies
//! every file instead (the target's old behaviour), to compare speed or findings.
#![no_main]

use chunklab_index::{check, Index, IndexWriter, Mode, NewChunk, NewDocument, Query, Settings};
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One file of the template index.
struct File {
    /// Path relative to the index directory.
    rel: PathBuf,
    /// The contents `init` wrote (mutations start from these; the template is checked against
    /// them after every input).
    bytes: Vec<u8>,
    /// Opened for writing by the code under test (`flock`): copied, never linked.
    lock: bool,
    /// A file the inputs damage (every file but chunklab's writer `LOCK`, which readers never
    /// touch).
    target: bool,
}

struct Template {
    _root: tempfile::TempDir,
    index: PathBuf,
    /// Sub-directories, relative, parents first.
    dirs: Vec<PathBuf>,
    /// Every file, sorted by path.
    files: Vec<File>,
    /// Indices into `files` of the files the inputs damage (the first input byte picks one).
    targets: Vec<usize>,
    work: PathBuf,
    /// Copy every file instead of linking (`CHUNKLAB_FUZZ_FULL_COPY=1`).
    full_copy: bool,
}

fn scratch_root() -> tempfile::TempDir {
    let shm = Path::new("/dev/shm");
    if shm.is_dir() {
        if let Ok(d) = tempfile::tempdir_in(shm) {
            return d;
        }
    }
    tempfile::tempdir().expect("scratch dir")
}

/// Add a document whose chunks are its paragraphs.
fn add(w: &mut IndexWriter, id: &str, text: &str, seed: f32) {
    let mut chunks = Vec::new();
    let mut start = 0;
    for (i, para) in text.split("\n\n").enumerate() {
        let (a, b) = (start, start + para.len());
        start = b + 2;
        let chars = |n: usize| text[..n].chars().count();
        let raw = [seed + i as f32, 1.0, 0.5 - seed, (i % 2) as f32];
        let norm = raw.iter().map(|x| x * x).sum::<f32>().sqrt();
        let v = raw.iter().map(|x| x / norm).collect();
        chunks.push(NewChunk::new(
            &format!("{id}#{i}"),
            a,
            b,
            chars(a),
            chars(b),
            i,
            v,
        ));
    }
    w.add_document(NewDocument {
        doc_id: id.into(),
        source: id.into(),
        hash: format!("h-{id}"),
        text: text.into(),
        acl: vec![],
        fields: Default::default(),
        chunks,
    })
    .expect("add document");
}

/// Files and directories under `dir`, relative to `base`, sorted, parents before children.
fn walk(base: &Path, dir: &Path, files: &mut Vec<PathBuf>, dirs: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read template")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        let rel = p.strip_prefix(base).expect("inside").to_path_buf();
        if p.is_dir() {
            dirs.push(rel);
            walk(base, &p, files, dirs);
        } else {
            files.push(rel);
        }
    }
}

fn template() -> &'static Template {
    static T: OnceLock<Template> = OnceLock::new();
    T.get_or_init(|| {
        let root = scratch_root();
        let index = root.path().join("template.idx");
        let settings = Settings {
            chunker: "paragraph size=100 unit=chars".into(),
            reading: String::new(),
            unit: "chars".into(),
            tokenizer: None,
            model: "toy".into(),
            dim: 4,
            model_max_tokens: 16,
            lang: "en".into(),
        };
        let mut w = IndexWriter::open(&index, settings, false).expect("open writer");
        let a = "Wind turbines at sea.\n\nParking permits for visitors.";
        add(&mut w, "a.txt", a, 0.0);
        let b = "Één ĳsbeer op het strand.\n\nDe raad besluit.";
        add(&mut w, "b.md", b, 1.0);
        w.commit().expect("first commit");
        let c = "Cable, travel and utilities tell the total price up front.";
        add(&mut w, "c.txt", c, 2.0);
        w.finish().expect("finish");
        Index::open(&index).expect("the template opens");
        let (mut rels, mut dirs) = (Vec::new(), Vec::new());
        walk(&index, &index, &mut rels, &mut dirs);
        let files: Vec<File> = rels
            .into_iter()
            .map(|rel| {
                let name = rel.file_name().and_then(|n| n.to_str()).unwrap_or("");
                File {
                    bytes: std::fs::read(index.join(&rel)).expect("read template file"),
                    lock: name == "LOCK" || name.ends_with(".lock"),
                    target: name != "LOCK",
                    rel,
                }
            })
            .collect();
        let targets = (0..files.len()).filter(|&i| files[i].target).collect();
        let work = root.path().join("work.idx");
        Template {
            _root: root,
            index,
            dirs,
            files,
            targets,
            work,
            full_copy: std::env::var_os("CHUNKLAB_FUZZ_FULL_COPY").is_some_and(|v| v == "1"),
        }
    })
}

/// The damaged contents of a file (`None`: the file is deleted).
fn mutate(original: &[u8], how: u8, data: &[u8]) -> Option<Vec<u8>> {
    let mut bytes = original.to_vec();
    let at = |n: usize| {
        let x = data
            .iter()
            .take(4)
            .fold(0usize, |a, &b| a << 8 | b as usize);
        if n == 0 {
            0
        } else {
            x % n
        }
    };
    match how % 5 {
        0 => bytes = data.to_vec(),
        1 => bytes.truncate(at(bytes.len())),
        2 => {
            let start = at(bytes.len());
            for (i, &b) in data.iter().skip(4).enumerate() {
                match bytes.get_mut(start + i) {
                    Some(x) => *x = b,
                    None => bytes.push(b),
                }
            }
        }
        3 => {
            for (i, &b) in data.iter().enumerate().skip(4) {
                let n = bytes.len();
                if n > 0 {
                    bytes[(at(n) + i * 7919) % n] ^= b;
                }
            }
        }
        _ => return None,
    }
    Some(bytes)
}

/// A fresh work directory: the template with file `damaged` replaced by `contents` (`None`:
/// absent). Undamaged files are hard links, lock files copies.
fn build_work(t: &Template, damaged: usize, contents: Option<&[u8]>) {
    match std::fs::remove_dir_all(&t.work) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => panic!("clear work dir: {e}"),
        _ => {}
    }
    std::fs::create_dir(&t.work).expect("mkdir");
    for d in &t.dirs {
        std::fs::create_dir(t.work.join(d)).expect("mkdir");
    }
    for (i, f) in t.files.iter().enumerate() {
        let dst = t.work.join(&f.rel);
        if i == damaged {
            if let Some(bytes) = contents {
                std::fs::write(&dst, bytes).expect("write damaged file");
            }
        } else if f.lock || t.full_copy {
            std::fs::write(&dst, &f.bytes).expect("copy lock file");
        } else {
            std::fs::hard_link(t.index.join(&f.rel), &dst).expect("link");
        }
    }
}

/// Every template file still holds what `init` wrote (nothing wrote through a hard link).
fn assert_template_intact(t: &Template) {
    for f in &t.files {
        let path = t.index.join(&f.rel);
        let now = std::fs::read(&path).expect("read template file");
        assert!(
            now == f.bytes,
            "template file {} was changed through a hard link: the open/search/check path wrote to an index file",
            f.rel.display()
        );
    }
}

fuzz_target!(
    init: {
        chunklab_fuzz::init();
        template();
    },
    |data: &[u8]| {
        let t = template();
        let [which, how, rest @ ..] = data else {
            return;
        };
        let damaged = t.targets[*which as usize % t.targets.len()];
        let contents = mutate(&t.files[damaged].bytes, *how, rest);
        build_work(t, damaged, contents.as_deref());
        chunklab_fuzz::guard(|| {
            if let Ok(index) = Index::open(&t.work) {
                let v = [0.5f32, 0.5, 0.5, 0.5];
                for mode in [Mode::Bm25, Mode::Dense, Mode::Hybrid] {
                    let _ = index.search(&Query::new("parking wind ĳsbeer", mode, 3).with_vector(&v));
                }
                let _ = index.store().doc_text("b.md");
            }
            let _ = check(&t.work);
        });
        assert_template_intact(t);
    }
);
