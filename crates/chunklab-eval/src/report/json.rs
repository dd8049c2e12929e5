//! JSON: `{"dataset", "model", "k", "rows": [...]}`. Each row has `label`, `strategy`, `params`,
//! `model`, `mode`, `k`, `metrics` (means; ratios in percent, `mrr`/`ndcg` in 0..1), `ci`
//! (95% bootstrap interval of each mean), `std` and `cost`; against the best row on the ranking
//! metric (`ranked_by`) `best`, `separable_from_best` and `vs_best` ([`super::separable`]); a
//! `hybrid-cv` row also `fusion` (the weights cross-validation chose).

use super::separable::{self, Standing};
use crate::result::BenchResult;
use serde_json::{json, Map, Value};

/// The result as a JSON value, rows compared with the best on the default ranking metric
/// ([`super::default_metric`]).
pub fn to_value(result: &BenchResult) -> Value {
    to_value_ranked(result, super::default_metric(result))
}

/// The result as a JSON value, rows compared with the best on `metric`.
pub fn to_value_ranked(result: &BenchResult, metric: &str) -> Value {
    let standing = separable::standing(result, metric);
    let models = super::distinct(result.rows.iter().map(|r| r.model.clone()));
    let ks = super::distinct(result.rows.iter().map(|r| r.k));
    let rows: Vec<Value> = result
        .rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut metrics = Map::new();
            let mut ci = Map::new();
            let mut std = Map::new();
            for (name, s) in &r.metrics {
                metrics.insert(name.clone(), num(s.mean));
                ci.insert(name.clone(), json!([num(s.lo), num(s.hi)]));
                std.insert(name.clone(), num(s.std));
            }
            let mut row = json!({
                "label": r.label,
                "strategy": r.strategy,
                "params": r.params,
                "model": r.model,
                "mode": r.mode,
                "k": r.k,
                "metrics": metrics,
                "ci": ci,
                "std": std,
                "cost": r.cost,
            });
            add_standing(&mut row, &standing, i);
            if !r.retrieval.is_default() {
                row["retrieval"] = json!(r.retrieval);
            }
            if !r.graph.is_default() {
                row["graph"] = json!(r.graph);
            }
            if let Some(f) = &r.fusion {
                row["fusion"] = json!(f);
            }
            row
        })
        .collect();
    json!({
        "dataset": result.dataset,
        "model": if models.len() == 1 { json!(models[0]) } else { json!(models) },
        "k": if ks.len() == 1 { json!(ks[0].parse::<usize>().unwrap_or(0)) } else { json!(ks.iter().filter_map(|k| k.parse::<usize>().ok()).collect::<Vec<_>>()) },
        "docs": result.docs,
        "queries": result.queries,
        "seconds": (result.seconds * 10.0).round() / 10.0,
        "notes": result.notes,
        "ranked_by": metric,
        "separability": separable::LEGEND,
        "rows": rows,
    })
}

/// `best`, `separable_from_best` (null for the best row and rows without the metric) and
/// `vs_best` (`diff` = row − best with its 95% interval `ci`, `n` queries, `method`).
fn add_standing(row: &mut Value, standing: &Standing, i: usize) {
    row["best"] = json!(standing.best == Some(i));
    match standing.rows[i] {
        Some(v) => {
            row["separable_from_best"] = json!(v.separable);
            row["vs_best"] = json!({
                "diff": num(v.diff.mean),
                "ci": [num(v.diff.lo), num(v.diff.hi)],
                "n": v.diff.n,
                "method": v.method,
            });
        }
        None => row["separable_from_best"] = Value::Null,
    }
}

/// Rounded to 4 decimals; NaN becomes `null`.
fn num(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1e4).round() / 1e4)
    } else {
        Value::Null
    }
}

/// Pretty-printed JSON text (compared on the default ranking metric).
pub fn render(result: &BenchResult) -> String {
    render_ranked(result, super::default_metric(result))
}

/// Pretty-printed JSON text, rows compared with the best on `metric`.
pub fn render_ranked(result: &BenchResult, metric: &str) -> String {
    let mut s = serde_json::to_string_pretty(&to_value_ranked(result, metric)).unwrap_or_default();
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::separable::tests::three_rows;

    #[test]
    fn rows_carry_their_standing() {
        let v = to_value(&three_rows());
        assert_eq!(v["ranked_by"], "recall");
        let rows = v["rows"].as_array().unwrap();
        let by = |l: &str| rows.iter().find(|r| r["label"] == l).unwrap().clone();
        assert_eq!(by("best")["best"], true);
        assert!(by("best")["separable_from_best"].is_null());
        assert_eq!(by("worse")["separable_from_best"], true);
        assert_eq!(by("close")["separable_from_best"], false);
        assert_eq!(by("close")["vs_best"]["method"], "paired");
        assert_eq!(by("worse")["vs_best"]["diff"], -10.0);
        assert!(by("worse")["vs_best"]["ci"][1].as_f64().unwrap() < 0.0);
    }
}
