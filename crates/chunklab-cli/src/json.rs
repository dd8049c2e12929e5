//! Appending JSON to a byte buffer without allocating per value: strings escaped byte for byte
//! as `serde_json` escapes them (`\"`, `\\`, `\b`, `\f`, `\n`, `\r`, `\t`, other control
//! characters as `\u00xx`; everything else, non-ASCII included, as is), runs without escapes
//! copied in one piece, found eight bytes at a time. The output writers build every line with
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

#[inline(always)]
fn escape_byte(buf: &mut Vec<u8>, byte: u8) {
    match ESCAPE[byte as usize] {
        b'u' => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            buf.extend_from_slice(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(byte >> 4) as usize],
                HEX[(byte & 0xF) as usize],
            ]);
        }
        e => buf.extend_from_slice(&[b'\\', e]),
    }
}

/// Append the escaped contents of `s` (no quotes).
pub fn escaped(buf: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    buf.reserve(bytes.len());
    let n = bytes.len();
    let (mut start, mut i) = (0, 0);
    while i + 8 <= n {
        let w = u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let m = needs_escape(w);
        if m == 0 {
            i += 8;
            continue;
        }
        let j = i + (m.trailing_zeros() / 8) as usize;
        buf.extend_from_slice(&bytes[start..j]);
        escape_byte(buf, bytes[j]);
        i = j + 1;
        start = i;
    }
    while i < n {
        if ESCAPE[bytes[i] as usize] != 0 {
            buf.extend_from_slice(&bytes[start..i]);
            escape_byte(buf, bytes[i]);
            start = i + 1;
        }
        i += 1;
    }
    buf.extend_from_slice(&bytes[start..]);
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
            for pad in 0..17 {
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
        let mut buf = Vec::new();
        string_of(&mut buf, &["a\"", "\n", "", "b"]);
        assert_eq!(buf, serde_json::to_string("a\"\nb").unwrap().as_bytes());
    }

    #[test]
    fn numbers_print_as_serde_json() {
        for n in [0u64, 1, 9, 10, 99, 100, 12345, u32::MAX as u64, u64::MAX] {
            let mut buf = Vec::new();
            uint(&mut buf, n);
            assert_eq!(buf, serde_json::to_string(&n).unwrap().as_bytes());
        }
        let mut buf = Vec::new();
        float(&mut buf, 87.5);
        float(&mut buf, 90.0);
        assert_eq!(buf, b"87.590.0");
    }
}
