//! The terminal table: one line per configuration, sorted by the chosen metric, best marked `*`,
//! rows not separable from the best marked `≈` ([`super::separable`]).

use super::{human_bytes, present_columns, ranked, separable};
use crate::result::BenchResult;

/// Render the table ranked by `metric`.
pub fn render(result: &BenchResult, metric: &str) -> String {
    let cols = present_columns(result);
    let order = ranked(result, metric);
    let standing = separable::standing(result, metric);
    let mut header: Vec<String> =
        vec!["".into(), "configuration".into(), "mode".into(), "k".into()];
    header.extend(cols.iter().map(|(m, h)| {
        if *m == metric {
            format!("{h}▼")
        } else {
            h.to_string()
        }
    }));
    header.extend(["chunks", "tok/chunk", "index"].map(String::from));
    // The index's build time where the sweep varies the graph it builds.
    let builds = result.rows.iter().any(|r| !r.graph.is_default());
    if builds {
        header.push("build s".into());
    }
    header.extend(["embed s", "p50 ms"].map(String::from));
    let mut lines: Vec<Vec<String>> = vec![header];
    for &i in &order {
        let r = &result.rows[i];
        let mut l = vec![
            standing.mark(i, "*").to_string(),
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
        if builds {
            l.push(format!("{:.1}", r.cost.index_ms / 1000.0));
        }
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
    if standing.any_marked() {
        out.push_str(separable::LEGEND);
        out.push('\n');
    }
    if cols.iter().any(|(m, _)| *m == "recall") {
        out.push_str("recall/prec/IoU/prec_Ω: token level as the Chroma report computes them; * columns: exact spans, unions\n");
    }
    for n in &result.notes {
        out.push_str(&format!("note: {n}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::separable::tests::three_rows;

    /// The line of the table whose configuration is `label`.
    fn line<'a>(table: &'a str, label: &str) -> &'a str {
        table
            .lines()
            .find(|l| l.split_whitespace().any(|w| w == label))
            .unwrap_or_else(|| panic!("no line for {label} in\n{table}"))
    }

    #[test]
    fn rows_not_separable_from_the_best_are_marked() {
        let t = render(&three_rows(), "recall");
        assert!(line(&t, "best").starts_with('*'), "{t}");
        assert!(line(&t, "close").starts_with('≈'), "{t}");
        assert!(!line(&t, "worse").starts_with('≈'), "{t}");
        assert!(t.contains("≈ not separable from the best"), "{t}");
    }
}
