//! `recursive`: cut the text at the highest-level separator that occurs in it (paragraphs, then
//! lines, sentences, clauses, words), cut pieces that are still too long at the next level down,
//! and merge neighbouring pieces back into chunks of at most `size` units, with `overlap` units of
//! context carried into the next chunk.
//!
//! Two modes:
//!
//! * **native** (default): exact spans of the original text, stripped of surrounding whitespace;
//!   the document is measured once and pieces are planned with [`Measure::units_between`]; every
//!   chunk is verified once with [`Sizer::count_span`] (skipped for additive sizers when the
//!   chunk ends on a unit boundary) and is guaranteed to fit. A chunk that does not fit for real
//!   gives back its last pieces; a single piece that does not fit is cut at the next separator,
//!   and finally at unit boundaries (chars, words or tokens). In native mode `""` means "unit
//!   boundaries". Unlike LangChain, the pieces of an oversized piece join the pieces before it
//!   when those are shorter than a quarter of the size, so a heading is not left alone in a tiny
//!   chunk; overlap is carried across such boundaries too. Without overlap no text is repeated.
//! * **LangChain** ([`Recursive::langchain`]): the chunk texts of LangChain's
//!   `RecursiveCharacterTextSplitter` (`langchain-text-splitters` 1.1.3) with
//!   `strip_whitespace=True`, including its length function being called on every piece on its
//!   own and its tendency to over- or undershoot the size. With `keep_separator` start/end the
//!   pieces of a chunk are contiguous, so the chunk is one span of the original text. With
//!   [`KeepSeparator::Drop`] LangChain joins the pieces with the separator string; chunklab returns
//!   the original text from the first piece to the last instead (identical for a literal separator
//!   unless empty pieces were dropped between them; for a regex separator LangChain inserts the
//!   pattern itself). Regex separators use `fancy-regex`, whose syntax is close to Python's `re`
//!   but not identical; capture groups inside a separator pattern (which make Python's
//!   `re.split` return extra items) are treated as plain groups.

use super::fixed::validate;
use super::separators::{Builtin, Pieces, Separator};
use super::window::fit_by_chars;
use super::KeepSeparator;
use crate::chunk::Span;
use crate::chunker::Chunker;
use crate::error::{Error, Result};
use crate::sizer::{Measure, Sizer, MAX_DOCUMENT_BYTES};
use crate::text::{ascii_prefix_len, count_chars, floor_char_boundary, strip_span};
use rayon::prelude::*;
use std::collections::VecDeque;
use std::sync::Arc;

/// LangChain mode finds a text's pieces on all cores in blocks of about this many bytes when the
/// text holds at least two.
const PARALLEL_BLOCK: usize = 1 << 18;

/// Recursive separator splitting with merging up to a size limit.
///
/// ```
/// use chunklab_core::{strategies::Recursive, CharSizer, Chunker};
/// use std::sync::Arc;
/// let text = "Artikel 1\nDe raad besluit. Het college voert uit.\n\nArtikel 2\nSlot.";
/// let spans = Recursive::new(Arc::new(CharSizer), 40, 0).unwrap().spans(text).unwrap();
/// let texts: Vec<_> = spans.iter().map(|s| &text[s.start..s.end]).collect();
/// assert_eq!(
///     texts,
///     ["Artikel 1", "De raad besluit. Het college voert uit.", "Artikel 2\nSlot."]
/// );
/// assert!(spans.iter().all(|s| s.tokens <= 40));
/// ```
#[derive(Debug)]
pub struct Recursive {
    sizer: Arc<dyn Sizer>,
    size: usize,
    overlap: usize,
    separators: Vec<Separator>,
    /// The user's separators and whether they are regexes; `None` = the mode's defaults.
    custom: Option<(Vec<String>, bool)>,
    keep: KeepSeparator,
    langchain: bool,
    /// The sizer counts chars (its measure is [`Measure::Chars`]): LangChain mode then takes a
    /// piece of a document's ASCII prefix to be as long as its bytes.
    counts_chars: bool,
}

/// LangChain's default separators.
pub const LANGCHAIN_SEPARATORS: [&str; 4] = ["\n\n", "\n", " ", ""];

/// Native default separators: blank lines (also `\r\n\r\n` and lines of spaces), line breaks,
/// sentence ends (kept at the end of the sentence), `; ` and `, ` (kept at the end), whitespace,
/// then unit boundaries. The regexes (`\n(?:[ \t\r]*\n)+`, `[.!?…]+["'”’»)\]]*\s+|[。！？]+`,
/// `\s+`) run as hand-written scans ([`Builtin`]).
fn native_separators() -> Vec<Separator> {
    vec![
        Separator::builtin(Builtin::BlankLines),
        Separator::literal("\n"),
        Separator::builtin(Builtin::SentenceEnd).keeping(KeepSeparator::End),
        Separator::literal("; ").keeping(KeepSeparator::End),
        Separator::literal(", ").keeping(KeepSeparator::End),
        Separator::builtin(Builtin::Whitespace),
        Separator::literal(""),
    ]
}

impl Recursive {
    /// Native mode with the default separators (see the module docs).
    pub fn new(sizer: Arc<dyn Sizer>, size: usize, overlap: usize) -> Result<Self> {
        validate(size, overlap)?;
        Ok(Self {
            sizer,
            size,
            overlap,
            separators: native_separators(),
            custom: None,
            keep: KeepSeparator::Start,
            langchain: false,
            counts_chars: false,
        })
    }

    /// LangChain `RecursiveCharacterTextSplitter` mode with its defaults (separators
    /// `["\n\n", "\n", " ", ""]`, `keep_separator=True`); `sizer.count` is the length function.
    pub fn langchain(sizer: Arc<dyn Sizer>, size: usize, overlap: usize) -> Result<Self> {
        validate(size, overlap)?;
        Ok(Self {
            counts_chars: matches!(sizer.measure(""), Measure::Chars),
            sizer,
            size,
            overlap,
            separators: LANGCHAIN_SEPARATORS
                .iter()
                .map(|s| Separator::literal(s))
                .collect(),
            custom: None,
            keep: KeepSeparator::Start,
            langchain: true,
        })
    }

