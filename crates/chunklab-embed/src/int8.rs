//! Int8 matrix products for the encoder's dense layers, on CPUs with AVX-512 VNNI or AVX2.
//!
//! Along the inputs, weights and activations are cut into groups of [`GROUP`] values, each with
//! its own scale. Weights are quantized once, when the model loads, symmetric per output and
//! group (`w ≈ sw[o][g] · q`, `q` in −127..=127); activations at every call, asymmetric per row
//! (one token) and group (`x ≈ sx[r][g] · (u − zp[r][g])`, `u` in 0..=255, 0 exact), so a token's
//! result does not depend on the other tokens of the batch. Within a group the products
//! accumulate exactly in i32 — with AVX-512 VNNI `vpdpbusd` (four u8 × i8 products per lane),
//! with AVX2 `vpmaddwd` on the same values widened to i16 (two products per lane); groups are
//! summed in f32 in a fixed order, so the result is bit-identical whatever the thread count, the
//! batch or the kernel:
//!
//! ```text
//! y[r][o] = Σ_g sx[r][g] · sw[o][g] · (Σ_{i∈g} u[r][i]·q[o][i] − zp[r][g] · Σ_{i∈g} q[o][i]) + bias[o]
//! ```
//!
//! Per-row scales over all 384 or 1536 inputs were not enough: one large input (the encoders
//! have a few such dimensions) coarsens every other, and MiniLM's vectors fell to cosine 0.992
//! against f32; groups of 64 keep outliers local. [`reference`] computes the same integers and
//! float operations in plain Rust; the tests hold the kernel to it bit for bit. How close int8
//! is to f32 on real models is measured in tests/int8.rs.

use rayon::prelude::*;

/// Inputs per quantization group (weights and activations).
pub(crate) const GROUP: usize = 64;
/// Outputs per block of scales, column sums and bias (and per `vpdpbusd` kernel block: one
/// 512-bit register of lanes).
const BLOCK: usize = 16;
/// Rows of one kernel tile.
const TILE_ROWS: usize = 4;
/// Output blocks of one kernel tile.
const TILE_BLOCKS: usize = 2;
/// Rows per parallel task (a multiple of [`TILE_ROWS`]).
const TASK_ROWS: usize = 48;
/// Outputs per AVX2 kernel block: one 256-bit register of lanes.
const LANES8: usize = 8;

/// The CPU instructions an int8 product runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    /// AVX-512 VNNI: `vpdpbusd`, u8 × i8 in groups of four.
    Vnni,
    /// AVX2 + FMA: `vpmaddwd`, the same u8 and i8 values widened to i16, in pairs.
    Avx2,
}

/// The quantized weights, laid out for one [`Kernel`].
enum Packed {
    /// For each block of 16 outputs, for each quad of 4 inputs: 16 outputs × 4 inputs, output
    /// major (64 bytes, one 512-bit register).
    Quads(Vec<i8>),
    /// For each block of 8 outputs, for each pair of inputs: 8 outputs × 2 inputs as i16,
    /// output major (32 bytes, one 256-bit register).
    Pairs(Vec<i16>),
}

/// The weights of one dense layer, quantized and packed for the kernel.
pub(crate) struct QuantDense {
    packed: Packed,
    /// For each block, for each group: the 16 outputs' weight scales `sw`.
    scale: Vec<f32>,
    /// For each block, for each group: the 16 outputs' `Σ_{i∈g} q[o][i]`.
    colsum: Vec<i32>,
    /// Per output (padded to whole blocks): the bias.
    bias: Vec<f32>,
    inputs: usize,
    /// `inputs` rounded up to whole groups.
    padded_inputs: usize,
    outputs: usize,
    blocks: usize,
}

/// The int8 kernel this CPU runs: AVX-512 VNNI where it has it, else AVX2 with FMA, else none.
pub(crate) fn kernel() -> Option<Kernel> {
    if runs(Kernel::Vnni) {
        Some(Kernel::Vnni)
    } else if runs(Kernel::Avx2) {
        Some(Kernel::Avx2)
    } else {
        None
    }
}

/// Whether this CPU runs `kernel`.
fn runs(kernel: Kernel) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match kernel {
            Kernel::Vnni => {
                std::is_x86_feature_detected!("avx512f")
                    && std::is_x86_feature_detected!("avx512bw")
                    && std::is_x86_feature_detected!("avx512vnni")
            }
            Kernel::Avx2 => {
                std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma")
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = kernel;
        false
    }
}

