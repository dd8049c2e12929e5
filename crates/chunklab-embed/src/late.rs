//! Late chunking: embed a whole document once, then pool the token vectors inside each chunk.
//!
//! A chunk's vector then carries the context of the text around it (a pronoun in chunk 7 was
//! read together with the name in chunk 6), at about the cost of embedding the chunks one by
//! one. Chunk boundaries come from any other strategy; [`LateChunker`] wraps that strategy so
//! its chunks say `late` and get ids of their own.
//!
//! # What exactly is computed
//!
//! - **Tokens**: [`Embedder::token_spans`] of the whole text (no special tokens, no truncation).
//! - **Windows**: a document of at most `window` tokens is one window: the whole text in one
//!   [`Embedder::token_vectors`] call. A longer one is covered by macro windows of `window`
//!   consecutive tokens (default: the model's capacity, 254 for MiniLM), each starting
//!   `overlap` tokens (default: an eighth of the window) before the previous one ended (moved
//!   back, at most 16 tokens, to a token that starts a word, so the window text tokenizes like
//!   the document); the last window ends at the last token and may be shorter. A window runs on
//!   the text from its first token's start to its last token's end, with the model's special
//!   tokens, and is shortened when that text tokenizes to more than the model's capacity.
//! - **Ownership**: each token takes its vector from the window whose centre is nearest to it
//!   (the window where it is most central; ties go to the earlier window). When the window's
//!   own tokenization has a token with exactly the document token's span, that vector is used;
//!   otherwise (rare: a window edge that splits a word differently) the mean of the window's
//!   tokens that overlap it, counted in [`LateEmbeddings::realigned`].
//! - **Chunk vector**: the L2-normalized mean of the vectors of the tokens whose byte span
//!   shares at least one byte with the chunk's span. A token that straddles a chunk boundary
//!   (a word cut by a char-based strategy) therefore counts in both chunks; with overlapping
//!   chunks a token counts in every chunk that contains it. A chunk that no token overlaps
//!   (only chars the tokenizer drops) gets its own text embedded with [`Embedder::embed`],
//!   counted in [`LateEmbeddings::direct`].
//!
//! For a one-window document the chunk vector is exactly
//! [`TokenVectors::mean_pool`](crate::TokenVectors::mean_pool) of `token_vectors(text)` over the
//! chunk's tokens (same sums in the same order).
//!
//! Memory holds the document's token spans and owners (32 bytes a token), one window of token
//! vectors and one running sum per open chunk, never the token vectors of the whole document.

use crate::bert::normalize;
use crate::error::{Error, Result};
use crate::{Embedder, Role};
use chunklab_core::chunk::{ChunkMeta, Span};
use chunklab_core::document::ParsedDocument;
use chunklab_core::Chunker;
use std::ops::Range;

/// How [`late_embeddings`] windows a document longer than the model's context.
///
/// ```
/// use chunklab_embed::LateOptions;
/// let opts = LateOptions::default();
/// assert_eq!(opts.resolve(254).unwrap(), (254, 31));
/// let opts = LateOptions { window: Some(128), overlap: Some(16) };
/// assert_eq!(opts.resolve(254).unwrap(), (128, 16));
/// assert!(LateOptions { window: Some(8), overlap: Some(8) }.resolve(254).is_err());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LateOptions {
    /// Tokens per macro window; `None` (or anything larger) means the model's
    /// [`Embedder::token_capacity`].
    pub window: Option<usize>,
    /// Tokens neighbouring windows share; `None` means an eighth of the window (31 tokens for
    /// MiniLM: every token keeps at least 15 tokens of context on both sides, and a long
    /// document costs about 1.14x its tokens; a quarter would cost 1.33x). Must be less than
    /// the window.
    pub overlap: Option<usize>,
}

