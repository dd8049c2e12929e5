//! Flat vector storage and the exact top-k scan.
//!
//! Rows are stored contiguously (`row i` is `dim` values at `i * dim`) beside their keys, so a full
//! scan walks memory linearly. Removal swaps the last row into the hole; row order therefore
//! depends on the edit history, which is why every ranking here breaks score ties by key and never
//! by row.
//!
//! A loaded index's rows start out as its vectors file, memory-mapped copy-on-write
//! ([`FlatStore::from_mapped`]): the page cache holds them instead of the heap, a search faults in
//! only the rows it re-scores, and a replaced or moved row becomes a private page of this process
//! (the file is never written). Rows added after the load live in an in-memory tail until the
//! index is saved and loaded again.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// Exact storage of every live vector, keyed by the caller's row id.
///
/// Rows `0..base_rows` are in `base` (a mapped vectors file), rows `base_rows..` in `tail`.
#[derive(Debug)]
pub(crate) struct FlatStore {
    dim: usize,
    keys: Vec<u64>,
    /// The vectors file of a loaded index (little-endian f32, page-aligned), mapped copy-on-write;
    /// only its first `base_rows` rows are live.
    base: Option<memmap2::MmapMut>,
    base_rows: usize,
    /// Rows after the mapped ones, in memory.
    tail: Vec<f32>,
    rows: HashMap<u64, usize>,
}

fn as_values(bytes: &[u8]) -> &[f32] {
    bytemuck::cast_slice(bytes)
}

fn as_values_mut(bytes: &mut [u8]) -> &mut [f32] {
    bytemuck::cast_slice_mut(bytes)
}

impl FlatStore {
    /// An empty store for vectors of `dim` components.
    pub(crate) fn new(dim: usize) -> Self {
        Self {
            dim,
            keys: Vec::new(),
            base: None,
            base_rows: 0,
            tail: Vec::new(),
            rows: HashMap::new(),
        }
    }

    fn row_map(keys: &[u64]) -> HashMap<u64, usize> {
        keys.iter()
            .enumerate()
            .map(|(row, &key)| (key, row))
            .collect()
    }

    /// A store of `keys` (distinct) whose rows are `data` in the same order, in memory.
    pub(crate) fn from_rows(dim: usize, keys: Vec<u64>, data: Vec<f32>) -> Self {
        debug_assert_eq!(keys.len() * dim, data.len());
        Self {
            dim,
            rows: Self::row_map(&keys),
            keys,
            base: None,
            base_rows: 0,
            tail: data,
        }
    }

    /// A store of `keys` (distinct) whose rows are the mapped vectors file `map` (exactly
    /// `keys.len()` rows of `dim` native-endian f32, already verified), in the same order.
    pub(crate) fn from_mapped(dim: usize, keys: Vec<u64>, map: memmap2::MmapMut) -> Self {
        debug_assert_eq!(keys.len() * dim * 4, map.len());
        Self {
            dim,
            rows: Self::row_map(&keys),
            base_rows: keys.len(),
            keys,
            base: Some(map),
            tail: Vec::new(),
        }
    }

    pub(crate) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Keys in row order (the order `save` writes them).
    pub(crate) fn keys(&self) -> &[u64] {
        &self.keys
    }

    pub(crate) fn contains(&self, key: u64) -> bool {
        self.rows.contains_key(&key)
    }

    /// The stored vector of `key`.
    pub(crate) fn get(&self, key: u64) -> Option<&[f32]> {
        self.rows.get(&key).map(|&row| self.row(row))
    }

    /// The live mapped rows.
    fn base_values(&self) -> &[f32] {
        match &self.base {
            Some(map) => &as_values(map)[..self.base_rows * self.dim],
            None => &[],
        }
    }

    /// Every vector in row order (the order of [`keys`](Self::keys)), as the mapped rows then
    /// the in-memory ones.
    pub(crate) fn row_blocks(&self) -> [&[f32]; 2] {
        [self.base_values(), &self.tail]
    }

    fn row(&self, row: usize) -> &[f32] {
        if row < self.base_rows {
            &self.base_values()[row * self.dim..(row + 1) * self.dim]
        } else {
            let at = (row - self.base_rows) * self.dim;
            &self.tail[at..at + self.dim]
        }
    }

    fn row_mut(&mut self, row: usize) -> &mut [f32] {
        let dim = self.dim;
        if row < self.base_rows {
            let map = self.base.as_mut().expect("rows below base_rows are mapped");
            &mut as_values_mut(map)[row * dim..(row + 1) * dim]
        } else {
            let at = (row - self.base_rows) * dim;
            &mut self.tail[at..at + dim]
        }
    }

