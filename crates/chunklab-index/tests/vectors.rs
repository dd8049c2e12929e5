//! Vector index: ANN recall against the exact scan, filters inside the search, removal,
//! durable save/load, corrupt files, input checks and determinism.

use std::collections::HashSet;
use std::fs;
use std::path::Path;

use chunklab_index::vectors::{GraphVectors, HnswParams, VectorError, VectorIndex, EXACT_SCAN_MAX};

/// Deterministic generator (SplitMix64) with Gaussian samples (Box–Muller).
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn gaussian(&mut self) -> f32 {
        let u = self.uniform().max(1e-300);
        let v = self.uniform();
        ((-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()) as f32
    }
}

fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// `n` clustered unit vectors: a Gaussian mixture of `clusters` random centroids plus noise.
fn clustered(n: usize, dim: usize, clusters: usize, noise: f32, seed: u64) -> Vec<Vec<f32>> {
    let mut rng = Rng(seed);
    let centroids: Vec<Vec<f32>> = (0..clusters)
        .map(|_| normalize((0..dim).map(|_| rng.gaussian()).collect()))
        .collect();
    (0..n)
        .map(|_| {
            let centroid = &centroids[(rng.next_u64() % clusters as u64) as usize];
            normalize(
                centroid
                    .iter()
                    .map(|c| c + noise * rng.gaussian())
                    .collect(),
            )
        })
        .collect()
}

fn build(vectors: &[Vec<f32>], params: HnswParams) -> VectorIndex {
    let mut index = VectorIndex::new(vectors[0].len(), params);
    let items: Vec<(u64, &[f32])> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64 * 3 + 1, v.as_slice()))
        .collect();
    index.add_batch(&items).unwrap();
    index
}

fn keys(hits: &[(u64, f32)]) -> Vec<u64> {
    hits.iter().map(|hit| hit.0).collect()
}

/// Mean recall@k of `search` against `search_exact` over `queries`.
fn recall(
    index: &VectorIndex,
    queries: &[Vec<f32>],
    k: usize,
    graph_only: bool,
    filter: Option<&dyn Fn(u64) -> bool>,
) -> f64 {
    let mut found = 0usize;
    let mut wanted = 0usize;
    for query in queries {
        let exact: HashSet<u64> = keys(&index.search_exact(query, k, filter).unwrap())
            .into_iter()
            .collect();
        let approximate = if graph_only {
            index.search_graph(query, k, filter).unwrap()
        } else {
            index.search(query, k, filter).unwrap()
        };
        found += approximate
            .iter()
            .filter(|hit| exact.contains(&hit.0))
            .count();
        wanted += exact.len();
    }
    found as f64 / wanted as f64
}

#[test]
fn graph_recall_at_10_is_at_least_0_98() {
    let vectors = clustered(4_000, 64, 200, 0.35, 1);
    let queries = clustered(200, 64, 200, 0.35, 2);
    for graph in [GraphVectors::I8, GraphVectors::F32] {
        let params = HnswParams {
            graph,
            ..HnswParams::default()
        };
        let index = build(&vectors, params);
        assert_eq!(index.len(), 4_000);
        let recall = recall(&index, &queries, 10, true, None);
        assert!(recall >= 0.98, "{graph:?} graph recall@10 = {recall}");
        // Whatever the graph holds, the scores are the exact ones.
        for query in &queries[..5] {
            let exact = index.search_exact(query, 4_000, None).unwrap();
            for (key, score) in index.search_graph(query, 10, None).unwrap() {
                assert_eq!(exact.iter().find(|hit| hit.0 == key).unwrap().1, score);
            }
        }
    }
}

#[test]
fn search_above_the_exact_threshold_uses_the_graph_with_high_recall() {
    let n = EXACT_SCAN_MAX + 2_000;
    let vectors = clustered(n, 32, 300, 0.3, 3);
    let queries = clustered(100, 32, 300, 0.3, 4);
    let index = build(&vectors, HnswParams::default()).with_build_threads(2);
    let recall = recall(&index, &queries, 10, false, None);
    assert!(recall >= 0.98, "recall@10 = {recall}");
    // Scores of the approximate path are the exact scores of the same items.
    let hits = index.search(&queries[0], 10, None).unwrap();
    for (key, score) in hits {
        let exact = index.search_exact(&queries[0], n, None).unwrap();
        let same = exact.iter().find(|hit| hit.0 == key).unwrap();
        assert_eq!(same.1, score);
    }
}

