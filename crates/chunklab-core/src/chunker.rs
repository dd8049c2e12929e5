//! The `Chunker` seam and the function that turns a strategy's spans into [`Chunk`]s.

use crate::chunk::{chunk_id, chunk_ids, Chunk, ChunkMeta, IdInput, Span};
use crate::document::ParsedDocument;
use crate::error::Result;
use crate::text::{CharCursor, LineCursor};
use rayon::prelude::*;

/// A chunking strategy. Given a document's text it returns spans in document order (sorted by
/// start, then end; a hierarchical strategy returns its levels in pre-order, a parent before the
/// children that share its start). Spans may overlap (overlap is expressed in spans) but every span must lie on
/// char boundaries and respect the strategy's size limit in its sizer's real units.
pub trait Chunker: Send + Sync {
    /// Strategy name as used on the command line (`fixed`, `recursive`, ...).
    fn strategy(&self) -> &'static str;

    /// Canonical description of the configuration; part of every chunk id.
    fn config(&self) -> String;

    /// The chunk spans of `text`.
    fn spans(&self, text: &str) -> Result<Vec<Span>>;

    /// The chunks of plain text with their metadata. The default is [`Chunker::spans`] with
    /// empty metadata; hierarchical strategies override it to give every chunk its `level` and
    /// `parent_index` (which [`chunk_document`] resolves into `parent_id`).
    fn chunk_text(&self, text: &str) -> Result<Vec<(Span, ChunkMeta)>> {
        Ok(self
            .spans(text)?
            .into_iter()
            .map(|s| (s, ChunkMeta::default()))
            .collect())
    }

    /// Whether the strategy needs a parsed document's structure ([`Chunker::chunk_parsed`]) and
    /// cannot chunk plain text ([`Chunker::spans`]). Callers may skip parsing for the others.
    fn needs_structure(&self) -> bool {
        false
    }

    /// Whether [`Chunker::chunk_parsed`] is the default one: [`Chunker::spans`] on the text
    /// with the page span and source lines from a [`Locator`], reading nothing else of the
    /// document (no element kinds, headings or metadata). Callers may then hand it a document
    /// parsed only as far as text, pages and lines go (plain text: no heading or list
    /// detection) and get the same chunks. `false` unless a strategy opts in, so a strategy or
    /// wrapper with its own `chunk_parsed` is always given the full parse.
    fn reads_only_locations(&self) -> bool {
        false
    }

    /// The chunks of a parsed document: spans of `doc.text` with their metadata. `Span.tokens`
    /// is the real size of what is embedded, i.e. of `meta.prefix` + the span text.
    ///
    /// The default runs [`Chunker::spans`] on the text and fills the page span and source lines
    /// from the document's elements; structure-aware strategies (`headings`, `elements`) override
    /// it and return [`crate::Error::Config`] from `spans`.
    ///
    /// ```
    /// use chunklab_core::document::{Element, ElementKind, ParsedDocument};
    /// use chunklab_core::{strategies::Fixed, CharSizer, Chunker};
    /// use std::sync::Arc;
    /// let mut doc = ParsedDocument::plain("Pagina een.Pagina twee.".into());
    /// doc.elements.push(Element::new(ElementKind::Paragraph, 0, 11).with_page(1));
    /// doc.elements.push(Element::new(ElementKind::Paragraph, 11, 23).with_page(2));
    /// doc.pages = Some(2);
    /// let chunks = Fixed::new(Arc::new(CharSizer), 15, 0).unwrap().chunk_parsed(&doc).unwrap();
    /// assert_eq!((chunks[0].1.page, chunks[0].1.page_end), (Some(1), Some(2)));
    /// assert_eq!((chunks[1].1.page, chunks[1].1.page_end), (Some(2), Some(2)));
    /// ```
    fn chunk_parsed(&self, doc: &ParsedDocument) -> Result<Vec<(Span, ChunkMeta)>> {
        let spans = self.spans(&doc.text)?;
        let locator = Locator::new(doc);
        Ok(spans
            .into_iter()
            .map(|s| (s, locator.meta(s.start, s.end)))
            .collect())
    }
}

