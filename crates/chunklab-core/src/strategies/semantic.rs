//! `semantic`: cut where the meaning changes (Kamradt's semantic chunking, as in LangChain's
//! `SemanticChunker`).
//!
//! The text is split into sentences (English/Dutch rules, [`crate::segment::sentences`]). Each
//! sentence is embedded together with `buffer` sentences on each side (a window of the original
//! text), every distinct window once. The cosine distance between neighbouring windows is
//! computed, and a sentence ends a group where the distance to the next is above the threshold
//! of the [`Breakpoint`] method (LangChain's definitions: a percentile of the distances, mean +
//! n standard deviations, mean + n interquartile ranges, or a percentile of the distances'
//! gradient). Groups smaller than `min_size` are then merged into the neighbour they are most
//! similar to while the limit holds, and a group over the limit is cut with the native
//! `recursive` strategy inside its span. The size limit is a hard guarantee: every chunk's real
//! size is counted. A chunk still under `min_size` (but the document's last) then takes its
//! neighbour, or units from it, where the limit allows.
//!
//! On a parsed document ([`Chunker::chunk_parsed`]) the sentences respect its elements: a
//! heading is a unit of its own, never split and never the end of a chunk (it goes with its
//! section); units end where elements end; inline links and code spans are never cut.

use super::groups::{embed_all, may_end, units_of, BoundedEmitter, Unit};
use super::Recursive;
use crate::chunk::{ChunkMeta, Span};
use crate::chunker::{Chunker, Locator};
use crate::config::Breakpoint;
use crate::document::ParsedDocument;
use crate::error::{param_err, Error, Result};
use crate::lang::Lang;
use crate::segment::sentences;
use crate::sizer::{Measure, Sizer, MAX_DOCUMENT_BYTES};
use crate::text::strip_span;
use crate::text_embedder::{dot, TextEmbedder};
use std::sync::Arc;

/// Most sentences `buffer` may join on each side.
pub const MAX_BUFFER: usize = 16;

/// Semantic splitting at a size limit.
///
/// ```
/// use chunklab_core::{strategies::Semantic, CharSizer, Chunker, Lang, TextEmbedder};
/// use std::sync::Arc;
/// /// Toy vectors: wind or sun.
/// struct Topic;
/// impl TextEmbedder for Topic {
///     fn name(&self) -> &str { "topic" }
///     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
///         Ok(texts.iter().map(|t| if t.contains("wind") { vec![1.0, 0.0] } else { vec![0.0, 1.0] }).collect())
///     }
/// }
/// let text = "De wind waait. De windmolens draaien. De zon schijnt. Panelen gloeien.";
/// let chunker = Semantic::new(Arc::new(CharSizer), 100, Arc::new(Topic), Lang::Dutch)
///     .unwrap()
///     .with_buffer(0)
///     .unwrap();
/// let texts: Vec<_> = chunker.spans(text).unwrap().iter().map(|s| &text[s.start..s.end]).collect();
/// assert_eq!(texts, ["De wind waait. De windmolens draaien.", "De zon schijnt. Panelen gloeien."]);
/// ```
#[derive(Debug)]
pub struct Semantic {
    sizer: Arc<dyn Sizer>,
    size: usize,
    embedder: Arc<dyn TextEmbedder>,
    lang: Lang,
    breakpoint: Breakpoint,
    amount: f64,
    buffer: usize,
    min_size: usize,
    recursive: Recursive,
}

impl Semantic {
    /// Chunks of at most `size` units, cut at percentile-95 breakpoints with a buffer of one
    /// sentence on each side and no minimum size.
    pub fn new(
        sizer: Arc<dyn Sizer>,
        size: usize,
        embedder: Arc<dyn TextEmbedder>,
        lang: Lang,
    ) -> Result<Self> {
        if size == 0 {
            return param_err("size", "must be at least 1");
        }
        Ok(Self {
            recursive: Recursive::new(sizer.clone(), size, 0)?,
            sizer,
            size,
            embedder,
            lang,
            breakpoint: Breakpoint::Percentile,
            amount: Breakpoint::Percentile.default_amount(),
            buffer: 1,
            min_size: 0,
        })
    }