#[test]
fn parallel_build_reaches_the_same_recall() {
    let vectors = clustered(4_000, 64, 200, 0.35, 5);
    let queries = clustered(200, 64, 200, 0.35, 6);
    let mut index = VectorIndex::new(64, HnswParams::default()).with_build_threads(2);
    let items: Vec<(u64, &[f32])> = vectors
        .iter()
        .enumerate()
        .map(|(i, v)| (i as u64, v.as_slice()))
        .collect();
    index.add_batch(&items).unwrap();
    assert_eq!(index.len(), 4_000);
    let recall = recall(&index, &queries, 10, true, None);
    assert!(recall >= 0.98, "parallel graph recall@10 = {recall}");
}

#[test]
fn filters_apply_inside_the_search_and_return_k_matching_items() {
    let n = EXACT_SCAN_MAX + 5_000;
    let vectors = clustered(n, 32, 300, 0.3, 7);
    let queries = clustered(20, 32, 300, 0.3, 8);
    let index = build(&vectors, HnswParams::default());
    let one_percent = |key: u64| key % 100 == 1;
    let ten_percent = |key: u64| key % 10 == 1;
    for query in &queries {
        for filter in [&one_percent as &dyn Fn(u64) -> bool, &ten_percent] {
            for hits in [
                index.search(query, 10, Some(filter)).unwrap(),
                index.search_graph(query, 10, Some(filter)).unwrap(),
            ] {
                assert_eq!(hits.len(), 10);
                assert!(hits.iter().all(|hit| filter(hit.0)), "{hits:?}");
            }
        }
    }
    // 1% goes to the exact scan: identical to search_exact.
    for query in &queries {
        assert_eq!(
            index.search(query, 10, Some(&one_percent)).unwrap(),
            index.search_exact(query, 10, Some(&one_percent)).unwrap()
        );
    }
    let recall = recall(&index, &queries, 10, true, Some(&ten_percent));
    assert!(recall >= 0.95, "filtered graph recall@10 = {recall}");
    // Fewer matches than k: all of them.
    let three = |key: u64| key == 1 || key == 4 || key == 7;
    let hits = index.search(&queries[0], 10, Some(&three)).unwrap();
    assert_eq!(keys(&hits).len(), 3);
    let hits = index.search_graph(&queries[0], 10, Some(&three)).unwrap();
    let mut found = keys(&hits);
    found.sort_unstable();
    assert_eq!(found, vec![1, 4, 7]);
    // Nothing matches.
    assert!(index
        .search(&queries[0], 10, Some(&|_| false))
        .unwrap()
        .is_empty());
}

#[test]
fn remove_and_replace() {
    let vectors = clustered(EXACT_SCAN_MAX + 500, 16, 50, 0.3, 9);
    let mut index = VectorIndex::new(16, HnswParams::default());
    for (i, v) in vectors.iter().enumerate() {
        index.add(i as u64, v).unwrap();
    }
    let query = &vectors[42];
    let top = index.search(query, 1, None).unwrap();
    assert_eq!(top[0].0, 42);
    assert!(index.remove(42).unwrap());
    assert!(!index.remove(42).unwrap());
    assert!(!index.contains(42));
    assert_eq!(index.len(), EXACT_SCAN_MAX + 499);
    for hits in [
        index.search(query, 50, None).unwrap(),
        index.search_graph(query, 50, None).unwrap(),
        index.search_exact(query, 50, None).unwrap(),
    ] {
        assert_eq!(hits.len(), 50);
        assert!(hits.iter().all(|hit| hit.0 != 42));
    }
    // Re-adding a key replaces its vector: key 7 now sits where 42 was.
    index.add(7, query).unwrap();
    assert_eq!(index.len(), EXACT_SCAN_MAX + 499);
    assert_eq!(index.get(7), Some(query.as_slice()));
    let top = index.search(query, 1, None).unwrap();
    assert_eq!(top[0].0, 7);
    assert!((top[0].1 - 1.0).abs() < 1e-5);
    // Removing many then adding back reuses the freed slots.
    for key in 100..2_100u64 {
        assert!(index.remove(key).unwrap());
    }
    for key in 100..2_100u64 {
        index.add(key, &vectors[key as usize]).unwrap();
    }
    assert_eq!(index.len(), EXACT_SCAN_MAX + 499);
    assert_eq!(
        index.search_graph(&vectors[500], 1, None).unwrap()[0].0,
        500
    );
}

