//! # chunklab-parse
//!
//! The `Parser` seam: a file's bytes → a [`ParsedDocument`] (extracted text plus structural
//! elements, each a span of that text, with page numbers and source lines where the format has
//! them). One format per file in this crate; [`parser_for`] picks a parser by extension and sniffed
//! content.

pub mod code;
pub mod detect;
pub mod markdown;
pub mod rst;
pub(crate) mod support;
pub mod text;

pub(crate) mod blocks;
pub mod docx;
pub mod html;
pub(crate) mod html_lexer;
pub mod image_file;
pub mod ocr;
pub mod odt;
pub(crate) mod office;
pub mod pdf;
pub(crate) mod xml;
pub(crate) mod zip_limits;

pub use chunklab_core::document::{Element, ElementKind, ParsedDocument};
pub use detect::{parser_by_name, parser_for};
use std::path::Path;

/// Why a file could not be parsed. The caller adds the file name.
#[derive(Debug, thiserror::Error)]
pub enum ParseError {
    /// The file is not valid in its format (truncated zip, broken XML, corrupt PDF ...).
    #[error("not a valid {format} file: {message}")]
    Invalid {
        format: &'static str,
        message: String,
    },
    /// The file is encrypted or password protected.
    #[error("{format} is encrypted or password-protected; decrypt it first")]
    Encrypted { format: &'static str },
    /// A limit protecting memory was hit (zip bomb, absurd nesting, huge entry).
    #[error("{what} exceeds the limit of {limit}; refusing to expand it")]
    Limit { what: String, limit: u64 },
    /// Text formats must be UTF-8.
    #[error("not valid UTF-8 at byte {offset}")]
    NotUtf8 { offset: usize },
    /// OCR was required (`--ocr always`, an image file) but could not run or read the image.
    #[error("{}", ParseError::ocr(.0, ocr::OCR_NEVER))]
    Ocr(ocr::OcrError),
}

impl ParseError {
    /// The message, with the setting that turns OCR off written as `never` (see
    /// [`ocr::OcrError::spelled`]).
    pub fn spelled(&self, never: &str) -> String {
        match self {
            ParseError::Ocr(e) => Self::ocr(e, never),
            other => other.to_string(),
        }
    }

    fn ocr(e: &ocr::OcrError, never: &str) -> String {
        format!("OCR: {}", e.spelled(never))
    }
}

/// Limits that keep hostile input from exhausting memory.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Total bytes a container (DOCX/ODT zip) may expand to.
    pub max_decompressed_bytes: u64,
    /// Entries a zip may have.
    pub max_zip_entries: usize,
    /// Nesting depth of markup that is followed (deeper content is still extracted as text).
    pub max_depth: usize,
    /// Elements (paragraphs, headings, table cells …) one container document (DOCX, ODT) may
    /// hold: the bound on parse memory, since each element costs ~150 bytes beside its text (a
    /// 1.5 MB DOCX can unpack to 500 MB of empty paragraphs). More is a [`ParseError::Limit`].
    pub max_elements: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_decompressed_bytes: 512 << 20,
            max_zip_entries: 10_000,
            max_depth: 256,
            max_elements: 2_000_000,
        }
    }
}

/// A parser for one format.
pub trait Parser: Send + Sync {
    /// Format name (`markdown`, `html`, `pdf`, ...).
    fn name(&self) -> &'static str;
    /// Parse a whole file.
    fn parse(
        &self,
        bytes: &[u8],
        path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError>;
    /// [`Parser::parse`] of a file already read into a `String`: the same document. The text
    /// formats (Markdown, reStructuredText, plain text) make the string the document's text
    /// instead of checking and copying it again; the others parse its bytes.
    fn parse_string(
        &self,
        text: String,
        path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        self.parse(text.as_bytes(), path, limits)
    }
}
