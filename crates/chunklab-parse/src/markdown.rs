//! Markdown: CommonMark plus GitHub tables, strikethrough, task lists and footnotes, parsed with
//! `pulldown-cmark`. The document text is the file itself, so element offsets are file offsets
//! and every element has its source line range.
//!
//! Elements are the top-level blocks: headings (ATX `#` and Setext underlined; the element spans
//! the whole heading source, its `title` is the heading's text without the markers), paragraphs,
//! code blocks (`Code`, with the fence's language), the items of top-level lists (`ListItem`, one
//! per item, nested lists inside), tables (`Table` with one `TableRow` per row, the first marked
//! as header), and everything else (block quotes, HTML blocks, thematic breaks, footnote
//! definitions, link reference definitions) as `Other`. YAML front matter (`---` ... `---` at the
//! very start) is an `Other` element, and its `key: value` lines go into the metadata; the
//! metadata `title` is the front matter's title, else the first level-1 heading.

use crate::support::{decode, element, finish, with_text, without_bom, LineIndex};
use crate::{Limits, ParseError, Parser};
use chunklab_core::document::{Element, ElementKind, ParsedDocument};
use pulldown_cmark::{CodeBlockKind, Event, Options, Tag, TagEnd};
use std::collections::BTreeMap;
use std::path::Path;

/// The Markdown parser.
///
/// ```
/// use chunklab_parse::{markdown::MarkdownParser, ElementKind, Limits, Parser};
/// use std::path::Path;
/// let md = "---\ntitle: Handboek\n---\n# Vergunningen\n\nTekst.\n\n## Artikel 3 ##\n\n```sql\nSELECT 1;\n```\n";
/// let doc = MarkdownParser.parse(md.as_bytes(), Path::new("h.md"), &Limits::default()).unwrap();
/// assert_eq!(doc.metadata["title"], "Handboek");
/// let headings: Vec<_> = doc.elements.iter()
///     .filter(|e| e.kind.heading_level().is_some())
///     .map(|e| (doc.title_of(e), e.lines.unwrap()))
///     .collect();
/// assert_eq!(headings, [("Vergunningen", (4, 4)), ("Artikel 3", (8, 8))]);
/// let code = doc.elements.iter().find(|e| e.kind == ElementKind::Code).unwrap();
/// assert_eq!(code.language(), Some("sql"));
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct MarkdownParser;

impl Parser for MarkdownParser {
    fn name(&self) -> &'static str {
        "markdown"
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        Ok(parse_markdown(decode(bytes)?, limits))
    }

    fn parse_string(
        &self,
        text: String,
        _path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        Ok(with_text(without_bom(text), |t| markdown_of(t, limits)))
    }
}

/// Parse Markdown `text` (see the module docs).
pub fn parse_markdown(text: &str, limits: &Limits) -> ParsedDocument {
    ParsedDocument {
        text: text.to_string(),
        ..markdown_of(text, limits)
    }
}

