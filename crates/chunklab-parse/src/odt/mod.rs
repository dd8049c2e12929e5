//! ODT (OpenDocument text) → text + elements.
//!
//! `content.xml` is streamed with `quick-xml` straight out of the zip entry (never decompressed
//! whole into memory): `text:h` is a heading at its `text:outline-level`;
//! a `text:p` takes its role from its paragraph style, followed through `style:parent-style-name`
//! from the automatic styles of `content.xml` to the named styles of `styles.xml` (display names
//! such as "Heading 1", "Title", "Caption", "Preformatted Text"; `style:default-outline-level`);
//! `text:list` items get the marker their list style defines (`1.`, `a)`, `-`); `table:table`
//! becomes rows with the `table:table-header-rows` (or else the first row) marked as header.
//! Tracked deletions, annotations and footnote citations are skipped; footnote bodies and text
//! boxes follow the paragraph that anchors them. Metadata comes from `meta.xml`.
//!
//! Hostile files: the zip is read through `SafeZip`; a package whose manifest lists
//! `manifest:encryption-data` is reported as encrypted instead of failing on ciphertext.
//!
//! ```
//! use chunklab_parse::{odt::OdtParser, Limits, Parser};
//! let err = OdtParser.parse(b"", "x.odt".as_ref(), &Limits::default()).unwrap_err();
//! assert!(err.to_string().contains("not a valid odt file"));
//! ```

mod styles;

use crate::blocks::{BlockKind, DocBuilder, NumberStyle};
use crate::office::roles::Role;
use crate::office::walk::{self, Blocks, Format, Names, Para};
use crate::xml;
use crate::zip_limits::SafeZip;
use crate::{Limits, ParseError, ParsedDocument, Parser};
use quick_xml::events::{BytesStart, BytesText};
use std::collections::HashMap;
use std::path::Path;
use styles::{ListLevel, Styles};

const FORMAT: &str = "odt";

/// The ODT parser (also reads `.ott` templates).
#[derive(Debug, Clone, Copy, Default)]
pub struct OdtParser;

impl Parser for OdtParser {
    fn name(&self) -> &'static str {
        FORMAT
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        let mut zip = SafeZip::open(bytes, FORMAT, limits)?;
        let mut warnings = Vec::new();
        if let Some(manifest) = zip.read("META-INF/manifest.xml")? {
            if contains(&manifest, b"encryption-data") {
                return Err(ParseError::Encrypted { format: FORMAT });
            }
        }
        if let Some(mime) = zip.read("mimetype")? {
            let mime = String::from_utf8_lossy(&mime);
            if !mime.starts_with("application/vnd.oasis.opendocument.text") {
                warnings.push(format!(
                    "mimetype is {:?}, not an OpenDocument text; reading its text anyway",
                    mime.trim()
                ));
            }
        }
        let missing = || invalid("content.xml is missing".into());
        if !zip.contains("content.xml") {
            return Err(missing());
        }
        let mut styles = Styles::default();
        if let Some(s) = zip.read("styles.xml")? {
            styles.add(&s[..], false);
        }
        // content.xml is streamed twice, never held whole: its head for the automatic styles
        // (the read stops at `office:body`), then all of it for the text.
        if let Some(head) = zip.peek("content.xml")? {
            styles.add(head, true);
        }
        let metadata = match zip.read("meta.xml")? {
            Some(meta) => {
                let mut m = xml::simple_fields(&meta, META_FIELDS);
                if let Some(author) = m.remove("initial_creator") {
                    m.insert("author".into(), author);
                }
                m
            }
            None => Default::default(),
        };
        let content = zip.stream("content.xml")?.ok_or_else(missing)?;
        let mut odt = Odt::new(&styles);
        let builder = walk::walk(
            &mut odt,
            content,
            FORMAT,
            "content.xml",
            limits.max_elements,
        )?;
        let mut doc = builder.finish(FORMAT, metadata);
        doc.warnings = warnings;
        if doc.text.is_empty() {
            doc.warnings.push("content.xml holds no text".into());
        }
        Ok(doc)
    }
}

