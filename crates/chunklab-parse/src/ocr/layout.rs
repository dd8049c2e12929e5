//! Recognised words → the PDF parser's page lines. OCR text then goes through the same
//! structure builder as a born-digital PDF (`pdf/structure.rs`): lines into paragraphs, bigger
//! lines into headings, aligned cells into tables, running headers and footers out of the text.
//!
//! Word boxes (image pixels, y down) become segments in page points (y up, baseline): the words
//! of one engine line, split where the gap is wider than 1.5 em (table cells, columns). The font
//! size of a line is estimated from its word heights (a word box spans ascender to baseline, or
//! to the descender: about 0.8 em).

use super::{OcrPage, Word};
use crate::pdf::layout::{lines, Line, PageLines, Seg};

/// Words with a confidence below this and no letter or digit are specks, not text.
const SPECK_CONF: f32 = 40.0;
/// A gap wider than this (× em) between words of one engine line separates segments.
const CELL_GAP: f32 = 1.5;
/// Lines whose size is within this fraction of the page's median size are body lines.
const SNAP: f32 = 0.1;

/// The page's lines for a page of `width` × `height` points that `page` (its image) covers.
pub(crate) fn page_lines(page: &OcrPage, width: f32, height: f32) -> PageLines {
    let sx = width / page.width.max(1) as f32;
    let sy = height / page.height.max(1) as f32;
    let words: Vec<&Word> = page
        .words
        .iter()
        .filter(|w| w.conf >= SPECK_CONF || w.text.chars().any(char::is_alphanumeric))
        .collect();
    let mut segs = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let key = (words[i].block, words[i].par, words[i].line);
        let mut j = i;
        while j < words.len() && (words[j].block, words[j].par, words[j].line) == key {
            j += 1;
        }
        line_segs(&words[i..j], sx, sy, height, &mut segs);
        i = j;
    }
    snap_sizes(&mut segs);
    PageLines {
        lines: lines(segs),
        rotated: String::new(),
        height,
    }
}

/// Sizes within this fraction above a group's smallest are one font (estimates scatter by a
/// few percent; heading levels differ by 15% or more).
const SAME_FONT: f32 = 0.08;

/// Make one font one size across the OCR'd pages of a document: sizes estimated on its lines
/// scatter by a few percent between lines and pages, and the structure builder ranks heading
/// levels by size (`5. Ondertekening` on page 2 became a level below page 1's `1. Aanleiding`).
/// Sizes within [`SAME_FONT`] of a group's smallest take the group's most common size (by
/// characters).
pub(crate) fn unify_sizes<'a>(pages: impl IntoIterator<Item = &'a mut PageLines>) {
    let mut pages: Vec<&mut PageLines> = pages.into_iter().collect();
    let mut weights: Vec<(f32, u32)> = pages
        .iter()
        .flat_map(|p| p.lines.iter().flat_map(|l| &l.segs))
        .map(|s| (s.size, s.chars.max(1)))
        .collect();
    if weights.is_empty() {
        return;
    }
    weights.sort_by(|a, b| a.0.total_cmp(&b.0));
    // (smallest size of the group, the size it takes)
    let mut groups: Vec<(f32, f32)> = Vec::new();
    let mut i = 0;
    while i < weights.len() {
        let first = weights[i].0;
        let mut j = i;
        let mut by_size: Vec<(f32, u32)> = Vec::new();
        while j < weights.len() && weights[j].0 <= first * (1.0 + SAME_FONT) {
            match by_size.last_mut() {
                Some(last) if last.0 == weights[j].0 => last.1 += weights[j].1,
                _ => by_size.push(weights[j]),
            }
            j += 1;
        }
        let common = by_size
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(b.0.total_cmp(&a.0)))
            .map_or(first, |s| s.0);
        groups.push((first, common));
        i = j;
    }
    let unified = |size: f32| {
        let g = groups.partition_point(|&(first, _)| first <= size);
        groups[g.saturating_sub(1)].1
    };
    for page in pages.iter_mut() {
        for line in &mut page.lines {
            for seg in &mut line.segs {
                seg.size = unified(seg.size);
            }
            line.size = Line::size_of(&line.segs);
        }
    }
}

/// Estimated sizes scatter by a few percent between lines of one font (pixel rounding of the
/// letters' heights); lines within 10% of the page's median size get the median, so only
/// bigger lines become headings (the structure builder's threshold is 15%).
fn snap_sizes(segs: &mut [Seg]) {
    if segs.is_empty() {
        return;
    }
    let mut sizes: Vec<f32> = segs.iter().map(|s| s.size).collect();
    sizes.sort_by(f32::total_cmp);
    let median = sizes[sizes.len() / 2];
    for s in segs {
        if (s.size - median).abs() <= SNAP * median {
            s.size = median;
        }
    }
}

