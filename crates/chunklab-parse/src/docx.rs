//! DOCX (Office Open XML word-processing) → text + elements.
//!
//! The main part (`word/document.xml`, found through `_rels/.rels`) is streamed with `quick-xml`:
//! paragraph styles resolve through `word/styles.xml` (`w:name`, `w:basedOn`, `w:outlineLvl`) to
//! title, heading level (English and localized names: "heading 2", "Kop 2", "Überschrift 2"),
//! caption or code; list markers are computed from `word/numbering.xml`; tables become rows with
//! the `w:tblHeader` rows (or else the first row) marked as header. Deleted revisions, field codes
//! and fallback copies of drawings are skipped. Metadata comes from `docProps/core.xml` and
//! `docProps/app.xml`.
//!
//! Hostile files: the zip is read through [`SafeZip`] (entry count and decompressed bytes
//! bounded); a password-protected DOCX (an OLE compound file) is reported as encrypted.
//!
//! ```
//! use chunklab_parse::{docx::DocxParser, Limits, Parser};
//! let err = DocxParser.parse(b"not a zip", "x.docx".as_ref(), &Limits::default()).unwrap_err();
//! assert!(err.to_string().contains("not a valid docx file"));
//! ```

use crate::blocks::{BlockKind, DocBuilder, NumberStyle, Row};
use crate::xml;
use crate::zip_limits::{ole_is_encrypted_package, SafeZip, OLE_MAGIC};
use crate::{Limits, ParseError, ParsedDocument, Parser};
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;
use std::path::Path;

const FORMAT: &str = "docx";

/// The DOCX parser.
#[derive(Debug, Clone, Copy, Default)]
pub struct DocxParser;

impl Parser for DocxParser {
    fn name(&self) -> &'static str {
        FORMAT
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        if bytes.starts_with(OLE_MAGIC) {
            return Err(if ole_is_encrypted_package(bytes) {
                ParseError::Encrypted { format: FORMAT }
            } else {
                invalid("an OLE compound file (a legacy binary .doc?), not a DOCX zip".into())
            });
        }
        let mut zip = SafeZip::open(bytes, FORMAT, limits)?;
        let main = main_part(&mut zip)?;
        let document = zip
            .read(&main)?
            .ok_or_else(|| invalid(format!("the main document part {main} is missing")))?;
        let dir = main.rsplit_once('/').map_or("", |(d, _)| d);
        let part = |name: &str| {
            if dir.is_empty() {
                name.to_string()
            } else {
                format!("{dir}/{name}")
            }
        };
        let styles = zip
            .read(&part("styles.xml"))?
            .map(|x| Styles::parse(&x))
            .unwrap_or_default();
        let numbering = zip
            .read(&part("numbering.xml"))?
            .map(|x| Numbering::parse(&x))
            .unwrap_or_default();
        let mut metadata = match zip.read("docProps/core.xml")? {
            Some(core) => xml::simple_fields(&core, CORE_FIELDS),
            None => Default::default(),
        };
        if let Some(app) = zip.read("docProps/app.xml")? {
            metadata.extend(xml::simple_fields(&app, &[(b"Application", "generator")]));
        }
        let mut walker = Walker::new(&styles, &numbering);
        walker.run(&document, &main)?;
        let mut doc = walker.builder.finish(FORMAT, metadata);
        if doc.text.is_empty() {
            doc.warnings.push(format!("{main} holds no text"));
        }
        Ok(doc)
    }
}

const CORE_FIELDS: &[(&[u8], &str)] = &[
    (b"dc:title", "title"),
    (b"dc:creator", "author"),
    (b"dc:subject", "subject"),
    (b"dc:description", "description"),
    (b"cp:keywords", "keywords"),
    (b"dc:language", "language"),
    (b"dcterms:created", "created"),
    (b"dcterms:modified", "modified"),
    (b"cp:lastModifiedBy", "last_modified_by"),
];

fn invalid(message: String) -> ParseError {
    ParseError::Invalid {
        format: FORMAT,
        message,
    }
}

