//! Lines in reading order → blocks (paragraphs, list items, code, tables) → headings by font
//! size and weight → the document text and its elements. Running headers and footers are set
//! aside, out of the text.

use super::layout::{flows, Flow, Line, PageLines};
use super::running::{running_lines, Role};
use super::table::{table_has_header, table_rows_text, table_runs};
use chunklab_core::document::{Element, ElementKind};
use std::collections::HashMap;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Paragraph,
    ListItem,
    Code,
    Table,
    Rotated,
}

#[derive(Debug)]
struct Block {
    page: u32,
    kind: Kind,
    lines: Vec<Line>,
    size: f32,
    bold: bool,
    /// Heading level (0 = title) once decided.
    heading: Option<u8>,
    /// Text of a `Rotated` block (which has no lines).
    rotated: String,
    /// The flow (column or full-width stretch) the block comes from; u32::MAX for page furniture.
    flow: u32,
    /// A paragraph continued from an earlier page: (index of the first line on the new page, page).
    breaks: Vec<(usize, u32)>,
}

impl Block {
    fn new(page: u32, kind: Kind, lines: Vec<Line>) -> Block {
        let size = lines.first().map_or(0.0, |l| l.size);
        let bold = lines.iter().all(|l| l.bold);
        Block {
            page,
            kind,
            lines,
            size,
            bold,
            heading: None,
            rotated: String::new(),
            flow: u32::MAX,
            breaks: Vec::new(),
        }
    }

    fn plain_text(&self) -> String {
        join_lines(self.lines.iter().map(|l| l.text(" "))).0
    }
}

/// The document text and elements built from all pages.
pub(super) struct Built {
    pub text: String,
    pub elements: Vec<Element>,
    pub title: Option<String>,
    /// Running headers and footers (page, text), kept out of the text.
    pub headers: Vec<(u32, String)>,
    pub footers: Vec<(u32, String)>,
}

/// Builds the document.
pub(super) fn build(pages: Vec<PageLines>) -> Built {
    let roles = running_lines(&pages);
    let body_size = body_size(&pages, &roles);
    let mut blocks: Vec<Block> = Vec::new();
    let mut flow_id = 0u32;
    let (mut headers, mut footers) = (Vec::new(), Vec::new());
    for (i, (page, roles)) in pages.into_iter().zip(roles).enumerate() {
        let no = i as u32 + 1;
        let mut body = Vec::new();
        for (line, role) in page.lines.into_iter().zip(roles) {
            match role {
                Role::Header => headers.push((no, line.text(" "))),
                Role::Footer => footers.push((no, line.text(" "))),
                Role::Body => body.push(line),
            }
        }
        for flow in flows(body) {
            let first = blocks.len();
            page_blocks(&flow, no, body_size, &mut blocks);
            for b in &mut blocks[first..] {
                b.flow = flow_id;
            }
            flow_id += 1;
        }
        if !page.rotated.is_empty() {
            let mut b = Block::new(no, Kind::Rotated, Vec::new());
            b.rotated = page.rotated;
            blocks.push(b);
        }
        // A zero-line Paragraph marks the page end so that empty pages still get a page break.
        blocks.push(Block::new(no, Kind::Paragraph, Vec::new()));
    }
    let mut blocks = merge_continued(blocks);
    let title = assign_headings(&mut blocks, body_size);
    let mut built = emit(blocks, title);
    built.headers = headers;
    built.footers = footers;
    built
}