impl LateOptions {
    /// The window and overlap used with a model of `capacity` tokens, or an error saying which
    /// setting is out of range.
    pub fn resolve(&self, capacity: usize) -> Result<(usize, usize)> {
        if capacity == 0 {
            return Err(Error::Late(
                "the model has no room for text tokens (token capacity 0)".into(),
            ));
        }
        let window = self.window.unwrap_or(capacity).min(capacity);
        if window == 0 {
            return Err(Error::LateSetting {
                setting: "late_window",
                message: "must be at least 1 token".into(),
            });
        }
        let overlap = self.overlap.unwrap_or(window / 8);
        if overlap >= window {
            return Err(Error::LateSetting {
                setting: "late_overlap",
                message: format!(
                    "{overlap} tokens must be less than the window, {window} tokens{}",
                    if self.window.is_some_and(|w| w > capacity) {
                        " (the model's capacity)"
                    } else {
                        ""
                    }
                ),
            });
        }
        Ok((window, overlap))
    }
}

/// Chunk vectors from [`late_embeddings`] and what producing them took.
#[derive(Clone, Debug, PartialEq)]
pub struct LateEmbeddings {
    /// One L2-normalized vector per input span, in input order.
    pub vectors: Vec<Vec<f32>>,
    /// Tokens of the document.
    pub tokens: usize,
    /// Token index ranges of the macro windows run through the model, in order (none for a
    /// document without chunks or tokens).
    pub windows: Vec<Range<usize>>,
    /// How many tokens take their vector from each window (parallel to `windows`; every token
    /// is owned by exactly one window, so these add up to `tokens`).
    pub owned: Vec<usize>,
    /// Model calls: one per window, plus one [`Embedder::embed`] call when some chunk was
    /// embedded directly.
    pub forward_passes: usize,
    /// Chunks that no token overlaps, embedded on their own.
    pub direct: usize,
    /// Tokens whose window tokenized their text differently from the whole document (their
    /// vector is the mean of the window tokens that overlap them).
    pub realigned: usize,
}

/// Late-chunking vectors of the chunks `spans` (byte ranges of `text`) with `model`.
///
/// See the module documentation of `late.rs` for exactly which tokens a chunk pools and how long
/// documents are windowed. Spans may come in any order and may overlap or nest; each must lie
/// on char boundaries of `text`.
///
/// ```no_run
/// use chunklab_embed::{late_embeddings, load, LateOptions, LoadOptions};
/// let model = load("minilm", &LoadOptions::default())?;
/// let text = "Windmolens op zee. Ze leveren stroom.";
/// let late = late_embeddings(model.as_ref(), text, &[0..18, 19..37], &LateOptions::default())?;
/// assert_eq!(late.vectors.len(), 2);
/// assert_eq!(late.windows.len(), 1);
/// # Ok::<(), chunklab_embed::Error>(())
/// ```
pub fn late_embeddings(
    model: &dyn Embedder,
    text: &str,
    spans: &[Range<usize>],
    opts: &LateOptions,
) -> Result<LateEmbeddings> {
    let (window, overlap) = opts.resolve(model.token_capacity())?;
    check_spans(text, spans)?;
    let dim = model.dim();
    let mut out = LateEmbeddings {
        vectors: vec![Vec::new(); spans.len()],
        tokens: 0,
        windows: Vec::new(),
        owned: Vec::new(),
        forward_passes: 0,
        direct: 0,
        realigned: 0,
    };
    if spans.is_empty() {
        return Ok(out);
    }
    let tokens = model.token_spans(text)?;
    out.tokens = tokens.len();
    let mut sums = Sums::new(&tokens, spans, dim);
    if !tokens.is_empty() {
        let windows = plan_windows(model, text, &tokens, window, overlap)?;
        let owner = owners(&windows, tokens.len());
        for (k, w) in windows.iter().enumerate() {
            let (from, to) = window_bytes(&tokens, w.clone());
            // A one-window document runs as the whole text, exactly as `token_vectors(text)`.
            let (piece, shift) = if windows.len() == 1 {
                (text, 0)
            } else {
                (&text[from..to], from)
            };
            let tv = model.token_vectors(piece)?;
            out.forward_passes += 1;
            let mut matcher = Matcher::new(&tv.spans, shift);
            let mut owned = 0;
            for i in w.clone().filter(|&i| owner[i] == k) {
                owned += 1;
                let (vector, exact) = matcher.vector(&tokens[i], &tv.vectors, dim);
                if !exact {
                    out.realigned += 1;
                }
                sums.add(i, &vector);
            }
            sums.retire(windows.get(k + 1).map_or(usize::MAX, |next| next.start));
            out.owned.push(owned);
        }
        out.windows = windows;
    }
    let mut missing = Vec::new();
    for (c, v) in sums.finish().into_iter().enumerate() {
        match v {
            Some(v) => out.vectors[c] = v,
            None => missing.push(c),
        }
    }
    if !missing.is_empty() {
        let texts: Vec<&str> = missing.iter().map(|&c| &text[spans[c].clone()]).collect();
        let vectors = model.embed(&texts, Role::Passage)?;
        out.forward_passes += 1;
        out.direct = missing.len();
        for (c, v) in missing.into_iter().zip(vectors) {
            out.vectors[c] = v;
        }
    }
    Ok(out)
}