/// [`parse_markdown`] with the document's text left empty.
fn markdown_of(text: &str, limits: &Limits) -> ParsedDocument {
    let lines = LineIndex::new(text);
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS;
    let mut elements: Vec<Element> = Vec::new();
    let mut metadata = BTreeMap::new();
    let mut warnings = Vec::new();
    // Open container tags; elements come from tags opened at depth 0 (and list items and table
    // rows at depth 1).
    let mut stack: Vec<Open> = Vec::new();
    let mut heading: Option<(usize, String)> = None;
    let mut front_matter: Option<String> = None;
    let mut deep = false;
    for (event, range) in pulldown_cmark::Parser::new_ext(text, options).into_offset_iter() {
        match event {
            Event::Start(tag) => {
                let depth = stack.len();
                let open = Open::of(&tag);
                if depth == 0 {
                    let kind = match &tag {
                        Tag::Heading { level, .. } => {
                            heading = Some((elements.len(), String::new()));
                            Some(ElementKind::Heading {
                                level: *level as u8,
                            })
                        }
                        Tag::Paragraph => Some(ElementKind::Paragraph),
                        Tag::CodeBlock(_) => Some(ElementKind::Code),
                        Tag::Table(_) => Some(ElementKind::Table),
                        Tag::List(_) => None,
                        Tag::MetadataBlock(_) => {
                            front_matter = Some(String::new());
                            Some(ElementKind::Other)
                        }
                        _ => Some(ElementKind::Other),
                    };
                    if let Some(kind) = kind {
                        if let Some(mut e) = element(text, &lines, kind, range.start, range.end) {
                            if let Tag::CodeBlock(CodeBlockKind::Fenced(info)) = &tag {
                                e.set_language(
                                    info.split_whitespace()
                                        .next()
                                        .map(|l| l.trim_matches(['{', '}', '.']).to_string())
                                        .filter(|l| !l.is_empty()),
                                );
                            }
                            elements.push(e);
                        } else if heading.as_ref().is_some_and(|h| h.0 == elements.len()) {
                            heading = None;
                        }
                    }
                } else if depth == 1 {
                    let kind = match (&tag, stack[0]) {
                        (Tag::Item, Open::List) => Some(ElementKind::ListItem),
                        (Tag::TableHead, Open::Table) => {
                            Some(ElementKind::TableRow { header: true })
                        }
                        (Tag::TableRow, Open::Table) => {
                            Some(ElementKind::TableRow { header: false })
                        }
                        _ => None,
                    };
                    elements.extend(
                        kind.and_then(|k| element(text, &lines, k, range.start, range.end)),
                    );
                }
                if depth >= limits.max_depth && !deep {
                    deep = true;
                    warnings.push(format!(
                        "markup nested deeper than {} levels at line {}; it stays inside its top-level block",
                        limits.max_depth,
                        lines.line(range.start)
                    ));
                }
                stack.push(open);
            }
            Event::End(end) => {
                stack.pop();
                if stack.is_empty() {
                    if let (TagEnd::Heading(_), Some((i, title))) = (end, heading.take()) {
                        if let Some(e) = elements.get_mut(i) {
                            e.set_title(Some(clean_heading(&title)));
                        }
                    }
                    if let (TagEnd::MetadataBlock(_), Some(yaml)) = (end, front_matter.take()) {
                        read_front_matter(&yaml, &mut metadata);
                    }
                }
            }
            Event::Text(t) | Event::Code(t) | Event::InlineMath(t) => {
                if let Some((_, title)) = &mut heading {
                    title.push_str(&t);
                } else if let Some(yaml) = &mut front_matter {
                    yaml.push_str(&t);
                }
            }
            Event::SoftBreak | Event::HardBreak => {
                if let Some((_, title)) = &mut heading {
                    title.push(' ');
                }
            }
            Event::Rule if stack.is_empty() => {
                elements.extend(element(
                    text,
                    &lines,
                    ElementKind::Other,
                    range.start,
                    range.end,
                ));
            }
            _ => {}
        }
    }
    finish(text, &lines, &mut elements);
    if !metadata.contains_key("title") {
        let h1 = elements
            .iter()
            .find(|e| e.kind == ElementKind::Heading { level: 1 })
            .and_then(|e| e.title().map(str::to_string))
            .filter(|t| !t.is_empty());
        if let Some(t) = h1 {
            metadata.insert("title".into(), t);
        }
    }
    ParsedDocument {
        text: String::new(),
        elements,
        format: "markdown".into(),
        metadata,
        warnings,
        pages: None,
    }
}

/// What an open tag is, as far as elements care.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    List,
    Table,
    Other,
}

impl Open {
    fn of(tag: &Tag<'_>) -> Self {
        match tag {
            Tag::List(_) => Open::List,
            Tag::Table(_) => Open::Table,
            _ => Open::Other,
        }
    }
}

