//! `cargo bench -p chunklab`: throughput of the main strategies on real text (the LangChain golden
//! inputs from ../shared when present, else the bundled samples), one thread except for the
//! `langchain` cases, whose pieces are found and merged on all cores (`RAYON_NUM_THREADS=1`
//! for one); Markdown parsing with heading-aware chunking; chunk ids; and the CLI's output
//! formats rendering those chunks (`-- render`). Side-by-side
//! comparisons with the Python peers live in bench/peers.sh and docs/PERFORMANCE.md.

// The CLI's output formats are not a library: the bench compiles its two files as modules.
#[allow(dead_code)]
#[path = "../src/json.rs"]
mod json;
#[allow(dead_code)]
#[path = "../src/output.rs"]
mod output;

use chunklab_core::chunk::{chunk_id, chunk_ids, IdInput};
use chunklab_core::config::Compat;
use chunklab_core::strategies::build;
use chunklab_core::text::floor_char_boundary;
use chunklab_core::ChunkConfig;
use chunklab_core::{chunk_document, CharSizer, Document, Sizer};
use chunklab_parse::markdown::parse_markdown;
use chunklab_parse::Limits;
use chunklab_tokenizers::Tiktoken;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;
use std::sync::Arc;

fn corpus() -> String {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let golden = root.join("../shared/golden/langchain/inputs");
    let dir = if golden.is_dir() {
        golden
    } else {
        root.join("samples")
    };
    let mut paths: Vec<_> = std::fs::read_dir(&dir)
        .expect("bench corpus")
        .map(|e| e.unwrap().path())
        .collect();
    paths.sort();
    let mut text = String::new();
    for p in paths {
        text.push_str(&std::fs::read_to_string(p).unwrap_or_default());
        text.push_str("\n\n");
    }
    // About 2 MB, so a run measures steady state rather than start-up.
    let reps = (2_000_000 / text.len().max(1)).max(1);
    text.repeat(reps)
}