const META_FIELDS: &[(&[u8], &str)] = &[
    (b"dc:title", "title"),
    (b"meta:initial-creator", "initial_creator"),
    (b"dc:creator", "last_modified_by"),
    (b"dc:subject", "subject"),
    (b"dc:description", "description"),
    (b"meta:keyword", "keywords"),
    (b"dc:language", "language"),
    (b"meta:creation-date", "created"),
    (b"dc:date", "modified"),
    (b"meta:generator", "generator"),
];

fn invalid(message: String) -> ParseError {
    ParseError::Invalid {
        format: FORMAT,
        message,
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// What ODT records about a paragraph under construction.
#[derive(Debug)]
struct Meta {
    heading: Option<u8>,
    style: Option<String>,
    /// The list item marker, for the first paragraph of an item.
    marker: Option<String>,
    /// In a list: its nesting depth (0 = top level).
    list_depth: Option<usize>,
    /// Inside a table of contents or an index.
    index: bool,
}

/// An open `text:list`.
#[derive(Debug)]
struct ListCtx {
    style: Option<String>,
    counter: Option<u32>,
    /// The marker of the current item, until its first paragraph takes it.
    pending: Option<String>,
    header: bool,
}

/// Elements whose subtree holds no reading text.
const SKIPPED: &[&[u8]] = &[
    b"text:tracked-changes",
    b"office:annotation",
    b"text:note-citation",
    // The cached rendering of a heading's or item's number: numbering noise.
    b"text:number",
    b"text:sequence-decls",
    b"text:variable-decls",
    b"text:user-field-decls",
    b"office:forms",
    b"svg:title",
    b"svg:desc",
    b"text:ruby-text",
    b"text:table-of-content-source",
    b"text:illustration-index-source",
    b"text:alphabetical-index-source",
    b"text:bibliography-source",
    b"text:user-index-source",
    b"text:table-index-source",
    b"text:object-index-source",
];

/// Index and table-of-contents containers: their paragraphs are [`BlockKind::Other`].
const INDEXES: &[&[u8]] = &[
    b"text:table-of-content",
    b"text:alphabetical-index",
    b"text:illustration-index",
    b"text:bibliography",
    b"text:user-index",
    b"text:table-index",
    b"text:object-index",
];

/// The ODT side of the shared walk: the body, lists and their counters, spaces and breaks,
/// header rows, indexes.
struct Odt<'s> {
    styles: &'s Styles,
    in_body: bool,
    lists: Vec<ListCtx>,
    /// Last counter of each top-level list style, for `text:continue-numbering`.
    continued: HashMap<String, u32>,
    index_depth: usize,
    roles: HashMap<String, Role>,
}

impl<'s> Odt<'s> {
    fn new(styles: &'s Styles) -> Self {
        Self {
            styles,
            in_body: false,
            lists: Vec::new(),
            continued: HashMap::new(),
            index_depth: 0,
            roles: HashMap::new(),
        }
    }
}

impl Format for Odt<'_> {
    type Meta = Meta;
    const NAMES: Names = Names {
        paragraphs: &[b"text:p", b"text:h"],
        table: b"table:table",
        row: b"table:table-row",
        cell: b"table:table-cell",
    };
    const SKIPPED: &'static [&'static [u8]] = SKIPPED;

    /// Everything before `office:body` (styles, declarations) is not text.
    fn ignored(&mut self, start: Option<&BytesStart>, name: &[u8]) -> bool {
        if self.in_body {
            return false;
        }
        if start.is_some() {
            self.in_body = name == b"office:body";
        }
        true
    }

    fn paragraph(&mut self, e: &BytesStart) -> Meta {
        let heading = (e.name().as_ref() == b"text:h").then(|| {
            xml::attr(e, b"text:outline-level")
                .and_then(|v| v.parse::<u8>().ok())
                .unwrap_or(1)
                .clamp(1, 10)
        });
        let style = xml::attr(e, b"text:style-name");
        let list_depth = (!self.lists.is_empty()).then(|| self.lists.len() - 1);
        let mut marker = self.lists.last_mut().and_then(|l| l.pending.take());
        if marker.is_none()
            && list_depth.is_some()
            && self.lists.last().is_some_and(|l| l.style.is_none())
        {
            // A list without a style: the paragraph style may name one; keep "-" then.
            marker = style
                .as_deref()
                .and_then(|s| self.styles.list_style_of(s))
                .map(|_| "-".to_string());
        }
        Meta {
            heading,
            style,
            marker,
            list_depth,
            index: self.index_depth > 0,
        }
    }

    fn start(&mut self, blocks: &mut Blocks<Meta>, e: &BytesStart) {
        let name = e.name();
        match name.as_ref() {
            b"text:s" => {
                let n: usize = xml::attr(e, b"text:c")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(1);
                blocks.push_str(&" ".repeat(n.clamp(1, 1000)));
            }
            b"text:tab" => blocks.push_str("\t"),
            b"text:line-break" => blocks.push_str("\n"),
            b"text:list" => self.start_list(e),
            b"text:list-item" | b"text:list-header" => {
                let header = name.as_ref() == b"text:list-header";
                let start = xml::attr(e, b"text:start-value").and_then(|v| v.parse().ok());
                self.start_item(header, start);
            }
            b"table:table-header-rows" => {
                if let Some(t) = blocks.tables.last_mut() {
                    t.in_header = true;
                    t.has_header_rows = true;
                }
            }
            n if INDEXES.contains(&n) => self.index_depth += 1,
            _ => {}
        }
    }

    fn end(&mut self, blocks: &mut Blocks<Meta>, name: &[u8]) {
        match name {
            b"office:body" => self.in_body = false,
            b"text:list" => {
                if let Some(list) = self.lists.pop() {
                    if self.lists.is_empty() {
                        if let (Some(style), Some(counter)) = (list.style, list.counter) {
                            self.continued.insert(style, counter);
                        }
                    }
                }
            }
            b"table:table-header-rows" => {
                if let Some(t) = blocks.tables.last_mut() {
                    t.close_row();
                    t.in_header = false;
                }
            }
            n if INDEXES.contains(&n) => self.index_depth = self.index_depth.saturating_sub(1),
            _ => {}
        }
    }

    fn cell_repeat(&self, e: &BytesStart) -> usize {
        xml::attr(e, b"table:number-columns-repeated")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1)
    }

    /// ODF collapses white space in text content; `text:s` adds real spaces.
    fn push_text(&self, out: &mut String, t: &BytesText) {
        push_collapsed(out, &xml::text(t));
    }

    fn emit(&mut self, builder: &mut DocBuilder, para: Para<Meta>) {
        self.emit_para(builder, para);
    }
}

