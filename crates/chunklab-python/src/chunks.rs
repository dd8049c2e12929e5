//! `chunklab.Chunk`: one chunk as a light Python object. A document's text, source and chunk
//! ids are shared by all of its chunks (one `Arc`); a chunk holds only offsets and metadata, and
//! its `text` is sliced out of the document when asked for (its `id` too, where the chunks were
//! made without ids: see [`Ids`]). Field names are the JSONL fields of `chunklab chunk`.

use chunklab_core::text::CharCursor;
use chunklab_core::{chunk_id_for, Chunk as CoreChunk, ChunkMeta, Span};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use std::borrow::Cow;
use std::sync::Arc;

/// What the chunks of one document share.
pub struct DocData {
    /// The text every offset refers to.
    pub text: String,
    /// The document id (`doc_id`).
    pub doc_id: String,
    /// The display name (`source`).
    pub source: String,
    /// The size unit's name.
    pub unit: Arc<str>,
    /// Chunk ids, in chunk order (neighbours for LlamaIndex's PREVIOUS/NEXT).
    pub ids: Ids,
    /// The Python string the chunks were made from, where `text` is exactly that string:
    /// chunk texts are then its slices by char offsets (`PyUnicode_Substring`, no UTF-8
    /// decoding).
    pub py_text: Option<Py<PyString>>,
}

/// A document's chunk ids: made with the chunks, or computed when asked for.
pub enum Ids {
    /// The ids the pipeline gave the chunks, in chunk order.
    Known(Vec<String>),
    /// Chunks without prefix or level (so an id depends only on the span): each id is
    /// [`chunk_id_for`] over its span, computed when read (hashing every chunk's text up front
    /// took a sixth of `chunklab.chunk`'s time, for an attribute most callers never read).
    Lazy {
        /// The chunker's configuration ([`chunklab_core::Chunker::config`]).
        config: Arc<str>,
        /// Every chunk's byte span, in chunk order.
        spans: Vec<(usize, usize)>,
    },
}

impl DocData {
    /// The id of chunk `i`, if there is one.
    fn id(&self, i: usize) -> Option<Cow<'_, str>> {
        match &self.ids {
            Ids::Known(ids) => ids.get(i).map(|s| Cow::Borrowed(s.as_str())),
            Ids::Lazy { config, spans } => spans.get(i).map(|&(s, e)| {
                let meta = ChunkMeta::default();
                Cow::Owned(chunk_id_for(
                    &self.doc_id,
                    s,
                    e,
                    config,
                    &meta,
                    &self.text[s..e],
                ))
            }),
        }
    }
}

/// One chunk's own fields.
pub struct Record {
    index: usize,
    total: usize,
    start_byte: usize,
    end_byte: usize,
    start_char: usize,
    end_char: usize,
    tokens: usize,
    strategy: &'static str,
    meta: ChunkMeta,
    embedding: Option<Vec<f32>>,
}

/// A processed document's chunks as owned records (no Python objects: built without the GIL).
pub struct DocChunks {
    /// The shared part.
    pub doc: Arc<DocData>,
    /// The chunks.
    pub records: Vec<Record>,
    /// The document text is the input text itself, possibly less a byte order mark (plain
    /// text): see [`DocChunks::share_python_text`].
    pub text_is_input: bool,
}

impl DocChunks {
    /// The chunks of a processed document as owned records and their ids (the document text
    /// is taken once the chunks no longer borrow it: see [`DocChunks::new`]).
    pub fn records(
        chunks: Vec<CoreChunk<'_>>,
        vectors: Option<Vec<Vec<f32>>>,
    ) -> (Vec<Record>, Vec<String>) {
        let mut vectors = vectors.map(Vec::into_iter);
        let mut ids = Vec::with_capacity(chunks.len());
        let records = chunks
            .into_iter()
            .map(|c| {
                ids.push(c.id);
                Record {
                    index: c.index,
                    total: c.total,
                    start_byte: c.start_byte,
                    end_byte: c.end_byte,
                    start_char: c.start_char,
                    end_char: c.end_char,
                    tokens: c.tokens,
                    strategy: c.strategy,
                    meta: c.meta,
                    embedding: vectors.as_mut().and_then(|v| v.next()),
                }
            })
            .collect();
        (records, ids)
    }

