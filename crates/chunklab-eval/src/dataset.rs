//! An evaluation dataset: documents plus queries labelled with relevant documents and/or exact
//! relevant character spans.

use serde::{Deserialize, Serialize};

/// One document of a corpus.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    /// Stable id that queries refer to (for files: the path relative to the corpus root).
    pub id: String,
    /// File name with extension; the extension chooses the parser (`.md`, `.html`, `.txt`, ...).
    pub name: String,
    /// The document's content (for text formats, the file content).
    pub text: String,
}

/// A character span of a document that answers a query (Unicode scalar offsets into the
/// document's text, end exclusive).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelevantSpan {
    pub doc_id: String,
    pub start_char: usize,
    pub end_char: usize,
}

/// A question with its gold labels; either list may be empty, not both.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Query {
    pub id: String,
    pub query: String,
    #[serde(default)]
    pub relevant_docs: Vec<String>,
    #[serde(default)]
    pub relevant_spans: Vec<RelevantSpan>,
}

/// Documents plus queries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Dataset {
    /// Short name for reports (`archive`, `chroma`, or the corpus directory name).
    pub name: String,
    pub docs: Vec<Document>,
    pub queries: Vec<Query>,
}
