//! Which rows the ranking metric cannot tell apart from the best one.
//!
//! Every row is compared with the best row (the first of [`super::ranked`]) by the difference
//! of their per-query values, `row − best`: a percentile bootstrap of its mean that resamples
//! queries, the same query indices for both rows (a *paired* bootstrap: the variation between
//! easy and hard queries, which both rows share, cancels). A row is *separable* from the best
//! when the 95% interval of that difference lies below 0, and *not separable* (marked
//! [`MARK`]) otherwise. A row without per-query values (one not measured in this process)
//! falls back to its summary: separable when its interval lies entirely below the best's.

use super::ranked;
use crate::bootstrap::{paired_difference, Summary};
use crate::result::{BenchResult, Row};
use serde::Serialize;

/// The mark of a row not separable from the best.
pub const MARK: &str = "≈";

/// The legend line the reports print under a table that has a [`MARK`].
pub const LEGEND: &str = "≈ not separable from the best: the 95% paired-bootstrap interval of the per-query difference to the best row (same queries, same resamples) includes 0";

/// Seed of the paired resamples: the same for every row, so every comparison draws the same
/// query indices.
pub const SEED: u64 = 0x5E9A_2A7E;

/// How a row was compared with the best.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Method {
    /// Paired bootstrap of the per-query difference.
    Paired,
    /// The rows' own intervals (no per-query values): `lo`/`hi` of the difference are
    /// `row.lo − best.hi` and `row.hi − best.lo`.
    Overlap,
}

/// A row against the best row on the ranking metric.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VsBest {
    /// `row − best`: mean and 95% interval (`n`: the queries both rows are defined for).
    pub diff: Summary,
    /// Whether the interval of the difference lies below 0.
    pub separable: bool,
    pub method: Method,
}

/// Every row's standing on `metric`: the best row's index, and for every other row that has
/// the metric its comparison with the best.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    pub best: Option<usize>,
    /// Indexed like `result.rows`; `None` for the best row and rows without the metric.
    pub rows: Vec<Option<VsBest>>,
}

impl Standing {
    /// Whether row `i` is not separable from the best (the best row itself is not marked).
    pub fn not_separable(&self, i: usize) -> bool {
        matches!(self.rows.get(i), Some(Some(v)) if !v.separable)
    }

    /// Whether some row is marked.
    pub fn any_marked(&self) -> bool {
        (0..self.rows.len()).any(|i| self.not_separable(i))
    }

    /// The mark of row `i`: `best` for the best row, [`MARK`] when not separable, else "".
    pub fn mark<'a>(&self, i: usize, best: &'a str) -> &'a str {
        if self.best == Some(i) {
            best
        } else if self.not_separable(i) {
            MARK
        } else {
            ""
        }
    }
}

/// Compare every row of `result` with the best row on `metric`.
pub fn standing(result: &BenchResult, metric: &str) -> Standing {
    let best = ranked(result, metric)
        .into_iter()
        .next()
        .filter(|&i| has_metric(&result.rows[i], metric));
    let rows = (0..result.rows.len())
        .map(|i| match best {
            Some(b) if b != i && has_metric(&result.rows[i], metric) => {
                Some(compare(&result.rows[i], &result.rows[b], metric))
            }
            _ => None,
        })
        .collect();
    Standing { best, rows }
}

fn has_metric(r: &Row, metric: &str) -> bool {
    r.metric(metric).is_some_and(|s| s.mean.is_finite())
}

