//! [`CoreEmbedder`]: an [`Embedder`] as chunklab-core's [`TextEmbedder`], so the model-driven
//! chunking strategies (`semantic`, `cluster`) can use any model without chunklab-core depending
//! on an ML runtime. Texts are embedded as passages; every vector is cached by the blake3 hash of
//! its text, so a sentence that occurs again (in the same or another document) is never embedded
//! twice.

use crate::{Embedder, Role};
use chunklab_core::TextEmbedder;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Cached vectors kept before the cache is emptied (about 600 MB of 384-float vectors at most).
const CACHE_LIMIT: usize = 400_000;

/// Adapts an [`Embedder`] to [`TextEmbedder`] ([`Role::Passage`]), with a vector cache keyed by
/// the blake3 hash of each text.
///
/// ```no_run
/// use chunklab_core::TextEmbedder;
/// use chunklab_embed::{load, CoreEmbedder, LoadOptions};
/// use std::sync::Arc;
/// let model: Arc<dyn chunklab_embed::Embedder> = load("minilm", &LoadOptions::default())?.into();
/// let adapter = CoreEmbedder::new(model);
/// let v = adapter.embed(&["Een zin.", "Een zin."]).unwrap(); // the model runs once
/// assert_eq!(v[0], v[1]);
/// assert_eq!(adapter.cached(), 1);
/// # Ok::<(), chunklab_embed::Error>(())
/// ```
pub struct CoreEmbedder {
    model: Arc<dyn Embedder>,
    cache: Mutex<HashMap<[u8; 32], Arc<[f32]>>>,
}

impl CoreEmbedder {
    /// Wrap `model`; vectors are computed for [`Role::Passage`].
    pub fn new(model: Arc<dyn Embedder>) -> Self {
        Self {
            model,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The wrapped model.
    pub fn model(&self) -> &Arc<dyn Embedder> {
        &self.model
    }

    /// Number of distinct texts whose vectors are cached.
    pub fn cached(&self) -> usize {
        self.cache.lock().map(|c| c.len()).unwrap_or(0)
    }
}

impl TextEmbedder for CoreEmbedder {
    fn name(&self) -> &str {
        self.model.name()
    }

    fn embed(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, String> {
        let keys: Vec<[u8; 32]> = texts
            .iter()
            .map(|t| *blake3::hash(t.as_bytes()).as_bytes())
            .collect();
        let mut found: Vec<Option<Arc<[f32]>>> = {
            let cache = self.cache.lock().map_err(|_| "embedding cache poisoned")?;
            keys.iter().map(|k| cache.get(k).cloned()).collect()
        };
        // The texts not cached, each distinct text once, in first-occurrence order.
        let mut missing: Vec<usize> = Vec::new();
        let mut first: HashMap<[u8; 32], usize> = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            if found[i].is_none() && !first.contains_key(k) {
                first.insert(*k, missing.len());
                missing.push(i);
            }
        }
        if !missing.is_empty() {
            let batch: Vec<&str> = missing.iter().map(|&i| texts[i]).collect();
            let vectors = self
                .model
                .embed(&batch, Role::Passage)
                .map_err(|e| e.to_string())?;
            if vectors.len() != batch.len() {
                return Err(format!(
                    "{} returned {} vectors for {} texts",
                    self.model.name(),
                    vectors.len(),
                    batch.len()
                ));
            }
            let fresh: Vec<Arc<[f32]>> = vectors.into_iter().map(Arc::from).collect();
            for (i, k) in keys.iter().enumerate() {
                if found[i].is_none() {
                    found[i] = Some(fresh[first[k]].clone());
                }
            }
            let mut cache = self.cache.lock().map_err(|_| "embedding cache poisoned")?;
            if cache.len() + fresh.len() > CACHE_LIMIT {
                cache.clear();
            }
            for (&i, v) in missing.iter().zip(&fresh) {
                cache.insert(keys[i], v.clone());
            }
        }
        Ok(found
            .into_iter()
            .map(|v| v.map(|v| v.to_vec()).unwrap_or_default())
            .collect())
    }
}
