//! `elements`: pack a parsed document's elements into chunks, like Unstructured's `by_title` and
//! Docling's hybrid chunker. Consecutive elements are packed whole up to the size; a heading (of
//! level `<= max_level`) starts a new chunk and stays with the elements after it. Tables, code
//! blocks, lists (a run of list items) and paragraphs are never cut while they fit in one chunk;
//! one that does not fit in the current chunk starts the next. A list too large for one chunk is
//! packed item by item; a table too large is split between rows, and every part after the first
//! repeats the table's header row in [`ChunkMeta::prefix`], counted in the size; any other
//! element too large is split by the native `recursive` strategy.
//!
//! Every chunk carries the heading path in force where its content starts, its page span
//! (`page`, `page_end`) where the format has pages, and its dominant element kind (`table`,
//! `paragraph`, `list_item`, `code` ...). With `title_prefix` the heading path also goes into the
//! prefix, as with `headings`.

use super::structured::{
    clean_title, path_prefixes, requires_parsed, Emitter, Prefix, StructureConfig,
};
use crate::chunk::{ChunkMeta, Span};
use crate::chunker::Chunker;
use crate::document::{ElementKind, ParsedDocument};
use crate::error::Result;
use crate::sizer::Sizer;
use std::cmp::Reverse;
use std::sync::Arc;

/// Element-based packing of parsed documents.
///
/// ```
/// use chunklab_core::document::{Element, ElementKind, ParsedDocument};
/// use chunklab_core::{strategies::Elements, CharSizer, Chunker};
/// use std::sync::Arc;
/// let text = "Opbrengst\n\nJaar | Turbines\n2021 | 3\n2022 | 5\n2023 | 8\n";
/// let mut doc = ParsedDocument::plain(text.into());
/// doc.elements.push(Element::new(ElementKind::Heading { level: 1 }, 0, 9));
/// doc.elements.push(Element::new(ElementKind::Table, 11, text.len() - 1));
/// let mut row = 11;
/// for (i, line) in text[11..].lines().enumerate() {
///     let kind = ElementKind::TableRow { header: i == 0 };
///     doc.elements.push(Element::new(kind, row, row + line.len()));
///     row += line.len() + 1;
/// }
/// let chunks = Elements::new(Arc::new(CharSizer), 40, 6, false).unwrap().chunk_parsed(&doc).unwrap();
/// let texts: Vec<_> = chunks.iter().map(|(s, _)| &text[s.start..s.end]).collect();
/// assert_eq!(texts, ["Opbrengst\n\nJaar | Turbines\n2021 | 3", "2022 | 5\n2023 | 8"]);
/// assert_eq!(chunks[1].1.prefix.as_deref(), Some("Jaar | Turbines\n"));
/// assert_eq!(chunks[1].1.kind.as_deref(), Some("table"));
/// assert_eq!(chunks[1].1.headings, ["Opbrengst"]);
/// assert!(chunks.iter().all(|(s, _)| s.tokens <= 40));
/// ```
#[derive(Debug)]
pub struct Elements {
    cfg: StructureConfig,
}

impl Elements {
    /// Pack elements up to `size`; headings of level `1..=max_level` (and the title) start new
    /// chunks; `title_prefix` puts the heading path into each chunk's prefix.
    pub fn new(
        sizer: Arc<dyn Sizer>,
        size: usize,
        max_level: usize,
        title_prefix: bool,
    ) -> Result<Self> {
        Ok(Self {
            cfg: StructureConfig::new(sizer, size, max_level, title_prefix)?,
        })
    }
}

