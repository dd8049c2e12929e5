//! Token-level (really: character-level) span metrics of the Chroma technical report
//! "Evaluating Chunking Strategies for Retrieval": recall, precision, IoU and precision_Ω of the
//! retrieved chunks against the excerpts that answer a query.
//!
//! Two variants:
//! - [`chroma`] / [`chroma_omega`] reproduce the report's code (`base_evaluation.py` of
//!   brandonstarxel/chunking_evaluation) with its quirks: ranges that merely touch count as
//!   intersecting (`<=`), precision divides by the *sum* of the retrieved chunks' lengths (chunks
//!   that overlap each other count twice, chunks of other documents count too), recall divides
//!   by the sum of the excerpts' lengths (overlapping excerpts count twice), and the IoU
//!   denominator is that sum plus the excerpt characters no chunk reached. The chunk positions
//!   the report used were recovered with `str.find`; [`chroma_locate`] reproduces that.
//! - [`exact`] / [`exact_omega`]: the same quantities on unions of exact spans with strict
//!   intersection: recall = |R∩E| / |E|, precision = |R∩E| / |R|, IoU = |R∩E| / |R∪E|, where R is
//!   the union of the retrieved chunks and E the union of the excerpts.
//!
//! All offsets are Unicode scalar (char) offsets into the document text, end exclusive.

/// A char range `[start, end)` in document `doc`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DocRange {
    pub doc: u32,
    pub start: usize,
    pub end: usize,
}

impl DocRange {
    pub fn new(doc: u32, start: usize, end: usize) -> Self {
        Self { doc, start, end }
    }
    fn len(&self) -> usize {
        self.end.saturating_sub(self.start)
    }
}

/// Recall, precision and IoU of one query, as fractions in `[0, 1]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SpanScores {
    pub recall: f64,
    pub precision: f64,
    pub iou: f64,
}

type R = (usize, usize);

/// `intersect_two_ranges`: touching ranges intersect in an empty range.
fn py_intersect(a: R, b: R) -> Option<R> {
    let s = a.0.max(b.0);
    let e = a.1.min(b.1);
    (s <= e).then_some((s, e))
}

/// `union_ranges`: merges overlapping and touching ranges.
fn py_union(mut ranges: Vec<R>) -> Vec<R> {
    if ranges.is_empty() {
        return ranges;
    }
    // Python's sort is stable on the start only.
    ranges.sort_by_key(|r| r.0);
    let mut out = vec![ranges[0]];
    for &(s, e) in &ranges[1..] {
        let last = out.last_mut().unwrap();
        if s <= last.1 {
            last.1 = last.1.max(e);
        } else {
            out.push((s, e));
        }
    }
    out
}

/// `difference`: subtract `t` from every range.
fn py_difference(ranges: &[R], t: R) -> Vec<R> {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    for &(s, e) in ranges {
        if e < t.0 || s > t.1 {
            out.push((s, e));
        } else if s < t.0 && e > t.1 {
            out.push((s, t.0));
            out.push((t.1, e));
        } else if s < t.0 {
            out.push((s, t.0));
        } else if e > t.1 {
            out.push((t.1, e));
        }
    }
    out
}

fn sum(ranges: &[R]) -> usize {
    ranges.iter().map(|r| r.1 - r.0).sum()
}

/// The excerpts of one document, by document, in input order.
fn by_doc(excerpts: &[DocRange]) -> Vec<(u32, Vec<R>)> {
    let mut docs: Vec<(u32, Vec<R>)> = Vec::new();
    for e in excerpts {
        match docs.iter_mut().find(|(d, _)| *d == e.doc) {
            Some((_, v)) => v.push((e.start, e.end)),
            None => docs.push((e.doc, vec![(e.start, e.end)])),
        }
    }
    docs
}

/// Numerator ranges and the excerpt parts no chunk reached, the report's way, for `chunks`
/// against the excerpts of their own document. Returns (numerator per doc, unused, chunk ranges
/// that touched an excerpt, count of touching chunks).
struct ChromaPass {
    numerator: usize,
    unused: Vec<(u32, Vec<R>)>,
    touching_union: usize,
    touching_chunks: usize,
    any_intersection: bool,
}

