//! A self-contained HTML report: no scripts, no external assets. A bar per configuration (the
//! ranking metric with its 95% interval) and quality-vs-cost scatters (index bytes; prompt
//! tokens of the top k) with the Pareto front highlighted, then the full table.

use super::separable::{self, Standing};
use super::{human_bytes, markdown, ranked, sort_value};
use crate::result::{BenchResult, Row};

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

const PALETTE: [&str; 6] = [
    "#2f6db5", "#d9822b", "#3a9a5b", "#b33c3c", "#7a55b0", "#6b6b6b",
];

fn mode_color(r: &Row) -> &'static str {
    match r.mode.name() {
        "dense" => PALETTE[0],
        "hybrid" => PALETTE[1],
        _ => PALETTE[2],
    }
}

/// Indices of the rows on the Pareto front of (lower cost, higher quality).
pub fn pareto(points: &[(f64, f64)]) -> Vec<usize> {
    let mut front = Vec::new();
    for (i, &(c, q)) in points.iter().enumerate() {
        if !c.is_finite() || !q.is_finite() {
            continue;
        }
        let dominated = points.iter().enumerate().any(|(j, &(c2, q2))| {
            j != i && c2.is_finite() && q2.is_finite() && c2 <= c && q2 >= q && (c2 < c || q2 > q)
        });
        if !dominated {
            front.push(i);
        }
    }
    front.sort_by(|&a, &b| points[a].0.total_cmp(&points[b].0));
    front
}

fn bars(result: &BenchResult, metric: &str, standing: &Standing) -> String {
    let order: Vec<usize> = ranked(result, metric)
        .into_iter()
        .filter(|&i| sort_value(&result.rows[i], metric).is_finite())
        .collect();
    if order.is_empty() {
        return String::new();
    }
    let scale_max = order
        .iter()
        .filter_map(|&i| result.rows[i].metric(metric).map(|s| s.hi))
        .fold(0.0f64, f64::max)
        .max(1e-9);
    let (label_w, bar_w, row_h) = (300.0, 420.0, 22.0);
    let h = row_h * order.len() as f64 + 30.0;
    let mut s = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{h}" font-family="sans-serif" font-size="12">"#,
        label_w + bar_w + 90.0
    );
    for (pos, &i) in order.iter().enumerate() {
        let r = &result.rows[i];
        let m = r.metric(metric).unwrap();
        let mark = standing.mark(i, "★");
        let y = 10.0 + pos as f64 * row_h;
        let w = m.mean / scale_max * bar_w;
        let (lo, hi) = (m.lo / scale_max * bar_w, m.hi / scale_max * bar_w);
        s.push_str(&format!(
            r#"<text x="{}" y="{}" text-anchor="end">{}{} · {}</text>"#,
            label_w - 6.0,
            y + 14.0,
            if mark.is_empty() {
                String::new()
            } else {
                format!("{mark} ")
            },
            esc(&r.label),
            r.mode.name()
        ));
        s.push_str(&format!(
            r#"<rect x="{label_w}" y="{}" width="{w:.1}" height="{}" fill="{}"><title>{}: {:.2} [{:.2}–{:.2}]</title></rect>"#,
            y + 3.0,
            row_h - 6.0,
            mode_color(r),
            esc(metric),
            m.mean,
            m.lo,
            m.hi
        ));
        s.push_str(&format!(
            r##"<line x1="{:.1}" x2="{:.1}" y1="{y2}" y2="{y2}" stroke="#222"/>"##,
            label_w + lo,
            label_w + hi,
            y2 = y + row_h / 2.0
        ));
        s.push_str(&format!(
            r#"<text x="{:.1}" y="{}">{:.1}</text>"#,
            label_w + hi + 4.0,
            y + 14.0,
            m.mean
        ));
    }
    s.push_str("</svg>");
    s
}