    /// The chunks a strategy made of `text` (its spans and metadata, as
    /// [`chunklab_core::Chunker::chunk_parsed`] gives them), with char offsets and, where no
    /// chunk has a prefix or a level, ids computed only when read ([`Ids::Lazy`]); otherwise
    /// the ids [`chunklab_core::chunk_parsed_document`] gives. No chunk may name a parent
    /// (`parent_index`: hierarchical chunks need their parents' ids; use the pipeline).
    pub fn from_parts(
        parts: Vec<(Span, ChunkMeta)>,
        text: String,
        config: Arc<str>,
        strategy: &'static str,
        doc_id: &str,
        source: &str,
        unit: Arc<str>,
    ) -> DocChunks {
        debug_assert!(parts.iter().all(|(_, m)| m.parent_index.is_none()));
        let lazy = parts
            .iter()
            .all(|(_, m)| m.prefix.is_none() && m.level.is_none());
        let total = parts.len();
        let mut cursor = CharCursor::new(&text);
        let mut spans = Vec::with_capacity(if lazy { total } else { 0 });
        let mut ids = Vec::with_capacity(if lazy { 0 } else { total });
        let records = parts
            .into_iter()
            .enumerate()
            .map(|(index, (s, meta))| {
                if lazy {
                    spans.push((s.start, s.end));
                } else {
                    let t = &text[s.start..s.end];
                    ids.push(chunk_id_for(doc_id, s.start, s.end, &config, &meta, t));
                }
                Record {
                    index,
                    total,
                    start_byte: s.start,
                    end_byte: s.end,
                    start_char: cursor.char_at(s.start),
                    end_char: cursor.char_at(s.end),
                    tokens: s.tokens,
                    strategy,
                    meta,
                    embedding: None,
                }
            })
            .collect();
        let ids = if lazy {
            Ids::Lazy { config, spans }
        } else {
            Ids::Known(ids)
        };
        DocChunks::with_ids(records, ids, text, doc_id, source, unit)
    }

    /// A document's chunks: the records and ids from [`DocChunks::records`] and the text they
    /// point into.
    pub fn new(
        records: Vec<Record>,
        ids: Vec<String>,
        text: String,
        doc_id: &str,
        source: &str,
        unit: Arc<str>,
    ) -> DocChunks {
        DocChunks::with_ids(records, Ids::Known(ids), text, doc_id, source, unit)
    }

    fn with_ids(
        records: Vec<Record>,
        ids: Ids,
        text: String,
        doc_id: &str,
        source: &str,
        unit: Arc<str>,
    ) -> DocChunks {
        DocChunks {
            doc: Arc::new(DocData {
                text,
                doc_id: doc_id.to_string(),
                source: source.to_string(),
                unit,
                ids,
                py_text: None,
            }),
            records,
            text_is_input: false,
        }
    }

    /// Slice chunk texts out of `original` from now on, if the document text is exactly that
    /// string: its UTF-8 was `input_len` bytes and the parser kept the text as is (plain text,
    /// whose only change would be a dropped byte order mark, which changes the length).
    pub fn share_python_text(&mut self, original: &Bound<'_, PyString>, input_len: usize) {
        if let Some(doc) = Arc::get_mut(&mut self.doc) {
            if self.text_is_input && doc.text.len() == input_len {
                doc.py_text = Some(original.clone().unbind());
            }
        }
    }

    /// The Python objects, in chunk order.
    pub fn into_py(self, py: Python<'_>, out: &Bound<'_, PyList>) -> PyResult<()> {
        for record in self.records {
            out.append(Py::new(
                py,
                Chunk {
                    doc: self.doc.clone(),
                    r: record,
                },
            )?)?;
        }
        Ok(())
    }
}