fn chroma_pass<'a>(
    excerpts: &[DocRange],
    chunks: impl Iterator<Item = &'a DocRange>,
) -> ChromaPass {
    let mut unused = by_doc(excerpts);
    let refs = by_doc(excerpts);
    let mut numerator: Vec<(u32, Vec<R>)> = Vec::new();
    let mut touching: Vec<(u32, Vec<R>)> = Vec::new();
    let mut touching_chunks = 0;
    let mut any = false;
    for c in chunks {
        let Some((_, doc_refs)) = refs.iter().find(|(d, _)| *d == c.doc) else {
            continue;
        };
        let mut contains = false;
        for &r in doc_refs {
            if let Some(inter) = py_intersect((c.start, c.end), r) {
                contains = true;
                any = true;
                let u = &mut unused.iter_mut().find(|(d, _)| *d == c.doc).unwrap().1;
                *u = py_difference(u, inter);
                push_union(&mut numerator, c.doc, inter);
                push_union(&mut touching, c.doc, (c.start, c.end));
            }
        }
        if contains {
            touching_chunks += 1;
        }
    }
    ChromaPass {
        numerator: numerator.iter().map(|(_, v)| sum(v)).sum(),
        touching_union: 0,
        unused,
        touching_chunks,
        any_intersection: any,
    }
    .with_touching(touching)
}

impl ChromaPass {
    fn with_touching(mut self, touching: Vec<(u32, Vec<R>)>) -> Self {
        // Omega's denominator: union of touching chunks and unused excerpt parts, per document.
        let mut total = 0;
        let mut docs: Vec<u32> = touching.iter().map(|(d, _)| *d).collect();
        docs.extend(self.unused.iter().map(|(d, _)| *d));
        docs.sort_unstable();
        docs.dedup();
        for d in docs {
            let mut all: Vec<R> = Vec::new();
            if let Some((_, t)) = touching.iter().find(|(x, _)| *x == d) {
                all.extend(t);
            }
            if let Some((_, u)) = self.unused.iter().find(|(x, _)| *x == d) {
                all.extend(u);
            }
            total += sum(&py_union(all));
        }
        self.touching_union = total;
        self
    }
}

fn push_union(sets: &mut Vec<(u32, Vec<R>)>, doc: u32, r: R) {
    match sets.iter_mut().find(|(d, _)| *d == doc) {
        Some((_, v)) => {
            v.push(r);
            *v = py_union(std::mem::take(v));
        }
        None => sets.push((doc, vec![r])),
    }
}

fn ratio(num: usize, den: usize) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// The report's recall, precision and IoU of the `retrieved` chunks (top k, in rank order, with
/// the positions the report would have recovered) against the `excerpts` of one query.
///
/// ```
/// use chunklab_eval::token_metrics::{chroma, DocRange};
/// // Excerpt 10..20; one chunk 0..15 covers half of it, one chunk of another document misses.
/// let s = chroma(&[DocRange::new(0, 10, 20)], &[DocRange::new(0, 0, 15), DocRange::new(1, 0, 25)]);
/// assert_eq!(s.recall, 0.5);
/// assert_eq!(s.precision, 5.0 / 40.0);
/// assert_eq!(s.iou, 5.0 / 45.0);
/// ```
pub fn chroma(excerpts: &[DocRange], retrieved: &[DocRange]) -> SpanScores {
    let pass = chroma_pass(excerpts, retrieved.iter());
    let recall_den: usize = excerpts.iter().map(DocRange::len).sum();
    let precision_den: usize = retrieved.iter().map(DocRange::len).sum();
    let unused: usize = pass.unused.iter().map(|(_, v)| sum(v)).sum();
    SpanScores {
        recall: ratio(pass.numerator, recall_den),
        precision: ratio(pass.numerator, precision_den),
        iou: ratio(pass.numerator, precision_den + unused),
    }
}

/// The report's precision_Ω: IoU over every chunk of the collection that touches an excerpt
/// (`all_chunks` may hold chunks of every document; only those of the excerpts' documents
/// matter). Also returns how many chunks touch an excerpt (the report's "Min" retrieval).
pub fn chroma_omega(excerpts: &[DocRange], all_chunks: &[DocRange]) -> (f64, usize) {
    let pass = chroma_pass(excerpts, all_chunks.iter());
    let omega = if pass.any_intersection {
        ratio(pass.numerator, pass.touching_union)
    } else {
        0.0
    };
    (omega, pass.touching_chunks)
}

/// Union of the ranges of each document, sorted; strict (touching ranges merge, which does not
/// change the covered length).
fn union_by_doc(ranges: impl Iterator<Item = DocRange>) -> Vec<DocRange> {
    let mut v: Vec<DocRange> = ranges.filter(|r| r.end > r.start).collect();
    v.sort();
    let mut out: Vec<DocRange> = Vec::with_capacity(v.len());
    for r in v {
        match out.last_mut() {
            Some(last) if last.doc == r.doc && r.start <= last.end => {
                last.end = last.end.max(r.end)
            }
            _ => out.push(r),
        }
    }
    out
}