fn check_spans(text: &str, spans: &[Range<usize>]) -> Result<()> {
    for s in spans {
        if s.start > s.end
            || s.end > text.len()
            || !text.is_char_boundary(s.start)
            || !text.is_char_boundary(s.end)
        {
            return Err(Error::Late(format!(
                "chunk span {}..{} is not a range of char boundaries of the {}-byte text",
                s.start,
                s.end,
                text.len()
            )));
        }
    }
    Ok(())
}

/// Bytes of `text` a window of tokens covers: first token start to last token end.
fn window_bytes(tokens: &[Range<usize>], w: Range<usize>) -> (usize, usize) {
    let part = &tokens[w];
    let from = part.iter().map(|t| t.start).min().unwrap_or(0);
    let to = part.iter().map(|t| t.end).max().unwrap_or(from);
    (from, to)
}

/// Whether token `i` starts a word: the first token, one after a gap, or one at a
/// non-alphanumeric boundary. A window that starts there tokenizes like the whole document.
fn starts_word(text: &str, tokens: &[Range<usize>], i: usize) -> bool {
    if i == 0 || tokens[i - 1].end < tokens[i].start {
        return true;
    }
    let before = text[..tokens[i].start].chars().next_back();
    let first = text[tokens[i].start..].chars().next();
    !(before.is_some_and(char::is_alphanumeric) && first.is_some_and(char::is_alphanumeric))
}

/// How far back a window start may move to reach a word start.
const SNAP_BACK: usize = 16;

/// Token ranges of the macro windows (see the module documentation).
fn plan_windows(
    model: &dyn Embedder,
    text: &str,
    tokens: &[Range<usize>],
    window: usize,
    overlap: usize,
) -> Result<Vec<Range<usize>>> {
    let n = tokens.len();
    if n <= window {
        return Ok(std::iter::once(0..n).collect());
    }
    let capacity = model.token_capacity();
    let mut windows = Vec::new();
    let mut a = 0;
    loop {
        let mut b = (a + window).min(n);
        loop {
            let (from, to) = window_bytes(tokens, a..b);
            let count = model.token_spans(&text[from..to])?.len();
            if count <= capacity || b - a == 1 {
                break;
            }
            b -= (count - capacity).min(b - a - 1);
        }
        windows.push(a..b);
        if b >= n {
            return Ok(windows);
        }
        let planned = b.saturating_sub(overlap).max(a + 1);
        let lowest = (a + 1).max(planned.saturating_sub(SNAP_BACK));
        a = (lowest..=planned)
            .rev()
            .find(|&s| starts_word(text, tokens, s))
            .unwrap_or(planned);
    }
}

/// For every token, the window whose centre is nearest (earlier window on ties).
fn owners(windows: &[Range<usize>], n: usize) -> Vec<usize> {
    let mut owner = vec![usize::MAX; n];
    let mut best = vec![usize::MAX; n];
    for (k, w) in windows.iter().enumerate() {
        let centre2 = w.start + w.end;
        for i in w.clone() {
            let d = (2 * i + 1).abs_diff(centre2);
            if d < best[i] {
                best[i] = d;
                owner[i] = k;
            }
        }
    }
    owner
}

/// Finds the vector of a document token among a window's tokens, walking both in order.
struct Matcher<'a> {
    /// The window's token spans, relative to the window text.
    spans: &'a [Range<usize>],
    /// Byte offset of the window text in the document.
    shift: usize,
    /// First window token that may still match.
    next: usize,
}

