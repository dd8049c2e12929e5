//! Exact-form GELU, `0.5·x·(1 + erf(x/√2))`, computed the way PyTorch's vectorized CPU kernel
//! does: erf by Abramowitz & Stegun 7.1.26 (|error| < 1.5e-7) with a polynomial exp. The loop is
//! branch-free so it vectorizes, and it runs on rayon's threads; candle's own `gelu_erf` calls a
//! scalar `erf` per element, which made it a tenth of MiniLM's run time.

use rayon::prelude::*;

/// GELU (erf form) of every value, in place, on rayon's threads.
pub(crate) fn gelu_in_place(x: &mut [f32]) {
    x.par_chunks_mut(8192).for_each(gelu_slice);
}

fn gelu_slice(x: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features the function is compiled for.
        unsafe { gelu_avx512(x) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features the function is compiled for.
        unsafe { gelu_avx2(x) };
        return;
    }
    gelu_body(x)
}

/// The same loop compiled for AVX2 (8 lanes, a rounding instruction) instead of the SSE2
/// baseline of the x86-64 target.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn gelu_avx2(x: &mut [f32]) {
    gelu_body(x)
}

/// The same loop with 16 lanes (element-wise: the same values).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn gelu_avx512(x: &mut [f32]) {
    gelu_body(x)
}

#[inline(always)]
fn gelu_body(x: &mut [f32]) {
    for v in x {
        *v = 0.5 * *v * (1.0 + erf(*v * std::f32::consts::FRAC_1_SQRT_2));
    }
}

/// erf(x) = sign(x)·(1 − t·P(t)·exp(−x²)), t = 1/(1 + p·|x|) (A&S 7.1.26).
#[inline(always)]
fn erf(x: f32) -> f32 {
    const P: f32 = 0.327_591_1;
    const A1: f32 = 0.254_829_6;
    const A2: f32 = -0.284_496_74;
    const A3: f32 = 1.421_413_8;
    const A4: f32 = -1.453_152_1;
    const A5: f32 = 1.061_405_4;
    let a = x.abs();
    let t = 1.0 / (1.0 + P * a);
    let poly = ((((A5 * t + A4) * t + A3) * t + A2) * t + A1) * t;
    let y = 1.0 - poly * exp_neg(-a * a);
    y.copysign(x)
}

/// exp(x) for x <= 0 (clamped at -87, where it is ~1e-38): Cody–Waite reduction to
/// 2^n·exp(r) with |r| <= ln2/2 and a degree-6 polynomial; relative error < 5e-7.
#[inline(always)]
pub(crate) fn exp_neg(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    let x = x.max(-87.0);
    let n = (x * LOG2E).round();
    let r = x - n * LN2_HI - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // 2^n by building the exponent bits; n is in [-126, 0] here.
    let scale = f32::from_bits(((n as i32 + 127) as u32) << 23);
    p * scale
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exp_is_accurate() {
        for i in 0..=8700 {
            let x = -(i as f32) / 100.0;
            let (got, want) = (exp_neg(x), (x as f64).exp());
            assert!(
                ((got as f64 - want) / want).abs() < 5e-7,
                "exp({x}) = {got}, want {want}"
            );
        }
    }

    #[test]
    fn gelu_matches_the_exact_formula() {
        let mut worst = 0f64;
        // |x| <= 4, so x/√2 < 3 where the series is exact.
        for i in -800..=800 {
            let x = i as f32 / 200.0;
            let mut o = [x];
            gelu_slice(&mut o);
            let x64 = x as f64;
            let want = 0.5 * x64 * (1.0 + erf64(x64 / std::f64::consts::SQRT_2));
            worst = worst.max((o[0] as f64 - want).abs());
        }
        assert!(worst < 1e-6, "max abs error {worst}");
    }

    /// Every compiled variant gives the same bits.
    #[test]
    fn variants_agree_bit_for_bit() {
        let x: Vec<f32> = (0..1000).map(|i| (i as f32 - 500.0) / 77.0).collect();
        let mut plain = x.clone();
        gelu_body(&mut plain);
        #[cfg(target_arch = "x86_64")]
        for (feature, f) in [
            ("avx2", gelu_avx2 as unsafe fn(&mut [f32])),
            ("avx512f", gelu_avx512),
        ] {
            if std::is_x86_feature_detected!("avx2")
                && std::is_x86_feature_detected!("fma")
                && (feature != "avx512f" || std::is_x86_feature_detected!("avx512f"))
            {
                let mut v = x.clone();
                // SAFETY: the features were detected above.
                unsafe { f(&mut v) };
                assert_eq!(v, plain, "{feature}");
            }
        }
    }

    /// erf by its Taylor series (exact to ~1e-13 for |x| < 3).
    fn erf64(x: f64) -> f64 {
        let mut sum = 0.0;
        let mut term = x;
        let mut n = 0.0;
        while term.abs() > 1e-18 {
            sum += term / (2.0 * n + 1.0);
            n += 1.0;
            term *= -x * x / n;
        }
        sum * 2.0 / std::f64::consts::PI.sqrt()
    }
}
