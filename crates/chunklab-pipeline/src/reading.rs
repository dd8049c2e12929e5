//! Reading and parsing one input: bytes → decoded text (text formats) → parser chosen by name,
//! extension and content → [`ParsedDocument`]. The lab reads its corpora through [`parse`] too.

use crate::input::{self, Decoding, Input, Raw, Skip, Text};
use crate::ReadingConfig;
use anyhow::Result;
use chunklab_core::document::ParsedDocument;
use chunklab_parse::detect::{
    format_for, is_binary_format, parser_by_name, parser_with_ocr, SNIFF_BYTES,
};
use chunklab_parse::ocr::OcrOptions;
use chunklab_parse::{Limits, ParseError, Parser};
use std::path::Path;

/// How inputs are read: decoding of text formats, parser override, parser limits.
pub struct Reading {
    /// Encoding and lossy decoding of text formats.
    pub decoding: Decoding,
    /// `--parser`: one parser for every input.
    pub parser: Option<String>,
    /// Bounds on decompressed size, zip entries and nesting.
    pub limits: Limits,
    /// OCR of scanned PDF pages and image files.
    pub ocr: OcrOptions,
}

impl Reading {
    /// Check `cfg` and build the reading it describes.
    pub fn new(cfg: &ReadingConfig) -> Result<Reading> {
        if let Some(name) = &cfg.parser {
            if parser_by_name(name).is_none() {
                return Err(chunklab_core::Error::Param {
                    param: "parser",
                    message: format!(
                        "`{name}` is unknown; known: {}, or a language (rust, python, javascript, typescript, go, java)",
                        chunklab_parse::detect::PARSER_NAMES.join(", ")
                    ),
                }
                .into());
            }
        }
        if let Err((key, message)) = cfg.ocr.validate() {
            let param = match key {
                "mode" => "ocr",
                "lang" => "ocr_lang",
                "min_confidence" => "ocr_min_confidence",
                "timeout" => "ocr_timeout",
                "dpi" => "ocr_dpi",
                _ => "ocr_preprocess",
            };
            return Err(chunklab_core::Error::Param { param, message }.into());
        }
        let mut limits = Limits::default();
        if let Some(n) = cfg.max_elements {
            if n == 0 {
                return Err(chunklab_core::Error::Param {
                    param: "max_elements",
                    message: "must be at least 1".into(),
                }
                .into());
            }
            limits.max_elements = n;
        }
        if let Some(mb) = cfg.max_expanded_mb {
            if mb == 0 || mb > 1 << 20 {
                return Err(chunklab_core::Error::Param {
                    param: "max_expanded_mb",
                    message: format!("{mb} is out of range: give 1 to 1048576 (megabytes)"),
                }
                .into());
            }
            limits.max_decompressed_bytes = mb << 20;
        }
        Ok(Reading {
            decoding: Decoding::new(cfg.encoding.as_deref(), cfg.lossy)?,
            parser: cfg.parser.clone(),
            limits,
            ocr: cfg.ocr.clone(),
        })
    }
}

/// An input ready to chunk: parsed, or (a big text file for a strategy that does not need
/// structure) its text as is, so memory stays bounded by the file map.
pub enum Prepared {
    /// The parsed document and the parser's warnings.
    Parsed(ParsedDocument, Vec<String>),
    /// The text, unparsed.
    Plain(Text),
}

impl Prepared {
    /// The text every offset refers to.
    pub fn text(&self) -> &str {
        match self {
            Prepared::Parsed(doc, _) => &doc.text,
            Prepared::Plain(t) => t.as_str(),
        }
    }

    /// The document's title: its `title` metadata, or `fallback` (the document id).
    pub fn title<'a>(&'a self, fallback: &'a str) -> &'a str {
        match self {
            Prepared::Parsed(doc, _) => doc
                .metadata
                .get("title")
                .map(String::as_str)
                .filter(|t| !t.trim().is_empty())
                .unwrap_or(fallback),
            Prepared::Plain(_) => fallback,
        }
    }

    /// The parser's warnings.
    pub fn warnings(&self) -> &[String] {
        match self {
            Prepared::Parsed(_, w) => w,
            Prepared::Plain(_) => &[],
        }
    }
}

/// Parse `bytes` (the file at `path`) with the parser `parser` names, or the one its extension
/// and first bytes call for; scanned PDF pages and images are OCR'd with the default
/// [`OcrOptions`] (`auto`, `nld+eng`).
pub fn parse(
    path: &Path,
    bytes: &[u8],
    parser: Option<&str>,
    limits: &Limits,
) -> Result<ParsedDocument, ParseError> {
    parse_with_ocr(path, bytes, parser, limits, &OcrOptions::default())
}

/// [`parse`] with explicit OCR options.
pub fn parse_with_ocr(
    path: &Path,
    bytes: &[u8],
    parser: Option<&str>,
    limits: &Limits,
    ocr: &OcrOptions,
) -> Result<ParsedDocument, ParseError> {
    chooser(path, bytes, parser, ocr).parse(bytes, path, limits)
}

