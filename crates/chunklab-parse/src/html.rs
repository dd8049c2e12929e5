//! HTML → text + elements.
//!
//! A streaming walk over `html_lexer` tokens with an explicit stack of open
//! elements (no recursion, so 10,000 nested tags are just a deep `Vec`, capped at
//! [`Limits::max_depth`] entries; deeper tags only lose their structure, never their text). The
//! common implied end tags (`<p>`, `<li>`, `<td>`, `<tr>` ...) are applied, stray end tags ignored.
//!
//! - `h1`–`h6` → headings; `p`, `div` ... → paragraphs; `li` → list items with `-` or their number
//!   (`ol start`, `li value`); `pre` → code (whitespace kept); `table` → rows (the `<th>`-only
//!   and `<thead>` rows are header rows), its `caption` and `figcaption` → captions.
//! - Dropped: `script`, `style`, `noscript`, `template`, `svg`, form controls, `nav`, anything
//!   `hidden`, `aria-hidden="true"` or `role="navigation"`/`"search"`/`"contentinfo"`, DocBook and
//!   Sphinx navigation bars and tables of contents, the page-level `footer`; of the page-level `header` only headings are
//!   kept.
//! - Entities are decoded (the full HTML5 table), whitespace collapsed outside `pre`; each element
//!   carries its 1-based source line range.
//! - `<title>`, `<meta name=author|description|keywords|generator>` and `<html lang>` go to the
//!   metadata; the page's single `<h1>` becomes the title element.
//!
//! ```
//! use chunklab_parse::{html::HtmlParser, ElementKind, Limits, Parser};
//! let html = b"<h1>Doc</h1><p>Hello &amp; welcome</p><ul><li>one<li>two</ul>";
//! let doc = HtmlParser.parse(html, "a.html".as_ref(), &Limits::default()).unwrap();
//! assert_eq!(doc.text, "Doc\n\nHello & welcome\n\n- one\n- two");
//! assert_eq!(doc.elements[0].kind, ElementKind::Title);
//! ```

use crate::blocks::{BlockKind, DocBuilder, Row};
use crate::html_lexer::{attr, Lexer, Token};
use crate::{Limits, ParseError, ParsedDocument, Parser};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

const FORMAT: &str = "html";

/// The HTML parser.
#[derive(Debug, Clone, Copy, Default)]
pub struct HtmlParser;

impl Parser for HtmlParser {
    fn name(&self) -> &'static str {
        FORMAT
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        let mut warnings = Vec::new();
        let src = decode(bytes, &mut warnings);
        let mut walker = Walker::new(&src, limits);
        for (offset, token) in Lexer::new(&src) {
            walker.token(offset, token);
        }
        walker.close_to(0);
        walker.flush();
        warnings.append(&mut walker.warnings);
        let mut doc = walker.builder.finish(FORMAT, walker.metadata);
        doc.warnings = warnings;
        Ok(doc)
    }
}

/// The document as text: UTF-8 (BOM dropped), UTF-16 with a BOM, or else UTF-8 with invalid
/// bytes replaced (and a warning).
fn decode<'a>(bytes: &'a [u8], warnings: &mut Vec<String>) -> Cow<'a, str> {
    if let Some(rest) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        return decode(rest, warnings);
    }
    let utf16 = |be: bool| {
        let units = bytes[2..].chunks_exact(2).map(|c| {
            let pair = [c[0], c[1]];
            if be {
                u16::from_be_bytes(pair)
            } else {
                u16::from_le_bytes(pair)
            }
        });
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect::<String>()
    };
    match bytes {
        [0xFF, 0xFE, ..] => Cow::Owned(utf16(false)),
        [0xFE, 0xFF, ..] => Cow::Owned(utf16(true)),
        _ => match std::str::from_utf8(bytes) {
            Ok(s) => Cow::Borrowed(s),
            Err(e) => {
                warnings.push(format!(
                    "not valid UTF-8 (first bad byte at {}); invalid bytes replaced",
                    e.valid_up_to()
                ));
                String::from_utf8_lossy(bytes)
            }
        },
    }
}

/// What an open element does to the text inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Role {
    Inline,
    Block,
    /// Content dropped.
    Skip,
    /// The page header: only headings inside are kept.
    Chrome,
    Heading(u8),
    Pre,
    List,
    Item {
        depth: usize,
        marker: Option<String>,
    },
    Caption,
    Table,
    TableSection,
    Row,
    Cell,
}