/// Joins a paragraph cut by a column or page end with its continuation: the first block of the
/// next flow, when nothing but page ends lie between them, the style matches, the first part
/// does not end a sentence and the second starts in lowercase (or the first ends hyphenated).
fn merge_continued(blocks: Vec<Block>) -> Vec<Block> {
    let mut out: Vec<Block> = Vec::with_capacity(blocks.len());
    // Index in `out` of the last paragraph with lines, and whether only page ends followed it.
    let mut open: Option<usize> = None;
    for b in blocks {
        if b.lines.is_empty() && b.kind == Kind::Paragraph {
            out.push(b);
            continue;
        }
        if let Some(i) = open.take() {
            if continues_across(&out[i], &b) {
                let page_change = b.page != out[i].page;
                let at = out[i].lines.len();
                // Drop the page-end markers between the two parts.
                out.truncate(i + 1);
                let prev = &mut out[i];
                if page_change {
                    prev.breaks.push((at, b.page));
                }
                prev.breaks
                    .extend(b.breaks.iter().map(|&(k, p)| (k + at, p)));
                prev.lines.extend(b.lines);
                open = Some(i);
                continue;
            }
        }
        let is_para = b.kind == Kind::Paragraph && b.flow != u32::MAX;
        out.push(b);
        if is_para {
            open = Some(out.len() - 1);
        }
    }
    out
}

fn continues_across(a: &Block, b: &Block) -> bool {
    if b.kind != Kind::Paragraph || b.flow == a.flow || b.flow == u32::MAX || b.page > a.page + 1 {
        return false;
    }
    let (Some(last), Some(first)) = (a.lines.last(), b.lines.first()) else {
        return false;
    };
    if (last.size - first.size).abs() > 0.1 * last.size
        || last.bold != first.bold
        || last.mono
        || first.mono
    {
        return false;
    }
    let end = last.text(" ");
    let end = end.trim_end();
    let start = first.text(" ");
    let hyphenated = end.ends_with('-') || end.ends_with('\u{ad}');
    let lower = start.chars().next().is_some_and(char::is_lowercase);
    (hyphenated || !end.ends_with(['.', '!', '?', ':', ';'])) && lower
}

/// The most common font size of body text, by characters.
fn body_size(pages: &[PageLines], roles: &[Vec<Role>]) -> f32 {
    let mut count: HashMap<u32, u64> = HashMap::new();
    for (page, roles) in pages.iter().zip(roles) {
        for (line, role) in page.lines.iter().zip(roles) {
            if *role == Role::Body {
                let chars: u32 = line.segs.iter().map(|s| s.chars).sum();
                *count.entry((line.size * 2.0).round() as u32).or_default() += chars as u64;
            }
        }
    }
    count
        .into_iter()
        .max_by_key(|&(k, n)| (n, k))
        .map_or(10.0, |(k, _)| k as f32 / 2.0)
}

/// Splits one flow into blocks.
fn page_blocks(flow: &Flow, page: u32, body_size: f32, out: &mut Vec<Block>) {
    let lines = &flow.lines;
    // Columns of monospaced text are code laid out with spaces, not a table.
    let mut tables = table_runs(lines);
    tables.retain(|&(a, b)| lines[a..b].iter().filter(|l| l.mono).count() * 2 <= b - a);
    let spacing = line_spacing(lines);
    let mut i = 0;
    let mut cur: Option<Block> = None;
    while i < lines.len() {
        if let Some(&(a, b)) = tables.iter().find(|&&(a, _)| a == i) {
            out.extend(cur.take());
            out.push(Block::new(page, Kind::Table, lines[a..b].to_vec()));
            i = b;
            continue;
        }
        let line = &lines[i];
        let text = line.text(" ");
        let list_start = starts_list_item(&text);
        let kind = if line.mono {
            Kind::Code
        } else if list_start {
            Kind::ListItem
        } else {
            Kind::Paragraph
        };
        let continues = match &cur {
            Some(block) => continues_block(block, line, kind, list_start, flow, spacing, body_size),
            None => false,
        };
        if continues {
            if let Some(b) = cur.as_mut() {
                b.lines.push(line.clone());
                b.bold &= line.bold;
            }
        } else {
            out.extend(cur.take());
            cur = Some(Block::new(page, kind, vec![line.clone()]));
        }
        i += 1;
    }
    out.extend(cur);
}

