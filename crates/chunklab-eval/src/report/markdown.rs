//! Markdown: a GitHub table ranked by the chosen metric, means with their 95% intervals.

use super::{human_bytes, present_columns, ranked};
use crate::result::BenchResult;

/// Render the Markdown table ranked by `metric`.
pub fn render(result: &BenchResult, metric: &str) -> String {
    let cols = present_columns(result);
    let mut out = format!(
        "**{}** · {} documents · {} queries · ranked by `{metric}` (★ best; 95% bootstrap intervals in brackets)\n\n",
        result.dataset, result.docs, result.queries
    );
    out.push_str("| configuration | mode | k |");
    for (_, h) in &cols {
        out.push_str(&format!(" {h} |"));
    }
    out.push_str(" chunks | tokens/chunk | index | query p50 ms |\n|---|---|---|");
    for _ in &cols {
        out.push_str("---:|");
    }
    out.push_str("---:|---:|---:|---:|\n");
    for (pos, &i) in ranked(result, metric).iter().enumerate() {
        let r = &result.rows[i];
        out.push_str(&format!(
            "| {}{} | {} | {} |",
            if pos == 0 { "★ " } else { "" },
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
    for n in &result.notes {
        out.push_str(&format!("\nNote: {n}\n"));
    }
    out
}
