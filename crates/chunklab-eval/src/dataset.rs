//! An evaluation dataset: documents plus queries labelled with relevant documents and/or exact
//! relevant character spans.

use chunklab_core::document::ParsedDocument;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

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
    /// Documents already parsed from their own bytes (PDF, DOCX, ODT, images: read through the
    /// pipeline's reading, with OCR), by id; their [`Document::text`] is the parse's text.
    /// The run chunks these parses instead of parsing the text again.
    #[serde(skip)]
    pub parsed: BTreeMap<String, Arc<ParsedDocument>>,
}

impl Dataset {
    /// Keep only the documents whose id is in `ids` and the queries labelled entirely inside
    /// them; the name records the subset. Unknown ids are an error that lists the known ones.
    ///
    /// ```
    /// use chunklab_eval::dataset::{Dataset, Document, Query};
    /// let doc = |id: &str| Document { id: id.into(), name: format!("{id}.md"), text: "x".into() };
    /// let q = |id: &str, d: &str| Query {
    ///     id: id.into(), query: "?".into(), relevant_docs: vec![d.into()], relevant_spans: vec![],
    /// };
    /// let ds = Dataset { name: "set".into(), docs: vec![doc("a"), doc("b")],
    ///                    queries: vec![q("1", "a"), q("2", "b")], parsed: Default::default() };
    /// let sub = ds.restrict(&["b".to_string()]).unwrap();
    /// assert_eq!((sub.docs.len(), sub.queries.len(), sub.name.as_str()), (1, 1, "set[b]"));
    /// assert!(ds.restrict(&["c".to_string()]).unwrap_err().contains("a, b"));
    /// ```
    pub fn restrict(&self, ids: &[String]) -> Result<Dataset, String> {
        for id in ids {
            if !self.docs.iter().any(|d| &d.id == id) {
                let known: Vec<&str> = self.docs.iter().map(|d| d.id.as_str()).collect();
                return Err(format!(
                    "no document `{id}` in {} (known: {})",
                    self.name,
                    known.join(", ")
                ));
            }
        }
        let keep = |d: &str| ids.iter().any(|i| i == d);
        Ok(Dataset {
            name: format!("{}[{}]", self.name, ids.join(",")),
            docs: self.docs.iter().filter(|d| keep(&d.id)).cloned().collect(),
            queries: self
                .queries
                .iter()
                .filter(|q| {
                    q.relevant_docs.iter().all(|d| keep(d))
                        && q.relevant_spans.iter().all(|s| keep(&s.doc_id))
                })
                .cloned()
                .collect(),
            parsed: self
                .parsed
                .iter()
                .filter(|(id, _)| keep(id))
                .map(|(id, p)| (id.clone(), p.clone()))
                .collect(),
        })
    }
}
