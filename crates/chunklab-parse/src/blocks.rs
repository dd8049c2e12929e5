//! The extracted-text builder shared by the markup parsers (HTML, DOCX, ODT).
//!
//! A parser walks its format and hands over *blocks* in reading order (a heading, a paragraph, a
//! list item, a code line, a table); the builder writes them into one readable text and records
//! each as an [`Element`] spanning exactly what it wrote:
//!
//! - blocks are separated by a blank line; consecutive list items and table rows by one newline;
//! - list items start with their marker (`- ` or `3. `), indented two spaces per nesting level;
//! - table rows are one line each, cells separated by ` | `;
//! - whitespace inside a block is collapsed (a `'\n'` the parser put there is kept as a hard line
//!   break); code keeps its whitespace.
//!
//! Every non-whitespace character written is inside an element, so nothing is lost when chunking
//! by elements.

use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use std::collections::BTreeMap;

/// The kind of a text block handed to [`DocBuilder::block`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BlockKind {
    Title,
    Heading(u8),
    Paragraph,
    Caption,
    Other,
}

/// One table row handed to [`DocBuilder::table`]: raw cell texts (collapsed by the builder).
#[derive(Debug, Clone, Default)]
pub(crate) struct Row {
    pub header: bool,
    pub cells: Vec<String>,
    pub lines: Option<(u32, u32)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Last {
    Nothing,
    Block,
    ListItem,
    /// A code block built line by line; `blank` blank lines are held back until more code comes.
    CodeLines {
        blank: usize,
    },
}

/// Builds the extracted text and its elements. See the module docs for the layout.
#[derive(Debug)]
pub(crate) struct DocBuilder {
    text: String,
    elements: Vec<Element>,
    last: Last,
    has_title: bool,
}

impl DocBuilder {
    /// Elements built so far.
    pub fn len(&self) -> usize {
        self.elements.len()
    }

    pub fn new() -> Self {
        Self {
            text: String::new(),
            elements: Vec::new(),
            last: Last::Nothing,
            has_title: false,
        }
    }

    /// A heading, paragraph, caption ...: `raw` is collapsed; nothing is written if it is blank.
    /// Titles and headings are kept on one line.
    pub fn block(&mut self, kind: BlockKind, raw: &str, lines: Option<(u32, u32)>) {
        let text = match kind {
            BlockKind::Title | BlockKind::Heading(_) => one_line(raw),
            _ => collapse(raw),
        };
        if text.is_empty() {
            return;
        }
        let kind = match kind {
            BlockKind::Title if self.has_title => ElementKind::Heading { level: 1 },
            BlockKind::Title => {
                self.has_title = true;
                ElementKind::Title
            }
            BlockKind::Heading(level) => ElementKind::Heading {
                level: level.clamp(1, 9),
            },
            BlockKind::Paragraph => ElementKind::Paragraph,
            BlockKind::Caption => ElementKind::Caption,
            BlockKind::Other => ElementKind::Other,
        };
        self.separate(false);
        self.push_element(kind, &text, lines);
        self.last = Last::Block;
    }

    /// A list item at nesting `depth` (0 = top level), with its marker (`-`, `3.`, `b)`) or
    /// none for a continuation paragraph inside an item.
    pub fn list_item(
        &mut self,
        depth: usize,
        marker: Option<&str>,
        raw: &str,
        lines: Option<(u32, u32)>,
    ) {
        let body = collapse(raw);
        if body.is_empty() && marker.is_none() {
            return;
        }
        self.separate(true);
        for _ in 0..depth.min(16) {
            self.text.push_str("  ");
        }
        let item = match marker {
            Some(m) if body.is_empty() => m.to_string(),
            Some(m) => format!("{m} {body}"),
            None => body,
        };
        self.push_element(ElementKind::ListItem, &item, lines);
        self.last = Last::ListItem;
    }

    /// A whole code block (HTML `<pre>`): whitespace kept, blank lines at both ends dropped.
    pub fn code(&mut self, raw: &str, lines: Option<(u32, u32)>) {
        let code = normalize_newlines(raw);
        let code = trim_blank_lines(&code);
        if code.trim().is_empty() {
            return;
        }
        self.separate(false);
        self.push_element(ElementKind::Code, code, lines);
        self.last = Last::Block;
    }

