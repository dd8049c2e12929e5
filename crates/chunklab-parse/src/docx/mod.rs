//! DOCX (Office Open XML word-processing) → text + elements.
//!
//! The main part (`word/document.xml`, found through `_rels/.rels`) is streamed with `quick-xml`
//! straight out of the zip entry (never decompressed whole into memory):
//! paragraph styles resolve through `word/styles.xml` (`w:name`, `w:basedOn`, `w:outlineLvl`) to
//! title, heading level (English and localized names: "heading 2", "Kop 2", "Überschrift 2"),
//! caption or code; list markers are computed from `word/numbering.xml`; tables become rows with
//! the `w:tblHeader` rows (or else the first row) marked as header. Deleted revisions, field codes
//! and fallback copies of drawings are skipped. Metadata comes from `docProps/core.xml` and
//! `docProps/app.xml`.
//!
//! Hostile files: the zip is read through `SafeZip` (entry count and decompressed bytes
//! bounded); a password-protected DOCX (an OLE compound file) is reported as encrypted.
//!
//! ```
//! use chunklab_parse::{docx::DocxParser, Limits, Parser};
//! let err = DocxParser.parse(b"not a zip", "x.docx".as_ref(), &Limits::default()).unwrap_err();
//! assert!(err.to_string().contains("not a valid docx file"));
//! ```

mod styles;

use crate::blocks::{BlockKind, DocBuilder};
use crate::office::roles::Role;
use crate::office::walk::{self, Blocks, Format, Names, Para};
use crate::xml;
use crate::zip_limits::{ole_is_encrypted_package, SafeZip, OLE_MAGIC};
use crate::{Limits, ParseError, ParsedDocument, Parser};
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;
use std::path::Path;
use styles::{on, NumRef, Numbering, Styles};

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
        let missing = || invalid(format!("the main document part {main} is missing"));
        if !zip.contains(&main) {
            return Err(missing());
        }
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
        // The main part last, streamed: it can be hundreds of megabytes of XML (the small parts
        // above are read whole); all parts share one decompression budget.
        let document = zip.stream(&main)?.ok_or_else(missing)?;
        let mut docx = Docx::new(&styles, &numbering);
        let builder = walk::walk(&mut docx, document, FORMAT, &main, limits.max_elements)?;
        let mut doc = builder.finish(FORMAT, metadata);
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

/// What DOCX records about a paragraph: its direct style, outline level and numbering.
#[derive(Debug, Default)]
struct Meta {
    style: Option<String>,
    outline: Option<u8>,
    num: Option<NumRef>,
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

/// The DOCX side of the shared walk: paragraph properties, runs, breaks, header rows, and the
/// list counters.
struct Docx<'s> {
    styles: &'s Styles,
    numbering: &'s Numbering,
    counters: HashMap<String, [Option<u32>; 9]>,
    roles: HashMap<String, Role>,
    in_ppr: bool,
    in_run: usize,
    in_text: bool,
    in_trpr: bool,
}

impl<'s> Docx<'s> {
    fn new(styles: &'s Styles, numbering: &'s Numbering) -> Self {
        Self {
            styles,
            numbering,
            counters: HashMap::new(),
            roles: HashMap::new(),
            in_ppr: false,
            in_run: 0,
            in_text: false,
            in_trpr: false,
        }
    }
}

impl Format for Docx<'_> {
    type Meta = Meta;
    const NAMES: Names = Names {
        paragraphs: &[b"w:p"],
        table: b"w:tbl",
        row: b"w:tr",
        cell: b"w:tc",
    };
    const SKIPPED: &'static [&'static [u8]] = SKIPPED;

    fn paragraph(&mut self, _e: &BytesStart) -> Meta {
        Meta::default()
    }

    fn start(&mut self, blocks: &mut Blocks<Meta>, e: &BytesStart) {
        let val = || xml::attr(e, b"w:val");
        match e.name().as_ref() {
            b"w:pPr" => self.in_ppr = true,
            b"w:pStyle" if self.in_ppr => {
                if let Some(p) = blocks.meta_mut() {
                    p.style = val();
                }
            }
            b"w:outlineLvl" if self.in_ppr => {
                if let Some(p) = blocks.meta_mut() {
                    p.outline = val().and_then(|v| v.parse().ok());
                }
            }
            b"w:numId" if self.in_ppr => {
                if let Some(p) = blocks.meta_mut() {
                    p.num.get_or_insert_with(NumRef::default).id = val().unwrap_or_default();
                }
            }
            b"w:ilvl" if self.in_ppr => {
                if let Some(p) = blocks.meta_mut() {
                    p.num.get_or_insert_with(NumRef::default).level =
                        val().and_then(|v| v.parse().ok()).unwrap_or(0).min(8);
                }
            }
            b"w:r" => self.in_run += 1,
            b"w:t" => self.in_text = true,
            b"w:tab" | b"w:ptab" if self.in_run > 0 => blocks.push_str("\t"),
            b"w:br" | b"w:cr" if self.in_run > 0 => blocks.push_str("\n"),
            b"w:noBreakHyphen" if self.in_run > 0 => blocks.push_str("-"),
            b"w:trPr" => self.in_trpr = true,
            b"w:tblHeader" if self.in_trpr => {
                let header = val().is_none_or(|v| on(&v));
                if let Some(row) = blocks.tables.last_mut().and_then(|t| t.row_mut()) {
                    row.header = header;
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, _blocks: &mut Blocks<Meta>, name: &[u8]) {
        match name {
            b"w:pPr" => self.in_ppr = false,
            b"w:r" => self.in_run = self.in_run.saturating_sub(1),
            b"w:t" => self.in_text = false,
            b"w:trPr" => self.in_trpr = false,
            _ => {}
        }
    }

    fn in_text(&self) -> bool {
        self.in_text
    }

    fn emit(&mut self, builder: &mut DocBuilder, para: Para<Meta>) {
        self.emit_para(builder, para);
    }
}

impl Docx<'_> {
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

    fn emit_para(&mut self, builder: &mut DocBuilder, p: Para<Meta>) {
        let mut role = self.role(p.meta.style.as_deref());
        if let Some(level) = p.meta.outline.filter(|&l| l < 9) {
            if role == Role::Body {
                role = Role::Heading(level + 1);
            }
        }
        match role {
            Role::Title => builder.block(BlockKind::Title, &p.text, None),
            Role::Subtitle | Role::Other => builder.block(BlockKind::Other, &p.text, None),
            Role::Heading(level) => builder.block(BlockKind::Heading(level), &p.text, None),
            Role::Caption => builder.block(BlockKind::Caption, &p.text, None),
            Role::Code => builder.code_line(&p.text),
            Role::Body => {
                // Direct numbering wins; a direct level without a list takes the style's list.
                let style_num = p
                    .meta
                    .style
                    .as_deref()
                    .or(self.styles.default_id.as_deref())
                    .and_then(|s| self.styles.num(s));
                let num = match (p.meta.num.clone(), style_num) {
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
                            Some(m) => builder.list_item(depth, Some(&m), &p.text, None),
                            None => builder.block(BlockKind::Paragraph, &p.text, None),
                        }
                    }
                    _ => builder.block(BlockKind::Paragraph, &p.text, None),
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
