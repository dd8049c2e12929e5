//! Appending JSON to a byte buffer without allocating per value: strings escaped byte for byte
//! as `serde_json` escapes them (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control
//! characters as `\u00xx`; everything else, non-ASCII included, as is), runs without escapes
//! copied in one piece, found 32 bytes at a time (AVX2) or eight. The output writers build every line with
//! these; a test checks them against `serde_json` on every byte value.

/// The escape of each byte: 0 for none, the letter after `\` for the short escapes, `u` for
/// `\u00xx` (serde_json's table).
static ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = b'u';
        b += 1;
    }
    t[0x08] = b'b';
    t[0x09] = b't';
    t[0x0A] = b'n';
    t[0x0C] = b'f';
    t[0x0D] = b'r';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t
};

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// A mask whose lowest set bit (if any) is the high bit of the first byte of `w` (little
/// endian) that needs escaping: below 0x20, `"` or `\`. Bits above the lowest may be wrong
/// (borrows), so only the lowest is used.
#[inline(always)]
fn needs_escape(w: u64) -> u64 {
    let control = w.wrapping_sub(ONES * 0x20) & !w;
    let q = w ^ (ONES * b'"' as u64);
    let quote = q.wrapping_sub(ONES) & !q;
    let s = w ^ (ONES * b'\\' as u64);
    let slash = s.wrapping_sub(ONES) & !s;
    (control | quote | slash) & HIGHS
}

/// The escape of a byte that needs one: its bytes and how many of them are used.
#[inline(always)]
fn escape_of(byte: u8) -> ([u8; 6], usize) {
    match ESCAPE[byte as usize] {
        b'u' => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            let (hi, lo) = (HEX[(byte >> 4) as usize], HEX[(byte & 0xF) as usize]);
            ([b'\\', b'u', b'0', b'0', hi, lo], 6)
        }
        e => ([b'\\', e, 0, 0, 0, 0], 2),
    }
}

#[inline(always)]
fn escape_byte(buf: &mut Vec<u8>, byte: u8) {
    let (e, n) = escape_of(byte);
    buf.extend_from_slice(&e[..n]);
}

/// Append the escaped contents of `s` (no quotes).
pub fn escaped(buf: &mut Vec<u8>, s: &str) {
    #[cfg(target_arch = "x86_64")]
    if has_avx512_expand() {
        // SAFETY: the CPU has the features `escaped_avx512` enables.
        unsafe { escaped_avx512(buf, s.as_bytes()) };
        return;
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        unsafe { escaped_avx2(buf, s.as_bytes()) };
        return;
    }
    escaped_swar(buf, s.as_bytes());
}

/// [`escaped`] with runs found eight bytes at a time.
fn escaped_swar(buf: &mut Vec<u8>, bytes: &[u8]) {
    buf.reserve(bytes.len());
    let mut start = 0;
    loop {
        let j = next_escape_swar(bytes, start);
        buf.extend_from_slice(&bytes[start..j]);
        let Some(&byte) = bytes.get(j) else {
            return;
        };
        escape_byte(buf, byte);
        start = j + 1;
    }
}

