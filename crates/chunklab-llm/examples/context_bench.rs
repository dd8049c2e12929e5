//! Benchmark (not a test): chunks contextualised per second with the local model, with and
//! without reuse of the document's KV cache.
//!
//! ```sh
//! RAYON_NUM_THREADS=2 cargo run --release -p chunklab-llm --example context_bench -- \
//!     /work/shared/datasets/documents/markdown/md_django-3.2_topics_checks.md 6
//! ```
use chunklab_core::{chunk_document, strategies, CharSizer, Document};
use chunklab_llm::context::{contextualize, ChunkRef, ContextOptions};
use chunklab_llm::local::LocalOptions;
use chunklab_llm::{spec, Llm};
use std::sync::Arc;
use std::time::Instant;

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args.next().expect("usage: context_bench FILE [CHUNKS]");
    let n: usize = args.next().map(|s| s.parse().expect("CHUNKS")).unwrap_or(6);
    let text = std::fs::read_to_string(&path).expect("readable UTF-8 file");
    let chunker = strategies::Recursive::new(Arc::new(CharSizer), 1000, 0).unwrap();
    let chunks = chunk_document(&Document::new("d", &path, &text), &chunker).unwrap();
    let refs: Vec<ChunkRef> = chunks
        .iter()
        .take(n)
        .map(|c| ChunkRef {
            span: c.start_byte..c.end_byte,
            headings: &[],
        })
        .collect();
    let copts = ContextOptions {
        max_tokens: 48,
        ..ContextOptions::default()
    };
    let home = chunklab_embed::fetch::home_dir();
    for reuse in [true, false] {
        let llm = spec::open_local(
            "smollm2",
            &home,
            false,
            LocalOptions {
                reuse_prefix: reuse,
            },
        )
        .unwrap();
        let doc_tokens = llm.count_tokens(&text);
        let t = Instant::now();
        let (contexts, _) = contextualize(&llm, &text, "d", &refs, &copts).unwrap();
        let s = t.elapsed().as_secs_f64();
        println!(
            "reuse={reuse}: document {doc_tokens} tokens, {} chunks in {s:.1} s = {:.3} chunks/s",
            contexts.len(),
            contexts.len() as f64 / s
        );
        if reuse {
            println!("first context: {:?}", contexts[0]);
        }
    }
}