fn scatter(
    result: &BenchResult,
    metric: &str,
    cost_name: &str,
    cost: impl Fn(&Row) -> f64,
) -> String {
    let pts: Vec<(f64, f64)> = result
        .rows
        .iter()
        .map(|r| (cost(r), sort_value(r, metric)))
        .collect();
    let valid: Vec<usize> = (0..pts.len())
        .filter(|&i| pts[i].0.is_finite() && pts[i].0 > 0.0 && pts[i].1.is_finite())
        .collect();
    if valid.is_empty() {
        return String::new();
    }
    let front = pareto(&valid.iter().map(|&i| pts[i]).collect::<Vec<_>>());
    let front: Vec<usize> = front.into_iter().map(|f| valid[f]).collect();
    let (w, h, pad) = (640.0, 360.0, 50.0);
    let xs: Vec<f64> = valid.iter().map(|&i| pts[i].0.ln()).collect();
    let ys: Vec<f64> = valid.iter().map(|&i| pts[i].1).collect();
    let (x0, x1) = (
        xs.iter().cloned().fold(f64::INFINITY, f64::min),
        xs.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
    );
    let (y0, y1) = (
        ys.iter().cloned().fold(f64::INFINITY, f64::min),
        ys.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
    );
    let xr = if x1 > x0 { x1 - x0 } else { 1.0 };
    let yr = if y1 > y0 { y1 - y0 } else { 1.0 };
    let px = |c: f64| pad + (c.ln() - x0) / xr * (w - 2.0 * pad);
    let py = |q: f64| h - pad - (q - y0) / yr * (h - 2.0 * pad);
    let mut s = format!(
        r##"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="11"><rect width="{w}" height="{h}" fill="#fafafa"/><line x1="{pad}" y1="{b}" x2="{r}" y2="{b}" stroke="#888"/><line x1="{pad}" y1="{pad}" x2="{pad}" y2="{b}" stroke="#888"/><text x="{cx}" y="{ty}" text-anchor="middle">{} (log scale) →</text><text x="14" y="{cy}" transform="rotate(-90 14 {cy})" text-anchor="middle">{} →</text><text x="{pad}" y="{ty}">{}</text><text x="{r}" y="{ty}" text-anchor="end">{}</text><text x="{lx}" y="{b}" text-anchor="end">{:.1}</text><text x="{lx}" y="{t}" text-anchor="end">{:.1}</text>"##,
        esc(cost_name),
        esc(metric),
        fmt_cost(cost_name, x0.exp()),
        fmt_cost(cost_name, x1.exp()),
        y0,
        y1,
        b = h - pad,
        r = w - pad,
        cx = w / 2.0,
        cy = h / 2.0,
        ty = h - 12.0,
        lx = pad - 4.0,
        t = pad + 4.0,
    );
    if front.len() > 1 {
        let path: Vec<String> = front
            .iter()
            .map(|&i| format!("{:.1},{:.1}", px(pts[i].0), py(pts[i].1)))
            .collect();
        s.push_str(&format!(
            r##"<polyline points="{}" fill="none" stroke="#c0392b" stroke-width="2" stroke-dasharray="5,3"/>"##,
            path.join(" ")
        ));
    }
    // Labels of the front's points, placed so that none overprints another (a crowded top
    // cluster is the usual case); a label with no free place is left to the point's tooltip.
    let labelled: Vec<(f64, f64, &str)> = front
        .iter()
        .map(|&i| (px(pts[i].0), py(pts[i].1), result.rows[i].label.as_str()))
        .collect();
    let places = place_labels(&labelled, w, h);
    for &i in &valid {
        let r = &result.rows[i];
        let on = front.contains(&i);
        s.push_str(&format!(
            r##"<circle cx="{:.1}" cy="{:.1}" r="{}" fill="{}" stroke="{}" stroke-width="{}"><title>{} · {}: {:.2}, {}</title></circle>"##,
            px(pts[i].0),
            py(pts[i].1),
            if on { 6 } else { 4 },
            mode_color(r),
            if on { "#c0392b" } else { "none" },
            if on { 2 } else { 0 },
            esc(&r.label),
            r.mode.name(),
            pts[i].1,
            fmt_cost(cost_name, pts[i].0)
        ));
    }
    for (place, (_, _, label)) in places.iter().zip(&labelled) {
        if let Some(b) = place {
            s.push_str(&format!(
                r#"<text x="{:.1}" y="{:.1}">{}</text>"#,
                b.x,
                b.y + LABEL_HEIGHT - 3.0,
                esc(label)
            ));
        }
    }
    s.push_str("</svg>");
    s
}