/// Height of capitals, digits and ascenders above the baseline, in em (Latin text faces:
/// 0.70–0.75).
const ASCENDER_EM: f32 = 0.72;
/// Height of lower-case letters without ascender (x-height), in em.
const X_HEIGHT_EM: f32 = 0.5;

/// Whether a word reaches the ascender line: a capital, a digit or an ascender letter.
fn tall(w: &Word) -> bool {
    w.text
        .chars()
        .any(|c| c.is_uppercase() || c.is_ascii_digit() || "bdfhklß".contains(c))
}

/// Whether a word's box measures its letters: only letters, digits and low punctuation. A word
/// holding a table's ruling (`2025|Haven`, `|5`, `[2`) or brackets spans the rule's or bracket's
/// height, not the font's, and would make a table row look like a title.
fn measures_font(w: &Word) -> bool {
    w.text.chars().any(char::is_alphanumeric)
        && w.text
            .chars()
            .all(|c| c.is_alphanumeric() || ".,:;'\"’‘“”-–%€&?*+=".contains(c))
}

fn line_segs(words: &[&Word], sx: f32, sy: f32, height: f32, out: &mut Vec<Seg>) {
    let mut basis: Vec<&Word> = words.iter().copied().filter(|w| measures_font(w)).collect();
    if basis.is_empty() {
        basis = words.to_vec();
    }
    let mut bottoms: Vec<u32> = basis.iter().map(|w| w.y1).collect();
    bottoms.sort_unstable();
    // Words without a descender sit on the baseline, the others reach below it: the upper
    // quartile of the bottoms (image y grows downwards) is the baseline even in a short line
    // of mostly descending words (`windenergie op land`).
    let baseline_px = bottoms[bottoms.len() / 4];
    // The letters' height above the baseline, measured on words with a capital, a digit or an
    // ascender (their tops are the ascender line; the median, so one box stretched by a rule
    // or a speck does not count), else on x-height words. Never a descender: the upper
    // quartile of whole boxes made a wrapped title's second line (`windenergie op land`) a
    // quarter bigger than its first, and a title of its own.
    let above = |w: &&Word| baseline_px.saturating_sub(w.y0);
    let mut heights: Vec<u32> = basis.iter().filter(|w| tall(w)).map(above).collect();
    let em_of_height = if heights.is_empty() {
        heights = basis.iter().map(above).collect();
        X_HEIGHT_EM
    } else {
        ASCENDER_EM
    };
    heights.sort_unstable();
    let h = heights[(heights.len() - 1) / 2].max(1) as f32;
    let em_px = h / em_of_height;
    let baseline_px = baseline_px as f32;
    let y = height - baseline_px * sy;
    let size = em_px * sy;
    // Cells are split by gaps measured in the whole boxes' upper quartile (ascender to
    // descender where a word has both), as the table finder was tuned.
    let mut boxes: Vec<u32> = basis.iter().map(|w| w.y1.saturating_sub(w.y0)).collect();
    boxes.sort_unstable();
    let cell_gap_px =
        CELL_GAP * boxes[(boxes.len() * 3 / 4).min(boxes.len() - 1)].max(1) as f32 / 0.8;
    let mut cur: Option<Seg> = None;
    let mut last_x1 = 0u32;
    for w in words {
        let gap = w.x0 as f32 - last_x1 as f32;
        if let Some(s) = cur.as_mut() {
            if gap <= cell_gap_px {
                s.text.push(' ');
                push_word(s, w, sx);
                last_x1 = w.x1;
                continue;
            }
        }
        out.extend(cur.take());
        let mut s = Seg {
            x0: w.x0 as f32 * sx,
            x1: w.x0 as f32 * sx,
            y,
            size,
            text: String::new(),
            chars: 0,
            bold: 0,
            mono: 0,
            words: Vec::new(),
        };
        push_word(&mut s, w, sx);
        cur = Some(s);
        last_x1 = w.x1;
    }
    out.extend(cur);
}

