//! The parsed-document model at the `Parser` seam: the extracted text plus a flat list of
//! structural elements, each a span of that text. Parsers (crate `chunklab-parse`) produce it;
//! structure-aware strategies (`headings`, `elements`, `code`) consume it. Living in the core keeps
//! the strategies free of any parser dependency.

use serde::Serialize;
use std::collections::BTreeMap;

/// What a structural element is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "type")]
pub enum ElementKind {
    /// The document title (one per document at most).
    Title,
    /// A heading; level 1 is the highest.
    Heading {
        level: u8,
    },
    Paragraph,
    ListItem,
    /// A whole table; its rows follow as `TableRow` elements inside its span.
    Table,
    /// One row of a table; the first row of a table with a header is marked `header: true`.
    TableRow {
        header: bool,
    },
    /// A code block (Markdown fence, HTML `<pre>`) or a syntax-tree unit of source code.
    Code,
    Caption,
    PageHeader,
    PageFooter,
    /// Zero-length marker where a new page starts.
    PageBreak,
    /// Anything else worth keeping (block quotes, definition lists, front matter ...).
    Other,
}

impl ElementKind {
    /// Short lowercase name, as written into chunk metadata (`kind`).
    pub fn name(&self) -> &'static str {
        match self {
            ElementKind::Title => "title",
            ElementKind::Heading { .. } => "heading",
            ElementKind::Paragraph => "paragraph",
            ElementKind::ListItem => "list_item",
            ElementKind::Table => "table",
            ElementKind::TableRow { .. } => "table_row",
            ElementKind::Code => "code",
            ElementKind::Caption => "caption",
            ElementKind::PageHeader => "page_header",
            ElementKind::PageFooter => "page_footer",
            ElementKind::PageBreak => "page_break",
            ElementKind::Other => "other",
        }
    }

    /// Heading level (the title counts as level 0), if this is a heading.
    pub fn heading_level(&self) -> Option<u8> {
        match self {
            ElementKind::Title => Some(0),
            ElementKind::Heading { level } => Some(*level),
            _ => None,
        }
    }
}

/// One element: a kind and a byte span of [`ParsedDocument::text`].
///
/// Kept small (48 bytes): a document of tiny paragraphs has one element per ~10 bytes of text,
/// so the element list, not the text, decides the memory of a parse. The strings only code
/// elements and markup headings carry live in one boxed side struct, read through
/// [`Element::symbol`], [`Element::code_kind`], [`Element::language`] and [`Element::title`].
#[derive(Debug, Clone, PartialEq)]
pub struct Element {
    pub kind: ElementKind,
    /// Byte range into the extracted text (end exclusive, char boundaries).
    pub start: usize,
    pub end: usize,
    /// 1-based page number, for formats with pages.
    pub page: Option<u32>,
    /// 1-based inclusive line range in the source file (Markdown, HTML, reST, code).
    pub lines: Option<(u32, u32)>,
    /// The rare strings; `None` when all of them are (never a box of `None`s, so equality holds).
    extra: Option<Box<ElementExtra>>,
}

/// The rarely set strings of an [`Element`], boxed so that the common element stays small.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct ElementExtra {
    symbol: Option<String>,
    code_kind: Option<String>,
    language: Option<String>,
    title: Option<String>,
}

impl ElementExtra {
    fn is_empty(&self) -> bool {
        self.symbol.is_none()
            && self.code_kind.is_none()
            && self.language.is_none()
            && self.title.is_none()
    }
}

/// The serialized form of an [`Element`]: the fields in their historical order, kind flattened
/// (`"type"` first), absent options left out — the JSON of `chunklab parse` does not change with
/// the in-memory layout.
#[derive(Serialize)]
struct ElementOut<'a> {
    #[serde(flatten)]
    kind: &'a ElementKind,
    start: usize,
    end: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<(u32, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    symbol: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    code_kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
}

impl Serialize for Element {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        ElementOut {
            kind: &self.kind,
            start: self.start,
            end: self.end,
            page: self.page,
            lines: self.lines,
            symbol: self.symbol(),
            code_kind: self.code_kind(),
            language: self.language(),
            title: self.title(),
        }
        .serialize(s)
    }
}

