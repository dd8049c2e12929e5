//! The archive's only source of randomness: SplitMix64, written out here so that the generated
//! archive never changes with a crate version, plus the draws the generator needs (uniform,
//! weighted, shuffles and a lognormal built from `+ - * /` only, so it is bit-identical on every
//! platform: no libm `exp`/`ln` whose last bits differ between C libraries).

/// SplitMix64 (Steele, Lea and Flood 2014): 64 bits of state, passes BigCrush, trivially seekable.
#[derive(Debug, Clone)]
pub struct Rng(u64);

/// The SplitMix64 output function, also used to mix seeds.
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Rng {
    /// A generator for one purpose (`stream`) and one item (`index`) of the archive with `seed`:
    /// each document is rendered from its own generator, so documents are independent of each
    /// other and of the order they are asked for.
    pub fn derive(seed: u64, stream: u64, index: u64) -> Self {
        let a = mix(seed ^ 0x6A09_E667_F3BC_C908);
        let b = mix(a ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15));
        Rng(mix(b ^ index.wrapping_mul(0xD1B5_4A32_D192_ED03)))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// Uniform in `0..n` (`n > 0`; 0 when `n == 0`), by multiply-shift.
    pub fn below(&mut self, n: usize) -> usize {
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi` (`lo` when `hi < lo`).
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        if hi <= lo {
            return lo;
        }
        lo + self.below(hi - lo + 1)
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One item of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// An index drawn with the given weights (at least one positive).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|&w| w as u64).sum();
        let mut x = ((self.next_u64() as u128 * total as u128) >> 64) as u64;
        for (i, &w) in weights.iter().enumerate() {
            if x < w as u64 {
                return i;
            }
            x -= w as u64;
        }
        weights.len() - 1
    }

    /// Fisher–Yates shuffle.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// `k` distinct indices of `0..n` in increasing order (all of them when `k >= n`).
    pub fn sample(&mut self, n: usize, k: usize) -> Vec<usize> {
        let mut all: Vec<usize> = (0..n).collect();
        self.shuffle(&mut all);
        all.truncate(k.min(n));
        all.sort_unstable();
        all
    }

    /// A standard normal draw (inverse CDF by linear interpolation in a quantile table).
    pub fn normal(&mut self) -> f64 {
        normal_quantile(self.unit())
    }

    /// A lognormal draw with the given median and shape `sigma`.
    pub fn lognormal(&mut self, median: f64, sigma: f64) -> f64 {
        median * exp(sigma * self.normal())
    }
}

/// (u, z) with Φ(z) = u: the standard normal's quantiles, dense in the tails.
const QUANTILES: [(f64, f64); 45] = [
    (0.0, -5.6),
    (1e-07, -5.199338),
    (1e-06, -4.753424),
    (1e-05, -4.264891),
    (0.0001, -3.719016),
    (0.0005, -3.290527),
    (0.001, -3.090232),
    (0.0025, -2.807034),
    (0.005, -2.575829),
    (0.01, -2.326348),
    (0.02, -2.053749),
    (0.035, -1.811911),
    (0.05, -1.644854),
    (0.075, -1.439531),
    (0.1, -1.281552),
    (0.15, -1.036433),
    (0.2, -0.841621),
    (0.25, -0.674490),
    (0.3, -0.524401),
    (0.35, -0.385320),
    (0.4, -0.253347),
    (0.45, -0.125661),
    (0.5, 0.0),
    (0.55, 0.125661),
    (0.6, 0.253347),
    (0.65, 0.385320),
    (0.7, 0.524401),
    (0.75, 0.674490),
    (0.8, 0.841621),
    (0.85, 1.036433),
    (0.9, 1.281552),
    (0.925, 1.439531),
    (0.95, 1.644854),
    (0.965, 1.811911),
    (0.98, 2.053749),
    (0.99, 2.326348),
    (0.995, 2.575829),
    (0.9975, 2.807034),
    (0.999, 3.090232),
    (0.9995, 3.290527),
    (0.9999, 3.719016),
    (0.99999, 4.264891),
    (0.999999, 4.753424),
    (0.9999999, 5.199338),
    (1.0, 5.6),
];

/// The standard normal quantile of `u` in `[0, 1]`.
pub fn normal_quantile(u: f64) -> f64 {
    let u = u.clamp(0.0, 1.0);
    let i = QUANTILES
        .partition_point(|&(q, _)| q <= u)
        .clamp(1, QUANTILES.len() - 1);
    let (u0, z0) = QUANTILES[i - 1];
    let (u1, z1) = QUANTILES[i];
    z0 + (z1 - z0) * (u - u0) / (u1 - u0)
}

/// `e^x` from basic arithmetic only (range reduction by ln 2, then a Taylor series), accurate to
/// a few ulps and identical on every platform. `x` is clamped to `[-700, 700]`.
pub fn exp(x: f64) -> f64 {
    const LN2: f64 = std::f64::consts::LN_2;
    let x = x.clamp(-700.0, 700.0);
    let k = (x / LN2).round();
    let r = x - k * LN2;
    let mut term = 1.0;
    let mut sum = 1.0;
    for i in 1..=22 {
        term *= r / i as f64;
        sum += term;
    }
    sum * f64::from_bits(((k as i64 + 1023) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_matches_std() {
        for x in [-20.0, -3.3, -0.5, 0.0, 0.1, 1.0, 2.5, 7.7, 30.0] {
            let rel = (exp(x) - x.exp()).abs() / x.exp();
            assert!(rel < 1e-13, "{x}: {} vs {}", exp(x), x.exp());
        }
    }

    #[test]
    fn quantiles_are_monotone_and_symmetric() {
        assert_eq!(normal_quantile(0.5), 0.0);
        assert!((normal_quantile(0.975) + normal_quantile(0.025)).abs() < 0.01);
        let mut last = f64::MIN;
        for i in 0..=1000 {
            let z = normal_quantile(i as f64 / 1000.0);
            assert!(z >= last);
            last = z;
        }
    }

    #[test]
    fn draws_stay_in_range() {
        let mut rng = Rng::derive(7, 1, 2);
        for n in 1..50 {
            assert!(rng.below(n) < n);
            let r = rng.range(3, 3 + n);
            assert!((3..=3 + n).contains(&r));
        }
        assert_eq!(rng.weighted(&[0, 5, 0]), 1);
    }
}
