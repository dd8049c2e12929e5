//! JSON: `{"dataset", "model", "k", "rows": [...]}`. Each row has `label`, `strategy`, `params`,
//! `model`, `mode`, `k`, `metrics` (means; ratios in percent, `mrr`/`ndcg` in 0..1), `ci`
//! (95% bootstrap interval of each mean), `std` and `cost`.

use crate::result::BenchResult;
use serde_json::{json, Map, Value};

/// The result as a JSON value.
pub fn to_value(result: &BenchResult) -> Value {
    let models = super::distinct(result.rows.iter().map(|r| r.model.clone()));
    let ks = super::distinct(result.rows.iter().map(|r| r.k));
    let rows: Vec<Value> = result
        .rows
        .iter()
        .map(|r| {
            let mut metrics = Map::new();
            let mut ci = Map::new();
            let mut std = Map::new();
            for (name, s) in &r.metrics {
                metrics.insert(name.clone(), num(s.mean));
                ci.insert(name.clone(), json!([num(s.lo), num(s.hi)]));
                std.insert(name.clone(), num(s.std));
            }
            json!({
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
            })
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
        "rows": rows,
    })
}

/// Rounded to 4 decimals; NaN becomes `null`.
fn num(x: f64) -> Value {
    if x.is_finite() {
        json!((x * 1e4).round() / 1e4)
    } else {
        Value::Null
    }
}

/// Pretty-printed JSON text.
pub fn render(result: &BenchResult) -> String {
    let mut s = serde_json::to_string_pretty(&to_value(result)).unwrap_or_default();
    s.push('\n');
    s
}
