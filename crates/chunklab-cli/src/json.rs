//! Appending JSON to a byte buffer without allocating per value: strings escaped byte for byte
//! as `serde_json` escapes them (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control
//! characters as `\u00xx`; everything else, non-ASCII included, as is): with AVX2, 32 bytes at
//! a time without a branch per escape (each eight bytes spread by a `pshufb` pattern chosen by
//! their escape mask), else runs without escapes found eight bytes at a time and copied in one
//! piece. The output writers build every line with these; a test checks them against
//! `serde_json` on every byte value and the vector path against the other on random strings.

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
    if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("popcnt")
    {
        // SAFETY: the CPU has AVX2 and POPCNT.
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

/// For each mask of eight input bytes (bit `i`: byte `i` needs a backslash), the `pshufb`
/// pattern that spreads the eight bytes over `8 + popcount` output bytes (`0x80`, a zero,
/// where a backslash goes), and the backslashes to OR in there.
#[cfg(target_arch = "x86_64")]
static SPREAD: ([[u8; 16]; 256], [[u8; 16]; 256]) = {
    let mut pattern = [[0x80u8; 16]; 256];
    let mut slashes = [[0u8; 16]; 256];
    let mut m = 0;
    while m < 256 {
        let (mut i, mut o) = (0, 0);
        while i < 8 {
            if (m >> i) & 1 == 1 {
                slashes[m][o] = b'\\';
                o += 1;
            }
            pattern[m][o] = i as u8;
            o += 1;
            i += 1;
        }
        m += 1;
    }
    (pattern, slashes)
};

/// [`escaped`] of `b`, 32 bytes at a time without a branch per escape: the bytes that need
/// escaping are marked (`"`, `\`, or a control character: its unsigned minimum with 0x1F is
/// itself), control characters take their letters (`\n` → `n`: a `pshufb` of the table of the
/// first sixteen), and each eight bytes are spread by a `pshufb` pattern chosen by their
/// escape mask ([`SPREAD`]) over sixteen output bytes, the backslashes ORed in; the output
/// advances by eight plus the mask's population. A block with a control character that has no
/// short escape (`\u00xx`: rare in text), and the last bytes, go byte by byte.
///
/// Capacity kept: `out + 64 <= capacity` before each block (a block writes at most 64 bytes),
/// checked once per block; the byte-by-byte parts reserve their worst case, 6 bytes a byte.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,popcnt")]
unsafe fn escaped_avx2(buf: &mut Vec<u8>, b: &[u8]) {
    use std::arch::x86_64::*;
    /// `b` escaped byte by byte onto `buf`.
    fn bytes(buf: &mut Vec<u8>, b: &[u8]) {
        buf.reserve(6 * b.len());
        for &byte in b {
            if ESCAPE[byte as usize] == 0 {
                buf.push(byte);
            } else {
                escape_byte(buf, byte);
            }
        }
    }
    buf.reserve(b.len() + b.len() / 16 + 64);
    let mut out = buf.len();
    let mut cap = buf.capacity();
    let mut dst = buf.as_mut_ptr();
    // SAFETY: 16 bytes, in bounds.
    let letters =
        _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(SHORT_LETTERS.as_ptr().cast()) });
    let quote = _mm256_set1_epi8(b'"' as i8);
    let slash = _mm256_set1_epi8(b'\\' as i8);
    let control = _mm256_set1_epi8(0x1F);
    let first_sixteen = _mm256_set1_epi8(0x0F);
    let zero = _mm256_setzero_si256();
    let eight = _mm_set1_epi8(8);
    let mut i = 0;
    while i + 32 <= b.len() {
        if out + 64 > cap {
            // SAFETY: `buf[..out]` is initialized (the old contents, then every byte written).
            unsafe { buf.set_len(out) };
            buf.reserve(64 + (b.len() - i) + (b.len() - i) / 8);
            (dst, cap) = (buf.as_mut_ptr(), buf.capacity());
        }
        // SAFETY: `b[i..i + 32]` is in bounds.
        let x = unsafe { _mm256_loadu_si256(b.as_ptr().add(i).cast()) };
        let ctrl = _mm256_cmpeq_epi8(_mm256_min_epu8(x, control), x);
        let escaped = _mm256_or_si256(
            ctrl,
            _mm256_or_si256(_mm256_cmpeq_epi8(x, quote), _mm256_cmpeq_epi8(x, slash)),
        );
        // The letter of each byte below 0x10 (`pshufb` takes the low four bits).
        let letter = _mm256_shuffle_epi8(letters, x);
        let short = _mm256_andnot_si256(
            _mm256_cmpeq_epi8(letter, zero),
            _mm256_cmpeq_epi8(_mm256_min_epu8(x, first_sixteen), x),
        );
        if _mm256_movemask_epi8(_mm256_andnot_si256(short, ctrl)) != 0 {
            // SAFETY: `buf[..out]` is initialized.
            unsafe { buf.set_len(out) };
            bytes(buf, &b[i..i + 32]);
            (out, dst, cap) = (buf.len(), buf.as_mut_ptr(), buf.capacity());
            i += 32;
            continue;
        }
        let replaced = _mm256_blendv_epi8(x, letter, ctrl);
        let mask = _mm256_movemask_epi8(escaped) as u32;
        let halves = [
            _mm256_castsi256_si128(replaced),
            _mm256_extracti128_si256::<1>(replaced),
        ];
        for k in 0..4 {
            let m = ((mask >> (8 * k)) & 0xFF) as usize;
            // SAFETY: 16 bytes each, in bounds.
            let mut pattern = unsafe { _mm_loadu_si128(SPREAD.0[m].as_ptr().cast()) };
            let slashes = unsafe { _mm_loadu_si128(SPREAD.1[m].as_ptr().cast()) };
            if k % 2 == 1 {
                // The upper eight bytes of the half (0x80 + 8 still zeroes).
                pattern = _mm_add_epi8(pattern, eight);
            }
            let spread = _mm_or_si128(_mm_shuffle_epi8(halves[k / 2], pattern), slashes);
            // SAFETY: `out + 16 <= out + 64 <= cap` for the block's four stores.
            unsafe { _mm_storeu_si128(dst.add(out).cast(), spread) };
            out += 8 + m.count_ones() as usize;
        }
        i += 32;
    }
    // SAFETY: `buf[..out]` is initialized: the old contents, then every byte written above.
    unsafe { buf.set_len(out) };
    bytes(buf, &b[i..]);
}

/// The short escape's letter of each byte below 0x10 (0: escaped as `\u00xx`; the bytes
/// 0x10 to 0x1F all are).
#[cfg(target_arch = "x86_64")]
static SHORT_LETTERS: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut b = 0;
    while b < 16 {
        if ESCAPE[b] != b'u' {
            t[b] = ESCAPE[b];
        }
        b += 1;
    }
    t
};

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
                // The vector path, whichever `escaped` picks.
                if std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("popcnt")
                {
                    let mut buf = b"prefix".to_vec();
                    // SAFETY: the CPU has AVX2 and POPCNT.
                    unsafe { escaped_avx2(&mut buf, s.as_bytes()) };
                    assert_eq!(buf, swar, "avx2, length {len}");
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
