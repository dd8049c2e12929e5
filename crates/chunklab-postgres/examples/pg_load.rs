//! Ingest and search load on a PostgreSQL store (one server, or a `postgres-cluster://` spec):
//! N synthetic chunks written through the store's writer (documents of 10 chunks, committed
//! every 500 documents), then Q hybrid and Q dense queries, one at a time; prints chunks/s and
//! the latency percentiles as one JSON line.
//!
//! ```text
//! cargo run --release -p chunklab-postgres --example pg_load -- STORE [CHUNKS] [QUERIES] [--search-only] [--exact N] [--no-bulk]
//! ```
//!
//! STORE may also be a directory: the embedded index (tantivy BM25 + HNSW) loaded and searched
//! with the same data and queries, for comparison.
//!
//! `--search-only` searches a store loaded before (a replica, say) without writing;
//! `--exact N` also runs the first N queries with unbounded full-text ranking
//! (`FullText::exact`, PostgreSQL only) and reports its latency and the mean top-10 overlap of the bounded
//! bm25 and hybrid results with it; `--no-bulk` loads through the incremental path (index
//! upkeep per row) instead of the bulk path.
//!
//! Chunks are 40–120 words drawn from a Zipf-like vocabulary of 20,000 words, with 384-dim
//! feature-hashing vectors (the size of MiniLM's and e5-small's, no model in the loop), so what
//! is measured is the store: COPY, the HNSW and GIN index maintenance, and the searches.

use chunklab_index::{ChunkStore, Mode, NewChunk, NewDocument, Query, Settings};
use chunklab_postgres::search::FullText;
use std::time::Instant;

const DIM: usize = 384;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Zipf-like: small ranks much more often.
    fn word(&mut self) -> String {
        let u = (self.next() % 1_000_000) as f64 / 1_000_000.0;
        let rank = (20_000f64.powf(u)) as u64;
        format!("w{rank}")
    }
}

fn embed(text: &str) -> Vec<f32> {
    let mut v = vec![0f32; DIM];
    for w in text.split(' ') {
        let h = w.bytes().fold(1469598103934665603u64, |h, b| {
            (h ^ b as u64).wrapping_mul(1099511628211)
        });
        v[(h % DIM as u64) as usize] += if h & 1 == 0 { 1.0 } else { -1.0 };
    }
    let n = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-6);
    v.iter().map(|x| x / n).collect()
}

