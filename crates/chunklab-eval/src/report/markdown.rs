//! Markdown: a GitHub table ranked by the chosen metric, means with their 95% intervals, rows
//! not separable from the best marked `≈` with their paired difference to it
//! ([`super::separable`]).

use super::{human_bytes, present_columns, ranked, separable};
use crate::result::BenchResult;

/// Render the Markdown table ranked by `metric`.
pub fn render(result: &BenchResult, metric: &str) -> String {
    let cols = present_columns(result);
    let standing = separable::standing(result, metric);
    let mut out = format!(
        "**{}** · {} documents · {} queries · ranked by `{metric}` (★ best; ≈ not separable from the best; 95% bootstrap intervals in brackets; Δ best: the row minus the best row, paired over queries)\n\n",
        result.dataset, result.docs, result.queries
    );
    out.push_str("| configuration | mode | k | Δ best |");
    for (_, h) in &cols {
        out.push_str(&format!(" {h} |"));
    }
    out.push_str(" chunks | tokens/chunk | index | query p50 ms |\n|---|---|---|---:|");
    for _ in &cols {
        out.push_str("---:|");
    }
    out.push_str("---:|---:|---:|---:|\n");
    let d = if matches!(metric, "mrr" | "ndcg") {
        3
    } else {
        1
    };
    for &i in &ranked(result, metric) {
        let r = &result.rows[i];
        let mark = standing.mark(i, "★");
        let delta = match standing.rows[i] {
            Some(v) => format!(
                "{:+.d$} [{:+.d$}, {:+.d$}]",
                v.diff.mean,
                v.diff.lo,
                v.diff.hi,
                d = d
            ),
            None => "–".into(),
        };
        out.push_str(&format!(
            "| {}{}{} | {} | {} | {delta} |",
            mark,
            if mark.is_empty() { "" } else { " " },
            r.label.replace('|', "\\|"),
            r.mode.name(),
            r.k
        ));
        for (m, _) in &cols {
            match r.metric(m) {
                Some(s) if s.mean.is_finite() => {
                    let d = if matches!(*m, "mrr" | "ndcg") { 3 } else { 1 };
                    out.push_str(&format!(
                        " {:.d$} [{:.d$}–{:.d$}] |",
                        s.mean,
                        s.lo,
                        s.hi,
                        d = d
                    ))
                }
                _ => out.push_str(" – |"),
            }
        }
        out.push_str(&format!(
            " {} | {:.0} | {} | {:.2} |\n",
            r.cost.chunks,
            r.cost.mean_tokens,
            human_bytes(r.cost.index_bytes),
            r.cost.query_p50_ms
        ));
    }
    if standing.any_marked() {
        out.push_str(&format!("\n{}\n", separable::LEGEND));
    }
    for n in &result.notes {
        out.push_str(&format!("\nNote: {n}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::separable::tests::three_rows;

    #[test]
    fn marks_and_differences() {
        let md = render(&three_rows(), "recall");
        let row = |label: &str| {
            md.lines()
                .find(|l| {
                    l.split(" | ")
                        .next()
                        .is_some_and(|c| c.trim_start_matches(['|', ' ', '★', '≈']) == label)
                })
                .unwrap_or_else(|| panic!("{label} in\n{md}"))
                .to_string()
        };
        assert!(
            row("best").starts_with("| ★ best | dense | 5 | – |"),
            "{md}"
        );
        assert!(row("close").starts_with("| ≈ close |"), "{md}");
        assert!(
            row("worse").starts_with("| worse | dense | 5 | -10.0 ["),
            "{md}"
        );
        assert!(md.contains(separable::LEGEND), "{md}");
    }
}
