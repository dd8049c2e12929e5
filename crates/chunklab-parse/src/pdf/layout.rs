//! Geometry → reading order: glyphs become segments (runs on one baseline without a wide gap),
//! segments become lines, and lines become flows: full-width stretches and, where a page has
//! text columns (found as vertical white gutters with column-shaped text on both sides), one flow
//! per column, read left to right.

use super::content::{Glyph, PageGlyphs, BOLD, MONO};

/// A gap wider than this (× font size) inside a line separates words.
const WORD_GAP: f32 = 0.13;
/// A gap wider than this (× font size) separates segments (table cells, columns).
const SEGMENT_GAP: f32 = 1.0;

/// Glyphs on one baseline without a wide gap: words of a line, or a table cell.
#[derive(Debug, Clone)]
pub(crate) struct Seg {
    pub x0: f32,
    pub x1: f32,
    pub y: f32,
    pub size: f32,
    pub text: String,
    /// Non-space characters, and how many of them are bold / monospace.
    pub chars: u32,
    pub bold: u32,
    pub mono: u32,
    /// Words: (byte offset in `text`, x0, x1).
    pub words: Vec<(u32, f32, f32)>,
}

/// One visual line: its segments left to right.
#[derive(Debug, Clone)]
pub(crate) struct Line {
    pub segs: Vec<Seg>,
    pub x0: f32,
    pub x1: f32,
    /// Baseline of the line's main text.
    pub y: f32,
    /// Font size of most of its characters.
    pub size: f32,
    pub bold: bool,
    pub mono: bool,
}

impl Line {
    pub(crate) fn from_segs(mut segs: Vec<Seg>) -> Line {
        segs.sort_by(|a, b| a.x0.total_cmp(&b.x0));
        let main = segs.iter().max_by_key(|s| s.chars).cloned();
        let chars: u32 = segs.iter().map(|s| s.chars).sum();
        let bold: u32 = segs.iter().map(|s| s.bold).sum();
        let mono: u32 = segs.iter().map(|s| s.mono).sum();
        let size = Line::size_of(&segs);
        Line {
            x0: segs.iter().map(|s| s.x0).fold(f32::MAX, f32::min),
            x1: segs.iter().map(|s| s.x1).fold(f32::MIN, f32::max),
            y: main.map_or(0.0, |s| s.y),
            size,
            bold: chars > 0 && bold * 10 >= chars * 8,
            mono: chars > 0 && mono * 10 >= chars * 8,
            segs,
        }
    }

    /// The size of most of `segs`' characters, to half a point.
    pub(crate) fn size_of(segs: &[Seg]) -> f32 {
        let mut size_chars: Vec<(f32, u32)> = Vec::new();
        for s in segs {
            let key = (s.size * 2.0).round() / 2.0;
            match size_chars.iter_mut().find(|(k, _)| *k == key) {
                Some(e) => e.1 += s.chars,
                None => size_chars.push((key, s.chars)),
            }
        }
        size_chars
            .iter()
            .max_by(|a, b| a.1.cmp(&b.1).then(a.0.total_cmp(&b.0)))
            .map_or(10.0, |e| e.0)
    }

    /// The line's text, segments joined with `sep`.
    pub fn text(&self, sep: &str) -> String {
        let mut out = String::new();
        for (i, s) in self.segs.iter().enumerate() {
            if i > 0 {
                out.push_str(sep);
            }
            out.push_str(&s.text);
        }
        out
    }
}

/// One page's lines (top to bottom) before reading order, plus text drawn rotated.
pub(crate) struct PageLines {
    pub lines: Vec<Line>,
    pub rotated: String,
    pub height: f32,
}

/// A stretch of lines read top to bottom: a column, or a full-width part of the page.
#[derive(Debug, Clone)]
pub(super) struct Flow {
    pub lines: Vec<Line>,
    pub x0: f32,
    pub x1: f32,
}

