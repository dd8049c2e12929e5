//! `code`: chunk source code along its syntax tree, as parsed into [`ElementKind::Code`]
//! elements (crate `chunklab-parse`, module `code`).
//!
//! The top-level units (functions, classes, impls, modules, import blocks, top-level
//! statements) are packed greedily in file order: a unit that fits is never cut, and small
//! neighbours share a chunk while they fit together. A unit too large for one chunk is opened:
//! its header (signature, doc comment, fields), its inner units (methods of a class or impl,
//! items of a module) and the text between them are packed the same way, so the header travels
//! with the first methods and the closing brace with the last. A unit without inner units that
//! is still too large is cut by the native `recursive` strategy at blank lines, then lines, then
//! spaces, then units.
//!
//! Every chunk carries `language`, `symbol` (the unit's symbol path, or the symbols of the
//! merged units joined with `, `), `kind` (the unit kind, or the distinct kinds joined with
//! `, `) and its 1-based inclusive source `lines`. With `title_prefix`, a chunk inside an opened
//! unit that does not contain the unit's header line gets that line (and those of the opened
//! units around it) as [`ChunkMeta::prefix`], e.g. `"impl Inventory {\n"`; the prefix counts
//! toward the size, and a unit that fits only without it goes without it rather than being cut.

use super::fixed::validate;
use super::recursive::Recursive;
use super::structured::{Emitter, Prefix};
use crate::chunk::{ChunkMeta, Span};
use crate::chunker::Chunker;
use crate::document::ParsedDocument;
use crate::error::{config_err, Result};
use crate::sizer::Sizer;
use crate::text::LineIndex;
use std::collections::VecDeque;
use std::sync::Arc;

/// Units nested deeper than this are not opened; their text is cut line by line instead.
const MAX_OPEN_DEPTH: usize = 64;

/// A header line longer than this (minified code, generated tables) is not used as a prefix.
const MAX_HEADER_BYTES: usize = 240;

/// At most this many symbols are listed for a chunk of merged units.
const MAX_SYMBOLS: usize = 8;

/// Cut points for a unit with no inner units: blank lines (also indented or CRLF ones), lines,
/// runs of spaces, then units.
const CODE_SEPARATORS: [&str; 4] = [r"\n(?:[ \t\r]*\n)+", r"\r?\n", r"[ \t]+", ""];

/// Syntax-aware chunking of parsed source code.
///
/// ```
/// use chunklab_core::document::{Element, ElementKind, ParsedDocument};
/// use chunklab_core::{strategies::Code, CharSizer, Chunker};
/// use std::sync::Arc;
/// let text = "fn a() {}\n\nfn b() {}\n\nfn long() {\n    one();\n    two();\n}\n";
/// let mut doc = ParsedDocument::plain(text.into());
/// doc.metadata.insert("language".into(), "rust".into());
/// for (symbol, line) in [("a", "fn a() {}"), ("b", "fn b() {}"), ("long", "fn long() {")] {
///     let start = text.find(line).unwrap();
///     let end = if symbol == "long" { text.len() - 1 } else { start + line.len() };
///     let e = Element::new(ElementKind::Code, start, end);
///     doc.elements.push(e.with_symbol(symbol).with_code_kind("function"));
/// }
/// let chunks = Code::new(Arc::new(CharSizer), 30, false).unwrap().chunk_parsed(&doc).unwrap();
/// let texts: Vec<_> = chunks.iter().map(|(s, _)| &text[s.start..s.end]).collect();
/// assert_eq!(texts, ["fn a() {}\n\nfn b() {}", "fn long() {\n    one();", "two();\n}"]);
/// assert_eq!(chunks[0].1.symbol.as_deref(), Some("a, b"));
/// assert_eq!(chunks[1].1.symbol.as_deref(), Some("long"));
/// assert_eq!(chunks[1].1.lines, Some((5, 6)));
/// assert_eq!(chunks[0].1.language.as_deref(), Some("rust"));
/// assert!(Code::new(Arc::new(CharSizer), 30, false).unwrap().spans(text).is_err());
/// ```
#[derive(Debug)]
pub struct Code {
    sizer: Arc<dyn Sizer>,
    size: usize,
    title_prefix: bool,
    splitter: Recursive,
}

