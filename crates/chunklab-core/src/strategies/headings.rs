//! `headings`: split a parsed document at its headings (down to `max_level`) and give every chunk
//! its heading path, e.g. `["Hoofdstuk 2. Vergunningen", "Artikel 3 Bewonersvergunning"]`.
//!
//! The headings form a tree of sections; a section is its heading, its own text up to the next
//! heading, and its subsections. By default every section's own text is a chunk of its own, with
//! the section's full heading path (what LangChain's `MarkdownHeaderTextSplitter` does);
//! neighbouring chunks are merged only when they have the same heading path and fit together
//! (Docling's `merge_peers`: parts of one section, or sections whose heading adds no title).
//!
//! With [`Headings::with_merge_siblings`] a section that fits the size becomes one chunk, and one
//! that does not is cut into its own text and its subsections, neighbouring siblings (the own
//! text counts as the first sibling) being merged again while they fit together; such a merged
//! chunk carries the path of their common parent and lists the heading path of every section it
//! contains in [`ChunkMeta::sections`].
//!
//! Text that does not fit on its own is split by the native `recursive` strategy. A heading with
//! no text of its own (a chapter heading directly followed by its first article) is not left
//! alone in a tiny chunk: it starts the next chunk.
//!
//! With `title_prefix` the heading path, joined with ` > ` and followed by a blank line, is put
//! in [`ChunkMeta::prefix`] (the text that is embedded before the chunk) and counts toward the
//! size: the real size of prefix plus text is at most `size`. A path taking more than half the
//! size is shortened to its last heading, or dropped.

use super::structured::{
    clean_title, path_prefixes, requires_parsed, Emitter, Prefix, StructureConfig,
};
use crate::chunk::{ChunkMeta, Span};
use crate::chunker::Chunker;
use crate::document::ParsedDocument;
use crate::error::Result;
use crate::sizer::Sizer;
use crate::text::strip_span;
use std::sync::Arc;

/// Heading-aware chunking of parsed documents.
///
/// ```
/// use chunklab_core::document::{Element, ElementKind, ParsedDocument};
/// use chunklab_core::{strategies::Headings, CharSizer, Chunker};
/// use std::sync::Arc;
/// let text = "Hoofdstuk 2. Vergunningen\n\nArtikel 3 Bewonersvergunning\nHet college verleent \
///             een vergunning.\n\nArtikel 4 Bezoekers\nBezoekers registreren digitaal.";
/// let mut doc = ParsedDocument::plain(text.into());
/// for (level, line) in [(1, "Hoofdstuk 2. Vergunningen"), (2, "Artikel 3 Bewonersvergunning"),
///                       (2, "Artikel 4 Bezoekers")] {
///     let start = text.find(line).unwrap();
///     doc.elements.push(Element::new(ElementKind::Heading { level }, start, start + line.len()));
/// }
/// let chunker = Headings::new(Arc::new(CharSizer), 100, 6, false).unwrap();
/// let chunks = chunker.chunk_parsed(&doc).unwrap();
/// let (span, meta) = &chunks[0];
/// // The chapter heading has no text of its own: it rides along with its first article.
/// assert!(text[span.start..span.end].starts_with("Hoofdstuk 2. Vergunningen\n\nArtikel 3"));
/// assert!(text[span.start..span.end].ends_with("vergunning."));
/// assert_eq!(meta.headings, ["Hoofdstuk 2. Vergunningen", "Artikel 3 Bewonersvergunning"]);
/// assert_eq!(chunks[1].1.headings, ["Hoofdstuk 2. Vergunningen", "Artikel 4 Bezoekers"]);
/// // Merging siblings: the whole chapter fits in one chunk, which lists its sections.
/// let merging = Headings::new(Arc::new(CharSizer), 200, 6, false).unwrap().with_merge_siblings(true);
/// let chunks = merging.chunk_parsed(&doc).unwrap();
/// assert_eq!(chunks.len(), 1);
/// assert_eq!(chunks[0].1.headings, ["Hoofdstuk 2. Vergunningen"]);
/// assert_eq!(chunks[0].1.sections.len(), 3);
/// // With --title-prefix the heading path is embedded too, and counts toward the size.
/// let chunker = Headings::new(Arc::new(CharSizer), 100, 6, true).unwrap();
/// let chunks = chunker.chunk_parsed(&doc).unwrap();
/// let (span, meta) = chunks.last().unwrap();
/// let prefix = meta.prefix.as_deref().unwrap();
/// assert_eq!(prefix, "Hoofdstuk 2. Vergunningen > Artikel 4 Bezoekers\n\n");
/// assert_eq!(span.tokens, prefix.chars().count() + text[span.start..span.end].chars().count());
/// assert!(chunks.iter().all(|(s, _)| s.tokens <= 100));
/// assert!(chunker.spans(text).is_err()); // needs the parsed document
/// ```
#[derive(Debug)]
pub struct Headings {
    cfg: StructureConfig,
    merge_siblings: bool,
}

