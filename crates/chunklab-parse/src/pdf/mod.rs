//! PDF: the text layer with page numbers, in a sane reading order, rebuilt into paragraphs,
//! headings (by font size and weight), list items, code, tables and running headers/footers.
//!
//! lopdf reads the file (xref, objects, decryption with the empty user password); everything
//! from the content stream on is ours: `lexer` tokenizes content streams, `content` runs the
//! text operators and positions every glyph using the fonts' encodings, ToUnicode maps and widths
//! (`font`); `layout` groups the glyphs into lines and orders them (text columns are read one
//! after the other); `structure` builds paragraphs, list items, code and headings, with `table`
//! and `running` (headers/footers) as helpers. Running headers and footers are kept out of the
//! text; they are listed in the `page_headers` and `page_footers` metadata entries, one
//! `page: text` line per page. Pages without any text operator are reported in
//! [`ParsedDocument::warnings`]; [`PdfOcrParser`] OCRs them instead (and pages whose text layer
//! is garbage), see [`crate::ocr`].
//!
//! Damaged files: when the cross-reference table or trailer cannot be read, or objects it lists
//! cannot be, `repair` rebuilds the table by scanning the file for objects; every object, page,
//! content stream or form that still fails is a warning naming it and the reason. A file
//! larger than [`Limits::max_decompressed_bytes`], or whose decoded page content would be, is a
//! [`ParseError::Limit`]; an encrypted file that needs a password is [`ParseError::Encrypted`].
//!
//! ```no_run
//! use chunklab_parse::{pdf::PdfParser, Limits, Parser};
//! let bytes = std::fs::read("besluit.pdf").unwrap();
//! let doc = PdfParser.parse(&bytes, "besluit.pdf".as_ref(), &Limits::default()).unwrap();
//! for e in &doc.elements {
//!     println!("p{:?} {:?}: {}", e.page, e.kind, &doc.text[e.start..e.end]);
//! }
//! ```

mod content;
mod encoding;
mod font;
mod glyph_names;
pub(crate) mod layout;
mod lexer;
mod metrics;
mod repair;
mod running;
mod stream;
mod structure;
mod table;

use crate::ocr::OcrOptions;
use crate::{Limits, ParseError, Parser};
use chunklab_core::document::ParsedDocument;
use content::{page_glyphs, Budget, FontCache};
use layout::PageLines;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

/// Pages read at most (a page tree with a cycle must not loop forever).
const MAX_PAGES: usize = 100_000;

/// The PDF parser. Stateless; see the module docs for what it recovers.
#[derive(Debug, Clone, Copy, Default)]
pub struct PdfParser;

impl Parser for PdfParser {
    fn name(&self) -> &'static str {
        "pdf"
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        guarded(|| parse_pdf(bytes, limits, None))
    }
}

/// The PDF parser with OCR: pages without a usable text layer (`auto`) or every page (`always`)
/// are recognised from their images; see [`crate::ocr`].
#[derive(Debug, Clone, Default)]
pub struct PdfOcrParser {
    /// Mode, languages, thresholds.
    pub ocr: OcrOptions,
}

impl Parser for PdfOcrParser {
    fn name(&self) -> &'static str {
        "pdf"
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        guarded(|| parse_pdf(bytes, limits, Some(&self.ocr)))
    }
}

/// lopdf is not panic-free on hostile input; a panic becomes an Invalid error.
fn guarded(
    f: impl FnOnce() -> Result<ParsedDocument, ParseError>,
) -> Result<ParsedDocument, ParseError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|_| {
        Err(invalid(
            "the PDF reader failed on malformed data (internal panic caught)",
        ))
    })
}

fn invalid(message: impl Into<String>) -> ParseError {
    ParseError::Invalid {
        format: "pdf",
        message: message.into(),
    }
}