/// Whether this CPU runs an int8 kernel.
pub(crate) fn supported() -> bool {
    kernel().is_some()
}

impl QuantDense {
    /// Quantize `weight_t` (`inputs x outputs`, row-major) and `bias` (`outputs`) for this CPU's
    /// [`kernel`] (laid out for VNNI where there is none, which only [`reference`] reads).
    pub(crate) fn new(weight_t: &[f32], bias: &[f32], inputs: usize, outputs: usize) -> Self {
        Self::for_kernel(
            kernel().unwrap_or(Kernel::Vnni),
            weight_t,
            bias,
            inputs,
            outputs,
        )
    }

    /// [`QuantDense::new`] laid out for `kernel`.
    fn for_kernel(
        kernel: Kernel,
        weight_t: &[f32],
        bias: &[f32],
        inputs: usize,
        outputs: usize,
    ) -> Self {
        assert_eq!(weight_t.len(), inputs * outputs);
        assert_eq!(bias.len(), outputs);
        let padded_inputs = inputs.div_ceil(GROUP) * GROUP;
        let groups = padded_inputs / GROUP;
        let quads = padded_inputs / 4;
        let pairs = padded_inputs / 2;
        let blocks = outputs.div_ceil(BLOCK);
        let mut packed = match kernel {
            Kernel::Vnni => Packed::Quads(vec![0i8; blocks * BLOCK * padded_inputs]),
            Kernel::Avx2 => Packed::Pairs(vec![0i16; blocks * BLOCK * padded_inputs]),
        };
        let mut scale = vec![1f32; blocks * groups * BLOCK];
        let mut colsum = vec![0i32; blocks * groups * BLOCK];
        for o in 0..outputs {
            let (b, j) = (o / BLOCK, o % BLOCK);
            for g in 0..groups {
                let ins = g * GROUP..((g + 1) * GROUP).min(inputs);
                let max = ins
                    .clone()
                    .map(|i| weight_t[i * outputs + o].abs())
                    .fold(0f32, f32::max);
                let s = if max > 0.0 { max / 127.0 } else { 1.0 };
                let at = (b * groups + g) * BLOCK + j;
                scale[at] = s;
                for i in ins {
                    let v = (weight_t[i * outputs + o] / s).round().clamp(-127.0, 127.0) as i8;
                    match &mut packed {
                        Packed::Quads(p) => p[((b * quads + i / 4) * BLOCK + j) * 4 + i % 4] = v,
                        Packed::Pairs(p) => {
                            p[((o / LANES8 * pairs + i / 2) * LANES8 + o % LANES8) * 2 + i % 2] =
                                v as i16
                        }
                    }
                    colsum[at] += v as i32;
                }
            }
        }
        let mut padded_bias = bias.to_vec();
        padded_bias.resize(blocks * BLOCK, 0.0);
        Self {
            packed,
            scale,
            colsum,
            bias: padded_bias,
            inputs,
            padded_inputs,
            outputs,
            blocks,
        }
    }

    fn groups(&self) -> usize {
        self.padded_inputs / GROUP
    }

    /// The quantized weight of output `o`, input `i`.
    #[cfg(test)]
    fn weight(&self, o: usize, i: usize) -> i8 {
        match &self.packed {
            Packed::Quads(p) => {
                let quads = self.padded_inputs / 4;
                p[((o / BLOCK * quads + i / 4) * BLOCK + o % BLOCK) * 4 + i % 4]
            }
            Packed::Pairs(p) => {
                let pairs = self.padded_inputs / 2;
                p[((o / LANES8 * pairs + i / 2) * LANES8 + o % LANES8) * 2 + i % 2] as i8
            }
        }
    }

    /// The kernel these weights are laid out for.
    fn kernel(&self) -> Kernel {
        match self.packed {
            Packed::Quads(_) => Kernel::Vnni,
            Packed::Pairs(_) => Kernel::Avx2,
        }
    }

    /// Index of output `o`'s group `g` in `scale` and `colsum`.
    #[cfg(test)]
    fn at(&self, o: usize, g: usize) -> usize {
        (o / BLOCK * self.groups() + g) * BLOCK + o % BLOCK
    }
}