impl Chunker for Elements {
    fn strategy(&self) -> &'static str {
        "elements"
    }

    fn needs_structure(&self) -> bool {
        true
    }

    fn config(&self) -> String {
        self.cfg.describe("elements")
    }

    fn spans(&self, _text: &str) -> Result<Vec<Span>> {
        requires_parsed("elements")
    }

    fn chunk_parsed(&self, doc: &ParsedDocument) -> Result<Vec<(Span, ChunkMeta)>> {
        let mut pack = Pack {
            doc,
            em: self.cfg.emitter(doc)?,
            title_prefix: self.cfg.title_prefix,
            stack: Vec::new(),
            path_prefix: None,
            cur: None,
        };
        let blocks = blocks(doc);
        let mut i = 0;
        while i < blocks.len() {
            let b = blocks[i];
            match doc.elements.get(b.element).map(|e| e.kind) {
                Some(k) if k.heading_level().is_some_and(|l| l <= self.cfg.max_level) => {
                    pack.heading(b, k.heading_level().unwrap_or(0))?;
                    i += 1;
                }
                Some(ElementKind::ListItem) => {
                    let mut j = i + 1;
                    while j < blocks.len()
                        && doc.elements[blocks[j].element].kind == ElementKind::ListItem
                    {
                        j += 1;
                    }
                    let unit = Unit {
                        start: b.start,
                        end: blocks[j - 1].end,
                        kind: "list_item",
                        shape: Shape::List(&blocks[i..j]),
                    };
                    pack.add(unit)?;
                    i = j;
                }
                k => {
                    let (kind, shape) = match k {
                        Some(ElementKind::Table) => ("table", Shape::Table(b.element)),
                        Some(k) => (k.name(), Shape::Plain),
                        None => ("other", Shape::Plain),
                    };
                    pack.add(Unit {
                        start: b.start,
                        end: b.end,
                        kind,
                        shape,
                    })?;
                    i += 1;
                }
            }
        }
        pack.flush()?;
        Ok(pack.em.out)
    }
}

/// A top-level element (not inside another) and the text it owns: from its start to the next
/// block's start (the first block from 0, the last to the end of the text).
#[derive(Debug, Clone, Copy)]
struct Block {
    element: usize,
    start: usize,
    end: usize,
}

/// The top-level elements of `doc` as blocks covering the whole text; a document without
/// elements is one block of kind `other`.
fn blocks(doc: &ParsedDocument) -> Vec<Block> {
    let text = &doc.text;
    let len = text.len();
    let mut order: Vec<usize> = (0..doc.elements.len())
        .filter(|&i| {
            let e = &doc.elements[i];
            e.start < e.end
                && e.end <= len
                && text.is_char_boundary(e.start)
                && text.is_char_boundary(e.end)
        })
        .collect();
    order.sort_by_key(|&i| (doc.elements[i].start, Reverse(doc.elements[i].end), i));
    let mut tops = Vec::new();
    let mut covered = 0;
    for i in order {
        let e = &doc.elements[i];
        if e.start >= covered {
            tops.push(i);
        }
        covered = covered.max(e.end);
    }
    if tops.is_empty() {
        return vec![Block {
            element: usize::MAX,
            start: 0,
            end: len,
        }];
    }
    (0..tops.len())
        .map(|k| Block {
            element: tops[k],
            start: if k == 0 {
                0
            } else {
                doc.elements[tops[k]].start
            },
            end: tops.get(k + 1).map_or(len, |&n| doc.elements[n].start),
        })
        .collect()
}

/// Something to pack: one element's block, or a run of list items.
#[derive(Debug, Clone, Copy)]
struct Unit<'b> {
    start: usize,
    end: usize,
    kind: &'static str,
    shape: Shape<'b>,
}

#[derive(Debug, Clone, Copy)]
enum Shape<'b> {
    Plain,
    /// A table element (index into the elements).
    Table(usize),
    /// The list items' blocks.
    List(&'b [Block]),
}

/// The chunk being filled.
#[derive(Debug)]
struct Current {
    start: usize,
    end: usize,
    /// Holds more than headings.
    content: bool,
    /// Bytes per element kind, for the dominant kind.
    kinds: Vec<(&'static str, usize)>,
    path: Vec<String>,
    prefix: Option<Prefix>,
}

impl Current {
    fn add_kind(&mut self, kind: &'static str, bytes: usize) {
        match self.kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some(slot) => slot.1 += bytes,
            None => self.kinds.push((kind, bytes)),
        }
    }

    /// The kind with the most bytes; headings only when there is nothing else.
    fn dominant(&self) -> Option<&'static str> {
        let best = |skip_headings: bool| {
            self.kinds
                .iter()
                .filter(|(k, _)| !(skip_headings && (*k == "heading" || *k == "title")))
                .fold(None::<(&'static str, usize)>, |acc, &(k, n)| match acc {
                    Some((_, m)) if m >= n => acc,
                    _ => Some((k, n)),
                })
                .map(|(k, _)| k)
        };
        best(true).or_else(|| best(false))
    }
}