impl Code {
    /// Chunks of at most `size` units; `title_prefix` prefixes chunks inside an opened class,
    /// impl or module with its header line(s).
    pub fn new(sizer: Arc<dyn Sizer>, size: usize, title_prefix: bool) -> Result<Self> {
        validate(size, 0)?;
        let splitter =
            Recursive::new(sizer.clone(), size, 0)?.with_separators(&CODE_SEPARATORS, true)?;
        Ok(Self {
            sizer,
            size,
            title_prefix,
            splitter,
        })
    }
}

impl Chunker for Code {
    fn strategy(&self) -> &'static str {
        "code"
    }

    fn needs_structure(&self) -> bool {
        true
    }

    fn config(&self) -> String {
        format!(
            "code size={} title_prefix={} unit={}",
            self.size,
            self.title_prefix,
            self.sizer.name()
        )
    }

    fn spans(&self, _text: &str) -> Result<Vec<Span>> {
        config_err(
            "the `code` strategy requires a parsed document (Chunker::chunk_parsed on the code \
             parser's output; `chunklab chunk` parses every file)",
        )
    }

    fn chunk_parsed(&self, doc: &ParsedDocument) -> Result<Vec<(Span, ChunkMeta)>> {
        let (units, top) = unit_tree(doc);
        let language = doc.metadata.get("language").cloned().or_else(|| {
            doc.elements
                .iter()
                .find_map(|e| e.language().map(str::to_string))
        });
        let mut pack = Pack {
            doc,
            units,
            em: Emitter::new(doc, self.sizer.as_ref(), self.size, &self.splitter)?,
            language,
            title_prefix: self.title_prefix,
            statement_depth: 0,
        };
        let pieces = pack.pieces(&top, 0, doc.text.len(), None);
        pack.pack(&pieces, &Scope::default())?;
        let mut out = pack.em.out;
        let lines = LineIndex::new(&doc.text);
        for (span, meta) in &mut out {
            meta.lines = Some(lines.span_lines(&doc.text, span.start, span.end));
        }
        Ok(out)
    }
}

/// A code element and the elements nested in it.
#[derive(Debug)]
struct Unit {
    start: usize,
    end: usize,
    element: usize,
    children: Vec<usize>,
    depth: usize,
}

/// The nesting tree of `doc`'s elements (sorted by start, outer first); elements that overlap
/// a sibling without nesting, or lie outside the text, are ignored. Returns the units and the
/// top-level ones.
fn unit_tree(doc: &ParsedDocument) -> (Vec<Unit>, Vec<usize>) {
    let text = &doc.text;
    let mut units: Vec<Unit> = Vec::new();
    let mut top = Vec::new();
    let mut stack: Vec<usize> = Vec::new();
    for (i, e) in doc.elements.iter().enumerate() {
        let valid = e.start < e.end
            && e.end <= text.len()
            && text.is_char_boundary(e.start)
            && text.is_char_boundary(e.end);
        if !valid {
            continue;
        }
        while stack.last().is_some_and(|&u| e.start >= units[u].end) {
            stack.pop();
        }
        let parent = stack.last().copied();
        if let Some(p) = parent {
            if e.start < units[p].start || e.end > units[p].end {
                continue;
            }
        }
        let id = units.len();
        units.push(Unit {
            start: e.start,
            end: e.end,
            element: i,
            children: Vec::new(),
            depth: parent.map_or(0, |p| units[p].depth + 1),
        });
        match parent {
            Some(p) => units[p].children.push(id),
            None => top.push(id),
        }
        stack.push(id);
    }
    (units, top)
}

/// One thing to pack: a unit, or text between units (inside `owner`, or at the top level).
#[derive(Debug, Clone, Copy)]
enum Piece {
    Unit(usize),
    Text {
        start: usize,
        end: usize,
        owner: Option<usize>,
    },
}

/// Where chunks are being packed: the prefix for chunks that start after the header line of
/// the innermost opened unit, and the one for chunks before it.
#[derive(Debug, Default, Clone)]
struct Scope {
    /// Header lines of the opened units, outermost first (each ends with a newline).
    headers: Vec<String>,
    /// End of the innermost opened unit's header line.
    header_end: usize,
    inner: Option<Prefix>,
    outer: Option<Prefix>,
}

