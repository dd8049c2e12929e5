//! Running headers and footers: text repeated at the same place on many pages.

use super::layout::PageLines;
use std::collections::HashMap;

/// A candidate running line: (page index, line index, baseline y).
type Hit = (usize, usize, f32);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Role {
    Body,
    Header,
    Footer,
}

/// Running headers and footers: the outermost line at the top or bottom of a page (the next one
/// too when the outermost is furniture) whose text repeats, page numbers normalised away, at the
/// same height in the outer fifth of the page on at least half the pages; an outermost line in
/// the outer eighth, not larger than most text, repeated on three pages; a bare page number in
/// the outer eighth.
pub(super) fn running_lines(pages: &[PageLines]) -> Vec<Vec<Role>> {
    let mut roles: Vec<Vec<Role>> = pages
        .iter()
        .map(|p| vec![Role::Body; p.lines.len()])
        .collect();
    if pages.len() < 2 {
        return roles;
    }
    let most = pages.len().div_ceil(2).max(2);
    let mut sizes: Vec<f32> = pages
        .iter()
        .flat_map(|p| p.lines.iter().map(|l| l.size))
        .collect();
    sizes.sort_by(f32::total_cmp);
    let median_size = sizes.get(sizes.len() / 2).copied().unwrap_or(0.0);
    for depth in 0..2 {
        // (top?, normalised text) → [(page, line index, y)]
        let mut seen: HashMap<(bool, String), Vec<Hit>> = HashMap::new();
        for (p, page) in pages.iter().enumerate() {
            let n = page.lines.len();
            if n < 2 * depth + 2 {
                continue;
            }
            for (top, i) in [(true, depth), (false, n - 1 - depth)] {
                let outer_done = depth == 0 || roles[p][if top { 0 } else { n - 1 }] != Role::Body;
                if outer_done {
                    let key = (top, normalise(&page.lines[i].text(" ")));
                    seen.entry(key).or_default().push((p, i, page.lines[i].y));
                }
            }
        }
        for ((top, text), hits) in &seen {
            if text.is_empty() {
                continue;
            }
            let mut ys: Vec<f32> = hits.iter().map(|h| h.2).collect();
            ys.sort_by(f32::total_cmp);
            let y_ref = ys[ys.len() / 2];
            let same: Vec<&(usize, usize, f32)> =
                hits.iter().filter(|h| (h.2 - y_ref).abs() <= 3.0).collect();
            let pages_hit = same.len();
            let page_number =
                text == "#" || text.starts_with("page #") || text.starts_with("pagina #");
            for h in &same {
                let height = pages[h.0].height.max(1.0);
                let band = |frac: f32| {
                    if *top {
                        h.2 >= height * (1.0 - frac)
                    } else {
                        h.2 <= height * frac
                    }
                };
                // Three repeats suffice for small outermost text (alternating running heads).
                let small = pages[h.0].lines[h.1].size <= median_size + 0.5;
                let repeated = (pages_hit >= most && band(0.2))
                    || (depth == 0 && small && pages_hit >= 3 && band(0.125));
                if repeated || (page_number && band(0.125)) {
                    roles[h.0][h.1] = if *top { Role::Header } else { Role::Footer };
                }
            }
        }
    }
    roles
}

/// Lowercase, digit runs and roman numerals → `#`, whitespace collapsed.
fn normalise(text: &str) -> String {
    let mut words = Vec::new();
    for w in text.split_whitespace() {
        let lower = w.to_lowercase();
        let roman = lower.len() <= 7 && lower.chars().all(|c| "ivxlcdm".contains(c));
        if roman {
            words.push("#".to_string());
            continue;
        }
        let mut out = String::new();
        let mut in_digits = false;
        for c in lower.chars() {
            if c.is_ascii_digit() {
                if !in_digits {
                    out.push('#');
                }
                in_digits = true;
            } else {
                out.push(c);
                in_digits = false;
            }
        }
        words.push(out);
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalised_running_text() {
        assert_eq!(normalise("Debian Reference  xix"), "debian reference #");
        assert_eq!(normalise("Page 12 of 30"), "page # of #");
    }
}