impl Role {
    /// Whether the element starts and ends a block of text.
    fn is_block(&self) -> bool {
        !matches!(self, Role::Inline | Role::Skip)
    }
}

#[derive(Debug)]
struct Open {
    name: String,
    role: Role,
}

#[derive(Debug)]
struct ListCtx {
    ordered: bool,
    next: i64,
}

#[derive(Debug, Default)]
struct RowBuild {
    in_thead: bool,
    all_th: bool,
    cells: Vec<String>,
    lines: Option<(u32, u32)>,
}

#[derive(Debug, Default)]
struct TableCtx {
    rows: Vec<Row>,
    row: Option<RowBuild>,
    cell: Option<String>,
    in_thead: bool,
    caption: String,
    in_caption: usize,
    /// Text between cells (the spec moves it before the table).
    foster: String,
    first_line: u32,
}

impl TableCtx {
    fn close_cell(&mut self) {
        if let Some(cell) = self.cell.take() {
            self.row
                .get_or_insert_with(RowBuild::default)
                .cells
                .push(cell);
        }
    }

    fn close_row(&mut self) {
        self.close_cell();
        if let Some(row) = self.row.take() {
            let header = row.in_thead || (row.all_th && !row.cells.is_empty());
            self.rows.push(Row {
                header,
                cells: row.cells,
                lines: row.lines,
            });
        }
    }
}

/// Elements never pushed on the stack.
const VOID: &[&str] = &[
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "keygen", "basefont", "bgsound", "frame",
];

/// Elements whose content is not reading text.
const SKIPPED: &[&str] = &[
    "script", "style", "noscript", "template", "nav", "select", "svg", "button", "object",
    "canvas", "audio", "video", "datalist", "textarea", "iframe", "noembed", "noframes",
];

const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "center",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "dd",
    "fieldset",
    "figure",
    "footer",
    "form",
    "header",
    "hgroup",
    "html",
    "legend",
    "main",
    "p",
    "section",
    "summary",
    "option",
    "noscript",
];

/// Start tags that close an open `<p>`.
const CLOSES_P: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "dd",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "header",
    "hgroup",
    "hr",
    "li",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "ul",
    "listing",
    "xmp",
];

/// Class names of navigation bars and generated tables of contents (DocBook's
/// navheader/navfooter/toc, Sphinx's sidebar ...).
const CHROME_CLASSES: &[&str] = &[
    "toc",
    "navheader",
    "navfooter",
    "navbar",
    "breadcrumb",
    "breadcrumbs",
    "sphinxsidebar",
    "skip-link",
    "skiplink",
];

/// Ancestors that make a `header`/`footer` belong to a section rather than to the page.
const SECTIONING: &[&str] = &[
    "article",
    "section",
    "main",
    "aside",
    "blockquote",
    "details",
    "dialog",
    "figure",
    "td",
    "th",
    "li",
];

struct Walker<'a> {
    src: &'a str,
    max_depth: usize,
    stack: Vec<Open>,
    skip: usize,
    chrome: usize,
    headings: usize,
    pre: usize,
    lists: Vec<ListCtx>,
    tables: Vec<TableCtx>,
    buf: String,
    buf_lines: Option<(u32, u32)>,
    line: u32,
    line_pos: usize,
    builder: DocBuilder,
    metadata: BTreeMap<String, String>,
    warnings: Vec<String>,
    too_deep: bool,
}

impl<'a> Walker<'a> {
    fn new(src: &'a str, limits: &Limits) -> Self {
        Self {
            src,
            max_depth: limits.max_depth.max(8),
            stack: Vec::new(),
            skip: 0,
            chrome: 0,
            headings: 0,
            pre: 0,
            lists: Vec::new(),
            tables: Vec::new(),
            buf: String::new(),
            buf_lines: None,
            line: 1,
            line_pos: 0,
            builder: DocBuilder::new(),
            metadata: BTreeMap::new(),
            warnings: Vec::new(),
            too_deep: false,
        }
    }

    /// 1-based line of byte `offset` (offsets must not decrease between calls).
    fn line_at(&mut self, offset: usize) -> u32 {
        if offset > self.line_pos {
            let newlines = self.src.as_bytes()[self.line_pos..offset]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            self.line += newlines as u32;
            self.line_pos = offset;
        }
        self.line
    }