/// Height of a chart label (font size 11) and the width of one of its characters, upper
/// bounds for sans-serif.
const LABEL_HEIGHT: f64 = 13.0;
const LABEL_CHAR_WIDTH: f64 = 6.6;

/// A label's box: top-left corner and size.
#[derive(Debug, Clone, Copy, PartialEq)]
struct LabelBox {
    x: f64,
    y: f64,
    w: f64,
    h: f64,
}

impl LabelBox {
    fn overlaps(&self, o: &LabelBox) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// Places a label beside each point `(x, y, text)` on a `w`×`h` chart: the first of a set of
/// candidate spots (right or left of the point, stepping up and down) that stays on the chart
/// and overlaps neither an earlier label nor another point's marker; `None` when there is none.
fn place_labels(points: &[(f64, f64, &str)], w: f64, h: f64) -> Vec<Option<LabelBox>> {
    let markers: Vec<LabelBox> = points
        .iter()
        .map(|&(x, y, _)| LabelBox {
            x: x - 7.0,
            y: y - 7.0,
            w: 14.0,
            h: 14.0,
        })
        .collect();
    let mut placed: Vec<LabelBox> = Vec::new();
    let mut out = Vec::with_capacity(points.len());
    for &(x, y, text) in points {
        let bw = text.chars().count() as f64 * LABEL_CHAR_WIDTH;
        let mut found = None;
        'search: for step in 0..8 {
            let dy = step as f64 * LABEL_HEIGHT;
            for (lx, ly) in [
                (x + 8.0, y - LABEL_HEIGHT - 2.0 - dy),
                (x + 8.0, y + 2.0 + dy),
                (x - 8.0 - bw, y - LABEL_HEIGHT - 2.0 - dy),
                (x - 8.0 - bw, y + 2.0 + dy),
            ] {
                let b = LabelBox {
                    x: lx,
                    y: ly,
                    w: bw,
                    h: LABEL_HEIGHT,
                };
                let inside = b.x >= 0.0 && b.y >= 0.0 && b.x + b.w <= w && b.y + b.h <= h;
                if inside
                    && !placed.iter().any(|p| p.overlaps(&b))
                    && !markers.iter().any(|m| m.overlaps(&b))
                {
                    found = Some(b);
                    break 'search;
                }
            }
        }
        if let Some(b) = found {
            placed.push(b);
        }
        out.push(found);
    }
    out
}

fn fmt_cost(name: &str, v: f64) -> String {
    if name.contains("bytes") {
        human_bytes(v as u64)
    } else {
        format!("{v:.0}")
    }
}

/// Render the report ranked by `metric`.
pub fn render(result: &BenchResult, metric: &str) -> String {
    let order = ranked(result, metric);
    let best = order.first().map(|&i| &result.rows[i]);
    let standing = separable::standing(result, metric);
    let mut body = String::new();
    body.push_str(&format!(
        "<h1>chunklab bench: {}</h1><p>{} documents · {} queries · {} configurations · {:.0} s · ranked by <b>{}</b></p>",
        esc(&result.dataset),
        result.docs,
        result.queries,
        result.rows.len(),
        result.seconds,
        esc(metric)
    ));
    if let (Some(b), Some(m)) = (best, best.and_then(|b| b.metric(metric))) {
        body.push_str(&format!(
            "<p class=best>★ Best: <b>{}</b> ({}, k={}): {} {:.2} [95% interval {:.2}–{:.2}]</p>",
            esc(&b.label),
            b.mode.name(),
            b.k,
            esc(metric),
            m.mean,
            m.lo,
            m.hi
        ));
        let close: Vec<String> = order
            .iter()
            .filter(|&&i| standing.not_separable(i))
            .map(|&i| {
                format!(
                    "{} ({})",
                    esc(&result.rows[i].label),
                    result.rows[i].mode.name()
                )
            })
            .collect();
        body.push_str(&if close.is_empty() {
            "<p>Every other configuration is separable from it (95% paired bootstrap of the per-query difference).</p>".to_string()
        } else {
            format!(
                "<p>≈ Not separable from it ({} of {}): {}. {}.</p>",
                close.len(),
                result.rows.len() - 1,
                close.join(", "),
                esc(separable::LEGEND)
            )
        });
    }
    body.push_str(&format!(
        "<h2>{} per configuration</h2><p class=legend><span style=\"color:{}\">■ dense</span> <span style=\"color:{}\">■ hybrid</span> <span style=\"color:{}\">■ bm25</span>; whiskers: 95% bootstrap interval; ★ best, ≈ not separable from the best</p>{}",
        esc(metric),
        PALETTE[0],
        PALETTE[1],
        PALETTE[2],
        bars(result, metric, &standing)
    ));
    body.push_str("<h2>Quality vs cost</h2><p>Red dashed line: the Pareto front (no other configuration is both cheaper and better).</p>");
    body.push_str(&scatter(result, metric, "index bytes", |r| {
        r.cost.index_bytes as f64
    }));
    body.push_str(&scatter(
        result,
        metric,
        "prompt tokens of the top k",
        |r| r.cost.prompt_tokens,
    ));
    body.push_str("<h2>All results</h2>");
    body.push_str(&md_table_to_html(&markdown::render(result, metric)));
    format!(
        "<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>chunklab bench: {}</title><style>body{{font-family:sans-serif;max-width:1100px;margin:2em auto;color:#222}}table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ddd;padding:3px 6px;text-align:right}}td:first-child,th:first-child{{text-align:left}}.best{{font-size:1.1em}}svg{{display:block;margin:1em 0}}</style></head><body>{body}</body></html>\n",
        esc(&result.dataset)
    )
}