fn document(d: usize, rng: &mut Rng) -> NewDocument {
    let mut text = String::new();
    let mut chunks = Vec::new();
    for i in 0..10 {
        let words = 40 + (rng.next() % 81) as usize;
        let para: Vec<String> = (0..words).map(|_| rng.word()).collect();
        let para = para.join(" ");
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let start = text.len();
        text.push_str(&para);
        let mut c = NewChunk::new(
            &format!("d{d}-c{i}"),
            start,
            text.len(),
            start,
            text.len(),
            i,
            embed(&para),
        );
        c.tokens = words;
        chunks.push(c);
    }
    NewDocument {
        doc_id: format!("doc{d:07}.txt"),
        source: format!("load/doc{d:07}.txt"),
        hash: format!("h{d}"),
        text,
        acl: vec![if d.is_multiple_of(2) {
            "finance"
        } else {
            "legal"
        }
        .into()],
        fields: Default::default(),
        chunks,
    }
}

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 * p).ceil() as usize).clamp(1, v.len()) - 1]
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let store = args
        .get(1)
        .expect("usage: pg_load STORE [CHUNKS] [QUERIES]");
    let chunks: usize = args.get(2).map_or(100_000, |s| s.parse().expect("CHUNKS"));
    let queries: usize = args.get(3).map_or(200, |s| s.parse().expect("QUERIES"));
    let flag = |f: &str| args.iter().any(|a| a == f);
    let exact_n: usize = args
        .iter()
        .position(|a| a == "--exact")
        .map_or(0, |i| args[i + 1].parse().expect("--exact N"));
    let settings = Settings {
        chunker: "synthetic 10 chunks/doc".into(),
        reading: String::new(),
        unit: "words".into(),
        tokenizer: None,
        model: "hash-384".into(),
        dim: DIM,
        model_max_tokens: 512,
        hnsw: None,
        lang: "en".into(),
        run: None,
    };
    let (mut ingest_s, mut copy_s) = (0.0, 0.0);
    let mut nc = 0;
    if !flag("--search-only") {
        let mut w: Box<dyn chunklab_index::StoreWriter> = if flag("--no-bulk") {
            Box::new(
                chunklab_postgres::PgWriter::open(store, settings, true)
                    .expect("writer")
                    .with_bulk(chunklab_postgres::writer::BulkMode::Never),
            )
        } else {
            // A postgres:// URL or cluster spec, or a directory: the embedded index on the
            // same data.
            chunklab_postgres::open_writer(store, settings, true).expect("writer")
        };
        let mut rng = Rng(0x9e3779b97f4a7c15);
        let docs = chunks.div_ceil(10);
        let t0 = Instant::now();
        for d in 0..docs {
            w.add_document(document(d, &mut rng)).expect("add");
            if (d + 1) % 500 == 0 {
                w.commit().expect("commit");
            }
        }
        w.commit().expect("commit");
        copy_s = t0.elapsed().as_secs_f64();
        nc = w.finish().expect("finish").1;
        ingest_s = t0.elapsed().as_secs_f64();
    }
    // Replicas apply the primary's WAL asynchronously: wait until they hold every chunk.
    let s = chunklab_postgres::open_store(store).expect("store");
    let waited = Instant::now();
    while s.counts().map(|c| c.1).unwrap_or(0) < nc && waited.elapsed().as_secs() < 600 {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    let replica_wait_s = waited.elapsed().as_secs_f64();
    let (nd, nc) = s.counts().expect("counts");
    let run = |s: &dyn ChunkStore, mode: Mode, n: usize| {
        let mut out = Vec::new();
        let mut qrng = Rng(42);
        for _ in 0..n {
            let text: Vec<String> = (0..4).map(|_| qrng.word()).collect();
            let text = text.join(" ");
            let v = embed(&text);
            let mut q = Query::new(&text, mode, 10);
            q.vector = Some(&v);
            let t = Instant::now();
            let hits = s.search(&q).expect("search");
            out.push((t.elapsed().as_secs_f64() * 1e3, hits));
        }
        out
    };
    let lat =
        |mode: Mode| -> Vec<f64> { run(s.as_ref(), mode, queries).iter().map(|x| x.0).collect() };
    let (mut h, mut d, mut b) = (lat(Mode::Hybrid), lat(Mode::Dense), lat(Mode::Bm25));
    let mut exact = String::new();
    if exact_n > 0 && chunklab_postgres::is_postgres_url(store) {
        let bounded_of = |mode| run(s.as_ref(), mode, exact_n);
        let exact_store: Box<dyn ChunkStore> =
            if store.starts_with(chunklab_postgres::shards::CLUSTER_SCHEME) {
                Box::new(
                    chunklab_postgres::shards::ShardedStore::open(store)
                        .expect("store")
                        .with_full_text(FullText::exact()),
                )
            } else {
                Box::new(
                    chunklab_postgres::PgStore::open(store)
                        .expect("store")
                        .with_full_text(FullText::exact()),
                )
            };
        for (name, mode) in [("bm25", Mode::Bm25), ("hybrid", Mode::Hybrid)] {
            let bounded = bounded_of(mode);
            let full = run(exact_store.as_ref(), mode, exact_n);
            let mut overlap = 0.0;
            for ((_, a), (_, e)) in bounded.iter().zip(&full) {
                let common = a
                    .iter()
                    .filter(|h| e.iter().any(|x| x.chunk_id == h.chunk_id))
                    .count();
                overlap += common as f64 / e.len().max(1) as f64;
            }
            let mut t: Vec<f64> = full.iter().map(|x| x.0).collect();
            exact.push_str(&format!(
                ",\"{name}_exact_p50_ms\":{:.2},\"{name}_exact_p95_ms\":{:.2},\"{name}_top10_overlap\":{:.3}",
                pct(&mut t, 0.5),
                pct(&mut t, 0.95),
                overlap / exact_n as f64
            ));
        }
    }
    println!(
        "{{\"store\":\"{}\",\"documents\":{nd},\"chunks\":{nc},\"ingest_s\":{ingest_s:.1},\"copy_s\":{copy_s:.1},\"chunks_per_s\":{:.0},\"replica_wait_s\":{replica_wait_s:.1},\"queries\":{queries},\"hybrid_p50_ms\":{:.2},\"hybrid_p95_ms\":{:.2},\"dense_p50_ms\":{:.2},\"dense_p95_ms\":{:.2},\"bm25_p50_ms\":{:.2},\"bm25_p95_ms\":{:.2}{exact}}}",
        s.location(),
        if ingest_s > 0.0 { nc as f64 / ingest_s } else { 0.0 },
        pct(&mut h, 0.5),
        pct(&mut h, 0.95),
        pct(&mut d, 0.5),
        pct(&mut d, 0.95),
        pct(&mut b, 0.5),
        pct(&mut b, 0.95),
    );
}