/// Builds segments from upright glyphs in content order, and collects rotated text separately.
pub(super) fn segments(page: &PageGlyphs) -> (Vec<Seg>, String) {
    let mut segs = Vec::new();
    let mut rotated = String::new();
    let mut cur: Option<Seg> = None;
    let mut pending_space = false;
    let mut last: Option<&Glyph> = None;
    let mut last_rot: Option<&Glyph> = None;
    for g in &page.glyphs {
        let text = &page.text[g.start as usize..g.end as usize];
        if !g.upright {
            if let Some(p) = last_rot {
                let d = ((g.x0 - p.x1).powi(2) + (g.y - p.y).powi(2)).sqrt();
                if d > 2.0 * g.size {
                    rotated.push('\n');
                } else if d > WORD_GAP * g.size && !rotated.ends_with(' ') {
                    rotated.push(' ');
                }
            }
            rotated.push_str(text);
            last_rot = Some(g);
            continue;
        }
        let is_space = text.chars().all(char::is_whitespace);
        if let Some(s) = cur.as_mut() {
            let same_line = (g.y - s.y).abs() <= 0.2 * g.size.max(s.size);
            let gap = g.x0 - s.x1;
            let tol = g.size.max(s.size);
            // Fake bold: the same glyph drawn twice, slightly offset.
            if let Some(p) = last {
                if same_line
                    && !is_space
                    && (g.x0 - p.x0).abs() < 0.15 * tol
                    && page.text[p.start as usize..p.end as usize] == *text
                {
                    continue;
                }
            }
            if same_line && gap >= -0.5 * tol && gap <= SEGMENT_GAP * tol {
                if is_space {
                    pending_space = true;
                    continue;
                }
                if (pending_space || gap > WORD_GAP * tol) && !s.text.ends_with(' ') {
                    s.text.push(' ');
                }
                pending_space = false;
                push_glyph(s, g, text);
                last = Some(g);
                continue;
            }
        }
        if is_space {
            pending_space = true;
            continue;
        }
        segs.extend(cur.take());
        let mut s = Seg {
            x0: g.x0,
            x1: g.x0,
            y: g.y,
            size: g.size,
            text: String::new(),
            chars: 0,
            bold: 0,
            mono: 0,
            words: Vec::new(),
        };
        push_glyph(&mut s, g, text);
        cur = Some(s);
        pending_space = false;
        last = Some(g);
    }
    segs.extend(cur);
    for s in &mut segs {
        let trimmed = s.text.trim_end().len();
        s.text.truncate(trimmed);
    }
    segs.retain(|s| s.chars > 0);
    (segs, rotated.trim().to_string())
}

fn push_glyph(s: &mut Seg, g: &Glyph, text: &str) {
    match s.words.last_mut() {
        Some(w) if !s.text.is_empty() && !s.text.ends_with(' ') => w.2 = w.2.max(g.x1),
        _ => s.words.push((s.text.len() as u32, g.x0, g.x1)),
    }
    s.text.push_str(text);
    s.x1 = s.x1.max(g.x1);
    s.x0 = s.x0.min(g.x0);
    let n = text.chars().filter(|c| !c.is_whitespace()).count() as u32;
    s.chars += n;
    if g.style & BOLD != 0 {
        s.bold += n;
    }
    if g.style & MONO != 0 {
        s.mono += n;
    }
    if n > 0 && g.size > s.size {
        s.size = g.size;
    }
}

/// Groups segments into lines (top to bottom), merging pieces of one line that the content
/// stream drew separately.
pub(crate) fn lines(mut segs: Vec<Seg>) -> Vec<Line> {
    segs.sort_by(|a, b| b.y.total_cmp(&a.y).then(a.x0.total_cmp(&b.x0)));
    let mut out: Vec<Vec<Seg>> = Vec::new();
    let mut line_y = f32::MAX;
    let mut line_size = 0.0f32;
    for s in segs {
        let close = (line_y - s.y).abs() <= 0.4 * line_size.max(s.size);
        match out.last_mut() {
            Some(cur) if close => {
                // Keep the baseline of the bigger text as the line's reference.
                if s.size > line_size {
                    line_y = s.y;
                    line_size = s.size;
                }
                cur.push(s);
            }
            _ => {
                line_y = s.y;
                line_size = s.size;
                out.push(vec![s]);
            }
        }
    }
    out.into_iter()
        .map(|segs| Line::from_segs(merge_close(segs)))
        .collect()
}

