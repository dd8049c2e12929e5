//! Fonts as far as text extraction needs them: how a shown string splits into character codes,
//! what text each code stands for (ToUnicode CMap, else the simple font's encoding), how far each
//! glyph advances, and the style flags (bold, monospace) that headings and code detection use.

use super::encoding::{base_table, glyph_char, CodeTable};
use super::metrics::standard_widths;
use super::stream::{stream_bytes, stream_bytes_checked};
use lopdf::{Dictionary, Document, Object};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Code → value maps are looked up once per glyph; SipHash is needlessly slow for u32 keys.
type CodeMap<V> = HashMap<u32, V, BuildHasherDefault<CodeHasher>>;

/// Multiplicative hash for small integer keys (the FxHash step).
#[derive(Default)]
pub(super) struct CodeHasher(u64);

impl Hasher for CodeHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(b as u64);
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(n as u64);
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

/// Entries a single CMap may define (ranges included); more is hostile input.
const MAX_CMAP_ENTRIES: usize = 1 << 17;

/// A font resource, decoded once per document.
#[derive(Debug, Default)]
pub(super) struct Font {
    /// Composite (Type0) font: codes follow the code-space ranges, 2 bytes by default.
    composite: bool,
    /// Code-space ranges of a composite font's embedded CMap: (bytes, low, high).
    codespace: Vec<(u8, u32, u32)>,
    /// Predefined UCS-2/UTF-16 CMap: the codes are Unicode.
    unicode_codes: bool,
    to_unicode: CodeMap<Box<str>>,
    /// Simple fonts: code → character from /Encoding (+ /Differences).
    table: Option<Box<CodeTable>>,
    /// Simple fonts: widths for codes first_char.. ; composite: CID → width.
    first_char: u32,
    widths: Vec<f32>,
    cid_widths: CodeMap<f32>,
    default_width: f32,
    /// Glyph space → text space scale of widths (1/1000, or a Type 3 font's FontMatrix).
    width_scale: f32,
    pub bold: bool,
    pub mono: bool,
    /// Damage met while loading (a ToUnicode map missing or corrupt), as sentences.
    pub problems: Vec<String>,
}

/// One decoded glyph of a shown string.
pub(super) struct Code<'a> {
    /// The text it stands for (may be empty for unmapped codes, or several chars for ligatures).
    pub text: &'a str,
    /// Horizontal advance in text space units per unit font size.
    pub width: f32,
    /// Single-byte code 32: word spacing (Tw) applies.
    pub is_space_code: bool,
}

impl Font {
    /// Reads the font dictionary. Never fails: what cannot be read falls back to defaults.
    pub fn load(doc: &Document, dict: &Dictionary, stream_limit: usize) -> Font {
        let subtype = name_of(doc, dict.get(b"Subtype").ok()).unwrap_or_default();
        let base_font = name_of(doc, dict.get(b"BaseFont").ok()).unwrap_or_default();
        let base_font = String::from_utf8_lossy(&base_font).into_owned();
        let base_font = match base_font.split_once('+') {
            Some((prefix, rest)) if prefix.len() == 6 => rest.to_string(),
            _ => base_font,
        };
        let mut font = Font {
            composite: subtype == b"Type0",
            default_width: 500.0,
            width_scale: 0.001,
            ..Font::default()
        };
        let mut descriptor = deref(doc, dict.get(b"FontDescriptor").ok()).and_then(as_dict);
        if font.composite {
            font.load_composite(doc, dict, stream_limit);
            let descendant = deref(doc, dict.get(b"DescendantFonts").ok())
                .and_then(|o| o.as_array().ok())
                .and_then(|a| a.first())
                .and_then(|o| deref(doc, Some(o)))
                .and_then(as_dict);
            if let Some(desc) = descendant {
                font.load_cid_widths(doc, desc);
                descriptor = deref(doc, desc.get(b"FontDescriptor").ok()).and_then(as_dict);
            }
        } else {
            font.load_simple(doc, dict, &subtype, &base_font, descriptor);
        }
        let to_unicode = dict.get(b"ToUnicode").ok();
        match deref(doc, to_unicode).and_then(|o| o.as_stream().ok()) {
            Some(stream) => match stream_bytes_checked(stream, stream_limit) {
                Ok((bytes, damage)) => {
                    let cmap = parse_cmap(&bytes);
                    font.to_unicode = cmap.map;
                    if let Some(d) = damage {
                        font.problems.push(format!("its ToUnicode map: {d}"));
                    }
                }
                Err(_) => font
                    .problems
                    .push("its ToUnicode map could not be decoded".into()),
            },
            None if matches!(to_unicode, Some(Object::Reference(_))) => font
                .problems
                .push("its ToUnicode map is missing or damaged".into()),
            None => {}
        }
        let flags = descriptor
            .and_then(|d| deref(doc, d.get(b"Flags").ok()))
            .and_then(as_number)
            .unwrap_or(0.0) as i64;
        let weight = descriptor
            .and_then(|d| deref(doc, d.get(b"FontWeight").ok()))
            .and_then(as_number)
            .unwrap_or(0.0);
        let lower = base_font.to_ascii_lowercase();
        font.bold = ["bold", "black", "heavy", "semibold", "demi"]
            .iter()
            .any(|w| lower.contains(w))
            || weight >= 600.0
            || flags & (1 << 18) != 0
            || lower.starts_with("cmbx");
        font.mono = [
            "mono",
            "courier",
            "consol",
            "typewriter",
            "cmtt",
            "lmtt",
            "menlo",
        ]
        .iter()
        .any(|w| lower.contains(w))
            || flags & 1 != 0;
        font
    }

