//! ODT (OpenDocument text) → text + elements.
//!
//! `content.xml` is streamed with `quick-xml`: `text:h` is a heading at its `text:outline-level`;
//! a `text:p` takes its role from its paragraph style, followed through `style:parent-style-name`
//! from the automatic styles of `content.xml` to the named styles of `styles.xml` (display names
//! such as "Heading 1", "Title", "Caption", "Preformatted Text"; `style:default-outline-level`);
//! `text:list` items get the marker their list style defines (`1.`, `a)`, `-`); `table:table`
//! becomes rows with the `table:table-header-rows` (or else the first row) marked as header.
//! Tracked deletions, annotations and footnote citations are skipped; footnote bodies and text
//! boxes follow the paragraph that anchors them. Metadata comes from `meta.xml`.
//!
//! Hostile files: the zip is read through [`SafeZip`]; a package whose manifest lists
//! `manifest:encryption-data` is reported as encrypted instead of failing on ciphertext.
//!
//! ```
//! use chunklab_parse::{odt::OdtParser, Limits, Parser};
//! let err = OdtParser.parse(b"", "x.odt".as_ref(), &Limits::default()).unwrap_err();
//! assert!(err.to_string().contains("not a valid odt file"));
//! ```

use crate::blocks::{BlockKind, DocBuilder, NumberStyle, Row};
use crate::xml;
use crate::zip_limits::SafeZip;
use crate::{Limits, ParseError, ParsedDocument, Parser};
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;
use std::path::Path;

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
        let content = zip
            .read("content.xml")?
            .ok_or_else(|| invalid("content.xml is missing".into()))?;
        let mut styles = Styles::default();
        if let Some(s) = zip.read("styles.xml")? {
            styles.add(&s, false);
        }
        styles.add(&content, true);
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
        let mut walker = Walker::new(&styles);
        walker.run(&content)?;
        let mut doc = walker.builder.finish(FORMAT, metadata);
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

/// What a paragraph style makes of a `text:p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Title,
    Subtitle,
    Heading(u8),
    Caption,
    Code,
    Body,
}

#[derive(Debug, Default)]
struct StyleDef {
    display: String,
    parent: Option<String>,
    outline: Option<u8>,
    list_style: Option<String>,
}

/// One level of a list style.
#[derive(Debug, Clone)]
enum ListLevel {
    Bullet,
    Number {
        style: Option<NumberStyle>,
        prefix: String,
        suffix: String,
        display_levels: usize,
        start: u32,
    },
}

/// Paragraph and list styles from `styles.xml` and the automatic styles of `content.xml`.
#[derive(Debug, Default)]
struct Styles {
    paragraph: HashMap<String, StyleDef>,
    lists: HashMap<String, Vec<Option<ListLevel>>>,
}