/// A run of pieces being merged into one chunk, and its prefix.
struct Group {
    start: usize,
    end: usize,
    members: Vec<Piece>,
    prefix: Option<Prefix>,
}

struct Pack<'a> {
    doc: &'a ParsedDocument,
    units: Vec<Unit>,
    em: Emitter<'a>,
    language: Option<String>,
    title_prefix: bool,
    /// How many statement splits are open (each is a nested block); bounded.
    statement_depth: usize,
}

/// Nested blocks split at their statements before the line-based fallback takes over.
const MAX_STATEMENT_DEPTH: usize = 32;

/// Byte offsets (after a newline, inside `code`, never 0 or `code.len()`) where a statement
/// ends: round and square brackets are closed and curly ones are back at the depth they had
/// after the first line (so the statements inside a block opened on the first line count).
/// Brackets inside quotes and line comments (`#`, `//`) on a line are ignored. Empty when the
/// brackets do not balance, so odd code keeps the plain line-based split.
fn statement_cuts(code: &str) -> Vec<usize> {
    let b = code.as_bytes();
    let (mut round, mut curly) = (0i64, 0i64);
    let mut base: Option<i64> = None;
    let mut quote: Option<u8> = None;
    let mut comment = false;
    let mut cuts = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        if c == b'\n' {
            quote = None;
            comment = false;
            let base = *base.get_or_insert(curly);
            if round == 0 && curly <= base && i + 1 < b.len() {
                cuts.push(i + 1);
            }
            i += 1;
            continue;
        }
        if comment {
            i += 1;
            continue;
        }
        if let Some(q) = quote {
            if c == b'\\' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' | b'\'' | b'`' => quote = Some(c),
            b'#' => comment = true,
            b'/' if b.get(i + 1) == Some(&b'/') => comment = true,
            b'(' | b'[' => round += 1,
            b')' | b']' => round -= 1,
            b'{' => curly += 1,
            b'}' => curly -= 1,
            _ => {}
        }
        if round < 0 {
            return Vec::new();
        }
        i += 1;
    }
    if round != 0 {
        return Vec::new();
    }
    cuts
}