#[test]
fn save_and_load_give_identical_results() {
    for graph in [GraphVectors::I8, GraphVectors::F32] {
        save_and_load_give_identical_results_with(graph);
    }
}

fn save_and_load_give_identical_results_with(graph: GraphVectors) {
    let dir = tempfile::tempdir().unwrap();
    let vectors = clustered(EXACT_SCAN_MAX + 1_000, 24, 100, 0.3, 10);
    let queries = clustered(30, 24, 100, 0.3, 11);
    let mut index = build(
        &vectors,
        HnswParams {
            m: 12,
            ef_construction: 64,
            ef_search: 40,
            graph,
        },
    );
    index.remove(4).unwrap();
    index.save(dir.path()).unwrap();
    let loaded = VectorIndex::load(dir.path()).unwrap();
    assert_eq!(loaded.len(), index.len());
    assert_eq!(loaded.dim(), 24);
    assert_eq!(loaded.params(), index.params());
    let ten_percent = |key: u64| key % 10 == 1;
    for query in &queries {
        assert_eq!(
            loaded.search(query, 10, None).unwrap(),
            index.search(query, 10, None).unwrap()
        );
        assert_eq!(
            loaded.search_graph(query, 10, Some(&ten_percent)).unwrap(),
            index.search_graph(query, 10, Some(&ten_percent)).unwrap()
        );
        assert_eq!(
            loaded.search_exact(query, 10, None).unwrap(),
            index.search_exact(query, 10, None).unwrap()
        );
    }
    // A loaded index keeps working, and a second save replaces the first.
    let mut loaded = loaded;
    loaded.add(4, &vectors[4]).unwrap();
    loaded.save(dir.path()).unwrap();
    let again = VectorIndex::load(dir.path()).unwrap();
    assert_eq!(again.len(), EXACT_SCAN_MAX + 1_000);
    assert_eq!(again.search(&vectors[4], 1, None).unwrap()[0].0, 4);
    let files: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    // Manifest, graph and keys, plus the exact vectors beside an i8 graph.
    let expected = if graph == GraphVectors::I8 { 4 } else { 3 };
    assert_eq!(files.len(), expected, "old generation removed: {files:?}");
    assert_eq!(
        files.iter().any(|name| name.ends_with(".f32")),
        graph == GraphVectors::I8
    );
}