impl Odt<'_> {
    fn start_list(&mut self, e: &BytesStart) {
        let style = xml::attr(e, b"text:style-name")
            .or_else(|| self.lists.last().and_then(|l| l.style.clone()));
        let continues = xml::attr(e, b"text:continue-numbering").as_deref() == Some("true")
            || xml::attr(e, b"text:continue-list").is_some();
        let counter = match (&style, continues && self.lists.is_empty()) {
            (Some(s), true) => self.continued.get(s).copied(),
            _ => None,
        };
        self.lists.push(ListCtx {
            style,
            counter,
            pending: None,
            header: false,
        });
    }

    fn start_item(&mut self, header: bool, start: Option<u32>) {
        let depth = self.lists.len().saturating_sub(1);
        let Some(list) = self.lists.last() else {
            return;
        };
        let level = self.level_def(list.style.as_deref(), depth);
        let marker = match (&level, header) {
            (_, true) => None,
            (Some(ListLevel::Bullet), _) => Some("-".to_string()),
            (
                Some(ListLevel::Number {
                    style,
                    prefix,
                    suffix,
                    display_levels,
                    start: first,
                }),
                _,
            ) => {
                let list = self.lists.last_mut().expect("checked above");
                let n = start.unwrap_or(list.counter.map_or(*first, |c| c.saturating_add(1)));
                list.counter = Some(n);
                let (style, prefix, suffix, shown) =
                    (*style, prefix.clone(), suffix.clone(), *display_levels);
                style.map(|st| {
                    // Higher levels shown too ("1.a)"): the enclosing lists' counters, each in
                    // its own level's format.
                    let shown = shown.clamp(1, depth + 1);
                    let list_style = self.lists[depth].style.clone();
                    let mut parts: Vec<String> = (depth + 1 - shown..depth)
                        .map(|k| {
                            let outer = match self.level_def(list_style.as_deref(), k) {
                                Some(ListLevel::Number { style: Some(s), .. }) => s,
                                _ => NumberStyle::Decimal,
                            };
                            outer.format(self.lists[k].counter.unwrap_or(1))
                        })
                        .collect();
                    parts.push(st.format(n));
                    format!("{prefix}{}{suffix}", parts.join("."))
                })
            }
            // No list style known: an unnumbered item.
            (None, _) => Some("-".to_string()),
        };
        let list = self.lists.last_mut().expect("checked above");
        list.pending = marker;
        list.header = header;
    }

    fn level_def(&self, style: Option<&str>, depth: usize) -> Option<ListLevel> {
        let levels = self.styles.lists.get(style?)?;
        levels
            .get(depth.min(levels.len().saturating_sub(1)))?
            .clone()
    }

    fn role(&mut self, style: Option<&str>) -> Role {
        let Some(name) = style else {
            return Role::Body;
        };
        if let Some(r) = self.roles.get(name) {
            return *r;
        }
        let r = self.styles.role(name);
        self.roles.insert(name.to_string(), r);
        r
    }

    fn emit_para(&mut self, builder: &mut DocBuilder, para: Para<Meta>) {
        let (p, text) = (para.meta, para.text);
        if let Some(level) = p.heading {
            // A `text:h` in a Title style is still the title.
            let kind = match self.role(p.style.as_deref()) {
                Role::Title => BlockKind::Title,
                _ => BlockKind::Heading(level),
            };
            return builder.block(kind, &text, None);
        }
        if p.index {
            return builder.block(BlockKind::Other, &text, None);
        }
        match self.role(p.style.as_deref()) {
            Role::Title => builder.block(BlockKind::Title, &text, None),
            Role::Subtitle | Role::Other => builder.block(BlockKind::Other, &text, None),
            Role::Heading(level) => builder.block(BlockKind::Heading(level), &text, None),
            Role::Caption => builder.block(BlockKind::Caption, &text, None),
            Role::Code if p.list_depth.is_none() => builder.code_line(&text),
            _ => match p.list_depth {
                Some(depth) => builder.list_item(depth, p.marker.as_deref(), &text, None),
                None => builder.block(BlockKind::Paragraph, &text, None),
            },
        }
    }
}

/// Appends `s` with its runs of XML white space collapsed to one space.
fn push_collapsed(out: &mut String, s: &str) {
    let is_white = |b: &u8| matches!(b, b' ' | b'\t' | b'\n' | b'\r');
    let mut rest = s;
    while !rest.is_empty() {
        let word_end = rest
            .bytes()
            .position(|b| is_white(&b))
            .unwrap_or(rest.len());
        out.push_str(&rest[..word_end]);
        rest = &rest[word_end..];
        let white_end = rest
            .bytes()
            .position(|b| !is_white(&b))
            .unwrap_or(rest.len());
        if white_end > 0 {
            out.push(' ');
        }
        rest = &rest[white_end..];
    }
}
