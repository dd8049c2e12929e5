//! Mean, standard deviation and a 95% percentile-bootstrap interval of per-query values.
//!
//! The resampling is deterministic: a fixed-seed SplitMix64 generator, so the same values give
//! the same interval on every run and machine.

use serde::Serialize;

/// Resamples drawn by [`summarize`].
pub const RESAMPLES: usize = 1000;

/// A metric over queries: mean, population standard deviation (numpy's `std`, as the Chroma
/// report prints), the 95% bootstrap interval of the mean, and how many queries it covers.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Summary {
    pub mean: f64,
    pub std: f64,
    /// 2.5th percentile of the resampled means.
    pub lo: f64,
    /// 97.5th percentile of the resampled means.
    pub hi: f64,
    /// Number of queries the metric is defined for.
    pub n: usize,
}

impl Summary {
    /// The same summary with every value multiplied by `f` (fractions → percent).
    pub fn scaled(self, f: f64) -> Summary {
        Summary {
            mean: self.mean * f,
            std: self.std * f,
            lo: self.lo * f,
            hi: self.hi * f,
            n: self.n,
        }
    }
}

/// SplitMix64: a tiny, well-mixed deterministic generator.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the tiny modulo bias is irrelevant at these sizes.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Summarize `values` (NaN values — queries the metric is undefined for — are left out) with
/// [`RESAMPLES`] bootstrap resamples drawn from `seed`.
///
/// ```
/// use chunklab_eval::bootstrap::summarize;
/// let s = summarize(&[1.0, 0.0, 1.0, 1.0], 7);
/// assert_eq!(s.mean, 0.75);
/// assert!((s.std - 0.4330127).abs() < 1e-6);
/// assert!(s.lo <= s.mean && s.mean <= s.hi);
/// assert_eq!(s.n, 4);
/// ```
pub fn summarize(values: &[f64], seed: u64) -> Summary {
    let v: Vec<f64> = values.iter().copied().filter(|x| !x.is_nan()).collect();
    let n = v.len();
    if n == 0 {
        return Summary {
            mean: f64::NAN,
            std: f64::NAN,
            lo: f64::NAN,
            hi: f64::NAN,
            n: 0,
        };
    }
    let mean = v.iter().sum::<f64>() / n as f64;
    let var = v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
    let mut rng = SplitMix64(seed ^ 0x00C0_FFEE);
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| (0..n).map(|_| v[rng.below(n)]).sum::<f64>() / n as f64)
        .collect();
    means.sort_by(|a, b| a.total_cmp(b));
    let at = |q: f64| means[((q * (RESAMPLES - 1) as f64).round() as usize).min(RESAMPLES - 1)];
    Summary {
        mean,
        std: var.sqrt(),
        lo: at(0.025).min(mean),
        hi: at(0.975).max(mean),
        n,
    }
}

/// The paired difference `a − b` of two rows' per-query values over the same queries: its mean
/// and the 95% bootstrap interval of that mean, resampling *queries* (each resample draws the
/// same query indices for every pair of rows with the same seed and query count). Queries where
/// either value is NaN are left out; `n` counts the pairs. The difference is separable from 0
/// when the interval excludes it — a stronger test than non-overlapping intervals of the two
/// means, because the variation between queries, which both rows share, cancels.
///
/// ```
/// use chunklab_eval::bootstrap::paired_difference;
/// let best = [0.9, 0.2, 0.7, 0.4, 1.0, 0.1];
/// let worse: Vec<f64> = best.iter().map(|x| x - 0.05).collect();
/// let d = paired_difference(&best, &worse, 3);
/// assert!((d.mean - 0.05).abs() < 1e-12 && d.lo > 0.0);
/// ```
pub fn paired_difference(a: &[f64], b: &[f64], seed: u64) -> Summary {
    let d: Vec<f64> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| !x.is_nan() && !y.is_nan())
        .map(|(x, y)| x - y)
        .collect();
    summarize(&d, seed)
}

/// `0..n` in a deterministic pseudo-random order drawn from `seed` (Fisher–Yates with the
/// generator of [`summarize`]): the fold assignment of cross-validation.
pub fn shuffled(n: usize, seed: u64) -> Vec<usize> {
    let mut v: Vec<usize> = (0..n).collect();
    let mut rng = SplitMix64(seed ^ 0x0F01_D5EE);
    for i in (1..n).rev() {
        v.swap(i, rng.below(i + 1));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constant_values_have_a_point_interval() {
        let s = summarize(&[0.5; 50], 1);
        assert_eq!((s.mean, s.std, s.lo, s.hi, s.n), (0.5, 0.0, 0.5, 0.5, 50));
    }

    #[test]
    fn nan_is_left_out_and_empty_is_nan() {
        let s = summarize(&[f64::NAN, 1.0, 0.0], 1);
        assert_eq!((s.mean, s.n), (0.5, 2));
        assert!(summarize(&[f64::NAN], 1).mean.is_nan());
        assert_eq!(summarize(&[], 1).n, 0);
    }

    #[test]
    fn interval_is_deterministic_and_plausible() {
        let values: Vec<f64> = (0..200)
            .map(|i| if i % 4 == 0 { 1.0 } else { 0.0 })
            .collect();
        let a = summarize(&values, 42);
        let b = summarize(&values, 42);
        assert_eq!(a, b);
        assert_eq!(a.mean, 0.25);
        // Standard error sqrt(0.25*0.75/200) = 0.0306; the interval is about ±1.96 of that.
        assert!(a.lo > 0.17 && a.lo < 0.21, "{a:?}");
        assert!(a.hi > 0.29 && a.hi < 0.33, "{a:?}");
    }

    #[test]
    fn paired_difference_cancels_shared_query_variation() {
        // Queries of very different difficulty; row b is 0.05 below row a on every one. The
        // two means' intervals overlap widely, the paired difference is 0.05 every time.
        let a: Vec<f64> = (0..100).map(|i| (i % 10) as f64 / 10.0 + 0.05).collect();
        let b: Vec<f64> = a.iter().map(|x| x - 0.05).collect();
        let (sa, sb) = (summarize(&a, 1), summarize(&b, 1));
        assert!(sb.hi > sa.lo, "the intervals overlap: {sa:?} {sb:?}");
        let d = paired_difference(&a, &b, 1);
        assert!(
            (d.mean - 0.05).abs() < 1e-12 && (d.lo - 0.05).abs() < 1e-9,
            "{d:?}"
        );
        // NaN on either side drops the pair.
        let d = paired_difference(&[1.0, f64::NAN, 0.5], &[0.0, 0.0, f64::NAN], 1);
        assert_eq!((d.mean, d.n), (1.0, 1));
    }

    #[test]
    fn shuffled_is_a_deterministic_permutation() {
        let a = shuffled(50, 9);
        assert_eq!(a, shuffled(50, 9));
        assert_ne!(a, (0..50).collect::<Vec<_>>());
        let mut s = a.clone();
        s.sort_unstable();
        assert_eq!(s, (0..50).collect::<Vec<_>>());
        assert!(shuffled(0, 1).is_empty());
    }
}
