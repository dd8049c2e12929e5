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
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChunkMeta {
    /// Heading path from the document root to this chunk.
    pub headings: Vec<String>,
    /// 1-based page number where the format has pages.
    pub page: Option<u32>,
    /// Element kind (paragraph, table, code, ...).
    pub kind: Option<String>,
    /// Id of the parent chunk (hierarchical strategies).
    pub parent_id: Option<String>,
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
    /// Size in the configured sizer's units.
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