#[test]
fn a_version_1_index_with_an_f32_graph_still_loads() {
    let dir = tempfile::tempdir().unwrap();
    let vectors = clustered(EXACT_SCAN_MAX + 500, 16, 50, 0.3, 13);
    let params = HnswParams {
        graph: GraphVectors::F32,
        ..HnswParams::default()
    };
    let index = build(&vectors, params);
    index.save(dir.path()).unwrap();
    // What a build before version 2 wrote: no graph_vectors field, version 1.
    let path = dir.path().join("vectors.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    manifest["version"] = 1.into();
    manifest.as_object_mut().unwrap().remove("graph_vectors");
    fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let loaded = VectorIndex::load(dir.path()).unwrap();
    assert_eq!(loaded.params().graph, GraphVectors::F32);
    assert_eq!(
        loaded.search(&vectors[7], 5, None).unwrap(),
        index.search(&vectors[7], 5, None).unwrap()
    );
    // A version 1 manifest cannot claim an i8 graph.
    manifest["graph_vectors"] = "i8".into();
    fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
    let message = load_error(dir.path());
    assert!(message.contains("vectors.json"), "{message}");
}

#[test]
fn empty_index_searches_empty_and_round_trips() {
    let index = VectorIndex::new(8, HnswParams::default());
    let query = normalize(vec![1.0; 8]);
    assert!(index.is_empty());
    assert!(index.search(&query, 10, None).unwrap().is_empty());
    assert!(index.search_graph(&query, 10, None).unwrap().is_empty());
    assert!(index.search_exact(&query, 10, None).unwrap().is_empty());
    let dir = tempfile::tempdir().unwrap();
    index.save(dir.path()).unwrap();
    let loaded = VectorIndex::load(dir.path()).unwrap();
    assert!(loaded.is_empty());
    assert_eq!(loaded.dim(), 8);
    assert!(loaded.search(&query, 10, None).unwrap().is_empty());
    // k = 0 on a non-empty index.
    let mut index = VectorIndex::new(8, HnswParams::default());
    index.add(1, &query).unwrap();
    assert!(index.search(&query, 0, None).unwrap().is_empty());
}

fn saved(dir: &Path) -> Vec<Vec<f32>> {
    let vectors = clustered(300, 16, 10, 0.3, 12);
    build(&vectors, HnswParams::default()).save(dir).unwrap();
    vectors
}

fn file_ending(dir: &Path, suffix: &str) -> std::path::PathBuf {
    fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .find(|path| path.to_string_lossy().ends_with(suffix))
        .unwrap()
}

fn load_error(dir: &Path) -> String {
    match VectorIndex::load(dir) {
        Ok(_) => panic!("a damaged index loaded"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn truncated_or_corrupt_files_are_errors_naming_the_file() {
    // Truncated graph.
    let dir = tempfile::tempdir().unwrap();
    saved(dir.path());
    let graph = file_ending(dir.path(), ".usearch");
    let bytes = fs::read(&graph).unwrap();
    fs::write(&graph, &bytes[..bytes.len() / 2]).unwrap();
    let message = load_error(dir.path());
    assert!(
        message.contains(".usearch") && message.contains("truncated"),
        "{message}"
    );

    // One flipped byte in the graph, same length.
    let mut flipped = bytes.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    fs::write(&graph, &flipped).unwrap();
    let message = load_error(dir.path());
    assert!(
        message.contains(".usearch") && message.contains("checksum"),
        "{message}"
    );

    // Corrupt keys file.
    let dir = tempfile::tempdir().unwrap();
    saved(dir.path());
    let keys = file_ending(dir.path(), ".keys");
    let mut bytes = fs::read(&keys).unwrap();
    bytes[3] ^= 1;
    fs::write(&keys, &bytes).unwrap();
    let message = load_error(dir.path());
    assert!(
        message.contains(".keys") && message.contains("checksum"),
        "{message}"
    );

    // Missing data file.
    fs::remove_file(&keys).unwrap();
    let message = load_error(dir.path());
    assert!(message.contains(".keys"), "{message}");

    // The exact vectors beside an i8 graph: truncated, then one flipped bit.
    let dir = tempfile::tempdir().unwrap();
    saved(dir.path());
    let rows = file_ending(dir.path(), ".f32");
    let bytes = fs::read(&rows).unwrap();
    fs::write(&rows, &bytes[..bytes.len() - 4]).unwrap();
    let message = load_error(dir.path());
    assert!(
        message.contains(".f32") && message.contains("truncated"),
        "{message}"
    );
    let mut flipped = bytes.clone();
    flipped[100] ^= 0x01;
    fs::write(&rows, &flipped).unwrap();
    let message = load_error(dir.path());
    assert!(
        message.contains(".f32") && message.contains("checksum"),
        "{message}"
    );

    // Garbage, truncated and empty manifests; a missing directory.
    for manifest in ["not json", "{\"format\": \"chunklab-vectors\"", ""] {
        let dir = tempfile::tempdir().unwrap();
        saved(dir.path());
        fs::write(dir.path().join("vectors.json"), manifest).unwrap();
        let message = load_error(dir.path());
        assert!(message.contains("vectors.json"), "{message}");
    }
    let message = load_error(&dir.path().join("absent"));
    assert!(message.contains("vectors.json"), "{message}");
}

#[test]
fn an_interrupted_save_leaves_the_previous_version_loadable() {
    let dir = tempfile::tempdir().unwrap();
    let vectors = saved(dir.path());
    // What a crash after writing the next generation's data files but before the manifest
    // rename leaves behind: half-written new files and a stray temporary manifest.
    fs::write(dir.path().join("vectors-2.usearch"), b"partial").unwrap();
    fs::write(dir.path().join("vectors-2.keys"), b"par").unwrap();
    fs::write(dir.path().join("vectors.json.tmp"), b"{").unwrap();
    let loaded = VectorIndex::load(dir.path()).unwrap();
    assert_eq!(loaded.len(), 300);
    assert_eq!(loaded.search(&vectors[5], 1, None).unwrap()[0].0, 5 * 3 + 1);
    // The next save skips past the leftovers and cleans them up.
    loaded.save(dir.path()).unwrap();
    let mut files: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        vec![
            "vectors-3.f32",
            "vectors-3.keys",
            "vectors-3.usearch",
            "vectors.json"
        ]
    );
    assert_eq!(VectorIndex::load(dir.path()).unwrap().len(), 300);
}

#[test]
fn bad_vectors_are_errors_and_leave_the_index_unchanged() {
    let mut index = VectorIndex::new(4, HnswParams::default());
    let good = [0.5f32, 0.5, 0.5, 0.5];
    index.add(1, &good).unwrap();

    let error = index.add(2, &[1.0, 0.0, 0.0]).unwrap_err();
    assert!(matches!(
        error,
        VectorError::DimensionMismatch {
            expected: 4,
            got: 3,
            ..
        }
    ));
    assert!(error.to_string().contains("key 2"), "{error}");
    let error = index.add(2, &[f32::NAN, 0.0, 0.0, 1.0]).unwrap_err();
    assert!(
        matches!(error, VectorError::NonFinite { component: 0, .. }),
        "{error}"
    );
    let error = index.add(2, &[2.0, 0.0, 0.0, 0.0]).unwrap_err();
    assert!(
        matches!(error, VectorError::NotNormalized { .. }),
        "{error}"
    );
    assert!(index.add(2, &[0.0; 4]).is_err());

    let bad_batch: Vec<(u64, &[f32])> = vec![(3, &good), (4, &[1.0, 0.0])];
    let error = index.add_batch(&bad_batch).unwrap_err();
    assert!(error.to_string().contains("batch item 1"), "{error}");
    assert_eq!(index.len(), 1);
    assert!(!index.contains(3));

    for query in [
        &[1.0f32, 0.0][..],
        &[f32::INFINITY, 0.0, 0.0, 0.0],
        &[0.0; 4],
    ] {
        assert!(index.search(query, 5, None).is_err());
        assert!(index.search_exact(query, 5, None).is_err());
        assert!(index.search_graph(query, 5, None).is_err());
    }
    assert_eq!(index.len(), 1);

    let mut zero_dim = VectorIndex::new(0, HnswParams::default());
    assert!(zero_dim.add(1, &[]).is_err());
    let mut bad_params = VectorIndex::new(
        4,
        HnswParams {
            m: 1,
            ef_construction: 10,
            ef_search: 10,
            ..HnswParams::default()
        },
    );
    let error = bad_params.add(1, &good).unwrap_err();
    assert!(matches!(error, VectorError::InvalidParams(_)), "{error}");
}

#[test]
fn results_are_deterministic_and_ties_break_by_key() {
    let vectors = clustered(EXACT_SCAN_MAX + 1_000, 16, 40, 0.3, 13);
    let queries = clustered(30, 16, 40, 0.3, 14);
    let first = build(&vectors, HnswParams::default());
    let second = build(&vectors, HnswParams::default());
    for query in &queries {
        let hits = first.search(query, 20, None).unwrap();
        assert_eq!(hits, first.search(query, 20, None).unwrap());
        assert_eq!(hits, second.search(query, 20, None).unwrap());
        assert!(hits.windows(2).all(|pair| pair[0].1 >= pair[1].1));
    }
    // Identical vectors under different keys: ordered by key, in both paths.
    let mut index = VectorIndex::new(16, HnswParams::default());
    let same = &vectors[0];
    for key in [90u64, 20, 70, 10, 50] {
        index.add(key, same).unwrap();
    }
    index.add(5, &vectors[1]).unwrap();
    assert_eq!(
        keys(&index.search(same, 3, None).unwrap()),
        vec![10, 20, 50]
    );
    assert_eq!(
        keys(&index.search_graph(same, 3, None).unwrap()),
        vec![10, 20, 50]
    );
    // Duplicate keys in one batch: the last wins.
    let batch: Vec<(u64, &[f32])> = vec![(1, &vectors[2]), (1, &vectors[3])];
    index.add_batch(&batch).unwrap();
    assert_eq!(index.get(1), Some(vectors[3].as_slice()));
}

#[test]
fn a_panicking_filter_propagates_its_panic() {
    let vectors = clustered(EXACT_SCAN_MAX + 100, 8, 10, 0.3, 15);
    let index = build(&vectors, HnswParams::default());
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = index.search_graph(&vectors[0], 5, Some(&|_| panic!("filter failed")));
    }));
    assert!(result.is_err());
    // The index is still usable.
    assert_eq!(index.search(&vectors[0], 1, None).unwrap().len(), 1);
}