/// One document being packed.
struct Pack<'a> {
    doc: &'a ParsedDocument,
    em: Emitter<'a>,
    title_prefix: bool,
    /// Open headings: level and title.
    stack: Vec<(u8, String)>,
    /// Prefix for the current path (with `title_prefix`).
    path_prefix: Option<Prefix>,
    cur: Option<Current>,
}

impl Pack<'_> {
    fn path(&self) -> Vec<String> {
        self.stack.iter().map(|(_, t)| t.clone()).collect()
    }

    fn heading(&mut self, b: Block, level: u8) -> Result<()> {
        if self.cur.as_ref().is_some_and(|c| c.content) {
            self.flush()?;
        }
        while self.stack.last().is_some_and(|(l, _)| *l >= level) {
            self.stack.pop();
        }
        let title = clean_title(self.doc.title_of(&self.doc.elements[b.element]));
        if !title.is_empty() {
            self.stack.push((level, title));
        }
        let path = self.path();
        self.path_prefix = if self.title_prefix {
            self.em.choose_prefix(path_prefixes(&path))
        } else {
            None
        };
        let prefix = self.path_prefix.clone();
        let cur = self.cur.get_or_insert_with(|| Current {
            start: b.start,
            end: b.end,
            content: false,
            kinds: Vec::new(),
            path: Vec::new(),
            prefix: None,
        });
        cur.end = b.end;
        cur.path = path;
        cur.prefix = prefix;
        let kind = if level == 0 { "title" } else { "heading" };
        cur.add_kind(kind, b.end - b.start);
        Ok(())
    }

    fn add(&mut self, u: Unit<'_>) -> Result<()> {
        let pu = self.path_prefix.as_ref().map_or(0, |p| p.1);
        if let Some(cur) = &mut self.cur {
            if self.em.fits(cur.start, u.end, pu) {
                cur.end = u.end;
                cur.content = true;
                cur.add_kind(u.kind, u.end - u.start);
                return Ok(());
            }
            if cur.content {
                self.flush()?;
            }
        }
        // `cur` now holds at most headings that lead into this unit.
        let splittable = matches!(u.shape, Shape::Plain) && !matches!(u.kind, "code" | "table");
        if splittable && self.cur.is_some() {
            // Headings and a paragraph that do not fit together: the paragraph is split rather
            // than leaving the headings alone in a chunk.
            let lead = self.cur.take().map_or(u.start, |c| c.start);
            let meta = self.meta(Some(u.kind));
            let prefix = self.path_prefix.clone();
            return self.em.emit(lead, u.end, prefix.as_ref(), &meta);
        }
        if self.em.fits(u.start, u.end, pu) {
            // It fits alone but not after the headings: they go alone.
            self.flush()?;
            let mut cur = Current {
                start: u.start,
                end: u.end,
                content: true,
                kinds: Vec::new(),
                path: self.path(),
                prefix: self.path_prefix.clone(),
            };
            cur.add_kind(u.kind, u.end - u.start);
            self.cur = Some(cur);
            return Ok(());
        }
        let lead = self.cur.take().map(|c| c.start);
        match u.shape {
            Shape::List(items) => {
                if let Some(start) = lead {
                    self.cur = Some(Current {
                        start,
                        end: u.start,
                        content: false,
                        kinds: vec![("heading", u.start - start)],
                        path: self.path(),
                        prefix: self.path_prefix.clone(),
                    });
                }
                for item in items {
                    self.add(Unit {
                        start: item.start,
                        end: item.end,
                        kind: "list_item",
                        shape: Shape::Plain,
                    })?;
                }
                Ok(())
            }
            Shape::Table(t) => self.table(lead.unwrap_or(u.start), u.end, t),
            Shape::Plain => {
                let meta = self.meta(Some(u.kind));
                let prefix = self.path_prefix.clone();
                self.em
                    .emit(lead.unwrap_or(u.start), u.end, prefix.as_ref(), &meta)
            }
        }
    }

    fn meta(&self, kind: Option<&str>) -> ChunkMeta {
        ChunkMeta {
            headings: self.path(),
            kind: kind.map(str::to_string),
            ..ChunkMeta::default()
        }
    }

    fn flush(&mut self) -> Result<()> {
        let Some(cur) = self.cur.take() else {
            return Ok(());
        };
        let meta = ChunkMeta {
            kind: cur.dominant().map(str::to_string),
            headings: cur.path.clone(),
            ..ChunkMeta::default()
        };
        self.em.emit(cur.start, cur.end, cur.prefix.as_ref(), &meta)
    }

    /// A table too large for one chunk, from `start` (which may include leading headings) to
    /// `end`: parts of whole rows, the header row repeated in the prefix of every part after the
    /// first.
    fn table(&mut self, start: usize, end: usize, table: usize) -> Result<()> {
        let doc = self.doc;
        let t = &doc.elements[table];
        let mut rows: Vec<(usize, usize, bool)> = Vec::new();
        // Elements are sorted by start: the rows lie among those starting inside the table.
        let lo = doc.elements.partition_point(|e| e.start < t.start);
        let hi = doc.elements.partition_point(|e| e.start < t.end).max(lo);
        for e in &doc.elements[lo..hi] {
            if let ElementKind::TableRow { header } = e.kind {
                let inside = e.start >= t.start && e.end <= t.end && e.start < e.end;
                let ordered = rows.last().is_none_or(|r| e.start >= r.1);
                let bounded =
                    doc.text.is_char_boundary(e.start) && doc.text.is_char_boundary(e.end);
                if inside && ordered && bounded {
                    rows.push((e.start, e.end, header));
                }
            }
        }
        let meta = self.meta(Some("table"));
        let first_prefix = self.path_prefix.clone();
        let headers = rows.iter().take_while(|r| r.2).count();
        let data = &rows[headers..];
        if data.is_empty() {
            return self.em.emit(start, end, first_prefix.as_ref(), &meta);
        }
        let next_prefix = if headers > 0 {
            // A Markdown delimiter row (`---|---`) after the header rows belongs to the header:
            // without it a part is no longer a table.
            let gap = doc.text[rows[headers - 1].1..data[0].0].trim();
            let delimiter = !gap.is_empty()
                && gap.contains('-')
                && gap
                    .chars()
                    .all(|c| matches!(c, '|' | '-' | ':' | ' ' | '\t'));
            let header_end = if delimiter {
                rows[headers - 1].1 + doc.text[rows[headers - 1].1..data[0].0].trim_end().len()
            } else {
                rows[headers - 1].1
            };
            let header = doc.text[rows[0].0..header_end].trim();
            let path = if self.title_prefix {
                self.path()
            } else {
                Vec::new()
            };
            let mut candidates: Vec<String> = path_prefixes(&path)
                .into_iter()
                .map(|p| format!("{p}{header}\n"))
                .collect();
            candidates.push(format!("{header}\n"));
            candidates.extend(first_prefix.iter().map(|p| p.0.clone()));
            self.em.choose_prefix(candidates)
        } else {
            first_prefix.clone()
        };
        let (mut part_start, mut part_end) = (start, data[0].0);
        let mut prefix = first_prefix;
        for (k, row) in data.iter().enumerate() {
            let row_end = data.get(k + 1).map_or(end, |r| r.0);
            let pu = prefix.as_ref().map_or(0, |p| p.1);
            if self.em.fits(part_start, row_end, pu) {
                part_end = row_end;
                continue;
            }
            self.em.emit(part_start, part_end, prefix.as_ref(), &meta)?;
            prefix.clone_from(&next_prefix);
            let pu = prefix.as_ref().map_or(0, |p| p.1);
            part_start = row.0;
            part_end = row_end;
            if !self.em.fits(row.0, row_end, pu) {
                self.em.split(row.0, row_end, prefix.as_ref(), &meta)?;
                part_start = row_end;
            }
        }
        if part_start < part_end {
            self.em.emit(part_start, part_end, prefix.as_ref(), &meta)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::Element;
    use crate::sizer::{CharSizer, WordSizer};
    use crate::validate::{check_parsed, Expect};

    /// A heading, a paragraph, a 6-row table with a header, a 3-item list, code and a paragraph;
    /// two pages.
    fn doc() -> ParsedDocument {
        let mut text = String::new();
        let mut els = Vec::new();
        fn add(text: &mut String, els: &mut Vec<Element>, kind: ElementKind, s: &str, page: u32) {
            let start = text.len();
            text.push_str(s);
            els.push(Element::new(kind, start, text.len()).with_page(page));
            text.push('\n');
        }
        add(
            &mut text,
            &mut els,
            ElementKind::Heading { level: 1 },
            "1. Besluit",
            1,
        );
        let p = "De raad besluit het kader vast te stellen.";
        add(&mut text, &mut els, ElementKind::Paragraph, p, 1);
        let (table_at, table_start) = (els.len(), text.len());
        els.push(Element::new(ElementKind::Table, table_start, table_start).with_page(1));
        let rows = [
            "Jaar | Zoekgebied | Turbines",
            "2021 | Noord | 3",
            "2022 | Oost | 5",
            "2023 | Zuid | 8",
            "2024 | West | 2",
            "2025 | Midden | 4",
        ];
        for (i, row) in rows.iter().enumerate() {
            let kind = ElementKind::TableRow { header: i == 0 };
            add(&mut text, &mut els, kind, row, 1 + u32::from(i >= 3));
        }
        els[table_at].end = text.len() - 1;
        add(
            &mut text,
            &mut els,
            ElementKind::Heading { level: 2 },
            "1.1 Uitvoering",
            2,
        );
        for item in ["- plaatsing", "- onderhoud", "- verwijdering"] {
            add(&mut text, &mut els, ElementKind::ListItem, item, 2);
        }
        add(
            &mut text,
            &mut els,
            ElementKind::Code,
            "let x = 1;\nlet y = 2;",
            2,
        );
        add(&mut text, &mut els, ElementKind::Paragraph, "Slot.", 2);
        let mut d = ParsedDocument::plain(text);
        d.elements = els;
        d.pages = Some(2);
        d
    }

    fn run(d: &ParsedDocument, size: usize, prefix: bool) -> Vec<(Span, ChunkMeta)> {
        let c = Elements::new(Arc::new(CharSizer), size, 6, prefix).unwrap();
        let out = c.chunk_parsed(d).unwrap();
        check_parsed(
            d,
            &out,
            &CharSizer,
            Expect {
                size,
                overlap: false,
            },
        )
        .unwrap();
        out
    }

    #[test]
    fn everything_fits_in_one_chunk() {
        let d = doc();
        let out = run(&d, 10_000, false);
        assert_eq!(out.len(), 2, "a level-2 heading starts a new chunk");
        assert_eq!((out[0].1.page, out[0].1.page_end), (Some(1), Some(2)));
        assert_eq!(out[0].1.headings, ["1. Besluit"]);
        assert_eq!(out[0].1.kind.as_deref(), Some("table"));
        assert_eq!(out[1].1.headings, ["1. Besluit", "1.1 Uitvoering"]);
    }

    #[test]
    fn table_split_by_rows_with_header_repeated() {
        let d = doc();
        let out = run(&d, 60, false);
        let parts: Vec<_> = out
            .iter()
            .filter(|(_, m)| m.kind.as_deref() == Some("table"))
            .collect();
        assert!(parts.len() >= 2, "{out:?}");
        for (s, m) in &parts[1..] {
            assert_eq!(m.prefix.as_deref(), Some("Jaar | Zoekgebied | Turbines\n"));
            let body = &d.text[s.start..s.end];
            // Whole rows only.
            assert!(body.lines().all(|l| l.starts_with("20")), "{body:?}");
            assert_eq!(
                s.tokens,
                m.prefix.as_ref().unwrap().chars().count() + body.chars().count()
            );
        }
        // The list (26 chars with newlines) stays together under its heading.
        assert!(out
            .iter()
            .any(|(s, _)| d.text[s.start..s.end]
                .contains("- plaatsing\n- onderhoud\n- verwijdering")));
    }

    #[test]
    fn title_prefix_and_tiny_sizes() {
        let d = doc();
        for size in [1, 2, 5, 13, 30, 45, 80] {
            for prefix in [false, true] {
                let out = run(&d, size, prefix);
                assert!(!out.is_empty());
            }
        }
        let out = run(&d, 80, true);
        let last = out.last().unwrap();
        assert_eq!(
            last.1.prefix.as_deref(),
            Some("1. Besluit > 1.1 Uitvoering\n\n")
        );
    }

    #[test]
    fn plain_text_and_words() {
        let d = ParsedDocument::plain("een twee drie\n\nvier vijf".into());
        let c = Elements::new(Arc::new(WordSizer), 3, 6, false).unwrap();
        let out = c.chunk_parsed(&d).unwrap();
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
        assert_eq!(out.len(), 2);
        assert!(c.spans("x").unwrap_err().to_string().contains("requires"));
    }
}
