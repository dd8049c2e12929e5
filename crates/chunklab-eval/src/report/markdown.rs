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
    // The index's build time where the sweep varies the graph it builds.
    let builds = result.rows.iter().any(|r| !r.graph.is_default());
    out.push_str(" chunks | tokens/chunk | index |");
    if builds {
        out.push_str(" build s |");
    }
    out.push_str(" query p50 ms |\n|---|---|---|---:|");
    for _ in &cols {
        out.push_str("---:|");
    }
    out.push_str(if builds {
        "---:|---:|---:|---:|---:|\n"
    } else {
        "---:|---:|---:|---:|\n"
    });
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
            " {} | {:.0} | {} |",
            r.cost.chunks,
            r.cost.mean_tokens,
            human_bytes(r.cost.index_bytes),
        ));
        if builds {
            out.push_str(&format!(" {:.1} |", r.cost.index_ms / 1000.0));
        }
        out.push_str(&format!(" {:.2} |\n", r.cost.query_p50_ms));
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
        assert!(!md.contains("build s"), "{md}");
    }

    /// A sweep over the graph's shape shows each index's build time, in the table and here.
    #[test]
    fn graph_rows_show_their_build_time() {
        let mut result = three_rows();
        result.rows[1].graph.ef_construction = Some(80);
        result.rows[1].cost.index_ms = 3500.0;
        let md = render(&result, "recall");
        let header = md
            .lines()
            .find(|l| l.starts_with("| configuration"))
            .unwrap();
        assert!(
            header.ends_with("| index | build s | query p50 ms |"),
            "{md}"
        );
        let rule = md.lines().find(|l| l.starts_with("|---")).unwrap();
        assert_eq!(
            header.matches('|').count(),
            rule.matches('|').count(),
            "{md}"
        );
        assert!(md.lines().any(|l| l.contains(" | 3.5 | ")), "{md}");
        let table = super::super::table::render(&result, "recall");
        assert!(table.lines().next().unwrap().contains("build s"), "{table}");
        assert!(table.contains(" 3.5 "), "{table}");
    }
}
