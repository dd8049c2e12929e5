//! Softmax of attention rows with the polynomial exp of [`crate::gelu`] (relative error < 5e-7)
//! in a branch-free loop compiled for AVX-512 or AVX2, instead of a libm `expf` call per score: with
//! 512-token passages, the scores' exp was a sixth of e5-small's time.

/// `row = softmax(row)`, in place.
pub(crate) fn softmax(row: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features the function is compiled for.
        unsafe { softmax_avx512(row) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
        // SAFETY: the CPU has the features the function is compiled for.
        unsafe { softmax_avx2(row) };
        return;
    }
    softmax_body(row)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn softmax_avx2(row: &mut [f32]) {
    softmax_body(row)
}

/// The same loop with 16 lanes; the same values (element-wise operations, sums in the same
/// fixed order).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn softmax_avx512(row: &mut [f32]) {
    softmax_body(row)
}

#[inline(always)]
fn softmax_body(row: &mut [f32]) {
    // Eight running maxima: one dependent `max` per score would cost its latency each time.
    let mut tops = [f32::NEG_INFINITY; 8];
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (t, &v) in tops.iter_mut().zip(c) {
            *t = if v > *t { v } else { *t };
        }
    }
    let max = chunks
        .remainder()
        .iter()
        .chain(&tops)
        .copied()
        .fold(f32::NEG_INFINITY, f32::max);
    for v in row.iter_mut() {
        *v = crate::gelu::exp_neg(*v - max);
    }
    // Eight running sums (in a fixed order, so the result does not depend on the CPU).
    let mut lanes = [0f32; 8];
    let mut chunks = row.chunks_exact(8);
    for c in &mut chunks {
        for (l, v) in lanes.iter_mut().zip(c) {
            *l += v;
        }
    }
    let sum = lanes.iter().sum::<f32>() + chunks.remainder().iter().sum::<f32>();
    let inv = 1.0 / sum;
    row.iter_mut().for_each(|v| *v *= inv);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_exact_softmax() {
        for len in [1, 2, 7, 8, 9, 63, 512] {
            let mut row: Vec<f32> = (0..len)
                .map(|i| ((i * 37 % 101) as f32 - 50.0) / 7.0)
                .collect();
            let max = row
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, |m, v| m.max(v as f64));
            let exps: Vec<f64> = row.iter().map(|&v| (v as f64 - max).exp()).collect();
            let total: f64 = exps.iter().sum();
            softmax(&mut row);
            for (got, e) in row.iter().zip(&exps) {
                let want = e / total;
                assert!(
                    (*got as f64 - want).abs() <= 2e-6 * want + 1e-12,
                    "len {len}: {got} vs {want}"
                );
            }
        }
    }

    /// Every compiled variant gives the same bits (the model's vectors must not depend on the
    /// CPU's vector width).
    #[test]
    fn variants_agree_bit_for_bit() {
        for len in [1, 7, 8, 15, 16, 17, 100, 512] {
            let row: Vec<f32> = (0..len)
                .map(|i| ((i * 53 % 97) as f32 - 40.0) / 3.0)
                .collect();
            let mut plain = row.clone();
            softmax_body(&mut plain);
            #[cfg(target_arch = "x86_64")]
            for (feature, f) in [
                ("avx2", softmax_avx2 as unsafe fn(&mut [f32])),
                ("avx512f", softmax_avx512),
            ] {
                if std::is_x86_feature_detected!("avx2")
                    && std::is_x86_feature_detected!("fma")
                    && (feature != "avx512f" || std::is_x86_feature_detected!("avx512f"))
                {
                    let mut v = row.clone();
                    // SAFETY: the features were detected above.
                    unsafe { f(&mut v) };
                    assert_eq!(v, plain, "{feature}, len {len}");
                }
            }
        }
    }
}
