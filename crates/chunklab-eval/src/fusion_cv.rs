//! `hybrid-cv`: hybrid retrieval whose BM25:dense weight is chosen by cross-validation.
//!
//! Equal-weight reciprocal-rank fusion lets a weaker retriever drag a stronger one down (on the
//! Chroma set BM25 alone beats the equal-weight hybrid). This mode keeps the fusion the index
//! runs — [`chunklab_index::fusion::rrf`] over each retriever's candidates at the depth hybrid
//! search uses — and learns only its weights, honestly: the queries are split into [`FOLDS`]
//! folds (a fixed-seed shuffle); for each fold, a weight of [`GRID`] is chosen on the *other*
//! folds by [`choose`] and applied to the fold's queries. The row reports those held-out
//! results, so its metric and interval are an estimate for new queries, not the best of seven
//! tries. Each step of fusion must earn its place, simplest first, by beating the simpler
//! choice by more than one standard error of the paired difference (the one-standard-error rule
//! of model selection, Breiman et al. 1984): a gain that a handful of queries could make or
//! unmake does not replace the simpler choice. The weight chosen on all queries is the one a
//! user passes to
//! `chunklab search --mode hybrid --bm25-weight B --dense-weight D` (or a sweep's `bm25_weight`
//! / `dense_weight`). Queries that name an identifier get BM25's weight multiplied by the search
//! default [`identifier_boost`](chunklab_pipeline::search::SearchConfig::identifier_boost) on
//! top, as `chunklab search` does.

use crate::bootstrap::shuffled;
use crate::chunking::EvalChunk;
use crate::collection::{Candidates, Collection};
use crate::error::Result;
use crate::progress::Progress;
use crate::scoring::{score_query, Collection as Omega, QueryLabels};
use rayon::prelude::*;
use serde::Serialize;
use std::time::Instant;

/// The BM25:dense weights tried, as `(bm25_weight, dense_weight)`: dense only, ¼, ½, 1, 2, 4,
/// BM25 only.
pub const GRID: [(f32, f32); 7] = [
    (0.0, 1.0),
    (0.25, 1.0),
    (0.5, 1.0),
    (1.0, 1.0),
    (2.0, 1.0),
    (4.0, 1.0),
    (1.0, 0.0),
];

/// Among weights with the same training score, the one closest to equal weight wins (indexes
/// into [`GRID`], most preferred first).
const PREFERENCE: [usize; 7] = [3, 4, 2, 5, 1, 6, 0];

/// The single retrievers of [`GRID`]: BM25 only (preferred on a tie: it needs no model) and
/// dense only.
const SINGLE: [usize; 2] = [6, 0];

/// Equal weight in [`GRID`]: reciprocal-rank fusion as published, with nothing tuned.
const EQUAL: usize = 3;

/// Folds of the cross-validation.
pub const FOLDS: usize = 5;

/// Seed of the fold assignment.
pub const SEED: u64 = 17;

/// What the cross-validation chose for one configuration.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FusionChoice {
    /// The metric the weights were chosen by (the run's `metric`, by default the report's
    /// default ranking metric).
    pub metric: String,
    pub folds: usize,
    pub seed: u64,
    /// `[bm25_weight, dense_weight]` chosen on the training folds of each fold, in fold order.
    pub per_fold: Vec<[f32; 2]>,
    /// `[bm25_weight, dense_weight]` chosen on all queries: what to pass to `chunklab search`.
    pub all_queries: [f32; 2],
    /// Each weight of [`GRID`] with its mean metric over all queries (in-sample; for
    /// reading the curve, not a result).
    pub grid: Vec<([f32; 2], f64)>,
}

impl FusionChoice {
    /// `4:1`-style ratio of a weight pair (`1:0` BM25 only, `0:1` dense only).
    pub fn ratio(w: [f32; 2]) -> String {
        format!("{}:{}", w[0], w[1])
    }

    /// One line for the report's notes: the weights per fold and the one to use.
    pub fn note(&self, label: &str) -> String {
        let folds: Vec<String> = self.per_fold.iter().map(|w| Self::ratio(*w)).collect();
        let [b, d] = self.all_queries;
        format!(
            "{label} hybrid-cv: BM25:dense weight chosen by {} on the training folds ({}-fold, seed {}): {}; on all queries {} → chunklab search --mode hybrid --bm25-weight {b} --dense-weight {d}",
            self.metric,
            self.folds,
            self.seed,
            folds.join(", "),
            Self::ratio(self.all_queries),
        )
    }
}