impl Headings {
    /// Split at headings of level `1..=max_level` (the document title, level 0, always counts);
    /// `title_prefix` puts the heading path into each chunk's prefix.
    pub fn new(
        sizer: Arc<dyn Sizer>,
        size: usize,
        max_level: usize,
        title_prefix: bool,
    ) -> Result<Self> {
        Ok(Self {
            cfg: StructureConfig::new(sizer, size, max_level, title_prefix)?,
            merge_siblings: false,
        })
    }

    /// With `true`, sibling sections are merged into one chunk while they fit the size (the chunk
    /// gets their parent's heading path and lists theirs in [`ChunkMeta::sections`]); with
    /// `false` (the default) every section is a chunk of its own.
    pub fn with_merge_siblings(mut self, merge_siblings: bool) -> Self {
        self.merge_siblings = merge_siblings;
        self
    }
}

impl Chunker for Headings {
    fn strategy(&self) -> &'static str {
        "headings"
    }

    fn needs_structure(&self) -> bool {
        true
    }

    fn config(&self) -> String {
        let base = self.cfg.describe("headings");
        if self.merge_siblings {
            format!("{base} merge_siblings=true")
        } else {
            base
        }
    }

    fn spans(&self, _text: &str) -> Result<Vec<Span>> {
        requires_parsed("headings")
    }

    fn chunk_parsed(&self, doc: &ParsedDocument) -> Result<Vec<(Span, ChunkMeta)>> {
        let mut walk = Walk {
            sections: sections(doc, self.cfg.max_level),
            em: self.cfg.emitter(doc)?,
            title_prefix: self.cfg.title_prefix,
            merge_siblings: self.merge_siblings,
            prefixes: Vec::new(),
            carry: None,
        };
        walk.prefixes = vec![None; walk.sections.len()];
        walk.section(0)?;
        if let Some((start, sec)) = walk.carry.take() {
            // Defensive: a carried heading whose subsections were all blank.
            let end = walk.sections[sec].end;
            walk.emit(start, end, sec)?;
        }
        if self.merge_siblings {
            walk.list_sections();
        } else {
            walk.em.merge_peers(0);
        }
        Ok(walk.em.out)
    }
}

/// A heading's section: `start..own_end` is the heading and its own text, `start..end` includes
/// the subsections. Section 0 is the root (text before the first heading, no heading).
#[derive(Debug)]
struct Section {
    /// Heading level; -1 for the root.
    level: i32,
    start: usize,
    /// End of the heading's own text; where the first subsection starts.
    own_end: usize,
    end: usize,
    /// Byte range of the heading element itself.
    heading: (usize, usize),
    children: Vec<usize>,
    path: Vec<String>,
}