/// Joins segments of one line whose gap is a word gap rather than a cell gap.
fn merge_close(mut segs: Vec<Seg>) -> Vec<Seg> {
    segs.sort_by(|a, b| a.x0.total_cmp(&b.x0));
    let mut out: Vec<Seg> = Vec::with_capacity(segs.len());
    for s in segs {
        if let Some(p) = out.last_mut() {
            let tol = p.size.max(s.size);
            let gap = s.x0 - p.x1;
            // Dot leaders (a table of contents) bind their neighbours into one segment.
            let leader = is_leader(&p.text) || is_leader(&s.text) || p.text.ends_with(". .");
            if (gap <= SEGMENT_GAP * tol || leader) && gap >= -0.5 * tol {
                if gap > WORD_GAP * tol && !p.text.ends_with(' ') && !s.text.starts_with(' ') {
                    p.text.push(' ');
                }
                let shift = p.text.len() as u32;
                if p.text.ends_with(' ') || p.words.is_empty() {
                    p.words
                        .extend(s.words.iter().map(|w| (w.0 + shift, w.1, w.2)));
                } else if let Some((first, rest)) = s.words.split_first() {
                    // Touching pieces continue the last word.
                    if let Some(last) = p.words.last_mut() {
                        last.2 = last.2.max(first.2);
                    }
                    p.words.extend(rest.iter().map(|w| (w.0 + shift, w.1, w.2)));
                }
                p.text.push_str(&s.text);
                p.x1 = p.x1.max(s.x1);
                p.chars += s.chars;
                p.bold += s.bold;
                p.mono += s.mono;
                if s.chars > p.chars {
                    p.y = s.y;
                }
                p.size = p.size.max(s.size);
                continue;
            }
        }
        out.push(s);
    }
    out
}

fn is_leader(text: &str) -> bool {
    text.len() >= 2 && text.chars().all(|c| matches!(c, '.' | ' ' | '·' | '…'))
}

/// Reading order: full-width stretches top to bottom; where a band of lines has text columns,
/// each column top to bottom, left to right.
pub(super) fn flows(lines: Vec<Line>) -> Vec<Flow> {
    if lines.is_empty() {
        return Vec::new();
    }
    let left = lines.iter().map(|l| l.x0).fold(f32::MAX, f32::min);
    let right = lines.iter().map(|l| l.x1).fold(f32::MIN, f32::max);
    let gutters = gutters(&lines, left, right);
    let mut out = Vec::new();
    let mut single: Vec<Line> = Vec::new();
    let mut band: Vec<Line> = Vec::new();
    let crosses = |l: &Line| {
        l.segs
            .iter()
            .any(|s| gutters.iter().any(|&(g0, g1)| s.x0 < g1 && s.x1 > g0))
    };
    for line in lines {
        if gutters.is_empty() || crosses(&line) {
            if !band.is_empty() {
                flush_band(
                    &mut out,
                    &mut single,
                    std::mem::take(&mut band),
                    &gutters,
                    left,
                    right,
                );
            }
            single.push(line);
        } else {
            band.push(line);
        }
    }
    if !band.is_empty() {
        flush_band(&mut out, &mut single, band, &gutters, left, right);
    }
    if !single.is_empty() {
        out.push(Flow {
            lines: single,
            x0: left,
            x1: right,
        });
    }
    out
}

/// Emits a band of lines that avoid the gutters: as columns when they look like text columns,
/// otherwise as ordinary full-width lines (a table, a list of short lines).
fn flush_band(
    out: &mut Vec<Flow>,
    single: &mut Vec<Line>,
    band: Vec<Line>,
    gutters: &[(f32, f32)],
    left: f32,
    right: f32,
) {
    let mut bounds = vec![left];
    for &(g0, g1) in gutters {
        bounds.push(g0);
        bounds.push(g1);
    }
    bounds.push(right);
    let ncols = gutters.len() + 1;
    let mut cols: Vec<Vec<Line>> = vec![Vec::new(); ncols];
    for line in &band {
        let mut parts: Vec<Vec<Seg>> = vec![Vec::new(); ncols];
        for s in &line.segs {
            let mid = (s.x0 + s.x1) / 2.0;
            let k = (0..ncols)
                .find(|&k| mid <= bounds[2 * k + 1])
                .unwrap_or(ncols - 1);
            parts[k].push(s.clone());
        }
        for (k, p) in parts.into_iter().enumerate() {
            if !p.is_empty() {
                cols[k].push(Line::from_segs(p));
            }
        }
    }
    // Text columns: each at least a fifth of the text width and filled with lines, of similar
    // widths and the same kind of text (a column of monospace commands beside prose is a table).
    let page_width = (right - left).max(1.0);
    let widths: Vec<f32> = (0..ncols)
        .map(|k| (bounds[2 * k + 1] - bounds[2 * k]).max(1.0))
        .collect();
    let (wmin, wmax) = widths
        .iter()
        .fold((f32::MAX, 0.0f32), |(a, b), &w| (a.min(w), b.max(w)));
    let mono_share =
        |col: &Vec<Line>| col.iter().filter(|l| l.mono).count() as f32 / col.len().max(1) as f32;
    let shares: Vec<f32> = cols.iter().map(mono_share).collect();
    let same_kind = shares.iter().all(|&m| (m - shares[0]).abs() < 0.5);
    let text_like = same_kind
        && wmin >= 0.6 * wmax
        && cols.iter().zip(&widths).all(|(col, &width)| {
            let mut lw: Vec<f32> = col.iter().map(|l| l.x1 - l.x0).collect();
            lw.sort_by(f32::total_cmp);
            let median = lw.get(lw.len() / 2).copied().unwrap_or(0.0);
            col.len() >= 3 && width >= 0.2 * page_width && median >= 0.6 * width
        });
    if !text_like {
        single.extend(band);
        return;
    }
    if !single.is_empty() {
        out.push(Flow {
            lines: std::mem::take(single),
            x0: left,
            x1: right,
        });
    }
    for (k, col) in cols.into_iter().enumerate() {
        if !col.is_empty() {
            out.push(Flow {
                lines: col,
                x0: bounds[2 * k],
                x1: bounds[2 * k + 1],
            });
        }
    }
}