impl Element {
    /// An element with only kind and span set.
    pub fn new(kind: ElementKind, start: usize, end: usize) -> Self {
        Self {
            kind,
            start,
            end,
            page: None,
            lines: None,
            extra: None,
        }
    }

    pub fn with_page(mut self, page: u32) -> Self {
        self.page = Some(page);
        self
    }

    pub fn with_lines(mut self, first: u32, last: u32) -> Self {
        self.lines = Some((first, last));
        self
    }

    /// For code: the symbol path (`impl Parser::parse`, `class Foo.bar`).
    pub fn symbol(&self) -> Option<&str> {
        self.extra.as_ref()?.symbol.as_deref()
    }

    /// For code: the syntax-tree node kind (`function`, `method`, `class`, `impl`, `module`).
    pub fn code_kind(&self) -> Option<&str> {
        self.extra.as_ref()?.code_kind.as_deref()
    }

    /// For code (units, fenced blocks): the language.
    pub fn language(&self) -> Option<&str> {
        self.extra.as_ref()?.language.as_deref()
    }

    /// Display text of a title or heading whose span includes markup (Markdown `#` markers and
    /// setext underlines, reST adornments); `None` means the trimmed span text is the title. Read
    /// it through [`ParsedDocument::title_of`], which falls back to the span.
    pub fn title(&self) -> Option<&str> {
        self.extra.as_ref()?.title.as_deref()
    }

    /// Change the side struct, dropping it when nothing is left in it.
    fn edit_extra(&mut self, f: impl FnOnce(&mut ElementExtra)) {
        let extra = self.extra.get_or_insert_with(Box::default);
        f(extra);
        if extra.is_empty() {
            self.extra = None;
        }
    }

    /// Set or clear the symbol path.
    pub fn set_symbol(&mut self, symbol: Option<String>) {
        self.edit_extra(|x| x.symbol = symbol);
    }

    /// Set or clear the syntax-tree node kind.
    pub fn set_code_kind(&mut self, code_kind: Option<String>) {
        self.edit_extra(|x| x.code_kind = code_kind);
    }

    /// Set or clear the language.
    pub fn set_language(&mut self, language: Option<String>) {
        self.edit_extra(|x| x.language = language);
    }

    /// Set or clear the display text of a heading whose span includes markup.
    pub fn set_title(&mut self, title: Option<String>) {
        self.edit_extra(|x| x.title = title);
    }

    /// Set the symbol path.
    pub fn with_symbol(mut self, symbol: impl Into<String>) -> Self {
        self.set_symbol(Some(symbol.into()));
        self
    }

    /// Set the syntax-tree node kind.
    pub fn with_code_kind(mut self, code_kind: impl Into<String>) -> Self {
        self.set_code_kind(Some(code_kind.into()));
        self
    }

    /// Set the language.
    pub fn with_language(mut self, language: impl Into<String>) -> Self {
        self.set_language(Some(language.into()));
        self
    }

    /// Set the display text of a heading whose span includes markup.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.set_title(Some(title.into()));
        self
    }
}

/// A parsed document: extracted text, elements, and document-level metadata.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ParsedDocument {
    /// The text all offsets refer to. For plain text and Markdown it is the file itself; for
    /// HTML/PDF/DOCX/ODT it is the extracted text (reproducible by re-parsing the file).
    pub text: String,
    /// Elements sorted by `start` (then by longer span first, so a table precedes its rows).
    pub elements: Vec<Element>,
    /// Format name (`markdown`, `html`, `pdf`, `docx`, `odt`, `text`, `rst`, `code:rust`, ...).
    pub format: String,
    /// Title, front matter fields, author ... as strings.
    pub metadata: BTreeMap<String, String>,
    /// Non-fatal problems (pages without a text layer, skipped parts), each naming what and where.
    pub warnings: Vec<String>,
    /// Number of pages, for formats with pages.
    pub pages: Option<u32>,
}

impl ParsedDocument {
    /// A document without structure.
    pub fn plain(text: String) -> Self {
        Self {
            text,
            format: "text".into(),
            ..Self::default()
        }
    }