impl Pack<'_> {
    fn span(&self, piece: Piece) -> (usize, usize) {
        match piece {
            Piece::Unit(u) => (self.units[u].start, self.units[u].end),
            Piece::Text { start, end, .. } => (start, end),
        }
    }

    fn prefix_for(&self, start: usize, scope: &Scope) -> Option<Prefix> {
        if start >= scope.header_end {
            scope.inner.clone()
        } else {
            scope.outer.clone()
        }
    }

    /// Pack `pieces` greedily: each chunk is a run of whole pieces that fits; a piece that does
    /// not fit on its own is opened or split. (A work queue, not recursion, takes back the
    /// pieces a chunk that did not fit for real gave up.)
    fn pack(&mut self, pieces: &[Piece], scope: &Scope) -> Result<()> {
        let mut queue: VecDeque<Piece> = pieces.iter().copied().collect();
        let mut group: Option<Group> = None;
        loop {
            let Some(piece) = queue.pop_front() else {
                let Some(g) = group.take() else { break };
                queue.extend(self.flush(g, scope)?);
                continue;
            };
            let (ps, pe) = self.span(piece);
            if self.doc.text[ps..pe].trim().is_empty() {
                continue;
            }
            if let Some(g) = &mut group {
                let prefix = g.prefix.as_ref().map_or(0, |p| p.1);
                if self.em.fits(g.start, pe, prefix) {
                    g.end = pe;
                    g.members.push(piece);
                    continue;
                }
            }
            // A piece that fits only without the prefix goes without it rather than being cut.
            let prefix = self.prefix_for(ps, scope);
            let with = self.em.fits(ps, pe, prefix.as_ref().map_or(0, |p| p.1));
            let fits = with || (prefix.is_some() && self.em.fits(ps, pe, 0));
            if let Some(g) = group.take() {
                let small = self.em.units(g.start, g.end) < self.em.size.div_ceil(4);
                if !fits && small && !self.openable(piece) {
                    // A short lead-in (a header line, a small item) before text that must be cut
                    // anyway joins its first lines instead of making a tiny chunk.
                    let mut members = g.members;
                    members.push(piece);
                    let meta = self.meta(&members);
                    let first = self.em.out.len();
                    self.em.emit(g.start, pe, g.prefix.as_ref(), &meta)?;
                    self.relabel(first, &members);
                    continue;
                }
                let rest = self.flush(g, scope)?;
                if !rest.is_empty() {
                    queue.push_front(piece);
                    for p in rest.into_iter().rev() {
                        queue.push_front(p);
                    }
                    continue;
                }
            }
            let brackets = self.is_brackets(piece);
            if brackets && self.absorb(ps, pe) {
                continue;
            }
            if fits {
                group = Some(Group {
                    start: ps,
                    end: pe,
                    members: vec![piece],
                    // (A lone closing bracket needs no context.)
                    prefix: if with && !brackets { prefix } else { None },
                });
            } else {
                self.oversized(piece, scope)?;
            }
        }
        Ok(())
    }

    /// Emit a group as one chunk. If it does not fit for real (a tokenizer can count a span
    /// higher than planned), emit its longest leading run of members that does and return the
    /// rest to be packed again; a single member that does not fit is opened or split.
    fn flush(&mut self, g: Group, scope: &Scope) -> Result<Vec<Piece>> {
        let prefix = g.prefix.as_ref();
        if self
            .em
            .try_emit(g.start, g.end, prefix, &self.meta(&g.members))
        {
            return Ok(Vec::new());
        }
        if let [only] = g.members[..] {
            let meta = self.meta(&g.members);
            if prefix.is_none() || !self.em.try_emit(g.start, g.end, None, &meta) {
                self.oversized(only, scope)?;
            }
            return Ok(Vec::new());
        }
        for k in (1..g.members.len()).rev() {
            let end = self.span(g.members[k - 1]).1;
            if self
                .em
                .try_emit(g.start, end, prefix, &self.meta(&g.members[..k]))
            {
                return Ok(g.members[k..].to_vec());
            }
        }
        let first = Group {
            start: g.start,
            end: self.span(g.members[0]).1,
            members: vec![g.members[0]],
            prefix: g.prefix.clone(),
        };
        self.flush(first, scope)?;
        Ok(g.members[1..].to_vec())
    }

    /// Give the chunks emitted from `first` on the kind and symbol of only the `members` each
    /// one overlaps: a lead-in emitted together with a unit that had to be cut is split, and
    /// the later parts hold none of the lead-in (module code before `def JSONObject(…)` must
    /// not name the function, nor the function's body the small struct before it).
    fn relabel(&mut self, first: usize, members: &[Piece]) {
        for i in first..self.em.out.len() {
            let (start, end) = (self.em.out[i].0.start, self.em.out[i].0.end);
            let overlapped: Vec<Piece> = members
                .iter()
                .copied()
                .filter(|&p| {
                    let (ps, pe) = self.span(p);
                    ps < end && start < pe
                })
                .collect();
            let meta = self.meta(&overlapped);
            let out = &mut self.em.out[i].1;
            out.kind = meta.kind;
            out.symbol = meta.symbol;
        }
    }

    /// Whether a unit has inner units to open it at.
    fn openable(&self, piece: Piece) -> bool {
        match piece {
            Piece::Unit(u) => {
                !self.units[u].children.is_empty() && self.units[u].depth < MAX_OPEN_DEPTH
            }
            Piece::Text { .. } => false,
        }
    }

    /// Text with no letters or digits: closing brackets, `;`.
    fn is_brackets(&self, piece: Piece) -> bool {
        match piece {
            Piece::Text { start, end, .. } => {
                !self.doc.text[start..end].chars().any(char::is_alphanumeric)
            }
            Piece::Unit(_) => false,
        }
    }

    /// Extend the last chunk over `text[start..end]` when only whitespace lies between them and
    /// the result fits for real (a closing bracket after a unit that had to be cut).
    fn absorb(&mut self, start: usize, end: usize) -> bool {
        let Some((last, meta)) = self.em.out.pop() else {
            return false;
        };
        if last.end > start || !self.doc.text[last.end..start].trim().is_empty() {
            self.em.out.push((last, meta));
            return false;
        }
        let prefix = meta.prefix.clone().and_then(|p| self.em.choose_prefix([p]));
        if self.em.try_emit(last.start, end, prefix.as_ref(), &meta) {
            return true;
        }
        self.em.out.push((last, meta));
        false
    }

    /// A piece too large for one chunk: open a unit with inner units; else pack its statements
    /// (so a cut never falls inside a call or an expression that spans lines); split what is
    /// left.
    fn oversized(&mut self, piece: Piece, scope: &Scope) -> Result<()> {
        let (start, end) = self.span(piece);
        if let (true, Piece::Unit(u)) = (self.openable(piece), piece) {
            let inner = self.open_scope(u, scope);
            let unit = &self.units[u];
            let pieces = self.pieces(&unit.children, unit.start, unit.end, Some(u));
            return self.pack(&pieces, &inner);
        }
        if self.statement_depth < MAX_STATEMENT_DEPTH {
            let owner = match piece {
                Piece::Unit(u) => Some(u),
                Piece::Text { owner, .. } => owner,
            };
            let cuts = statement_cuts(&self.doc.text[start..end]);
            if !cuts.is_empty() {
                let mut pieces = Vec::with_capacity(cuts.len() + 1);
                let mut at = start;
                for c in cuts {
                    pieces.push(Piece::Text {
                        start: at,
                        end: start + c,
                        owner,
                    });
                    at = start + c;
                }
                pieces.push(Piece::Text {
                    start: at,
                    end,
                    owner,
                });
                self.statement_depth += 1;
                let packed = self.pack(&pieces, scope);
                self.statement_depth -= 1;
                return packed;
            }
        }
        let prefix = self.prefix_for(start, scope);
        let meta = self.meta(&[piece]);
        self.em.emit(start, end, prefix.as_ref(), &meta)
    }

    /// The units `children` (sorted, disjoint, inside `start..end`) and the text before,
    /// between and after them (a unit's header, fields and closing bracket), in order.
    fn pieces(
        &self,
        children: &[usize],
        start: usize,
        end: usize,
        owner: Option<usize>,
    ) -> Vec<Piece> {
        let mut pieces = Vec::with_capacity(children.len() * 2 + 1);
        let mut at = start;
        for &c in children {
            let child = &self.units[c];
            if child.start > at {
                pieces.push(Piece::Text {
                    start: at,
                    end: child.start,
                    owner,
                });
            }
            pieces.push(Piece::Unit(c));
            at = at.max(child.end);
        }
        if end > at {
            pieces.push(Piece::Text {
                start: at,
                end,
                owner,
            });
        }
        pieces
    }

    /// The scope inside opened unit `u`: its header line joins the headers around it.
    fn open_scope(&mut self, u: usize, outer: &Scope) -> Scope {
        let unit = &self.units[u];
        let first_child = unit
            .children
            .first()
            .map_or(unit.end, |&c| self.units[c].start);
        let (line, line_end) = header_line(&self.doc.text, unit.start, first_child);
        let mut scope = Scope {
            headers: outer.headers.clone(),
            header_end: line_end,
            inner: None,
            outer: self.prefix_for(unit.start, outer),
        };
        if !self.title_prefix || line.is_empty() || line.len() > MAX_HEADER_BYTES {
            scope.inner = scope.outer.clone();
            return scope;
        }
        scope.headers.push(line);
        let all = scope.headers.concat();
        let last = scope.headers.last().cloned().unwrap_or_default();
        scope.inner = self.em.choose_prefix([all, last]);
        scope
    }

    /// Kind, symbol and language of a chunk made of `members`.
    fn meta(&self, members: &[Piece]) -> ChunkMeta {
        let mut symbols: Vec<&str> = Vec::new();
        let mut kinds: Vec<&str> = Vec::new();
        // Text inside a unit (its header, fields) speaks for the unit, unless it is only
        // brackets next to other members.
        for brackets_count in [false, true] {
            for &piece in members {
                let element = match piece {
                    Piece::Unit(u) => Some(self.units[u].element),
                    Piece::Text {
                        start,
                        end,
                        owner: Some(u),
                    } if brackets_count
                        || self.doc.text[start..end].chars().any(char::is_alphanumeric) =>
                    {
                        Some(self.units[u].element)
                    }
                    Piece::Text { .. } => None,
                };
                let Some(e) = element.map(|i| &self.doc.elements[i]) else {
                    continue;
                };
                let kind = e.code_kind().unwrap_or(e.kind.name());
                if !kinds.contains(&kind) {
                    kinds.push(kind);
                }
                if let Some(s) = e.symbol() {
                    if !symbols.contains(&s) {
                        symbols.push(s);
                    }
                }
            }
            if !kinds.is_empty() {
                break;
            }
        }
        let symbol = match symbols.len() {
            0 => None,
            n if n > MAX_SYMBOLS => Some(format!("{}, …", symbols[..MAX_SYMBOLS].join(", "))),
            _ => Some(symbols.join(", ")),
        };
        ChunkMeta {
            kind: (!kinds.is_empty()).then(|| kinds.join(", ")),
            symbol,
            language: self.language.clone(),
            ..ChunkMeta::default()
        }
    }
}