    /// Use these separators, highest level first; `regex` treats them as regular expressions
    /// (`fancy-regex`, lookaround allowed). An empty list keeps the defaults (as LangChain does).
    pub fn with_separators<S: AsRef<str>>(mut self, separators: &[S], regex: bool) -> Result<Self> {
        if separators.is_empty() {
            return Ok(self);
        }
        let compiled = separators
            .iter()
            .map(|s| {
                if regex {
                    Separator::regex(s.as_ref())
                } else {
                    Ok(Separator::literal(s.as_ref()))
                }
            })
            .collect::<Result<Vec<_>>>()?;
        self.separators = compiled;
        let sources = separators.iter().map(|s| s.as_ref().to_string()).collect();
        self.custom = Some((sources, regex));
        Ok(self)
    }

    /// Where separators go when a piece is cut (native defaults keep sentence and clause
    /// punctuation at the end of their piece regardless).
    pub fn with_keep_separator(mut self, keep: KeepSeparator) -> Self {
        self.keep = keep;
        self
    }

    /// Native-mode spans of `text[start..end]` of at most `size` units (instead of the configured
    /// size), planned with `measure`, the whole document's measure. Structure-aware strategies
    /// use it to split one oversized section or element of a measured document.
    pub(crate) fn spans_in(
        &self,
        text: &str,
        measure: &Measure,
        (start, end): (usize, usize),
        size: usize,
    ) -> Result<Vec<Span>> {
        let mut plan = Native {
            text,
            measure,
            sizer: self.sizer.as_ref(),
            size: size.max(1),
            overlap: self.overlap.min(size.saturating_sub(1)),
            levels: &self.separators,
            keep: self.keep,
            additive: self.sizer.is_additive(),
            ascii_end: ascii_end(text, measure, start, end),
            out: Vec::new(),
        };
        let mut run = Run::default();
        plan.split(start, end, 0, &mut run)?;
        plan.finish(&mut run)?;
        Ok(plan.out)
    }
}

impl Chunker for Recursive {
    fn strategy(&self) -> &'static str {
        "recursive"
    }
    fn reads_only_locations(&self) -> bool {
        true
    }

    fn config(&self) -> String {
        let seps = match &self.custom {
            Some((s, regex)) => format!("{s:?} regex={regex}"),
            None => "default".to_string(),
        };
        let keep = match self.keep {
            KeepSeparator::Start => "start",
            KeepSeparator::End => "end",
            KeepSeparator::Drop => "none",
        };
        format!(
            "recursive size={} overlap={} unit={} separators={seps} keep={keep}{}",
            self.size,
            self.overlap,
            self.sizer.name(),
            if self.langchain {
                " compat=langchain"
            } else {
                ""
            }
        )
    }

    fn spans(&self, text: &str) -> Result<Vec<Span>> {
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(text.len()));
        }
        if self.langchain {
            return self.lc_spans(text, PARALLEL_BLOCK);
        }
        let out = Vec::new();
        let measure = self.sizer.measure(text);
        let mut plan = Native {
            text,
            measure: &measure,
            sizer: self.sizer.as_ref(),
            size: self.size,
            overlap: self.overlap,
            levels: &self.separators,
            keep: self.keep,
            additive: self.sizer.is_additive(),
            ascii_end: ascii_end(text, &measure, 0, text.len()),
            out,
        };
        let mut run = Run::default();
        plan.split(0, text.len(), 0, &mut run)?;
        plan.finish(&mut run)?;
        Ok(plan.out)
    }
}

// ---------------------------------------------------------------------------------------------
// LangChain mode: `_split_text`, `_merge_splits` and `_join_docs`, on spans.

/// A piece of the text and its length as the sizer counts it on its own.
type LcSplit = (usize, usize, usize);

impl Recursive {
    /// `RecursiveCharacterTextSplitter.split_text` on the whole text. A large text whose first
    /// separator is a literal is cut into blocks at matches that the scan from the start makes
    /// too ([`Separator::block_cuts`]); the blocks' pieces are found and counted on all cores,
    /// and the pieces are merged on all cores in stretches that begin after a piece too big to
    /// merge (where the merge starts afresh). The spans are those of the serial split.
    fn lc_spans(&self, text: &str, block: usize) -> Result<Vec<Span>> {
        let doc = &self.lc_doc(text);
        let (sep, rest, _) = self.lc_choose(text, &self.separators)?;
        let cuts = (rayon::current_num_threads() > 1 && text.len() >= 2 * block)
            .then(|| sep.block_cuts(text, block, self.keep))
            .flatten()
            .filter(|c| c.len() > 2);
        let Some(cuts) = cuts else {
            let mut out = Vec::new();
            self.lc_split(doc, 0, text.len(), &self.separators, &mut out)?;
            return Ok(out);
        };
        let blocks: Vec<Vec<LcSplit>> = cuts
            .par_windows(2)
            .map(|w| self.lc_counted(doc, w[0], sep.pieces(&text[w[0]..w[1]], self.keep)))
            .collect::<Result<_>>()?;
        let splits = blocks.concat();
        // Stretches of about `block` bytes, each ending after a piece that is not merged.
        let mut stretches = Vec::new();
        let mut from = 0;
        for (i, &(_, e, len)) in splits.iter().enumerate() {
            if len >= self.size && e - splits[from].0 >= block {
                stretches.push(from..i + 1);
                from = i + 1;
            }
        }
        stretches.push(from..splits.len());
        let sep_len = self.lc_sep_len(sep);
        let parts: Vec<Vec<Span>> = stretches
            .into_par_iter()
            .map(|r| {
                let mut out = Vec::new();
                self.lc_pieces(doc, &splits[r], rest, sep_len, &mut out)?;
                Ok(out)
            })
            .collect::<Result<_>>()?;
        Ok(parts.concat())
    }