/// Finds where a span of a parsed document lies: its first and last page and its source line
/// range. Built once per document.
///
/// Where the document's text is its source file ([`ParsedDocument::text_is_source`]) the lines
/// are those of the span itself, counted on the text's own newlines; for extracted text they are
/// the range of the elements the span overlaps (the only source positions known).
#[derive(Debug)]
pub struct Locator<'a> {
    doc: &'a ParsedDocument,
    paged: bool,
    lined: bool,
    /// Lines of the text's own newlines, where the text is the source.
    own_lines: Option<LineCursor<'a>>,
}

/// How far back [`Locator`] looks for elements that start before a span and contain its start.
const CONTAINER_LOOKBACK: usize = 16;

impl<'a> Locator<'a> {
    /// A locator over `doc`'s pages and lines.
    pub fn new(doc: &'a ParsedDocument) -> Self {
        let lined = doc.elements.iter().any(|e| e.lines.is_some());
        Self {
            doc,
            paged: doc.elements.iter().any(|e| e.page.is_some()),
            lined,
            own_lines: (lined && doc.text_is_source()).then(|| LineCursor::new(&doc.text)),
        }
    }

    /// Metadata with `page`, `page_end` and `lines` of `doc.text[start..end]` filled (where the
    /// document has them); everything else empty.
    ///
    /// ```
    /// use chunklab_core::document::{Element, ElementKind, ParsedDocument};
    /// use chunklab_core::Locator;
    /// let mut doc = ParsedDocument::plain("een\ntwee\ndrie\nvier\n".into());
    /// doc.elements.push(Element::new(ElementKind::Paragraph, 0, 18).with_lines(1, 4));
    /// // A span inside the paragraph gets its own lines, not the paragraph's.
    /// assert_eq!(Locator::new(&doc).meta(4, 13).lines, Some((2, 3)));
    /// ```
    pub fn meta(&self, start: usize, end: usize) -> ChunkMeta {
        let mut meta = ChunkMeta::default();
        if self.paged {
            meta.page = self.doc.page_at(start);
            meta.page_end = self.doc.page_at(end.saturating_sub(1).max(start));
        }
        if self.lined {
            meta.lines = match &self.own_lines {
                Some(cursor) => Some(cursor.span_lines(start, end)),
                None => self.element_lines(start, end),
            };
        }
        meta
    }

    /// Smallest first line and largest last line of the elements overlapping `start..end`.
    fn element_lines(&self, start: usize, end: usize) -> Option<(u32, u32)> {
        let els = &self.doc.elements;
        let upto = els.partition_point(|e| e.start < end);
        let mut found: Option<(u32, u32)> = None;
        let mut before = 0;
        for e in els[..upto].iter().rev() {
            if e.start < start {
                before += 1;
                if before > CONTAINER_LOOKBACK {
                    break;
                }
                if e.end <= start {
                    continue;
                }
            }
            if let Some((a, b)) = e.lines {
                found = Some(match found {
                    Some((x, y)) => (x.min(a), y.max(b)),
                    None => (a, b),
                });
            }
        }
        found
    }
}

/// A document to chunk: its id, where it came from, and its text.
#[derive(Debug, Clone, Copy)]
pub struct Document<'a> {
    pub doc_id: &'a str,
    pub source: &'a str,
    pub text: &'a str,
}

impl<'a> Document<'a> {
    pub fn new(doc_id: &'a str, source: &'a str, text: &'a str) -> Self {
        Self {
            doc_id,
            source,
            text,
        }
    }
}