/// The main document part named by the package relationships (usually `word/document.xml`).
fn main_part(zip: &mut SafeZip) -> Result<String, ParseError> {
    const DEFAULT: &str = "word/document.xml";
    let Some(rels) = zip.read("_rels/.rels")? else {
        return Ok(DEFAULT.into());
    };
    let mut r = xml::reader(&rels);
    while let Ok(ev) = r.read_event() {
        match ev {
            Event::Start(e) if e.name().as_ref() == b"Relationship" => {
                let ty = xml::attr(&e, b"Type").unwrap_or_default();
                if ty.ends_with("/officeDocument") {
                    if let Some(target) = xml::attr(&e, b"Target") {
                        let target = target.trim_start_matches('/').to_string();
                        if zip.contains(&target) {
                            return Ok(target);
                        }
                    }
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(DEFAULT.into())
}

/// What a paragraph style makes of a paragraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Title,
    Subtitle,
    Heading(u8),
    Caption,
    Code,
    /// Table-of-contents entries and the like.
    Other,
    Body,
}

/// A numbering reference: `w:numId` and `w:ilvl`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct NumRef {
    id: String,
    level: u8,
}

#[derive(Debug, Default)]
struct StyleDef {
    name: String,
    based_on: Option<String>,
    outline: Option<u8>,
    num: Option<NumRef>,
}

/// Paragraph styles of `word/styles.xml`, by style id.
#[derive(Debug, Default)]
struct Styles {
    defs: HashMap<String, StyleDef>,
    default_id: Option<String>,
}

impl Styles {
    fn parse(xml_bytes: &[u8]) -> Self {
        let mut styles = Styles::default();
        let mut r = xml::reader(xml_bytes);
        let mut current: Option<(String, StyleDef)> = None;
        let mut in_ppr = false;
        while let Ok(ev) = r.read_event() {
            match ev {
                Event::Start(e) => match e.name().as_ref() {
                    b"w:style" => {
                        let paragraph = xml::attr(&e, b"w:type").as_deref() == Some("paragraph");
                        let id = xml::attr(&e, b"w:styleId");
                        if let (true, Some(id)) = (paragraph, id) {
                            if xml::attr(&e, b"w:default").is_some_and(|v| on(&v)) {
                                styles.default_id = Some(id.clone());
                            }
                            current = Some((id, StyleDef::default()));
                        }
                    }
                    name => {
                        let Some((_, def)) = current.as_mut() else {
                            continue;
                        };
                        let val = || xml::attr(&e, b"w:val");
                        match name {
                            b"w:name" => def.name = val().unwrap_or_default().to_lowercase(),
                            b"w:basedOn" => def.based_on = val(),
                            b"w:pPr" => in_ppr = true,
                            b"w:outlineLvl" if in_ppr => {
                                def.outline = val().and_then(|v| v.parse().ok())
                            }
                            b"w:numId" if in_ppr => {
                                def.num.get_or_insert_with(NumRef::default).id =
                                    val().unwrap_or_default()
                            }
                            b"w:ilvl" if in_ppr => {
                                def.num.get_or_insert_with(NumRef::default).level =
                                    val().and_then(|v| v.parse().ok()).unwrap_or(0)
                            }
                            _ => {}
                        }
                    }
                },
                Event::End(e) => match e.name().as_ref() {
                    b"w:style" => {
                        if let Some((id, def)) = current.take() {
                            styles.defs.insert(id, def);
                        }
                    }
                    b"w:pPr" => in_ppr = false,
                    _ => {}
                },
                Event::Eof => break,
                _ => {}
            }
        }
        styles
    }

    /// The role of style `id`, following `w:basedOn` (a loop or a missing style ends the walk).
    fn role(&self, id: &str) -> Role {
        let mut id = id;
        for _ in 0..16 {
            let Some(def) = self.defs.get(id) else {
                return role_from_name(&id.to_lowercase()).unwrap_or(Role::Body);
            };
            if let Some(role) = role_from_name(&def.name) {
                return role;
            }
            if let Some(role) = role_from_name(&id.to_lowercase()) {
                return role;
            }
            if let Some(level) = def.outline.filter(|&l| l < 9) {
                return Role::Heading(level + 1);
            }
            match &def.based_on {
                Some(parent) => id = parent,
                None => break,
            }
        }
        Role::Body
    }

    /// The numbering a style (or one it is based on) applies.
    fn num(&self, id: &str) -> Option<NumRef> {
        let mut id = id;
        for _ in 0..16 {
            let def = self.defs.get(id)?;
            if let Some(num) = &def.num {
                return Some(num.clone());
            }
            id = def.based_on.as_deref()?;
        }
        None
    }
}

/// The role a style name implies, in English or a few other languages ("Kop 1", "Titel").
fn role_from_name(name: &str) -> Option<Role> {
    const HEADING: &[&str] = &[
        "heading",
        "kop",
        "überschrift",
        "titre",
        "título",
        "titulo",
        "titolo",
        "rubrik",
        "overskrift",
        "otsikko",
        "nagłówek",
        "nadpis",
        "заголовок",
    ];
    const TITLE: &[&str] = &[
        "title", "titel", "titre", "título", "titulo", "titolo", "tytuł",
    ];
    const SUBTITLE: &[&str] = &[
        "subtitle",
        "ondertitel",
        "untertitel",
        "sous-titre",
        "subtítulo",
        "sottotitolo",
    ];
    const CAPTION: &[&str] = &[
        "caption",
        "bijschrift",
        "beschriftung",
        "légende",
        "didascalia",
    ];
    const CODE: &[&str] = &[
        "preformatted",
        "code",
        "programlisting",
        "verbatim",
        "source text",
        "macro text",
        "listing",
    ];
    let name = name.trim();
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if base.len() < name.len() {
        let level: u8 = name[base.len()..].parse().unwrap_or(0);
        if (1..=9).contains(&level) && HEADING.contains(&base.trim_end()) {
            return Some(Role::Heading(level));
        }
        if base.trim_end() == "toc" {
            return Some(Role::Other);
        }
    }
    if TITLE.contains(&name) {
        return Some(Role::Title);
    }
    if SUBTITLE.contains(&name) {
        return Some(Role::Subtitle);
    }
    if CAPTION.contains(&name) {
        return Some(Role::Caption);
    }
    if CODE.iter().any(|c| name.contains(c)) {
        return Some(Role::Code);
    }
    None
}

fn on(v: &str) -> bool {
    !matches!(v, "0" | "false" | "off")
}

/// One level of a list definition (`w:lvl`).
#[derive(Debug, Clone)]
struct Level {
    start: u32,
    /// `None` for bullets, `Some(style)` for numbers; levels with `w:numFmt="none"` are absent.
    style: Option<NumberStyle>,
    text: String,
}

/// `word/numbering.xml`: abstract list definitions and the `w:num` instances using them.
#[derive(Debug, Default)]
struct Numbering {
    abstracts: HashMap<String, [Option<Level>; 9]>,
    /// numId → (abstractNumId, start overrides per level).
    nums: HashMap<String, (String, HashMap<u8, u32>)>,
}

impl Numbering {
    fn parse(xml_bytes: &[u8]) -> Self {
        let mut n = Numbering::default();
        let mut r = xml::reader(xml_bytes);
        let mut abstract_id: Option<String> = None;
        let mut num_id: Option<String> = None;
        let mut override_level: Option<u8> = None;
        let mut level: Option<(usize, Level, bool)> = None; // (ilvl, level, numFmt none)
        while let Ok(ev) = r.read_event() {
            match ev {
                Event::Start(e) => {
                    let val = || xml::attr(&e, b"w:val");
                    match e.name().as_ref() {
                        b"w:abstractNum" => {
                            abstract_id = xml::attr(&e, b"w:abstractNumId");
                            if let Some(id) = &abstract_id {
                                n.abstracts.insert(id.clone(), Default::default());
                            }
                        }
                        b"w:lvl" if abstract_id.is_some() => {
                            let ilvl = xml::attr(&e, b"w:ilvl").and_then(|v| v.parse().ok());
                            level = ilvl.filter(|&i: &usize| i < 9).map(|i| {
                                let default = Level {
                                    start: 1,
                                    style: Some(NumberStyle::Decimal),
                                    text: String::new(),
                                };
                                (i, default, false)
                            });
                        }
                        b"w:start" => {
                            if let Some((_, l, _)) = level.as_mut() {
                                l.start = val().and_then(|v| v.parse().ok()).unwrap_or(1);
                            }
                        }
                        b"w:numFmt" => {
                            if let Some((_, l, none)) = level.as_mut() {
                                match val().as_deref().unwrap_or("decimal") {
                                    "none" => *none = true,
                                    fmt => l.style = number_style(fmt),
                                }
                            }
                        }
                        b"w:lvlText" => {
                            if let Some((_, l, _)) = level.as_mut() {
                                l.text = val().unwrap_or_default();
                            }
                        }
                        b"w:num" => num_id = xml::attr(&e, b"w:numId"),
                        b"w:abstractNumId" => {
                            if let (Some(id), Some(abs)) = (&num_id, val()) {
                                n.nums.insert(id.clone(), (abs, HashMap::new()));
                            }
                        }
                        b"w:lvlOverride" => {
                            override_level = xml::attr(&e, b"w:ilvl").and_then(|v| v.parse().ok())
                        }
                        b"w:startOverride" => {
                            let start = val().and_then(|v| v.parse().ok());
                            if let (Some(id), Some(l), Some(s)) = (&num_id, override_level, start) {
                                if let Some((_, overrides)) = n.nums.get_mut(id) {
                                    overrides.insert(l, s);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                Event::End(e) => match e.name().as_ref() {
                    b"w:lvl" => {
                        if let (Some(abs), Some((i, l, none))) = (&abstract_id, level.take()) {
                            if let Some(levels) = n.abstracts.get_mut(abs) {
                                levels[i] = (!none).then_some(l);
                            }
                        }
                    }
                    b"w:abstractNum" => abstract_id = None,
                    b"w:num" => num_id = None,
                    _ => {}
                },
                Event::Eof => break,
                _ => {}
            }
        }
        n
    }
}

/// `w:numFmt` → counter style; `None` means a bullet.
fn number_style(fmt: &str) -> Option<NumberStyle> {
    Some(match fmt {
        "bullet" => return None,
        "decimalZero" => NumberStyle::DecimalZero,
        "lowerLetter" => NumberStyle::LowerLetter,
        "upperLetter" => NumberStyle::UpperLetter,
        "lowerRoman" => NumberStyle::LowerRoman,
        "upperRoman" => NumberStyle::UpperRoman,
        _ => NumberStyle::Decimal,
    })
}

#[derive(Debug, Default)]
struct Para {
    style: Option<String>,
    outline: Option<u8>,
    num: Option<NumRef>,
    text: String,
}

#[derive(Debug, Default)]
struct TableBuild {
    rows: Vec<Row>,
    row: Option<Row>,
    cell: Option<String>,
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
            self.row.get_or_insert_with(Row::default).cells.push(cell);
        }
    }

    fn close_row(&mut self) {
        self.close_cell();
        if let Some(row) = self.row.take() {
            self.rows.push(row);
        }
    }
}

/// Elements whose whole subtree holds no reading text (or a duplicate of it).
const SKIPPED: &[&[u8]] = &[
    b"w:pPrChange",
    b"w:rPrChange",
    b"w:tblPrChange",
    b"w:trPrChange",
    b"w:tcPrChange",
    b"w:del",
    b"w:moveFrom",
    b"w:delText",
    b"w:instrText",
    b"w:rPr",
    b"w:sectPr",
    b"w:tblPr",
    b"w:tblGrid",
    b"w:tcPr",
    b"w:sdtPr",
    b"mc:Fallback",
    b"w:footnoteReference",
    b"w:endnoteReference",
    b"w:commentReference",
];

struct Walker<'s> {
    styles: &'s Styles,
    numbering: &'s Numbering,
    counters: HashMap<String, [Option<u32>; 9]>,
    roles: HashMap<String, Role>,
    builder: DocBuilder,
    paras: Vec<Para>,
    /// Paragraphs of text boxes, finished while their anchor paragraph is still open.
    deferred: Vec<Para>,
    tables: Vec<TableBuild>,
    skip: usize,
    in_ppr: bool,
    in_run: usize,
    in_text: bool,
    in_trpr: bool,
}

impl<'s> Walker<'s> {
    fn new(styles: &'s Styles, numbering: &'s Numbering) -> Self {
        Self {
            styles,
            numbering,
            counters: HashMap::new(),
            roles: HashMap::new(),
            builder: DocBuilder::new(),
            paras: Vec::new(),
            deferred: Vec::new(),
            tables: Vec::new(),
            skip: 0,
            in_ppr: false,
            in_run: 0,
            in_text: false,
            in_trpr: false,
        }
    }

    fn run(&mut self, document: &[u8], part: &str) -> Result<(), ParseError> {
        let mut r = xml::reader(document);
        loop {
            match r.read_event() {
                Ok(Event::Start(e)) => {
                    if self.skip > 0 || SKIPPED.contains(&e.name().as_ref()) {
                        self.skip += 1;
                    } else {
                        self.start(&e);
                    }
                }
                Ok(Event::End(e)) => {
                    if self.skip > 0 {
                        self.skip -= 1;
                    } else {
                        self.end(e.name().as_ref());
                    }
                }
                Ok(Event::Text(t)) if self.in_text && self.skip == 0 => {
                    if let Some(p) = self.paras.last_mut() {
                        xml::push_text(&mut p.text, &t);
                    }
                }
                Ok(Event::GeneralRef(g)) if self.in_text && self.skip == 0 => {
                    if let Some(p) = self.paras.last_mut() {
                        xml::push_ref(&mut p.text, &g);
                    }
                }
                Ok(Event::Eof) => break,
                Ok(_) => {}
                Err(e) => return Err(xml::error(FORMAT, part, &r, e)),
            }
        }
        // A document cut short still yields what was read.
        while !self.paras.is_empty() {
            self.end_para();
        }
        while !self.tables.is_empty() {
            self.end_table();
        }
        Ok(())
    }

    fn start(&mut self, e: &BytesStart) {
        let val = || xml::attr(e, b"w:val");
        match e.name().as_ref() {
            b"w:p" => self.paras.push(Para::default()),
            b"w:pPr" => self.in_ppr = true,
            b"w:pStyle" if self.in_ppr => {
                if let Some(p) = self.paras.last_mut() {
                    p.style = val();
                }
            }
            b"w:outlineLvl" if self.in_ppr => {
                if let Some(p) = self.paras.last_mut() {
                    p.outline = val().and_then(|v| v.parse().ok());
                }
            }
            b"w:numId" if self.in_ppr => {
                if let Some(p) = self.paras.last_mut() {
                    p.num.get_or_insert_with(NumRef::default).id = val().unwrap_or_default();
                }
            }
            b"w:ilvl" if self.in_ppr => {
                if let Some(p) = self.paras.last_mut() {
                    p.num.get_or_insert_with(NumRef::default).level =
                        val().and_then(|v| v.parse().ok()).unwrap_or(0).min(8);
                }
            }
            b"w:r" => self.in_run += 1,
            b"w:t" => self.in_text = true,
            b"w:tab" | b"w:ptab" if self.in_run > 0 => self.push_char('\t'),
            b"w:br" | b"w:cr" if self.in_run > 0 => self.push_char('\n'),
            b"w:noBreakHyphen" if self.in_run > 0 => self.push_char('-'),
            b"w:tbl" => self.tables.push(TableBuild {
                para_depth: self.paras.len(),
                ..TableBuild::default()
            }),
            b"w:tr" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_row();
                    t.row = Some(Row::default());
                }
            }
            b"w:trPr" => self.in_trpr = true,
            b"w:tblHeader" if self.in_trpr => {
                let header = val().is_none_or(|v| on(&v));
                if let Some(row) = self.tables.last_mut().and_then(|t| t.row.as_mut()) {
                    row.header = header;
                }
            }
            b"w:tc" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_cell();
                    t.cell_text();
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, name: &[u8]) {
        match name {
            b"w:p" => self.end_para(),
            b"w:pPr" => self.in_ppr = false,
            b"w:r" => self.in_run = self.in_run.saturating_sub(1),
            b"w:t" => self.in_text = false,
            b"w:trPr" => self.in_trpr = false,
            b"w:tc" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_cell();
                }
            }
            b"w:tr" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_row();
                }
            }
            b"w:tbl" => self.end_table(),
            _ => {}
        }
    }

    fn push_char(&mut self, c: char) {
        if let Some(p) = self.paras.last_mut() {
            p.text.push(c);
        }
    }

    /// Routes a finished paragraph: into the open table cell, held back while its text box's
    /// anchor paragraph is open, or written out.
    fn end_para(&mut self) {
        let Some(para) = self.paras.pop() else {
            return;
        };
        let depth = self.paras.len();
        if let Some(t) = self.tables.last_mut().filter(|t| t.para_depth == depth) {
            let cell = t.cell_text();
            for p in std::iter::once(para).chain(self.deferred.drain(..)) {
                cell.push(' ');
                cell.push_str(&p.text);
            }
        } else if depth > 0 {
            self.deferred.push(para);
        } else {
            self.emit(para);
            for p in std::mem::take(&mut self.deferred) {
                self.emit(p);
            }
        }
    }

    fn end_table(&mut self) {
        let Some(mut table) = self.tables.pop() else {
            return;
        };
        table.close_row();
        if !table.rows.iter().any(|r| r.header) && table.rows.len() > 1 {
            table.rows[0].header = true;
        }
        if let Some(outer) = self.tables.last_mut() {
            // A table nested in a cell is flattened into that cell's text.
            let cell = outer.cell_text();
            for row in &table.rows {
                for c in &row.cells {
                    cell.push(' ');
                    cell.push_str(c);
                }
            }
        } else {
            self.builder.table(&table.rows, None);
        }
    }

    fn role(&mut self, style: Option<&str>) -> Role {
        let Some(id) = style.or(self.styles.default_id.as_deref()) else {
            return Role::Body;
        };
        if let Some(r) = self.roles.get(id) {
            return *r;
        }
        let r = self.styles.role(id);
        self.roles.insert(id.to_string(), r);
        r
    }

    fn emit(&mut self, p: Para) {
        let mut role = self.role(p.style.as_deref());
        if let Some(level) = p.outline.filter(|&l| l < 9) {
            if role == Role::Body {
                role = Role::Heading(level + 1);
            }
        }
        match role {
            Role::Title => self.builder.block(BlockKind::Title, &p.text, None),
            Role::Subtitle | Role::Other => self.builder.block(BlockKind::Other, &p.text, None),
            Role::Heading(level) => self.builder.block(BlockKind::Heading(level), &p.text, None),
            Role::Caption => self.builder.block(BlockKind::Caption, &p.text, None),
            Role::Code => self.builder.code_line(&p.text),
            Role::Body => {
                // Direct numbering wins; a direct level without a list takes the style's list.
                let style_num = p
                    .style
                    .as_deref()
                    .or(self.styles.default_id.as_deref())
                    .and_then(|s| self.styles.num(s));
                let num = match (p.num.clone(), style_num) {
                    (Some(direct), Some(style)) if direct.id.is_empty() => Some(NumRef {
                        id: style.id,
                        level: direct.level,
                    }),
                    (direct, style) => direct.or(style),
                };
                match num.filter(|n| !n.id.is_empty() && n.id != "0") {
                    Some(n) if !p.text.trim().is_empty() => {
                        let marker = self.marker(&n);
                        let depth = n.level as usize;
                        match marker {
                            Some(m) => self.builder.list_item(depth, Some(&m), &p.text, None),
                            None => self.builder.block(BlockKind::Paragraph, &p.text, None),
                        }
                    }
                    _ => self.builder.block(BlockKind::Paragraph, &p.text, None),
                }
            }
        }
    }

    /// Advances list `n`'s counter at its level and writes the marker (`3.`, `b)`, `-`), or
    /// `None` where the level shows no marker or the list is undefined.
    fn marker(&mut self, n: &NumRef) -> Option<String> {
        let (abs, overrides) = self.numbering.nums.get(&n.id)?;
        let levels = self.numbering.abstracts.get(abs)?;
        let ilvl = (n.level as usize).min(8);
        let level = levels[ilvl].as_ref()?;
        let start = |i: usize| {
            overrides
                .get(&(i as u8))
                .copied()
                .or(levels[i].as_ref().map(|l| l.start))
                .unwrap_or(1)
        };
        let counters = self.counters.entry(n.id.clone()).or_insert([None; 9]);
        counters[ilvl] = Some(counters[ilvl].map_or(start(ilvl), |c| c.saturating_add(1)));
        for deeper in counters.iter_mut().skip(ilvl + 1) {
            *deeper = None;
        }
        let Some(style) = level.style else {
            return Some("-".into());
        };
        let mut out = String::new();
        let mut chars = level.text.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, chars.peek().and_then(|d| d.to_digit(10))) {
                ('%', Some(k @ 1..=9)) => {
                    chars.next();
                    let i = k as usize - 1;
                    let value = counters[i].unwrap_or_else(|| start(i));
                    let s = levels[i].as_ref().and_then(|l| l.style).unwrap_or(style);
                    out.push_str(&s.format(value));
                }
                _ => out.push(c),
            }
        }
        let out = out.trim();
        Some(if out.is_empty() {
            format!("{}.", style.format(counters[ilvl].unwrap_or(1)))
        } else {
            out.to_string()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_names() {
        assert_eq!(role_from_name("heading 2"), Some(Role::Heading(2)));
        assert_eq!(role_from_name("kop 3"), Some(Role::Heading(3)));
        assert_eq!(role_from_name("heading1"), Some(Role::Heading(1)));
        assert_eq!(role_from_name("überschrift 1"), Some(Role::Heading(1)));
        assert_eq!(role_from_name("titel"), Some(Role::Title));
        assert_eq!(role_from_name("heading"), None);
        assert_eq!(role_from_name("heading 12"), None);
        assert_eq!(role_from_name("toc 1"), Some(Role::Other));
        assert_eq!(
            role_from_name("preformatted text.programlisting"),
            Some(Role::Code)
        );
        assert_eq!(role_from_name("body text"), None);
    }
}