    /// Reserves room for `additional` more rows.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
        self.tail.reserve(additional.saturating_mul(self.dim));
        self.rows.reserve(additional);
    }

    /// Inserts `vector` under `key`, replacing an existing row in place. Returns whether it replaced.
    pub(crate) fn upsert(&mut self, key: u64, vector: &[f32]) -> bool {
        debug_assert_eq!(vector.len(), self.dim);
        if let Some(&row) = self.rows.get(&key) {
            self.row_mut(row).copy_from_slice(vector);
            return true;
        }
        self.rows.insert(key, self.keys.len());
        self.keys.push(key);
        self.tail.extend_from_slice(vector);
        false
    }

    /// Removes `key`; the last row moves into its place. Returns whether the key was present.
    pub(crate) fn remove(&mut self, key: u64) -> bool {
        let Some(row) = self.rows.remove(&key) else {
            return false;
        };
        let dim = self.dim;
        let last = self.keys.len() - 1;
        if row != last {
            let moved = self.keys[last];
            self.keys[row] = moved;
            self.rows.insert(moved, row);
            if row >= self.base_rows {
                // Both in the tail.
                let (at, from) = ((row - self.base_rows) * dim, (last - self.base_rows) * dim);
                self.tail.copy_within(from..from + dim, at);
            } else if last >= self.base_rows {
                // From the tail into the mapped rows.
                let from = (last - self.base_rows) * dim;
                let map = self.base.as_mut().expect("rows below base_rows are mapped");
                as_values_mut(map)[row * dim..(row + 1) * dim]
                    .copy_from_slice(&self.tail[from..from + dim]);
            } else {
                // Both mapped (the tail is empty).
                let map = self.base.as_mut().expect("rows below base_rows are mapped");
                as_values_mut(map).copy_within(last * dim..(last + 1) * dim, row * dim);
            }
        }
        self.keys.pop();
        if last >= self.base_rows {
            self.tail.truncate(self.tail.len() - dim);
        } else {
            self.base_rows -= 1;
            if self.base_rows == 0 {
                self.base = None;
            }
        }
        true
    }

    /// Exact cosine score of `key` against `query` (both normalized), if the key is stored.
    pub(crate) fn score(&self, key: u64, query: &[f32]) -> Option<f32> {
        self.get(key).map(|row| dot(row, query))
    }

    /// The `k` best rows for `query` by (score descending, key ascending), over the rows whose key
    /// passes `filter`. Scans every row.
    pub(crate) fn top_k(
        &self,
        query: &[f32],
        k: usize,
        filter: Option<&dyn Fn(u64) -> bool>,
    ) -> Vec<(u64, f32)> {
        let mut top = TopK::new(k);
        if k == 0 || self.dim == 0 {
            return Vec::new();
        }
        let [base, tail] = self.row_blocks();
        let vectors = base
            .chunks_exact(self.dim)
            .chain(tail.chunks_exact(self.dim));
        for (&key, vector) in self.keys.iter().zip(vectors) {
            if let Some(filter) = filter {
                if !filter(key) {
                    continue;
                }
            }
            top.push(key, dot(vector, query));
        }
        top.into_sorted()
    }
}

/// Dot product with a fixed summation order (16 interleaved partial sums, then the tail), so every
/// caller gets bit-identical scores for the same pair; the partial sums let the compiler use SIMD.
pub(crate) fn dot(a: &[f32], b: &[f32]) -> f32 {
    debug_assert_eq!(a.len(), b.len());
    const LANES: usize = 16;
    let mut acc = [0.0f32; LANES];
    let a_chunks = a.chunks_exact(LANES);
    let b_chunks = b.chunks_exact(LANES);
    let (a_tail, b_tail) = (a_chunks.remainder(), b_chunks.remainder());
    for (x, y) in a_chunks.zip(b_chunks) {
        for lane in 0..LANES {
            acc[lane] += x[lane] * y[lane];
        }
    }
    let mut tail = 0.0f32;
    for (x, y) in a_tail.iter().zip(b_tail) {
        tail += x * y;
    }
    // Pairwise reduction of the partial sums, fixed order.
    let mut width = LANES;
    while width > 1 {
        width /= 2;
        for lane in 0..width {
            acc[lane] += acc[lane + width];
        }
    }
    acc[0] + tail
}

/// Ranking order of results: higher score first, then smaller key.
pub(crate) fn rank_order(a: &(u64, f32), b: &(u64, f32)) -> Ordering {
    b.1.total_cmp(&a.1).then(a.0.cmp(&b.0))
}

/// A heap entry whose `Ord` puts the WORST result on top of Rust's max-heap.
#[derive(Debug, Clone, Copy)]
struct Worst(u64, f32);

impl Ord for Worst {
    fn cmp(&self, other: &Self) -> Ordering {
        rank_order(&(self.0, self.1), &(other.0, other.1))
    }
}

impl PartialOrd for Worst {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for Worst {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for Worst {}

/// Bounded selection of the `k` best `(key, score)` pairs in [`rank_order`].
pub(crate) struct TopK {
    k: usize,
    heap: BinaryHeap<Worst>,
}

impl TopK {
    pub(crate) fn new(k: usize) -> Self {
        Self {
            k,
            heap: BinaryHeap::with_capacity(k.min(1 << 16) + 1),
        }
    }

    pub(crate) fn push(&mut self, key: u64, score: f32) {
        if self.k == 0 {
            return;
        }
        let entry = Worst(key, score);
        if self.heap.len() < self.k {
            self.heap.push(entry);
        } else if let Some(mut worst) = self.heap.peek_mut() {
            if entry < *worst {
                *worst = entry;
            }
        }
    }

