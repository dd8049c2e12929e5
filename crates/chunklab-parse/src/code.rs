//! Source code: Rust, Python, JavaScript, TypeScript (and TSX), Go and Java, parsed with
//! tree-sitter into syntax-tree units.
//!
//! The document text is the file itself, so element offsets are file offsets. Every unit is an
//! [`ElementKind::Code`] element with `code_kind` (`function`, `method`, `class`, `struct`,
//! `enum`, `trait`, `impl`, `interface`, `module`, `const`, `imports` ...), `symbol` (a path such
//! as `Inventory::transfer`, `Invoice.add`, `report::lines`, `impl Display for MoveError`),
//! `language` and `lines` (1-based, inclusive). A unit's span starts at the comments, doc
//! comments, attributes and decorators right above it (no blank line in between; Python
//! docstrings are inside their function anyway). Units nested in units (methods in a class or
//! impl, functions in a module) are elements too, after their parent. Consecutive imports at the
//! top level form one `imports` unit; any other top-level text between units becomes a
//! `statements` element (or `comment` when it is only comments), so every non-whitespace char
//! of the file lies in a top-level element.
//!
//! tree-sitter recovers from syntax errors; the units around an error may then be cut short or
//! missing, and the document gets a warning naming the first error's line. The tree is walked
//! with a cursor and an explicit stack, so deeply nested input cannot overflow the call stack.

mod languages;

pub use languages::CodeLanguage;

use crate::{Limits, ParseError, Parser};
use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use chunklab_core::text::{ceil_char_boundary, floor_char_boundary, strip_span, LineIndex};
use languages::{classify, is_comment_like, Context, Role};
use std::path::Path;
use tree_sitter::Node;

/// The source-code parser. Without a fixed language it picks one by file extension
/// (`.rs .py .pyi .js .mjs .cjs .jsx .ts .mts .cts .tsx .go .java`).
///
/// ```
/// use chunklab_parse::{code::CodeParser, Limits, Parser};
/// use std::path::Path;
/// let src = "/// Adds.\nfn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n";
/// let doc = CodeParser::new().parse(src.as_bytes(), Path::new("lib.rs"), &Limits::default()).unwrap();
/// assert_eq!(doc.format, "code:rust");
/// let f = &doc.elements[0];
/// assert_eq!(f.symbol(), Some("add"));
/// assert_eq!(f.code_kind(), Some("function"));
/// assert_eq!(f.lines, Some((1, 4)));
/// assert!(doc.text[f.start..f.end].starts_with("/// Adds."));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct CodeParser {
    language: Option<CodeLanguage>,
}

impl CodeParser {
    /// A parser that picks the language by file extension.
    pub fn new() -> Self {
        Self { language: None }
    }

    /// A parser for one language, whatever the file is called.
    pub fn for_language(language: CodeLanguage) -> Self {
        Self {
            language: Some(language),
        }
    }
}

impl Parser for CodeParser {
    fn name(&self) -> &'static str {
        "code"
    }

    fn parse(
        &self,
        bytes: &[u8],
        path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        let language = self
            .language
            .or_else(|| CodeLanguage::from_path(path))
            .ok_or_else(|| ParseError::Invalid {
                format: "code",
                message: format!(
                    "no known programming language for {:?}; name one explicitly",
                    path.extension().unwrap_or_default()
                ),
            })?;
        if let Some(at) = bytes.iter().position(|&b| b == 0) {
            return Err(ParseError::Invalid {
                format: "code",
                message: format!("binary data (NUL byte at offset {at}), not source text"),
            });
        }
        let text = std::str::from_utf8(bytes).map_err(|e| ParseError::NotUtf8 {
            offset: e.valid_up_to(),
        })?;
        parse_code(text, language, limits)
    }
}

