//! The records of the store's `.jsonl` files: documents, chunks and removals.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One document of the index.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct DocRecord {
    /// Document id (path relative to the indexed directory, or as given).
    pub doc_id: String,
    /// Where the document was read from.
    pub source: String,
    /// BLAKE3 of the file's bytes (hex): unchanged files are not re-chunked.
    pub hash: String,
    /// BM25 language the document was analyzed with (`en`, `nl`).
    pub lang: String,
    /// Access groups (`acl=GROUP` filters).
    #[serde(default)]
    pub acl: Vec<String>,
    /// Extra metadata fields (`FIELD=VALUE` filters).
    #[serde(default)]
    pub fields: BTreeMap<String, String>,
    /// Number of chunks.
    pub chunks: usize,
    /// Byte offset of the document's text in its segment's `.txt` file.
    pub text_offset: u64,
    /// Byte length of the document's text.
    pub text_len: u64,
    /// BLAKE3 (hex) of the document's text as stored in the `.txt` file, checked whenever the
    /// text is read (absent in indexes written before checksums: not checked).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text_hash: Option<String>,
}

/// One chunk: a span of its document's text plus the chunker's metadata.
#[derive(Serialize, Deserialize, Clone, Debug, PartialEq)]
pub struct ChunkRecord {
    /// Vector key (unique in the index, never reused).
    pub key: u64,
    /// Stable chunk id (`chunk_id`: doc id, span, config, text).
    pub id: String,
    /// Document id.
    pub doc_id: String,
    /// Where the document was read from.
    pub source: String,
    /// `&document[start_byte..end_byte]`.
    pub text: String,
    /// Start byte offset in the document text.
    pub start_byte: usize,
    /// End byte offset (exclusive).
    pub end_byte: usize,
    /// Start offset in Unicode scalar values.
    pub start_char: usize,
    /// End offset in Unicode scalar values (exclusive).
    pub end_char: usize,
    /// Position in the document's chunk list.
    pub index: usize,
    /// Size in the chunker's unit.
    pub tokens: usize,
    /// Heading path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub headings: Vec<String>,
    /// 1-based page where the chunk starts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    /// Element kind (paragraph, table, code ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// Programming language of code chunks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Symbol path of code chunks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub symbol: Option<String>,
    /// Depth in a chunk hierarchy (0 = top).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<u32>,
    /// Id of the parent chunk in a hierarchy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    /// Text embedded before the chunk text (heading path, table header).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefix: Option<String>,
    /// Contextual-retrieval context (`--context header|llm`): embedded and indexed for BM25
    /// before the chunk, never part of its span.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// BLAKE3 (hex) of the chunk's row in the `.vec` file (key and vector), checked whenever the
    /// vector is read; set by the store (absent in indexes written before checksums).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vector_hash: Option<String>,
}

impl ChunkRecord {
    /// The text that was embedded ([`chunklab_core::embedded_text`]).
    pub fn embed_text(&self) -> String {
        chunklab_core::embedded_text(self.context.as_deref(), self.prefix.as_deref(), &self.text)
    }
}

#[derive(Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub(super) enum Line {
    Remove { doc_id: String },
    Doc(DocRecord),
    Chunk(ChunkRecord),
}