/// Whether this process maps the file at `path` (Linux: /proc/self/maps).
#[cfg(target_os = "linux")]
fn mapped_by_this_process(path: &Path) -> bool {
    let maps = fs::read_to_string("/proc/self/maps").unwrap();
    let name = path.to_string_lossy();
    maps.lines().any(|line| line.ends_with(name.as_ref()))
}

/// The same edits on an index built in memory and on one loaded from disk (whose exact vectors
/// are mapped from the vectors file): every search, score and stored vector stays identical, the
/// file is never written, and saving and reloading the edited index changes nothing either.
#[test]
fn mapped_exact_vectors_give_the_same_results_as_in_memory_ones() {
    let dir = tempfile::tempdir().unwrap();
    let vectors = clustered(EXACT_SCAN_MAX + 600, 24, 80, 0.3, 21);
    let extra = clustered(400, 24, 80, 0.3, 22);
    let queries = clustered(25, 24, 80, 0.3, 23);
    let params = HnswParams {
        m: 12,
        ef_construction: 64,
        ef_search: 48,
        graph: GraphVectors::I8,
    };
    let mut memory = build(&vectors, params);
    memory.save(dir.path()).unwrap();
    let rows_file = file_ending(dir.path(), ".f32");
    let rows_bytes = fs::read(&rows_file).unwrap();
    let mut loaded = VectorIndex::load(dir.path()).unwrap();
    #[cfg(target_os = "linux")]
    assert!(
        mapped_by_this_process(&rows_file),
        "the exact vectors of a loaded i8 index are mapped"
    );

    let same = |memory: &VectorIndex, loaded: &VectorIndex, stage: &str| {
        assert_eq!(memory.len(), loaded.len(), "{stage}");
        let odd = |key: u64| key % 2 == 1;
        for query in &queries {
            for k in [1, 10, 50] {
                assert_eq!(
                    memory.search(query, k, None).unwrap(),
                    loaded.search(query, k, None).unwrap(),
                    "{stage}"
                );
            }
            assert_eq!(
                memory.search_exact(query, 10, Some(&odd)).unwrap(),
                loaded.search_exact(query, 10, Some(&odd)).unwrap(),
                "{stage}"
            );
        }
        for (i, vector) in vectors.iter().chain(&extra).enumerate() {
            let key = i as u64 * 3 + 1;
            assert_eq!(memory.get(key), loaded.get(key), "{stage}: key {key}");
            if let Some(stored) = loaded.get(key) {
                assert!(
                    stored == vector.as_slice() || stored == vectors[0].as_slice(),
                    "{stage}: key {key}"
                );
            }
        }
    };
    same(&memory, &loaded, "after load");

    // Edits that move rows inside the mapped part, from the in-memory tail into it, and inside
    // the tail: removals, replacements and new keys.
    let replaced = (5u64..40).step_by(7).map(|i| i * 3 + 1);
    let removed: Vec<u64> = (0..vectors.len() as u64)
        .filter(|i| i % 13 == 2)
        .map(|i| i * 3 + 1)
        .collect();
    for index in [&mut memory, &mut loaded] {
        for key in replaced.clone() {
            index.add(key, &vectors[0]).unwrap();
        }
        for &key in &removed[..removed.len() / 2] {
            assert!(index.remove(key).unwrap());
        }
        let items: Vec<(u64, &[f32])> = extra
            .iter()
            .enumerate()
            .map(|(i, v)| ((vectors.len() + i) as u64 * 3 + 1, v.as_slice()))
            .collect();
        index.add_batch(&items).unwrap();
        // A row in the middle of the tail.
        assert!(index.remove((vectors.len() + 10) as u64 * 3 + 1).unwrap());
        for &key in &removed[removed.len() / 2..] {
            assert!(index.remove(key).unwrap());
        }
        // The last keys added (in the tail) removed again, then one of them re-added.
        for i in 0..5 {
            index
                .remove((vectors.len() + extra.len() - 1 - i) as u64 * 3 + 1)
                .unwrap();
        }
        let key = (vectors.len() + extra.len() - 1) as u64 * 3 + 1;
        index.add(key, &extra[extra.len() - 1]).unwrap();
    }
    same(&memory, &loaded, "after edits");
    assert_eq!(
        fs::read(&rows_file).unwrap(),
        rows_bytes,
        "edits never reach the mapped file"
    );

    // Saving the edited loaded index deletes the file it maps; it keeps answering, and the new
    // generation reloads to the same results.
    loaded.save(dir.path()).unwrap();
    assert!(!rows_file.exists());
    same(&memory, &loaded, "after save");
    let reloaded = VectorIndex::load(dir.path()).unwrap();
    same(&memory, &reloaded, "after reopen");
}