    /// Use `breakpoint` with `amount` (its default when `None`). A percentile must lie in
    /// 0..=100; other amounts must be finite numbers from -100 to 100.
    pub fn with_breakpoint(mut self, breakpoint: Breakpoint, amount: Option<f64>) -> Result<Self> {
        let amount = amount.unwrap_or(breakpoint.default_amount());
        let percentile = matches!(breakpoint, Breakpoint::Percentile | Breakpoint::Gradient);
        if percentile && !(0.0..=100.0).contains(&amount) {
            return param_err(
                "breakpoint_amount",
                format!("{amount} is not a percentile; give a number from 0 to 100 (default 95)"),
            );
        }
        if !percentile && !(-100.0..=100.0).contains(&amount) {
            return param_err(
                "breakpoint_amount",
                format!(
                    "{amount} for breakpoint {} must be a number from -100 to 100 (default {})",
                    breakpoint.name(),
                    breakpoint.default_amount()
                ),
            );
        }
        self.breakpoint = breakpoint;
        self.amount = amount;
        Ok(self)
    }

    /// Embed each sentence with `buffer` sentences on each side (0 = the sentence alone); at
    /// most `MAX_BUFFER`.
    pub fn with_buffer(mut self, buffer: usize) -> Result<Self> {
        if buffer > MAX_BUFFER {
            return param_err(
                "buffer",
                format!("{buffer} is too large; at most {MAX_BUFFER} sentences on each side"),
            );
        }
        self.buffer = buffer;
        Ok(self)
    }

    /// Merge groups smaller than `min_size` units into a neighbour while the limit holds
    /// (`None` or 0: no minimum). Must not exceed the size limit.
    pub fn with_min_size(mut self, min_size: Option<usize>) -> Result<Self> {
        let min = min_size.unwrap_or(0);
        if min > self.size {
            return param_err(
                "min_size",
                format!("{min} must not exceed the size limit ({})", self.size),
            );
        }
        self.min_size = min;
        Ok(self)
    }

    /// Cosine distance between each sentence's window and the next one's.
    fn distances(&self, text: &str, sents: &[(usize, usize)]) -> Result<Vec<f64>> {
        let n = sents.len();
        let windows: Vec<&str> = (0..n)
            .map(|i| {
                let a = i.saturating_sub(self.buffer);
                let b = (i + self.buffer).min(n - 1);
                &text[sents[a].0..sents[b].1]
            })
            .collect();
        let vectors = embed_all(self.embedder.as_ref(), &windows)?;
        Ok(vectors
            .windows(2)
            .map(|w| 1.0 - dot(&w[0], &w[1]) as f64)
            .collect())
    }

    /// Groups of sentences (first, last) after the breakpoints and the minimum-size merging.
    /// No group ends at a heading unit.
    fn groups(
        &self,
        text: &str,
        measure: &Measure,
        units: &[Unit],
        distances: &[f64],
    ) -> Vec<(usize, usize)> {
        let sents: Vec<(usize, usize)> = units.iter().map(|u| (u.start, u.end)).collect();
        let mut cuts = breakpoints(self.breakpoint, self.amount, distances);
        cuts.retain(|&c| may_end(units, c));
        let mut groups = Vec::with_capacity(cuts.len() + 1);
        let mut first = 0;
        for cut in cuts {
            groups.push((first, cut));
            first = cut + 1;
        }
        groups.push((first, sents.len() - 1));
        if self.min_size == 0 {
            return groups;
        }
        let units = |a: usize, b: usize| measure.units_between(text, sents[a].0, sents[b].1);
        let mut i = 0;
        while i < groups.len() {
            let (a, b) = groups[i];
            if units(a, b) >= self.min_size {
                i += 1;
                continue;
            }
            let left = (i > 0 && units(groups[i - 1].0, b) <= self.size)
                .then(|| distances[groups[i - 1].1]);
            let right = (i + 1 < groups.len() && units(a, groups[i + 1].1) <= self.size)
                .then(|| distances[b]);
            match (left, right) {
                (Some(l), r) if r.is_none_or(|r| l <= r) => {
                    groups[i - 1].1 = b;
                    groups.remove(i);
                    i -= 1;
                }
                (_, Some(_)) => {
                    groups[i].1 = groups[i + 1].1;
                    groups.remove(i + 1);
                }
                (_, None) => i += 1,
            }
        }
        groups
    }
}

/// Indices `i` of the distances where a group ends after sentence `i`: the values (distances,
/// or their gradient for [`Breakpoint::Gradient`]) above the method's threshold, as LangChain's
/// `SemanticChunker` computes it.
fn breakpoints(method: Breakpoint, amount: f64, distances: &[f64]) -> Vec<usize> {
    if distances.is_empty() {
        return Vec::new();
    }
    let gradient;
    let values = match method {
        Breakpoint::Gradient => {
            if distances.len() < 2 {
                return Vec::new();
            }
            gradient = numpy_gradient(distances);
            &gradient
        }
        _ => distances,
    };
    let threshold = match method {
        Breakpoint::Percentile | Breakpoint::Gradient => percentile(values, amount),
        Breakpoint::StdDev => {
            let mean = mean(values);
            let var = values.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / values.len() as f64;
            mean + amount * var.sqrt()
        }
        Breakpoint::Interquartile => {
            let iqr = percentile(values, 75.0) - percentile(values, 25.0);
            mean(values) + amount * iqr
        }
    };
    values
        .iter()
        .enumerate()
        .filter(|(_, &v)| v > threshold)
        .map(|(i, _)| i)
        .collect()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// `numpy.percentile` with linear interpolation; `values` must not be empty.
fn percentile(values: &[f64], p: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let pos = p / 100.0 * (sorted.len() - 1) as f64;
    let lo = pos.floor() as usize;
    let hi = pos.ceil() as usize;
    sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo as f64)
}