    /// Whether [`ParsedDocument::text`] is the source file itself (plain text, Markdown, reST,
    /// source code), so that its own newlines are the source lines. For extracted-text formats
    /// (HTML, PDF, DOCX, ODT) only the elements' `lines` say where in the source a part lies.
    ///
    /// ```
    /// use chunklab_core::document::ParsedDocument;
    /// assert!(ParsedDocument::plain("tekst".into()).text_is_source());
    /// let html = ParsedDocument { format: "html".into(), ..ParsedDocument::default() };
    /// assert!(!html.text_is_source());
    /// ```
    pub fn text_is_source(&self) -> bool {
        matches!(self.format.as_str(), "text" | "markdown" | "rst" | "code")
            || self.format.starts_with("code:")
    }

    /// The display text of element `e` (a heading's title without markup): its `title` if set,
    /// else its span text with surrounding whitespace trimmed.
    ///
    /// ```
    /// use chunklab_core::document::{Element, ElementKind, ParsedDocument};
    /// let mut doc = ParsedDocument::plain("## Artikel 3\n".into());
    /// doc.elements.push(Element::new(ElementKind::Heading { level: 2 }, 0, 12).with_title("Artikel 3"));
    /// doc.elements.push(Element::new(ElementKind::Paragraph, 3, 12));
    /// assert_eq!(doc.title_of(&doc.elements[0]), "Artikel 3");
    /// assert_eq!(doc.title_of(&doc.elements[1]), "Artikel 3");
    /// ```
    pub fn title_of<'a>(&'a self, e: &'a Element) -> &'a str {
        match e.title() {
            Some(t) => t,
            None => self
                .text
                .get(e.start..e.end)
                .map(str::trim)
                .unwrap_or_default(),
        }
    }

    /// Page of the byte offset `b`: the page of the last element starting at or before `b` that
    /// has a page.
    pub fn page_at(&self, b: usize) -> Option<u32> {
        let i = self.elements.partition_point(|e| e.start <= b);
        self.elements[..i].iter().rev().find_map(|e| e.page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A document of tiny paragraphs holds one element per ~10 bytes of text: the element size is
    /// the memory of such a parse, so it must not silently grow back (it was 136 bytes with the
    /// rare strings inline).
    #[test]
    fn element_is_48_bytes() {
        assert!(
            std::mem::size_of::<Element>() <= 48,
            "{}",
            std::mem::size_of::<Element>()
        );
    }

    #[test]
    fn serializes_fields_in_order_and_skips_absent_ones() {
        let plain = Element::new(ElementKind::Paragraph, 3, 9).with_page(2);
        assert_eq!(
            serde_json::to_string(&plain).unwrap(),
            r#"{"type":"paragraph","start":3,"end":9,"page":2}"#
        );
        let code = Element::new(ElementKind::Code, 0, 40)
            .with_lines(1, 4)
            .with_language("rust")
            .with_code_kind("function")
            .with_symbol("add")
            .with_title("x");
        assert_eq!(
            serde_json::to_string(&code).unwrap(),
            r#"{"type":"code","start":0,"end":40,"lines":[1,4],"symbol":"add","code_kind":"function","language":"rust","title":"x"}"#
        );
        let heading =
            Element::new(ElementKind::Heading { level: 2 }, 0, 12).with_title("Artikel 3");
        assert_eq!(
            serde_json::to_string(&heading).unwrap(),
            r#"{"type":"heading","level":2,"start":0,"end":12,"title":"Artikel 3"}"#
        );
    }

    #[test]
    fn clearing_the_last_rare_string_drops_the_box() {
        let mut e = Element::new(ElementKind::Code, 0, 5).with_symbol("f");
        assert_eq!(
            (e.symbol(), e.code_kind(), e.language(), e.title()),
            (Some("f"), None, None, None)
        );
        e.set_language(Some("python".into()));
        e.set_symbol(None);
        assert_eq!(e.language(), Some("python"));
        e.set_language(None);
        assert!(e.extra.is_none());
        assert_eq!(e, Element::new(ElementKind::Code, 0, 5));
    }
}
