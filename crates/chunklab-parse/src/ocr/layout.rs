//! Recognised words → the PDF parser's page lines. OCR text then goes through the same
//! structure builder as a born-digital PDF (`pdf/structure.rs`): lines into paragraphs, bigger
//! lines into headings, aligned cells into tables, running headers and footers out of the text.
//!
//! Word boxes (image pixels, y down) become segments in page points (y up, baseline): the words
//! of one engine line, split where the gap is wider than 1.5 em (table cells, columns). The font
//! size of a line is estimated from its word heights (a word box spans ascender to baseline, or
//! to the descender: about 0.8 em).

use super::{OcrPage, Word};
use crate::pdf::layout::{lines, PageLines, Seg};

/// Words with a confidence below this and no letter or digit are specks, not text.
const SPECK_CONF: f32 = 40.0;
/// A gap wider than this (× em) between words of one engine line separates segments.
const CELL_GAP: f32 = 1.5;

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

/// Estimated sizes scatter by ±15% between lines of one font; lines within 20% of the page's
/// median size get the median, so only clearly bigger lines become headings.
fn snap_sizes(segs: &mut [Seg]) {
    if segs.is_empty() {
        return;
    }
    let mut sizes: Vec<f32> = segs.iter().map(|s| s.size).collect();
    sizes.sort_by(f32::total_cmp);
    let median = sizes[sizes.len() / 2];
    for s in segs {
        if (s.size - median).abs() <= 0.2 * median {
            s.size = median;
        }
    }
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
    let mut heights: Vec<u32> = words
        .iter()
        .filter(|w| measures_font(w))
        .map(|w| w.y1.saturating_sub(w.y0))
        .collect();
    if heights.is_empty() {
        heights = words.iter().map(|w| w.y1.saturating_sub(w.y0)).collect();
    }
    heights.sort_unstable();
    // The upper quartile: words with ascenders, not x-height-only words or punctuation.
    let h = heights[(heights.len() * 3 / 4).min(heights.len() - 1)].max(1) as f32;
    let em_px = h / 0.8;
    let mut bottoms: Vec<u32> = words.iter().map(|w| w.y1).collect();
    bottoms.sort_unstable();
    // Most words sit on the baseline; the median bottom ignores descenders.
    let baseline_px = bottoms[bottoms.len() / 2] as f32;
    let y = height - baseline_px * sy;
    let size = em_px * sy;
    let mut cur: Option<Seg> = None;
    let mut last_x1 = 0u32;
    for w in words {
        let gap = w.x0 as f32 - last_x1 as f32;
        if let Some(s) = cur.as_mut() {
            if gap <= CELL_GAP * em_px {
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