impl Styles {
    /// Reads the styles of one part (`automatic` styles of content.xml win over same-named ones
    /// of styles.xml, which only serve headers and footers).
    fn add(&mut self, xml_bytes: &[u8], automatic: bool) {
        let mut r = xml::reader(xml_bytes);
        let mut in_automatic = false;
        let mut list: Option<String> = None;
        loop {
            match r.read_event() {
                Ok(Event::Start(e)) => match e.name().as_ref() {
                    b"office:automatic-styles" => in_automatic = true,
                    b"office:body" | b"office:master-styles" => break,
                    b"style:style" if automatic || !in_automatic => {
                        if xml::attr(&e, b"style:family").as_deref() != Some("paragraph") {
                            continue;
                        }
                        let Some(name) = xml::attr(&e, b"style:name") else {
                            continue;
                        };
                        let display = xml::attr(&e, b"style:display-name")
                            .unwrap_or_else(|| decode_style_name(&name));
                        let def = StyleDef {
                            display: display.to_lowercase(),
                            parent: xml::attr(&e, b"style:parent-style-name"),
                            outline: xml::attr(&e, b"style:default-outline-level")
                                .and_then(|v| v.parse().ok()),
                            list_style: xml::attr(&e, b"style:list-style-name")
                                .filter(|s| !s.is_empty()),
                        };
                        self.paragraph.insert(name, def);
                    }
                    b"text:list-style" if automatic || !in_automatic => {
                        list = xml::attr(&e, b"style:name");
                        if let Some(name) = &list {
                            self.lists.insert(name.clone(), vec![None; 10]);
                        }
                    }
                    b"text:list-level-style-number"
                    | b"text:list-level-style-bullet"
                    | b"text:list-level-style-image" => {
                        let Some(levels) = list.as_ref().and_then(|l| self.lists.get_mut(l)) else {
                            continue;
                        };
                        let level: usize = xml::attr(&e, b"text:level")
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(1);
                        if !(1..=10).contains(&level) {
                            continue;
                        }
                        levels[level - 1] = Some(list_level(&e));
                    }
                    _ => {}
                },
                Ok(Event::End(e)) => match e.name().as_ref() {
                    b"office:automatic-styles" => in_automatic = false,
                    b"text:list-style" => list = None,
                    _ => {}
                },
                Ok(Event::Eof) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }

    /// The role of paragraph style `name`, following parent styles.
    fn role(&self, name: &str) -> Role {
        let mut name = name;
        for _ in 0..16 {
            let Some(def) = self.paragraph.get(name) else {
                return role_from_name(&decode_style_name(name).to_lowercase())
                    .unwrap_or(Role::Body);
            };
            if let Some(role) = role_from_name(&def.display) {
                return role;
            }
            if let Some(level) = def.outline.filter(|l| (1..=10).contains(l)) {
                return Role::Heading(level);
            }
            match &def.parent {
                Some(parent) => name = parent,
                None => break,
            }
        }
        Role::Body
    }

    /// The list style a paragraph style applies (for list items whose `text:list` names none).
    fn list_style_of(&self, name: &str) -> Option<&str> {
        let mut name = name;
        for _ in 0..16 {
            let def = self.paragraph.get(name)?;
            if let Some(l) = &def.list_style {
                return Some(l);
            }
            name = def.parent.as_deref()?;
        }
        None
    }
}

fn list_level(e: &BytesStart) -> ListLevel {
    if e.name().as_ref() != b"text:list-level-style-number" {
        return ListLevel::Bullet;
    }
    let style = match xml::attr(e, b"style:num-format").as_deref() {
        Some("") => None,
        Some("a") => Some(NumberStyle::LowerLetter),
        Some("A") => Some(NumberStyle::UpperLetter),
        Some("i") => Some(NumberStyle::LowerRoman),
        Some("I") => Some(NumberStyle::UpperRoman),
        _ => Some(NumberStyle::Decimal),
    };
    ListLevel::Number {
        style,
        prefix: xml::attr(e, b"style:num-prefix").unwrap_or_default(),
        suffix: xml::attr(e, b"style:num-suffix").unwrap_or_default(),
        display_levels: xml::attr(e, b"text:display-levels")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1),
        start: xml::attr(e, b"text:start-value")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1),
    }
}

