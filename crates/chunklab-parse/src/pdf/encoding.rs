//! Single-byte font encodings: the base encodings a simple font names (/WinAnsiEncoding,
//! /MacRomanEncoding, /StandardEncoding) and glyph names from /Differences arrays.

use super::glyph_names::GLYPH_NAMES;

/// Code → character table of a simple font.
pub(super) type CodeTable = [Option<char>; 256];

/// The base encoding named `name`; anything unknown (including /Symbol, whose fonts nearly always
/// carry a ToUnicode map) falls back to StandardEncoding as the PDF spec prescribes for
/// non-symbolic fonts.
pub(super) fn base_table(name: &[u8]) -> CodeTable {
    match name {
        b"WinAnsiEncoding" => win_ansi(),
        b"MacRomanEncoding" => mac_roman(),
        b"PDFDocEncoding" => win_ansi(),
        _ => standard(),
    }
}

fn ascii() -> CodeTable {
    let mut t = [None; 256];
    for (c, slot) in t.iter_mut().enumerate().take(0x7f).skip(0x20) {
        *slot = char::from_u32(c as u32);
    }
    t
}

/// WinAnsiEncoding: ASCII, the Windows-1252 block 0x80–0x9F, and Latin-1 above.
fn win_ansi() -> CodeTable {
    let mut t = ascii();
    const HIGH: [(u8, char); 27] = [
        (0x80, '€'),
        (0x82, '‚'),
        (0x83, 'ƒ'),
        (0x84, '„'),
        (0x85, '…'),
        (0x86, '†'),
        (0x87, '‡'),
        (0x88, 'ˆ'),
        (0x89, '‰'),
        (0x8a, 'Š'),
        (0x8b, '‹'),
        (0x8c, 'Œ'),
        (0x8e, 'Ž'),
        (0x91, '‘'),
        (0x92, '’'),
        (0x93, '“'),
        (0x94, '”'),
        (0x95, '•'),
        (0x96, '–'),
        (0x97, '—'),
        (0x98, '˜'),
        (0x99, '™'),
        (0x9a, 'š'),
        (0x9b, '›'),
        (0x9c, 'œ'),
        (0x9e, 'ž'),
        (0x9f, 'Ÿ'),
    ];
    for (code, c) in HIGH {
        t[code as usize] = Some(c);
    }
    for (code, slot) in t.iter_mut().enumerate().skip(0xa0) {
        *slot = char::from_u32(code as u32);
    }
    t
}

/// MacRomanEncoding: ASCII plus the classic Mac OS Roman upper half.
fn mac_roman() -> CodeTable {
    const HIGH: &str = "ÄÅÇÉÑÖÜáàâäãåçéèêëíìîïñóòôöõúùûü†°¢£§•¶ß®©™´¨≠ÆØ∞±≤≥¥µ∂∑∏π∫ªºΩæø\
                        ¿¡¬√ƒ≈∆«»…\u{a0}ÀÃÕŒœ–—“”‘’÷◊ÿŸ⁄€‹›ﬁﬂ‡·‚„‰ÂÊÁËÈÍÎÏÌÓÔ\u{f8ff}ÒÚÛÙıˆ˜¯˘˙˚¸˝˛ˇ";
    let mut t = ascii();
    for (i, c) in HIGH.chars().enumerate() {
        t[0x80 + i] = Some(c);
    }
    t
}

/// Adobe StandardEncoding (the default for Type 1 fonts without an /Encoding).
fn standard() -> CodeTable {
    let mut t = ascii();
    t[0x27] = Some('’');
    t[0x60] = Some('‘');
    const HIGH: &[(u8, char)] = &[
        (161, '¡'),
        (162, '¢'),
        (163, '£'),
        (164, '⁄'),
        (165, '¥'),
        (166, 'ƒ'),
        (167, '§'),
        (168, '¤'),
        (169, '\''),
        (170, '“'),
        (171, '«'),
        (172, '‹'),
        (173, '›'),
        (174, 'ﬁ'),
        (175, 'ﬂ'),
        (177, '–'),
        (178, '†'),
        (179, '‡'),
        (180, '·'),
        (182, '¶'),
        (183, '•'),
        (184, '‚'),
        (185, '„'),
        (186, '”'),
        (187, '»'),
        (188, '…'),
        (189, '‰'),
        (191, '¿'),
        (193, '`'),
        (194, '´'),
        (195, 'ˆ'),
        (196, '˜'),
        (197, '¯'),
        (198, '˘'),
        (199, '˙'),
        (200, '¨'),
        (202, '˚'),
        (203, '¸'),
        (205, '˝'),
        (206, '˛'),
        (207, 'ˇ'),
        (208, '—'),
        (225, 'Æ'),
        (227, 'ª'),
        (232, 'Ł'),
        (233, 'Ø'),
        (234, 'Œ'),
        (235, 'º'),
        (241, 'æ'),
        (245, 'ı'),
        (248, 'ł'),
        (249, 'ø'),
        (250, 'œ'),
        (251, 'ß'),
    ];
    for &(code, c) in HIGH {
        t[code as usize] = Some(c);
    }
    t
}

/// The character a glyph name stands for: Adobe Glyph List names, `uniXXXX`, `uXXXX[XX]`, and
/// the `name.suffix` / `a_b` ligature conventions (first component only for ligatures not in
/// the list). Unknown names (`g123`, `cid42`) give None.
pub(super) fn glyph_char(name: &[u8]) -> Option<char> {
    let name = std::str::from_utf8(name).ok()?;
    let base = name.split('.').next().unwrap_or(name);
    if let Ok(i) = GLYPH_NAMES.binary_search_by(|(n, _)| n.as_bytes().cmp(base.as_bytes())) {
        return Some(GLYPH_NAMES[i].1);
    }
    let hex = |s: &str| u32::from_str_radix(s, 16).ok().and_then(char::from_u32);
    if let Some(rest) = base.strip_prefix("uni") {
        if rest.len() >= 4 && rest.is_char_boundary(4) {
            return hex(&rest[..4]);
        }
    }
    if let Some(rest) = base.strip_prefix('u') {
        if (4..=6).contains(&rest.len()) {
            return hex(rest);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_complete() {
        assert_eq!(mac_roman()[0xff], Some('ˇ'));
        assert_eq!(mac_roman()[0x8e], Some('é'));
        assert_eq!(win_ansi()[0xe9], Some('é'));
        assert_eq!(win_ansi()[0x93], Some('“'));
        assert_eq!(standard()[174], Some('ﬁ'));
    }

    #[test]
    fn glyph_names() {
        assert_eq!(glyph_char(b"eacute"), Some('é'));
        assert_eq!(glyph_char(b"A"), Some('A'));
        assert_eq!(glyph_char(b"uni00E9"), Some('é'));
        assert_eq!(glyph_char(b"u1F600"), Some('😀'));
        assert_eq!(glyph_char(b"fi"), Some('ﬁ'));
        assert_eq!(glyph_char(b"hyphen.alt"), Some('-'));
        assert_eq!(glyph_char(b"g123"), None);
    }
}