/// Chunk a document: run the strategy, borrow each span's text, add char offsets, index/total
/// and stable ids.
///
/// ```
/// use chunklab_core::{chunk_document, Document, strategies::Fixed, CharSizer};
/// use std::sync::Arc;
/// let text = "Een korte tekst over windenergie.";
/// let chunker = Fixed::new(Arc::new(CharSizer), 10, 2).unwrap();
/// let chunks = chunk_document(&Document::new("doc-1", "mem", text), &chunker).unwrap();
/// assert_eq!(chunks[0].text, "Een korte ");
/// assert!(chunks.iter().all(|c| &text[c.start_byte..c.end_byte] == c.text));
/// ```
pub fn chunk_document<'a>(doc: &Document<'a>, chunker: &dyn Chunker) -> Result<Vec<Chunk<'a>>> {
    let parts = chunker.chunk_text(doc.text)?;
    make_chunks(doc.doc_id, doc.source, doc.text, chunker, parts)
}

/// [`chunk_document`] for a document too large to hold all its chunks at once (a chunk is a few
/// hundred bytes; a 1 GB text makes a million of them): the strategy's spans and metadata are made
/// at once, the chunks `window` at a time. `each` gets a slice of chunks and the range of it that
/// is new; the slice also holds the chunk before and the chunk after that range when the document
/// has them, so a writer can name neighbours. The new ranges, in order, are exactly the chunks
/// [`chunk_document`] gives (ids, offsets, `index`, `total`, parent ids). Returns the number of
/// chunks.
///
/// ```
/// use chunklab_core::{chunk_document, chunk_document_windowed, Document, strategies::Fixed, CharSizer};
/// use std::sync::Arc;
/// let doc = Document::new("doc-1", "mem", "Een korte tekst over windenergie op zee.");
/// let chunker = Fixed::new(Arc::new(CharSizer), 10, 0).unwrap();
/// let mut ids = Vec::new();
/// let n = chunk_document_windowed(&doc, &chunker, 2, |chunks, new| {
///     ids.extend(chunks[new].iter().map(|c| c.id.clone()));
///     Ok(())
/// })
/// .unwrap();
/// let all = chunk_document(&doc, &chunker).unwrap();
/// assert_eq!(n, all.len());
/// assert_eq!(ids, all.iter().map(|c| c.id.clone()).collect::<Vec<_>>());
/// ```
pub fn chunk_document_windowed<'a>(
    doc: &Document<'a>,
    chunker: &dyn Chunker,
    window: usize,
    mut each: impl FnMut(&[Chunk<'a>], std::ops::Range<usize>) -> Result<()>,
) -> Result<usize> {
    let parts = chunker.chunk_text(doc.text)?;
    check_parents(chunker.strategy(), &parts)?;
    let total = parts.len();
    let window = window.max(1);
    let mut maker = ChunkMaker::new(doc.doc_id, doc.source, doc.text, chunker, total);
    let mut start = 0;
    while start < total {
        let end = (start + window).min(total);
        let (lo, hi) = (start.saturating_sub(1), (end + 1).min(total));
        let mut window_parts: Vec<(Span, ChunkMeta)> = parts[lo..hi]
            .iter()
            .map(|(s, meta)| {
                let mut meta = meta.clone();
                if let Some(p) = meta.parent_index {
                    let (ps, pmeta) = &parts[p];
                    meta.parent_id = Some(maker.id(*ps, pmeta));
                }
                (*s, meta)
            })
            .collect();
        let chunks = maker.make_all(lo, &mut window_parts);
        each(&chunks, start - lo..end - lo)?;
        start = end;
    }
    Ok(total)
}

/// Builds the chunks of one document from a strategy's spans: the text borrowed from the
/// document, char offsets (one cursor over the text), the content-hash id. The one place a
/// [`Chunk`] is assembled from a span, for [`chunk_document`], [`chunk_document_windowed`],
/// [`chunk_parsed_document`] and [`spans_to_chunks`].
struct ChunkMaker<'a> {
    fields: Fields<'a>,
    cursor: Cursors<'a>,
}

/// What every chunk of a document shares.
struct Fields<'a> {
    doc_id: &'a str,
    source: &'a str,
    text: &'a str,
    config: String,
    strategy: &'static str,
    total: usize,
    /// Fill each chunk's `lines` from the text's own newlines ([`chunk_source_text`]).
    own_lines: bool,
}

