//! Choosing a parser for a file: by magic bytes for the binary formats (a PDF or an OpenDocument
//! file is recognized whatever it is called), then by extension, then by sniffing the text
//! (`<!DOCTYPE html`, `<html`), and plain text otherwise. [`parser_by_name`] serves an explicit
//! override (`chunklab chunk --parser NAME`).

use crate::code::{CodeLanguage, CodeParser};
use crate::docx::DocxParser;
use crate::html::HtmlParser;
use crate::image_file::ImageParser;
use crate::markdown::MarkdownParser;
use crate::odt::OdtParser;
use crate::pdf::PdfParser;
use crate::rst::RstParser;
use crate::text::TextParser;
use crate::Parser;
use std::path::Path;

/// How many leading bytes [`parser_for`] looks at; pass at least this many when the file is
/// longer.
pub const SNIFF_BYTES: usize = 8192;

/// Parser names [`parser_by_name`] knows (besides `code:<language>` and the language names).
pub const PARSER_NAMES: [&str; 9] = [
    "text", "markdown", "rst", "html", "pdf", "docx", "odt", "code", "image",
];

/// The parser for a file at `path` whose first bytes are `head` (up to [`SNIFF_BYTES`]).
///
/// ```
/// use chunklab_parse::detect::parser_for;
/// use std::path::Path;
/// assert_eq!(parser_for(Path::new("handboek.md"), b"# Handboek").name(), "markdown");
/// assert_eq!(parser_for(Path::new("besluit"), b"%PDF-1.7\n").name(), "pdf");
/// assert_eq!(parser_for(Path::new("page.txt"), b"<!doctype html><p>x").name(), "text");
/// assert_eq!(parser_for(Path::new("-"), b"  <!DOCTYPE html><p>x").name(), "html");
/// assert_eq!(parser_for(Path::new("lib.rs"), b"fn main() {}").name(), "code");
/// assert_eq!(parser_for(Path::new("notes"), b"Hoofdstuk 1").name(), "text");
/// ```
pub fn parser_for(path: &Path, head: &[u8]) -> Box<dyn Parser> {
    let name = format_for(path, head);
    parser_by_name(name).unwrap_or_else(|| Box::new(TextParser))
}

/// The parser name [`parser_for`] picks (one of [`PARSER_NAMES`]).
pub fn format_for(path: &Path, head: &[u8]) -> &'static str {
    if let Some(binary) = sniff_binary(head) {
        return binary;
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" | "mdown" | "mkd" | "mkdn" | "mdx" => return "markdown",
        "txt" | "text" => return "text",
        "rst" | "rest" => return "rst",
        "html" | "htm" | "xhtml" => return "html",
        "pdf" => return "pdf",
        "docx" => return "docx",
        "odt" => return "odt",
        "png" | "jpg" | "jpeg" | "tif" | "tiff" => return "image",
        _ => {}
    }
    if CodeLanguage::from_extension(&ext).is_some() {
        return "code";
    }
    if looks_like_html(head) {
        return "html";
    }
    "text"
}

/// A parser by name: one of [`PARSER_NAMES`] (or `md`, `txt`, `htm`, `restructuredtext`), a
/// programming language (`rust`, `python`, `js` ...) or `code:<language>`.
///
/// ```
/// use chunklab_parse::detect::parser_by_name;
/// assert_eq!(parser_by_name("md").unwrap().name(), "markdown");
/// assert_eq!(parser_by_name("code:python").unwrap().name(), "code");
/// assert!(parser_by_name("docbook").is_none());
/// ```
pub fn parser_by_name(name: &str) -> Option<Box<dyn Parser>> {
    let lower = name.trim().to_ascii_lowercase();
    Some(match lower.as_str() {
        "text" | "txt" | "plain" => Box::new(TextParser),
        "markdown" | "md" => Box::new(MarkdownParser),
        "rst" | "rest" | "restructuredtext" => Box::new(RstParser),
        "html" | "htm" => Box::new(HtmlParser),
        "pdf" => Box::new(PdfParser),
        "docx" => Box::new(DocxParser),
        "odt" => Box::new(OdtParser),
        "code" => Box::new(CodeParser::new()),
        "image" | "png" | "jpeg" | "jpg" | "tiff" | "tif" => Box::new(ImageParser::default()),
        other => {
            let lang = other.strip_prefix("code:").unwrap_or(other);
            Box::new(CodeParser::for_language(CodeLanguage::from_name(lang)?))
        }
    })
}