/// Parse source `text` in `language` (see the module docs for what the elements are).
///
/// ```
/// use chunklab_parse::code::{parse_code, CodeLanguage};
/// let src = "class Cart:\n    def add(self, item):\n        self.items.append(item)\n";
/// let doc = parse_code(src, CodeLanguage::Python, &Default::default()).unwrap();
/// let symbols: Vec<_> = doc.elements.iter().map(|e| e.symbol().unwrap()).collect();
/// assert_eq!(symbols, ["Cart", "Cart.add"]);
/// assert_eq!(doc.elements[1].code_kind(), Some("method"));
/// ```
pub fn parse_code(
    text: &str,
    language: CodeLanguage,
    limits: &Limits,
) -> Result<ParsedDocument, ParseError> {
    if text.len() >= u32::MAX as usize {
        return Err(ParseError::Limit {
            what: format!("source file of {} bytes", text.len()),
            limit: u32::MAX as u64 - 1,
        });
    }
    let mut parser = tree_sitter::Parser::new();
    parser
        .set_language(&language.grammar())
        .map_err(|e| ParseError::Invalid {
            format: "code",
            message: format!("tree-sitter grammar for {}: {e}", language.name()),
        })?;
    // A byte order mark is not source; parse a copy where it is blank so offsets stay put.
    let tree = match text.strip_prefix('\u{feff}') {
        Some(rest) => parser.parse(format!("   {rest}"), None),
        None => parser.parse(text, None),
    }
    .ok_or_else(|| ParseError::Invalid {
        format: "code",
        message: "tree-sitter gave up parsing".into(),
    })?;

    let mut walker = Walker::new(language, text, limits.max_depth);
    walker.walk(tree.root_node());
    let warnings = walker.warnings();
    let elements = walker.into_elements();

    let mut doc = ParsedDocument {
        text: text.to_string(),
        elements,
        format: format!("code:{}", language.name()),
        warnings,
        ..ParsedDocument::default()
    };
    doc.metadata
        .insert("language".into(), language.name().to_string());
    Ok(doc)
}

/// A unit found in the tree.
#[derive(Debug)]
struct Unit {
    start: usize,
    end: usize,
    kind: &'static str,
    symbol: Option<String>,
    /// What the symbols of units inside this one start with.
    scope: Option<String>,
    /// Units enclosing this one.
    depth: usize,
}

/// The walk state of one node whose children are being visited.
struct Frame {
    kind: &'static str,
    /// The innermost unit around the children.
    unit: Option<usize>,
    /// Start of the run of comments/attributes/decorators just before the next child.
    leading: Option<usize>,
    /// End of the previous child.
    prev_end: Option<usize>,
    /// The `imports` unit the next import joins (top level only).
    imports: Option<usize>,
}

impl Frame {
    fn new(kind: &'static str, unit: Option<usize>) -> Self {
        Self {
            kind,
            unit,
            leading: None,
            prev_end: None,
            imports: None,
        }
    }
}

struct Walker<'a> {
    lang: CodeLanguage,
    src: &'a str,
    lines: LineIndex,
    units: Vec<Unit>,
    /// Top-level nodes that are neither units nor imports: (start, end, is a comment or
    /// docstring).
    loose: Vec<(usize, usize, bool)>,
    errors: usize,
    first_error: Option<usize>,
    max_depth: usize,
    too_deep: usize,
}

impl<'a> Walker<'a> {
    fn new(lang: CodeLanguage, src: &'a str, max_depth: usize) -> Self {
        Self {
            lang,
            src,
            lines: LineIndex::new(src),
            units: Vec::new(),
            loose: Vec::new(),
            errors: 0,
            first_error: None,
            max_depth: max_depth.max(1),
            too_deep: 0,
        }
    }