/// Where a run of chunks is in the text: char offsets and (with own lines) line numbers are
/// counted from the last chunk on.
struct Cursors<'a> {
    chars: CharCursor<'a>,
    lines: LineCursor<'a>,
}

impl<'a> Cursors<'a> {
    fn new(text: &'a str) -> Self {
        Cursors {
            chars: CharCursor::new(text),
            lines: LineCursor::new(text),
        }
    }
}

impl<'a> ChunkMaker<'a> {
    fn new(
        doc_id: &'a str,
        source: &'a str,
        text: &'a str,
        chunker: &dyn Chunker,
        total: usize,
    ) -> Self {
        Self::with_config(doc_id, source, text, chunker, total, chunker.config())
    }

    /// [`ChunkMaker::new`] with the chunker's `config` already formatted (documents chunked
    /// together share one).
    fn with_config(
        doc_id: &'a str,
        source: &'a str,
        text: &'a str,
        chunker: &dyn Chunker,
        total: usize,
        config: String,
    ) -> Self {
        ChunkMaker {
            fields: Fields {
                doc_id,
                source,
                text,
                config,
                strategy: chunker.strategy(),
                total,
                own_lines: false,
            },
            cursor: Cursors::new(text),
        }
    }

    /// The id of the chunk `span` with metadata `meta` ([`chunk_id_for`]).
    fn id(&self, span: Span, meta: &ChunkMeta) -> String {
        self.fields.id(span, meta)
    }

    /// Chunk number `index` of the document.
    fn make(&mut self, index: usize, span: Span, meta: ChunkMeta) -> Chunk<'a> {
        self.fields.make(&mut self.cursor, index, span, meta, None)
    }
}

impl<'a> Fields<'a> {
    /// The id of the chunk `span` with metadata `meta` ([`chunk_id_for`]).
    fn id(&self, span: Span, meta: &ChunkMeta) -> String {
        let text = &self.text[span.start..span.end];
        chunk_id_for(self.doc_id, span.start, span.end, &self.config, meta, text)
    }

    /// The ids of the chunks `parts` ([`chunk_id_for`]), hashed side by side ([`chunk_ids`]).
    fn ids(&self, parts: &[(Span, ChunkMeta)]) -> Vec<String> {
        let configs: Vec<_> = parts
            .iter()
            .map(|(_, meta)| id_config(&self.config, meta))
            .collect();
        let inputs: Vec<IdInput<'_>> = parts
            .iter()
            .zip(&configs)
            .map(|((s, _), config)| IdInput {
                doc_id: self.doc_id,
                start: s.start,
                end: s.end,
                config,
                text: &self.text[s.start..s.end],
            })
            .collect();
        chunk_ids(&inputs)
    }

    /// Chunk number `index` of the document, its char offsets (and own lines) from `cursor`,
    /// its id `id` when already made.
    fn make(
        &self,
        cursor: &mut Cursors<'a>,
        index: usize,
        span: Span,
        meta: ChunkMeta,
        id: Option<String>,
    ) -> Chunk<'a> {
        let place = self.place(cursor, span);
        self.build(index, span, meta, id, place)
    }

    /// The char offsets (and own lines) of `span`, from `cursor`.
    fn place(&self, cursor: &mut Cursors<'a>, span: Span) -> Place {
        Place {
            lines: self
                .own_lines
                .then(|| cursor.lines.span_lines(span.start, span.end)),
            start_char: cursor.chars.char_at(span.start),
            end_char: cursor.chars.char_at(span.end),
        }
    }

    /// Chunk number `index` of the document at `place`, its id `id` when already made.
    fn build(
        &self,
        index: usize,
        span: Span,
        mut meta: ChunkMeta,
        id: Option<String>,
        place: Place,
    ) -> Chunk<'a> {
        if place.lines.is_some() {
            meta.lines = place.lines;
        }
        Chunk {
            id: id.unwrap_or_else(|| self.id(span, &meta)),
            doc_id: self.doc_id,
            source: self.source,
            text: &self.text[span.start..span.end],
            start_byte: span.start,
            end_byte: span.end,
            start_char: place.start_char,
            end_char: place.end_char,
            index,
            total: self.total,
            tokens: span.tokens,
            strategy: self.strategy,
            meta,
        }
    }
}