/// Rows quantized for the kernel: `rows` (padded to whole tiles) × `padded_inputs` bytes, with
/// each row's and group's scale and zero point (`rows x groups`).
struct QuantRows {
    data: Vec<u8>,
    scale: Vec<f32>,
    zero: Vec<i32>,
}

/// Quantize each `inputs`-long row of `x` to u8, a scale and zero point per group of [`GROUP`]
/// (0 is exact; padding inputs stand for 0 and meet zero weights).
fn quantize_rows(x: &[f32], inputs: usize, padded_inputs: usize, pad_rows_to: usize) -> QuantRows {
    let rows = x.len() / inputs;
    let groups = padded_inputs / GROUP;
    let padded = rows.div_ceil(pad_rows_to) * pad_rows_to;
    let mut data = vec![0u8; padded * padded_inputs];
    let mut scale = vec![1f32; padded * groups];
    let mut zero = vec![0i32; padded * groups];
    let simd = runs(Kernel::Vnni);
    for (r, row) in x.chunks_exact(inputs).enumerate() {
        let out = &mut data[r * padded_inputs..(r + 1) * padded_inputs];
        for (g, (part, out)) in row
            .chunks(GROUP)
            .zip(out.chunks_exact_mut(GROUP))
            .enumerate()
        {
            let (s, zp) = if simd && part.len() == GROUP {
                // SAFETY: `runs(Kernel::Vnni)` checked the CPU features; both slices hold GROUP values.
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    avx512::quantize_group(part, out)
                }
                #[cfg(not(target_arch = "x86_64"))]
                quantize_group(part, out)
            } else {
                quantize_group(part, out)
            };
            scale[r * groups + g] = s;
            zero[r * groups + g] = zp;
        }
    }
    QuantRows { data, scale, zero }
}

/// The scale and zero point of one group (the range of its values and 0).
#[inline(always)]
fn group_range(lo: f32, hi: f32) -> (f32, f32, i32) {
    let s = if hi > lo { (hi - lo) / 255.0 } else { 1.0 };
    let inv = 1.0 / s;
    let zp = (-lo * inv + 0.5).clamp(0.0, 255.0) as i32;
    (s, inv, zp)
}