fn push_word(s: &mut Seg, w: &Word, sx: f32) {
    s.words
        .push((s.text.len() as u32, w.x0 as f32 * sx, w.x1 as f32 * sx));
    s.text.push_str(&w.text);
    s.x1 = s.x1.max(w.x1 as f32 * sx);
    s.chars += w.text.chars().filter(|c| !c.is_whitespace()).count() as u32;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn word(text: &str, x0: u32, y0: u32, x1: u32, y1: u32, line: u32) -> Word {
        Word {
            text: text.into(),
            conf: 90.0,
            x0,
            y0,
            x1,
            y1,
            block: 1,
            par: 1,
            line,
        }
    }

    #[test]
    fn words_become_lines_and_cells() {
        let page = OcrPage {
            words: vec![
                word("Artikel", 100, 100, 300, 150, 1),
                word("1", 320, 100, 340, 150, 1),
                word("Naam", 100, 300, 200, 330, 2),
                word("Bedrag", 900, 300, 1050, 330, 2),
                word("~", 1200, 300, 1210, 305, 2),
            ],
            width: 2480,
            height: 3508,
        };
        let mut page = page;
        page.words[4].conf = 10.0;
        let pl = page_lines(&page, 595.0, 842.0);
        assert_eq!(pl.lines.len(), 2);
        assert_eq!(pl.lines[0].text(" | "), "Artikel 1");
        assert_eq!(pl.lines[1].text(" | "), "Naam | Bedrag");
        assert!(pl.lines[0].size > pl.lines[1].size * 1.4);
        assert!(pl.lines[0].y > pl.lines[1].y);
    }

    /// A wrapped title whose second line has descenders (`windenergie op land`) is as big as
    /// its first; a box stretched by a rule above one word does not make a row bigger.
    #[test]
    fn sizes_ignore_descenders_and_one_stretched_box() {
        let page = OcrPage {
            words: vec![
                // Ascender height 60 px, descenders 20 px below the baseline at y 160.
                word("Raadsbesluit", 100, 100, 500, 160, 1),
                word("2020-117:", 520, 100, 800, 160, 1),
                word("Kader", 820, 100, 1000, 160, 1),
                word("voor", 1020, 118, 1150, 160, 1),
                word("windenergie", 100, 200, 500, 280, 2),
                word("op", 520, 218, 600, 280, 2),
                word("land", 620, 200, 760, 260, 2),
                // A body row: one box stretched up by a table rule.
                word("2023", 100, 400, 180, 430, 3),
                word("Noord", 300, 400, 420, 430, 3),
                word("4", 600, 400, 620, 430, 3),
                word("168.000", 800, 380, 950, 430, 3),
                word("2024", 100, 500, 180, 530, 4),
                word("Haven", 300, 500, 420, 530, 4),
            ],
            width: 2480,
            height: 3508,
        };
        let pl = page_lines(&page, 595.0, 842.0);
        let texts: Vec<String> = pl.lines.iter().map(|l| l.text(" ")).collect();
        assert_eq!(pl.lines[0].size, pl.lines[1].size, "{texts:?}");
        assert!(pl.lines[0].size > pl.lines[2].size * 1.5, "{texts:?}");
        assert_eq!(pl.lines[2].size, pl.lines[3].size, "{texts:?}");
    }

    /// One font's sizes, estimated on two pages, become one size; another font stays apart.
    #[test]
    fn unify_sizes_joins_one_font_across_pages() {
        let seg = |size: f32, chars: u32| Seg {
            x0: 0.0,
            x1: 10.0,
            y: 0.0,
            size,
            text: "x".repeat(chars as usize),
            chars,
            bold: 0,
            mono: 0,
            words: Vec::new(),
        };
        let page = |sizes: &[(f32, u32)]| PageLines {
            lines: sizes
                .iter()
                .map(|&(s, c)| Line::from_segs(vec![seg(s, c)]))
                .collect(),
            rotated: String::new(),
            height: 842.0,
        };
        let mut a = page(&[(19.0, 30), (13.0, 200), (15.3, 20)]);
        let mut b = page(&[(18.6, 15), (13.2, 100)]);
        unify_sizes([&mut a, &mut b]);
        let sizes = |p: &PageLines| p.lines.iter().map(|l| l.segs[0].size).collect::<Vec<_>>();
        assert_eq!(sizes(&a), [19.0, 13.0, 15.3]);
        assert_eq!(sizes(&b), [19.0, 13.0]);
        assert_eq!(b.lines[0].size, 19.0);
    }

    /// A table row whose words swallowed the vertical rules (`2025|Haven`, `|5`: boxes as tall
    /// as the row) is as big as a body line, not a title (a damaged scan of raadsbesluit.pdf).
    #[test]
    fn ruled_table_rows_keep_the_body_size() {
        let page = OcrPage {
            words: vec![
                word("Het", 100, 100, 160, 130, 1),
                word("besluit", 170, 100, 300, 130, 1),
                word("is", 310, 100, 340, 130, 1),
                word("aangenomen", 350, 100, 560, 130, 1),
                word("2025|Haven", 100, 180, 400, 240, 2),
                word("|5", 420, 180, 460, 240, 2),
                word("210.600", 480, 200, 600, 230, 2),
                word("ee", 610, 208, 640, 230, 2),
            ],
            width: 2480,
            height: 3508,
        };
        let pl = page_lines(&page, 595.0, 842.0);
        assert_eq!(pl.lines.len(), 2);
        assert_eq!(
            pl.lines[0].size,
            pl.lines[1].size,
            "{:?}",
            pl.lines[1].text(" | ")
        );
    }
}