    /// One line of a code block that office formats store one paragraph per line: consecutive
    /// lines join into one `Code` element; blank lines at its ends are dropped.
    pub fn code_line(&mut self, raw: &str) {
        let line = normalize_newlines(raw);
        let line = line.trim_end();
        if let Last::CodeLines { blank } = self.last {
            if line.is_empty() {
                self.last = Last::CodeLines { blank: blank + 1 };
                return;
            }
            for _ in 0..=blank {
                self.text.push('\n');
            }
            self.text.push_str(line);
            let end = self.text.len();
            if let Some(e) = self.elements.last_mut() {
                e.end = end;
            }
            self.last = Last::CodeLines { blank: 0 };
            return;
        }
        if line.trim().is_empty() {
            return;
        }
        let line = line.trim_start_matches('\n');
        self.separate(false);
        self.push_element(ElementKind::Code, line, None);
        self.last = Last::CodeLines { blank: 0 };
    }

    /// A table: one line per row, cells joined by ` | `; rows with no text are dropped.
    pub fn table(&mut self, rows: &[Row], lines: Option<(u32, u32)>) {
        let rendered: Vec<(&Row, String)> = rows
            .iter()
            .filter_map(|row| {
                let cells: Vec<String> = row.cells.iter().map(|c| one_line(c)).collect();
                if cells.iter().all(|c| c.is_empty()) {
                    return None;
                }
                Some((row, cells.join(" | ")))
            })
            .collect();
        if rendered.is_empty() {
            return;
        }
        self.separate(false);
        let table_index = self.elements.len();
        let start = self.text.len();
        self.elements
            .push(Element::new(ElementKind::Table, start, start));
        if let Some((first, last)) = lines {
            self.elements[table_index] = self.elements[table_index].clone().with_lines(first, last);
        }
        for (i, (row, line)) in rendered.iter().enumerate() {
            if i > 0 {
                self.text.push('\n');
            }
            let kind = ElementKind::TableRow { header: row.header };
            self.push_element(kind, line, row.lines);
        }
        self.elements[table_index].end = self.text.len();
        self.last = Last::Block;
    }

    /// The finished document. If it has no explicit title and its first heading is the only
    /// level-1 heading, that heading becomes the title (the visible document title: an HTML page's
    /// single `<h1>`, a Word file's one "Heading 1").
    pub fn finish(self, format: &str, metadata: BTreeMap<String, String>) -> ParsedDocument {
        let mut elements = self.elements;
        if !self.has_title {
            promote_title(&mut elements);
        }
        elements.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
        ParsedDocument {
            text: self.text,
            elements,
            format: format.to_string(),
            metadata,
            warnings: Vec::new(),
            pages: None,
        }
    }

    fn separate(&mut self, list_item: bool) {
        if self.text.is_empty() {
            return;
        }
        let tight = list_item && self.last == Last::ListItem;
        self.text.push_str(if tight { "\n" } else { "\n\n" });
    }

    fn push_element(&mut self, kind: ElementKind, s: &str, lines: Option<(u32, u32)>) {
        let start = self.text.len();
        self.text.push_str(s);
        let mut e = Element::new(kind, start, self.text.len());
        if let Some((first, last)) = lines {
            e = e.with_lines(first, last.max(first));
        }
        self.elements.push(e);
    }
}

fn promote_title(elements: &mut [Element]) {
    let mut headings = elements.iter().filter_map(|e| e.kind.heading_level());
    if headings.next() != Some(1) || headings.any(|level| level == 1) {
        return;
    }
    if let Some(first) = elements
        .iter_mut()
        .find(|e| e.kind.heading_level().is_some())
    {
        first.kind = ElementKind::Title;
    }
}

/// Collapses whitespace runs to one space, keeping `'\n'` as a hard break (without spaces around
/// it, and never two in a row), and trims both ends.
pub(crate) fn collapse(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    let (mut pending_space, mut pending_break) = (false, false);
    let mut i = 0;
    while i < raw.len() {
        let (white, len) = char_class(raw, i);
        if white {
            pending_break |= raw.as_bytes()[i] == b'\n';
            pending_space = true;
            i += len;
            continue;
        }
        // Copy the whole run of non-white-space characters at once.
        let start = i;
        i += len;
        while i < raw.len() {
            let (white, len) = char_class(raw, i);
            if white {
                break;
            }
            i += len;
        }
        if !out.is_empty() && pending_space {
            out.push(if pending_break { '\n' } else { ' ' });
        }
        (pending_space, pending_break) = (false, false);
        out.push_str(&raw[start..i]);
    }
    out
}

/// Whether the character at byte `i` (a char boundary) is white space, and its length.
#[inline]
fn char_class(s: &str, i: usize) -> (bool, usize) {
    let b = s.as_bytes()[i];
    if b < 0x80 {
        return (
            matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'),
            1,
        );
    }
    let c = s[i..].chars().next().unwrap_or(' ');
    (c.is_whitespace(), c.len_utf8())
}

/// [`collapse`] with line breaks turned into spaces (table cells are one line).
pub(crate) fn one_line(raw: &str) -> String {
    let mut s = collapse(raw);
    if s.contains('\n') {
        s = s.replace('\n', " ");
    }
    s
}

/// How a list counter is written (DOCX `w:numFmt`, ODF `style:num-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NumberStyle {
    Decimal,
    DecimalZero,
    LowerLetter,
    UpperLetter,
    LowerRoman,
    UpperRoman,
}

