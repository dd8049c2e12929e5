//! Rendering a [`BenchResult`]: a terminal table sorted by a metric with the best row marked
//! ([`table`]), JSON ([`json`]), CSV ([`csv`]), Markdown ([`markdown`]) and a self-contained
//! HTML page with inline SVG charts ([`html`]). Every one marks the rows the ranking metric
//! cannot separate from the best ([`separable`]). [`per_query`] writes each row's value of every
//! metric on every query, for statistics of one's own.

pub mod csv;
pub mod html;
pub mod json;
pub mod markdown;
pub mod per_query;
pub mod separable;
pub mod table;

use crate::result::{BenchResult, Row};

/// The value a row is ranked by: the metric's mean, or −∞ when the row lacks it.
pub fn sort_value(row: &Row, metric: &str) -> f64 {
    row.metric(metric)
        .map(|s| s.mean)
        .filter(|m| !m.is_nan())
        .unwrap_or(f64::NEG_INFINITY)
}

/// Row indices sorted by `metric`, best first (ties keep sweep order).
pub fn ranked(result: &BenchResult, metric: &str) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..result.rows.len()).collect();
    idx.sort_by(|&a, &b| {
        sort_value(&result.rows[b], metric).total_cmp(&sort_value(&result.rows[a], metric))
    });
    idx
}

/// The metric a report ranks by when the user names none: token recall where the dataset has
/// spans, else document recall.
pub fn default_metric(result: &BenchResult) -> &'static str {
    if result.rows.iter().any(|r| r.metric("recall").is_some()) {
        "recall"
    } else {
        "doc_recall"
    }
}

/// The models (or k values) of the rows, joined: one value for a single-model sweep.
pub(crate) fn distinct<T: ToString>(values: impl Iterator<Item = T>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        let s = v.to_string();
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    }
    out
}

/// The columns every tabular report shows, in order: (metric, header).
pub const COLUMNS: &[(&str, &str)] = &[
    ("recall", "recall"),
    ("precision", "prec"),
    ("iou", "IoU"),
    ("precision_omega", "prec_Ω"),
    ("recall_exact", "recall*"),
    ("iou_exact", "IoU*"),
    ("doc_recall", "doc_rec"),
    ("mrr", "MRR"),
    ("ndcg", "nDCG"),
    ("chunk_recall", "chunk_rec"),
];

/// Columns that some row of `result` has.
pub fn present_columns(result: &BenchResult) -> Vec<(&'static str, &'static str)> {
    COLUMNS
        .iter()
        .copied()
        .filter(|(m, _)| result.rows.iter().any(|r| r.metric(m).is_some()))
        .collect()
}

/// `1.2 MB`-style byte counts.
pub fn human_bytes(b: u64) -> String {
    let b = b as f64;
    if b >= 1e9 {
        format!("{:.1} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else if b >= 1e3 {
        format!("{:.0} kB", b / 1e3)
    } else {
        format!("{b:.0} B")
    }
}