    /// The separator `_split_text` cuts `hay` with (the first that occurs, Python `re.search`;
    /// `""` always does), the separators below it, and its pieces of `hay`.
    fn lc_choose<'a>(
        &'a self,
        hay: &'a str,
        seps: &'a [Separator],
    ) -> Result<(&'a Separator, &'a [Separator], Pieces<'a>)> {
        for (i, sep) in seps.iter().enumerate() {
            if sep.is_chars() {
                return Ok((sep, &[], sep.pieces(hay, self.keep)));
            }
            if let Some(pieces) = sep.pieces_if_occurs(hay, self.keep)? {
                return Ok((sep, &seps[i + 1..], pieces));
            }
        }
        let last = &seps[seps.len() - 1];
        Ok((last, &[], last.pieces(hay, self.keep)))
    }

    /// What LangChain counts for the separator between merged pieces: its length when it is
    /// dropped, nothing when the pieces keep it.
    fn lc_sep_len(&self, sep: &Separator) -> usize {
        match sep.keep.unwrap_or(self.keep) {
            KeepSeparator::Drop => self.sizer.count(&sep.source),
            _ => 0,
        }
    }

    /// The document `text` as LangChain mode counts it.
    fn lc_doc<'a>(&self, text: &'a str) -> LcDoc<'a> {
        LcDoc {
            text,
            ascii_end: if self.counts_chars {
                ascii_prefix_len(text)
            } else {
                0
            },
        }
    }

    /// `sizer.count` of `doc.text[s..e]`: the length in bytes within the ASCII prefix of a
    /// sizer that counts chars.
    fn lc_count(&self, doc: &LcDoc, s: usize, e: usize) -> usize {
        if e <= doc.ascii_end {
            e - s
        } else {
            self.sizer.count(&doc.text[s..e])
        }
    }

    /// The pieces of `doc.text[start..]` that `pieces` finds, each with its count on its own.
    fn lc_counted(&self, doc: &LcDoc, start: usize, mut pieces: Pieces) -> Result<Vec<LcSplit>> {
        let mut splits = Vec::new();
        while let Some((s, e)) = pieces.next_piece()? {
            let (s, e) = (start + s, start + e);
            splits.push((s, e, self.lc_count(doc, s, e)));
        }
        Ok(splits)
    }

    /// `RecursiveCharacterTextSplitter._split_text` on `doc.text[start..end]`.
    fn lc_split(
        &self,
        doc: &LcDoc,
        start: usize,
        end: usize,
        seps: &[Separator],
        out: &mut Vec<Span>,
    ) -> Result<()> {
        let (sep, rest, pieces) = self.lc_choose(&doc.text[start..end], seps)?;
        let splits = self.lc_counted(doc, start, pieces)?;
        self.lc_pieces(doc, &splits, rest, self.lc_sep_len(sep), out)
    }

    /// The chunks of consecutive pieces of one level: pieces under the size are merged, a larger
    /// piece is cut with the separators below (`rest`), or kept as it is when there are none.
    fn lc_pieces(
        &self,
        doc: &LcDoc,
        splits: &[LcSplit],
        rest: &[Separator],
        sep_len: usize,
        out: &mut Vec<Span>,
    ) -> Result<()> {
        let mut good = 0; // splits[good..i] are waiting to be merged
        for (i, &(s, e, len)) in splits.iter().enumerate() {
            if len < self.size {
                continue;
            }
            self.lc_merge(doc, &splits[good..i], sep_len, out);
            good = i + 1;
            if rest.is_empty() {
                // LangChain appends the piece as is, unstripped.
                out.push(Span::new(s, e, len));
            } else {
                self.lc_split(doc, s, e, rest, out)?;
            }
        }
        self.lc_merge(doc, &splits[good..], sep_len, out);
        Ok(())
    }

    /// `TextSplitter._merge_splits`: greedy merging with LangChain's overlap popping.
    fn lc_merge(&self, doc: &LcDoc, splits: &[LcSplit], sep_len: usize, out: &mut Vec<Span>) {
        if splits.is_empty() {
            return;
        }
        let sep = |n: usize| if n > 0 { sep_len } else { 0 };
        let mut first = 0; // the current doc is splits[first..i]
        let mut total = 0usize;
        for (i, &(_, _, len)) in splits.iter().enumerate() {
            if first < i && total + len + sep(i - first) > self.size {
                self.lc_join(doc, splits[first].0, splits[i - 1].1, out);
                while first < i
                    && (total > self.overlap
                        || (total + len + sep(i - first) > self.size && total > 0))
                {
                    total -= splits[first].2 + sep(i - first - 1);
                    first += 1;
                }
            }
            total += len + sep(i - first);
        }
        self.lc_join(doc, splits[first].0, splits[splits.len() - 1].1, out);
    }

    /// `TextSplitter._join_docs` with `strip_whitespace=True`: the stripped span, if not empty.
    fn lc_join(&self, doc: &LcDoc, start: usize, end: usize, out: &mut Vec<Span>) {
        let (s, e) = strip_span(doc.text, start, end);
        if s < e {
            out.push(Span::new(s, e, self.lc_count(doc, s, e)));
        }
    }
}

/// A document in LangChain mode: its text, and where its ASCII prefix ends when the sizer counts
/// chars (0 otherwise).
struct LcDoc<'a> {
    text: &'a str,
    ascii_end: usize,
}

// ---------------------------------------------------------------------------------------------
// Native mode.

/// One document being chunked in native mode.
struct Native<'a> {
    text: &'a str,
    measure: &'a Measure,
    sizer: &'a dyn Sizer,
    size: usize,
    overlap: usize,
    levels: &'a [Separator],
    keep: KeepSeparator,
    additive: bool,
    /// With the char measure: the text being chunked is ASCII from its start up to here, so a
    /// piece that ends before it has as many units as bytes.
    ascii_end: usize,
    out: Vec<Span>,
}