/// Where a chunk is in the text: its char offsets and, with own lines, its first and last line.
#[derive(Debug, Clone, Copy)]
struct Place {
    start_char: usize,
    end_char: usize,
    lines: Option<(u32, u32)>,
}

impl Place {
    /// The place `chars` chars and `newlines` lines further on.
    fn after(self, chars: usize, newlines: usize) -> Place {
        let n = newlines as u32;
        Place {
            start_char: self.start_char + chars,
            end_char: self.end_char + chars,
            lines: self.lines.map(|(a, b)| (a + n, b + n)),
        }
    }
}

impl<'a> ChunkMaker<'a> {
    /// Chunks `first..first + parts.len()` of the document (their metadata taken out of
    /// `parts`). Many chunks of a large text are made in groups on all cores (rayon): the ids
    /// (a hash of each chunk's text), char offsets and own lines are most of the work, and each
    /// group counts from its own first span on. The chunks are the same whatever the number of
    /// threads.
    fn make_all(&mut self, first: usize, parts: &mut [(Span, ChunkMeta)]) -> Vec<Chunk<'a>> {
        let bytes: usize = parts.iter().map(|(s, _)| s.len()).sum();
        let threads = rayon::current_num_threads();
        if threads < 2 || parts.len() < 2 * MIN_GROUP_CHUNKS || bytes < PARALLEL_BYTES {
            // On one core, but still the ids at once: their hashing side by side.
            let ids = self.fields.ids(parts);
            return parts
                .iter_mut()
                .zip(ids)
                .enumerate()
                .map(|(k, ((s, meta), id))| {
                    let meta = std::mem::take(meta);
                    self.fields
                        .make(&mut self.cursor, first + k, *s, meta, Some(id))
                })
                .collect();
        }
        let group = parts.len().div_ceil(threads * 4).max(MIN_GROUP_CHUNKS);
        let text = self.fields.text;
        let own_lines = self.fields.own_lines;
        let bounds: Vec<usize> = parts.chunks(group).map(|g| g[0].0.start).collect();
        // Spans in order (every strategy's): each group counts chars and lines from its own
        // first span on, from 0, and the groups' offsets are added afterwards (no pass over
        // the text just to find them). Otherwise the group starts are counted first.
        let relative = parts.windows(2).all(|w| w[0].0.start <= w[1].0.start);
        let starts: Vec<(usize, usize)> = if relative {
            vec![(0, 0); bounds.len()]
        } else {
            bounds
                .iter()
                .map(|&b| {
                    let line = if own_lines {
                        self.cursor.lines.line(b) as usize - 1
                    } else {
                        0
                    };
                    (self.cursor.chars.char_at(b), line)
                })
                .collect()
        };
        // The groups' ids and places on all cores; then the chunks, made on all cores straight
        // into the one vector they are returned in (no copy of ~400 bytes per chunk on one core).
        let fields = &self.fields;
        let groups: Vec<(Vec<String>, Vec<Place>, usize, usize)> = parts
            .par_chunks(group)
            .zip(starts)
            .enumerate()
            .map(|(g, (group_parts, (chr, newlines)))| {
                let b = bounds[g];
                let mut cursor = Cursors {
                    chars: CharCursor::starting_at(text, b, chr),
                    lines: LineCursor::starting_at(text, b, newlines),
                };
                // The group's ids at once, their hashing side by side.
                let ids = fields.ids(group_parts);
                let places = group_parts
                    .iter()
                    .map(|(s, _)| fields.place(&mut cursor, *s))
                    .collect();
                // Chars and newlines from this group's start to the next group's.
                let (to_next_chars, to_next_lines) = match (relative, bounds.get(g + 1)) {
                    (true, Some(&next)) => (
                        cursor.chars.char_at(next),
                        if own_lines {
                            cursor.lines.line(next) as usize - 1
                        } else {
                            0
                        },
                    ),
                    _ => (0, 0),
                };
                (ids, places, to_next_chars, to_next_lines)
            })
            .collect();
        // What each group's places are counted from: nothing when they are absolute, else the
        // chars and newlines before the group's start.
        let mut offsets = vec![(0, 0); groups.len()];
        if relative {
            let mut chr = self.cursor.chars.char_at(bounds[0]);
            let mut newlines = if own_lines {
                self.cursor.lines.line(bounds[0]) as usize - 1
            } else {
                0
            };
            for (offset, (_, _, c, l)) in offsets.iter_mut().zip(&groups) {
                *offset = (chr, newlines);
                (chr, newlines) = (chr + c, newlines + l);
            }
            let (b, (chr, newlines)) = (bounds[groups.len() - 1], offsets[groups.len() - 1]);
            self.cursor.chars = CharCursor::starting_at(text, b, chr);
            if own_lines {
                self.cursor.lines = LineCursor::starting_at(text, b, newlines);
            }
        }
        let mut ids = Vec::with_capacity(parts.len());
        let mut places = Vec::with_capacity(parts.len());
        for (group_ids, group_places, _, _) in groups {
            ids.extend(group_ids);
            places.extend(group_places);
        }
        let mut chunks = Vec::with_capacity(parts.len());
        parts
            .par_iter_mut()
            .zip(ids)
            .zip(places)
            .enumerate()
            .map(|(k, (((span, meta), id), place))| {
                let (chars, newlines) = offsets[k / group];
                let place = place.after(chars, newlines);
                fields.build(first + k, *span, std::mem::take(meta), Some(id), place)
            })
            .collect_into_vec(&mut chunks);
        chunks
    }
}

