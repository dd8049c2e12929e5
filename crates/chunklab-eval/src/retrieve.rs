//! In-memory retrieval over one configuration's chunks: exact dense search (cosine of
//! normalized vectors), BM25, and reciprocal-rank fusion of the two.
//!
//! Exact search means the benchmark measures the chunking, not an approximate index's misses.

use std::collections::HashMap;

/// Chunk vectors, row-major.
pub struct Dense {
    pub dim: usize,
    pub vectors: Vec<f32>,
}

impl Dense {
    /// Number of vectors.
    pub fn len(&self) -> usize {
        self.vectors.len().checked_div(self.dim).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes the vectors take (f32).
    pub fn bytes(&self) -> u64 {
        (self.vectors.len() * 4) as u64
    }

    /// The `k` chunks most similar to `query` (by dot product), best first; ties go to the
    /// lower chunk number.
    pub fn search(&self, query: &[f32], k: usize) -> Vec<(u32, f32)> {
        let scores: Vec<f32> = self
            .vectors
            .chunks_exact(self.dim.max(1))
            .map(|v| v.iter().zip(query).map(|(a, b)| a * b).sum())
            .collect();
        top_k(&scores, k)
    }
}

/// Indices of the `k` largest scores, best first, ties by index.
fn top_k(scores: &[f32], k: usize) -> Vec<(u32, f32)> {
    let mut idx: Vec<u32> = (0..scores.len() as u32).collect();
    let cmp = |a: &u32, b: &u32| {
        scores[*b as usize]
            .total_cmp(&scores[*a as usize])
            .then(a.cmp(b))
    };
    let k = k.min(idx.len());
    if k == 0 {
        return Vec::new();
    }
    if k < idx.len() {
        idx.select_nth_unstable_by(k - 1, cmp);
        idx.truncate(k);
    }
    idx.sort_by(cmp);
    idx.into_iter().map(|i| (i, scores[i as usize])).collect()
}

/// Lower-cased alphanumeric words (Unicode letters and digits), the BM25 terms.
pub fn terms(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_lowercase())
}

/// Okapi BM25 (k1 = 1.2, b = 0.75) over chunk texts.
pub struct Bm25 {
    postings: HashMap<String, Vec<(u32, u32)>>,
    doc_len: Vec<u32>,
    avg_len: f32,
}

const K1: f32 = 1.2;
const B: f32 = 0.75;

impl Bm25 {
    /// Index `texts` (chunk number = position).
    pub fn new<'a>(texts: impl Iterator<Item = &'a str>) -> Self {
        let mut postings: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut doc_len = Vec::new();
        for (i, t) in texts.enumerate() {
            let mut tf: HashMap<String, u32> = HashMap::new();
            let mut n = 0;
            for w in terms(t) {
                *tf.entry(w).or_default() += 1;
                n += 1;
            }
            doc_len.push(n);
            for (w, c) in tf {
                postings.entry(w).or_default().push((i as u32, c));
            }
        }
        let avg_len = if doc_len.is_empty() {
            0.0
        } else {
            doc_len.iter().map(|&x| x as f32).sum::<f32>() / doc_len.len() as f32
        };
        Self {
            postings,
            doc_len,
            avg_len,
        }
    }

    /// Approximate bytes of the index: the term strings plus 8 bytes per posting and 4 per
    /// chunk length.
    pub fn bytes(&self) -> u64 {
        let terms: usize = self.postings.keys().map(|k| k.len()).sum();
        let posts: usize = self.postings.values().map(|p| p.len() * 8).sum();
        (terms + posts + self.doc_len.len() * 4) as u64
    }

    /// The `k` best chunks for `query`, best first (chunks sharing no term are not returned).
    pub fn search(&self, query: &str, k: usize) -> Vec<(u32, f32)> {
        let n = self.doc_len.len() as f32;
        let mut scores: HashMap<u32, f32> = HashMap::new();
        let mut qterms: Vec<String> = terms(query).collect();
        qterms.sort();
        qterms.dedup();
        for t in &qterms {
            let Some(p) = self.postings.get(t) else {
                continue;
            };
            let idf = ((n - p.len() as f32 + 0.5) / (p.len() as f32 + 0.5) + 1.0).ln();
            for &(d, tf) in p {
                let len = self.doc_len[d as usize] as f32;
                let tf = tf as f32;
                let s = idf * tf * (K1 + 1.0)
                    / (tf + K1 * (1.0 - B + B * len / self.avg_len.max(1e-9)));
                *scores.entry(d).or_default() += s;
            }
        }
        let mut v: Vec<(u32, f32)> = scores.into_iter().collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v.truncate(k);
        v
    }
}

/// Reciprocal-rank fusion constant (Cormack et al.).
pub const RRF_K: f32 = 60.0;

/// Fuse ranked lists: score = Σ 1 / (RRF_K + rank), best first, ties by chunk number.
pub fn rrf(lists: &[Vec<(u32, f32)>], k: usize) -> Vec<(u32, f32)> {
    let mut scores: HashMap<u32, f32> = HashMap::new();
    for list in lists {
        for (rank, (id, _)) in list.iter().enumerate() {
            *scores.entry(*id).or_default() += 1.0 / (RRF_K + rank as f32 + 1.0);
        }
    }
    let mut v: Vec<(u32, f32)> = scores.into_iter().collect();
    v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    v.truncate(k);
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dense_returns_best_first_with_stable_ties() {
        let d = Dense {
            dim: 2,
            vectors: vec![1.0, 0.0, 0.0, 1.0, 0.6, 0.8, 0.0, 1.0],
        };
        let r = d.search(&[0.0, 1.0], 3);
        assert_eq!(r.iter().map(|x| x.0).collect::<Vec<_>>(), vec![1, 3, 2]);
        assert_eq!(d.search(&[1.0, 0.0], 10).len(), 4);
    }

    #[test]
    fn bm25_prefers_rare_terms_and_short_chunks() {
        let texts = [
            "de raad besluit",
            "de motie windenergie",
            "de de de windenergie windenergie en meer woorden hier",
        ];
        let b = Bm25::new(texts.iter().copied());
        let r = b.search("Windenergie", 5);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].0, 1, "{r:?}");
        assert!(b.search("onbekend", 5).is_empty());
    }

    #[test]
    fn rrf_rewards_agreement() {
        let a = vec![(1, 0.9), (2, 0.8), (3, 0.7)];
        let b = vec![(4, 9.0), (2, 8.0), (3, 1.0)];
        let f = rrf(&[a, b], 2);
        assert_eq!(f[0].0, 2);
        assert_eq!(f.len(), 2);
    }
}
