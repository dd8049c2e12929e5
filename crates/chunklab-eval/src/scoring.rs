//! Per-query scores of one configuration's retrieved chunks: every metric of
//! [`METRICS`], from the dataset's labels.

use crate::chunking::EvalChunk;
use crate::dataset::Dataset;
use crate::error::{Error, Result};
use crate::metrics::{chunk_scores, doc_ranking, doc_scores};
use crate::token_metrics::{chroma, chroma_locate_all, chroma_omega, exact, exact_omega, DocRange};
use chunklab_core::document::ParsedDocument;
use rayon::prelude::*;
use std::collections::HashMap;

/// Metric names in report order, with whether they are ratios (shown in percent).
pub const METRICS: &[(&str, bool)] = &[
    ("recall", true),
    ("precision", true),
    ("iou", true),
    ("precision_omega", true),
    ("recall_exact", true),
    ("precision_exact", true),
    ("iou_exact", true),
    ("precision_omega_exact", true),
    ("doc_recall", true),
    ("hit", true),
    ("mrr", false),
    ("ndcg", false),
    ("chunk_recall", true),
    ("chunk_precision", true),
];

/// `Ok` when `name` is one of [`METRICS`]; else a message naming them.
pub fn check_metric(name: &str) -> std::result::Result<(), String> {
    if METRICS.iter().any(|(n, _)| *n == name) {
        return Ok(());
    }
    let known: Vec<&str> = METRICS.iter().map(|(n, _)| *n).collect();
    Err(format!(
        "unknown metric `{name}` (known: {})",
        known.join(", ")
    ))
}

/// The labels of every query, with documents as indices.
pub struct QueryLabels {
    /// Relevant documents of each query (its `relevant_docs` plus the documents of its spans).
    pub docs: Vec<Vec<u32>>,
    /// Relevant spans of each query.
    pub spans: Vec<Vec<DocRange>>,
}

impl QueryLabels {
    /// Resolve the labels of `ds` (unknown documents are an error naming the query).
    pub fn new(ds: &Dataset) -> Result<Self> {
        let index: HashMap<&str, u32> = ds
            .docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.id.as_str(), i as u32))
            .collect();
        let find = |q: &str, d: &str| {
            index.get(d).copied().ok_or_else(|| {
                Error::Dataset(format!("query `{q}` refers to unknown document `{d}`"))
            })
        };
        let mut docs = Vec::new();
        let mut spans = Vec::new();
        for q in &ds.queries {
            let mut rel = Vec::new();
            for d in &q.relevant_docs {
                rel.push(find(&q.id, d)?);
            }
            let mut sp = Vec::new();
            for s in &q.relevant_spans {
                let d = find(&q.id, &s.doc_id)?;
                rel.push(d);
                sp.push(DocRange::new(d, s.start_char, s.end_char));
            }
            rel.sort_unstable();
            rel.dedup();
            docs.push(rel);
            spans.push(sp);
        }
        Ok(Self { docs, spans })
    }

    /// Everything about the collection that does not depend on the retrieval: chunk ranges in
    /// both span modes, relevant chunks and precision_Ω of each query.
    pub fn omega_inputs(&self, chunks: &[EvalChunk], parsed: &[ParsedDocument]) -> Collection {
        let exact_ranges: Vec<DocRange> = chunks
            .iter()
            .map(|c| DocRange::new(c.doc, c.start_char, c.end_char))
            .collect();
        let mut by_doc: HashMap<u32, (usize, usize)> = HashMap::new();
        for (i, c) in chunks.iter().enumerate() {
            by_doc.entry(c.doc).or_insert((i, i)).1 = i + 1;
        }
        // The report's positions: first occurrence of each chunk's text.
        let mut chroma_ranges = exact_ranges.clone();
        let mut not_found = 0;
        let docs: Vec<(u32, (usize, usize))> = by_doc.iter().map(|(d, r)| (*d, *r)).collect();
        type Located = (usize, Vec<Option<(usize, usize)>>);
        let located: Vec<Located> = docs
            .par_iter()
            .map(|&(d, (s, e))| {
                let text = &parsed[d as usize].text;
                let texts: Vec<&str> = chunks[s..e]
                    .iter()
                    .map(|c| &text[c.start_byte..c.end_byte])
                    .collect();
                (s, chroma_locate_all(text, &texts))
            })
            .collect();
        for (s, locs) in located {
            for (i, l) in locs.into_iter().enumerate() {
                match l {
                    Some((a, b)) => {
                        chroma_ranges[s + i].start = a;
                        chroma_ranges[s + i].end = b;
                    }
                    None => not_found += 1,
                }
            }
        }
        let per_query: Vec<QueryCollection> = (0..self.docs.len())
            .into_par_iter()
            .map(|qi| {
                let spans = &self.spans[qi];
                let mut relevant = Vec::new();
                let mut chroma_pool = Vec::new();
                let mut exact_pool = Vec::new();
                for &d in &self.docs[qi] {
                    let Some(&(s, e)) = by_doc.get(&d) else {
                        continue;
                    };
                    for i in s..e {
                        let r = exact_ranges[i];
                        let rel = if spans.is_empty() {
                            true
                        } else {
                            spans
                                .iter()
                                .any(|x| x.doc == r.doc && r.start < x.end && x.start < r.end)
                        };
                        if rel {
                            relevant.push(i as u32);
                        }
                        if spans.iter().any(|x| x.doc == d) {
                            chroma_pool.push(chroma_ranges[i]);
                            exact_pool.push(r);
                        }
                    }
                }
                let (omega_chroma, omega_exact) = if spans.is_empty() {
                    (f64::NAN, f64::NAN)
                } else {
                    (
                        chroma_omega(spans, &chroma_pool).0,
                        exact_omega(spans, &exact_pool).0,
                    )
                };
                QueryCollection {
                    relevant,
                    omega_chroma,
                    omega_exact,
                }
            })
            .collect();
        Collection {
            exact_ranges,
            chroma_ranges,
            not_found,
            per_query,
        }
    }
}