    fn load_simple(
        &mut self,
        doc: &Document,
        dict: &Dictionary,
        subtype: &[u8],
        base_font: &str,
        descriptor: Option<&Dictionary>,
    ) {
        let mut table = base_table(b"StandardEncoding");
        match deref(doc, dict.get(b"Encoding").ok()) {
            Some(Object::Name(name)) => table = base_table(name),
            Some(Object::Dictionary(enc)) => {
                if let Some(base) = name_of(doc, enc.get(b"BaseEncoding").ok()) {
                    table = base_table(&base);
                }
                let diffs =
                    deref(doc, enc.get(b"Differences").ok()).and_then(|o| o.as_array().ok());
                let mut code = 0usize;
                for item in diffs.into_iter().flatten() {
                    match deref(doc, Some(item)) {
                        Some(Object::Integer(n)) => code = (*n).clamp(0, 255) as usize,
                        Some(Object::Name(name)) => {
                            if code < 256 {
                                table[code] = glyph_char(name);
                            }
                            code += 1;
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
        self.table = Some(Box::new(table));
        if subtype == b"Type3" {
            let matrix = deref(doc, dict.get(b"FontMatrix").ok())
                .and_then(|o| o.as_array().ok())
                .and_then(|a| a.first())
                .and_then(|o| deref(doc, Some(o)))
                .and_then(as_number);
            self.width_scale = matrix.map(|m| m as f32).unwrap_or(0.001);
        }
        self.first_char = deref(doc, dict.get(b"FirstChar").ok())
            .and_then(as_number)
            .unwrap_or(0.0)
            .max(0.0) as u32;
        let widths = deref(doc, dict.get(b"Widths").ok()).and_then(|o| o.as_array().ok());
        self.widths = widths
            .into_iter()
            .flatten()
            .take(256)
            .map(|w| deref(doc, Some(w)).and_then(as_number).unwrap_or(0.0) as f32)
            .collect();
        let missing = descriptor
            .and_then(|d| deref(doc, d.get(b"MissingWidth").ok()))
            .and_then(as_number);
        if self.widths.is_empty() {
            if let Some(std) = standard_widths(base_font) {
                self.first_char = 32;
                self.widths = std.iter().map(|&w| w as f32).collect();
            }
        }
        self.default_width =
            missing
                .map(|w| w as f32)
                .unwrap_or(if base_font.starts_with("Courier") {
                    600.0
                } else {
                    500.0
                });
        if self.default_width <= 0.0 {
            self.default_width = 500.0;
        }
    }

    fn load_composite(&mut self, doc: &Document, dict: &Dictionary, stream_limit: usize) {
        match deref(doc, dict.get(b"Encoding").ok()) {
            Some(Object::Name(name)) => {
                let name = String::from_utf8_lossy(name);
                self.unicode_codes = name.contains("UCS2") || name.contains("UTF16");
            }
            Some(Object::Stream(stream)) => {
                if let Ok(bytes) = stream_bytes(stream, stream_limit) {
                    self.codespace = parse_cmap(&bytes).codespace;
                }
            }
            _ => {}
        }
    }

    fn load_cid_widths(&mut self, doc: &Document, desc: &Dictionary) {
        self.default_width = deref(doc, desc.get(b"DW").ok())
            .and_then(as_number)
            .map(|w| w as f32)
            .unwrap_or(1000.0);
        let Some(w) = deref(doc, desc.get(b"W").ok()).and_then(|o| o.as_array().ok()) else {
            return;
        };
        let items: Vec<&Object> = w.iter().filter_map(|o| deref(doc, Some(o))).collect();
        let mut i = 0;
        while i + 1 < items.len() && self.cid_widths.len() < MAX_CMAP_ENTRIES {
            let Some(first) = as_number(items[i]) else {
                i += 1;
                continue;
            };
            let first = first.max(0.0) as u32;
            if let Ok(list) = items[i + 1].as_array() {
                for (k, w) in list.iter().enumerate().take(MAX_CMAP_ENTRIES) {
                    if let Some(w) = deref(doc, Some(w)).and_then(as_number) {
                        self.cid_widths.insert(first + k as u32, w as f32);
                    }
                }
                i += 2;
            } else if i + 2 < items.len() {
                let last = as_number(items[i + 1]).unwrap_or(0.0).max(0.0) as u32;
                let w = as_number(items[i + 2]).unwrap_or(0.0) as f32;
                let last = last.min(first.saturating_add(MAX_CMAP_ENTRIES as u32));
                for cid in first..=last {
                    self.cid_widths.insert(cid, w);
                }
                i += 3;
            } else {
                break;
            }
        }
    }

    /// Splits `bytes` into codes and calls `f` for each, with its text and advance width.
    pub fn decode(&self, bytes: &[u8], mut f: impl FnMut(Code<'_>)) {
        let mut i = 0;
        let mut buf = [0u8; 8];
        while i < bytes.len() {
            let (code, len) = self.next_code(&bytes[i..]);
            i += len;
            let width = self.width(code) * self.width_scale;
            let mapped: &str = if let Some(s) = self.to_unicode.get(&code) {
                s
            } else if self.composite {
                if self.unicode_codes {
                    char::from_u32(code)
                        .map(|c| &*c.encode_utf8(&mut buf))
                        .unwrap_or("")
                } else {
                    ""
                }
            } else {
                match self.table.as_ref().and_then(|t| t[code as usize & 0xff]) {
                    Some(c) => c.encode_utf8(&mut buf),
                    None => "",
                }
            };
            f(Code {
                text: mapped,
                width,
                is_space_code: len == 1 && code == 32,
            });
        }
    }

    fn next_code(&self, bytes: &[u8]) -> (u32, usize) {
        if !self.composite {
            return (bytes[0] as u32, 1);
        }
        if !self.codespace.is_empty() {
            for n in 1..=4usize.min(bytes.len()) {
                let code = bytes[..n].iter().fold(0u32, |a, &b| (a << 8) | b as u32);
                if self
                    .codespace
                    .iter()
                    .any(|&(len, lo, hi)| len as usize == n && (lo..=hi).contains(&code))
                {
                    return (code, n);
                }
            }
        }
        if bytes.len() >= 2 {
            (((bytes[0] as u32) << 8) | bytes[1] as u32, 2)
        } else {
            (bytes[0] as u32, 1)
        }
    }

    fn width(&self, code: u32) -> f32 {
        if self.composite {
            // Identity CMaps make CID == code, which is what nearly every producer writes.
            return self
                .cid_widths
                .get(&code)
                .copied()
                .unwrap_or(self.default_width);
        }
        code.checked_sub(self.first_char)
            .and_then(|i| self.widths.get(i as usize))
            .copied()
            .filter(|w| *w > 0.0)
            .unwrap_or(self.default_width)
    }
}

/// What a CMap stream defines: code → text (bfchar/bfrange) and code-space ranges.
#[derive(Default)]
struct CMap {
    map: CodeMap<Box<str>>,
    codespace: Vec<(u8, u32, u32)>,
}

/// A lexical token of a CMap program.
enum Tok<'a> {
    Hex(Vec<u8>),
    Name(&'a [u8]),
    Word(&'a [u8]),
    Open,
    Close,
}

fn tokens(s: &[u8]) -> Vec<Tok<'_>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        match c {
            b'%' => {
                while i < s.len() && s[i] != b'\n' && s[i] != b'\r' {
                    i += 1;
                }
            }
            b'<' if s.get(i + 1) == Some(&b'<') => i += 2,
            b'>' if s.get(i + 1) == Some(&b'>') => i += 2,
            b'<' => {
                let start = i + 1;
                let end = s[start..]
                    .iter()
                    .position(|&b| b == b'>')
                    .map_or(s.len(), |p| start + p);
                let digits: Vec<u8> = s[start..end]
                    .iter()
                    .copied()
                    .filter(u8::is_ascii_hexdigit)
                    .collect();
                let bytes = digits
                    .chunks(2)
                    .map(|p| {
                        let hi = (p[0] as char).to_digit(16).unwrap_or(0) as u8;
                        let lo = p
                            .get(1)
                            .map_or(0, |&b| (b as char).to_digit(16).unwrap_or(0) as u8);
                        (hi << 4) | lo
                    })
                    .collect();
                out.push(Tok::Hex(bytes));
                i = end + 1;
            }
            b'[' => {
                out.push(Tok::Open);
                i += 1;
            }
            b']' => {
                out.push(Tok::Close);
                i += 1;
            }
            b'(' => {
                // Literal strings only occur in the CMap header; skip them.
                let mut depth = 0;
                while i < s.len() {
                    match s[i] {
                        b'\\' => i += 1,
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
                i += 1;
            }
            b'/' => {
                let start = i + 1;
                i = start;
                while i < s.len() && !is_delim(s[i]) {
                    i += 1;
                }
                out.push(Tok::Name(&s[start..i]));
            }
            _ if c.is_ascii_whitespace() || c == 0 => i += 1,
            _ => {
                let start = i;
                while i < s.len() && !is_delim(s[i]) {
                    i += 1;
                }
                if i == start {
                    i += 1;
                } else {
                    out.push(Tok::Word(&s[start..i]));
                }
            }
        }
    }
    out
}

fn is_delim(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(b, b'<' | b'>' | b'[' | b']' | b'(' | b')' | b'/' | b'%' | 0)
}

fn be_code(bytes: &[u8]) -> u32 {
    bytes.iter().take(4).fold(0u32, |a, &b| (a << 8) | b as u32)
}

/// UTF-16BE bytes → text, with ligatures expanded.
fn utf16_text(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|p| ((p[0] as u16) << 8) | p.get(1).copied().unwrap_or(0) as u16)
        .collect();
    char::decode_utf16(units)
        .map(|r| r.unwrap_or('\u{fffd}'))
        .filter(|&c| c != '\0')
        .collect()
}

/// Parses the bfchar/bfrange/codespacerange sections of a CMap; tolerant of junk.
fn parse_cmap(s: &[u8]) -> CMap {
    let toks = tokens(s);
    let mut cmap = CMap::default();
    let mut i = 0;
    let full = |cmap: &CMap| cmap.map.len() >= MAX_CMAP_ENTRIES;
    while i < toks.len() {
        match &toks[i] {
            Tok::Word(b"begincodespacerange") => {
                i += 1;
                while i + 1 < toks.len() {
                    match (&toks[i], &toks[i + 1]) {
                        (Tok::Hex(lo), Tok::Hex(hi)) => {
                            if !lo.is_empty() && lo.len() <= 4 {
                                cmap.codespace
                                    .push((lo.len() as u8, be_code(lo), be_code(hi)));
                            }
                            i += 2;
                        }
                        _ => break,
                    }
                }
            }
            Tok::Word(b"beginbfchar") => {
                i += 1;
                while i + 1 < toks.len() && !full(&cmap) {
                    let dst = match &toks[i + 1] {
                        Tok::Hex(d) => utf16_text(d),
                        Tok::Name(n) => glyph_char(n).map(String::from).unwrap_or_default(),
                        _ => break,
                    };
                    let Tok::Hex(src) = &toks[i] else { break };
                    cmap.map.insert(be_code(src), dst.into());
                    i += 2;
                }
            }
            Tok::Word(b"beginbfrange") => {
                i += 1;
                while i + 2 < toks.len() && !full(&cmap) {
                    let (Tok::Hex(lo), Tok::Hex(hi)) = (&toks[i], &toks[i + 1]) else {
                        break;
                    };
                    let (lo, hi) = (be_code(lo), be_code(hi));
                    let hi = hi.min(lo.saturating_add(0xffff));
                    match &toks[i + 2] {
                        Tok::Hex(dst) if !dst.is_empty() => {
                            for (k, code) in (lo..=hi).enumerate() {
                                let mut d = dst.clone();
                                let n = d.len();
                                // Increment the last code unit (two bytes) by k.
                                let last = if n >= 2 {
                                    ((d[n - 2] as u32) << 8) | d[n - 1] as u32
                                } else {
                                    d[n - 1] as u32
                                };
                                let v = last.wrapping_add(k as u32);
                                if n >= 2 {
                                    d[n - 2] = (v >> 8) as u8;
                                }
                                d[n - 1] = v as u8;
                                cmap.map.insert(code, utf16_text(&d).into());
                                if full(&cmap) {
                                    break;
                                }
                            }
                            i += 3;
                        }
                        Tok::Open => {
                            let mut j = i + 3;
                            let mut code = lo;
                            while j < toks.len() {
                                match &toks[j] {
                                    Tok::Hex(d) => {
                                        if code <= hi {
                                            cmap.map.insert(code, utf16_text(d).into());
                                        }
                                        code = code.saturating_add(1);
                                    }
                                    Tok::Close => break,
                                    _ => {}
                                }
                                j += 1;
                            }
                            i = j + 1;
                        }
                        _ => break,
                    }
                }
            }
            _ => i += 1,
        }
    }
    cmap
}

/// Follows a reference (a few hops at most).
pub(super) fn deref<'a>(doc: &'a Document, obj: Option<&'a Object>) -> Option<&'a Object> {
    let mut obj = obj?;
    for _ in 0..8 {
        match obj {
            Object::Reference(id) => obj = doc.get_object(*id).ok()?,
            _ => return Some(obj),
        }
    }
    None
}

pub(super) fn as_dict(obj: &Object) -> Option<&Dictionary> {
    match obj {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

pub(super) fn as_number(obj: &Object) -> Option<f64> {
    match obj {
        Object::Integer(i) => Some(*i as f64),
        Object::Real(r) => Some(*r as f64).filter(|r| r.is_finite()),
        _ => None,
    }
}

fn name_of(doc: &Document, obj: Option<&Object>) -> Option<Vec<u8>> {
    match deref(doc, obj)? {
        Object::Name(n) => Some(n.clone()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmap_bfchar_and_bfrange() {
        let src = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap
            1 begincodespacerange <0000> <FFFF> endcodespacerange
            2 beginbfchar <0003> <0020> <0010> <00660069> endbfchar
            2 beginbfrange <0020> <0022> <0041> <0030> <0031> [<00E9> <D83DDE00>] endbfrange
            endcmap";
        let c = parse_cmap(src);
        assert_eq!(c.codespace, vec![(2, 0, 0xffff)]);
        assert_eq!(&*c.map[&3], " ");
        assert_eq!(&*c.map[&0x10], "fi");
        assert_eq!(&*c.map[&0x22], "C");
        assert_eq!(&*c.map[&0x30], "é");
        assert_eq!(&*c.map[&0x31], "😀");
    }

    #[test]
    fn cmap_junk_does_not_panic() {
        for junk in [
            &b"beginbfrange <00> <FFFFFFFF> <0041>"[..],
            b"beginbfchar <",
            b"<<<<[[[(",
            b"",
        ] {
            let _ = parse_cmap(junk);
        }
        let c = parse_cmap(b"beginbfrange <0000> <FFFFFFFF> <0041> endbfrange");
        assert!(c.map.len() <= MAX_CMAP_ENTRIES);
    }
}