/// Where the first byte of `b[i..]` that needs escaping is, or `b.len()`: eight bytes at a
/// time, then byte by byte.
#[inline]
fn next_escape_swar(b: &[u8], mut i: usize) -> usize {
    while let Some(w) = b.get(i..i + 8) {
        let m = needs_escape(u64::from_le_bytes(w.try_into().expect("8 bytes")));
        if m != 0 {
            return i + (m.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < b.len() && ESCAPE[b[i] as usize] == 0 {
        i += 1;
    }
    i
}

/// [`escaped`] of `b`, 32 bytes at a time, written straight into `buf`'s spare capacity: each
/// block of 32 is stored whole, then the output moves on to its first byte that needs escaping
/// (`"`, `\`, or a control character: its unsigned minimum with 0x1F is itself), where the
/// escape is written over the rest of the block.
///
/// The capacity kept is `out + (b.len() - i) + 32 <= capacity` (the rest of the input copied as
/// it is, and one block store of slack): a block store and a plain byte advance `out` and `i`
/// together, and an escape, which advances `out` by up to six, first makes room for six more
/// (escapes are where the output outgrows the input; only they check the capacity).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn escaped_avx2(buf: &mut Vec<u8>, b: &[u8]) {
    use std::arch::x86_64::*;
    buf.reserve(b.len() + b.len() / 16 + 64);
    let mut dst = buf.as_mut_ptr();
    let mut out = buf.len();
    // Room for the escape of `b[i]` (six bytes) with the invariant kept after it.
    let room = |buf: &mut Vec<u8>, out: usize, i: usize| -> *mut u8 {
        let need = out + 6 + (b.len() - i) + 32;
        if need > buf.capacity() {
            // SAFETY: `buf[..out]` is initialized (the old contents, then every byte written).
            unsafe { buf.set_len(out) };
            buf.reserve(need - out + (b.len() - i) / 8);
        }
        buf.as_mut_ptr()
    };
    let quote = _mm256_set1_epi8(b'"' as i8);
    let slash = _mm256_set1_epi8(b'\\' as i8);
    let control = _mm256_set1_epi8(0x1F);
    let mut i = 0;
    let hits = |x: __m256i| {
        let hit = _mm256_or_si256(
            _mm256_cmpeq_epi8(_mm256_min_epu8(x, control), x),
            _mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, slash)),
        );
        _mm256_movemask_epi8(hit) as u32
    };
    // While 64 bytes are left, a block's escapes are taken one after the other from its mask:
    // after each, the 32 bytes that follow it are loaded and stored again at the output's new
    // position (the block's rest, and more), instead of the block being scanned again.
    while i + 64 <= b.len() {
        // SAFETY: `b[i..i + 32]` is in bounds, `dst[out..out + 32]` in capacity (above).
        let x = unsafe { _mm256_loadu_si256(b.as_ptr().add(i).cast()) };
        unsafe { _mm256_storeu_si256(dst.add(out).cast(), x) };
        let mut mask = hits(x);
        let mut done = 0; // bytes of the block written, escapes included
        while mask != 0 {
            let p = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            out += p - done;
            dst = room(buf, out, i + p);
            let e = escape_of(b[i + p]);
            // SAFETY: six bytes at `out`, in capacity (`room`).
            unsafe { std::ptr::copy_nonoverlapping(e.0.as_ptr(), dst.add(out), 6) };
            (out, done) = (out + e.1, p + 1);
            // SAFETY: `done <= 32` and `i + 64 <= b.len()`: in bounds; in capacity (`room`).
            let rest = unsafe { _mm256_loadu_si256(b.as_ptr().add(i + done).cast()) };
            unsafe { _mm256_storeu_si256(dst.add(out).cast(), rest) };
        }
        (i, out) = (i + 32, out + 32 - done);
    }
    while i + 32 <= b.len() {
        // SAFETY: `b[i..i + 32]` is in bounds, `dst[out..out + 32]` in capacity (above).
        let x = unsafe { _mm256_loadu_si256(b.as_ptr().add(i).cast()) };
        unsafe { _mm256_storeu_si256(dst.add(out).cast(), x) };
        let mask = hits(x);
        if mask == 0 {
            (i, out) = (i + 32, out + 32);
            continue;
        }
        let p = mask.trailing_zeros() as usize;
        (i, out) = (i + p, out + p);
        dst = room(buf, out, i);
        let e = escape_of(b[i]);
        // All six bytes, whatever the escape's length (one fixed-size store rather than a
        // `memcpy` call); those past it are overwritten next or lie past the length.
        // SAFETY: six bytes at `out`, in capacity (`room`).
        unsafe { std::ptr::copy_nonoverlapping(e.0.as_ptr(), dst.add(out), 6) };
        (i, out) = (i + 1, out + e.1);
    }
    for &byte in &b[i..] {
        if ESCAPE[byte as usize] == 0 {
            // SAFETY: in capacity (the invariant).
            unsafe { dst.add(out).write(byte) };
            out += 1;
        } else {
            dst = room(buf, out, i);
            let e = escape_of(byte);
            // SAFETY: as above.
            unsafe { std::ptr::copy_nonoverlapping(e.0.as_ptr(), dst.add(out), 6) };
            out += e.1;
        }
        i += 1;
    }
    // SAFETY: `buf[..out]` is initialized: the old contents, then every byte written above.
    unsafe { buf.set_len(out) };
}