    fn token(&mut self, offset: usize, token: Token) {
        match token {
            Token::Text(raw) => self.text(offset, raw),
            Token::Start {
                name,
                attrs,
                self_closing,
            } => self.start(offset, &name, attrs, self_closing),
            Token::End { name } => self.end(offset, &name),
            Token::Raw { element, text } => match element {
                "title" if self.skip == 0 => {
                    let title = crate::blocks::one_line(&htmlize::unescape(text));
                    if !title.is_empty() {
                        self.metadata.entry("title".into()).or_insert(title);
                    }
                }
                "xmp" if self.skip == 0 => {
                    let first = self.line_at(offset);
                    let last = self.line_at(offset + text.len());
                    self.boundary();
                    self.builder.code(text, Some((first, last)));
                }
                _ => {}
            },
        }
    }

    fn text(&mut self, offset: usize, raw: &str) {
        if self.skip > 0 || (self.chrome > 0 && self.headings == 0) {
            return;
        }
        let trimmed = raw.trim_start();
        if trimmed.is_empty() {
            // White space only: it still separates words (and lines, in code).
            if let Some(t) = self.tables.last_mut() {
                if let Some(cell) = t.cell.as_mut() {
                    cell.push(' ');
                }
            } else if self.in_pre() {
                self.buf.push_str(raw);
            } else {
                self.buf.push(' ');
            }
            return;
        }
        let first = self.line_at(offset + (raw.len() - trimmed.len()));
        let last = self.line_at(offset + raw.trim_end().len());
        let decoded = htmlize::unescape(raw);
        if let Some(t) = self.tables.last_mut() {
            let target = if t.in_caption > 0 {
                &mut t.caption
            } else if t.cell.is_some() {
                t.cell.as_mut().expect("checked")
            } else {
                &mut t.foster
            };
            push_collapsible(target, &decoded);
            if t.cell.is_some() {
                if let Some(row) = t.row.as_mut() {
                    row.lines = Some(row.lines.map_or((first, last), |(f, _)| (f, last)));
                }
            }
            return;
        }
        if self.in_pre() {
            self.buf.push_str(&decoded);
        } else {
            push_collapsible(&mut self.buf, &decoded);
        }
        self.buf_lines = Some(self.buf_lines.map_or((first, last), |(f, _)| (f, last)));
    }

    fn in_pre(&self) -> bool {
        self.pre > 0
    }

    fn start(&mut self, offset: usize, name: &str, attrs: &str, self_closing: bool) {
        match name {
            "br" => {
                if self.skip == 0 {
                    match self.tables.last_mut().and_then(|t| t.cell.as_mut()) {
                        Some(cell) => cell.push(' '),
                        None => self.buf.push('\n'),
                    }
                }
                return;
            }
            "hr" => return self.boundary(),
            "meta" => return self.meta(attrs),
            "html" => {
                if let Some(lang) = attr(attrs, "lang").filter(|l| !l.is_empty()) {
                    self.metadata.insert("language".into(), lang.to_string());
                }
            }
            _ => {}
        }
        if VOID.contains(&name) {
            return;
        }
        self.close_implied(name);
        let role = self.classify(name, attrs);
        if role.is_block() && self.skip == 0 {
            self.boundary();
        }
        if self_closing && !matches!(name, "script" | "style" | "title" | "textarea") {
            return;
        }
        if self.stack.len() >= self.max_depth {
            if !self.too_deep {
                self.too_deep = true;
                let line = self.line_at(offset);
                self.warnings.push(format!(
                    "markup nested deeper than {} elements (line {line}); the structure below is \
                     flattened",
                    self.max_depth
                ));
            }
            // Not pushed: its end tag will find no match. A skipped subtree stays skipped only
            // if its raw text was swallowed by the lexer (script, style ...).
            return;
        }
        self.open(offset, name, attrs, role);
    }