fn parse_pdf(
    bytes: &[u8],
    limits: &Limits,
    ocr: Option<&OcrOptions>,
) -> Result<ParsedDocument, ParseError> {
    let head = &bytes[..bytes.len().min(1024)];
    if !head.windows(5).any(|w| w == b"%PDF-") {
        return Err(invalid(if bytes.is_empty() {
            "the file is empty".to_string()
        } else {
            "no %PDF- header".to_string()
        }));
    }
    if bytes.len() as u64 > limits.max_decompressed_bytes {
        return Err(ParseError::Limit {
            what: format!("PDF of {} bytes", bytes.len()),
            limit: limits.max_decompressed_bytes,
        });
    }
    let loaded = repair::load(bytes).map_err(|e| match e {
        lopdf::Error::InvalidPassword | lopdf::Error::Decryption(_) => {
            ParseError::Encrypted { format: "pdf" }
        }
        e => invalid(e.to_string()),
    })?;
    let doc = loaded.doc;
    let mut warnings = loaded.warnings;
    // lopdf removes /Encrypt after decrypting with the empty user password; still there means a
    // real password is needed.
    if doc.trailer.get(b"Encrypt").is_ok() {
        return Err(ParseError::Encrypted { format: "pdf" });
    }
    let page_ids: Vec<_> = doc.page_iter().take(MAX_PAGES).collect();
    if page_ids.is_empty() {
        return Err(invalid(if warnings.is_empty() {
            "the document has no pages".to_string()
        } else {
            format!("no page could be read ({})", warnings.join("; "))
        }));
    }
    if let Some(listed) = listed_pages(&doc).filter(|&n| n > page_ids.len()) {
        warnings.push(format!(
            "the page tree lists {listed} pages but only {} could be read; the others are lost",
            page_ids.len()
        ));
    }
    let mut fonts = FontCache::default();
    let mut budget = Budget {
        bytes_left: usize::try_from(limits.max_decompressed_bytes).unwrap_or(usize::MAX),
        exhausted: false,
    };
    let mut pages = Vec::with_capacity(page_ids.len());
    let mut facts = Vec::with_capacity(page_ids.len());
    let mut empty_pages = Vec::new();
    for (i, &id) in page_ids.iter().enumerate() {
        let no = i as u32 + 1;
        let glyphs = page_glyphs(&doc, id, &mut fonts, &mut budget);
        if budget.exhausted {
            return Err(ParseError::Limit {
                what: format!("decoded page content (reached on page {no})"),
                limit: limits.max_decompressed_bytes,
            });
        }
        let mut problems = glyphs.problems.clone();
        problems.dedup();
        for p in &problems {
            warnings.push(format!("page {no}: {p}"));
        }
        let (segs, rotated) = layout::segments(&glyphs);
        let mut undecodable = false;
        if segs.is_empty() && rotated.is_empty() && problems.is_empty() {
            if glyphs.text_ops == 0 {
                empty_pages.push(no);
            } else {
                undecodable = true;
                warnings.push(format!(
                    "page {no}: text is drawn but none of it could be decoded (fonts without a \
                     usable encoding)"
                ));
            }
        }
        let lines = layout::lines(segs);
        facts.push(crate::ocr::pdf::PageFacts {
            id,
            width: glyphs.width,
            height: glyphs.height,
            text: lines
                .iter()
                .map(|l| l.text(" "))
                .collect::<Vec<_>>()
                .join("\n"),
            undecodable,
        });
        pages.push(PageLines {
            lines,
            rotated,
            height: glyphs.height,
        });
    }
    let mut metadata = info_metadata(&doc);
    let suffix = match ocr {
        Some(opts) => {
            let done = crate::ocr::pdf::ocr_pages(
                &doc,
                bytes,
                &facts,
                &mut pages,
                opts,
                &mut warnings,
                &mut metadata,
            )?;
            empty_pages.retain(|p| !done.recognised.contains(p));
            done.empty_note
        }
        None => "scanned? OCR not enabled".to_string(),
    };
    if let Some(w) = empty_pages_warning(&empty_pages, &suffix) {
        warnings.insert(0, w);
    }
    Ok(assemble(pages, metadata, warnings, "pdf"))
}

/// The document from its pages' lines: structure, title, running headers and footers.
pub(crate) fn assemble(
    pages: Vec<PageLines>,
    mut metadata: std::collections::BTreeMap<String, String>,
    warnings: Vec<String>,
    format: &str,
) -> ParsedDocument {
    let page_count = pages.len() as u32;
    let built = structure::build(pages);
    // The title as printed on the first page beats /Info (often "Microsoft Word - x.docx").
    if let Some(t) = built.title {
        metadata.insert("title".into(), t);
    }
    for (key, lines) in [
        ("page_headers", &built.headers),
        ("page_footers", &built.footers),
    ] {
        if !lines.is_empty() {
            let list: Vec<String> = lines.iter().map(|(p, t)| format!("{p}: {t}")).collect();
            metadata.insert(key.into(), list.join("\n"));
        }
    }
    let mut elements = built.elements;
    elements.sort_by(|a, b| a.start.cmp(&b.start).then(b.end.cmp(&a.end)));
    ParsedDocument {
        text: built.text,
        elements,
        format: format.into(),
        metadata,
        warnings,
        pages: Some(page_count),
    }
}

/// The page count the page tree's root claims (`/Count`), if readable.
fn listed_pages(doc: &lopdf::Document) -> Option<usize> {
    let root = font::deref(doc, doc.trailer.get(b"Root").ok()).and_then(font::as_dict)?;
    let pages = font::deref(doc, root.get(b"Pages").ok()).and_then(font::as_dict)?;
    let count = font::deref(doc, pages.get(b"Count").ok()).and_then(font::as_number)?;
    (count >= 0.0 && count <= MAX_PAGES as f64).then_some(count as usize)
}

/// "no text on pages 3–7, 9: scanned? OCR not enabled" (consecutive pages merged into ranges;
/// `note` after the colon).
fn empty_pages_warning(pages: &[u32], note: &str) -> Option<String> {
    if pages.is_empty() {
        return None;
    }
    let noun = if pages.len() == 1 { "page" } else { "pages" };
    Some(format!(
        "no text on {noun} {}: {note}",
        crate::ocr::page_ranges(pages)
    ))
}

/// Title, author, subject, creator and producer from the /Info dictionary.
fn info_metadata(doc: &lopdf::Document) -> std::collections::BTreeMap<String, String> {
    let mut out = std::collections::BTreeMap::new();
    let info = font::deref(doc, doc.trailer.get(b"Info").ok()).and_then(font::as_dict);
    let Some(info) = info else {
        return out;
    };
    for (key, name) in [
        (&b"Title"[..], "title"),
        (b"Author", "author"),
        (b"Subject", "subject"),
        (b"Creator", "creator"),
        (b"Producer", "producer"),
    ] {
        if let Some(obj) = font::deref(doc, info.get(key).ok()) {
            if let Ok(s) = lopdf::decode_text_string(obj) {
                let s = s.trim().to_string();
                if !s.is_empty() {
                    out.insert(name.to_string(), s);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_page_ranges() {
        let note = "scanned? OCR not enabled";
        assert_eq!(empty_pages_warning(&[], note), None);
        assert_eq!(
            empty_pages_warning(&[3], note).unwrap(),
            "no text on page 3: scanned? OCR not enabled"
        );
        assert_eq!(
            empty_pages_warning(&[3, 4, 5, 6, 7, 9], note).unwrap(),
            "no text on pages 3–7, 9: scanned? OCR not enabled"
        );
    }
}