/// Vertical white gutters: x-intervals inside the text area that (almost) no segment covers,
/// at least a font size wide, with text on both sides.
fn gutters(lines: &[Line], left: f32, right: f32) -> Vec<(f32, f32)> {
    const BIN: f32 = 2.0;
    if lines.len() < 6 || right - left < 100.0 {
        return Vec::new();
    }
    let nbins = (((right - left) / BIN).ceil() as usize).clamp(1, 4096);
    let mut cover = vec![0u32; nbins];
    let bin = |x: f32| (((x - left) / BIN) as usize).min(nbins - 1);
    for l in lines {
        for s in &l.segs {
            for c in &mut cover[bin(s.x0)..=bin(s.x1)] {
                *c += 1;
            }
        }
    }
    let mut sizes: Vec<f32> = lines.iter().map(|l| l.size).collect();
    sizes.sort_by(f32::total_cmp);
    let min_width = sizes[sizes.len() / 2].max(6.0);
    // A few spanning lines (a title, a figure caption) may cross a gutter.
    let allowed = (lines.len() as u32 * 15 / 100).max(1);
    let mut out = Vec::new();
    let mut i = 0;
    while i < nbins {
        if cover[i] > allowed {
            i += 1;
            continue;
        }
        let start = i;
        while i < nbins && cover[i] <= allowed {
            i += 1;
        }
        let (g0, g1) = (left + start as f32 * BIN, left + i as f32 * BIN);
        if start > 0 && i < nbins && g1 - g0 >= min_width {
            out.push((g0, g1));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(x0: f32, x1: f32, y: f32, text: &str) -> Seg {
        Seg {
            x0,
            x1,
            y,
            size: 10.0,
            text: text.into(),
            chars: text.chars().filter(|c| !c.is_whitespace()).count() as u32,
            bold: 0,
            mono: 0,
            words: vec![(0, x0, x1)],
        }
    }

    #[test]
    fn two_columns_are_read_column_by_column() {
        let mut segs = vec![seg(
            50.0,
            550.0,
            800.0,
            "A title spanning both columns of the page",
        )];
        for i in 0..10 {
            let y = 760.0 - 12.0 * i as f32;
            segs.push(seg(50.0, 290.0, y, &format!("left {i}")));
            segs.push(seg(310.0, 550.0, y, &format!("right {i}")));
        }
        let flows = flows(lines(segs));
        assert_eq!(flows.len(), 3);
        assert_eq!(
            flows[0].lines[0].text(" "),
            "A title spanning both columns of the page"
        );
        assert!(flows[1]
            .lines
            .iter()
            .all(|l| l.text(" ").starts_with("left")));
        assert!(flows[2]
            .lines
            .iter()
            .all(|l| l.text(" ").starts_with("right")));
    }

    #[test]
    fn a_table_is_not_taken_for_columns() {
        let mut segs = Vec::new();
        for i in 0..10 {
            let y = 760.0 - 12.0 * i as f32;
            segs.push(seg(50.0, 80.0, y, "2022"));
            segs.push(seg(200.0, 210.0, y, "2"));
            segs.push(seg(400.0, 440.0, y, "84.000"));
        }
        let flows = flows(lines(segs));
        assert_eq!(flows.len(), 1);
        assert_eq!(flows[0].lines[0].segs.len(), 3);
    }
}