    /// Pushes an element and applies its role.
    fn open(&mut self, offset: usize, name: &str, attrs: &str, role: Role) {
        match &role {
            Role::Skip => self.skip += 1,
            Role::Chrome => self.chrome += 1,
            Role::Heading(_) => self.headings += 1,
            Role::Pre => self.pre += 1,
            Role::List => {
                let start = attr(attrs, "start").and_then(|s| s.trim().parse().ok());
                self.lists.push(ListCtx {
                    ordered: name == "ol",
                    next: start.unwrap_or(1),
                });
            }
            Role::Table => {
                let first_line = self.line_at(offset);
                self.tables.push(TableCtx {
                    first_line,
                    ..TableCtx::default()
                });
            }
            Role::TableSection => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_row();
                    t.in_thead = name == "thead";
                }
            }
            Role::Row => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_row();
                    t.row = Some(RowBuild {
                        in_thead: t.in_thead,
                        all_th: true,
                        ..RowBuild::default()
                    });
                }
            }
            Role::Cell => {
                if let Some(t) = self.tables.last_mut() {
                    t.close_cell();
                    let row = t.row.get_or_insert_with(|| RowBuild {
                        in_thead: false,
                        all_th: true,
                        ..RowBuild::default()
                    });
                    row.all_th &= name == "th";
                    t.cell = Some(String::new());
                }
            }
            Role::Caption => {
                if let Some(t) = self.tables.last_mut().filter(|_| name == "caption") {
                    t.in_caption += 1;
                }
            }
            _ => {}
        }
        self.stack.push(Open {
            name: name.to_string(),
            role,
        });
    }

    fn classify(&mut self, name: &str, attrs: &str) -> Role {
        if SKIPPED.contains(&name) || hidden(attrs) {
            return Role::Skip;
        }
        let role_attr = attr(attrs, "role").unwrap_or("");
        if matches!(
            role_attr,
            "navigation" | "search" | "contentinfo" | "menubar"
        ) {
            return Role::Skip;
        }
        if let Some(class) = attr(attrs, "class") {
            if class
                .split_ascii_whitespace()
                .any(|c| CHROME_CLASSES.contains(&c))
            {
                return Role::Skip;
            }
        }
        let page_level = || {
            !self
                .stack
                .iter()
                .any(|o| SECTIONING.contains(&o.name.as_str()))
        };
        match name {
            "header" if page_level() => Role::Chrome,
            _ if role_attr == "banner" => Role::Chrome,
            "footer" if page_level() => Role::Skip,
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => Role::Heading(name.as_bytes()[1] - b'0'),
            "pre" | "listing" | "plaintext" => Role::Pre,
            "ol" | "ul" | "menu" | "dir" => Role::List,
            "li" => {
                let depth = self.lists.len().saturating_sub(1);
                let value = attr(attrs, "value").and_then(|v| v.trim().parse::<i64>().ok());
                let marker = match self.lists.last_mut() {
                    Some(list) if list.ordered => {
                        let n = value.unwrap_or(list.next);
                        list.next = n.saturating_add(1);
                        format!("{n}.")
                    }
                    _ => "-".to_string(),
                };
                Role::Item {
                    depth,
                    marker: Some(marker),
                }
            }
            "table" => Role::Table,
            "thead" | "tbody" | "tfoot" => Role::TableSection,
            "tr" => Role::Row,
            "td" | "th" => Role::Cell,
            "caption" | "figcaption" => Role::Caption,
            _ if BLOCKS.contains(&name) => Role::Block,
            _ => Role::Inline,
        }
    }

    fn meta(&mut self, attrs: &str) {
        let key = attr(attrs, "name").map(|n| n.to_ascii_lowercase());
        let Some(key) = key.filter(|k| {
            matches!(
                k.as_str(),
                "author" | "description" | "keywords" | "generator"
            )
        }) else {
            return;
        };
        if let Some(content) = attr(attrs, "content") {
            let value = crate::blocks::one_line(&htmlize::unescape_attribute(content));
            if !value.is_empty() {
                self.metadata.insert(key, value);
            }
        }
    }

    /// Applies the end tags a start tag implies (`<li>` closes the open `<li>` ...).
    fn close_implied(&mut self, name: &str) {
        if CLOSES_P.contains(&name) {
            self.close_open("p", &["table", "td", "th", "caption", "button", "html"]);
        }
        match name {
            "li" => self.close_open("li", &["ol", "ul", "menu", "dir", "table", "td", "th"]),
            "dt" | "dd" => {
                self.close_open("dt", &["dl", "table", "td", "th"]);
                self.close_open("dd", &["dl", "table", "td", "th"]);
            }
            "tr" => self.close_open("tr", &["table"]),
            "td" | "th" => {
                self.close_open("td", &["tr", "table"]);
                self.close_open("th", &["tr", "table"]);
            }
            "thead" | "tbody" | "tfoot" => {
                for section in ["thead", "tbody", "tfoot"] {
                    self.close_open(section, &["table"]);
                }
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                if matches!(self.stack.last(), Some(o) if matches!(o.role, Role::Heading(_))) {
                    self.close_to(self.stack.len() - 1);
                }
            }
            _ => {}
        }
    }

    /// Closes the nearest open `name` unless one of `barriers` is met first.
    fn close_open(&mut self, name: &str, barriers: &[&str]) {
        for i in (0..self.stack.len()).rev() {
            let n = self.stack[i].name.as_str();
            if n == name {
                self.close_to(i);
                return;
            }
            if barriers.contains(&n) {
                return;
            }
        }
    }

    fn end(&mut self, offset: usize, name: &str) {
        match name {
            "br" => return self.start(offset, "br", "", false),
            // Content after </body> still belongs to the body.
            "body" | "html" => return,
            _ => {}
        }
        if let Some(i) = self.stack.iter().rposition(|o| o.name == name) {
            self.line_at(offset);
            self.close_to(i);
        }
    }

    /// Pops elements until only `len` remain, applying each one's end.
    fn close_to(&mut self, len: usize) {
        while self.stack.len() > len {
            let top = self.stack.last().expect("non-empty");
            if top.role.is_block() && self.skip == 0 {
                self.boundary();
            }
            let open = self.stack.pop().expect("non-empty");
            match open.role {
                Role::Skip => self.skip -= 1,
                Role::Chrome => self.chrome -= 1,
                Role::Heading(_) => self.headings -= 1,
                Role::Pre => self.pre -= 1,
                Role::List => {
                    self.lists.pop();
                }
                Role::Cell => {
                    if let Some(t) = self.tables.last_mut() {
                        t.close_cell();
                    }
                }
                Role::Row => {
                    if let Some(t) = self.tables.last_mut() {
                        t.close_row();
                    }
                }
                Role::TableSection => {
                    if let Some(t) = self.tables.last_mut() {
                        t.close_row();
                        t.in_thead = false;
                    }
                }
                Role::Caption if open.name == "caption" => {
                    if let Some(t) = self.tables.last_mut() {
                        t.in_caption = t.in_caption.saturating_sub(1);
                    }
                }
                Role::Table => self.end_table(),
                _ => {}
            }
        }
    }

    fn end_table(&mut self) {
        let Some(mut t) = self.tables.pop() else {
            return;
        };
        t.close_row();
        let last_line = self.line;
        if let Some(outer) = self.tables.last_mut() {
            // A table inside a cell is flattened into that cell.
            let target = outer.cell.get_or_insert_with(String::new);
            for part in std::iter::once(&t.caption)
                .chain(std::iter::once(&t.foster))
                .chain(t.rows.iter().flat_map(|r| r.cells.iter()))
            {
                target.push(' ');
                target.push_str(part);
            }
            return;
        }
        self.builder.block(BlockKind::Paragraph, &t.foster, None);
        self.builder.block(BlockKind::Caption, &t.caption, None);
        self.builder.table(&t.rows, Some((t.first_line, last_line)));
    }

    /// A block boundary: in a table cell a space, elsewhere the buffered text is written out.
    fn boundary(&mut self) {
        if let Some(t) = self.tables.last_mut() {
            if let Some(cell) = t.cell.as_mut() {
                cell.push(' ');
            }
            return;
        }
        self.flush();
    }

    /// Writes the buffered text as the block kind of its innermost block context.
    fn flush(&mut self) {
        let lines = self.buf_lines.take();
        if self.buf.trim().is_empty() {
            self.buf.clear();
            return;
        }
        let text = std::mem::take(&mut self.buf);
        for open in self.stack.iter_mut().rev() {
            match &mut open.role {
                Role::Pre => return self.builder.code(&text, lines),
                Role::Heading(level) => {
                    let level = *level;
                    return self.builder.block(BlockKind::Heading(level), &text, lines);
                }
                Role::Item { depth, marker } => {
                    let (depth, marker) = (*depth, marker.take());
                    return self
                        .builder
                        .list_item(depth, marker.as_deref(), &text, lines);
                }
                Role::Caption => return self.builder.block(BlockKind::Caption, &text, lines),
                _ => {}
            }
        }
        self.builder.block(BlockKind::Paragraph, &text, lines);
    }
}