fn bench(c: &mut Criterion) {
    let text = corpus();
    let mut g = c.benchmark_group("chunk");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.sample_size(10);
    let chars: Arc<dyn Sizer> = Arc::new(CharSizer);
    let cl100k: Arc<dyn Sizer> = Arc::new(Tiktoken::cl100k());
    let cases: Vec<(&str, ChunkConfig, Arc<dyn Sizer>)> = vec![
        (
            "recursive_2000_200_chars",
            opts("recursive", 2000, 200),
            chars.clone(),
        ),
        (
            "recursive_langchain_2000_200_chars",
            langchain(opts("recursive", 2000, 200)),
            chars.clone(),
        ),
        (
            "fixed_1000_100_chars",
            opts("fixed", 1000, 100),
            chars.clone(),
        ),
        (
            "sentence_1000_chars",
            opts("sentence", 1000, 0),
            chars.clone(),
        ),
        ("paragraph_1000_chars", opts("paragraph", 1000, 0), chars),
        (
            "fixed_512_64_cl100k",
            opts("fixed", 512, 64),
            cl100k.clone(),
        ),
        (
            "recursive_512_64_cl100k",
            opts("recursive", 512, 64),
            cl100k.clone(),
        ),
        (
            "recursive_langchain_512_64_cl100k",
            langchain(opts("recursive", 512, 64)),
            cl100k.clone(),
        ),
    ];
    for (name, o, sizer) in cases {
        let chunker = build(&o, sizer, None).unwrap();
        g.bench_function(name, |b| b.iter(|| chunker.spans(&text).unwrap().len()));
    }
    g.bench_function("tokenize_once_cl100k", |b| b.iter(|| cl100k.measure(&text)));
    g.finish();

    // Markdown heading-aware chunking, the parse included (what `chunklab chunk doc.md
    // --strategy headings` and bench/peers.sh's markdown case do per file).
    let markdown = markdown_corpus();
    let mut g = c.benchmark_group("markdown");
    g.throughput(Throughput::Bytes(
        markdown.iter().map(|d| d.len() as u64).sum(),
    ));
    g.sample_size(10);
    let headings = ChunkConfig::new("headings".parse().unwrap(), 2000);
    let headings = build(&headings, Arc::new(CharSizer), None).unwrap();
    g.bench_function("parse_and_headings_2000_chars", |b| {
        b.iter(|| {
            markdown
                .iter()
                .map(|d| {
                    let parsed = parse_markdown(d, &Limits::default());
                    headings.chunk_parsed(&parsed).unwrap().len()
                })
                .sum::<usize>()
        })
    });
    g.bench_function("parse_only", |b| {
        b.iter(|| {
            markdown
                .iter()
                .map(|d| parse_markdown(d, &Limits::default()).elements.len())
                .sum::<usize>()
        })
    });
    g.finish();

    // Chunk ids (BLAKE3 of each chunk's header and text): one at a time as `chunk_id`, and side
    // by side as `chunk_ids` (what `chunklab chunk` does), for chunks of about 2,000 bytes (the
    // harness's recursive 2000) and of a few hundred (small documents).
    for (name, lens) in [("2000_bytes", 1_800..2_200), ("small", 100..900)] {
        let mut g = c.benchmark_group(format!("ids_{name}"));
        let items: Vec<IdInput<'_>> = (0..10_000)
            .map(|i| {
                let len = lens.start + i * 7919 % lens.len();
                let start = i * 31 % (text.len() / 2);
                let start = floor_char_boundary(&text, start);
                let end = floor_char_boundary(&text, start + len);
                IdInput {
                    doc_id: "docs/handboek.md",
                    start,
                    end,
                    config: "recursive size=2000 overlap=200 compat=langchain",
                    text: &text[start..end],
                }
            })
            .collect();
        g.throughput(Throughput::Bytes(
            items.iter().map(|it| it.text.len() as u64).sum(),
        ));
        g.bench_function("one_at_a_time", |b| {
            b.iter(|| {
                items
                    .iter()
                    .map(|it| chunk_id(it.doc_id, it.start, it.end, it.config, it.text).len())
                    .sum::<usize>()
            })
        });
        g.bench_function("side_by_side", |b| b.iter(|| chunk_ids(&items).len()));
        g.finish();
    }

    // Output: the chunks of the 2 MB text (recursive, LangChain's 2000/200) rendered in each
    // format on one thread, as `chunklab chunk --format F` renders them (every field, the text
    // escaped); throughput in bytes of chunk text.
    let recursive = build(
        &langchain(opts("recursive", 2000, 200)),
        Arc::new(CharSizer),
        None,
    )
    .unwrap();
    let chunks = chunk_document(
        &Document::new("docs/handboek.md", "bench", &text),
        recursive.as_ref(),
    )
    .expect("chunks");
    let mut g = c.benchmark_group("render");
    g.throughput(Throughput::Bytes(
        chunks.iter().map(|c| c.text.len() as u64).sum(),
    ));
    g.sample_size(10);
    for format in [
        output::Format::Jsonl,
        output::Format::Langchain,
        output::Format::Llamaindex,
    ] {
        let writer = output::ChunkWriter::new(format, "chars");
        let mut buf = Vec::new();
        g.bench_function(format!("{format:?}").to_lowercase(), |b| {
            b.iter(|| {
                buf.clear();
                writer
                    .render_range(&chunks, None, 0..chunks.len(), &mut buf)
                    .expect("render");
                buf.len()
            })
        });
    }
    g.finish();
}

/// The repository's own Markdown (README, ARCHITECTURE and docs/*.md: real headings, lists,
/// tables and code), as separate documents, repeated to about 2 MB.
fn markdown_corpus() -> Vec<String> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    let mut docs: Vec<_> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    docs.sort();
    paths.extend(docs);
    let one: Vec<String> = paths
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("markdown file"))
        .collect();
    let bytes: usize = one.iter().map(String::len).sum();
    let reps = (2_000_000 / bytes.max(1)).max(1);
    (0..reps).flat_map(|_| one.iter().cloned()).collect()
}

fn opts(strategy: &str, size: usize, overlap: usize) -> ChunkConfig {
    ChunkConfig {
        overlap,
        ..ChunkConfig::new(strategy.parse().unwrap(), size)
    }
}

fn langchain(config: ChunkConfig) -> ChunkConfig {
    ChunkConfig {
        compat: Compat::LangChain,
        ..config
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