    /// Visit every node in document order with a cursor and a stack of frames (no recursion).
    fn walk(&mut self, root: Node) {
        let mut cursor = root.walk();
        let mut frames = vec![Frame::new(root.kind(), None)];
        if !cursor.goto_first_child() {
            return;
        }
        loop {
            let node = cursor.node();
            let top_level = frames.len() == 1;
            let frame = frames.last_mut().expect("a frame per ancestor");
            let opened = self.visit(node, frame, top_level);
            if cursor.goto_first_child() {
                let unit = opened.or(frame.unit);
                frames.push(Frame::new(node.kind(), unit));
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return;
                }
                frames.pop();
                if frames.is_empty() {
                    return;
                }
            }
        }
    }

    /// Look at one child of `frame`'s node; returns the unit it opens, if any.
    fn visit(&mut self, node: Node, frame: &mut Frame, top_level: bool) -> Option<usize> {
        if node.is_error() || node.is_missing() {
            self.errors += 1;
            self.first_error.get_or_insert(node.start_byte());
        }
        let (start, end) = (node.start_byte(), node.end_byte());
        let prev_end = frame.prev_end.replace(end);
        let blank_before = prev_end.is_some_and(|p| self.blank_line_between(p, start));
        let after_code_on_line = prev_end.is_some_and(|p| {
            p > 0 && p <= start && self.lines.line(p - 1) == self.lines.line(start)
        });

        let ctx = Context {
            parent_kind: frame.kind,
            unit_kind: frame.unit.map(|u| self.units[u].kind),
        };
        let role = classify(self.lang, node, ctx, self.src);
        let leading = frame.leading.take().filter(|_| !blank_before);
        match role {
            Role::Leading => {
                // A comment at the end of a line of code belongs to that code.
                if !after_code_on_line {
                    frame.leading = Some(leading.unwrap_or(start));
                }
                if top_level {
                    self.loose.push((start, end, true));
                }
                None
            }
            Role::Import if top_level => {
                if let Some(group) = frame.imports {
                    self.units[group].end = end;
                    return None;
                }
                let unit = self.open(leading.unwrap_or(start), end, "imports", None, None, None);
                frame.imports = unit;
                None
            }
            Role::Unit { kind, name, symbol } => {
                frame.imports = None;
                self.open(
                    leading.unwrap_or(start),
                    end,
                    kind,
                    name,
                    symbol,
                    frame.unit,
                )
            }
            Role::Import | Role::Other => {
                if top_level && (node.is_named() || !node.kind().trim().is_empty()) {
                    let comment = is_comment_like(self.lang, node);
                    if !comment {
                        frame.imports = None;
                    }
                    self.loose.push((start, end, comment));
                }
                None
            }
        }
    }

    /// Record a unit unless it is nested too deeply.
    fn open(
        &mut self,
        start: usize,
        end: usize,
        kind: &'static str,
        name: Option<String>,
        symbol: Option<String>,
        parent: Option<usize>,
    ) -> Option<usize> {
        let depth = parent.map_or(0, |p| self.units[p].depth + 1);
        if depth >= self.max_depth {
            self.too_deep += 1;
            return None;
        }
        let parent_scope = parent.and_then(|p| self.units[p].scope.as_deref());
        let scope = match (parent_scope, name) {
            (Some(outer), Some(name)) => {
                Some(format!("{outer}{}{name}", self.lang.path_separator()))
            }
            (None, Some(name)) => Some(name),
            (outer, None) => outer.map(str::to_string),
        };
        let symbol = symbol.or_else(|| scope.clone());
        self.units.push(Unit {
            start,
            end,
            kind,
            symbol,
            scope,
            depth,
        });
        Some(self.units.len() - 1)
    }

    /// True when a whitespace-only line lies between two nodes.
    fn blank_line_between(&self, prev_end: usize, start: usize) -> bool {
        if start <= prev_end {
            return false;
        }
        let src = self.src.as_bytes();
        // A line comment may end with its newline.
        let mut newlines = usize::from(prev_end > 0 && src[prev_end - 1] == b'\n');
        for &b in &src[prev_end..start] {
            newlines += usize::from(b == b'\n');
            if newlines >= 2 {
                return true;
            }
        }
        false
    }

    fn warnings(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(at) = self.first_error {
            out.push(format!(
                "{} syntax error(s), the first near line {}; tree-sitter recovered, but units \
                 around them may be incomplete",
                self.errors,
                self.lines.line(at) as usize
            ));
        }
        if self.too_deep > 0 {
            out.push(format!(
                "{} unit(s) nested deeper than {} levels are kept inside their enclosing unit",
                self.too_deep, self.max_depth
            ));
        }
        out
    }

    /// The units as elements, plus `statements`/`comment` elements for the top-level text
    /// between them, sorted by start (outer before inner).
    fn into_elements(self) -> Vec<Element> {
        let language = self.lang.name();
        let src = self.src;
        let mut elements: Vec<Element> = Vec::with_capacity(self.units.len() + 8);
        let mut covered = 0;
        let mut loose = self.loose.iter().peekable();
        let mut gap = |from: usize, to: usize, elements: &mut Vec<Element>| {
            let (s, e) = strip_span(src, from, to);
            let (s, e) = (ceil_char_boundary(src, s), floor_char_boundary(src, e));
            if s >= e {
                return;
            }
            let mut only_comments = true;
            while let Some(&&(ls, le, comment)) = loose.peek() {
                if ls >= e {
                    break;
                }
                if le > s {
                    only_comments &= comment;
                }
                loose.next();
            }
            let kind = if only_comments {
                "comment"
            } else {
                "statements"
            };
            elements.push(self.element(s, e, kind, None, language));
        };
        for u in self.units.iter().filter(|u| u.depth == 0) {
            if u.start > covered {
                gap(covered, u.start, &mut elements);
            }
            covered = covered.max(u.end);
        }
        gap(covered, src.len(), &mut elements);
        for u in &self.units {
            let (s, e) = (
                floor_char_boundary(src, u.start),
                ceil_char_boundary(src, u.end),
            );
            elements.push(self.element(s, e, u.kind, u.symbol.clone(), language));
        }
        elements.sort_by_key(|e| (e.start, std::cmp::Reverse(e.end)));
        elements
    }

    fn element(
        &self,
        start: usize,
        end: usize,
        kind: &str,
        symbol: Option<String>,
        language: &str,
    ) -> Element {
        let (first, last) = self.lines.lines(start, end);
        let mut e = Element::new(ElementKind::Code, start, end).with_lines(first, last);
        e.set_code_kind(Some(kind.to_string()));
        e.set_symbol(symbol);
        e.set_language(Some(language.to_string()));
        e
    }
}