/// Quantize one group of at most [`GROUP`] values into `out` (the rest of `out` gets the zero
/// point); returns its scale and zero point.
fn quantize_group(part: &[f32], out: &mut [u8]) -> (f32, i32) {
    let (lo, hi) = part
        .iter()
        .fold((0f32, 0f32), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let (s, inv, zp) = group_range(lo, hi);
    let zpf = zp as f32 + 0.5;
    for (u, &v) in out.iter_mut().zip(part) {
        *u = (v * inv + zpf).clamp(0.0, 255.0) as u8;
    }
    out[part.len()..].fill(zp as u8);
    (s, zp)
}

/// `x (rows x inputs) · W + bias` with the int8 kernel. Call only where [`supported`] is true.
#[cfg(test)]
pub(crate) fn linear(x: &[f32], q: &QuantDense) -> Vec<f32> {
    let mut out = Vec::new();
    linear_into(x, q, &mut out);
    out
}

/// [`linear`] into `out` (resized; its allocation is reused from layer to layer).
pub(crate) fn linear_into(x: &[f32], q: &QuantDense, out: &mut Vec<f32>) {
    assert!(
        runs(q.kernel()),
        "the int8 kernel needs AVX-512 VNNI or AVX2"
    );
    let rows = x.len() / q.inputs;
    assert_eq!(rows * q.inputs, x.len());
    out.clear();
    out.resize(rows * q.outputs, 0.0);
    out.par_chunks_mut(TASK_ROWS * q.outputs)
        .zip(x.par_chunks(TASK_ROWS * q.inputs))
        .for_each(|(out, x)| {
            let rows = quantize_rows(x, q.inputs, q.padded_inputs, TILE_ROWS);
            let valid = x.len() / q.inputs;
            // SAFETY: `runs(q.kernel())` checked the CPU features; the buffers have the shapes
            // the kernel reads and writes (rows padded to whole tiles, inputs to whole groups,
            // outputs to whole blocks, stores limited to `outputs`).
            #[cfg(target_arch = "x86_64")]
            unsafe {
                match &q.packed {
                    Packed::Quads(w) => avx512::product(q, w, &rows, valid, out),
                    Packed::Pairs(w) => avx2::product(q, w, &rows, valid, out),
                }
            }
        });
}

/// The same result as [`linear`], one output at a time in plain Rust (for tests).
#[cfg(test)]
pub(crate) fn reference(x: &[f32], q: &QuantDense) -> Vec<f32> {
    let rows = x.len() / q.inputs;
    let groups = q.groups();
    let qr = quantize_rows(x, q.inputs, q.padded_inputs, 1);
    let mut out = vec![0f32; rows * q.outputs];
    for r in 0..rows {
        for o in 0..q.outputs {
            let mut y = 0f32;
            for g in 0..groups {
                let mut acc = 0i32;
                for i in g * GROUP..(g + 1) * GROUP {
                    acc += qr.data[r * q.padded_inputs + i] as i32 * q.weight(o, i) as i32;
                }
                let at = q.at(o, g);
                let v = acc - qr.zero[r * groups + g] * q.colsum[at];
                y = (v as f32).mul_add(qr.scale[r * groups + g] * q.scale[at], y);
            }
            out[r * q.outputs + o] = y + q.bias[o];
        }
    }
    out
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{QuantDense, QuantRows, BLOCK, GROUP, TILE_BLOCKS, TILE_ROWS};

    use std::arch::x86_64::*;

    /// [`super::quantize_group`] of a full group, 16 values at a time (the same operations, so
    /// the same bytes).
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn quantize_group(part: &[f32], out: &mut [u8]) -> (f32, i32) {
        assert!(part.len() == GROUP && out.len() == GROUP);
        let p = part.as_ptr();
        let v = [
            _mm512_loadu_ps(p),
            _mm512_loadu_ps(p.add(16)),
            _mm512_loadu_ps(p.add(32)),
            _mm512_loadu_ps(p.add(48)),
        ];
        let zero = _mm512_setzero_ps();
        let lo = _mm512_min_ps(_mm512_min_ps(v[0], v[1]), _mm512_min_ps(v[2], v[3]));
        let hi = _mm512_max_ps(_mm512_max_ps(v[0], v[1]), _mm512_max_ps(v[2], v[3]));
        let lo = _mm512_reduce_min_ps(_mm512_min_ps(lo, zero));
        let hi = _mm512_reduce_max_ps(_mm512_max_ps(hi, zero));
        let (s, inv, zp) = super::group_range(lo, hi);
        let inv = _mm512_set1_ps(inv);
        let zpf = _mm512_set1_ps(zp as f32 + 0.5);
        let top = _mm512_set1_ps(255.0);
        for (i, v) in v.iter().enumerate() {
            let y = _mm512_add_ps(_mm512_mul_ps(*v, inv), zpf);
            let y = _mm512_min_ps(_mm512_max_ps(y, zero), top);
            let bytes = _mm512_cvtepi32_epi8(_mm512_cvttps_epi32(y));
            _mm_storeu_si128(out.as_mut_ptr().add(16 * i) as *mut __m128i, bytes);
        }
        (s, zp)
    }

    /// All rows of `rows` (`valid` of them real) times all outputs, into `out` (`valid x outputs`).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn product(
        q: &QuantDense,
        w: &[i8],
        rows: &QuantRows,
        valid: usize,
        out: &mut [f32],
    ) {
        let mut r = 0;
        while r < valid {
            let mut b = 0;
            while b + TILE_BLOCKS <= q.blocks {
                tile::<TILE_ROWS, TILE_BLOCKS>(q, w, rows, r, b, valid, out);
                b += TILE_BLOCKS;
            }
            while b < q.blocks {
                tile::<TILE_ROWS, 1>(q, w, rows, r, b, valid, out);
                b += 1;
            }
            r += TILE_ROWS;
        }
    }

    /// Rows `r0..r0 + R` times output blocks `b0..b0 + C`.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<const R: usize, const C: usize>(
        q: &QuantDense,
        w: &[i8],
        rows: &QuantRows,
        r0: usize,
        b0: usize,
        valid: usize,
        out: &mut [f32],
    ) {
        let groups = q.groups();
        let quads = q.padded_inputs / 4;
        let w = w.as_ptr();
        let x = rows.data.as_ptr();
        let mut y = [[_mm512_setzero_ps(); C]; R];
        for g in 0..groups {
            let mut acc = [[_mm512_setzero_si512(); C]; R];
            for k in g * GROUP / 4..(g + 1) * GROUP / 4 {
                let mut wv = [_mm512_setzero_si512(); C];
                for (c, v) in wv.iter_mut().enumerate() {
                    *v = _mm512_loadu_si512(w.add(((b0 + c) * quads + k) * BLOCK * 4) as *const _);
                }
                for (r, acc) in acc.iter_mut().enumerate() {
                    let xv = _mm512_set1_epi32(
                        (x.add((r0 + r) * q.padded_inputs + k * 4) as *const i32).read_unaligned(),
                    );
                    for (a, wv) in acc.iter_mut().zip(&wv) {
                        *a = _mm512_dpbusd_epi32(*a, xv, *wv);
                    }
                }
            }
            for c in 0..C {
                let at = ((b0 + c) * groups + g) * BLOCK;
                let colsum = _mm512_loadu_si512(q.colsum.as_ptr().add(at) as *const _);
                let sw = _mm512_loadu_ps(q.scale.as_ptr().add(at));
                for r in 0..R {
                    let rg = (r0 + r) * groups + g;
                    let zp = _mm512_set1_epi32(rows.zero[rg]);
                    let sx = _mm512_set1_ps(rows.scale[rg]);
                    let v = _mm512_sub_epi32(acc[r][c], _mm512_mullo_epi32(zp, colsum));
                    y[r][c] =
                        _mm512_fmadd_ps(_mm512_cvtepi32_ps(v), _mm512_mul_ps(sx, sw), y[r][c]);
                }
            }
        }
        for (r, y) in y.iter().enumerate() {
            let row = r0 + r;
            if row >= valid {
                break;
            }
            for (c, y) in y.iter().enumerate() {
                let o0 = (b0 + c) * BLOCK;
                let bias = _mm512_loadu_ps(q.bias.as_ptr().add(o0));
                let v = _mm512_add_ps(*y, bias);
                let dst = out.as_mut_ptr().add(row * q.outputs + o0);
                let n = (q.outputs - o0).min(BLOCK);
                if n == BLOCK {
                    _mm512_storeu_ps(dst, v);
                } else {
                    _mm512_mask_storeu_ps(dst, ((1u32 << n) - 1) as u16, v);
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{QuantDense, QuantRows, BLOCK, GROUP, LANES8, TILE_BLOCKS, TILE_ROWS};

    use std::arch::x86_64::*;

    /// All rows of `rows` (`valid` of them real) times all outputs, into `out` (`valid x
    /// outputs`), with `w` laid out as [`super::Packed::Pairs`].
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn product(
        q: &QuantDense,
        w: &[i16],
        rows: &QuantRows,
        valid: usize,
        out: &mut [f32],
    ) {
        // Each pair of activation bytes as two i16 lanes of one i32, to broadcast.
        let x: Vec<u32> = rows
            .data
            .chunks_exact(2)
            .map(|p| p[0] as u32 | (p[1] as u32) << 16)
            .collect();
        // Blocks of 8 come in pairs (outputs are padded to whole blocks of 16), so every tile
        // is a whole TILE_BLOCKS wide.
        let blocks = q.blocks * (BLOCK / LANES8);
        debug_assert_eq!(blocks % TILE_BLOCKS, 0);
        let mut r = 0;
        while r < valid {
            for b in (0..blocks).step_by(TILE_BLOCKS) {
                tile::<TILE_ROWS, TILE_BLOCKS>(q, w, &x, rows, r, b, valid, out);
            }
            r += TILE_ROWS;
        }
    }

    /// Rows `r0..r0 + R` times output blocks of 8 `b0..b0 + C`.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    unsafe fn tile<const R: usize, const C: usize>(
        q: &QuantDense,
        w: &[i16],
        x: &[u32],
        rows: &QuantRows,
        r0: usize,
        b0: usize,
        valid: usize,
        out: &mut [f32],
    ) {
        let groups = q.groups();
        let pairs = q.padded_inputs / 2;
        let (w, x) = (w.as_ptr(), x.as_ptr());
        let mut y = [[_mm256_setzero_ps(); C]; R];
        for g in 0..groups {
            let mut acc = [[_mm256_setzero_si256(); C]; R];
            for p in g * GROUP / 2..(g + 1) * GROUP / 2 {
                let mut wv = [_mm256_setzero_si256(); C];
                for (c, v) in wv.iter_mut().enumerate() {
                    *v = _mm256_loadu_si256(w.add(((b0 + c) * pairs + p) * LANES8 * 2) as *const _);
                }
                for (r, acc) in acc.iter_mut().enumerate() {
                    let xv = _mm256_set1_epi32(*x.add((r0 + r) * pairs + p) as i32);
                    for (a, wv) in acc.iter_mut().zip(&wv) {
                        *a = _mm256_add_epi32(*a, _mm256_madd_epi16(xv, *wv));
                    }
                }
            }
            for c in 0..C {
                let o0 = (b0 + c) * LANES8;
                let at = (o0 / BLOCK * groups + g) * BLOCK + o0 % BLOCK;
                let colsum = _mm256_loadu_si256(q.colsum.as_ptr().add(at) as *const _);
                let sw = _mm256_loadu_ps(q.scale.as_ptr().add(at));
                for r in 0..R {
                    let rg = (r0 + r) * groups + g;
                    let zp = _mm256_set1_epi32(rows.zero[rg]);
                    let sx = _mm256_set1_ps(rows.scale[rg]);
                    let v = _mm256_sub_epi32(acc[r][c], _mm256_mullo_epi32(zp, colsum));
                    y[r][c] =
                        _mm256_fmadd_ps(_mm256_cvtepi32_ps(v), _mm256_mul_ps(sx, sw), y[r][c]);
                }
            }
        }
        for (r, y) in y.iter().enumerate() {
            let row = r0 + r;
            if row >= valid {
                break;
            }
            for (c, y) in y.iter().enumerate() {
                let o0 = (b0 + c) * LANES8;
                if o0 >= q.outputs {
                    break;
                }
                let bias = _mm256_loadu_ps(q.bias.as_ptr().add(o0));
                let v = _mm256_add_ps(*y, bias);
                let dst = out.as_mut_ptr().add(row * q.outputs + o0);
                let n = (q.outputs - o0).min(LANES8);
                if n == LANES8 {
                    _mm256_storeu_ps(dst, v);
                } else {
                    let mut lanes = [0f32; LANES8];
                    _mm256_storeu_ps(lanes.as_mut_ptr(), v);
                    std::ptr::copy_nonoverlapping(lanes.as_ptr(), dst, n);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic pseudo-random matrix with a few large entries, like real activations.
    fn matrix(len: usize, seed: u64) -> Vec<f32> {
        let mut s = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (0..len)
            .map(|i| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let u = ((s >> 40) as f32 / (1u64 << 24) as f32) - 0.5;
                if i % 97 == 0 {
                    u * 20.0
                } else {
                    u
                }
            })
            .collect()
    }

    /// The kernels this CPU runs.
    fn kernels() -> Vec<Kernel> {
        let here: Vec<Kernel> = [Kernel::Vnni, Kernel::Avx2]
            .into_iter()
            .filter(|&k| runs(k))
            .collect();
        if here.is_empty() {
            eprintln!("no AVX-512 VNNI or AVX2 here: no kernel can run, only the reference");
        }
        here
    }

    #[test]
    fn kernels_match_the_reference_bit_for_bit() {
        // Shapes with tails everywhere: inputs not a multiple of 4, outputs not of 8, 16 or 64,
        // rows not of the tile or the task.
        for kernel in kernels() {
            for &(rows, inputs, outputs) in &[
                (1, 4, 16),
                (3, 7, 5),
                (5, 384, 1152),
                (53, 37, 83),
                (97, 130, 64 + 16 + 3),
                (6, 70, 20),
            ] {
                let w = matrix(inputs * outputs, 1 + rows as u64);
                let bias = matrix(outputs, 7);
                let x = matrix(rows * inputs, 3 + inputs as u64);
                let q = QuantDense::for_kernel(kernel, &w, &bias, inputs, outputs);
                let fast = linear(&x, &q);
                let slow = reference(&x, &q);
                assert_eq!(fast.len(), rows * outputs);
                for (i, (a, b)) in fast.iter().zip(&slow).enumerate() {
                    assert_eq!(
                        a.to_bits(),
                        b.to_bits(),
                        "{kernel:?} {rows}x{inputs}x{outputs}: element {i}: {a} vs {b}"
                    );
                }
            }
        }
    }

    #[test]
    fn both_layouts_hold_the_same_weights() {
        let (inputs, outputs) = (130, 83);
        let w = matrix(inputs * outputs, 21);
        let bias = matrix(outputs, 22);
        let quads = QuantDense::for_kernel(Kernel::Vnni, &w, &bias, inputs, outputs);
        let pairs = QuantDense::for_kernel(Kernel::Avx2, &w, &bias, inputs, outputs);
        for o in 0..outputs {
            for i in 0..inputs {
                assert_eq!(
                    quads.weight(o, i),
                    pairs.weight(o, i),
                    "output {o} input {i}"
                );
            }
        }
        assert_eq!((quads.scale, quads.colsum), (pairs.scale, pairs.colsum));
    }

    #[test]
    fn simd_quantization_gives_the_scalar_bytes() {
        if !runs(Kernel::Vnni) {
            return;
        }
        for seed in 0..200u64 {
            let mut part = matrix(GROUP, seed);
            if seed % 3 == 0 {
                part.iter_mut().for_each(|v| *v = v.abs());
            }
            if seed % 7 == 0 {
                part.fill(0.0);
            }
            let (mut a, mut b) = ([0u8; GROUP], [0u8; GROUP]);
            let want = quantize_group(&part, &mut a);
            // SAFETY: runs(Kernel::Vnni) is true.
            let got = unsafe { avx512::quantize_group(&part, &mut b) };
            assert_eq!((got, b), (want, a), "seed {seed}");
        }
    }

    #[test]
    fn a_row_gets_the_same_result_alone_or_in_a_batch() {
        let (inputs, outputs) = (96, 48);
        let x = matrix(61 * inputs, 9);
        let mut results = Vec::new();
        for kernel in kernels() {
            let q = QuantDense::for_kernel(
                kernel,
                &matrix(inputs * outputs, 5),
                &matrix(outputs, 6),
                inputs,
                outputs,
            );
            let all = linear(&x, &q);
            for r in [0, 47, 48, 60] {
                let one = linear(&x[r * inputs..(r + 1) * inputs], &q);
                assert_eq!(one, all[r * outputs..(r + 1) * outputs], "{kernel:?}");
            }
            results.push(all);
        }
        // Every kernel, the same bits.
        assert!(results.windows(2).all(|w| w[0] == w[1]));
    }

    /// A sanity bound on synthetic data with outliers (one entry in 97 twenty times larger); the
    /// bound that matters is on real models (tests/int8.rs).
    #[test]
    fn the_reference_is_close_to_the_float_product() {
        let (rows, inputs, outputs) = (9, 384, 40);
        let w = matrix(inputs * outputs, 11);
        let bias = matrix(outputs, 12);
        let x = matrix(rows * inputs, 13);
        let q = QuantDense::new(&w, &bias, inputs, outputs);
        let approx = reference(&x, &q);
        for r in 0..rows {
            let exact: Vec<f32> = (0..outputs)
                .map(|o| {
                    bias[o]
                        + (0..inputs)
                            .map(|i| x[r * inputs + i] * w[i * outputs + o])
                            .sum::<f32>()
                })
                .collect();
            let row = &approx[r * outputs..(r + 1) * outputs];
            let dot: f32 = exact.iter().zip(row).map(|(a, b)| a * b).sum();
            let na = exact.iter().map(|a| a * a).sum::<f32>().sqrt();
            let nb = row.iter().map(|a| a * a).sum::<f32>().sqrt();
            assert!(
                dot / (na * nb) > 0.995,
                "row {r}: cosine {}",
                dot / (na * nb)
            );
        }
    }

    #[test]
    fn zero_rows_and_zero_weights_are_exact() {
        let q = QuantDense::new(&[0.0; 8 * 20], &[0.5; 20], 8, 20);
        assert_eq!(reference(&[0.0; 16], &q), vec![0.5; 40]);
        for kernel in kernels() {
            let q = QuantDense::for_kernel(kernel, &[0.0; 8 * 20], &[0.5; 20], 8, 20);
            assert_eq!(linear(&[0.0; 16], &q), vec![0.5; 40]);
        }
    }
}