/// Covered length of the intersection of two sorted unions.
fn intersection_len(a: &[DocRange], b: &[DocRange]) -> usize {
    let (mut i, mut j, mut total) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        let (x, y) = (a[i], b[j]);
        if (x.doc, x.end) <= (y.doc, y.start) {
            i += 1;
            continue;
        }
        if (y.doc, y.end) <= (x.doc, x.start) {
            j += 1;
            continue;
        }
        total += x.end.min(y.end) - x.start.max(y.start);
        if (x.doc, x.end) < (y.doc, y.end) {
            i += 1;
        } else {
            j += 1;
        }
    }
    total
}

fn total_len(a: &[DocRange]) -> usize {
    a.iter().map(DocRange::len).sum()
}

/// Corrected recall, precision and IoU on unions of exact spans, strict intersection.
///
/// ```
/// use chunklab_eval::token_metrics::{exact, DocRange};
/// // Two overlapping chunks 0..15 and 5..20 cover the excerpt 10..20: recall 1, and the union
/// // 0..20 (not the 30 chars of their sum) is precision's denominator.
/// let s = exact(&[DocRange::new(0, 10, 20)], &[DocRange::new(0, 0, 15), DocRange::new(0, 5, 20)]);
/// assert_eq!((s.recall, s.precision, s.iou), (1.0, 0.5, 0.5));
/// ```
pub fn exact(excerpts: &[DocRange], retrieved: &[DocRange]) -> SpanScores {
    let e = union_by_doc(excerpts.iter().copied());
    let r = union_by_doc(retrieved.iter().copied());
    let inter = intersection_len(&e, &r);
    let (el, rl) = (total_len(&e), total_len(&r));
    SpanScores {
        recall: ratio(inter, el),
        precision: ratio(inter, rl),
        iou: ratio(inter, el + rl - inter),
    }
}

/// Corrected precision_Ω: IoU of the union of every chunk that strictly overlaps an excerpt.
/// Also returns how many chunks overlap an excerpt.
pub fn exact_omega(excerpts: &[DocRange], all_chunks: &[DocRange]) -> (f64, usize) {
    let e = union_by_doc(excerpts.iter().copied());
    let touching: Vec<DocRange> = all_chunks
        .iter()
        .filter(|c| {
            e.iter()
                .any(|x| x.doc == c.doc && c.start < x.end && x.start < c.end)
        })
        .copied()
        .collect();
    let n = touching.len();
    (exact(excerpts, &touching).iou, n)
}

/// Where the report's pipeline put a chunk: the first occurrence in the document of the chunk
/// text, after dropping one trailing `.` (its `rigorous_document_search` strips it before
/// `str.find`). Returns char offsets, or `None` when the text does not occur (a chunk whose
/// text is not a substring, which chunklab never produces). This is the one place chunklab
/// searches for chunk text, and only to reproduce the report's numbers.
pub fn chroma_locate(doc_text: &str, chunk_text: &str) -> Option<(usize, usize)> {
    let target = chunk_text.strip_suffix('.').unwrap_or(chunk_text);
    let byte = memchr::memmem::find(doc_text.as_bytes(), target.as_bytes())?;
    let start = doc_text[..byte].chars().count();
    Some((start, start + target.chars().count()))
}