/// Whether `line` continues the block being built.
fn continues_block(
    block: &Block,
    line: &Line,
    kind: Kind,
    list_start: bool,
    flow: &Flow,
    spacing: f32,
    body_size: f32,
) -> bool {
    let Some(prev) = block.lines.last() else {
        return false;
    };
    let same_kind = block.kind == kind || (block.kind == Kind::ListItem && kind == Kind::Paragraph);
    if !same_kind || list_start {
        return false;
    }
    let size = prev.size.max(line.size);
    if (prev.size - line.size).abs() > 0.1 * size || prev.bold != line.bold {
        return false;
    }
    let dy = prev.y - line.y;
    let expected = if spacing > 0.0 {
        spacing * size
    } else {
        1.2 * size
    };
    if dy <= 0.0 || dy > (1.3 * expected).max(expected + 0.25 * size) {
        return false;
    }
    if kind == Kind::Code {
        return true;
    }
    let indent = 0.8 * size.min(body_size.max(1.0) * 1.5);
    if block.kind == Kind::ListItem {
        // Continuation lines hang under the item text; a line back at the item's margin ends it.
        return line.x0 > block.lines[0].x0 + 0.3 * size || prev.x1 >= flow.x1 - 3.0 * size;
    }
    // First-line indent starts a paragraph.
    if line.x0 - prev.x0 > indent && prev.x1 >= flow.x1 - 3.0 * size {
        return false;
    }
    // A short line ending a sentence ends the paragraph.
    let width = (flow.x1 - flow.x0).max(1.0);
    let prev_text = prev.segs.last().map_or("", |s| s.text.as_str());
    if prev.x1 < flow.x1 - (0.3 * width).max(3.0 * size)
        && prev_text.ends_with(['.', ':', '!', '?'])
    {
        return false;
    }
    true
}

/// The usual baseline distance between consecutive lines of the flow, as a multiple of the font
/// size (0 when unknown).
fn line_spacing(lines: &[Line]) -> f32 {
    let mut d: Vec<f32> = lines
        .windows(2)
        .filter(|w| (w[0].size - w[1].size).abs() < 0.5)
        .map(|w| (w[0].y - w[1].y) / w[0].size.max(1.0))
        .filter(|&r| (0.8..=3.0).contains(&r))
        .collect();
    if d.len() < 2 {
        return 0.0;
    }
    d.sort_by(f32::total_cmp);
    d[d.len() / 4]
}

fn starts_list_item(text: &str) -> bool {
    let mut chars = text.chars();
    let Some(first) = chars.next() else {
        return false;
    };
    if matches!(
        first,
        '•' | '◦' | '▪' | '‣' | '●' | '○' | '■' | '□' | '–' | '—' | '*' | '·' | '-'
    ) {
        return chars.next().is_some_and(char::is_whitespace);
    }
    // "1. ", "12) ", "a) ", "(3) "
    let t = text.trim_start_matches('(');
    let marker_len = t.find(['.', ')']).unwrap_or(0);
    if marker_len == 0 || marker_len > 3 {
        return false;
    }
    let marker = &t[..marker_len];
    let is_marker = marker.chars().all(|c| c.is_ascii_digit())
        || (marker.len() == 1 && marker.chars().all(|c| c.is_ascii_lowercase()));
    is_marker && t[marker_len + 1..].starts_with(' ')
}