/// The best `k` keys of one query's candidates fused with weights `w` — the index's own RRF.
pub fn fuse(c: &Candidates, w: (f32, f32), rrf_k: f32, k: usize) -> Vec<u64> {
    chunklab_index::fusion::rrf(&[(&c.bm25, w.0), (&c.dense, w.1)], rrf_k)
        .into_iter()
        .take(k)
        .map(|(key, _)| key)
        .collect()
}

/// Which weight to use for each fold, and for all queries together.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Folds {
    /// The fold of each query.
    pub fold_of: Vec<usize>,
    /// The [`GRID`] index chosen on each fold's training queries.
    pub choice: Vec<usize>,
    /// The [`GRID`] index chosen on all queries.
    pub all: usize,
}

/// Cross-validate over `scores[g][q]`, the ranking metric of query `q` with weight `g` (NaN
/// where the metric is undefined): `folds` folds of a `seed`-shuffled query order, each fold's
/// weight chosen on the other folds by [`choose`].
pub fn cross_validate(scores: &[Vec<f64>], folds: usize, seed: u64) -> Folds {
    let n = scores.first().map_or(0, Vec::len);
    let folds = folds.clamp(1, n.max(1));
    let mut fold_of = vec![0; n];
    for (pos, q) in shuffled(n, seed).into_iter().enumerate() {
        fold_of[q] = pos % folds;
    }
    let choice = (0..folds)
        .map(|f| choose(scores, &|q| fold_of[q] != f))
        .collect();
    let all = choose(scores, &|_| true);
    Folds {
        fold_of,
        choice,
        all,
    }
}

