//! The block walker shared by DOCX and ODT: streams a main part with `quick-xml`, skips subtrees
//! that hold no reading text, collects paragraph text and tables, and routes each finished
//! paragraph — into the open table cell, held back while the paragraph anchoring its text box or
//! footnote is still open, or handed to the format's [`Format::emit`].
//!
//! A format names its paragraph, table, row and cell elements ([`Names`]) and handles everything
//! else through [`Format::start`] and [`Format::end`] (styles, numbering, lists, breaks).

use crate::blocks::{DocBuilder, Row};
use crate::xml;
use crate::ParseError;
use quick_xml::events::{BytesStart, BytesText, Event};
use std::io::BufRead;

/// The element names of a format's paragraphs and tables (qualified, as producers write them).
pub(crate) struct Names {
    /// Paragraph elements (`w:p`; `text:p`, `text:h`).
    pub paragraphs: &'static [&'static [u8]],
    pub table: &'static [u8],
    pub row: &'static [u8],
    pub cell: &'static [u8],
}

/// A paragraph being collected: the format's own data and its text so far.
#[derive(Debug)]
pub(crate) struct Para<M> {
    pub meta: M,
    pub text: String,
}

/// One format's side of the walk.
pub(crate) trait Format {
    /// What the format records about a paragraph (style, numbering, list context ...).
    type Meta;
    /// Paragraph and table element names.
    const NAMES: Names;
    /// Elements whose whole subtree holds no reading text (or a duplicate of it).
    const SKIPPED: &'static [&'static [u8]];

    /// Whether an event outside the walked part (before ODT's `office:body`) is ignored: called
    /// with every start (`Some`) and end (`None`) event before anything else.
    fn ignored(&mut self, _start: Option<&BytesStart>, _name: &[u8]) -> bool {
        false
    }
    /// A paragraph element opens.
    fn paragraph(&mut self, e: &BytesStart) -> Self::Meta;
    /// Any other element opens (not skipped, not a table part).
    fn start(&mut self, blocks: &mut Blocks<Self::Meta>, e: &BytesStart);
    /// Any other element closes.
    fn end(&mut self, blocks: &mut Blocks<Self::Meta>, name: &[u8]);
    /// How many times a cell is repeated (ODT's `table:number-columns-repeated`).
    fn cell_repeat(&self, _e: &BytesStart) -> usize {
        1
    }
    /// Whether character data is reading text here (DOCX: only inside `w:t`).
    fn in_text(&self) -> bool {
        true
    }
    /// Appends character data to a paragraph.
    fn push_text(&self, out: &mut String, t: &BytesText) {
        xml::push_text(out, t);
    }
    /// Writes a finished top-level paragraph.
    fn emit(&mut self, builder: &mut DocBuilder, para: Para<Self::Meta>);
}

/// A table being collected.
#[derive(Debug, Default)]
pub(crate) struct TableBuild {
    rows: Vec<Row>,
    row: Option<Row>,
    cell: Option<String>,
    /// Copies of the open cell (ODT's repeated columns; 1 otherwise).
    repeat: usize,
    /// Inside ODT's `table:table-header-rows`.
    pub in_header: bool,
    /// The table marks its header rows itself (ODT's `table:table-header-rows`).
    pub has_header_rows: bool,
    /// Paragraphs open when the table started (a table inside a text box sits inside one).
    para_depth: usize,
}

impl TableBuild {
    fn cell_text(&mut self) -> &mut String {
        self.row.get_or_insert_with(Row::default);
        self.cell.get_or_insert_with(String::new)
    }

    fn close_cell(&mut self) {
        if let Some(cell) = self.cell.take() {
            let row = self.row.get_or_insert_with(Row::default);
            // A repeated cell: only real content is worth repeating.
            let times = if cell.trim().is_empty() {
                1
            } else {
                self.repeat.clamp(1, 64)
            };
            for _ in 1..times {
                row.cells.push(cell.clone());
            }
            row.cells.push(cell);
        }
        self.repeat = 1;
    }

    /// Closes the open row (and cell).
    pub fn close_row(&mut self) {
        self.close_cell();
        if let Some(mut row) = self.row.take() {
            row.header |= self.in_header;
            self.rows.push(row);
        }
    }

    /// The row being collected (DOCX marks `w:tblHeader` rows on it).
    pub fn row_mut(&mut self) -> Option<&mut Row> {
        self.row.as_mut()
    }
}

/// The walk's output side: the document builder, open paragraphs and open tables.
pub(crate) struct Blocks<M> {
    pub builder: DocBuilder,
    /// Open paragraphs, outermost first (a text box's paragraphs nest inside their anchor).
    pub paras: Vec<Para<M>>,
    /// Paragraphs of text boxes and notes, finished while their anchor paragraph is still open.
    deferred: Vec<Para<M>>,
    pub tables: Vec<TableBuild>,
}

impl<M> Blocks<M> {
    /// Appends `s` to the innermost open paragraph.
    pub fn push_str(&mut self, s: &str) {
        if let Some(p) = self.paras.last_mut() {
            p.text.push_str(s);
        }
    }

    /// The innermost open paragraph's data.
    pub fn meta_mut(&mut self) -> Option<&mut M> {
        self.paras.last_mut().map(|p| &mut p.meta)
    }
}