/// `hidden`, `aria-hidden="true"` or an inline `display: none`.
fn hidden(attrs: &str) -> bool {
    if attrs.is_empty() {
        return false;
    }
    crate::html_lexer::attrs(attrs).any(|(k, v)| match &*k {
        "hidden" => true,
        "aria-hidden" => v.eq_ignore_ascii_case("true"),
        "style" => {
            let compact: String = v.chars().filter(|c| !c.is_whitespace()).collect();
            compact.to_ascii_lowercase().contains("display:none")
        }
        _ => false,
    })
}

/// Appends HTML text, every white-space character (and no-break space) as a plain space; the
/// builder collapses runs later.
fn push_collapsible(out: &mut String, s: &str) {
    let mut rest = s;
    while let Some(i) = rest.find(|c: char| c.is_ascii_whitespace() || c == '\u{a0}') {
        out.push_str(&rest[..i]);
        out.push(' ');
        let width = if rest.as_bytes()[i] < 0x80 { 1 } else { 2 };
        rest = &rest[i + width..];
    }
    out.push_str(rest);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ElementKind;

    fn parse(html: &str) -> ParsedDocument {
        HtmlParser
            .parse(html.as_bytes(), Path::new("t.html"), &Limits::default())
            .unwrap()
    }

    fn spans(doc: &ParsedDocument) -> Vec<(&'static str, &str)> {
        doc.elements
            .iter()
            .map(|e| (e.kind.name(), &doc.text[e.start..e.end]))
            .collect()
    }

    #[test]
    fn blocks_lists_and_entities() {
        let doc = parse(
            "<html lang=nl><head><title>T &amp; t</title><meta name=author content='A. B.'>\
             <style>p{}</style></head><body><nav><a>Home</a></nav>\
             <h2>Kop&nbsp;1</h2><p>een\n   twee<br>drie<p>vier\
             <ol start=3><li>a<li>b<ul><li>c</li></ul></ol><pre>\n  x = 1\n\n  y\n</pre>\
             <script>alert(1)</script><footer>(c)</footer>",
        );
        assert_eq!(
            doc.text,
            "Kop 1\n\neen twee\ndrie\n\nvier\n\n3. a\n4. b\n  - c\n\n  x = 1\n\n  y"
        );
        assert_eq!(doc.metadata["title"], "T & t");
        assert_eq!(doc.metadata["author"], "A. B.");
        assert_eq!(doc.metadata["language"], "nl");
        let kinds: Vec<_> = spans(&doc).into_iter().map(|(k, _)| k).collect();
        assert_eq!(
            kinds,
            [
                "heading",
                "paragraph",
                "paragraph",
                "list_item",
                "list_item",
                "list_item",
                "code"
            ]
        );
    }

    #[test]
    fn tables_and_lines() {
        let doc = parse(
            "<table>\n<caption>Cap</caption>\n<tr><th>A</th><th>B</th></tr>\n\
             <tr><td>1<td><p>2</p><p>3</p></tr>\n</table>",
        );
        assert_eq!(doc.text, "Cap\n\nA | B\n1 | 2 3");
        let e = &doc.elements;
        assert_eq!(e[1].kind, ElementKind::Table);
        assert_eq!(e[1].lines, Some((1, 5)));
        assert_eq!(e[2].kind, ElementKind::TableRow { header: true });
        assert_eq!(e[2].lines, Some((3, 3)));
        assert_eq!(e[3].kind, ElementKind::TableRow { header: false });
    }

    #[test]
    fn chrome_is_dropped() {
        let doc = parse(
            "<body><header><a>Logo</a><h1>Site</h1></header>\
             <div class='navheader'>Prev Next</div><div role=navigation>x</div>\
             <main><header><p>Byline</p></header><p aria-hidden=true>icon</p><p hidden>h</p>\
             <template><p>t</p></template><p>Body</p></main></body>",
        );
        assert_eq!(doc.text, "Site\n\nByline\n\nBody");
    }

    #[test]
    fn malformed_markup_keeps_text() {
        let doc = parse("<p>a <b>b <i>c</b> d</i></div></span> e <p>f</td><li>g");
        assert_eq!(doc.text, "a b c d e\n\nf\n\n- g");
    }
}