/// Rewrites the manifest so that it records the current length and hash of `file` (as if the
/// damage had been saved that way): the checks after the checksum must catch it.
fn reseal(dir: &Path, file: &Path) {
    let path = dir.join("vectors.json");
    let mut manifest: serde_json::Value =
        serde_json::from_slice(&fs::read(&path).unwrap()).unwrap();
    let bytes = fs::read(file).unwrap();
    manifest["vectors"]["bytes"] = bytes.len().into();
    manifest["vectors"]["blake3"] = blake3::hash(&bytes).to_hex().to_string().into();
    fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

/// A way to damage a vectors file: its name, the damage, whether the manifest is rewritten to
/// match, and what the error must say.
type Damage = (&'static str, fn(&mut Vec<u8>), bool, &'static str);

#[test]
fn a_damaged_vectors_file_is_an_error_naming_it() {
    let cases: [Damage; 6] = [
        (
            "longer",
            |b| b.extend_from_slice(&[0; 4]),
            false,
            "truncated or overwritten",
        ),
        (
            "one byte short",
            |b| {
                b.pop();
            },
            false,
            "truncated or overwritten",
        ),
        ("empty", |b| b.clear(), false, "truncated or overwritten"),
        (
            "a NaN, resealed",
            |b| b[8..12].copy_from_slice(&f32::NAN.to_le_bytes()),
            true,
            "not finite",
        ),
        (
            "a row short, resealed",
            |b| b.truncate(b.len() - 64),
            true,
            "expected 300 rows of 16 f32",
        ),
        (
            "odd length, resealed",
            |b| {
                b.pop();
            },
            true,
            "expected 300 rows of 16 f32",
        ),
    ];
    for (what, damage, reseal_it, expected) in cases {
        let dir = tempfile::tempdir().unwrap();
        saved(dir.path());
        let rows = file_ending(dir.path(), ".f32");
        let mut bytes = fs::read(&rows).unwrap();
        damage(&mut bytes);
        fs::write(&rows, &bytes).unwrap();
        if reseal_it {
            reseal(dir.path(), &rows);
        }
        let message = load_error(dir.path());
        assert!(
            message.contains(&rows.file_name().unwrap().to_string_lossy().to_string())
                && message.contains(expected),
            "{what}: {message}"
        );
    }
}

/// Mean recall@k of the graph search with candidate list `ef` against the exact scan.
fn recall_at_ef(index: &VectorIndex, queries: &[Vec<f32>], k: usize, ef: Option<usize>) -> f64 {
    let mut found = 0usize;
    for query in queries {
        let exact: HashSet<u64> = keys(&index.search_exact(query, k, None).unwrap())
            .into_iter()
            .collect();
        let hits = index.search_with_ef(query, k, ef, None).unwrap();
        assert_eq!(hits.len(), k);
        found += hits.iter().filter(|hit| exact.contains(&hit.0)).count();
    }
    found as f64 / (k * queries.len()) as f64
}

#[test]
fn a_query_chooses_its_own_candidate_list_size() {
    // A sparse graph over noisy vectors, so that the candidate list decides the recall.
    let n = EXACT_SCAN_MAX + 2_000;
    let vectors = clustered(n, 32, 300, 0.3, 11);
    let queries = clustered(60, 32, 300, 0.3, 12);
    let params = HnswParams {
        m: 8,
        ef_construction: 32,
        ..HnswParams::default()
    };
    let dir = tempfile::tempdir().unwrap();
    build(&vectors, params).save(dir.path()).unwrap();
    let index = VectorIndex::load(dir.path()).unwrap();
    let narrow = recall_at_ef(&index, &queries, 10, Some(10));
    let wide = recall_at_ef(&index, &queries, 10, Some(400));
    assert!(
        wide >= narrow + 0.05 && wide >= 0.9,
        "recall@10 at ef 10 = {narrow}, at ef 400 = {wide}"
    );
    // No ef: the index's own (128), the same hits as asking for it.
    for query in &queries[..10] {
        assert_eq!(
            index.search_with_ef(query, 10, None, None).unwrap(),
            index.search_with_ef(query, 10, Some(128), None).unwrap()
        );
    }
}