/// Fewest chunks [`ChunkMaker::make_all`] gives one group.
const MIN_GROUP_CHUNKS: usize = 32;
/// Least text [`ChunkMaker::make_all`] makes chunks of on more than one core.
const PARALLEL_BYTES: usize = 1 << 20;

/// A parent must come before its children (what `parent_index` → `parent_id` relies on).
fn check_parents(strategy: &str, parts: &[(Span, ChunkMeta)]) -> Result<()> {
    for (i, (_, meta)) in parts.iter().enumerate() {
        if let Some(p) = meta.parent_index {
            if p >= i {
                return Err(crate::Error::Config(format!(
                    "{strategy}: chunk {i} names chunk {p} as its parent; a parent must come before its children"
                )));
            }
        }
    }
    Ok(())
}

/// Chunk a parsed document with any strategy ([`Chunker::chunk_parsed`]): chunks borrow their
/// text from `doc.text`, carry page span, source lines, heading path and prefix in `meta`, and
/// their ids include the prefix.
///
/// ```
/// use chunklab_core::{chunk_parsed_document, document::ParsedDocument, strategies, CharSizer};
/// use chunklab_core::{ChunkConfig, Strategy};
/// use std::sync::Arc;
/// let doc = ParsedDocument::plain("Artikel 1\nDe raad besluit.".into());
/// let cfg = ChunkConfig::new(Strategy::Recursive, 20);
/// let chunker = strategies::build(&cfg, Arc::new(CharSizer), None).unwrap();
/// let chunks = chunk_parsed_document("d", "mem", &doc, chunker.as_ref()).unwrap();
/// assert_eq!(chunks.iter().map(|c| c.text).collect::<Vec<_>>(), ["Artikel 1", "De raad besluit."]);
/// ```
pub fn chunk_parsed_document<'a>(
    doc_id: &'a str,
    source: &'a str,
    doc: &'a ParsedDocument,
    chunker: &dyn Chunker,
) -> Result<Vec<Chunk<'a>>> {
    let parts = chunker.chunk_parsed(doc)?;
    make_chunks(doc_id, source, &doc.text, chunker, parts)
}