/// The section tree of `doc`'s headings of level `<= max_level`, in document order.
fn sections(doc: &ParsedDocument, max_level: u8) -> Vec<Section> {
    let len = doc.text.len();
    let mut out = vec![Section {
        level: -1,
        start: 0,
        own_end: len,
        end: len,
        heading: (0, 0),
        children: Vec::new(),
        path: Vec::new(),
    }];
    let mut stack = vec![0usize];
    let mut last = 0usize;
    for e in &doc.elements {
        let Some(level) = e.kind.heading_level() else {
            continue;
        };
        let valid = e.start < e.end
            && e.end <= len
            && doc.text.is_char_boundary(e.start)
            && doc.text.is_char_boundary(e.end);
        if level > max_level || !valid || (last > 0 && e.start <= out[last].start) {
            continue;
        }
        let level = i32::from(level);
        while out[*stack.last().expect("root stays")].level >= level {
            let done = stack.pop().expect("not the root");
            out[done].end = e.start;
        }
        out[last].own_end = e.start;
        let parent = *stack.last().expect("root stays");
        let mut path = out[parent].path.clone();
        let title = clean_title(doc.title_of(e));
        if !title.is_empty() {
            path.push(title);
        }
        let id = out.len();
        out.push(Section {
            level,
            start: e.start,
            own_end: len,
            end: len,
            heading: (e.start, e.end),
            children: Vec::new(),
            path,
        });
        out[parent].children.push(id);
        stack.push(id);
        last = id;
    }
    out
}

/// One document being chunked.
struct Walk<'a> {
    sections: Vec<Section>,
    em: Emitter<'a>,
    title_prefix: bool,
    /// Merge sibling sections while they fit (else one section per chunk).
    merge_siblings: bool,
    /// Chosen prefix per section, computed on first use.
    prefixes: Vec<Option<Option<Prefix>>>,
    /// Start of a heading with no text of its own that the next chunk takes along, and its
    /// section.
    carry: Option<(usize, usize)>,
}

/// A part of a section being packed: its own text, or one subsection.
#[derive(Debug, Clone, Copy)]
enum Item {
    Own,
    Child(usize),
}