/// [`Native::ascii_end`] when chunking `text[start..end]`.
fn ascii_end(text: &str, measure: &Measure, start: usize, end: usize) -> usize {
    match measure {
        Measure::Chars => start + ascii_prefix_len(&text[start..end]),
        Measure::Ends(_) => 0,
    }
}

/// A piece: its byte range, the separator level that cut it, its planned size, and the running
/// totals of planned units and of bytes of its run up to and including it (sums over any stretch
/// in O(1)).
#[derive(Debug, Clone, Copy)]
struct Piece {
    start: usize,
    end: usize,
    level: usize,
    units: usize,
    cum: usize,
    cum_bytes: usize,
}

/// Pieces being merged into chunks, in document order.
#[derive(Default)]
struct Run {
    pieces: VecDeque<Piece>,
    /// Planned units of all pieces in `pieces`.
    total: usize,
    /// Running total of every piece ever pushed.
    cum: usize,
    /// Running total of the byte lengths of every piece ever pushed.
    cum_bytes: usize,
    /// How many leading pieces were already emitted (the overlap carried into the next chunk).
    carried: usize,
}

impl Run {
    fn units(&self, from: usize, to: usize) -> usize {
        if to <= from {
            return 0;
        }
        let (a, b) = (self.pieces[from], self.pieces[to - 1]);
        b.cum - (a.cum - a.units)
    }

    /// True when `pieces[from..to]` follow each other without gaps (no dropped separator).
    fn contiguous(&self, from: usize, to: usize) -> bool {
        let (a, b) = (self.pieces[from], self.pieces[to - 1]);
        b.cum_bytes - (a.cum_bytes - (a.end - a.start)) == b.end - a.start
    }
}