/// Whether the CPU can run [`escaped_avx512`] (byte expansion, AVX-512 VBMI2; BMI2, POPCNT).
#[cfg(target_arch = "x86_64")]
#[inline]
fn has_avx512_expand() -> bool {
    std::arch::is_x86_feature_detected!("avx512vbmi2")
        && std::arch::is_x86_feature_detected!("avx512vbmi")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("avx512vl")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// The short escape's letter of each byte below 0x20 (0: escaped as `\u00xx`).
#[cfg(target_arch = "x86_64")]
static SHORT_LETTERS: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut b = 0;
    while b < 32 {
        if ESCAPE[b] != b'u' {
            t[b] = ESCAPE[b];
        }
        b += 1;
    }
    t
};

/// [`escaped`] of `b`, 32 bytes at a time without a branch per escape: the bytes that need
/// escaping (`"`, `\`, or a control character) are marked in a mask `E`, the control
/// characters replaced by their letters (`\n` → `n`; a table lookup), and the 32 bytes
/// expanded (`vpexpandb`) into the positions of the output that are not an inserted `\`:
/// every input byte takes the slots `[\ if escaped, the byte]`, so those positions are the
/// odd slots with the even slots of escaped bytes squeezed in (`pext` of the odd slots under
/// `pdep(E) | odd`). 64 bytes are stored and the output advances by the block's length plus `popcount(E)`. A
/// block with a control character that has no short escape (`\u00xx`: rare in text) is
/// escaped byte by byte; the tail is a masked load.
///
/// Capacity kept: `out + 64 <= capacity` before each block (a block writes at most 64 bytes),
/// checked once per block; the scalar block reserves its worst case, 6 bytes a byte.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512vbmi,avx512vbmi2,bmi2,popcnt")]
unsafe fn escaped_avx512(buf: &mut Vec<u8>, b: &[u8]) {
    use std::arch::x86_64::*;
    const ODD: u64 = 0xAAAA_AAAA_AAAA_AAAA;
    const EVEN: u64 = 0x5555_5555_5555_5555;
    buf.reserve(b.len() + b.len() / 16 + 64);
    let mut out = buf.len();
    let mut cap = buf.capacity();
    let mut dst = buf.as_mut_ptr();
    // SAFETY (both): 32 bytes, in bounds.
    let letters = unsafe { _mm256_loadu_si256(SHORT_LETTERS.as_ptr().cast()) };
    let quote = _mm256_set1_epi8(b'"' as i8);
    let slash = _mm256_set1_epi8(b'\\' as i8);
    let control = _mm256_set1_epi8(0x1F);
    let backslashes = _mm512_set1_epi8(b'\\' as i8);
    let mut i = 0;
    while i < b.len() {
        let n = (b.len() - i).min(32);
        let lanes: u32 = if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
        if out + 64 > cap {
            // SAFETY: `buf[..out]` is initialized (the old contents, then every byte written).
            unsafe { buf.set_len(out) };
            buf.reserve(64 + (b.len() - i) + (b.len() - i) / 8);
            (dst, cap) = (buf.as_mut_ptr(), buf.capacity());
        }
        // SAFETY: the masked-off bytes past `b.len()` are not read.
        let x = unsafe { _mm256_maskz_loadu_epi8(lanes, b.as_ptr().add(i).cast()) };
        let ctrl = _mm256_mask_cmple_epu8_mask(lanes, x, control);
        let escaped = ctrl
            | _mm256_mask_cmpeq_epi8_mask(lanes, x, quote)
            | _mm256_mask_cmpeq_epi8_mask(lanes, x, slash);
        // The letter of each control byte (its low five bits index the table).
        let letter = _mm256_permutexvar_epi8(x, letters);
        let long = ctrl & !_mm256_test_epi8_mask(letter, letter);
        if long != 0 {
            // SAFETY: `buf[..out]` is initialized; the block's worst case is reserved.
            unsafe { buf.set_len(out) };
            buf.reserve(6 * n + 64);
            for &byte in &b[i..i + n] {
                if ESCAPE[byte as usize] == 0 {
                    buf.push(byte);
                } else {
                    escape_byte(buf, byte);
                }
            }
            (out, dst, cap) = (buf.len(), buf.as_mut_ptr(), buf.capacity());
            i += n;
            continue;
        }
        let replaced = _mm256_mask_blend_epi8(ctrl, x, letter);
        let slots = u64::MAX >> (64 - 2 * n); // two per input byte
        let keep = _pdep_u64(escaped as u64, EVEN) | (ODD & slots);
        let not_slash = _pext_u64(ODD, keep);
        let expanded = _mm512_maskz_expand_epi8(not_slash, _mm512_castsi256_si512(replaced));
        let block = _mm512_mask_blend_epi8(not_slash, backslashes, expanded);
        // SAFETY: `out + 64 <= cap` (checked above).
        unsafe { _mm512_storeu_si512(dst.add(out).cast(), block) };
        out += n + escaped.count_ones() as usize;
        i += n;
    }
    // SAFETY: `buf[..out]` is initialized: the old contents, then every byte written above.
    unsafe { buf.set_len(out) };
}