/// [`chroma_locate`] for many chunks of one document, converting byte offsets to char offsets
/// with one forward pass (chunks are usually found in order).
pub fn chroma_locate_all(doc_text: &str, chunk_texts: &[&str]) -> Vec<Option<(usize, usize)>> {
    let finder_hits: Vec<Option<(usize, usize)>> = chunk_texts
        .iter()
        .map(|t| {
            let target = t.strip_suffix('.').unwrap_or(t);
            memchr::memmem::find(doc_text.as_bytes(), target.as_bytes())
                .map(|b| (b, b + target.len()))
        })
        .collect();
    let mut offsets: Vec<usize> = finder_hits
        .iter()
        .flatten()
        .flat_map(|&(s, e)| [s, e])
        .collect();
    offsets.sort_unstable();
    offsets.dedup();
    let mut chars = std::collections::HashMap::with_capacity(offsets.len());
    let (mut byte, mut ch) = (0usize, 0usize);
    let mut it = doc_text.char_indices().peekable();
    for off in offsets {
        while byte < off {
            match it.next() {
                Some((_, c)) => {
                    byte += c.len_utf8();
                    ch += 1;
                }
                None => break,
            }
        }
        chars.insert(off, ch);
    }
    finder_hits
        .into_iter()
        .map(|h| h.map(|(s, e)| (chars[&s], chars[&e])))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(doc: u32, s: usize, e: usize) -> DocRange {
        DocRange::new(doc, s, e)
    }

    #[test]
    fn chroma_hand_computed_example() {
        // Excerpts 100..150 and 300..320 in doc 0.
        let ex = [d(0, 100, 150), d(0, 300, 320)];
        // Retrieved: 80..120 (20 in), 110..160 (overlaps the first chunk: 10 new), a chunk of
        // doc 1 (length 50), 320..400 (touches the second excerpt only), 500..510.
        let ret = [
            d(0, 80, 120),
            d(0, 110, 160),
            d(1, 100, 150),
            d(0, 320, 400),
            d(0, 500, 510),
        ];
        let s = chroma(&ex, &ret);
        // numerator = |80..120 ∩ 100..150| ∪ |110..160 ∩ 100..150| = 100..150 = 50
        assert_eq!(s.recall, 50.0 / 70.0);
        // precision denominator: 40 + 50 + 50 + 80 + 10 = 230 (a sum, not a union)
        assert_eq!(s.precision, 50.0 / 230.0);
        // unused: 300..320 untouched (the touching chunk subtracts an empty range) = 20
        assert_eq!(s.iou, 50.0 / 250.0);
        let x = exact(&ex, &ret);
        // exact: R = 80..160 ∪ 320..400 ∪ 500..510 in doc 0 + 100..150 in doc 1 = 80+80+10+50
        assert_eq!(x.recall, 50.0 / 70.0);
        assert_eq!(x.precision, 50.0 / 220.0);
        assert_eq!(x.iou, 50.0 / (70.0 + 220.0 - 50.0));
    }

    #[test]
    fn chroma_counts_overlapping_excerpts_twice_in_recall() {
        let ex = [d(0, 0, 10), d(0, 5, 15)];
        let ret = [d(0, 0, 20)];
        assert_eq!(chroma(&ex, &ret).recall, 15.0 / 20.0);
        assert_eq!(exact(&ex, &ret).recall, 1.0);
    }

    #[test]
    fn chroma_omega_includes_touching_chunks() {
        // Chunks 0..10, 10..20, 20..30; excerpt 10..20 exactly equals the middle chunk.
        let chunks = [d(0, 0, 10), d(0, 10, 20), d(0, 20, 30), d(1, 10, 20)];
        let ex = [d(0, 10, 20)];
        let (omega, n) = chroma_omega(&ex, &chunks);
        // All three chunks of doc 0 touch it: denominator = union 0..30.
        assert_eq!(n, 3);
        assert_eq!(omega, 10.0 / 30.0);
        let (omega, n) = exact_omega(&ex, &chunks);
        assert_eq!((omega, n), (1.0, 1));
    }

    #[test]
    fn chroma_omega_with_no_chunk_is_zero() {
        assert_eq!(chroma_omega(&[d(0, 5, 9)], &[d(1, 0, 100)]), (0.0, 0));
        assert_eq!(exact_omega(&[d(0, 5, 9)], &[]), (0.0, 0));
    }

    #[test]
    fn unreached_excerpt_parts_enlarge_iou_denominator() {
        let ex = [d(0, 0, 100)];
        let ret = [d(0, 90, 110)];
        let s = chroma(&ex, &ret);
        assert_eq!((s.recall, s.precision), (0.1, 0.5));
        // 20 (sum of chunks) + 90 unreached
        assert_eq!(s.iou, 10.0 / 110.0);
        assert_eq!(exact(&ex, &ret).iou, 10.0 / 110.0);
    }

    #[test]
    fn empty_inputs_score_zero() {
        let z = chroma(&[], &[]);
        assert_eq!((z.recall, z.precision, z.iou), (0.0, 0.0, 0.0));
        let z = exact(&[d(0, 1, 2)], &[]);
        assert_eq!((z.recall, z.precision, z.iou), (0.0, 0.0, 0.0));
    }

    #[test]
    fn locate_finds_first_occurrence_and_drops_trailing_dot() {
        let doc = "é ab. xy ab. z";
        assert_eq!(chroma_locate(doc, "ab."), Some((2, 4)));
        assert_eq!(chroma_locate(doc, "xy ab."), Some((6, 11)));
        assert_eq!(chroma_locate(doc, "nope"), None);
        // A repeated chunk gets the first occurrence's offsets.
        let all = chroma_locate_all(doc, &["ab.", "xy", "z", "nope", "é"]);
        assert_eq!(
            all,
            vec![
                Some((2, 4)),
                Some((6, 8)),
                Some((13, 14)),
                None,
                Some((0, 1))
            ]
        );
    }
}
