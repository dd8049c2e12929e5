//! The terminal table: one line per configuration, sorted by the chosen metric, best marked `*`.

use super::{human_bytes, present_columns, ranked};
use crate::result::BenchResult;

/// Render the table ranked by `metric`.
pub fn render(result: &BenchResult, metric: &str) -> String {
    let cols = present_columns(result);
    let order = ranked(result, metric);
    let mut header: Vec<String> =
        vec!["".into(), "configuration".into(), "mode".into(), "k".into()];
    header.extend(cols.iter().map(|(m, h)| {
        if *m == metric {
            format!("{h}▼")
        } else {
            h.to_string()
        }
    }));
    header.extend(["chunks", "tok/chunk", "index", "embed s", "p50 ms"].map(String::from));
    let mut lines: Vec<Vec<String>> = vec![header];
    for (pos, &i) in order.iter().enumerate() {
        let r = &result.rows[i];
        let mut l = vec![
            if pos == 0 { "*".into() } else { String::new() },
            r.label.clone(),
            r.mode.name().into(),
            r.k.to_string(),
        ];
        for (m, _) in &cols {
            l.push(match r.metric(m) {
                Some(s) if s.mean.is_finite() => {
                    if matches!(*m, "mrr" | "ndcg") {
                        format!("{:.3}", s.mean)
                    } else {
                        format!("{:.1}", s.mean)
                    }
                }
                _ => "–".into(),
            });
        }
        l.push(r.cost.chunks.to_string());
        l.push(format!("{:.0}", r.cost.mean_tokens));
        l.push(human_bytes(r.cost.index_bytes));
        l.push(format!("{:.1}", r.cost.embed_ms / 1000.0));
        l.push(format!("{:.2}", r.cost.query_p50_ms));
        lines.push(l);
    }
    let ncol = lines[0].len();
    let widths: Vec<usize> = (0..ncol)
        .map(|c| {
            lines
                .iter()
                .map(|l| l[c].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for (li, l) in lines.iter().enumerate() {
        let mut s = String::new();
        for (c, cell) in l.iter().enumerate() {
            let pad = widths[c] - cell.chars().count();
            if c <= 2 {
                s.push_str(cell);
                s.push_str(&" ".repeat(pad));
            } else {
                s.push_str(&" ".repeat(pad));
                s.push_str(cell);
            }
            s.push_str("  ");
        }
        out.push_str(s.trim_end());
        out.push('\n');
        if li == 0 {
            out.push_str(&"-".repeat(widths.iter().sum::<usize>() + 2 * ncol));
            out.push('\n');
        }
    }
    out.push_str(&format!(
        "{} · {} documents · {} queries · ranked by {metric} (* best) · {:.0} s\n",
        result.dataset, result.docs, result.queries, result.seconds
    ));
    if cols.iter().any(|(m, _)| *m == "recall") {
        out.push_str("recall/prec/IoU/prec_Ω: token level as the Chroma report computes them; * columns: exact spans, unions\n");
    }
    for n in &result.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}
