//! `cargo bench -p chunklab-index --bench hnsw`: HNSW insert throughput (items/s) and single-query
//! latency at 384 dimensions, with the graph holding f32 or i8 copies of the vectors. 20,000
//! clustered unit vectors, two build threads. The full-scale measurement (1M items, recall@10,
//! memory) is the `index_bench` example; see docs/PERFORMANCE.md "Index".

use chunklab_index::vectors::{GraphVectors, HnswParams, VectorIndex};
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};

const DIM: usize = 384;
const ITEMS: usize = 20_000;

/// SplitMix64 → uniform → Box–Muller: deterministic data without a dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) >> 11) as f64 / (1u64 << 53) as f64
    }

    fn gaussian(&mut self) -> f32 {
        let u = self.next().max(1e-300);
        let v = self.next();
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
}

fn normalized(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// `n` points around 200 centroids (cosine to the centroid about 0.75).
fn clustered(n: usize, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng(seed);
    let centroids: Vec<Vec<f32>> = (0..200)
        .map(|_| normalized((0..DIM).map(|_| rng.gaussian()).collect()))
        .collect();
    (0..n)
        .map(|i| {
            let centroid = &centroids[(i * 7919) % centroids.len()];
            normalized(
                centroid
                    .iter()
                    .map(|c| c + 0.045 * rng.gaussian())
                    .collect(),
            )
        })
        .collect()
}

fn built(vectors: &[Vec<f32>], graph: GraphVectors) -> VectorIndex {
    let params = HnswParams {
        graph,
        ..HnswParams::default()
    };
    let mut index = VectorIndex::new(DIM, params).with_build_threads(2);
    let items: Vec<(u64, &[f32])> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64, v.as_slice()))
        .collect();
    index.add_batch(&items).unwrap();
    index
}

fn bench(c: &mut Criterion) {
    let vectors = clustered(ITEMS, 1);
    let queries = clustered(64, 2);
    let mut insert = c.benchmark_group("hnsw_insert");
    insert.throughput(Throughput::Elements(ITEMS as u64));
    insert.sample_size(10);
    for graph in [GraphVectors::I8, GraphVectors::F32] {
        insert.bench_function(graph.name(), |b| {
            b.iter_batched(|| (), |()| built(&vectors, graph), BatchSize::PerIteration)
        });
    }
    insert.finish();
    let mut search = c.benchmark_group("hnsw_search");
    search.throughput(Throughput::Elements(queries.len() as u64));
    for graph in [GraphVectors::I8, GraphVectors::F32] {
        let index = built(&vectors, graph);
        search.bench_function(graph.name(), |b| {
            b.iter(|| {
                for query in &queries {
                    std::hint::black_box(index.search_graph(query, 10, None).unwrap());
                }
            })
        });
    }
    search.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