/// The Markdown table as HTML (the same cells).
fn md_table_to_html(md: &str) -> String {
    let mut out = String::from("<table>");
    let mut header = true;
    for line in md.lines() {
        let l = line.trim();
        if !l.starts_with('|') {
            if !l.is_empty() && !l.starts_with("**") {
                out.push_str(&format!("</table><p>{}</p><table>", esc(l)));
            }
            continue;
        }
        if l.starts_with("|---") {
            continue;
        }
        let cells: Vec<&str> = l.trim_matches('|').split(" | ").collect();
        out.push_str("<tr>");
        for c in cells {
            let tag = if header { "th" } else { "td" };
            out.push_str(&format!(
                "<{tag}>{}</{tag}>",
                esc(c.trim().trim_matches('|').trim())
            ));
        }
        out.push_str("</tr>");
        header = false;
    }
    out.push_str("</table>");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_marks_rows_not_separable_from_the_best() {
        let html = render(&crate::report::separable::tests::three_rows(), "recall");
        assert!(
            html.contains("≈ Not separable from it (1 of 2): close (dense)"),
            "{html}"
        );
        assert!(html.contains(">≈ close · dense</text>"), "{html}");
        assert!(html.contains(">worse · dense</text>"), "{html}");
        assert!(html.contains("<td>≈ close</td>"), "{html}");
    }

    #[test]
    fn labels_of_a_crowded_cluster_never_overprint() {
        // Ten front points within a few pixels of each other, as in the bench's top cluster.
        let pts: Vec<(f64, f64, &str)> = (0..10)
            .map(|i| {
                (
                    400.0 + i as f64 * 3.0,
                    60.0 + (i % 3) as f64 * 2.0,
                    "recursive 512/64 · hybrid",
                )
            })
            .collect();
        let places = place_labels(&pts, 640.0, 360.0);
        let boxes: Vec<LabelBox> = places.iter().flatten().copied().collect();
        assert!(boxes.len() >= 8, "most labels find a place: {places:?}");
        for (i, a) in boxes.iter().enumerate() {
            assert!(a.x >= 0.0 && a.x + a.w <= 640.0 && a.y >= 0.0 && a.y + a.h <= 360.0);
            for b in &boxes[i + 1..] {
                assert!(!a.overlaps(b), "{a:?} overlaps {b:?}");
            }
        }
    }

    #[test]
    fn pareto_front_keeps_undominated_points() {
        let pts = [
            (1.0, 50.0),
            (2.0, 60.0),
            (3.0, 55.0),
            (4.0, 70.0),
            (2.0, 40.0),
        ];
        assert_eq!(pareto(&pts), vec![0, 1, 3]);
    }
}
