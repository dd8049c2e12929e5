//! `chunklab.parse(path)`: the element tree a parser makes of one file, through the pipeline's
//! reading stage (the same parser choice, decoding and limits as `chunklab parse`).

use crate::chunker::check_exists;
use crate::convert::json_to_py;
use crate::errors::{pipeline_error, read_error, ParseError};
use chunklab_core::document::ParsedDocument;
use chunklab_pipeline::{prepare, Input, Prepared, Reading, ReadingConfig, Skip};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use serde_json::Value;
use std::path::PathBuf;

/// A parsed document: its extracted `text` (every offset refers to it), `format`, `metadata`
/// (title, front matter ...), `pages`, parser `warnings`, and `elements` (dicts with `kind`,
/// `start`/`end` in bytes, `start_char`/`end_char`, `page`, `lines`, `level`, `symbol`, `text`).
#[pyclass(module = "chunklab", frozen, name = "Document")]
pub struct Document {
    source: String,
    doc: ParsedDocument,
}

#[pymethods]
impl Document {
    /// The path as given.
    #[getter]
    fn source(&self) -> &str {
        &self.source
    }
    /// The extracted text.
    #[getter]
    fn text(&self) -> &str {
        &self.doc.text
    }
    /// The format (`markdown`, `html`, `pdf`, `docx`, `odt`, `text`, `rst`, `code:rust`, ...).
    #[getter]
    fn format(&self) -> &str {
        &self.doc.format
    }
    /// Number of pages, for formats with pages.
    #[getter]
    fn pages(&self) -> Option<u32> {
        self.doc.pages
    }
    /// Title, front matter fields, author ... as strings.
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.doc.metadata {
            d.set_item(k, v)?;
        }
        Ok(d)
    }
    /// Non-fatal problems the parser met (pages without text, skipped parts).
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.doc.warnings.clone()
    }
    /// The elements in document order, as dicts.
    #[getter]
    fn elements<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let text = &self.doc.text;
        let out = PyList::empty(py);
        // Char offsets walk the text once.
        let mut at_byte = 0usize;
        let mut at_char = 0usize;
        let mut char_of = |b: usize| {
            if b < at_byte {
                at_byte = 0;
                at_char = 0;
            }
            at_char += text[at_byte..b].chars().count();
            at_byte = b;
            at_char
        };
        for e in &self.doc.elements {
            let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut v {
                // `kind`, as chunks name it, for the parser's `type` tag.
                let mut with_kind = serde_json::Map::new();
                with_kind.insert("kind".into(), e.kind.name().into());
                m.remove("type");
                with_kind.append(m);
                *m = with_kind;
                m.insert("start_char".into(), char_of(e.start).into());
                m.insert("end_char".into(), char_of(e.end).into());
                m.insert("text".into(), text[e.start..e.end].into());
            }
            out.append(json_to_py(py, &v)?)?;
        }
        Ok(out)
    }
    /// The parsed document as one dict (what `chunklab parse -f json --full-text` shows, with
    /// whole element texts).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("source", &self.source)?;
        d.set_item("format", &self.doc.format)?;
        d.set_item("pages", self.doc.pages)?;
        d.set_item("metadata", self.metadata(py)?)?;
        d.set_item("warnings", self.warnings())?;
        d.set_item("text", &self.doc.text)?;
        d.set_item("elements", self.elements(py)?)?;
        Ok(d)
    }
    fn __repr__(&self) -> String {
        format!(
            "Document({:?}, format={:?}, {} elements, {} chars{})",
            self.source,
            self.doc.format,
            self.doc.elements.len(),
            self.doc.text.chars().count(),
            self.doc
                .pages
                .map(|p| format!(", {p} pages"))
                .unwrap_or_default()
        )
    }
}

/// Parse one file into its elements, as ``chunklab parse`` does.
///
/// Returns a :class:`Document` with ``text`` (all offsets refer to it), ``format``,
/// ``metadata``, ``pages``, ``warnings`` and ``elements``: dicts with ``kind``,
/// ``start``/``end`` (UTF-8 bytes), ``start_char``/``end_char``, ``page``, ``lines``, ``level``
/// (headings), ``symbol`` (code) and ``text``.
///
/// The keywords are ``chunklab parse``'s reading flags: ``parser`` forces a parser (text,
/// markdown, rst, html, pdf, docx, odt, code or a language); ``encoding`` decodes text files
/// from another encoding; ``lossy`` replaces invalid bytes. ``ocr`` ("auto": scanned pages and
/// images, "always", "never"), ``ocr_lang`` ("nld+eng"), ``ocr_min_confidence`` (0-100),
/// ``ocr_timeout`` (seconds a page) and ``ocr_preprocess`` ("dpi,deskew,osd"); ``max_elements``
/// and ``max_expanded_mb`` bound DOCX and ODT containers. ``None`` keeps the default.
/// Raises ``OSError`` for a missing file, :class:`ParseError` for a file that cannot be parsed
/// and :class:`ConfigError` for a bad value.
#[pyfunction]
#[pyo3(signature = (path, **kwargs))]
pub fn parse(
    py: Python<'_>,
    path: PathBuf,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Document> {
    let pairs = crate::config::pairs(kwargs)?;
    if let Some((key, _)) = pairs
        .iter()
        .find(|(k, _)| !chunklab_pipeline::flat::DOCUMENT_READING_KEYS.contains(&k.as_str()))
    {
        return Err(PyTypeError::new_err(format!(
            "parse() got an unexpected keyword argument `{key}`; it takes: {}",
            chunklab_pipeline::flat::DOCUMENT_READING_KEYS.join(", ")
        )));
    }
    let config: ReadingConfig = crate::config::from_pairs(pairs)?.reading;
    check_exists(&path)?;
    let reading = Reading::new(&config).map_err(pipeline_error)?;
    let input = Input::file(&path);
    let source = input.source();
    let prepared = py.detach(|| prepare(&input, true, &reading, false));
    match prepared {
        Ok(Prepared::Parsed(mut doc, warnings)) => {
            doc.warnings = warnings;
            Ok(Document { source, doc })
        }
        Ok(Prepared::Plain(_)) => Err(ParseError::new_err(format!("{source}: was not parsed"))),
        Err(Skip::Binary) => Err(ParseError::new_err(format!(
            "{source}: binary file, and no parser for it"
        ))),
        Err(Skip::Error(e)) => Err(read_error(e)),
    }
}
