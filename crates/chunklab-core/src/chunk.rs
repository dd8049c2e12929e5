//! The chunk model: a span of the original text plus metadata. Text is always borrowed from the
//! document at the span's offsets — never copied and searched for again.

use serde::Serialize;

/// A byte range into a document, as produced by a strategy, with its verified size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// Start byte offset (inclusive, on a char boundary).
    pub start: usize,
    /// End byte offset (exclusive, on a char boundary).
    pub end: usize,
    /// Size of `text[start..end]` in the sizer's units (the real count, not an estimate).
    pub tokens: usize,
}

impl Span {
    pub fn new(start: usize, end: usize, tokens: usize) -> Self {
        debug_assert!(start <= end);
        Self { start, end, tokens }
    }
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Metadata that structure-aware and hierarchical strategies fill; empty for plain text ones.
///
/// ```
/// use chunklab_core::ChunkMeta;
/// let meta = ChunkMeta {
///     headings: vec!["Hoofdstuk 2. Vergunningen".into(), "Artikel 3 Bewonersvergunning".into()],
///     prefix: Some("Hoofdstuk 2. Vergunningen > Artikel 3 Bewonersvergunning\n\n".into()),
///     ..ChunkMeta::default()
/// };
/// assert_eq!(meta.embed_text("1. Het college verleent ..."),
///            "Hoofdstuk 2. Vergunningen > Artikel 3 Bewonersvergunning\n\n1. Het college verleent ...");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChunkMeta {
    /// Heading path from the document root to this chunk.
    pub headings: Vec<String>,
    /// For a chunk that merges several sections (`headings` with
    /// [`crate::strategies::Headings::with_merge_siblings`]): the heading path of every section
    /// whose heading it contains, in document order. Empty (and not serialized) otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Vec<String>>,
    /// 1-based page number (where the chunk starts) where the format has pages.
    pub page: Option<u32>,
    /// 1-based page number where the chunk ends.
    pub page_end: Option<u32>,
    /// 1-based inclusive line range in the source file (formats that keep source lines).
    pub lines: Option<(u32, u32)>,
    /// Element kind (paragraph, table, code, ...).
    pub kind: Option<String>,
    /// For code: the symbol path of the unit (`impl Parser::parse`).
    pub symbol: Option<String>,
    /// For code: the programming language.
    pub language: Option<String>,
    /// Depth in a hierarchy of chunks (hierarchical strategies; 0 = top).
    pub level: Option<u32>,
    /// Id of the parent chunk (hierarchical strategies).
    pub parent_id: Option<String>,
    /// Index of the parent chunk in the strategy's output. Strategies set it (they cannot know
    /// chunk ids); [`crate::chunk_document`] and [`crate::chunk_parsed_document`] turn it into
    /// `parent_id`. Not serialized.
    #[serde(skip)]
    pub parent_index: Option<usize>,
    /// Text prepended to the chunk for embedding (the heading path with `--title-prefix`, a
    /// table's repeated header row). It is **not** part of the span, but it counts toward the size:
    /// the chunk's `tokens` is the real size of `prefix + text`.
    pub prefix: Option<String>,
    /// A short text situating the chunk in its document (contextual retrieval: written by a
    /// language model, or the document title and heading path). Like `prefix` it is **not** part
    /// of the span but is embedded and counted: the embedded text is `context + "\n\n" + prefix +
    /// text` and `tokens` is its real size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// For a chunk on pages read by OCR: the mean word confidence (0–100) of those pages
    /// (outputs write `ocr: true` with it). `None` for text from a text layer or a text format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<f32>,
}

impl ChunkMeta {
    /// The text to embed: see [`embedded_text`].
    pub fn embed_text(&self, text: &str) -> String {
        embedded_text(self.context.as_deref(), self.prefix.as_deref(), text)
    }
}

/// The one definition of the text that is embedded and indexed for a chunk:
/// `context + "\n\n" + prefix + text`, where a missing **or empty** context adds nothing (no
/// separator) and a missing prefix adds nothing. Every stage that embeds, indexes or sizes a
/// chunk with its context calls this.
///
/// ```
/// use chunklab_core::chunk::embedded_text;
/// assert_eq!(embedded_text(Some("Besluit 2021"), Some("Art. 1\n\n"), "Tekst"), "Besluit 2021\n\nArt. 1\n\nTekst");
/// assert_eq!(embedded_text(Some(""), None, "Tekst"), "Tekst");
/// assert_eq!(embedded_text(None, None, "Tekst"), "Tekst");
/// ```
pub fn embedded_text(context: Option<&str>, prefix: Option<&str>, text: &str) -> String {
    let context = context.filter(|c| !c.is_empty());
    let mut out = String::with_capacity(
        context.map_or(0, |c| c.len() + 2) + prefix.map_or(0, str::len) + text.len(),
    );
    if let Some(c) = context {
        out.push_str(c);
        out.push_str("\n\n");
    }
    if let Some(p) = prefix {
        out.push_str(p);
    }
    out.push_str(text);
    out
}

/// One chunk of one document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chunk<'a> {
    /// Stable content hash of doc id, span, text and strategy config.
    pub id: String,
    pub doc_id: &'a str,
    pub source: &'a str,
    /// `&document[start_byte..end_byte]`.
    pub text: &'a str,
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_char: usize,
    pub end_char: usize,
    /// Position of this chunk in the document's chunk list, and the list's length.
    pub index: usize,
    pub total: usize,
    /// Size in the configured sizer's units, of `meta.prefix` + `text` when there is a prefix.
    pub tokens: usize,
    /// Strategy name.
    pub strategy: &'static str,
    #[serde(flatten)]
    pub meta: ChunkMeta,
}

/// `blake3(doc_id, start, end, config, text)` as 32 hex chars: stable across runs and machines,
/// different when any of the inputs change.
pub fn chunk_id(doc_id: &str, start: usize, end: usize, config: &str, text: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&(doc_id.len() as u64).to_le_bytes());
    h.update(doc_id.as_bytes());
    h.update(&(start as u64).to_le_bytes());
    h.update(&(end as u64).to_le_bytes());
    h.update(&(config.len() as u64).to_le_bytes());
    h.update(config.as_bytes());
    h.update(text.as_bytes());
    let hex = h.finalize().to_hex();
    hex[..32].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_sensitive() {
        let a = chunk_id("d", 0, 5, "fixed size=5", "hello");
        assert_eq!(a, chunk_id("d", 0, 5, "fixed size=5", "hello"));
        assert_eq!(a.len(), 32);
        assert_ne!(a, chunk_id("d", 0, 5, "fixed size=6", "hello"));
        assert_ne!(a, chunk_id("e", 0, 5, "fixed size=5", "hello"));
        assert_ne!(a, chunk_id("d", 1, 6, "fixed size=5", "hello"));
    }
}