/// [`chunk_parsed_document`] of plain text that is its own source and has no pages — the
/// document `chunklab_parse::text::parse_text_flat` makes of text without form feeds (one
/// element over the text's non-blank part, source lines from the text's own newlines) — for a
/// chunker whose [`Chunker::chunk_parsed`] is the default ([`Chunker::reads_only_locations`]),
/// without building (and copying the text into) the parsed document: the chunks of
/// [`Chunker::spans`], each with the lines it covers (none when the text is all whitespace).
///
/// ```
/// use chunklab_core::chunker::chunk_source_text;
/// use chunklab_core::document::{Element, ElementKind, ParsedDocument};
/// use chunklab_core::{chunk_parsed_document, strategies, CharSizer, ChunkConfig, Document, Strategy};
/// use std::sync::Arc;
/// let text = "Artikel 1\nDe raad besluit.\n\nArtikel 2\nWindmolens.\n";
/// let chunker = strategies::build(&ChunkConfig::new(Strategy::Recursive, 20), Arc::new(CharSizer), None).unwrap();
/// let mut flat = ParsedDocument::plain(text.into());
/// flat.elements.push(Element::new(ElementKind::Other, 0, text.len() - 1).with_lines(1, 5));
/// let parsed = chunk_parsed_document("d", "mem", &flat, chunker.as_ref()).unwrap();
/// let source = chunk_source_text(&Document::new("d", "mem", text), chunker.as_ref()).unwrap();
/// assert_eq!(source, parsed);
/// assert_eq!(source[1].meta.lines, Some((2, 2)));
/// ```
pub fn chunk_source_text<'a>(doc: &Document<'a>, chunker: &dyn Chunker) -> Result<Vec<Chunk<'a>>> {
    let (s, e) = crate::text::strip_span(doc.text, 0, doc.text.len());
    let spans = chunker.spans(doc.text)?;
    let mut maker = ChunkMaker::new(doc.doc_id, doc.source, doc.text, chunker, spans.len());
    maker.fields.own_lines = s < e;
    let mut parts: Vec<(Span, ChunkMeta)> = spans
        .into_iter()
        .map(|s| (s, ChunkMeta::default()))
        .collect();
    Ok(maker.make_all(0, &mut parts))
}

/// [`chunk_source_text`] of each of `docs`, with the same chunks, for many small documents: the
/// ids of all their chunks are hashed side by side ([`chunk_ids`]), where one document of one
/// to three chunks alone fills few of the SIMD lanes. Chunking runs on the calling thread; a
/// document that fails does not stop the others.
///
/// ```
/// use chunklab_core::chunker::{chunk_source_text, chunk_source_texts};
/// use chunklab_core::{strategies, CharSizer, ChunkConfig, Document, Strategy};
/// use std::sync::Arc;
/// let chunker = strategies::build(&ChunkConfig::new(Strategy::Recursive, 20), Arc::new(CharSizer), None).unwrap();
/// let docs = [
///     Document::new("a", "a.txt", "Artikel 1\nDe raad besluit.\n"),
///     Document::new("b", "b.txt", "Windmolens.\n"),
/// ];
/// let each: Vec<_> = docs.iter().map(|d| chunk_source_text(d, chunker.as_ref()).unwrap()).collect();
/// let all: Vec<_> = chunk_source_texts(&docs, chunker.as_ref()).into_iter().map(Result::unwrap).collect();
/// assert_eq!(all, each);
/// ```
pub fn chunk_source_texts<'a>(
    docs: &[Document<'a>],
    chunker: &dyn Chunker,
) -> Vec<Result<Vec<Chunk<'a>>>> {
    let spans: Vec<Result<Vec<Span>>> = docs.iter().map(|d| chunker.spans(d.text)).collect();
    // Chunks with default metadata: the id's config is the chunker's alone (`id_config`).
    let config = chunker.config();
    let inputs: Vec<IdInput<'_>> = docs
        .iter()
        .zip(&spans)
        .filter_map(|(d, spans)| Some((d, spans.as_ref().ok()?)))
        .flat_map(|(d, spans)| {
            spans.iter().map(|s| IdInput {
                doc_id: d.doc_id,
                start: s.start,
                end: s.end,
                config: &config,
                text: &d.text[s.start..s.end],
            })
        })
        .collect();
    let mut ids = chunk_ids(&inputs).into_iter();
    docs.iter()
        .zip(spans)
        .map(|(doc, spans)| {
            let spans = spans?;
            let (s, e) = crate::text::strip_span(doc.text, 0, doc.text.len());
            let mut maker = ChunkMaker::with_config(
                doc.doc_id,
                doc.source,
                doc.text,
                chunker,
                spans.len(),
                config.clone(),
            );
            maker.fields.own_lines = s < e;
            Ok(spans
                .into_iter()
                .enumerate()
                .map(|(k, span)| {
                    let id = ids.next().expect("an id per span");
                    let meta = ChunkMeta::default();
                    maker
                        .fields
                        .make(&mut maker.cursor, k, span, meta, Some(id))
                })
                .collect())
        })
        .collect()
}

