//! The [`TextEmbedder`] seam: how the model-driven strategies (`semantic`, `cluster`) get
//! sentence vectors without chunklab-core depending on an ML runtime. `chunklab-embed` adapts
//! its models to it; tests use any deterministic implementation.

use std::fmt;

/// Turns texts into L2-normalized vectors (one per text, in input order, all the same length).
///
/// Implementations should cache: strategies may ask for the same text more than once across
/// documents, and a model call is the expensive part of a semantic split.
///
/// ```
/// use chunklab_core::TextEmbedder;
/// /// Two-dimensional toy vectors: does the text mention "wind"?
/// struct Toy;
/// impl TextEmbedder for Toy {
///     fn name(&self) -> &str { "toy" }
///     fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
///         Ok(texts.iter().map(|t| if t.contains("wind") { vec![1.0, 0.0] } else { vec![0.0, 1.0] }).collect())
///     }
/// }
/// let v = Toy.embed(&["windmolens", "zonnepanelen"]).unwrap();
/// assert_eq!(chunklab_core::text_embedder::dot(&v[0], &v[1]), 0.0);
/// ```
pub trait TextEmbedder: Send + Sync {
    /// The model's name; part of the chunker's config (and so of every chunk id).
    fn name(&self) -> &str;

    /// One L2-normalized vector per text, in input order. Errors are reported to the user as is.
    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String>;
}

impl fmt::Debug for dyn TextEmbedder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TextEmbedder({})", self.name())
    }
}

/// Dot product of two vectors (the cosine similarity of normalized ones). Extra elements of the
/// longer vector are ignored.
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Embed `texts` with `embedder` and check the answer's shape: one vector per text, all of the
/// same non-zero length, finite values.
pub(crate) fn embed_checked(
    embedder: &dyn TextEmbedder,
    texts: &[&str],
) -> crate::Result<Vec<Vec<f32>>> {
    if texts.is_empty() {
        return Ok(Vec::new());
    }
    let bad = |m: String| crate::Error::Embed(format!("{}: {m}", embedder.name()));
    let vectors = embedder.embed(texts).map_err(bad)?;
    if vectors.len() != texts.len() {
        return Err(bad(format!(
            "returned {} vectors for {} texts",
            vectors.len(),
            texts.len()
        )));
    }
    let dim = vectors[0].len();
    if dim == 0 || vectors.iter().any(|v| v.len() != dim) {
        return Err(bad("returned vectors of different or zero length".into()));
    }
    if vectors.iter().flatten().any(|x| !x.is_finite()) {
        return Err(bad("returned a vector with NaN or infinite values".into()));
    }
    Ok(vectors)
}