/// `Heading_20_1` → `Heading 1` (ODF escapes characters of style names as `_XX_` hex).
fn decode_style_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(i) = rest.find('_') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let hex_end = tail.find('_');
        let decoded = hex_end
            .filter(|&j| (2..=4).contains(&j))
            .and_then(|j| u32::from_str_radix(&tail[..j], 16).ok())
            .and_then(char::from_u32)
            .filter(|c| !c.is_alphanumeric() && *c != '_');
        match (decoded, hex_end) {
            (Some(c), Some(j)) => {
                out.push(c);
                rest = &tail[j + 1..];
            }
            _ => {
                out.push('_');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

fn role_from_name(name: &str) -> Option<Role> {
    const HEADING: &[&str] = &[
        "heading",
        "kop",
        "überschrift",
        "titre",
        "título",
        "titolo",
        "rubrik",
        "overskrift",
    ];
    let name = name.trim();
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if base.len() < name.len() && HEADING.contains(&base.trim_end()) {
        let level: u8 = name[base.len()..].parse().unwrap_or(0);
        if (1..=10).contains(&level) {
            return Some(Role::Heading(level));
        }
    }
    match name {
        "title" | "titel" | "titre" | "título" | "titolo" => Some(Role::Title),
        "subtitle" | "ondertitel" | "untertitel" | "sous-titre" | "subtítulo" => {
            Some(Role::Subtitle)
        }
        "caption" | "bijschrift" | "beschriftung" | "légende" => Some(Role::Caption),
        _ if [
            "preformatted",
            "code",
            "programlisting",
            "verbatim",
            "listing",
        ]
        .iter()
        .any(|c| name.contains(c)) =>
        {
            Some(Role::Code)
        }
        _ => None,
    }
}

/// What a paragraph under construction is.
#[derive(Debug)]
struct Para {
    heading: Option<u8>,
    style: Option<String>,
    /// The list item marker, for the first paragraph of an item.
    marker: Option<String>,
    /// In a list: its nesting depth (0 = top level).
    list_depth: Option<usize>,
    /// Inside a table of contents or an index.
    index: bool,
    text: String,
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

#[derive(Debug, Default)]
struct TableBuild {
    rows: Vec<Row>,
    row: Option<Row>,
    cell: Option<String>,
    repeat: usize,
    in_header: bool,
    has_header_rows: bool,
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
            // `number-columns-repeated` repeats a cell; only real content is worth repeating.
            let times = if cell.trim().is_empty() {
                1
            } else {
                self.repeat.clamp(1, 64)
            };
            for _ in 0..times {
                row.cells.push(cell.clone());
            }
        }
        self.repeat = 1;
    }

    fn close_row(&mut self) {
        self.close_cell();
        if let Some(mut row) = self.row.take() {
            row.header = self.in_header;
            self.rows.push(row);
        }
    }
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

struct Walker<'s> {
    styles: &'s Styles,
    builder: DocBuilder,
    paras: Vec<Para>,
    deferred: Vec<Para>,
    lists: Vec<ListCtx>,
    /// Last counter of each top-level list style, for `text:continue-numbering`.
    continued: HashMap<String, u32>,
    tables: Vec<TableBuild>,
    skip: usize,
    index_depth: usize,
    roles: HashMap<String, Role>,
}

impl<'s> Walker<'s> {
    fn new(styles: &'s Styles) -> Self {
        Self {
            styles,
            builder: DocBuilder::new(),
            paras: Vec::new(),
            deferred: Vec::new(),
            lists: Vec::new(),
            continued: HashMap::new(),
            tables: Vec::new(),
            skip: 0,
            index_depth: 0,
            roles: HashMap::new(),
        }
    }

    fn run(&mut self, content: &[u8]) -> Result<(), ParseError> {
        let mut r = xml::reader(content);
        let mut in_body = false;
        loop {
            match r.read_event() {
                Ok(Event::Start(e)) => {
                    if !in_body {
                        in_body = e.name().as_ref() == b"office:body";
                    } else if self.skip > 0 || SKIPPED.contains(&e.name().as_ref()) {
                        self.skip += 1;
                    } else {
                        self.start(&e);
                    }
                }
                Ok(Event::End(e)) => {
                    if !in_body {
                        continue;
                    }
                    if self.skip > 0 {
                        self.skip -= 1;
                    } else if e.name().as_ref() == b"office:body" {
                        in_body = false;
                    } else {
                        self.end(e.name().as_ref());
                    }
                }
                Ok(Event::Text(t)) if self.skip == 0 => {
                    if let Some(p) = self.paras.last_mut() {
                        // ODF collapses white space in text content; `text:s` adds real spaces.
                        push_collapsed(&mut p.text, &xml::text(&t));
                    }
                }
                Ok(Event::GeneralRef(g)) if self.skip == 0 => {
                    if let Some(p) = self.paras.last_mut() {
                        xml::push_ref(&mut p.text, &g);
                    }
                }
                Ok(Event::Eof) => break,
                Ok(_) => {}
                Err(e) => return Err(xml::error(FORMAT, "content.xml", &r, e)),
            }
        }
        while !self.paras.is_empty() {
            self.end_para();
        }
        while !self.tables.is_empty() {
            self.end_table();
        }
        Ok(())
    }

    fn start(&mut self, e: &BytesStart) {
        match e.name().as_ref() {
            b"text:p" | b"text:h" => self.start_para(e),
            b"text:s" => {
                let n: usize = xml::attr(e, b"text:c")
                    .and_then(|v| v.parse().ok())
                    .unwrap_or(1);
                self.push_str(&" ".repeat(n.clamp(1, 1000)));
            }
            b"text:tab" => self.push_str("\t"),
            b"text:line-break" => self.push_str("\n"),
            b"text:list" => self.start_list(e),
            b"text:list-item" | b"text:list-header" => {
                let header = e.name().as_ref() == b"text:list-header";
                let start = xml::attr(e, b"text:start-value").and_then(|v| v.parse().ok());
                self.start_item(header, start);
            }
            b"text:table-of-content"
            | b"text:alphabetical-index"
            | b"text:illustration-index"
            | b"text:bibliography"
            | b"text:user-index"
            | b"text:table-index"
            | b"text:object-index" => self.index_depth += 1,
            b"table:table" => self.tables.push(TableBuild {
                para_depth: self.paras.len(),
                repeat: 1,
                ..TableBuild::default()
            }),
            b"table:table-header-rows" => {
                if let Some(t) = self.tables.last_mut() {
                    t.in_header = true;
                    t.has_header_rows = true;
                }
            }
            b"table:table-row" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_row();
                    t.row = Some(Row::default());
                }
            }
            b"table:table-cell" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_cell();
                    t.cell_text();
                    t.repeat = xml::attr(e, b"table:number-columns-repeated")
                        .and_then(|v| v.parse().ok())
                        .unwrap_or(1);
                }
            }
            _ => {}
        }
    }

    fn end(&mut self, name: &[u8]) {
        match name {
            b"text:p" | b"text:h" => self.end_para(),
            b"text:list" => {
                if let Some(list) = self.lists.pop() {
                    if self.lists.is_empty() {
                        if let (Some(style), Some(counter)) = (list.style, list.counter) {
                            self.continued.insert(style, counter);
                        }
                    }
                }
            }
            b"text:table-of-content"
            | b"text:alphabetical-index"
            | b"text:illustration-index"
            | b"text:bibliography"
            | b"text:user-index"
            | b"text:table-index"
            | b"text:object-index" => self.index_depth = self.index_depth.saturating_sub(1),
            b"table:table-header-rows" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_row();
                    t.in_header = false;
                }
            }
            b"table:table-cell" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_cell();
                }
            }
            b"table:table-row" => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_row();
                }
            }
            b"table:table" => self.end_table(),
            _ => {}
        }
    }

    fn push_str(&mut self, s: &str) {
        if let Some(p) = self.paras.last_mut() {
            p.text.push_str(s);
        }
    }

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

    fn start_para(&mut self, e: &BytesStart) {
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
        self.paras.push(Para {
            heading,
            style,
            marker,
            list_depth,
            index: self.index_depth > 0,
            text: String::new(),
        });
    }

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
        if !table.has_header_rows && table.rows.len() > 1 {
            table.rows[0].header = true;
        }
        if let Some(outer) = self.tables.last_mut() {
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

    fn emit(&mut self, p: Para) {
        if let Some(level) = p.heading {
            // A `text:h` in a Title style is still the title.
            let kind = match self.role(p.style.as_deref()) {
                Role::Title => BlockKind::Title,
                _ => BlockKind::Heading(level),
            };
            return self.builder.block(kind, &p.text, None);
        }
        if p.index {
            return self.builder.block(BlockKind::Other, &p.text, None);
        }
        match self.role(p.style.as_deref()) {
            Role::Title => self.builder.block(BlockKind::Title, &p.text, None),
            Role::Subtitle => self.builder.block(BlockKind::Other, &p.text, None),
            Role::Heading(level) => self.builder.block(BlockKind::Heading(level), &p.text, None),
            Role::Caption => self.builder.block(BlockKind::Caption, &p.text, None),
            Role::Code if p.list_depth.is_none() => self.builder.code_line(&p.text),
            _ => match p.list_depth {
                Some(depth) => self
                    .builder
                    .list_item(depth, p.marker.as_deref(), &p.text, None),
                None => self.builder.block(BlockKind::Paragraph, &p.text, None),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_names() {
        assert_eq!(decode_style_name("Heading_20_1"), "Heading 1");
        assert_eq!(decode_style_name("a_b_c"), "a_b_c");
        assert_eq!(role_from_name("heading 3"), Some(Role::Heading(3)));
        assert_eq!(role_from_name("kop 2"), Some(Role::Heading(2)));
        assert_eq!(
            role_from_name("preformatted text.programlisting"),
            Some(Role::Code)
        );
        assert_eq!(role_from_name("text body"), None);
    }
}