/// Append `s` as a JSON string.
#[inline]
pub fn string(buf: &mut Vec<u8>, s: &str) {
    buf.push(b'"');
    escaped(buf, s);
    buf.push(b'"');
}

/// Append the concatenation of `parts` as one JSON string (escaping is per byte, so the pieces
/// are escaped one after the other and the joined string is never built).
#[inline]
pub fn string_of(buf: &mut Vec<u8>, parts: &[&str]) {
    buf.push(b'"');
    for p in parts {
        escaped(buf, p);
    }
    buf.push(b'"');
}

/// Append `s` as a JSON string, or `null`.
#[inline]
pub fn opt_string(buf: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => string(buf, s),
        None => buf.extend_from_slice(b"null"),
    }
}

/// Append an unsigned integer in decimal (as serde_json writes it).
#[inline]
pub fn uint(buf: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[at..]);
}

/// Append `n`, or `null`.
#[inline]
pub fn opt_uint(buf: &mut Vec<u8>, n: Option<u64>) {
    match n {
        Some(n) => uint(buf, n),
        None => buf.extend_from_slice(b"null"),
    }
}

/// Append an array of strings.
pub fn strings(buf: &mut Vec<u8>, items: &[String]) {
    buf.push(b'[');
    for (k, s) in items.iter().enumerate() {
        if k > 0 {
            buf.push(b',');
        }
        string(buf, s);
    }
    buf.push(b']');
}

/// Append `[a,b]`.
#[inline]
pub fn pair(buf: &mut Vec<u8>, (a, b): (u32, u32)) {
    buf.push(b'[');
    uint(buf, a.into());
    buf.push(b',');
    uint(buf, b.into());
    buf.push(b']');
}