impl<'a> Matcher<'a> {
    fn new(spans: &'a [Range<usize>], shift: usize) -> Self {
        Self {
            spans,
            shift,
            next: 0,
        }
    }

    fn doc_span(&self, j: usize) -> Range<usize> {
        self.spans[j].start + self.shift..self.spans[j].end + self.shift
    }

    /// The vector for document token `t` and whether the window had a token with exactly its
    /// span. Document tokens must be asked for in order.
    fn vector(&mut self, t: &Range<usize>, vectors: &[f32], dim: usize) -> (Vec<f32>, bool) {
        let row = |j: usize| &vectors[j * dim..(j + 1) * dim];
        while self.next < self.spans.len() && self.doc_span(self.next).end <= t.start {
            self.next += 1;
        }
        let mut overlapping = Vec::new();
        let mut j = self.next;
        while j < self.spans.len() && self.doc_span(j).start < t.end {
            let s = self.doc_span(j);
            if s == *t {
                // Several tokens may share one span (pieces of one char): take them in turn.
                self.next = j + 1;
                return (row(j).to_vec(), true);
            }
            if s.end > t.start {
                overlapping.push(j);
            }
            j += 1;
        }
        let mut v = vec![0f32; dim];
        if overlapping.is_empty() {
            // Cannot happen for a token inside the window text; the nearest token stands in.
            let j = self.next.min(self.spans.len().saturating_sub(1));
            if !self.spans.is_empty() {
                v.copy_from_slice(row(j));
            }
            return (v, false);
        }
        for &j in &overlapping {
            v.iter_mut().zip(row(j)).for_each(|(a, b)| *a += b);
        }
        let n = overlapping.len() as f32;
        v.iter_mut().for_each(|a| *a /= n);
        (v, false)
    }
}

/// Running sums of token vectors per chunk. Chunks are visited by their first token; a chunk
/// is "open" from the window that reaches its first token until no later window can reach it.
struct Sums<'a> {
    tokens: &'a [Range<usize>],
    spans: &'a [Range<usize>],
    dim: usize,
    /// `(first token, end token)` candidate range of each chunk.
    ranges: Vec<Range<usize>>,
    /// Chunk indices by first token.
    order: Vec<usize>,
    /// Position in `order` of the first chunk not yet opened.
    opened: usize,
    /// Open chunks.
    open: Vec<usize>,
    sums: Vec<Vec<f32>>,
    counts: Vec<usize>,
}

impl<'a> Sums<'a> {
    fn new(tokens: &'a [Range<usize>], spans: &'a [Range<usize>], dim: usize) -> Self {
        let sorted = tokens
            .windows(2)
            .all(|w| w[0].start <= w[1].start && w[0].end <= w[1].end);
        let ranges: Vec<Range<usize>> = spans
            .iter()
            .map(|s| {
                if sorted {
                    let first = tokens.partition_point(|t| t.end <= s.start);
                    let end = tokens.partition_point(|t| t.start < s.end);
                    first..end.max(first)
                } else {
                    // Unordered token spans: every token is a candidate, `overlaps` decides.
                    0..tokens.len()
                }
            })
            .collect();
        let mut order: Vec<usize> = (0..spans.len()).collect();
        order.sort_by_key(|&c| ranges[c].start);
        Self {
            tokens,
            spans,
            dim,
            ranges,
            order,
            opened: 0,
            open: Vec::new(),
            sums: vec![Vec::new(); spans.len()],
            counts: vec![0; spans.len()],
        }
    }

    /// Add token `i`'s vector to every chunk it overlaps. Tokens come in window order.
    fn add(&mut self, i: usize, v: &[f32]) {
        while self.opened < self.order.len() && self.ranges[self.order[self.opened]].start <= i {
            let c = self.order[self.opened];
            if !self.ranges[c].is_empty() {
                self.open.push(c);
            }
            self.opened += 1;
        }
        let t = &self.tokens[i];
        for &c in &self.open {
            let s = &self.spans[c];
            let overlaps = t.start < s.end && t.end > s.start;
            if !overlaps || !self.ranges[c].contains(&i) {
                continue;
            }
            let sum = &mut self.sums[c];
            if sum.is_empty() {
                sum.resize(self.dim, 0.0);
            }
            sum.iter_mut().zip(v).for_each(|(a, b)| *a += b);
            self.counts[c] += 1;
        }
    }