/// Where the pieces of one level come from.
enum Source<'a> {
    Separator(Pieces<'a>),
    Units(UnitPieces<'a>),
}

impl<'a> Native<'a> {
    /// [`Measure::units_between`], without counting in the ASCII prefix of a char-measured text.
    fn units(&self, start: usize, end: usize) -> usize {
        if end <= self.ascii_end {
            end.saturating_sub(start)
        } else {
            self.measure.units_between(self.text, start, end)
        }
    }

    /// Cut `text[start..end]` with the separators from `level` down and feed the pieces to `run`.
    ///
    /// A piece too big to fit is cut at the next level and its pieces join the same run. Before
    /// that, the pending (not yet emitted) pieces become a chunk of their own, so chunks tend to
    /// end where the higher-level piece ends; but only if they make up at least a quarter of the
    /// size: a heading or a short lead-in line stays with the text that follows it (LangChain
    /// always flushes, which leaves headings alone in tiny chunks).
    fn split(&mut self, start: usize, end: usize, level: usize, run: &mut Run) -> Result<()> {
        let text = self.text;
        let levels = self.levels;
        let hay = &text[start..end];
        // The first level whose separator occurs; one search both tests and makes the first cut.
        let mut li = level;
        let mut source = loop {
            if li >= levels.len() || levels[li].is_chars() {
                li = levels.len();
                break Source::Units(UnitPieces::new(text, self.measure, start, end));
            }
            if let Some(pieces) = levels[li].pieces_if_occurs(hay, self.keep)? {
                break Source::Separator(pieces);
            }
            li += 1;
        };
        loop {
            let piece = match &mut source {
                Source::Separator(p) => p.next_piece()?.map(|(s, e)| (start + s, start + e)),
                Source::Units(u) => u.next(),
            };
            let Some((s, e)) = piece else { break };
            let units = self.units(s, e);
            if units <= self.size {
                self.push(run, s, e, li, units)?;
            } else if li < levels.len() {
                if run.total - run.units(0, run.carried) >= self.size.div_ceil(4) {
                    while run.pieces.len() > run.carried {
                        self.emit(run, Some(0))?;
                    }
                }
                self.split(s, e, li + 1, run)?;
            } else {
                self.finish(run)?;
                self.emit_whole(s, e)?;
            }
        }
        Ok(())
    }

    /// Chunk a piece that looked small enough but is not, on its own, from the next level down.
    fn split_alone(&mut self, piece: Piece) -> Result<()> {
        if piece.level >= self.levels.len() {
            return self.emit_whole(piece.start, piece.end);
        }
        let mut run = Run::default();
        self.split(piece.start, piece.end, piece.level + 1, &mut run)?;
        self.finish(&mut run)
    }

    /// Emit a unit that is too big on its own (only possible when one token's text is worth more
    /// units than `size` when counted alone): cut at char boundaries, or refuse with
    /// [`crate::Error::TooSmall`] when a single char does not fit.
    fn emit_whole(&mut self, start: usize, end: usize) -> Result<()> {
        let (mut s, e) = strip_span(self.text, start, end);
        while s < e {
            let tokens = self.sizer.count_span(self.text, self.measure, s, e);
            if tokens <= self.size {
                self.emit_span(s, e, tokens);
                break;
            }
            let (cut, t) = fit_by_chars(self.text, self.sizer, self.measure, s, e, self.size)?;
            self.emit_span(s, cut, t);
            s = cut;
        }
        Ok(())
    }

    fn push(
        &mut self,
        run: &mut Run,
        start: usize,
        end: usize,
        level: usize,
        units: usize,
    ) -> Result<()> {
        while !run.pieces.is_empty() && run.total + units > self.size {
            self.emit(run, Some(units))?;
        }
        run.cum += units;
        run.cum_bytes += end - start;
        run.total += units;
        run.pieces.push_back(Piece {
            start,
            end,
            level,
            units,
            cum: run.cum,
            cum_bytes: run.cum_bytes,
        });
        Ok(())
    }

    fn finish(&mut self, run: &mut Run) -> Result<()> {
        while !run.pieces.is_empty() {
            self.emit(run, None)?;
        }
        Ok(())
    }

    /// Emit the longest prefix of the run that fits for real, then drop pieces from the front
    /// until the emitted tail is at most `overlap` units and `incoming` fits (LangChain's rule).
    /// Always consumes at least one piece. `incoming == None` flushes the run.
    fn emit(&mut self, run: &mut Run, incoming: Option<usize>) -> Result<()> {
        let mut k = run.pieces.len();
        loop {
            let (s, e) = strip_span(self.text, run.pieces[0].start, run.pieces[k - 1].end);
            if s == e {
                break; // whitespace only
            }
            let real = self.chunk_count(run, k, s, e);
            if real <= self.size {
                self.emit_span(s, e, real);
                break;
            }
            if k > run.carried + 1 {
                // Give back pieces from the end worth at least the excess.
                let excess = real - self.size;
                let mut given = 0;
                while k > run.carried + 1 && given < excess {
                    k -= 1;
                    given += run.pieces[k].units;
                }
            } else if run.carried > 0 {
                // Only overlap and one new piece left: give up overlap rather than content.
                let p = run.pieces.pop_front().expect("k >= 1");
                run.total -= p.units;
                run.carried -= 1;
                k -= 1;
            } else {
                // One piece that only looked small enough.
                self.split_alone(run.pieces[0])?;
                break;
            }
        }
        if incoming.is_none() && k == run.pieces.len() {
            run.pieces.clear();
            run.total = 0;
            run.carried = 0;
            return Ok(());
        }
        let mut popped = 0;
        while popped < k {
            let tail = run.units(0, k - popped);
            let fits = run.total + incoming.unwrap_or(0) <= self.size;
            // (Without overlap nothing is carried, not even pieces of zero units.)
            if popped > 0 && self.overlap > 0 && tail <= self.overlap && fits {
                break;
            }
            let p = run.pieces.pop_front().expect("popped < k");
            run.total -= p.units;
            popped += 1;
        }
        run.carried = k - popped;
        Ok(())
    }

    /// The real size of `text[s..e]`, the stripped span of `run.pieces[..k]`. With the char
    /// measure and an additive sizer every char counts one, so contiguous pieces give it without
    /// counting the chunk again: their planned units less the chars stripped off the ends.
    fn chunk_count(&self, run: &Run, k: usize, s: usize, e: usize) -> usize {
        if self.additive && matches!(self.measure, Measure::Chars) && run.contiguous(0, k) {
            let (first, last) = (run.pieces[0].start, run.pieces[k - 1].end);
            let stripped = count_chars(&self.text[first..s]) + count_chars(&self.text[e..last]);
            return run.units(0, k) - stripped;
        }
        self.real_count(s, e)
    }

    /// The real size of a chunk; for additive sizers the planned count when the chunk ends on a
    /// unit boundary (where it is exact).
    fn real_count(&self, start: usize, end: usize) -> usize {
        let exact = self.additive
            && match self.measure {
                Measure::Chars => true,
                Measure::Ends(ends) => {
                    end == self.text.len() || ends.binary_search(&(end as u32)).is_ok()
                }
            };
        if exact {
            self.units(start, end)
        } else {
            self.sizer.count_span(self.text, self.measure, start, end)
        }
    }

    /// Append a chunk unless it lies inside the previous one (possible when the only new text
    /// after the overlap was whitespace).
    fn emit_span(&mut self, start: usize, end: usize, tokens: usize) {
        if let Some(last) = self.out.last() {
            if start >= last.start && end <= last.end {
                return;
            }
        }
        self.out.push(Span::new(start, end, tokens));
    }
}

/// The pieces of `text[start..end]` between consecutive unit ends (chars for the char measure),
/// snapped to char boundaries, produced lazily.
struct UnitPieces<'a> {
    text: &'a str,
    ends: Option<&'a [u32]>,
    idx: usize,
    pos: usize,
    end: usize,
}

impl<'a> UnitPieces<'a> {
    fn new(text: &'a str, measure: &'a Measure, start: usize, end: usize) -> Self {
        let ends = match measure {
            Measure::Chars => None,
            Measure::Ends(e) => Some(e.as_slice()),
        };
        let idx = ends.map_or(0, |e| e.partition_point(|&x| (x as usize) <= start));
        Self {
            text,
            ends,
            idx,
            pos: start,
            end,
        }
    }
}