/// Append a number as serde_json writes an `f64` (shortest round-trip form, `.0` on whole
/// numbers, `null` for NaN and infinities).
pub fn float(buf: &mut Vec<u8>, v: f64) {
    serde_json::to_writer(&mut *buf, &v).expect("writing to a Vec cannot fail");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ours(s: &str) -> String {
        let mut buf = Vec::new();
        string(&mut buf, s);
        String::from_utf8(buf).unwrap()
    }

    #[test]
    fn strings_escape_as_serde_json() {
        // Every byte value alone, at every offset of a word, and in runs.
        for b in 0u8..=0x7F {
            let c = b as char;
            for pad in 0..70 {
                let s = format!("{}{c}{}", "a".repeat(pad), "é".repeat(pad % 5));
                assert_eq!(
                    ours(&s),
                    serde_json::to_string(&s).unwrap(),
                    "byte {b:#x} pad {pad}"
                );
                let run: String = std::iter::repeat_n(c, pad + 1).collect();
                assert_eq!(ours(&run), serde_json::to_string(&run).unwrap());
            }
        }
        let mixed = "Hoofdstuk \"1\"\n\tDe raad\\besluit\r\n\u{0}\u{1f}\u{7f}\u{80}\u{2028} € 😀 ~\u{c}\u{8}";
        for start in 0..mixed.len() {
            if let Some(s) = mixed.get(start..) {
                assert_eq!(ours(s), serde_json::to_string(s).unwrap());
            }
        }
        assert_eq!(ours(""), "\"\"");
        // Output six times the input, the capacity grown escape by escape.
        for n in [31, 32, 33, 1000, 100_000] {
            let s = "\u{1}".repeat(n);
            assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
        }
        // Pseudo-random strings of escapes, ASCII and multi-byte chars, both scanners.
        let alphabet = [
            'a', ' ', '"', '\\', '\n', '\t', '\u{1}', '\u{1f}', '\u{7f}', 'é', '€', '😀',
        ];
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in (0..300).chain([70_000, 140_001]) {
            let s: String = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    alphabet[(x % alphabet.len() as u64) as usize]
                })
                .collect();
            assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
            let mut swar = b"prefix".to_vec();
            escaped_swar(&mut swar, s.as_bytes());
            let mut buf = b"prefix".to_vec();
            escaped(&mut buf, &s);
            assert_eq!(buf, swar);
            #[cfg(target_arch = "x86_64")]
            {
                // Each vector path the CPU has, whichever `escaped` picks.
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut buf = b"prefix".to_vec();
                    // SAFETY: the CPU has AVX2.
                    unsafe { escaped_avx2(&mut buf, s.as_bytes()) };
                    assert_eq!(buf, swar, "avx2, length {len}");
                }
                if has_avx512_expand() {
                    let mut buf = b"prefix".to_vec();
                    // SAFETY: the CPU has the features.
                    unsafe { escaped_avx512(&mut buf, s.as_bytes()) };
                    assert_eq!(buf, swar, "avx512, length {len}");
                }
            }
        }
        let mut buf = Vec::new();
        string_of(&mut buf, &["a\"", "\n", "", "b"]);
        assert_eq!(buf, serde_json::to_string("a\"\nb").unwrap().as_bytes());
    }

    #[test]
    fn numbers_print_as_serde_json() {
        // Every power of ten and its neighbours, and a spread of others, after other bytes.
        let powers = (0..20).map(|k| 10u64.pow(k));
        let near = powers.flat_map(|p| [p - 1, p, p + 1]);
        let spread = (0..2000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (i % 64));
        for n in near.chain(spread).chain([u32::MAX as u64, u64::MAX]) {
            let mut buf = b"x".to_vec();
            uint(&mut buf, n);
            assert_eq!(
                buf[1..],
                *serde_json::to_string(&n).unwrap().as_bytes(),
                "{n}"
            );
        }
        let mut buf = Vec::new();
        float(&mut buf, 87.5);
        float(&mut buf, 90.0);
        assert_eq!(buf, b"87.590.0");
    }
}