/// Headings: blocks clearly larger than body text, or bold at body size and short; levels by
/// size rank. Short texts repeated as "headings" many times ("Note", "Tip") are labels, not
/// headings. The largest heading on the first page with text becomes the title when no heading
/// elsewhere is as large. Returns the title text.
fn assign_headings(blocks: &mut [Block], body_size: f32) -> Option<String> {
    let size_key = |b: &Block| (b.size * 2.0).round() as u32;
    let mut candidates = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, b) in blocks.iter().enumerate() {
        if !matches!(b.kind, Kind::Paragraph | Kind::ListItem)
            || b.lines.is_empty()
            || b.lines.len() > 3
        {
            continue;
        }
        let text = b.plain_text();
        let chars = text.chars().count();
        let bullet = text.starts_with(|c: char| !c.is_alphanumeric() && c != '(' && c != '"');
        if chars > 150 || bullet || !text.chars().any(char::is_alphabetic) {
            continue;
        }
        let big = b.size >= body_size * 1.15 && b.size >= body_size + 1.0;
        let bold_head = b.bold
            && b.size >= body_size * 0.95
            && b.lines.len() <= 2
            && chars <= 120
            && !text.ends_with(['.', ',', ';', ':'])
            && !b.lines.iter().any(|l| l.segs.len() > 1);
        if big || bold_head {
            candidates.push(i);
            *seen.entry(text.to_lowercase()).or_default() += 1;
        }
    }
    candidates.retain(|&i| {
        seen.get(&blocks[i].plain_text().to_lowercase())
            .copied()
            .unwrap_or(0)
            < 4
    });
    let mut title = None;
    if let Some(first_page) = blocks.iter().find(|b| !b.lines.is_empty()).map(|b| b.page) {
        let max_size = |pred: &dyn Fn(u32) -> bool| {
            candidates
                .iter()
                .filter(|&&i| pred(blocks[i].page))
                .map(|&i| blocks[i].size)
                .fold(0.0f32, f32::max)
        };
        let here = max_size(&|p| p == first_page);
        let elsewhere = max_size(&|p| p != first_page);
        let top: Vec<usize> = candidates
            .iter()
            .copied()
            .filter(|&i| blocks[i].page == first_page && blocks[i].size == here)
            .collect();
        if top.len() == 1 && here > elsewhere + 0.5 && here >= body_size * 1.3 {
            blocks[top[0]].heading = Some(0);
            title = Some(blocks[top[0]].plain_text());
        }
    }
    let mut sizes: Vec<u32> = candidates
        .iter()
        .filter(|&&i| blocks[i].heading.is_none())
        .map(|&i| size_key(&blocks[i]))
        .collect();
    sizes.sort_by(|a, b| b.cmp(a));
    sizes.dedup();
    for &i in &candidates {
        if blocks[i].heading.is_none() {
            let rank = sizes
                .iter()
                .position(|s| *s == size_key(&blocks[i]))
                .unwrap_or(0);
            blocks[i].heading = Some((rank + 1).min(6) as u8);
        }
    }
    title
}

/// Joins the lines of a paragraph: hyphenated line ends rejoined ("wind-" + "energie"), a hyphen
/// kept when the next line starts with a capital or digit ("Noord-" + "Holland"), soft hyphens
/// removed, otherwise one space. Also returns where each line's text starts in the result.
fn join_lines(lines: impl Iterator<Item = String>) -> (String, Vec<usize>) {
    let mut out = String::new();
    let mut starts = Vec::new();
    // The previous line ended in a soft hyphen: join without a space.
    let mut tight = false;
    for line in lines {
        let trimmed = line.trim();
        let soft_end = trimmed.ends_with('\u{ad}');
        let line: String = trimmed.chars().filter(|&c| c != '\u{ad}').collect();
        if line.is_empty() {
            starts.push(out.len());
            continue;
        }
        if !out.is_empty() && !tight {
            let mut tail = out.chars().rev();
            let hyphen = tail.next() == Some('-') && tail.next().is_some_and(char::is_alphabetic);
            let next = line.chars().next().unwrap_or(' ');
            if hyphen && next.is_lowercase() {
                out.pop();
            } else if !(hyphen && next.is_alphanumeric()) {
                out.push(' ');
            }
        }
        starts.push(out.len());
        out.push_str(&line);
        tight = soft_end;
    }
    (out, starts)
}

/// Code lines keep their line breaks and their indentation (relative to the block).
fn code_text(lines: &[Line]) -> String {
    let left = lines.iter().map(|l| l.x0).fold(f32::MAX, f32::min);
    let mut out = String::new();
    for (i, l) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let indent = ((l.x0 - left) / (0.6 * l.size.max(1.0)))
            .round()
            .clamp(0.0, 60.0) as usize;
        out.extend(std::iter::repeat_n(' ', indent));
        out.push_str(&l.text(" "));
    }
    out
}