/// `row` against `best` on `metric` (both have it).
pub fn compare(row: &Row, best: &Row, metric: &str) -> VsBest {
    match (row.per_query(metric), best.per_query(metric)) {
        (Some(a), Some(b)) if a.len() == b.len() && !a.is_empty() => {
            let diff = paired_difference(a, b, SEED);
            VsBest {
                separable: diff.hi < 0.0,
                diff,
                method: Method::Paired,
            }
        }
        _ => {
            let (r, b) = (row.metric(metric).unwrap(), best.metric(metric).unwrap());
            let diff = Summary {
                mean: r.mean - b.mean,
                std: f64::NAN,
                lo: r.lo - b.hi,
                hi: r.hi - b.lo,
                n: r.n.min(b.n),
            };
            VsBest {
                separable: diff.hi < 0.0,
                diff,
                method: Method::Overlap,
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::bootstrap::summarize;
    use crate::result::{Cost, Row};
    use crate::sweep::Mode;

    /// A row whose `recall` is `values` (in percent), summarized as the run does.
    pub(crate) fn row(label: &str, values: &[f64]) -> Row {
        Row {
            label: label.into(),
            strategy: "fixed".into(),
            params: Default::default(),
            model: "minilm".into(),
            mode: Mode::Dense,
            k: 5,
            retrieval: Default::default(),
            graph: Default::default(),
            metrics: vec![("recall".into(), summarize(values, 0x5EED))],
            cost: Cost::default(),
            per_query: vec![("recall".into(), values.to_vec())],
            fusion: None,
        }
    }

    /// Three rows over the same 60 queries of mixed difficulty: the best; one 40 points lower
    /// on 20 of them (separable); one that differs from the best on two queries, once up and
    /// once down (not separable).
    pub(crate) fn three_rows() -> BenchResult {
        let best: Vec<f64> = (0..60).map(|i| [100.0, 80.0, 50.0, 0.0][i % 4]).collect();
        let worse: Vec<f64> = best
            .iter()
            .enumerate()
            .map(|(i, v)| {
                if i % 3 == 0 {
                    (v - 40.0_f64).max(0.0)
                } else {
                    *v
                }
            })
            .collect();
        let mut close = best.clone();
        close[1] = 50.0;
        close[3] = 20.0;
        BenchResult {
            dataset: "hand-made".into(),
            docs: 3,
            queries: 60,
            rows: vec![
                row("worse", &worse),
                row("best", &best),
                row("close", &close),
            ],
            query_ids: (0..60).map(|i| format!("q{i}")).collect(),
            notes: Vec::new(),
            seconds: 1.0,
        }
    }

    #[test]
    fn one_row_separable_one_not() {
        let r = three_rows();
        let s = standing(&r, "recall");
        assert_eq!(s.best, Some(1));
        let worse = s.rows[0].unwrap();
        assert_eq!(worse.method, Method::Paired);
        assert!(worse.separable && worse.diff.hi < 0.0, "{worse:?}");
        let close = s.rows[2].unwrap();
        assert!(!close.separable && close.diff.lo < 0.0, "{close:?}");
        assert!(s.rows[1].is_none());
        assert_eq!(
            (s.mark(0, "*"), s.mark(1, "*"), s.mark(2, "*")),
            ("", "*", MARK)
        );
    }

    #[test]
    fn paired_separates_what_interval_overlap_cannot() {
        // 3 points lower on every query: the two means' intervals overlap (queries vary a lot),
        // the paired difference is −3 on every resample.
        let best: Vec<f64> = (0..40).map(|i| [100.0, 60.0, 30.0, 10.0][i % 4]).collect();
        let lower: Vec<f64> = best.iter().map(|v| v - 3.0).collect();
        let mut r = BenchResult {
            dataset: "hand-made".into(),
            docs: 1,
            queries: 40,
            rows: vec![row("best", &best), row("lower", &lower)],
            query_ids: Vec::new(),
            notes: Vec::new(),
            seconds: 0.0,
        };
        let v = standing(&r, "recall").rows[1].unwrap();
        assert!(v.separable && v.method == Method::Paired, "{v:?}");
        // Without per-query values the rows fall back to their intervals, which overlap.
        for row in &mut r.rows {
            row.per_query.clear();
        }
        let v = standing(&r, "recall").rows[1].unwrap();
        assert!(!v.separable && v.method == Method::Overlap, "{v:?}");
        assert!((v.diff.mean + 3.0).abs() < 1e-9);
    }

    #[test]
    fn a_metric_no_row_has_marks_nothing() {
        let s = standing(&three_rows(), "iou");
        assert_eq!(s.best, None);
        assert!(!s.any_marked());
    }
}