/// An OCR'd chunk's confidence as the CLI writes it: widened to f64 and rounded to 0.1.
fn ocr_confidence(meta: &ChunkMeta) -> Option<f64> {
    meta.ocr_confidence
        .map(|v| (f64::from(v) * 10.0).round() / 10.0)
}

/// One chunk of a document: a span of its text with metadata. Attributes are the fields of
/// `chunklab chunk`'s JSONL (`text`, `start_char`, `end_char`, `start_byte`, `end_byte`,
/// `tokens`, `unit`, `headings`, `page`, `kind`, ...); offsets are into the document text
/// (chars = Python string indices), so `doc[c.start_char:c.end_char] == c.text`.
#[pyclass(module = "chunklab", frozen, name = "Chunk")]
pub struct Chunk {
    doc: Arc<DocData>,
    r: Record,
}

#[pymethods]
impl Chunk {
    /// The chunk's text: `document[start_char:end_char]` (without prefix or context).
    #[getter]
    fn text<'py>(&self, py: Python<'py>) -> Bound<'py, PyString> {
        if let Some(s) = &self.doc.py_text {
            let (a, b) = (self.r.start_char, self.r.end_char);
            // SAFETY: `s` is a live `str`; PyUnicode_Substring returns a new reference to a
            // `str` (or NULL with an exception set, taken by `from_owned_ptr_or_err`).
            let sub = unsafe {
                let p = pyo3::ffi::PyUnicode_Substring(s.as_ptr(), a as isize, b as isize);
                Bound::from_owned_ptr_or_err(py, p)
            };
            if let Ok(sub) = sub {
                // SAFETY: PyUnicode_Substring returns a `str`.
                return unsafe { sub.cast_into_unchecked() };
            }
        }
        PyString::new(py, &self.doc.text[self.r.start_byte..self.r.end_byte])
    }
    /// Stable content id (blake3 of document id, span, configuration and text).
    #[getter]
    fn id(&self) -> Cow<'_, str> {
        self.doc.id(self.r.index).unwrap_or_default()
    }
    /// The document id (the path relative to the walked directory, or as given).
    #[getter]
    fn doc_id(&self) -> &str {
        &self.doc.doc_id
    }
    /// The document's display name.
    #[getter]
    fn source(&self) -> &str {
        &self.doc.source
    }
    /// Position in the document's chunk list.
    #[getter]
    fn index(&self) -> usize {
        self.r.index
    }
    /// Number of chunks of the document.
    #[getter]
    fn total(&self) -> usize {
        self.r.total
    }
    /// Start offset in UTF-8 bytes.
    #[getter]
    fn start_byte(&self) -> usize {
        self.r.start_byte
    }
    /// End offset in UTF-8 bytes (exclusive).
    #[getter]
    fn end_byte(&self) -> usize {
        self.r.end_byte
    }
    /// Start offset in chars (a Python string index).
    #[getter]
    fn start_char(&self) -> usize {
        self.r.start_char
    }
    /// End offset in chars (exclusive).
    #[getter]
    fn end_char(&self) -> usize {
        self.r.end_char
    }
    /// Size in `unit` of prefix + context + text (the real count).
    #[getter]
    fn tokens(&self) -> usize {
        self.r.tokens
    }
    /// The size unit (`chars`, `words`, `cl100k`, a tokenizer).
    #[getter]
    fn unit(&self) -> &str {
        &self.doc.unit
    }
    /// The strategy that made the chunk.
    #[getter]
    fn strategy(&self) -> &'static str {
        self.r.strategy
    }
    /// Heading path from the document root to the chunk.
    #[getter]
    fn headings(&self) -> Vec<String> {
        self.r.meta.headings.clone()
    }
    /// 1-based page where the chunk starts (formats with pages), else None.
    #[getter]
    fn page(&self) -> Option<u32> {
        self.r.meta.page
    }
    /// 1-based page where the chunk ends.
    #[getter]
    fn page_end(&self) -> Option<u32> {
        self.r.meta.page_end
    }
    /// 1-based inclusive source line range `(first, last)`, where the format keeps lines.
    #[getter]
    fn lines(&self) -> Option<(u32, u32)> {
        self.r.meta.lines
    }
    /// Element kind (paragraph, table, code, ...).
    #[getter]
    fn kind(&self) -> Option<&str> {
        self.r.meta.kind.as_deref()
    }
    /// Code: the symbol path.
    #[getter]
    fn symbol(&self) -> Option<&str> {
        self.r.meta.symbol.as_deref()
    }
    /// Code: the programming language.
    #[getter]
    fn language(&self) -> Option<&str> {
        self.r.meta.language.as_deref()
    }
    /// Hierarchical strategies: depth (0 = top).
    #[getter]
    fn level(&self) -> Option<u32> {
        self.r.meta.level
    }
    /// Hierarchical strategies: the parent chunk's id.
    #[getter]
    fn parent_id(&self) -> Option<&str> {
        self.r.meta.parent_id.as_deref()
    }
    /// Text prepended for embedding (heading path with `title_prefix`, a repeated table header).
    #[getter]
    fn prefix(&self) -> Option<&str> {
        self.r.meta.prefix.as_deref()
    }
    /// Contextual retrieval: the chunk's context.
    #[getter]
    fn context(&self) -> Option<&str> {
        self.r.meta.context.as_deref()
    }
    /// OCR: whether the chunk's text was read by OCR (`ocr` in the JSONL).
    #[getter]
    fn ocr(&self) -> bool {
        self.r.meta.ocr_confidence.is_some()
    }
    /// OCR: the mean word confidence (0-100, rounded to 0.1 as `chunklab chunk` writes it) of
    /// an OCR'd chunk, else None.
    #[getter]
    fn ocr_confidence(&self) -> Option<f64> {
        ocr_confidence(&self.r.meta)
    }
    /// `strategy="late"`: the chunk's vector.
    #[getter]
    fn embedding(&self) -> Option<Vec<f32>> {
        self.r.embedding.clone()
    }
    /// The text a framework embeds: `context + "\n\n" + prefix + text`.
    #[getter]
    fn content(&self) -> String {
        self.r
            .meta
            .embed_text(&self.doc.text[self.r.start_byte..self.r.end_byte])
    }

    /// The chunk as a dict with the keys of `chunklab chunk`'s JSONL, in the same order
    /// (`embedding` only with late chunking).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let m = &self.r.meta;
        d.set_item("id", self.id())?;
        d.set_item("doc_id", self.doc_id())?;
        d.set_item("source", self.source())?;
        d.set_item("index", self.r.index)?;
        d.set_item("total", self.r.total)?;
        d.set_item("start_byte", self.r.start_byte)?;
        d.set_item("end_byte", self.r.end_byte)?;
        d.set_item("start_char", self.r.start_char)?;
        d.set_item("end_char", self.r.end_char)?;
        d.set_item("tokens", self.r.tokens)?;
        d.set_item("unit", self.unit())?;
        d.set_item("strategy", self.r.strategy)?;
        d.set_item("headings", &m.headings)?;
        d.set_item("page", m.page)?;
        d.set_item("page_end", m.page_end)?;
        d.set_item("lines", m.lines.map(|(a, b)| vec![a, b]))?;
        d.set_item("kind", &m.kind)?;
        d.set_item("symbol", &m.symbol)?;
        d.set_item("language", &m.language)?;
        d.set_item("level", m.level)?;
        d.set_item("parent_id", &m.parent_id)?;
        d.set_item("prefix", &m.prefix)?;
        d.set_item("context", &m.context)?;
        d.set_item("ocr", self.ocr())?;
        d.set_item("ocr_confidence", ocr_confidence(m))?;
        d.set_item("text", self.text(py))?;
        if let Some(e) = &self.r.embedding {
            d.set_item("embedding", e)?;
        }
        Ok(d)
    }

    /// The metadata LangChain documents and LlamaIndex nodes get (as `chunklab chunk --format
    /// langchain` writes it): source, doc_id, chunk_id, start_index/end_index (chars, exact),
    /// bytes, chunk_index, total_chunks, tokens, unit, strategy, and the structure fields that
    /// are set.
    #[getter]
    fn metadata<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let m = &self.r.meta;
        d.set_item("source", self.source())?;
        d.set_item("doc_id", self.doc_id())?;
        d.set_item("chunk_id", self.id())?;
        d.set_item("start_index", self.r.start_char)?;
        d.set_item("end_index", self.r.end_char)?;
        d.set_item("start_byte", self.r.start_byte)?;
        d.set_item("end_byte", self.r.end_byte)?;
        d.set_item("chunk_index", self.r.index)?;
        d.set_item("total_chunks", self.r.total)?;
        d.set_item("tokens", self.r.tokens)?;
        d.set_item("unit", self.unit())?;
        d.set_item("strategy", self.r.strategy)?;
        if !m.headings.is_empty() {
            d.set_item("headings", &m.headings)?;
        }
        let opt = |k: &str, v: Option<&str>| -> PyResult<()> {
            match v {
                Some(v) => d.set_item(k, v),
                None => Ok(()),
            }
        };
        if let Some(p) = m.page {
            d.set_item("page", p)?;
        }
        if let Some(p) = m.page_end {
            d.set_item("page_end", p)?;
        }
        if let Some((a, b)) = m.lines {
            d.set_item("lines", vec![a, b])?;
        }
        opt("kind", m.kind.as_deref())?;
        opt("symbol", m.symbol.as_deref())?;
        opt("language", m.language.as_deref())?;
        if let Some(l) = m.level {
            d.set_item("level", l)?;
        }
        opt("parent_id", m.parent_id.as_deref())?;
        opt("prefix", m.prefix.as_deref())?;
        if let Some(conf) = ocr_confidence(m) {
            d.set_item("ocr", true)?;
            d.set_item("ocr_confidence", conf)?;
        }
        Ok(d)
    }

    /// The id of the previous chunk of the same document, or None.
    #[getter]
    fn previous_id(&self) -> Option<Cow<'_, str>> {
        self.r.index.checked_sub(1).and_then(|i| self.doc.id(i))
    }
    /// The id of the next chunk of the same document, or None.
    #[getter]
    fn next_id(&self) -> Option<Cow<'_, str>> {
        self.doc.id(self.r.index + 1)
    }

    /// A `langchain_core.documents.Document` (needs `langchain-core`): `page_content` is
    /// [`content`](Chunk::content), `metadata` is [`metadata`](Chunk::metadata), `id` the
    /// chunk id.
    fn to_langchain<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let doc = py.import("langchain_core.documents")?.getattr("Document")?;
        let kw = PyDict::new(py);
        kw.set_item("page_content", self.content())?;
        kw.set_item("metadata", self.metadata(py)?)?;
        kw.set_item("id", self.id())?;
        doc.call((), Some(&kw))
    }

    /// A `llama_index.core.schema.TextNode` (needs `llama-index-core`) with exact
    /// `start_char_idx`/`end_char_idx` and SOURCE / PREVIOUS / NEXT relationships.
    fn to_llama_index<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let helper = slf
            .py()
            .import("chunklab.llama_index")?
            .getattr("_node_from_chunk")?;
        helper.call1((slf,))
    }

    fn __len__(&self) -> usize {
        self.r.end_char - self.r.start_char
    }

    fn __repr__(&self) -> String {
        let text = &self.doc.text[self.r.start_byte..self.r.end_byte];
        let mut preview: String = text.chars().take(40).collect();
        if preview.len() < text.len() {
            preview.push('…');
        }
        let headings = if self.r.meta.headings.is_empty() {
            String::new()
        } else {
            format!(" headings={:?}", self.r.meta.headings.join(" > "))
        };
        format!(
            "Chunk(#{} {}..{} {} {}{} {:?})",
            self.r.index,
            self.r.start_char,
            self.r.end_char,
            self.r.tokens,
            self.doc.unit,
            headings,
            preview
        )
    }
}