/// The weight to use, judged on the queries `train` keeps, simplest first. "Beats" means a mean
/// paired per-query gain of more than one standard error of that gain. The start is the better
/// single retriever (by mean; BM25 on a tie) where one beats the other, else equal weight
/// (parameter-free RRF: with two retrievers of the same quality, fusing them is the robust
/// default, and picking one by its mean would flip from fold to fold); equal weight replaces a
/// single retriever it beats; then the best other weight (ties: the one closest to equal) replaces
/// the choice so far if it beats it. Queries where either score is NaN do not count.
pub fn choose(scores: &[Vec<f64>], train: &dyn Fn(usize) -> bool) -> usize {
    let n = scores.first().map_or(0, Vec::len);
    let has = |g: usize| g < scores.len();
    let mean = |g: usize| {
        let v: Vec<f64> = (0..n)
            .filter(|&q| train(q) && !scores[g][q].is_nan())
            .map(|q| scores[g][q])
            .collect();
        if v.is_empty() {
            f64::NEG_INFINITY
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    };
    let best_of = |candidates: &mut dyn Iterator<Item = usize>| -> Option<usize> {
        let mut pick: Option<(usize, f64)> = None;
        for g in candidates {
            let m = mean(g);
            // Strictly better only: a tie keeps the more preferred weight.
            if pick.is_none_or(|(_, top)| m > top + 1e-12) {
                pick = Some((g, m));
            }
        }
        pick.map(|(g, _)| g)
    };
    // `a` beats `b`: its mean paired gain exceeds one standard error of the gain.
    let beats = |a: usize, b: usize| {
        let diff: Vec<f64> = (0..n)
            .filter(|&q| train(q) && !scores[a][q].is_nan() && !scores[b][q].is_nan())
            .map(|q| scores[a][q] - scores[b][q])
            .collect();
        if diff.len() < 2 {
            return false;
        }
        let len = diff.len() as f64;
        let gain = diff.iter().sum::<f64>() / len;
        let var = diff.iter().map(|d| (d - gain).powi(2)).sum::<f64>() / (len - 1.0);
        gain > (var / len).sqrt() + 1e-12
    };
    let Some(mut pick) = best_of(&mut SINGLE.iter().copied().filter(|&g| has(g))) else {
        return 0;
    };
    let separable = SINGLE.iter().all(|&g| has(g)) && {
        let [a, b] = SINGLE;
        beats(a, b) || beats(b, a)
    };
    if has(EQUAL) && (!separable || beats(EQUAL, pick)) {
        pick = EQUAL;
    }
    let tuned = best_of(
        &mut PREFERENCE
            .iter()
            .copied()
            .filter(|&g| g != EQUAL && !SINGLE.contains(&g) && has(g)),
    );
    if let Some(t) = tuned {
        if beats(t, pick) {
            pick = t;
        }
    }
    pick
}

/// Retrieve every query of a `hybrid-cv` configuration: each query's BM25 and dense candidates
/// from `collection` once, fused with every weight of [`GRID`] and scored on `metric`; then the
/// held-out choice per query. `metric` is a [`METRICS`](crate::scoring::METRICS) name (default:
/// `recall` where the queries have spans, else `doc_recall`). Returns each query's chunk
/// numbers, its retrieval time (both searches and the fusion) and the choice.
#[allow(clippy::too_many_arguments)]
pub fn retrieve(
    collection: &Collection,
    queries: &[&str],
    vectors: &[std::sync::Arc<[f32]>],
    k: usize,
    labels: &QueryLabels,
    chunks: &[EvalChunk],
    omega: &Omega,
    metric: Option<&str>,
    progress: &dyn Progress,
) -> Result<(Vec<Vec<u32>>, Vec<f64>, FusionChoice)> {
    let metric = metric.unwrap_or(if labels.spans.iter().any(|s| !s.is_empty()) {
        "recall"
    } else {
        "doc_recall"
    });
    let rrf_k = chunklab_index::Query::new("", chunklab_index::Mode::Hybrid, k).rrf_k;
    // As in every hybrid search: BM25's weight is boosted for queries that name an identifier;
    // the cross-validated weight is learnt on top of that.
    let search = chunklab_pipeline::search::SearchConfig::default();
    let boosts: Vec<f32> = queries.iter().map(|q| search.boost_for(q)).collect();
    let mut cands = Vec::with_capacity(queries.len());
    let mut latencies = Vec::with_capacity(queries.len());
    for (qi, q) in queries.iter().enumerate() {
        let t = Instant::now();
        let c = collection.candidates(q, &vectors[qi], k)?;
        // The fusion a hybrid query runs, timed with its searches.
        std::hint::black_box(fuse(&c, (boosts[qi], 1.0), rrf_k, k));
        latencies.push(t.elapsed().as_secs_f64() * 1000.0);
        cands.push(c);
        if qi % 16 == 0 {
            progress.set(qi as u64);
        }
    }
    let hits: Vec<Vec<Vec<u32>>> = GRID
        .iter()
        .map(|&w| {
            cands
                .par_iter()
                .zip(&boosts)
                .map(|(c, &boost)| {
                    fuse(c, (w.0 * boost, w.1), rrf_k, k)
                        .iter()
                        .map(|key| c.chunk(*key))
                        .collect()
                })
                .collect()
        })
        .collect();
    let scores: Vec<Vec<f64>> = hits
        .iter()
        .map(|per_query| {
            per_query
                .par_iter()
                .enumerate()
                .map(|(qi, h)| score_query(labels, qi, h, chunks, omega).get(metric))
                .collect()
        })
        .collect();
    let folds = cross_validate(&scores, FOLDS, SEED);
    let results = (0..queries.len())
        .map(|qi| hits[folds.choice[folds.fold_of[qi]]][qi].clone())
        .collect();
    let pair = |g: usize| [GRID[g].0, GRID[g].1];
    let mean = |v: &[f64]| {
        let d: Vec<f64> = v.iter().copied().filter(|x| !x.is_nan()).collect();
        d.iter().sum::<f64>() / d.len().max(1) as f64 * 100.0
    };
    let choice = FusionChoice {
        metric: metric.into(),
        folds: folds.choice.len(),
        seed: SEED,
        per_fold: folds.choice.iter().map(|&g| pair(g)).collect(),
        all_queries: pair(folds.all),
        grid: (0..GRID.len())
            .map(|g| (pair(g), mean(&scores[g])))
            .collect(),
    };
    Ok((results, latencies, choice))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_are_chosen_on_training_folds_only() {
        // 10 queries. Weight 5 (4:1) scores 0.9 on every query but q0 (0.0); weight 0 (dense
        // only) scores 0.8 everywhere and 1.0 on q0. With q0 in the training set dense-only
        // wins the mean (0.825 vs 0.79), without it 4:1 does (0.9 vs 0.8).
        let mut scores = vec![vec![0.5; 10]; GRID.len()];
        scores[5] = vec![0.9; 10];
        scores[5][0] = 0.0;
        scores[0] = vec![0.8; 10];
        scores[0][0] = 1.0;
        let f = cross_validate(&scores, 5, SEED);
        assert_eq!(f.choice.len(), 5);
        for fold in 0..5 {
            assert_eq!(f.fold_of.iter().filter(|&&x| x == fold).count(), 2);
        }
        // The fold holding q0 never trains on it: it picks 4:1, every other fold dense-only.
        let q0 = f.fold_of[0];
        for (fold, &g) in f.choice.iter().enumerate() {
            assert_eq!(g, if fold == q0 { 5 } else { 0 }, "{f:?}");
        }
        // On all queries dense-only wins (0.82 vs 0.81).
        assert_eq!(f.all, 0);
        assert_eq!(f, cross_validate(&scores, 5, SEED), "deterministic");
    }

    #[test]
    fn retrievers_of_the_same_quality_are_fused_and_nan_is_ignored() {
        let mut scores = vec![vec![0.7; 6]; GRID.len()];
        // Neither retriever is better: equal weight, not one of them picked by chance.
        assert_eq!(cross_validate(&scores, 3, 1).all, EQUAL);
        // A query undefined for the metric counts for no weight: dense is better on every
        // query that counts, so it is the start, and equal weight does not beat it.
        for s in &mut scores {
            s[2] = f64::NAN;
        }
        scores[0] = vec![0.8, 0.8, f64::NAN, 0.8, 0.8, 0.8];
        let f = cross_validate(&scores, 3, 1);
        assert_eq!(f.all, 0);
        assert_eq!(GRID[f.all], (0.0, 1.0));
        // Dense ahead on one query of five: within a standard error, so still equal weight.
        scores[0] = vec![0.8, 0.7, f64::NAN, 0.7, 0.7, 0.7];
        assert_eq!(choose(&scores, &|_| true), EQUAL);
    }

    #[test]
    fn fusion_must_beat_the_better_single_retriever_by_a_standard_error() {
        // 40 queries; BM25 0.5 everywhere, dense 0.4. Equal weight (index 3) gains on a few
        // queries and loses on others: a mean gain of 0.03 that one standard error (0.057)
        // covers, so BM25 alone is kept, though 1:1 has the best mean.
        let n = 40;
        let mut scores = vec![vec![0.3; n]; GRID.len()];
        scores[6] = vec![0.5; n];
        scores[0] = vec![0.4; n];
        scores[3] = (0..n)
            .map(|q| match q % 10 {
                0..=2 => 1.0,
                3 | 4 => 0.0,
                _ => 0.5 - 0.2 / 5.0,
            })
            .collect();
        let mean3 = scores[3].iter().sum::<f64>() / n as f64;
        assert!(mean3 > 0.5, "{mean3}");
        assert_eq!(choose(&scores, &|_| true), 6);
        // The same mean gain on every query is certain: fusion is chosen.
        scores[3] = vec![mean3; n];
        assert_eq!(choose(&scores, &|_| true), 3);
        // A fused weight below the better single retriever is never chosen.
        scores[3] = vec![0.45; n];
        assert_eq!(choose(&scores, &|_| true), 6);
    }

    #[test]
    fn a_tuned_weight_must_beat_equal_weight_by_a_standard_error() {
        // BM25 0.3, dense 0.2 and equal weight 0.4 on every query: equal weight beats BM25.
        let n = 40;
        let mut scores = vec![vec![0.2; n]; GRID.len()];
        scores[6] = vec![0.3; n];
        scores[3] = vec![0.4; n];
        // 4:1 is 0.02 ahead of equal weight on average, through +0.5 on 4 queries and −0.3 on
        // 4 others: one standard error (0.030) covers that, so equal weight is kept.
        scores[5] = (0..n)
            .map(|q| match q % 10 {
                0 => 0.9,
                1 => 0.1,
                _ => 0.4,
            })
            .collect();
        assert_eq!(choose(&scores, &|_| true), 3);
        // The same mean gain as +0.1 on 8 queries (SE 0.006) is chosen.
        scores[5] = (0..n).map(|q| if q % 5 == 0 { 0.5 } else { 0.4 }).collect();
        assert_eq!(choose(&scores, &|_| true), 5);
        // With equal weight no better than BM25, the tuned weight is judged against BM25.
        scores[3] = vec![0.3; n];
        assert_eq!(choose(&scores, &|_| true), 5);
    }

    #[test]
    fn note_names_the_search_flags() {
        let c = FusionChoice {
            metric: "recall".into(),
            folds: 2,
            seed: SEED,
            per_fold: vec![[4.0, 1.0], [1.0, 0.0]],
            all_queries: [4.0, 1.0],
            grid: Vec::new(),
        };
        let n = c.note("Recursive 250/0");
        assert!(n.contains("4:1, 1:0"), "{n}");
        assert!(n.ends_with("--bm25-weight 4 --dense-weight 1"), "{n}");
    }
}