/// Walks `xml` (the part named `part` of a `format` file, streamed: only the event being read is
/// held, never the whole part) and returns the built document. A part cut short still yields
/// what was read; malformed XML or a failed read (a corrupt part, the decompression limit) is an
/// error, and so is a part with more than `max_elements` elements (checked as they are built,
/// before memory runs out).
pub(crate) fn walk<F: Format, R: BufRead>(
    fmt: &mut F,
    xml_source: R,
    format: &'static str,
    part: &str,
    max_elements: usize,
) -> Result<DocBuilder, ParseError> {
    let mut w = Walker {
        fmt,
        blocks: Blocks {
            builder: DocBuilder::new(),
            paras: Vec::new(),
            deferred: Vec::new(),
            tables: Vec::new(),
        },
        skip: 0,
    };
    let mut r = xml::stream_reader(xml_source);
    let mut buf = Vec::new();
    let mut events = 0u32;
    let over = || ParseError::Limit {
        what: format!("elements (paragraphs, headings, table cells) in the {format} part {part}"),
        limit: max_elements as u64,
    };
    loop {
        events = events.wrapping_add(1);
        if events.is_multiple_of(4096) && w.blocks.builder.len() > max_elements {
            return Err(over());
        }
        buf.clear();
        match r.read_event_into(&mut buf) {
            Ok(Event::Start(e)) => {
                let name = e.name();
                if w.fmt.ignored(Some(&e), name.as_ref()) {
                    continue;
                }
                if w.skip > 0 || F::SKIPPED.contains(&name.as_ref()) {
                    w.skip += 1;
                } else {
                    w.start(&e);
                }
            }
            Ok(Event::End(e)) => {
                let name = e.name();
                if w.fmt.ignored(None, name.as_ref()) {
                    continue;
                }
                if w.skip > 0 {
                    w.skip -= 1;
                } else {
                    w.end(name.as_ref());
                }
            }
            Ok(Event::Text(t)) if w.skip == 0 && w.fmt.in_text() => {
                if let Some(p) = w.blocks.paras.last_mut() {
                    w.fmt.push_text(&mut p.text, &t);
                }
            }
            Ok(Event::GeneralRef(g)) if w.skip == 0 && w.fmt.in_text() => {
                if let Some(p) = w.blocks.paras.last_mut() {
                    xml::push_ref(&mut p.text, &g);
                }
            }
            Ok(Event::Eof) => break,
            Ok(_) => {}
            Err(e) => return Err(xml::error(format, part, &r, e)),
        }
    }
    while !w.blocks.paras.is_empty() {
        w.end_para();
    }
    while !w.blocks.tables.is_empty() {
        w.end_table();
    }
    // Checked while walking only every 4,096 events; exactly here.
    if w.blocks.builder.len() > max_elements {
        return Err(over());
    }
    Ok(w.blocks.builder)
}

struct Walker<'f, F: Format> {
    fmt: &'f mut F,
    blocks: Blocks<F::Meta>,
    skip: usize,
}

impl<F: Format> Walker<'_, F> {
    fn start(&mut self, e: &BytesStart) {
        let name = e.name();
        let name = name.as_ref();
        let names = &F::NAMES;
        if names.paragraphs.contains(&name) {
            let meta = self.fmt.paragraph(e);
            self.blocks.paras.push(Para {
                meta,
                text: String::new(),
            });
        } else if name == names.table {
            self.blocks.tables.push(TableBuild {
                para_depth: self.blocks.paras.len(),
                repeat: 1,
                ..TableBuild::default()
            });
        } else if name == names.row {
            if let Some(t) = self.blocks.tables.last_mut() {
                t.close_row();
                t.row = Some(Row::default());
            }
        } else if name == names.cell {
            let repeat = self.fmt.cell_repeat(e);
            if let Some(t) = self.blocks.tables.last_mut() {
                t.close_cell();
                t.cell_text();
                t.repeat = repeat;
            }
        } else {
            self.fmt.start(&mut self.blocks, e);
        }
    }

    fn end(&mut self, name: &[u8]) {
        let names = &F::NAMES;
        if names.paragraphs.contains(&name) {
            self.end_para();
        } else if name == names.table {
            self.end_table();
        } else if name == names.row {
            if let Some(t) = self.blocks.tables.last_mut() {
                t.close_row();
            }
        } else if name == names.cell {
            if let Some(t) = self.blocks.tables.last_mut() {
                t.close_cell();
            }
        } else {
            self.fmt.end(&mut self.blocks, name);
        }
    }

    /// Routes a finished paragraph: into the open table cell, held back while its text box's
    /// anchor paragraph is open, or written out.
    fn end_para(&mut self) {
        let b = &mut self.blocks;
        let Some(para) = b.paras.pop() else {
            return;
        };
        let depth = b.paras.len();
        if let Some(t) = b.tables.last_mut().filter(|t| t.para_depth == depth) {
            let cell = t.cell_text();
            for p in std::iter::once(para).chain(b.deferred.drain(..)) {
                cell.push(' ');
                cell.push_str(&p.text);
            }
        } else if depth > 0 {
            b.deferred.push(para);
        } else {
            self.fmt.emit(&mut b.builder, para);
            for p in std::mem::take(&mut b.deferred) {
                self.fmt.emit(&mut b.builder, p);
            }
        }
    }

    fn end_table(&mut self) {
        let b = &mut self.blocks;
        let Some(mut table) = b.tables.pop() else {
            return;
        };
        table.close_row();
        let marked = table.has_header_rows || table.rows.iter().any(|r| r.header);
        if !marked && table.rows.len() > 1 {
            table.rows[0].header = true;
        }
        if let Some(outer) = b.tables.last_mut() {
            // A table nested in a cell is flattened into that cell's text.
            let cell = outer.cell_text();
            for row in &table.rows {
                for c in &row.cells {
                    cell.push(' ');
                    cell.push_str(c);
                }
            }
        } else {
            b.builder.table(&table.rows, None);
        }
    }
}