impl Iterator for UnitPieces<'_> {
    type Item = (usize, usize);

    fn next(&mut self) -> Option<(usize, usize)> {
        while self.pos < self.end {
            let cut = match self.ends {
                None => {
                    let c = self.text[self.pos..].chars().next().expect("pos < end");
                    self.pos + c.len_utf8()
                }
                Some(e) => match e.get(self.idx) {
                    Some(&x) if (x as usize) < self.end => {
                        self.idx += 1;
                        floor_char_boundary(self.text, x as usize)
                    }
                    _ => self.end,
                },
            };
            if cut > self.pos {
                let piece = (self.pos, cut);
                self.pos = cut;
                return Some(piece);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizer::{CharSizer, WordSizer};
    use proptest::prelude::*;

    const WET: &str = "Hoofdstuk 1\nArtikel 1\nIn deze verordening wordt verstaan onder bewoner: \
                       degene die woont.\nArtikel 2\nDe raad stelt regels vast.\n\nArtikel 3\nDit \
                       besluit treedt in werking op 1 januari 2025.";
    const ARTIKEL: [&str; 5] = [r"\n(?=Artikel \d+)", r"\n\n", r"\n", " ", ""];

    fn texts<'t>(chunker: &Recursive, text: &'t str) -> Vec<&'t str> {
        let spans = chunker.spans(text).unwrap();
        spans.iter().map(|s| &text[s.start..s.end]).collect()
    }

    fn lc(size: usize, overlap: usize) -> Recursive {
        Recursive::langchain(Arc::new(CharSizer), size, overlap).unwrap()
    }

    /// Not additive: counts pairs of chars, so a span's real count differs from the planned one
    /// when it does not start on a pair boundary.
    struct Pairs;
    impl Sizer for Pairs {
        fn name(&self) -> &str {
            "pairs"
        }
        fn count(&self, text: &str) -> usize {
            text.chars().count().div_ceil(2)
        }
        fn measure(&self, text: &str) -> Measure {
            let mut ends: Vec<u32> = text
                .char_indices()
                .skip(2)
                .step_by(2)
                .map(|(b, _)| b as u32)
                .collect();
            if !text.is_empty() {
                ends.push(text.len() as u32);
            }
            Measure::Ends(ends)
        }
    }

    /// Not additive and always over the plan: every count adds two special tokens, like a Hugging
    /// Face tokenizer that counts `[CLS]` and `[SEP]`.
    struct Specials;
    impl Sizer for Specials {
        fn name(&self) -> &str {
            "specials"
        }
        fn count(&self, text: &str) -> usize {
            if text.is_empty() {
                0
            } else {
                text.chars().count() + 2
            }
        }
        fn measure(&self, text: &str) -> Measure {
            char_ends(text)
        }
    }

    /// Every char a unit, as token ends.
    fn char_ends(text: &str) -> Measure {
        Measure::Ends(
            text.char_indices()
                .skip(1)
                .map(|(b, _)| b as u32)
                .chain((!text.is_empty()).then_some(text.len() as u32))
                .collect(),
        )
    }

    /// Chars counted by `count` alone: its measure is not [`Measure::Chars`], so LangChain mode
    /// counts every piece (the reference for its ASCII-prefix lengths).
    struct CharsByCount;
    impl Sizer for CharsByCount {
        fn name(&self) -> &str {
            "chars-by-count"
        }
        fn count(&self, text: &str) -> usize {
            text.chars().count()
        }
        fn measure(&self, text: &str) -> Measure {
            char_ends(text)
        }
    }

    /// Native invariants: sorted char-boundary spans, stripped, real counts within the limit,
    /// and every non-whitespace char covered.
    fn check_native(sizer: Arc<dyn Sizer>, text: &str, size: usize, overlap: usize) {
        let chunker = Recursive::new(sizer.clone(), size, overlap).unwrap();
        let spans = chunker.spans(text).unwrap();
        let mut covered = 0;
        for (i, s) in spans.iter().enumerate() {
            assert!(
                s.start < s.end && text.is_char_boundary(s.start) && text.is_char_boundary(s.end)
            );
            assert_eq!(strip_span(text, s.start, s.end), (s.start, s.end));
            assert_eq!(s.tokens, sizer.count(&text[s.start..s.end]), "span {s:?}");
            assert!(
                s.tokens <= size,
                "{:?} has {} > {size}",
                &text[s.start..s.end],
                s.tokens
            );
            if i > 0 {
                assert!(s.start >= spans[i - 1].start, "sorted");
                assert!(
                    overlap > 0 || s.start >= spans[i - 1].end,
                    "no overlap asked"
                );
            }
            let gap = &text[covered.min(s.start)..s.start];
            assert!(gap.chars().all(crate::text::is_py_space), "lost {gap:?}");
            covered = covered.max(s.end);
        }
        assert!(text[covered..].chars().all(crate::text::is_py_space));
    }

    #[test]
    fn regex_lookahead_separator_on_dutch_articles() {
        let chunker = lc(80, 0).with_separators(&ARTIKEL, true).unwrap();
        // Reference: LangChain 1.1.3 RecursiveCharacterTextSplitter(chunk_size=80,
        // chunk_overlap=0, separators=ARTIKEL, is_separator_regex=True).
        assert_eq!(
            texts(&chunker, WET),
            [
                "Hoofdstuk 1",
                "Artikel 1\nIn deze verordening wordt verstaan onder bewoner: degene die woont.",
                "Artikel 2\nDe raad stelt regels vast.",
                "Artikel 3\nDit besluit treedt in werking op 1 januari 2025.",
            ]
        );
        let native = Recursive::new(Arc::new(CharSizer), 80, 0)
            .unwrap()
            .with_separators(&ARTIKEL, true)
            .unwrap();
        let got = texts(&native, WET);
        assert!(
            got[1..].iter().all(|c| c.starts_with("Artikel ")),
            "{got:?}"
        );
        check_native(Arc::new(CharSizer), WET, 80, 0);
    }

    #[test]
    fn keep_separator_start_end_and_drop() {
        let t = "aaa|bbb|ccc|ddd";
        let with = |keep| {
            lc(8, 0)
                .with_separators(&["|", ""], false)
                .unwrap()
                .with_keep_separator(keep)
        };
        assert_eq!(
            texts(&with(KeepSeparator::Start), t),
            ["aaa|bbb", "|ccc|ddd"]
        );
        assert_eq!(texts(&with(KeepSeparator::End), t), ["aaa|bbb|", "ccc|ddd"]);
        assert_eq!(texts(&with(KeepSeparator::Drop), t), ["aaa|bbb", "ccc|ddd"]);
        // Native mode keeps sentence ends with their sentence whatever the setting.
        let native = Recursive::new(Arc::new(CharSizer), 20, 0).unwrap();
        assert_eq!(
            texts(&native, "Eerste zin hier. Tweede zin daar! Derde?"),
            ["Eerste zin hier.", "Tweede zin daar!", "Derde?"]
        );
    }

    #[test]
    fn overlap_langchain_and_native() {
        let t = "een twee drie vier vijf zes zeven acht negen tien";
        assert_eq!(
            texts(&lc(15, 5), t),
            [
                "een twee drie",
                "drie vier vijf",
                "vijf zes zeven",
                "acht negen",
                "tien"
            ]
        );
        let native = Recursive::new(Arc::new(CharSizer), 15, 5).unwrap();
        // Whole words only, so a tail longer than the overlap is not carried (as in LangChain).
        assert_eq!(
            texts(&native, t),
            [
                "een twee drie",
                "drie vier vijf",
                "vijf zes zeven",
                "acht negen",
                "tien"
            ]
        );
        check_native(Arc::new(CharSizer), t, 15, 5);
        check_native(Arc::new(WordSizer), t, 3, 1);
    }

    #[test]
    fn size_is_a_hard_limit_for_chars_words_and_non_additive_sizers() {
        let text = format!(
            "{WET}\n\n{}",
            "Korte zin. Nog één, met komma; en meer! ".repeat(40)
        );
        for size in [1usize, 2, 3, 7, 20, 64, 200] {
            for overlap in [0, size / 3, size.saturating_sub(1)] {
                check_native(Arc::new(CharSizer), &text, size, overlap);
                check_native(Arc::new(WordSizer), &text, size, overlap);
                check_native(Arc::new(Pairs), &text, size, overlap);
                if size >= 5 {
                    check_native(Arc::new(Specials), &text, size, overlap);
                }
            }
        }
    }

    #[test]
    fn headings_stay_with_their_text_but_paragraphs_end_chunks() {
        let long = "Deze zin is precies lang genoeg. ".repeat(6);
        let native = Recursive::new(Arc::new(CharSizer), 100, 0).unwrap();
        // A 5-char heading before an oversized paragraph joins its first sentences.
        let t = format!("# Kop\n\n{long}");
        let got = texts(&native, &t);
        assert!(got[0].starts_with("# Kop\n\nDeze zin"), "{got:?}");
        // A paragraph of at least a quarter of the size ends its chunk.
        let t = format!("Een eerste alinea van ruim vijfentwintig tekens.\n\n{long}");
        let got = texts(&native, &t);
        assert_eq!(got[0], "Een eerste alinea van ruim vijfentwintig tekens.");
        check_native(Arc::new(CharSizer), &t, 100, 30);
    }

    #[test]
    fn empty_and_whitespace_only() {
        for t in ["", " ", "\n\n\t \r\n", "\u{a0}\u{2003}"] {
            assert!(lc(10, 2).spans(t).unwrap().is_empty());
            let native = Recursive::new(Arc::new(CharSizer), 10, 2).unwrap();
            assert!(native.spans(t).unwrap().is_empty());
            assert!(Recursive::new(Arc::new(WordSizer), 3, 0)
                .unwrap()
                .spans(t)
                .unwrap()
                .is_empty());
        }
    }

    #[test]
    fn a_3000_char_word() {
        let word = "x".repeat(3000);
        let text = format!("kort begin {word} en eind");
        let native = Recursive::new(Arc::new(CharSizer), 100, 10).unwrap();
        let got = texts(&native, &text);
        // The short lead-in stays with the start of the word; then 90 new chars per chunk.
        assert!(got[0].starts_with("kort begin xxx"), "{}", got[0]);
        assert!(got.iter().all(|c| c.chars().count() <= 100));
        assert_eq!(got.len(), 34);
        assert!(got[33].ends_with("x en eind"), "{}", got[33]);
        check_native(Arc::new(CharSizer), &text, 100, 10);
        check_native(Arc::new(Pairs), &text, 100, 10);
        check_native(Arc::new(Specials), &text, 100, 10);
        check_native(Arc::new(WordSizer), &text, 2, 0);
        // LangChain: the word is cut into 99-char pieces plus the rest (strict `<` on pieces).
        let lc_chunks = texts(&lc(100, 0), &text);
        assert!(lc_chunks.iter().all(|c| c.chars().count() <= 100));
        assert_eq!(lc_chunks.concat().replace(' ', ""), text.replace(' ', ""));
    }

    #[test]
    fn pieces_without_units_are_not_repeated_without_overlap() {
        // "中文字符。" cuts inside a whitespace-delimited word, so such pieces hold no word end.
        let t = "art. 3.1 Überprüfung dhr. ? 1.400,50\n\ntwpdwsdeerbĳsbeer éénybtivlltrait \t Artikel \
                 4中文字符。Artikel 4czgmuvqgfc👩\u{200d}👩\u{200d}👧中文字符。中文字符。  wpiztlwfjh\
                 中文字符。👩\u{200d}👩\u{200d}👧dhr. Vmzauems\r\n\r\np . Überprüfung ftnu ? ";
        for size in 1..12 {
            check_native(Arc::new(WordSizer), t, size, 0);
        }
    }

    #[test]
    fn crlf_paragraphs() {
        let t = "Alinea een.\r\n\r\nAlinea twee, langer.\r\nRegel twee.\r\n";
        let native = Recursive::new(Arc::new(CharSizer), 25, 0).unwrap();
        assert_eq!(
            texts(&native, t),
            ["Alinea een.", "Alinea twee, langer.", "Regel twee."]
        );
        check_native(Arc::new(CharSizer), t, 5, 2);
        assert_eq!(
            texts(&lc(25, 0), t),
            ["Alinea een.", "Alinea twee, langer.", "Regel twee."]
        );
    }

    #[test]
    fn unicode_never_splits_a_char() {
        let t = "Één café 👩‍👩‍👧‍👦 en 🇳🇱; 中文句子。日本語の文。한국어 문장. ".repeat(20);
        for size in [1, 3, 10, 50] {
            check_native(Arc::new(CharSizer), &t, size, 0);
            check_native(Arc::new(Pairs), &t, size.max(2), 1);
        }
        for size in [1, 3, 10, 50] {
            for c in lc(size, 0).spans(&t).unwrap() {
                assert!(t.is_char_boundary(c.start) && t.is_char_boundary(c.end));
            }
        }
    }

    #[test]
    fn bad_regex_is_a_pattern_error() {
        let err = lc(10, 0).with_separators(&["(unclosed"], true).unwrap_err();
        assert!(matches!(err, Error::Pattern { .. }), "{err}");
        assert!(Recursive::new(Arc::new(CharSizer), 10, 10).is_err());
    }

    /// `cargo test --release -p chunklab-core recursive_throughput -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn recursive_throughput() {
        let dir = chunklab_test_support::shared_path("golden/langchain/inputs");
        let mut corpus = String::new();
        for entry in std::fs::read_dir(dir).into_iter().flatten() {
            corpus.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default());
            corpus.push_str("\n\n");
        }
        if corpus.is_empty() {
            corpus = format!("{WET}\n\n");
        }
        let prose = corpus.repeat((70 << 20) / corpus.len() + 1);
        let no_space = "x".repeat(70 << 20);
        let words = format!("{} ", "y".repeat(3000)).repeat((70 << 20) / 3001);
        type Case<'t> = (&'t str, &'t str, Arc<dyn Sizer>, usize, usize);
        let cases: [Case; 5] = [
            (
                "prose chars 1000/200",
                &prose,
                Arc::new(CharSizer),
                1000,
                200,
            ),
            ("prose words 200/20", &prose, Arc::new(WordSizer), 200, 20),
            ("prose pairs 500/50", &prose, Arc::new(Pairs), 500, 50),
            (
                "no whitespace chars 1000/100",
                &no_space,
                Arc::new(CharSizer),
                1000,
                100,
            ),
            (
                "3000-char words chars 1000/0",
                &words,
                Arc::new(CharSizer),
                1000,
                0,
            ),
        ];
        for (name, text, sizer, size, overlap) in cases {
            let chunker = Recursive::new(sizer, size, overlap).unwrap();
            let t = std::time::Instant::now();
            let n = chunker.spans(text).unwrap().len();
            let secs = t.elapsed().as_secs_f64();
            let mib = text.len() as f64 / 1048576.0;
            eprintln!(
                "{name}: {mib:.0} MiB in {secs:.2}s = {:.0} MiB/s, {n} chunks",
                mib / secs
            );
        }
    }

    /// LangChain spans of `text` cut in blocks of `block` bytes on two threads, and on one.
    fn lc_both(chunker: &Recursive, text: &str, block: usize) -> (Vec<Span>, Vec<Span>) {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let blocks = pool.install(|| chunker.lc_spans(text, block)).unwrap();
        let mut serial = Vec::new();
        let seps = &chunker.separators;
        chunker
            .lc_split(&chunker.lc_doc(text), 0, text.len(), seps, &mut serial)
            .unwrap();
        (blocks, serial)
    }

    #[test]
    fn langchain_blocks_are_the_serial_split() {
        // Runs of blank lines of every parity, a self-overlapping custom separator, keep modes.
        let text = "Artikel 1\n\nDe raad.\n\n\nHet college.\n\n\n\nSlot één.\n".repeat(40);
        for keep in [
            KeepSeparator::Start,
            KeepSeparator::End,
            KeepSeparator::Drop,
        ] {
            for seps in [&["\n\n", "\n", " ", ""][..], &["\n\n\n", "aa", ""][..]] {
                for (size, overlap) in [(12, 4), (30, 0), (200, 50)] {
                    let chunker = lc(size, overlap)
                        .with_separators(seps, false)
                        .unwrap()
                        .with_keep_separator(keep);
                    let (blocks, serial) = lc_both(&chunker, &text, 16);
                    assert!(serial.len() > 5);
                    assert_eq!(blocks, serial, "{keep:?} {seps:?} {size}/{overlap}");
                }
            }
        }
    }

    proptest! {
        #[test]
        fn native_invariants_hold_on_random_text(
            text in "[a-cé😀 .,;!?\n\r\t]{0,300}",
            size in 1usize..40,
            overlap_pct in 0usize..100,
            block in 1usize..40,
        ) {
            let overlap = size * overlap_pct / 100;
            check_native(Arc::new(CharSizer), &text, size, overlap);
            check_native(Arc::new(WordSizer), &text, size, overlap);
            check_native(Arc::new(Pairs), &text, size.max(2), overlap);
            if size >= 5 {
                check_native(Arc::new(Specials), &text, size, overlap);
            }
            for keep in [KeepSeparator::Start, KeepSeparator::End, KeepSeparator::Drop] {
                let chunker = lc(size, overlap).with_keep_separator(keep);
                let (blocks, serial) = lc_both(&chunker, &text, block);
                for s in &blocks {
                    prop_assert_eq!(s.tokens, count_chars(&text[s.start..s.end]));
                }
                prop_assert_eq!(blocks, serial);
                let chunker = chunker.with_separators(&["aa", "\n", ""], false).unwrap();
                let (blocks, serial) = lc_both(&chunker, &text, block);
                prop_assert_eq!(blocks, serial);
            }
            for s in lc(size, overlap).spans(&text).unwrap() {
                prop_assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
                prop_assert_eq!(s.tokens, count_chars(&text[s.start..s.end]));
            }
        }

        /// LangChain mode's lengths of pieces in a text's ASCII prefix (bytes) are the counts.
        #[test]
        fn langchain_ascii_prefix_counts_are_chars(
            ascii in "[a-c .\n]{0,400}",
            rest in "[a-cé😀 .\n]{0,100}",
            size in 1usize..60,
            overlap_pct in 0usize..100,
            block in 1usize..64,
        ) {
            let text = ascii + &rest;
            let overlap = size * overlap_pct / 100;
            let by_count = Recursive::langchain(Arc::new(CharsByCount), size, overlap).unwrap();
            let (reference, _) = lc_both(&by_count, &text, block);
            let (blocks, serial) = lc_both(&lc(size, overlap), &text, block);
            prop_assert_eq!(&blocks, &reference);
            prop_assert_eq!(&serial, &reference);
        }
    }
}
