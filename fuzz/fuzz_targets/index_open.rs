//! The index open path on damaged index directories. `init` writes a small real index (three
//! documents, two commits so the store has more than one segment) to a scratch dir; each input
//! picks one of its files (first byte) and a mutation (second byte: replace the contents with the
//! rest of the input, truncate, overwrite at an offset, flip bits, delete), applied to a fresh
//! copy. Then `Index::open`, BM25 / dense / hybrid searches, a document text read and `check()`:
//! errors, never a panic (chunklab catches tantivy's own panics by design).
//!
//! Slow per execution (a directory copy plus an index open): its exec count is reported as is.
#![no_main]

use chunklab_index::{check, Index, IndexWriter, Mode, NewChunk, NewDocument, Query, Settings};
use libfuzzer_sys::fuzz_target;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

struct Template {
    _root: tempfile::TempDir,
    index: PathBuf,
    files: Vec<PathBuf>,
    work: PathBuf,
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

fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read template")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_under(&p, out);
        } else {
            out.push(p);
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
        let mut files = Vec::new();
        files_under(&index, &mut files);
        let files = files
            .into_iter()
            .filter(|p| p.file_name().is_some_and(|n| n != "LOCK"))
            .map(|p| p.strip_prefix(&index).expect("inside").to_path_buf())
            .collect();
        let work = root.path().join("work.idx");
        Template {
            _root: root,
            index,
            files,
            work,
        }
    })
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let e = e.expect("entry");
        let dst = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &dst);
        } else {
            std::fs::copy(e.path(), &dst).expect("copy");
        }
    }
}

fn mutate(path: &Path, how: u8, data: &[u8]) {
    let mut bytes = std::fs::read(path).expect("read file");
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
        _ => {
            std::fs::remove_file(path).expect("remove");
            return;
        }
    }
    std::fs::write(path, bytes).expect("write file");
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
        let _ = std::fs::remove_dir_all(&t.work);
        copy_dir(&t.index, &t.work);
        let file = &t.files[*which as usize % t.files.len()];
        mutate(&t.work.join(file), *how, rest);
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
    }
);
