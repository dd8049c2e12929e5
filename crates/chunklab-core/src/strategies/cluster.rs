//! `cluster`: Chroma's `ClusterSemanticChunker` (brandonstarxel/chunking_evaluation) with a real
//! size limit.
//!
//! The text is cut into small pieces with the native `recursive` strategy (`piece_size` units,
//! 50 by default), every piece is embedded, and the pieces' cosine similarities are shifted by
//! the mean similarity of all pairs of distinct pieces (so similar pairs count positive, the
//! rest negative) with the diagonal zeroed. Dynamic programming then chooses the boundaries
//! that maximise the sum, over the chunks, of the shifted similarities of all pairs inside a
//! chunk. Where Chroma allows `max_chunk_size / min_chunk_size` pieces per chunk, a candidate
//! chunk here is allowed when its planned size in the document's [`Measure`] is within the limit;
//! each emitted chunk's real size is then counted, and one that is over (a tokenizer that merges
//! across piece boundaries) is cut with `recursive` inside its span. Unlike Chroma, a chunk never
//! grows past the limit when every reward is negative: the best segmentation is searched over
//! allowed chunks only.
//!
//! On a parsed document ([`Chunker::chunk_parsed`]) the pieces also end where its elements end,
//! never inside a heading, a code block, an inline link or code span, and a heading is glued to
//! the piece after it, so no chunk ends with a heading cut from its section.
//!
//! Only the similarities of pieces that can share a chunk are computed (a band of the matrix),
//! and the mean of all pairs comes from the sum of the vectors: `Σ_{i<j} vᵢ·vⱼ = (|Σv|² − Σ|vᵢ|²) / 2`.

use super::groups::{embed_all, units_of, BoundedEmitter};
use super::Recursive;
use crate::chunk::{ChunkMeta, Span};
use crate::chunker::{Chunker, Locator};
use crate::document::ParsedDocument;
use crate::error::{param_err, Error, Result};
use crate::sizer::{Measure, Sizer, MAX_DOCUMENT_BYTES};
use crate::text::strip_span;
use crate::text_embedder::{dot, TextEmbedder};
use std::collections::VecDeque;
use std::sync::Arc;

/// Most pieces one chunk may hold (bounds the work per piece).
pub const MAX_PIECES_PER_CHUNK: usize = 512;

/// Embedding-similarity clustering of small pieces into chunks of at most `size` units.
///
/// ```
/// use chunklab_core::{strategies::Cluster, CharSizer, Chunker, TextEmbedder};
/// use std::sync::Arc;
/// /// Toy vectors: wind or sun.
/// struct Topic;
/// impl TextEmbedder for Topic {
///     fn name(&self) -> &str { "topic" }
///     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
///         Ok(texts.iter().map(|t| if t.contains("wind") { vec![1.0, 0.0] } else { vec![0.0, 1.0] }).collect())
///     }
/// }
/// let text = "De wind waait. De windmolens draaien. De zon schijnt. Zonnepanelen gloeien.";
/// let chunker = Cluster::new(Arc::new(CharSizer), 60, 25, Arc::new(Topic)).unwrap();
/// let texts: Vec<_> = chunker.spans(text).unwrap().iter().map(|s| &text[s.start..s.end]).collect();
/// assert_eq!(texts, ["De wind waait. De windmolens draaien.", "De zon schijnt. Zonnepanelen gloeien."]);
/// ```
#[derive(Debug)]
pub struct Cluster {
    sizer: Arc<dyn Sizer>,
    size: usize,
    piece_size: usize,
    embedder: Arc<dyn TextEmbedder>,
    /// Cuts the pieces, and chunks that turn out over the limit.
    recursive: Recursive,
}

impl Cluster {
    /// Chunks of at most `size` units, grouped from pieces of at most `piece_size` units
    /// (`1 <= piece_size <= size`, and `size / piece_size <= 256`).
    pub fn new(
        sizer: Arc<dyn Sizer>,
        size: usize,
        piece_size: usize,
        embedder: Arc<dyn TextEmbedder>,
    ) -> Result<Self> {
        if size == 0 {
            return param_err("size", "must be at least 1");
        }
        if piece_size == 0 || piece_size > size {
            return param_err(
                "piece_size",
                format!("{piece_size} must be from 1 to the size limit ({size})"),
            );
        }
        if size / piece_size > 256 {
            return param_err(
                "piece_size",
                format!(
                    "{piece_size} is too small for size {size}: at most 256 pieces per chunk \
                     ({} or more)",
                    size.div_ceil(256)
                ),
            );
        }
        Ok(Self {
            recursive: Recursive::new(sizer.clone(), size, 0)?,
            sizer,
            size,
            piece_size,
            embedder,
        })
    }