/// A heading's text: whitespace collapsed, a trailing Sphinx permalink mark (`¶`) dropped.
fn clean_heading(raw: &str) -> String {
    let words: Vec<&str> = raw.split_whitespace().collect();
    words.join(" ").trim_end_matches('¶').trim_end().to_string()
}

/// `key: value` lines of YAML front matter at indentation 0, with scalar values (quotes
/// removed); nested structures and lists are skipped.
fn read_front_matter(yaml: &str, metadata: &mut BTreeMap<String, String>) {
    for line in yaml.lines() {
        if line.starts_with([' ', '\t', '-', '#']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        let value = value
            .strip_prefix('"')
            .and_then(|v| v.strip_suffix('"'))
            .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')))
            .unwrap_or(value);
        if !key.is_empty() && !value.is_empty() && !key.contains(' ') {
            metadata.insert(key.to_string(), value.to_string());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(md: &str) -> ParsedDocument {
        parse_markdown(md, &Limits::default())
    }

    fn kinds(doc: &ParsedDocument) -> Vec<(&'static str, &str)> {
        doc.elements
            .iter()
            .map(|e| (e.kind.name(), &doc.text[e.start..e.end]))
            .collect()
    }

    #[test]
    fn blocks_lists_tables_and_setext() {
        let md = "Titel\n=====\n\nIntro *met* nadruk.\n\n- een\n- twee\n  - diep\n\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n> citaat\n\n***\n\n[ref]: https://example.org\n";
        let doc = parse(md);
        assert_eq!(
            kinds(&doc),
            [
                ("heading", "Titel\n====="),
                ("paragraph", "Intro *met* nadruk."),
                ("list_item", "- een"),
                ("list_item", "- twee\n  - diep"),
                ("table", "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |"),
                ("table_row", "| a | b |"),
                ("table_row", "| 1 | 2 |"),
                ("table_row", "| 3 | 4 |"),
                ("other", "> citaat"),
                ("other", "***"),
                ("other", "[ref]: https://example.org"),
            ]
        );
        assert_eq!(doc.elements[0].title(), Some("Titel"));
        assert_eq!(doc.elements[5].kind, ElementKind::TableRow { header: true });
        assert_eq!(
            doc.elements[6].kind,
            ElementKind::TableRow { header: false }
        );
        assert_eq!(doc.metadata["title"], "Titel");
        assert_eq!(doc.elements[4].lines, Some((10, 13)));
    }

    #[test]
    fn front_matter_and_code_languages() {
        let md = "---\ntitle: \"Mijn handboek\"\nauthor: Jan\ntags:\n  - a\n---\n\n```rust ignore\nfn main() {}\n```\n\n    indented\n";
        let doc = parse(md);
        assert_eq!(doc.metadata["title"], "Mijn handboek");
        assert_eq!(doc.metadata["author"], "Jan");
        assert!(!doc.metadata.contains_key("tags"));
        assert_eq!(doc.elements[0].kind, ElementKind::Other);
        assert!(doc.text[doc.elements[0].start..doc.elements[0].end].starts_with("---\ntitle"));
        assert_eq!(doc.elements[1].language(), Some("rust"));
        assert_eq!(doc.elements[2].kind, ElementKind::Code);
        assert_eq!(doc.elements[2].language(), None);
    }

    #[test]
    fn hostile_inputs() {
        let long = "x".repeat(1 << 20);
        let doc = parse(&format!("# {long}\n\n{long}\n"));
        assert_eq!(doc.elements.len(), 2);
        let nested = ">".repeat(10_000) + " deep\n";
        let doc = parse(&nested);
        assert_eq!(doc.elements.len(), 1);
        assert_eq!(doc.warnings.len(), 1, "{:?}", doc.warnings);
        let doc = parse("");
        assert!(doc.elements.is_empty());
        let doc = parse("# \n\n#\n");
        assert!(doc.elements.iter().all(|e| e.start < e.end));
        assert!(MarkdownParser
            .parse(b"ok \xc3", Path::new("x.md"), &Limits::default())
            .is_err());
    }
}