/// `numpy.gradient` with unit spacing: central differences inside, one-sided at the ends.
/// `values` has at least 2 elements.
fn numpy_gradient(values: &[f64]) -> Vec<f64> {
    let n = values.len();
    (0..n)
        .map(|i| match i {
            0 => values[1] - values[0],
            _ if i == n - 1 => values[n - 1] - values[n - 2],
            _ => (values[i + 1] - values[i - 1]) / 2.0,
        })
        .collect()
}

impl Chunker for Semantic {
    fn strategy(&self) -> &'static str {
        "semantic"
    }

    fn config(&self) -> String {
        format!(
            "semantic size={} breakpoint={}:{} buffer={} min={} lang={} unit={} model={}",
            self.size,
            self.breakpoint.name(),
            self.amount,
            self.buffer,
            self.min_size,
            self.lang.code(),
            self.sizer.name(),
            self.embedder.name()
        )
    }

    fn spans(&self, text: &str) -> Result<Vec<Span>> {
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(text.len()));
        }
        let lang = self.lang.resolve(text);
        let units: Vec<Unit> = sentences(text, lang)
            .into_iter()
            .map(|(s, e)| strip_span(text, s, e))
            .filter(|(s, e)| s < e)
            .map(|(start, end)| Unit {
                start,
                end,
                heading: false,
            })
            .collect();
        self.chunk_units(text, &units, false)
    }

    /// Sentences that respect the document's elements (see the module notes), then as
    /// [`Chunker::spans`], with the page span and source lines of each chunk.
    fn chunk_parsed(&self, doc: &ParsedDocument) -> Result<Vec<(Span, ChunkMeta)>> {
        let text = doc.text.as_str();
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(text.len()));
        }
        let lang = self.lang.resolve(text);
        let units = units_of(doc, sentences(text, lang).into_iter().map(|s| s.1));
        let spans = self.chunk_units(text, &units, true)?;
        let locator = Locator::new(doc);
        Ok(spans
            .into_iter()
            .map(|s| (s, locator.meta(s.start, s.end)))
            .collect())
    }
}

impl Semantic {
    /// The chunks of `text` from its sentence units; a group over the limit is cut at unit ends
    /// when `structured` (a parsed document's units), else by `recursive` (plain text, as
    /// LangChain's splitters would).
    fn chunk_units(&self, text: &str, units: &[Unit], structured: bool) -> Result<Vec<Span>> {
        if units.is_empty() {
            return Ok(Vec::new());
        }
        let sents: Vec<(usize, usize)> = units.iter().map(|u| (u.start, u.end)).collect();
        let measure = self.sizer.measure(text);
        let distances = self.distances(text, &sents)?;
        let emitter = BoundedEmitter {
            text,
            measure: &measure,
            sizer: self.sizer.as_ref(),
            recursive: &self.recursive,
            size: self.size,
        };
        let mut out = Vec::new();
        for (a, b) in self.groups(text, &measure, units, &distances) {
            if structured {
                self.emit_group(&emitter, units, a, b, &mut out)?;
            } else {
                emitter.emit(sents[a].0, sents[b].1, &mut out)?;
            }
        }
        Ok(self.hold_min(text, &measure, units, out))
    }

    /// Emit units `a..=b`: whole when they fit, else packed greedily into chunks that end where
    /// a chunk may end (not after a heading); a unit too big on its own is cut by `recursive`.
    fn emit_group(
        &self,
        em: &BoundedEmitter,
        units: &[Unit],
        a: usize,
        b: usize,
        out: &mut Vec<Span>,
    ) -> Result<()> {
        let count = |s: usize, e: usize| self.sizer.count_span(em.text, em.measure, s, e);
        let mut first = a;
        while first <= b {
            let start = units[first].start;
            let whole = count(start, units[b].end);
            if whole <= self.size {
                out.push(Span::new(start, units[b].end, whole));
                return Ok(());
            }
            // The last unit end that fits and may end a chunk.
            let mut end_at = None;
            for k in first..b {
                let tokens = count(start, units[k].end);
                if tokens > self.size {
                    break;
                }
                if may_end(units, k) {
                    end_at = Some((k, tokens));
                }
            }
            match end_at {
                Some((k, tokens)) => {
                    out.push(Span::new(start, units[k].end, tokens));
                    first = k + 1;
                }
                None => {
                    // No unit end fits: the first unit (with a heading, what follows it) is cut.
                    let mut k = first;
                    while k < b && !may_end(units, k) {
                        k += 1;
                    }
                    em.emit(start, units[k].end, out)?;
                    first = k + 1;
                }
            }
        }
        Ok(())
    }

