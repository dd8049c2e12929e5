//! CSV: one line per row; metric columns hold means (ratios in percent) with `_lo`/`_hi`
//! columns for the 95% bootstrap interval; params as compact JSON.

use crate::result::BenchResult;
use crate::scoring::METRICS;

/// Render CSV with a header line.
pub fn render(result: &BenchResult) -> String {
    let metrics: Vec<&str> = METRICS
        .iter()
        .map(|(m, _)| *m)
        .filter(|m| result.rows.iter().any(|r| r.metric(m).is_some()))
        .collect();
    let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
    let mut header: Vec<String> = [
        "dataset", "label", "strategy", "params", "model", "mode", "k",
    ]
    .map(String::from)
    .to_vec();
    for m in &metrics {
        header.extend([m.to_string(), format!("{m}_lo"), format!("{m}_hi")]);
    }
    header.extend(
        [
            "chunks",
            "mean_tokens",
            "max_tokens",
            "tokens_embedded",
            "truncated",
            "index_bytes",
            "chunk_ms",
            "index_ms",
            "embed_ms",
            "query_p50_ms",
            "query_p95_ms",
            "prompt_tokens",
        ]
        .map(String::from),
    );
    let _ = w.write_record(&header);
    for r in &result.rows {
        let mut rec = vec![
            result.dataset.clone(),
            r.label.clone(),
            r.strategy.clone(),
            serde_json::Value::Object(r.params.clone()).to_string(),
            r.model.clone(),
            r.mode.name().to_string(),
            r.k.to_string(),
        ];
        for m in &metrics {
            match r.metric(m) {
                Some(s) => rec.extend([f(s.mean), f(s.lo), f(s.hi)]),
                None => rec.extend([String::new(), String::new(), String::new()]),
            }
        }
        let c = &r.cost;
        rec.extend([
            c.chunks.to_string(),
            f(c.mean_tokens),
            c.max_tokens.to_string(),
            c.tokens_embedded.to_string(),
            c.truncated.to_string(),
            c.index_bytes.to_string(),
            f(c.chunk_ms),
            f(c.index_ms),
            f(c.embed_ms),
            f(c.query_p50_ms),
            f(c.query_p95_ms),
            f(c.prompt_tokens),
        ]);
        let _ = w.write_record(&rec);
    }
    String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
}

fn f(x: f64) -> String {
    if x.is_finite() {
        format!("{:.4}", x)
    } else {
        String::new()
    }
}