/// Whether a parser reads raw bytes (PDF, DOCX, ODT, images) rather than text: callers must not
/// decode, re-encode or reject such files as binary.
pub fn is_binary_format(name: &str) -> bool {
    matches!(name, "pdf" | "docx" | "odt" | "image")
}

/// [`parser_by_name`], with `ocr` for the parsers that OCR (PDF, images).
pub fn parser_with_ocr(name: &str, ocr: &crate::ocr::OcrOptions) -> Option<Box<dyn Parser>> {
    match parser_by_name(name)?.name() {
        "pdf" => Some(Box::new(crate::pdf::PdfOcrParser { ocr: ocr.clone() })),
        "image" => Some(Box::new(ImageParser { ocr: ocr.clone() })),
        _ => parser_by_name(name),
    }
}

/// PDF (`%PDF-` within the first 1024 bytes, as readers accept it) and zip containers that are
/// OpenDocument text (`mimetype` entry first) or Word (`word/` entries).
fn sniff_binary(head: &[u8]) -> Option<&'static str> {
    static PDF: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"%PDF-"));
    if PDF.find(&head[..head.len().min(1024)]).is_some() {
        return Some("pdf");
    }
    if crate::ocr::raster::sniff(head).is_some() {
        return Some("image");
    }
    if head.starts_with(b"PK\x03\x04") {
        if find(head, b"mimetypeapplication/vnd.oasis.opendocument.text").is_some() {
            return Some("odt");
        }
        if find(head, b"word/").is_some() {
            return Some("docx");
        }
    }
    None
}

fn looks_like_html(head: &[u8]) -> bool {
    let head = head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(head);
    let start = head
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(head.len());
    let lead: Vec<u8> = head[start..head.len().min(start + 64)]
        .iter()
        .map(u8::to_ascii_lowercase)
        .collect();
    lead.starts_with(b"<!doctype html") || lead.starts_with(b"<html")
}

/// The first position of `needle` (not empty) in `hay`: every file `chunklab chunk` reads is
/// sniffed, so the search is memchr's (vectorized) rather than a byte loop.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn find_is_the_first_window_that_matches() {
        let hay = b"xx%PD%PDF-1.7 %PDF-";
        for needle in [&b"%PDF-"[..], b"%", b"x", b"-", b"%PDF-1.8", b"zz"] {
            let naive = hay.windows(needle.len()).position(|w| w == needle);
            assert_eq!(find(hay, needle), naive, "{needle:?}");
        }
        assert_eq!(find(b"", b"%PDF-"), None);
        assert_eq!(find(b"%PD", b"%PDF-"), None);
    }

    #[test]
    fn extensions_and_magic() {
        let cases: [(&str, &[u8], &str); 12] = [
            ("scan.TIF", b"x", "image"),
            ("photo", b"\xFF\xD8\xFF\xE0", "image"),
            ("a.markdown", b"x", "markdown"),
            ("a.RST", b"x", "rst"),
            ("a.htm", b"x", "html"),
            ("a.docx", b"PK\x03\x04", "docx"),
            ("a.bin", b"PK\x03\x04....word/document.xml", "docx"),
            (
                "a",
                b"PK\x03\x04\x14\0mimetypeapplication/vnd.oasis.opendocument.text",
                "odt",
            ),
            ("a.md", b"%PDF-1.4", "pdf"),
            ("main.go", b"package main", "code"),
            ("README", b"", "text"),
            ("page", b"\xEF\xBB\xBF\n<HTML>", "html"),
        ];
        for (path, head, want) in cases {
            assert_eq!(format_for(Path::new(path), head), want, "{path}");
            assert_eq!(parser_for(Path::new(path), head).name(), want, "{path}");
        }
        for name in PARSER_NAMES {
            assert_eq!(parser_by_name(name).unwrap().name(), name);
        }
        assert!(is_binary_format("pdf") && !is_binary_format("markdown"));
    }
}