fn emit(blocks: Vec<Block>, title: Option<String>) -> Built {
    let mut text = String::new();
    let mut elements = Vec::new();
    let mut page = 0u32;
    let mut breaks_inside = Vec::new();
    for b in blocks {
        if b.page != page {
            page = b.page;
            if page > 1 {
                elements.push(
                    Element::new(ElementKind::PageBreak, text.len(), text.len()).with_page(page),
                );
            }
        }
        let body = match b.kind {
            Kind::Rotated => b.rotated.clone(),
            Kind::Code => code_text(&b.lines),
            Kind::Table => String::new(),
            _ => b.plain_text(),
        };
        if b.kind != Kind::Table && body.trim().is_empty() {
            continue;
        }
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        let start = text.len();
        if b.kind == Kind::Table {
            let header = table_has_header(&b.lines);
            let mut rows = Vec::new();
            for (r, row) in table_rows_text(&b.lines).iter().enumerate() {
                if r > 0 {
                    text.push('\n');
                }
                let row_start = text.len();
                text.push_str(row);
                rows.push(
                    Element::new(
                        ElementKind::TableRow {
                            header: header && r == 0,
                        },
                        row_start,
                        text.len(),
                    )
                    .with_page(page),
                );
            }
            elements.push(Element::new(ElementKind::Table, start, text.len()).with_page(page));
            elements.extend(rows);
            continue;
        }
        if b.breaks.is_empty() {
            text.push_str(&body);
        } else {
            let (joined, starts) = join_lines(b.lines.iter().map(|l| l.text(" ")));
            text.push_str(&joined);
            for &(line, p) in &b.breaks {
                let at = start + starts.get(line).copied().unwrap_or(joined.len());
                breaks_inside.push(Element::new(ElementKind::PageBreak, at, at).with_page(p));
                page = p;
            }
        }
        let kind = match (b.kind, b.heading) {
            (Kind::Code, _) => ElementKind::Code,
            (Kind::Rotated, _) => ElementKind::Other,
            (_, Some(0)) => ElementKind::Title,
            (_, Some(level)) => ElementKind::Heading { level },
            (Kind::ListItem, None) => ElementKind::ListItem,
            _ => ElementKind::Paragraph,
        };
        elements.push(Element::new(kind, start, text.len()).with_page(b.page));
        elements.append(&mut breaks_inside);
    }
    Built {
        text,
        elements,
        title,
        headers: Vec::new(),
        footers: Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hyphenation() {
        let j = |v: &[&str]| join_lines(v.iter().map(|s| s.to_string())).0;
        assert_eq!(
            j(&["Windenergie op land levert wind-", "energie op."]),
            "Windenergie op land levert windenergie op."
        );
        assert_eq!(
            j(&["de provincie Noord-", "Holland"]),
            "de provincie Noord-Holland"
        );
        assert_eq!(
            j(&["de provincie Noord-Holland en", "Zeeland"]),
            "de provincie Noord-Holland en Zeeland"
        );
        assert_eq!(j(&["a list -", "item"]), "a list - item");
        assert_eq!(j(&["soft\u{ad}", "ware"]), "software");
        let (text, starts) = join_lines(
            ["wind-", "energie en", "Noord-", "Holland"]
                .map(String::from)
                .into_iter(),
        );
        assert_eq!(text, "windenergie en Noord-Holland");
        assert_eq!(starts, vec![0, 4, 15, 21]);
    }

    #[test]
    fn list_markers() {
        assert!(starts_list_item("1. Het kader"));
        assert!(starts_list_item("• item"));
        assert!(starts_list_item("a) item"));
        assert!(!starts_list_item("3.1 Ruimtelijke afweging"));
        assert!(!starts_list_item("2022 Noord"));
        assert!(!starts_list_item("-x"));
    }
}
