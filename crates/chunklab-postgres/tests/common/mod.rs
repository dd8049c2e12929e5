//! Shared by the PostgreSQL tests: a fresh database per test on the real server
//! (chunklab_test_support::pg_url), and a small real corpus (the Chroma set's State of the Union
//! speech) cut into documents and paragraph chunks with deterministic feature-hashing vectors, so
//! that both stores get exactly the same input without loading a model.

#![allow(dead_code)]

use chunklab_index::{NewChunk, NewDocument, Settings, StoreWriter};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Vector dimension of the test corpus.
pub const DIM: usize = 64;

/// Questions on the State of the Union corpus for the shard and bulk tests (store.rs asks more).
pub const QUERIES: &[&str] = &[
    "credit card late fees",
    "Ukraine and Putin",
    "insulin prices for seniors",
    "corporations pay their fair share of taxes",
    "climate change clean energy",
];

/// The store test's questions on the State of the Union corpus (the BM25 test asks more).
pub const SOTU_QUERIES: &[&str] = &[
    "credit card late fees",
    "the bill was derailed by politics",
    "Ukraine and Putin",
    "insulin prices for seniors",
    "corporations pay their fair share of taxes",
    "border security and asylum",
    "climate change clean energy",
    "child care costs for families",
];

/// `url` with its database replaced by `db`.
pub fn with_db(url: &str, db: &str) -> String {
    chunklab_postgres::scratch::with_database(url, db)
}

/// A new, empty database on the test server; returns its URL.
pub fn fresh_db(tag: &str) -> String {
    static N: AtomicUsize = AtomicUsize::new(0);
    let url = chunklab_test_support::pg_url();
    let name = format!(
        "chunklab_{tag}_{}_{}",
        std::process::id(),
        N.fetch_add(1, Ordering::SeqCst)
    );
    let mut c = postgres::Client::connect(&url, postgres::NoTls)
        .unwrap_or_else(|e| panic!("PostgreSQL at {url}: {e}"));
    c.batch_execute(&format!("DROP DATABASE IF EXISTS {name}"))
        .unwrap();
    c.batch_execute(&format!("CREATE DATABASE {name}")).unwrap();
    with_db(&url, &name)
}

/// Settings of the toy-vector stores.
pub fn settings() -> Settings {
    Settings {
        chunker: "paragraph (test corpus)".into(),
        reading: String::new(),
        unit: "chars".into(),
        tokenizer: None,
        model: "hash-64".into(),
        dim: DIM,
        model_max_tokens: 512,
        hnsw: None,
        lang: "en".into(),
        run: None,
    }
}

/// Feature-hashing bag of words, L2-normalized (deterministic, no model).
pub fn embed(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for w in text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 2)
    {
        let h = w
            .to_lowercase()
            .bytes()
            .fold(1469598103934665603u64, |h, b| {
                (h ^ b as u64).wrapping_mul(1099511628211)
            });
        v[(h % DIM as u64) as usize] += if h & 1 == 0 { 1.0 } else { -1.0 };
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if n == 0.0 {
        v[0] = 1.0;
        return v;
    }
    v.iter().map(|x| x / n).collect()
}

/// The speech cut into `docs` documents of consecutive paragraphs; every paragraph is a chunk.
/// Even documents are in access group `finance`, odd ones in `legal`, with field `part`.
pub fn corpus(docs: usize) -> Vec<NewDocument> {
    let path = chunklab_test_support::shared_path("datasets/chroma/corpora/state_of_the_union.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let paras: Vec<&str> = text
        .split("\n\n")
        .map(str::trim)
        .filter(|p| p.len() > 40)
        .collect();
    let per = paras.len().div_ceil(docs);
    paras
        .chunks(per)
        .enumerate()
        .map(|(d, group)| {
            let body = group.join("\n\n");
            let mut chunks = Vec::new();
            let mut at = 0;
            for (i, p) in group.iter().enumerate() {
                let start = body[at..].find(p).unwrap() + at;
                let end = start + p.len();
                let sc = body[..start].chars().count();
                let ec = sc + p.chars().count();
                chunks.push(NewChunk::new(
                    &format!("d{d}-c{i}"),
                    start,
                    end,
                    sc,
                    ec,
                    i,
                    embed(p),
                ));
                at = end;
            }
            NewDocument {
                doc_id: format!("part{d:02}.md"),
                source: format!("speech/part{d:02}.md"),
                hash: format!("h{d}"),
                text: body,
                acl: vec![if d % 2 == 0 { "finance" } else { "legal" }.into()],
                fields: [("part".to_string(), format!("{}", d % 3))].into(),
                chunks,
            }
        })
        .collect()
}

/// Write `docs` through any store's writer, committing every `batch` documents.
pub fn ingest(w: &mut dyn StoreWriter, docs: &[NewDocument], batch: usize) {
    for group in docs.chunks(batch) {
        for d in group {
            w.add_document(d.clone()).unwrap();
        }
        w.commit().unwrap();
    }
}
