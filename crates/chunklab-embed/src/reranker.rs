//! The [`Reranker`] seam every reranker implements ([`MaxSim`](crate::MaxSim),
//! [`CrossEncoder`](crate::CrossEncoder)), and [`RerankWith`], which puts any of them behind the
//! index's [`chunklab_index::Rerank`] seam so that `chunklab search`, the lab and other faces
//! rerank index results the same way.

use crate::error::{Error, Result};

/// A model that scores passages against a query.
pub trait Reranker: Send + Sync {
    /// What the reranker is (`maxsim(minilm)`, or the cross-encoder's directory).
    fn name(&self) -> &str;

    /// One relevance score per passage (higher = more relevant), in input order. Scores of
    /// different rerankers are on different scales; only the order within one call means
    /// anything. An empty passage list gives an empty result; an empty query (no tokens) is
    /// [`Error::EmptyQuery`].
    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>>;
}

/// [`Error::EmptyQuery`] for a query that is empty or whitespace only.
pub(crate) fn check_query(query: &str) -> Result<()> {
    if query.trim().is_empty() {
        return Err(Error::EmptyQuery);
    }
    Ok(())
}

/// A chunklab-embed [`Reranker`] (MaxSim or a cross-encoder, as chosen by
/// [`load_reranker`](crate::load_reranker)) behind the index's [`chunklab_index::Rerank`] seam.
///
/// ```
/// use chunklab_embed::{RerankWith, Reranker, Result};
/// struct Longest;
/// impl Reranker for Longest {
///     fn name(&self) -> &str { "longest" }
///     fn score(&self, _query: &str, passages: &[&str]) -> Result<Vec<f32>> {
///         Ok(passages.iter().map(|p| p.len() as f32).collect())
///     }
/// }
/// let r = RerankWith(Box::new(Longest));
/// let scores = chunklab_index::Rerank::rerank(&r, "q", &["a", "abc"]).unwrap();
/// assert_eq!(scores, [1.0, 3.0]);
/// ```
pub struct RerankWith(pub Box<dyn Reranker>);

impl chunklab_index::Rerank for RerankWith {
    fn rerank(&self, query: &str, passages: &[&str]) -> std::result::Result<Vec<f32>, String> {
        self.0.score(query, passages).map_err(|e| e.to_string())
    }
}
