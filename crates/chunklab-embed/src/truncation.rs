//! Texts longer than a model's window: [`Embedder::embed`] keeps their first tokens, so the
//! faces say which texts lost their tail instead of embedding them silently in part.

use crate::Embedder;
use rayon::prelude::*;

/// A text that [`Embedder::embed`] truncates: the `index`-th of the texts given, `tokens`
/// long, embedded from its first `window` tokens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncated {
    /// Position of the text among those given (from 0).
    pub index: usize,
    /// The text's tokens (no special or prefix tokens).
    pub tokens: usize,
    /// The tokens of the text the model reads.
    pub window: usize,
}

impl std::fmt::Display for Truncated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "text {} is {} tokens, longer than the model's {}-token window: its vector is of \
             the first {} tokens only",
            self.index + 1,
            self.tokens,
            self.window,
            self.window
        )
    }
}

/// The texts of `texts` (in order) that `model` truncates when it embeds them as passages,
/// found by tokenizing them (in parallel) without running the model. The window is the
/// passage's ([`Embedder::token_capacity`]); a query prefix (e5's `"query: "`) takes about as
/// many tokens.
///
/// ```no_run
/// # fn main() -> chunklab_embed::Result<()> {
/// use chunklab_embed::{load, truncated, LoadOptions};
/// let model = load("minilm", &LoadOptions::default())?;
/// let long = "windenergie ".repeat(400);
/// let cut = truncated(model.as_ref(), &["kort", &long]);
/// assert_eq!(cut.len(), 1);
/// assert_eq!(cut[0].index, 1);
/// # Ok(()) }
/// ```
pub fn truncated(model: &dyn Embedder, texts: &[&str]) -> Vec<Truncated> {
    let window = model.token_capacity();
    texts
        .par_iter()
        .enumerate()
        .filter_map(|(index, t)| {
            let tokens = model.token_spans(t.trim()).ok()?.len();
            (tokens > window).then_some(Truncated {
                index,
                tokens,
                window,
            })
        })
        .collect()
}
