//! The two stages between a prepared document and a store: [`chunk_document`] cuts it with the
//! pipeline into the document the store writes, [`embed_documents`] gives every chunk its
//! vector and counts what the index's warnings report (chunks past the model's window, Dutch
//! documents for an English-only model). [`super::IndexBuilder`] runs them for files and texts;
//! `chunklab serve`'s `POST /v1/documents` runs them for one document at a time.

use super::AddSummary;
use crate::{index_document, Input, Pipeline, Prepared, Skip};
use anyhow::{bail, Context as _, Result};
use chunklab_core::Lang;
use chunklab_embed::{Embedder, Role};
use chunklab_index::NewDocument;
use std::collections::BTreeMap;

/// A chunked document, its chunk texts not yet embedded.
pub struct ChunkedDocument {
    pub(super) doc: NewDocument,
    /// Texts to embed, one per chunk; empty when the vectors came from late chunking.
    pub(super) embed_texts: Vec<String>,
    /// Late chunking: the chunks already carry their vectors.
    late: bool,
    warnings: Vec<String>,
}

impl ChunkedDocument {
    /// What parsing and chunking warned about (damaged pages, OCR, limits).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Chunks in the document.
    pub fn chunks(&self) -> usize {
        self.doc.chunks.len()
    }
}

/// The hash a store keeps for a document: its content's hash with its access groups and
/// metadata fields, so that a document is indexed again when any of them changes. Every face
/// that writes documents compares with it.
pub fn document_hash(
    content_hash: &str,
    acl: &[String],
    fields: &BTreeMap<String, String>,
) -> String {
    format!("{content_hash} acl={acl:?} meta={fields:?}")
}

/// Chunk the prepared document of `input` (named `source`) with `pipeline` into the document
/// a store writes, with content `hash`, access groups `acl` and metadata `fields`.
pub fn chunk_document(
    pipeline: &Pipeline,
    input: &Input,
    source: &str,
    prepared: Prepared,
    hash: String,
    acl: Vec<String>,
    fields: BTreeMap<String, String>,
) -> Result<ChunkedDocument, Skip> {
    let processed = pipeline.process(input, source, &prepared)?;
    let warnings = processed.warnings.clone();
    let late = processed.vectors.is_some();
    let (doc, embed_texts) = index_document(
        input.doc_id(),
        source,
        hash,
        prepared.text(),
        acl,
        fields,
        processed,
    );
    Ok(ChunkedDocument {
        doc,
        embed_texts,
        late,
        warnings,
    })
}

/// Embed the chunks of `docs` with `model` (named `model_spec`) in one call (the model batches
/// by length across documents) and give every chunk its vector; counts embedded documents and
/// chunks, truncated chunks and Dutch documents for an English-only model into `s` (see
/// [`AddSummary::truncation_warning`], [`AddSummary::language_warning`]).
pub fn embed_documents<T>(
    model: &dyn Embedder,
    model_spec: &str,
    docs: Vec<(T, ChunkedDocument)>,
    s: &mut AddSummary,
) -> Result<Vec<(T, NewDocument)>> {
    let texts: Vec<&str> = docs
        .iter()
        .flat_map(|(_, c)| c.embed_texts.iter().map(String::as_str))
        .collect();
    // An English-only model embeds Dutch documents poorly: counted and reported.
    s.embedded_docs += docs.len();
    if chunklab_embed::registry::find(model_spec).is_some_and(|m| m.english_only) {
        s.dutch_for_english_model += docs
            .iter()
            .filter(|(_, c)| Lang::detect(&c.doc.text) == Some(Lang::Dutch))
            .count();
    }
    // Chunks longer than the model's window lose their tail when embedded: counted and
    // reported, never silent.
    s.truncated += chunklab_embed::truncated(model, &texts).len();
    s.embedded += texts.len();
    let vectors = if texts.is_empty() {
        Vec::new()
    } else {
        model
            .embed(&texts, Role::Passage)
            .with_context(|| format!("embedding with {model_spec}"))?
    };
    if vectors.len() != texts.len() {
        bail!(
            "embedding with {model_spec}: {} vectors for {} texts",
            vectors.len(),
            texts.len()
        );
    }
    let mut vectors = vectors.into_iter();
    Ok(docs
        .into_iter()
        .map(|(t, mut c)| {
            if !c.late {
                for (chunk, v) in c.doc.chunks.iter_mut().zip(vectors.by_ref()) {
                    chunk.vector = v;
                }
            }
            (t, c.doc)
        })
        .collect())
}
