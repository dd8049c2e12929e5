//! Reciprocal rank fusion: `score(d) = Σ_r weight_r / (k + rank_r(d))` over the retrievers that
//! returned `d` (ranks from 1). Ties are broken by key, so fusion is deterministic.

/// Fuse ranked key lists with reciprocal rank fusion.
///
/// `lists` holds each retriever's keys, best first, with the retriever's weight; `k` is the RRF
/// constant (60 in the original paper). Returns `(key, fused score)`, best first, ties by key.
///
/// ```
/// use chunklab_index::fusion::rrf;
/// let bm25 = [7, 3, 9];
/// let dense = [3, 5];
/// let fused = rrf(&[(&bm25[..], 1.0), (&dense[..], 1.0)], 60.0);
/// assert_eq!(fused[0].0, 3); // second and first: 1/62 + 1/61
/// assert_eq!(fused.iter().map(|f| f.0).collect::<Vec<_>>(), [3, 7, 5, 9]);
/// ```
pub fn rrf(lists: &[(&[u64], f32)], k: f32) -> Vec<(u64, f32)> {
    let mut scores: std::collections::HashMap<u64, f64> = std::collections::HashMap::new();
    for (keys, weight) in lists {
        for (rank, key) in keys.iter().enumerate() {
            *scores.entry(*key).or_default() += *weight as f64 / (k as f64 + rank as f64 + 1.0);
        }
    }
    let mut out: Vec<(u64, f64)> = scores.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out.into_iter().map(|(key, s)| (key, s as f32)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_and_ties() {
        // Equal ranks in two lists of equal weight tie; the smaller key wins.
        let f = rrf(&[(&[2, 1], 1.0), (&[1, 2], 1.0)], 60.0);
        assert_eq!(f.iter().map(|x| x.0).collect::<Vec<_>>(), [1, 2]);
        // A heavier retriever decides.
        let f = rrf(&[(&[2, 1], 1.0), (&[1, 2], 2.0)], 60.0);
        assert_eq!(f[0].0, 1);
        let f = rrf(&[(&[2, 1], 3.0), (&[1, 2], 1.0)], 60.0);
        assert_eq!(f[0].0, 2);
        // Weight 0 switches a retriever off.
        let f = rrf(&[(&[5], 0.0), (&[6], 1.0)], 60.0);
        assert_eq!(f[0].0, 6);
        assert!((f[0].1 - 1.0 / 61.0).abs() < 1e-7);
        assert!(rrf(&[], 60.0).is_empty());
    }
}
