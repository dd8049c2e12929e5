//! Ranking metrics of one query: document level (recall@k, hit@k, MRR, nDCG@k over the
//! documents of the top-k chunks) and chunk level (recall@k, precision@k of relevant chunks).
//!
//! A retrieved list is the top-k chunks in rank order. Its document ranking is the documents of
//! those chunks, each at the rank of its first chunk ([`doc_ranking`]). A chunk is relevant when
//! it overlaps (strictly) a relevant span of the query, or — for a query with document labels
//! only — when its document is relevant.

/// The documents of `chunk_docs` (the document of each retrieved chunk, in rank order), each
/// once, at the rank of its first chunk.
///
/// ```
/// use chunklab_eval::metrics::doc_ranking;
/// assert_eq!(doc_ranking(&[3, 3, 1, 3, 2]), vec![3, 1, 2]);
/// ```
pub fn doc_ranking(chunk_docs: &[u32]) -> Vec<u32> {
    let mut out: Vec<u32> = Vec::with_capacity(chunk_docs.len());
    for &d in chunk_docs {
        if !out.contains(&d) {
            out.push(d);
        }
    }
    out
}

/// Document-level scores of one query, as fractions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocScores {
    /// Relevant documents among the ranking / relevant documents.
    pub recall: f64,
    /// 1 when any relevant document is in the ranking.
    pub hit: f64,
    /// 1 / rank of the first relevant document (0 when none).
    pub mrr: f64,
    /// Binary-gain nDCG over the document ranking, ideal = all relevant documents first.
    pub ndcg: f64,
}

/// Document-level scores of a document ranking against the relevant documents (`relevant` must
/// not be empty; duplicates in it are ignored).
///
/// ```
/// use chunklab_eval::metrics::doc_scores;
/// // Relevant {1, 2}; ranking 5, 1, 7: one of two found, at rank 2.
/// let s = doc_scores(&[5, 1, 7], &[1, 2]);
/// assert_eq!((s.recall, s.hit, s.mrr), (0.5, 1.0, 0.5));
/// let ideal = 1.0 + 1.0 / 3f64.log2();
/// assert!((s.ndcg - (1.0 / 3f64.log2()) / ideal).abs() < 1e-12);
/// ```
pub fn doc_scores(ranking: &[u32], relevant: &[u32]) -> DocScores {
    let mut rel: Vec<u32> = relevant.to_vec();
    rel.sort_unstable();
    rel.dedup();
    if rel.is_empty() {
        return DocScores {
            recall: f64::NAN,
            hit: f64::NAN,
            mrr: f64::NAN,
            ndcg: f64::NAN,
        };
    }
    let is_rel = |d: &u32| rel.binary_search(d).is_ok();
    let found = ranking.iter().filter(|d| is_rel(d)).count();
    let first = ranking.iter().position(is_rel);
    let dcg: f64 = ranking
        .iter()
        .enumerate()
        .filter(|(_, d)| is_rel(d))
        .map(|(i, _)| 1.0 / ((i + 2) as f64).log2())
        .sum();
    let ideal_n = rel.len().min(ranking.len().max(1));
    let idcg: f64 = (0..ideal_n).map(|i| 1.0 / ((i + 2) as f64).log2()).sum();
    DocScores {
        recall: found as f64 / rel.len() as f64,
        hit: if found > 0 { 1.0 } else { 0.0 },
        mrr: first.map_or(0.0, |r| 1.0 / (r + 1) as f64),
        ndcg: if idcg > 0.0 { dcg / idcg } else { 0.0 },
    }
}

/// Chunk-level scores of one query, as fractions.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChunkScores {
    /// Relevant chunks retrieved / relevant chunks in the collection (NaN when none is).
    pub recall: f64,
    /// Relevant chunks retrieved / chunks retrieved (NaN when nothing was retrieved).
    pub precision: f64,
}

/// Chunk-level scores from the relevance of each retrieved chunk and the number of relevant
/// chunks in the whole collection.
///
/// ```
/// use chunklab_eval::metrics::chunk_scores;
/// let s = chunk_scores(&[true, false, true, false, false], 4);
/// assert_eq!((s.recall, s.precision), (0.5, 0.4));
/// ```
pub fn chunk_scores(retrieved_relevant: &[bool], relevant_total: usize) -> ChunkScores {
    let hits = retrieved_relevant.iter().filter(|r| **r).count();
    ChunkScores {
        recall: if relevant_total == 0 {
            f64::NAN
        } else {
            hits as f64 / relevant_total as f64
        },
        precision: if retrieved_relevant.is_empty() {
            f64::NAN
        } else {
            hits as f64 / retrieved_relevant.len() as f64
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_and_empty_rankings() {
        let s = doc_scores(&[4, 2], &[2, 4]);
        assert_eq!((s.recall, s.hit, s.mrr, s.ndcg), (1.0, 1.0, 1.0, 1.0));
        let s = doc_scores(&[], &[2]);
        assert_eq!((s.recall, s.hit, s.mrr, s.ndcg), (0.0, 0.0, 0.0, 0.0));
        assert!(doc_scores(&[1], &[]).recall.is_nan());
    }

    #[test]
    fn ndcg_hand_computed() {
        // Relevant {a=1}; found at rank 3 of 3: DCG = 1/log2(4) = 0.5, IDCG = 1.
        let s = doc_scores(&[7, 8, 1], &[1]);
        assert_eq!(s.ndcg, 0.5);
        assert_eq!(s.mrr, 1.0 / 3.0);
        // More relevant documents than ranked ones: the ideal is capped at the ranking length.
        let s = doc_scores(&[1], &[1, 2, 3]);
        assert_eq!((s.recall, s.ndcg), (1.0 / 3.0, 1.0));
    }

    #[test]
    fn chunk_scores_edge_cases() {
        let s = chunk_scores(&[], 0);
        assert!(s.recall.is_nan() && s.precision.is_nan());
        let s = chunk_scores(&[false, false], 3);
        assert_eq!((s.recall, s.precision), (0.0, 0.0));
    }
}