    /// Every chunk but the document's last of at least `min_size` units where the limit allows:
    /// one under it is merged with its next (else its previous) neighbour when together they
    /// fit; otherwise the pair is cut again at the first unit end (not after a heading) that
    /// gives the small one at least `min_size` and leaves the rest within the limit.
    fn hold_min(
        &self,
        text: &str,
        measure: &Measure,
        units: &[Unit],
        mut v: Vec<Span>,
    ) -> Vec<Span> {
        if self.min_size == 0 {
            return v;
        }
        let count = |s: usize, e: usize| self.sizer.count_span(text, measure, s, e);
        let joined = |s: usize, e: usize| {
            let tokens = count(s, e);
            (tokens <= self.size).then(|| Span::new(s, e, tokens))
        };
        let mut i = 0;
        while i < v.len() {
            if v[i].tokens >= self.min_size {
                i += 1;
                continue;
            }
            if i + 1 == v.len() {
                // The document's last piece may stay small; it joins its neighbour if it can.
                if i > 0 {
                    if let Some(sp) = joined(v[i - 1].start, v[i].end) {
                        v[i - 1] = sp;
                        v.pop();
                    }
                }
                break;
            }
            if let Some(sp) = joined(v[i].start, v[i + 1].end) {
                v[i] = sp;
                v.remove(i + 1);
                continue;
            }
            if i > 0 {
                if let Some(sp) = joined(v[i - 1].start, v[i].end) {
                    v[i - 1] = sp;
                    v.remove(i);
                    continue;
                }
            }
            let (s, e) = (v[i].start, v[i + 1].end);
            let from = units.partition_point(|u| u.end <= v[i].end);
            let mut recut = None;
            for k in from..units.len() {
                let u = units[k];
                if u.end >= e || k + 1 >= units.len() {
                    break;
                }
                if !may_end(units, k) {
                    continue;
                }
                let first = count(s, u.end);
                if first > self.size {
                    break;
                }
                let next = units[k + 1].start;
                let second = count(next, e);
                if first >= self.min_size && second <= self.size {
                    recut = Some((Span::new(s, u.end, first), Span::new(next, e, second)));
                    break;
                }
            }
            if let Some((a, b)) = recut {
                v[i] = a;
                v[i + 1] = b;
            }
            i += 1;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentile_matches_numpy() {
        let v = [0.1, 0.4, 0.2, 0.9, 0.3];
        assert!((percentile(&v, 50.0) - 0.3).abs() < 1e-12);
        assert!((percentile(&v, 95.0) - 0.8).abs() < 1e-12); // np.percentile(v, 95) = 0.8
        assert!((percentile(&v, 25.0) - 0.2).abs() < 1e-12);
        assert_eq!(percentile(&[0.5], 95.0), 0.5);
    }

    #[test]
    fn gradient_matches_numpy() {
        // np.gradient([1, 2, 4, 7, 11]) = [1, 1.5, 2.5, 3.5, 4]
        assert_eq!(
            numpy_gradient(&[1.0, 2.0, 4.0, 7.0, 11.0]),
            [1.0, 1.5, 2.5, 3.5, 4.0]
        );
    }

    #[test]
    fn breakpoint_methods() {
        let d = [0.1, 0.1, 0.9, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1];
        assert_eq!(breakpoints(Breakpoint::Percentile, 95.0, &d), [2]);
        assert_eq!(breakpoints(Breakpoint::StdDev, 2.0, &d), [2]);
        assert_eq!(breakpoints(Breakpoint::Interquartile, 1.5, &d), [2]);
        // The gradient rises into the peak at 1 and falls out of it at 3.
        assert_eq!(breakpoints(Breakpoint::Gradient, 95.0, &d), [1]);
        assert!(breakpoints(Breakpoint::Percentile, 100.0, &d).is_empty());
        assert!(breakpoints(Breakpoint::Gradient, 95.0, &[0.5]).is_empty());
        assert!(breakpoints(Breakpoint::Percentile, 95.0, &[]).is_empty());
    }
}