/// Retrieval-independent facts of one query against one collection.
pub struct QueryCollection {
    /// Relevant chunks (sorted chunk numbers).
    pub relevant: Vec<u32>,
    pub omega_chroma: f64,
    pub omega_exact: f64,
}

/// A configuration's collection as the metrics see it.
pub struct Collection {
    pub exact_ranges: Vec<DocRange>,
    /// Positions as the report's pipeline would have recovered them.
    pub chroma_ranges: Vec<DocRange>,
    /// Chunks whose text was not found (never for chunklab's own spans).
    pub not_found: usize,
    pub per_query: Vec<QueryCollection>,
}

/// Every metric of one query, NaN where undefined (no spans, no document labels ...).
#[derive(Debug, Clone)]
pub struct QueryScores {
    values: [f64; 14],
}

impl QueryScores {
    /// A metric by its name in [`METRICS`].
    pub fn get(&self, name: &str) -> f64 {
        METRICS
            .iter()
            .position(|(n, _)| *n == name)
            .map_or(f64::NAN, |i| self.values[i])
    }
}

/// Score query `qi`'s retrieved chunks `hits` (rank order).
pub fn score_query(
    labels: &QueryLabels,
    qi: usize,
    hits: &[u32],
    chunks: &[EvalChunk],
    coll: &Collection,
) -> QueryScores {
    let mut v = [f64::NAN; 14];
    let spans = &labels.spans[qi];
    let pq = &coll.per_query[qi];
    if !spans.is_empty() {
        let chroma_ret: Vec<DocRange> = hits
            .iter()
            .map(|&h| coll.chroma_ranges[h as usize])
            .collect();
        let exact_ret: Vec<DocRange> = hits
            .iter()
            .map(|&h| coll.exact_ranges[h as usize])
            .collect();
        let c = chroma(spans, &chroma_ret);
        let x = exact(spans, &exact_ret);
        v[..8].copy_from_slice(&[
            c.recall,
            c.precision,
            c.iou,
            pq.omega_chroma,
            x.recall,
            x.precision,
            x.iou,
            pq.omega_exact,
        ]);
    }
    let rel_docs = &labels.docs[qi];
    if !rel_docs.is_empty() {
        let docs: Vec<u32> = hits.iter().map(|&h| chunks[h as usize].doc).collect();
        let d = doc_scores(&doc_ranking(&docs), rel_docs);
        v[8..12].copy_from_slice(&[d.recall, d.hit, d.mrr, d.ndcg]);
    }
    let flags: Vec<bool> = hits
        .iter()
        .map(|h| pq.relevant.binary_search(h).is_ok())
        .collect();
    let cs = chunk_scores(&flags, pq.relevant.len());
    v[12] = cs.recall;
    v[13] = cs.precision;
    QueryScores { values: v }
}
