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
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Element {
    #[serde(flatten)]
    pub kind: ElementKind,
    /// Byte range into the extracted text (end exclusive, char boundaries).
    pub start: usize,
    pub end: usize,
    /// 1-based page number, for formats with pages.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// 1-based inclusive line range in the source file (Markdown, HTML, reST, code).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<(u32, u32)>,
    /// For code: the symbol path (`impl Parser::parse`, `class Foo.bar`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// For code: the syntax-tree node kind (`function`, `method`, `class`, `impl`, `module`) and
    /// the language.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code_kind: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Display text of a title or heading whose span includes markup (Markdown `#` markers and
    /// setext underlines, reST adornments); `None` means the trimmed span text is the title. Read
    /// it through [`ParsedDocument::title_of`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
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
            symbol: None,
            code_kind: None,
            language: None,
            title: None,
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

    /// Set the display text of a heading whose span includes markup.
    pub fn with_title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
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
        match &e.title {
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