/// The declaration line of a unit whose header is `text[start..end]`: the first line that is
/// not a comment, attribute or decorator, cut at `end`, with a newline; and where that line
/// ends. Empty when there is none.
fn header_line(text: &str, start: usize, end: usize) -> (String, usize) {
    let mut at = start;
    for line in text[start..end].split_inclusive('\n') {
        let line_end = at + line.len();
        let t = line.trim();
        let decoration = ["//", "/*", "*", "#", "@", "\"\"\"", "'''"]
            .iter()
            .any(|m| t.starts_with(m));
        if !t.is_empty() && !decoration {
            // The unit may start after the indentation of its first line; keep that too.
            let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let indent = &text[line_start..at];
            let indent = if indent.trim().is_empty() { indent } else { "" };
            return (format!("{indent}{}\n", line.trim_end()), line_end);
        }
        at = line_end;
    }
    (String::new(), start)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::document::{Element, ElementKind};
    use crate::sizer::CharSizer;

    fn unit(start: usize, end: usize, kind: &str, symbol: &str) -> Element {
        Element::new(ElementKind::Code, start, end)
            .with_code_kind(kind)
            .with_symbol(symbol)
    }

    /// The element for the text from `from` (its first occurrence) to the end of `to` (its first
    /// occurrence after that).
    fn span_of(text: &str, from: &str, to: &str) -> (usize, usize) {
        let s = text.find(from).unwrap();
        (s, s + text[s..].find(to).unwrap() + to.len())
    }

    fn chunks(doc: &ParsedDocument, size: usize, prefix: bool) -> Vec<(Span, ChunkMeta)> {
        let out = Code::new(Arc::new(CharSizer), size, prefix)
            .unwrap()
            .chunk_parsed(doc)
            .unwrap();
        let mut covered = 0;
        for (s, m) in &out {
            let chunk = &doc.text[s.start..s.end];
            assert!(s.start >= covered && doc.text[covered..s.start].trim().is_empty());
            assert_eq!(s.tokens, m.embed_text(chunk).chars().count());
            assert!(s.tokens <= size, "{chunk:?}");
            covered = s.end;
        }
        assert!(doc.text[covered..].trim().is_empty());
        out
    }

    const PY: &str = "import os\n\n\nclass Cart:\n    \"\"\"A cart.\"\"\"\n\n    def add(self, item):\n        self.items.append(item)\n\n    @property\n    def total(self):\n        return sum(self.items)\n";

    fn python_doc() -> ParsedDocument {
        let mut doc = ParsedDocument::plain(PY.into());
        let (cs, ce) = span_of(PY, "class Cart", "sum(self.items)");
        let (as_, ae) = span_of(PY, "def add", "append(item)");
        let (ts, te) = span_of(PY, "@property", "sum(self.items)");
        doc.elements = vec![
            unit(0, 9, "imports", "imports"),
            unit(cs, ce, "class", "Cart"),
            unit(as_, ae, "method", "Cart.add"),
            unit(ts, te, "method", "Cart.total"),
        ];
        doc.elements[0].set_symbol(None);
        doc
    }

    #[test]
    fn classes_open_at_methods_with_the_class_line_as_prefix() {
        let doc = python_doc();
        let whole = chunks(&doc, 1000, true);
        assert_eq!(whole.len(), 1);
        assert_eq!(whole[0].1.kind.as_deref(), Some("imports, class"));
        assert_eq!(whole[0].1.symbol.as_deref(), Some("Cart"));

        let split = chunks(&doc, 90, true);
        let texts: Vec<_> = split.iter().map(|(s, _)| &PY[s.start..s.end]).collect();
        assert_eq!(texts[0], "import os");
        assert!(texts[1].starts_with("class Cart:") && texts[1].ends_with("append(item)"));
        assert_eq!(split[1].1.symbol.as_deref(), Some("Cart, Cart.add"));
        assert_eq!(split[1].1.prefix, None);
        assert!(texts[2].starts_with("@property"));
        assert_eq!(split[2].1.prefix.as_deref(), Some("class Cart:\n"));
        assert_eq!(split[2].1.symbol.as_deref(), Some("Cart.total"));
        assert_eq!(split[2].1.lines, Some((10, 12)));
    }

    #[test]
    fn a_unit_that_fits_only_without_the_prefix_is_not_cut() {
        let doc = python_doc();
        let total = &doc.elements[3];
        let len = PY[total.start..total.end].chars().count();
        let split = chunks(&doc, len, true);
        let whole = split
            .iter()
            .find(|(s, _)| s.start == total.start && s.end == total.end)
            .expect("the method is whole");
        assert_eq!(whole.1.prefix, None);
    }

    #[test]
    fn header_lines_skip_comments_attributes_and_decorators() {
        let t = "    /// Doc.\n    #[derive(Debug)]\n    pub struct S {\n        a: u8,\n    }";
        let start = t.find("///").unwrap();
        let (line, end) = header_line(t, start, t.find("a:").unwrap());
        assert_eq!(line, "    pub struct S {\n");
        assert_eq!(
            &t[..end],
            "    /// Doc.\n    #[derive(Debug)]\n    pub struct S {\n"
        );
        assert_eq!(header_line("@dec\nclass A:\n", 0, 14).0, "class A:\n");
        assert_eq!(header_line("// only a comment\n", 0, 18).0, "");
    }

    #[test]
    fn malformed_elements_are_ignored() {
        let text = "fn a() {}\nfn b() {}\nfn c() { é }\n";
        let mut doc = ParsedDocument::plain(text.into());
        doc.elements = vec![
            unit(0, 9, "function", "a"),
            unit(5, 15, "function", "overlaps a"),
            unit(10, 19, "function", "b"),
            unit(20, 9999, "function", "past the end"),
            unit(30, 31, "function", "inside é"),
            unit(19, 19, "function", "empty"),
        ];
        for size in [1, 5, 12, 100] {
            chunks(&doc, size, true);
        }
        let got = chunks(&doc, 12, false);
        assert_eq!(got[0].1.symbol.as_deref(), Some("a"));
    }

    #[test]
    fn oversized_functions_are_cut_between_statements_not_inside_a_call() {
        let text = "def parse(s, end):\n    pairs = {}\n    nextchar = s[end:end + 1]\n    if nextchar != '\"':\n        raise JSONDecodeError(\n            \"Expecting property name enclosed in double quotes\", s, end)\n    end += 1\n    return pairs, end\n";
        let mut doc = ParsedDocument::plain(text.into());
        doc.elements = vec![unit(0, text.len() - 1, "function", "parse")];
        // Sizes at which the 103-char raise statement fits whole (below that it must be cut).
        for size in [110, 150, 200] {
            for (s, m) in chunks(&doc, size, false) {
                let chunk = &text[s.start..s.end];
                let open = chunk.matches('(').count() + chunk.matches('[').count();
                let close = chunk.matches(')').count() + chunk.matches(']').count();
                assert_eq!(open, close, "size {size}: cut inside brackets: {chunk:?}");
                assert_eq!(m.symbol.as_deref(), Some("parse"));
            }
        }
        assert_eq!(statement_cuts("f(\n  a)\nb\n"), vec![8]);
        assert_eq!(statement_cuts("fn x() {\n  a;\n  b;\n}\n"), vec![9, 14, 19]);
        assert!(
            statement_cuts("f(\n").is_empty(),
            "unbalanced: no statement cuts"
        );
    }

    #[test]
    fn ten_thousand_nested_units_do_not_overflow_the_stack() {
        let n = 10_000;
        let text = format!("{}{}", "{".repeat(n), "}".repeat(n));
        let mut doc = ParsedDocument::plain(text.clone());
        doc.elements = (0..n).map(|i| unit(i, 2 * n - i, "module", "m")).collect();
        for size in [7, 500] {
            chunks(&doc, size, true);
        }
    }
}