impl Walk<'_> {
    fn prefix(&mut self, sec: usize) -> Option<Prefix> {
        if !self.title_prefix {
            return None;
        }
        if self.prefixes[sec].is_none() {
            let p = self
                .em
                .choose_prefix(path_prefixes(&self.sections[sec].path));
            self.prefixes[sec] = Some(p);
        }
        self.prefixes[sec].clone().flatten()
    }

    fn meta(&self, sec: usize) -> ChunkMeta {
        ChunkMeta {
            headings: self.sections[sec].path.clone(),
            ..ChunkMeta::default()
        }
    }

    fn span(&self, sec: usize, item: Item) -> (usize, usize) {
        match item {
            Item::Own => (self.sections[sec].start, self.sections[sec].own_end),
            Item::Child(c) => (self.sections[c].start, self.sections[c].end),
        }
    }

    /// Chunk a section: its own text, then each subsection (one section per chunk); merging
    /// siblings: whole if it fits, else its own text and subsections packed.
    fn section(&mut self, sec: usize) -> Result<()> {
        let (start, end) = (self.sections[sec].start, self.sections[sec].end);
        let (os, oe) = strip_span(self.em.text, start, self.sections[sec].own_end);
        if self.sections[sec].children.len() == 1 && (os == oe || self.heading_only(sec)) {
            // Nothing but (at most) a heading before the only subsection: the subsection's path
            // describes all of it, and the heading rides along.
            if os < oe && self.carry.is_none() {
                self.carry = Some((start, sec));
            }
            return self.section(self.sections[sec].children[0]);
        }
        let leaf = self.sections[sec].children.is_empty();
        if (self.merge_siblings || leaf) && self.try_whole(start, end, sec) {
            return Ok(());
        }
        if !self.merge_siblings {
            if os < oe {
                self.own(sec)?;
            }
            for c in self.sections[sec].children.clone() {
                self.section(c)?;
            }
            return Ok(());
        }
        let mut items = Vec::with_capacity(self.sections[sec].children.len() + 1);
        if os < oe {
            items.push(Item::Own);
        }
        items.extend(self.sections[sec].children.iter().map(|&c| Item::Child(c)));
        let pu = self.prefix(sec).map_or(0, |p| p.1);
        let mut group: Vec<Item> = Vec::new();
        for item in items {
            if let Some(&first) = group.first() {
                let (gs, _) = self.span(sec, first);
                let (_, ie) = self.span(sec, item);
                if self.em.fits(gs, ie, pu) {
                    group.push(item);
                    continue;
                }
                self.flush(sec, &group)?;
                group.clear();
            }
            group.push(item);
        }
        self.flush(sec, &group)
    }

    /// Emit a group of consecutive items of section `sec`.
    fn flush(&mut self, sec: usize, group: &[Item]) -> Result<()> {
        match group {
            [] => Ok(()),
            [Item::Own] => self.own(sec),
            [Item::Child(c)] => self.section(*c),
            [Item::Own, rest @ ..] if self.heading_only(sec) => {
                // A bare heading and what follows: the heading rides along, and the chunk gets
                // the path of what follows.
                if self.carry.is_none() {
                    self.carry = Some((self.sections[sec].start, sec));
                }
                self.flush(sec, rest)
            }
            [first, .., last] => {
                let (start, end) = (self.span(sec, *first).0, self.span(sec, *last).1);
                if self.try_whole(start, end, sec) {
                    return Ok(());
                }
                // Fits by plan but not for real: one at a time.
                for &item in group {
                    self.flush(sec, &[item])?;
                }
                Ok(())
            }
        }
    }

    /// A section's own text, when the whole section did not fit.
    fn own(&mut self, sec: usize) -> Result<()> {
        if self.heading_only(sec) {
            // Only the heading: it goes with the next chunk.
            if self.carry.is_none() {
                self.carry = Some((self.sections[sec].start, sec));
            }
            return Ok(());
        }
        self.emit(self.sections[sec].start, self.sections[sec].own_end, sec)
    }

    /// Whether section `sec` has subsections and no text of its own besides its heading.
    fn heading_only(&self, sec: usize) -> bool {
        let s = &self.sections[sec];
        let own = strip_span(self.em.text, s.start, s.own_end);
        !s.children.is_empty() && own == strip_span(self.em.text, s.heading.0, s.heading.1)
    }

    /// Emit `start..end` as one chunk with section `sec`'s path if it fits, taking a carried
    /// heading along when that fits too. `false` when it does not fit (nothing emitted).
    fn try_whole(&mut self, start: usize, end: usize, sec: usize) -> bool {
        let prefix = self.prefix(sec);
        let meta = self.meta(sec);
        if let Some((cs, csec)) = self.carry {
            if self.em.try_emit(cs, end, prefix.as_ref(), &meta) {
                self.carry = None;
                return true;
            }
            if !self.em.fits(start, end, prefix.as_ref().map_or(0, |p| p.1)) {
                return false;
            }
            // The carried heading cannot come along: it goes alone.
            self.carry = None;
            let carried = (self.prefix(csec), self.meta(csec));
            if !self.em.try_emit(cs, start, carried.0.as_ref(), &carried.1) {
                // Cannot happen for a heading-only text that fit in its section's plan; keep
                // the text anyway.
                self.carry = Some((cs, csec));
                return false;
            }
        }
        self.em.try_emit(start, end, prefix.as_ref(), &meta)
    }

    /// Fill [`ChunkMeta::sections`] of every chunk that contains the headings of two or more
    /// sections with their heading paths.
    fn list_sections(&mut self) {
        let heads: Vec<(usize, &Vec<String>)> = self.sections[1..]
            .iter()
            .map(|s| (s.heading.0, &s.path))
            .collect();
        for (span, meta) in &mut self.em.out {
            let from = heads.partition_point(|h| h.0 < span.start);
            let upto = heads.partition_point(|h| h.0 < span.end);
            if upto - from >= 2 {
                meta.sections = heads[from..upto].iter().map(|h| h.1.clone()).collect();
            }
        }
    }

    /// Emit `start..end` with section `sec`'s path, split as needed; a carried heading joins.
    fn emit(&mut self, start: usize, end: usize, sec: usize) -> Result<()> {
        let start = match self.carry.take() {
            Some((cs, _)) => cs,
            None => start,
        };
        let prefix = self.prefix(sec);
        let meta = self.meta(sec);
        self.em.emit(start, end, prefix.as_ref(), &meta)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Element, ElementKind};
    use crate::sizer::{CharSizer, WordSizer};
    use crate::validate::{check_parsed, Expect};

    const VERORDENING: &str = "Parkeerverordening 2021\n\nHoofdstuk 1. Algemeen\n\nArtikel 1 \
        Begrippen\nIn deze verordening wordt verstaan onder bewoner: degene die woont.\n\n\
        Artikel 2 Reikwijdte\nDeze verordening geldt binnen de bebouwde kom.\n\nHoofdstuk 2. \
        Vergunningen\n\nArtikel 3 Bewonersvergunning\n1. Het college verleent op aanvraag een \
        bewonersvergunning.\n2. Per adres ten hoogste twee vergunningen.\n\nArtikel 4 \
        Bezoekers\nEen bewoner kan voor bezoekers parkeertijd registreren.\n";

    fn doc() -> ParsedDocument {
        let mut d = ParsedDocument::plain(VERORDENING.into());
        let mut pos = 0;
        for line in VERORDENING.split_inclusive('\n') {
            let t = line.trim_end();
            let kind = if pos == 0 {
                Some(ElementKind::Title)
            } else if t.starts_with("Hoofdstuk") {
                Some(ElementKind::Heading { level: 1 })
            } else if t.starts_with("Artikel") {
                Some(ElementKind::Heading { level: 2 })
            } else if !t.is_empty() {
                Some(ElementKind::Paragraph)
            } else {
                None
            };
            if let Some(k) = kind {
                d.elements.push(Element::new(k, pos, pos + t.len()));
            }
            pos += line.len();
        }
        d
    }

    fn run(size: usize, max_level: usize, prefix: bool) -> Vec<(Span, ChunkMeta)> {
        run_with(size, max_level, prefix, false)
    }

    fn run_with(
        size: usize,
        max_level: usize,
        prefix: bool,
        merge: bool,
    ) -> Vec<(Span, ChunkMeta)> {
        let d = doc();
        let h = Headings::new(Arc::new(CharSizer), size, max_level, prefix)
            .unwrap()
            .with_merge_siblings(merge);
        let out = h.chunk_parsed(&d).unwrap();
        let expect = Expect {
            size,
            overlap: false,
        };
        check_parsed(&d, &out, &CharSizer, expect).unwrap();
        out
    }

    fn text(s: &Span) -> &'static str {
        &VERORDENING[s.start..s.end]
    }

    #[test]
    fn one_section_per_chunk_by_default() {
        let out = run(10_000, 6, false);
        let paths: Vec<Vec<&str>> = out
            .iter()
            .map(|(_, m)| m.headings.iter().map(String::as_str).collect())
            .collect();
        let (title, h1, h2) = (
            "Parkeerverordening 2021",
            "Hoofdstuk 1. Algemeen",
            "Hoofdstuk 2. Vergunningen",
        );
        assert_eq!(
            paths,
            [
                vec![title, h1, "Artikel 1 Begrippen"],
                vec![title, h1, "Artikel 2 Reikwijdte"],
                vec![title, h2, "Artikel 3 Bewonersvergunning"],
                vec![title, h2, "Artikel 4 Bezoekers"],
            ]
        );
        // The bare title and chapter headings ride along with their first article.
        assert!(text(&out[0].0).starts_with("Parkeerverordening 2021\n\nHoofdstuk 1"));
        assert!(text(&out[2].0).starts_with("Hoofdstuk 2. Vergunningen\n\nArtikel 3"));
        assert!(out.iter().all(|(_, m)| m.sections.is_empty()));
    }

    #[test]
    fn merging_siblings_lists_the_merged_sections() {
        let out = run_with(10_000, 6, false, true);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].1.headings, ["Parkeerverordening 2021"]);
        let last: Vec<&str> = out[0]
            .1
            .sections
            .iter()
            .map(|p| p.last().unwrap().as_str())
            .collect();
        assert_eq!(
            last,
            [
                "Parkeerverordening 2021",
                "Hoofdstuk 1. Algemeen",
                "Artikel 1 Begrippen",
                "Artikel 2 Reikwijdte",
                "Hoofdstuk 2. Vergunningen",
                "Artikel 3 Bewonersvergunning",
                "Artikel 4 Bezoekers"
            ]
        );
        assert_eq!(
            out[0].1.sections[6],
            [
                "Parkeerverordening 2021",
                "Hoofdstuk 2. Vergunningen",
                "Artikel 4 Bezoekers"
            ]
        );
    }

    #[test]
    fn peers_with_the_same_path_are_merged() {
        // A heading with no title adds nothing to the path: its text and the parent's own text
        // are peers and go together when they fit; a titled sibling does not.
        let text = "Inleiding\nEerste alinea.\n\n##\nTweede alinea.\n\nSlot\nLaatste alinea.";
        let mut d = ParsedDocument::plain(text.into());
        for (level, s, e, title) in [(1, 0, 9, "Inleiding"), (2, 26, 28, ""), (1, 45, 49, "Slot")] {
            let heading = Element::new(ElementKind::Heading { level }, s, e).with_title(title);
            d.elements.push(heading);
        }
        let out = Headings::new(Arc::new(CharSizer), 100, 6, false)
            .unwrap()
            .chunk_parsed(&d)
            .unwrap();
        let texts: Vec<&str> = out.iter().map(|(s, _)| &text[s.start..s.end]).collect();
        assert_eq!(
            texts,
            [
                "Inleiding\nEerste alinea.\n\n##\nTweede alinea.",
                "Slot\nLaatste alinea."
            ]
        );
        assert_eq!(out[0].1.headings, ["Inleiding"]);
    }

    #[test]
    fn articles_carry_their_path_and_chapter_headings_are_not_alone() {
        let out = run(120, 6, false);
        let art3 = out
            .iter()
            .find(|(s, _)| text(s).contains("Artikel 3"))
            .unwrap();
        assert!(text(&art3.0).starts_with("Hoofdstuk 2. Vergunningen\n\nArtikel 3"));
        assert_eq!(
            art3.1.headings,
            [
                "Parkeerverordening 2021",
                "Hoofdstuk 2. Vergunningen",
                "Artikel 3 Bewonersvergunning"
            ]
        );
        assert!(out
            .iter()
            .all(|(s, _)| text(s) != "Hoofdstuk 2. Vergunningen"));
        // Merging siblings: small sibling articles are merged under their chapter.
        let out = run_with(200, 6, false, true);
        let merged = out
            .iter()
            .find(|(s, _)| text(s).contains("Artikel 1") && text(s).contains("Artikel 2"))
            .expect("articles 1 and 2 fit together");
        assert_eq!(
            merged.1.headings,
            ["Parkeerverordening 2021", "Hoofdstuk 1. Algemeen"]
        );
    }

    #[test]
    fn max_level_stops_at_chapters() {
        let out = run(120, 1, false);
        assert!(out.iter().all(|(_, m)| m.headings.len() <= 2));
        assert!(out
            .iter()
            .any(|(_, m)| m.headings.last().unwrap() == "Hoofdstuk 2. Vergunningen"));
    }

    #[test]
    fn title_prefix_counts_toward_the_size() {
        for size in [60, 90, 120, 400] {
            let out = run(size, 6, true);
            for (s, m) in &out {
                let p = m.prefix.as_deref().unwrap_or("");
                assert_eq!(s.tokens, p.chars().count() + text(s).chars().count());
                assert!(s.tokens <= size);
                if !m.headings.is_empty() && p.is_empty() {
                    // Dropped only when even the last heading takes more than half the size.
                    let last = m.headings.last().unwrap();
                    assert!(last.chars().count() + 2 > size / 2, "{last} at {size}");
                }
            }
        }
    }

    #[test]
    fn oversized_sections_are_split_and_keep_their_path() {
        let out = run(40, 6, false);
        let parts: Vec<_> = out
            .iter()
            .filter(|(_, m)| {
                m.headings.last().map(String::as_str) == Some("Artikel 3 Bewonersvergunning")
            })
            .collect();
        assert!(parts.len() >= 2, "{out:?}");
    }

    #[test]
    fn words_and_no_headings() {
        let d = ParsedDocument::plain("een twee drie vier vijf zes zeven".into());
        let h = Headings::new(Arc::new(WordSizer), 3, 6, true).unwrap();
        let out = h.chunk_parsed(&d).unwrap();
        check_parsed(
            &d,
            &out,
            &WordSizer,
            Expect {
                size: 3,
                overlap: false,
            },
        )
        .unwrap();
        assert_eq!(out.len(), 3);
        assert!(out
            .iter()
            .all(|(_, m)| m.headings.is_empty() && m.prefix.is_none()));
        let empty = ParsedDocument::plain(String::new());
        assert!(h.chunk_parsed(&empty).unwrap().is_empty());
    }
}