impl NumberStyle {
    /// Writes `n` (1-based) in this style: `3`, `03`, `c`, `C`, `iii`, `III`.
    pub fn format(self, n: u32) -> String {
        match self {
            NumberStyle::Decimal => n.to_string(),
            NumberStyle::DecimalZero => format!("{n:02}"),
            NumberStyle::LowerLetter => letters(n),
            NumberStyle::UpperLetter => letters(n).to_ascii_uppercase(),
            NumberStyle::LowerRoman => roman(n),
            NumberStyle::UpperRoman => roman(n).to_ascii_uppercase(),
        }
    }
}

/// `a`..`z`, then `aa`, `bb` ... as word processors count.
fn letters(n: u32) -> String {
    let n = n.max(1) - 1;
    let c = (b'a' + (n % 26) as u8) as char;
    std::iter::repeat_n(c, (n / 26 + 1).min(8) as usize).collect()
}

fn roman(n: u32) -> String {
    if n == 0 || n >= 4000 {
        return n.to_string();
    }
    const TABLE: [(u32, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut n = n;
    let mut out = String::new();
    for (value, digits) in TABLE {
        while n >= value {
            out.push_str(digits);
            n -= value;
        }
    }
    out
}

fn normalize_newlines(raw: &str) -> String {
    if raw.contains('\r') {
        raw.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        raw.to_string()
    }
}

/// Drops whole blank lines at the start and trailing whitespace at the end.
fn trim_blank_lines(s: &str) -> &str {
    let s = s.trim_end();
    let mut start = 0;
    for line in s.split_inclusive('\n') {
        if line.trim().is_empty() {
            start += line.len();
        } else {
            break;
        }
    }
    &s[start..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_spans() {
        let mut b = DocBuilder::new();
        b.block(BlockKind::Heading(1), "  Intro \n", None);
        b.block(BlockKind::Paragraph, "a  b\tc", Some((3, 4)));
        b.list_item(0, Some("1."), "one", None);
        b.list_item(1, Some("-"), "two", None);
        b.table(
            &[
                Row {
                    header: true,
                    cells: vec!["H1".into(), "H 2".into()],
                    lines: None,
                },
                Row {
                    header: false,
                    cells: vec!["x".into(), "".into()],
                    lines: None,
                },
            ],
            None,
        );
        b.code_line("fn main() {");
        b.code_line("");
        b.code_line("}");
        b.code_line("");
        let doc = b.finish("test", BTreeMap::new());
        assert_eq!(
            doc.text,
            "Intro\n\na b c\n\n1. one\n  - two\n\nH1 | H 2\nx | \n\nfn main() {\n\n}"
        );
        let spans: Vec<&str> = doc
            .elements
            .iter()
            .map(|e| &doc.text[e.start..e.end])
            .collect();
        assert_eq!(
            spans,
            [
                "Intro",
                "a b c",
                "1. one",
                "- two",
                "H1 | H 2\nx | ",
                "H1 | H 2",
                "x | ",
                "fn main() {\n\n}"
            ]
        );
        assert_eq!(doc.elements[0].kind, ElementKind::Title);
        assert_eq!(doc.elements[1].lines, Some((3, 4)));
    }

    #[test]
    fn number_styles() {
        assert_eq!(NumberStyle::LowerLetter.format(28), "bb");
        assert_eq!(NumberStyle::UpperRoman.format(14), "XIV");
        assert_eq!(NumberStyle::DecimalZero.format(7), "07");
    }

    #[test]
    fn collapse_keeps_hard_breaks() {
        assert_eq!(collapse(" a \n\n b  c "), "a\nb c");
        assert_eq!(collapse(" \n "), "");
        assert_eq!(one_line("a\nb"), "a b");
    }
}
