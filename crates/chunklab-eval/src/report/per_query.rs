//! Per-query results as JSON lines: one line per row and query, `{"label", "mode", "k",
//! "query", "metrics": {name: value}}` (the scale of the tables: ratios in percent, MRR and nDCG
//! in 0..1; `null` where a metric is undefined for the query). Rows in sweep order, queries in
//! the dataset's order: what paired comparisons, held-out selection or other statistics need.

use crate::result::BenchResult;
use serde_json::{json, Map, Value};

/// The per-query lines of `result` (empty for rows without per-query values).
pub fn render(result: &BenchResult) -> String {
    let mut out = String::new();
    for row in &result.rows {
        let queries = row.per_query.first().map_or(0, |(_, v)| v.len());
        for qi in 0..queries {
            let mut metrics = Map::new();
            for (name, values) in &row.per_query {
                let v = values[qi];
                metrics.insert(
                    name.clone(),
                    if v.is_nan() { Value::Null } else { json!(v) },
                );
            }
            let query = result
                .query_ids
                .get(qi)
                .map_or_else(|| json!(qi), |id| json!(id));
            let line = json!({
                "label": row.label,
                "mode": row.mode,
                "k": row.k,
                "query": query,
                "metrics": metrics,
            });
            out.push_str(&line.to_string());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::separable::tests::three_rows;

    #[test]
    fn one_line_per_row_and_query_with_the_values() {
        let mut r = three_rows();
        r.rows[2].per_query[0].1[5] = f64::NAN;
        let text = render(&r);
        let lines: Vec<Value> = text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines.len(), 3 * 60);
        assert_eq!(lines[0]["label"], "worse");
        assert_eq!(lines[61]["label"], "best");
        assert_eq!(lines[61]["query"], "q1");
        assert_eq!(
            lines[61]["metrics"]["recall"],
            json!(r.rows[1].per_query[0].1[1])
        );
        assert_eq!(lines[125]["metrics"]["recall"], Value::Null);
        assert_eq!(lines[0]["mode"], "dense");
    }
}