    /// The kept pairs, best first.
    pub(crate) fn into_sorted(self) -> Vec<(u64, f32)> {
        self.heap
            .into_sorted_vec()
            .into_iter()
            .map(|Worst(key, score)| (key, score))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dot_matches_naive_sum_closely() {
        let a: Vec<f32> = (0..37).map(|i| (i as f32 * 0.37).sin()).collect();
        let b: Vec<f32> = (0..37).map(|i| (i as f32 * 0.11).cos()).collect();
        let naive: f64 = a.iter().zip(&b).map(|(x, y)| *x as f64 * *y as f64).sum();
        assert!((dot(&a, &b) as f64 - naive).abs() < 1e-5);
    }

    #[test]
    fn top_k_breaks_ties_by_key_and_keeps_the_best() {
        let mut top = TopK::new(3);
        for (key, score) in [(9, 0.5), (3, 0.5), (7, 0.9), (1, 0.1), (5, 0.5)] {
            top.push(key, score);
        }
        assert_eq!(top.into_sorted(), vec![(7, 0.9), (3, 0.5), (5, 0.5)]);
    }

    /// A store whose rows are `rows` mapped copy-on-write from a file in `dir`, as a load makes it.
    fn mapped(dir: &std::path::Path, keys: &[u64], rows: &[f32], dim: usize) -> FlatStore {
        let path = dir.join("rows.f32");
        let bytes: Vec<u8> = rows.iter().flat_map(|v| v.to_le_bytes()).collect();
        std::fs::write(&path, bytes).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        // SAFETY: the test's own file, not changed while mapped.
        let map = unsafe { memmap2::MmapOptions::new().map_copy(&file).unwrap() };
        FlatStore::from_mapped(dim, keys.to_vec(), map)
    }

    fn same_contents(a: &FlatStore, b: &FlatStore, query: &[f32]) {
        assert_eq!(a.keys(), b.keys());
        assert_eq!(a.row_blocks().concat(), b.row_blocks().concat());
        for &key in a.keys() {
            assert_eq!(a.get(key), b.get(key));
        }
        assert_eq!(a.top_k(query, 7, None), b.top_k(query, 7, None));
    }

    #[test]
    fn a_mapped_store_edits_like_an_in_memory_one_and_never_writes_its_file() {
        let dim = 3;
        let keys: Vec<u64> = (0..20).map(|i| i * 5).collect();
        let rows: Vec<f32> = (0..20 * dim).map(|i| (i as f32 * 0.7).sin()).collect();
        let dir = tempfile::tempdir().unwrap();
        let mut map = mapped(dir.path(), &keys, &rows, dim);
        let mut memory = FlatStore::from_rows(dim, keys.clone(), rows.clone());
        let query = [0.3, -0.5, 0.8];
        same_contents(&map, &memory, &query);
        let vector = |i: u64| [i as f32, -(i as f32), 0.5];
        for store in [&mut map, &mut memory] {
            assert!(store.upsert(15, &vector(1))); // replace a mapped row
            assert!(store.remove(0)); // mapped row ← last mapped row
            assert!(!store.upsert(200, &vector(2))); // tail
            assert!(!store.upsert(205, &vector(3)));
            assert!(!store.upsert(210, &vector(4)));
            assert!(store.remove(200)); // tail row ← last tail row
            assert!(store.remove(50)); // mapped row ← last tail row
            assert!(store.upsert(205, &vector(5))); // replace a tail row that moved into the map
            assert!(!store.remove(999));
        }
        same_contents(&map, &memory, &query);
        // Remove everything (the map is let go once no mapped row is left), then add again.
        let all: Vec<u64> = memory.keys().to_vec();
        for store in [&mut map, &mut memory] {
            for &key in all.iter().rev().step_by(2).chain(all.iter().step_by(2)) {
                store.remove(key);
            }
            assert_eq!(store.len(), 0);
            store.upsert(7, &vector(6));
        }
        assert!(map.base.is_none());
        same_contents(&map, &memory, &query);
        let on_disk: Vec<f32> = std::fs::read(dir.path().join("rows.f32"))
            .unwrap()
            .chunks_exact(4)
            .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        assert_eq!(on_disk, rows);
    }

    #[test]
    fn remove_moves_the_last_row_into_the_hole() {
        let mut store = FlatStore::new(2);
        store.upsert(10, &[1.0, 0.0]);
        store.upsert(20, &[0.0, 1.0]);
        store.upsert(30, &[0.6, 0.8]);
        assert!(store.remove(10));
        assert!(!store.remove(10));
        assert_eq!(store.len(), 2);
        assert_eq!(store.get(30), Some(&[0.6, 0.8][..]));
        assert_eq!(store.get(20), Some(&[0.0, 1.0][..]));
        assert!(store.upsert(20, &[1.0, 0.0]));
        assert_eq!(store.get(20), Some(&[1.0, 0.0][..]));
    }
}