    /// Close the chunks whose tokens all lie before `start` (the next window's first token):
    /// no later window reaches them.
    fn retire(&mut self, start: usize) {
        let ranges = &self.ranges;
        self.open.retain(|&c| ranges[c].end > start);
    }

    /// Each chunk's normalized mean, or `None` for a chunk without tokens.
    fn finish(self) -> Vec<Option<Vec<f32>>> {
        self.sums
            .into_iter()
            .zip(self.counts)
            .map(|(mut sum, n)| {
                if n == 0 {
                    return None;
                }
                // The same arithmetic as `TokenVectors::mean_pool`.
                let denom = (n as f32).max(1e-9);
                sum.iter_mut().for_each(|a| *a /= denom);
                normalize(&mut sum);
                Some(sum)
            })
            .collect()
    }
}

/// A [`Chunker`] whose chunks are another strategy's, named `late`, with the model and the
/// window settings in its config (so chunk ids differ from the boundary strategy's). The
/// vectors come from [`late_embeddings`] on the chunks' spans.
///
/// ```no_run
/// use chunklab_core::{strategies, CharSizer, Chunker};
/// use chunklab_embed::{late_embeddings, load, LateChunker, LateOptions, LoadOptions};
/// use std::sync::Arc;
/// let model = load("minilm", &LoadOptions::default())?;
/// let cfg = chunklab_core::ChunkConfig::new(chunklab_core::Strategy::Recursive, 400);
/// let boundaries = strategies::build(&cfg, Arc::new(CharSizer), None).unwrap();
/// let late = LateChunker::new(boundaries, model.as_ref(), LateOptions::default())?;
/// let text = "Windmolens op zee leveren stroom. De raad besluit.";
/// let spans: Vec<_> = late.spans(text).unwrap().iter().map(|s| s.start..s.end).collect();
/// let vectors = late.embed(model.as_ref(), text, &spans)?.vectors;
/// assert_eq!(late.strategy(), "late");
/// # Ok::<(), chunklab_embed::Error>(())
/// ```
pub struct LateChunker {
    boundaries: Box<dyn Chunker>,
    model: String,
    window: usize,
    overlap: usize,
}

impl LateChunker {
    /// Wrap the boundary strategy `boundaries` for late chunking with `model`. Fails when the
    /// window settings do not fit the model.
    pub fn new(
        boundaries: Box<dyn Chunker>,
        model: &dyn Embedder,
        opts: LateOptions,
    ) -> Result<Self> {
        let (window, overlap) = opts.resolve(model.token_capacity())?;
        Ok(Self {
            boundaries,
            model: model.name().to_string(),
            window,
            overlap,
        })
    }

    /// The window settings in use, resolved against the model.
    pub fn options(&self) -> LateOptions {
        LateOptions {
            window: Some(self.window),
            overlap: Some(self.overlap),
        }
    }

    /// The boundary strategy.
    pub fn boundaries(&self) -> &dyn Chunker {
        self.boundaries.as_ref()
    }

    /// Late-chunking vectors of `spans` (the chunks of `text`) with `model`, which should be
    /// the model this chunker was made for.
    pub fn embed(
        &self,
        model: &dyn Embedder,
        text: &str,
        spans: &[Range<usize>],
    ) -> Result<LateEmbeddings> {
        late_embeddings(model, text, spans, &self.options())
    }
}

impl Chunker for LateChunker {
    fn strategy(&self) -> &'static str {
        "late"
    }

    fn config(&self) -> String {
        format!(
            "late model={} window={} overlap={} boundaries=({})",
            self.model,
            self.window,
            self.overlap,
            self.boundaries.config()
        )
    }

    fn spans(&self, text: &str) -> chunklab_core::Result<Vec<Span>> {
        self.boundaries.spans(text)
    }

    fn needs_structure(&self) -> bool {
        self.boundaries.needs_structure()
    }

    fn chunk_parsed(&self, doc: &ParsedDocument) -> chunklab_core::Result<Vec<(Span, ChunkMeta)>> {
        self.boundaries.chunk_parsed(doc)
    }
}