impl crate::Pipeline {
    /// [`parse`] of `text` (the file at `path`) for this pipeline (its `parser`, default OCR
    /// options), with plain text parsed only as far as the strategy reads it: when the chunker
    /// reads only locations ([`chunklab_core::Chunker::reads_only_locations`]) and no context
    /// stage needs the title, a text document is
    /// [`TextParser::parse_flat_string`](chunklab_parse::text::TextParser::parse_flat_string)'d
    /// (same chunks, no heading or list detection, the text not copied).
    pub fn parse_text(&self, path: &Path, text: String) -> Result<ParsedDocument, ParseError> {
        let bytes = text.as_bytes();
        let flat = self.chunker.reads_only_locations() && self.context.is_none();
        // Sniffed plain text takes the flat path without building a parser (per-call cost of
        // the Python `chunk` on short strings).
        let name = self
            .reading
            .parser
            .as_deref()
            .unwrap_or_else(|| format_for(path, &bytes[..bytes.len().min(SNIFF_BYTES)]));
        if flat && name == "text" {
            return Ok(chunklab_parse::text::TextParser.parse_flat_string(text));
        }
        let parser = chooser(path, bytes, Some(name), &OcrOptions::default());
        if flat && parser.name() == "text" {
            return Ok(chunklab_parse::text::TextParser.parse_flat_string(text));
        }
        parser.parse_string(text, path, &self.reading.limits)
    }
}

fn chooser(path: &Path, bytes: &[u8], parser: Option<&str>, ocr: &OcrOptions) -> Box<dyn Parser> {
    let name = parser.unwrap_or_else(|| format_for(path, &bytes[..bytes.len().min(SNIFF_BYTES)]));
    parser_with_ocr(name, ocr).unwrap_or_else(|| Box::new(chunklab_parse::text::TextParser))
}

/// Read an input and parse it. Text formats are decoded first (encodings, lossy, binary
/// detection); PDF, DOCX and ODT get the raw bytes. A `big` text file is not parsed unless
/// `needs_structure`.
pub fn prepare(
    input: &Input,
    needs_structure: bool,
    how: &Reading,
    big: bool,
) -> Result<Prepared, Skip> {
    prepare_with(input, needs_structure, how, big, false)
}

/// [`prepare`]; with `flat`, a plain-text input is parsed only for its pages and source lines
/// ([`TextParser::parse_flat`](chunklab_parse::text::TextParser::parse_flat): no heading or
/// list detection), for a chunker that reads only locations.
pub(crate) fn prepare_with(
    input: &Input,
    needs_structure: bool,
    how: &Reading,
    big: bool,
    flat: bool,
) -> Result<Prepared, Skip> {
    match read_text(input, how)? {
        Read::Prepared(p) => Ok(p),
        Read::Text(text, parser) => {
            prepare_text(input, text, parser, how, needs_structure, big, flat)
        }
    }
}

/// An input read: parsed already (binary formats), or decoded text and the parser it calls
/// for.
pub(crate) enum Read {
    Prepared(Prepared),
    Text(Text, Box<dyn Parser>),
}

/// Read an input; binary formats (PDF, DOCX, ODT) are parsed from their raw bytes, text
/// formats decoded (encodings, lossy, binary detection).
pub(crate) fn read_text(input: &Input, how: &Reading) -> Result<Read, Skip> {
    read_text_from(input, input::read(input)?, how)
}

/// [`read_text`] of an input whose bytes were read already ([`input::read`]).
pub(crate) fn read_text_from(input: &Input, raw: Raw, how: &Reading) -> Result<Read, Skip> {
    let name = input.source();
    let bytes = raw.bytes();
    let parser = chooser(input.path(), bytes, how.parser.as_deref(), &how.ocr);
    if is_binary_format(parser.name()) {
        let mut doc = parser
            .parse(bytes, input.path(), &how.limits)
            .map_err(|e| input::parse_failure(&name, e))?;
        let warnings = std::mem::take(&mut doc.warnings);
        return Ok(Read::Prepared(Prepared::Parsed(doc, warnings)));
    }
    Ok(Read::Text(
        input::decode(&name, raw, &how.decoding)?,
        parser,
    ))
}

/// [`prepare_with`] of decoded text.
pub(crate) fn prepare_text(
    input: &Input,
    text: Text,
    parser: Box<dyn Parser>,
    how: &Reading,
    needs_structure: bool,
    big: bool,
    flat: bool,
) -> Result<Prepared, Skip> {
    let name = input.source();
    if big && !needs_structure {
        return Ok(Prepared::Plain(text));
    }
    let flat = flat && parser.name() == "text";
    // Text read into memory becomes the document's text; a mapped file's is copied.
    let doc = match text {
        Text::Owned(s) if flat => Ok(chunklab_parse::text::TextParser.parse_flat_string(s)),
        Text::Owned(s) => parser.parse_string(s, input.path(), &how.limits),
        Text::Mapped(..) if flat => {
            chunklab_parse::text::TextParser.parse_flat(text.as_str().as_bytes())
        }
        Text::Mapped(..) => parser.parse(text.as_str().as_bytes(), input.path(), &how.limits),
    };
    let mut doc = doc.map_err(|e| input::parse_failure(&name, e))?;
    let warnings = std::mem::take(&mut doc.warnings);
    Ok(Prepared::Parsed(doc, warnings))
}