/// Chunks from a strategy's spans and metadata: text borrowed from `text`, char offsets, ids
/// (which include the prefix and the level, so a child with its parent's span has its own id),
/// and `parent_index` resolved into `parent_id`.
fn make_chunks<'a>(
    doc_id: &'a str,
    source: &'a str,
    text: &'a str,
    chunker: &dyn Chunker,
    parts: Vec<(Span, ChunkMeta)>,
) -> Result<Vec<Chunk<'a>>> {
    check_parents(chunker.strategy(), &parts)?;
    let mut maker = ChunkMaker::new(doc_id, source, text, chunker, parts.len());
    let mut parts = parts;
    let mut chunks = maker.make_all(0, &mut parts);
    for i in 0..chunks.len() {
        if let Some(p) = chunks[i].meta.parent_index {
            chunks[i].meta.parent_id = Some(chunks[p].id.clone());
        }
    }
    Ok(chunks)
}

/// The id [`chunk_document`] and [`chunk_parsed_document`] give the chunk
/// `text = doc_text[start..end]` with metadata `meta` of a chunker whose [`Chunker::config`]
/// is `config`: [`chunk_id`] over the configuration, the prefix and the level (so a child with
/// its parent's span has its own id). For callers that compute ids only when asked.
///
/// ```
/// use chunklab_core::{chunk_document, chunk_id_for, ChunkMeta, Chunker, Document};
/// use chunklab_core::{strategies::Fixed, CharSizer};
/// use std::sync::Arc;
/// let chunker = Fixed::new(Arc::new(CharSizer), 10, 2).unwrap();
/// let c = &chunk_document(&Document::new("d", "mem", "Een korte tekst."), &chunker).unwrap()[0];
/// let id = chunk_id_for("d", c.start_byte, c.end_byte, &chunker.config(), &c.meta, c.text);
/// assert_eq!(id, c.id);
/// ```
pub fn chunk_id_for(
    doc_id: &str,
    start: usize,
    end: usize,
    config: &str,
    meta: &ChunkMeta,
    text: &str,
) -> String {
    chunk_id(doc_id, start, end, &id_config(config, meta), text)
}

/// What [`chunk_id_for`] hashes as the configuration: the chunker's, with the prefix and the
/// level when the chunk has them.
fn id_config<'c>(config: &'c str, meta: &ChunkMeta) -> std::borrow::Cow<'c, str> {
    match (&meta.prefix, meta.level) {
        (None, None) => config.into(),
        (Some(p), None) => format!("{config}\0{p}").into(),
        (p, Some(level)) => {
            let p = p.as_deref().unwrap_or_default();
            format!("{config}\0{p}\0level={level}").into()
        }
    }
}

/// Turn spans into chunks (shared by strategies that post-process spans).
pub fn spans_to_chunks<'a>(
    doc: &Document<'a>,
    chunker: &dyn Chunker,
    spans: &[Span],
) -> Vec<Chunk<'a>> {
    let mut maker = ChunkMaker::new(doc.doc_id, doc.source, doc.text, chunker, spans.len());
    spans
        .iter()
        .enumerate()
        .map(|(index, s)| maker.make(index, *s, ChunkMeta::default()))
        .collect()
}
