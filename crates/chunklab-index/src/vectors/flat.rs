//! Flat vector storage and the exact top-k scan.
//!
//! Rows are stored contiguously (`row i` is `data[i * dim..(i + 1) * dim]`) beside their keys, so a
//! full scan walks memory linearly. Removal swaps the last row into the hole; row order therefore
//! depends on the edit history, which is why every ranking here breaks score ties by key and never
//! by row.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, HashMap};

/// Exact storage of every live vector, keyed by the caller's row id.
#[derive(Debug, Clone)]
pub(crate) struct FlatStore {
    dim: usize,
    keys: Vec<u64>,
    data: Vec<f32>,
    rows: HashMap<u64, usize>,
}

impl FlatStore {
    /// An empty store for vectors of `dim` components.
    pub(crate) fn new(dim: usize) -> Self {
        Self {
            dim,
            keys: Vec::new(),
            data: Vec::new(),
            rows: HashMap::new(),
        }
    }

    /// A store of `keys` (distinct) whose rows are `data` in the same order.
    pub(crate) fn from_rows(dim: usize, keys: Vec<u64>, data: Vec<f32>) -> Self {
        debug_assert_eq!(keys.len() * dim, data.len());
        let rows = keys
            .iter()
            .enumerate()
            .map(|(row, &key)| (key, row))
            .collect();
        Self {
            dim,
            keys,
            data,
            rows,
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

    /// Every vector, in row order (the order of [`keys`](Self::keys)).
    pub(crate) fn rows(&self) -> &[f32] {
        &self.data
    }

    fn row(&self, row: usize) -> &[f32] {
        &self.data[row * self.dim..(row + 1) * self.dim]
    }

    /// Reserves room for `additional` more rows.
    pub(crate) fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
        self.data.reserve(additional.saturating_mul(self.dim));
        self.rows.reserve(additional);
    }

    /// Inserts `vector` under `key`, replacing an existing row in place. Returns whether it replaced.
    pub(crate) fn upsert(&mut self, key: u64, vector: &[f32]) -> bool {
        debug_assert_eq!(vector.len(), self.dim);
        if let Some(&row) = self.rows.get(&key) {
            self.data[row * self.dim..(row + 1) * self.dim].copy_from_slice(vector);
            return true;
        }
        self.rows.insert(key, self.keys.len());
        self.keys.push(key);
        self.data.extend_from_slice(vector);
        false
    }

    /// Removes `key`; the last row moves into its place. Returns whether the key was present.
    pub(crate) fn remove(&mut self, key: u64) -> bool {
        let Some(row) = self.rows.remove(&key) else {
            return false;
        };
        let last = self.keys.len() - 1;
        if row != last {
            let moved = self.keys[last];
            self.keys[row] = moved;
            self.data
                .copy_within(last * self.dim..(last + 1) * self.dim, row * self.dim);
            self.rows.insert(moved, row);
        }
        self.keys.pop();
        self.data.truncate(last * self.dim);
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
        if k == 0 {
            return Vec::new();
        }
        for (row, &key) in self.keys.iter().enumerate() {
            if let Some(filter) = filter {
                if !filter(key) {
                    continue;
                }
            }
            top.push(key, dot(self.row(row), query));
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