    /// The boundaries: for each chunk, its first and last piece.
    ///
    /// `last_fit[a]` is the last piece a chunk starting at piece `a` may end at (non-decreasing,
    /// at least `a`).
    fn segment(&self, vectors: &[Vec<f32>], last_fit: &[usize]) -> Vec<(usize, usize)> {
        let n = vectors.len();
        let mean = mean_pair_similarity(vectors);
        // rows[a - row0][o - 1] = Σ_{o' = 1..=o} (vₐ·vₐ₊ₒ' − mean), for the starts still in reach.
        let mut rows: VecDeque<Vec<f64>> = VecDeque::new();
        let mut row0 = 0;
        // best[i] = best total reward of pieces 0..i; from[i] = where the last chunk starts.
        let mut best = vec![0.0f64; n + 1];
        let mut from = vec![0usize; n + 1];
        let mut first_start = 0;
        for i in 0..n {
            let reach = last_fit[i];
            let mut row = Vec::with_capacity(reach - i);
            let mut acc = 0.0f64;
            for j in i + 1..=reach {
                acc += dot(&vectors[i], &vectors[j]) as f64 - mean;
                row.push(acc);
            }
            rows.push_back(row);
            while last_fit[first_start] < i {
                first_start += 1;
            }
            while row0 < first_start {
                rows.pop_front();
                row0 += 1;
            }
            // Chunks first_start..=i, i..=i: the smallest first, a larger one only when better.
            let mut pair_sum = 0.0f64;
            let mut top = f64::NEG_INFINITY;
            let mut top_from = i;
            for start in (first_start..=i).rev() {
                if start < i {
                    pair_sum += rows[start - row0][i - start - 1];
                }
                let total = best[start] + 2.0 * pair_sum;
                if total > top {
                    top = total;
                    top_from = start;
                }
            }
            best[i + 1] = top;
            from[i + 1] = top_from;
        }
        let mut chunks = Vec::new();
        let mut end = n;
        while end > 0 {
            let start = from[end];
            chunks.push((start, end - 1));
            end = start;
        }
        chunks.reverse();
        chunks
    }
}

/// Mean of `vᵢ·vⱼ` over all pairs `i < j` (0 with fewer than 2 vectors).
fn mean_pair_similarity(vectors: &[Vec<f32>]) -> f64 {
    let n = vectors.len();
    if n < 2 {
        return 0.0;
    }
    let dim = vectors[0].len();
    let mut sum = vec![0.0f64; dim];
    let mut self_dots = 0.0f64;
    for v in vectors {
        for (s, &x) in sum.iter_mut().zip(v) {
            *s += x as f64;
        }
        self_dots += v.iter().map(|&x| x as f64 * x as f64).sum::<f64>();
    }
    let total: f64 = sum.iter().map(|s| s * s).sum();
    (total - self_dots) / (n * (n - 1)) as f64
}

impl Chunker for Cluster {
    fn strategy(&self) -> &'static str {
        "cluster"
    }

    fn config(&self) -> String {
        format!(
            "cluster size={} piece={} unit={} model={}",
            self.size,
            self.piece_size,
            self.sizer.name(),
            self.embedder.name()
        )
    }

    fn spans(&self, text: &str) -> Result<Vec<Span>> {
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(text.len()));
        }
        let measure = self.sizer.measure(text);
        let pieces: Vec<(usize, usize)> = self
            .recursive
            .spans_in(text, &measure, (0, text.len()), self.piece_size)?
            .into_iter()
            .map(|p| (p.start, p.end))
            .collect();
        self.chunk_pieces(text, &measure, &pieces)
    }

    /// Pieces that respect the document's elements (see the module notes), then as
    /// [`Chunker::spans`], with the page span and source lines of each chunk.
    fn chunk_parsed(&self, doc: &ParsedDocument) -> Result<Vec<(Span, ChunkMeta)>> {
        let text = doc.text.as_str();
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(text.len()));
        }
        let measure = self.sizer.measure(text);
        let cuts = self
            .recursive
            .spans_in(text, &measure, (0, text.len()), self.piece_size)?
            .into_iter()
            .flat_map(|p| [p.start, p.end]);
        let mut pieces: Vec<(usize, usize)> = Vec::new();
        let mut glued: Option<usize> = None;
        for u in units_of(doc, cuts) {
            let start = glued.take().unwrap_or(u.start);
            if u.heading {
                glued = Some(start);
            } else {
                pieces.push((start, u.end));
            }
        }
        if let Some(start) = glued {
            // Headings at the very end of the document: a piece of their own.
            pieces.push(strip_span(text, start, text.len()));
        }
        let spans = self.chunk_pieces(text, &measure, &pieces)?;
        let locator = Locator::new(doc);
        Ok(spans
            .into_iter()
            .map(|s| (s, locator.meta(s.start, s.end)))
            .collect())
    }
}

impl Cluster {
    /// The chunks of `text` grouped from `pieces` (stripped, in order).
    fn chunk_pieces(
        &self,
        text: &str,
        measure: &Measure,
        pieces: &[(usize, usize)],
    ) -> Result<Vec<Span>> {
        if pieces.is_empty() {
            return Ok(Vec::new());
        }
        let texts: Vec<&str> = pieces.iter().map(|p| &text[p.0..p.1]).collect();
        let vectors = embed_all(self.embedder.as_ref(), &texts)?;
        // The last piece a chunk from each piece may reach, planned with the measure.
        let n = pieces.len();
        let mut last_fit = Vec::with_capacity(n);
        let mut b = 0;
        for a in 0..n {
            b = b.max(a);
            while b + 1 < n
                && b + 1 - a < MAX_PIECES_PER_CHUNK
                && measure.units_between(text, pieces[a].0, pieces[b + 1].1) <= self.size
            {
                b += 1;
            }
            last_fit.push(b);
        }
        let emitter = BoundedEmitter {
            text,
            measure,
            sizer: self.sizer.as_ref(),
            recursive: &self.recursive,
            size: self.size,
        };
        let mut out = Vec::new();
        for (a, b) in self.segment(&vectors, &last_fit) {
            emitter.emit(pieces[a].0, pieces[b].1, &mut out)?;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mean_of_pairs_from_the_sum() {
        let v = vec![vec![1.0, 0.0], vec![0.6, 0.8], vec![0.0, 1.0]];
        // pairs: 0.6, 0.0, 0.8 → mean 1.4 / 3
        assert!((mean_pair_similarity(&v) - 1.4 / 3.0).abs() < 1e-6);
        assert_eq!(mean_pair_similarity(&v[..1]), 0.0);
    }
}
