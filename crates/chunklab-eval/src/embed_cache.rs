//! Embeddings cached by (model, role, text hash), in memory and optionally on disk, so a sweep
//! never embeds the same text twice — not within a run (configurations that share chunks) and
//! not across runs.
//!
//! On disk, each model has one append-only file `<dir>/<model>.emb`: a header line
//! `chunklab-embeddings v1 dim=<d>\n`, then records of a 32-byte blake3 key and `d`
//! little-endian f32s. A torn last record (an interrupted run) is ignored.

use crate::error::{Error, Result};
use chunklab_embed::{Embedder, Role};
use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

type Key = [u8; 32];

/// The vectors of one model.
struct Store {
    dim: usize,
    map: HashMap<Key, Arc<[f32]>>,
    file: Option<std::fs::File>,
}

/// A cache of embeddings for any number of models.
pub struct EmbedCache {
    dir: Option<PathBuf>,
    stores: Mutex<HashMap<String, Arc<Mutex<Store>>>>,
}

/// What one [`EmbedCache::embed`] call did.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct EmbedStats {
    /// Texts that were in the cache.
    pub cached: usize,
    /// Texts the model embedded.
    pub computed: usize,
    /// Seconds spent in the model.
    pub seconds: f64,
}

impl std::ops::AddAssign for EmbedStats {
    fn add_assign(&mut self, o: Self) {
        self.cached += o.cached;
        self.computed += o.computed;
        self.seconds += o.seconds;
    }
}

/// The cache key of `text` embedded by `model` for `role`.
pub fn text_key(model: &str, role: Role, text: &str) -> Key {
    let mut h = blake3::Hasher::new();
    h.update(model.as_bytes());
    h.update(&[0, if role == Role::Query { b'q' } else { b'p' }, 0]);
    h.update(text.as_bytes());
    *h.finalize().as_bytes()
}

/// Texts per model call; small enough for steady progress, large enough for batching.
const BATCH: usize = 64;

impl EmbedCache {
    /// A cache that keeps vectors in `dir` (created when needed), or only in memory.
    pub fn new(dir: Option<&Path>) -> Self {
        Self {
            dir: dir.map(Path::to_path_buf),
            stores: Mutex::new(HashMap::new()),
        }
    }

    fn store(&self, model: &str, dim: usize) -> Result<Arc<Mutex<Store>>> {
        let mut stores = self.stores.lock().unwrap();
        if let Some(s) = stores.get(model) {
            return Ok(s.clone());
        }
        let mut store = Store {
            dim,
            map: HashMap::new(),
            file: None,
        };
        if let Some(dir) = &self.dir {
            std::fs::create_dir_all(dir).map_err(|source| Error::Io {
                path: dir.clone(),
                source,
            })?;
            let safe: String = model
                .chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let path = dir.join(format!(
                "{safe}-{}.emb",
                &blake3::hash(model.as_bytes()).to_hex()[..8]
            ));
            let header = format!("chunklab-embeddings v1 dim={dim}\n");
            let mut aligned = None;
            if let Ok(bytes) = std::fs::read(&path) {
                if bytes.starts_with(header.as_bytes()) {
                    let rec = 32 + 4 * dim;
                    let body = bytes.len() - header.len();
                    aligned = Some((header.len() + body / rec * rec) as u64);
                    for r in bytes[header.len()..].chunks_exact(rec) {
                        let key: Key = r[..32].try_into().unwrap();
                        let v: Vec<f32> = r[32..]
                            .chunks_exact(4)
                            .map(|b| f32::from_le_bytes(b.try_into().unwrap()))
                            .collect();
                        store.map.insert(key, v.into());
                    }
                } else {
                    // Another version or dimension: start over.
                    let _ = std::fs::remove_file(&path);
                }
            }
            let mut file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&path)
                .map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
            if let Some(len) = aligned {
                // Drop a torn last record so new records stay aligned.
                if file.metadata().map(|m| m.len()).unwrap_or(0) != len {
                    let _ = file.set_len(len);
                }
            }
            if file.metadata().map(|m| m.len()).unwrap_or(0) == 0 {
                let _ = file.write_all(header.as_bytes());
            }
            store.file = Some(file);
        }
        let s = Arc::new(Mutex::new(store));
        stores.insert(model.to_string(), s.clone());
        Ok(s)
    }

    /// Vectors stored under explicit keys (late chunking caches by document and span); `None`
    /// for each key that is missing.
    pub fn get_keys(
        &self,
        model: &str,
        dim: usize,
        keys: &[Key],
    ) -> Result<Vec<Option<Arc<[f32]>>>> {
        let store = self.store(model, dim)?;
        let s = store.lock().unwrap();
        Ok(keys.iter().map(|k| s.map.get(k).cloned()).collect())
    }

    /// Store vectors under explicit keys.
    pub fn put_keys(&self, model: &str, dim: usize, items: &[(Key, Vec<f32>)]) -> Result<()> {
        let store = self.store(model, dim)?;
        let mut s = store.lock().unwrap();
        put(&mut s, items);
        Ok(())
    }

    /// Embed `texts` for `role` with `model`, taking what the cache has and embedding the rest
    /// (each distinct text once). `progress` is called with the number of texts done so far.
    pub fn embed(
        &self,
        model: &dyn Embedder,
        texts: &[&str],
        role: Role,
        progress: &(dyn Fn(usize) + Sync),
    ) -> Result<(Vec<Arc<[f32]>>, EmbedStats)> {
        let id = model.cache_id();
        let store = self.store(&id, model.dim())?;
        let keys: Vec<Key> = texts.iter().map(|t| text_key(&id, role, t)).collect();
        let mut missing: Vec<usize> = Vec::new();
        {
            let s = store.lock().unwrap();
            let mut seen = std::collections::HashSet::new();
            for (i, k) in keys.iter().enumerate() {
                if !s.map.contains_key(k) && seen.insert(*k) {
                    missing.push(i);
                }
            }
        }
        let mut stats = EmbedStats {
            cached: texts.len() - missing.len(),
            ..Default::default()
        };
        let mut done = stats.cached;
        progress(done);
        for batch in missing.chunks(BATCH) {
            let batch_texts: Vec<&str> = batch.iter().map(|&i| texts[i]).collect();
            let t = std::time::Instant::now();
            let vectors = model
                .embed(&batch_texts, role)
                .map_err(|e| Error::Run(format!("embedding with {}: {e}", model.name())))?;
            stats.seconds += t.elapsed().as_secs_f64();
            stats.computed += batch.len();
            let items: Vec<(Key, Vec<f32>)> = batch.iter().map(|&i| keys[i]).zip(vectors).collect();
            put(&mut store.lock().unwrap(), &items);
            done += batch.len();
            progress(done);
        }
        let s = store.lock().unwrap();
        let out = keys
            .iter()
            .map(|k| {
                s.map
                    .get(k)
                    .cloned()
                    .ok_or_else(|| Error::Run("embedding cache lost a vector".into()))
            })
            .collect::<Result<Vec<_>>>()?;
        Ok((out, stats))
    }
}

fn put(s: &mut Store, items: &[(Key, Vec<f32>)]) {
    let mut buf = Vec::with_capacity(items.len() * (32 + 4 * s.dim));
    for (k, v) in items {
        if v.len() != s.dim {
            continue;
        }
        buf.extend_from_slice(k);
        for x in v {
            buf.extend_from_slice(&x.to_le_bytes());
        }
        s.map.insert(*k, v.clone().into());
    }
    if let Some(f) = &mut s.file {
        // A failed write only costs a recomputation next time.
        let _ = f.write_all(&buf);
    }
}

/// An [`Embedder`] seen through the cache, as the model-driven strategies (`semantic`,
/// `cluster`) want it.
pub struct CachedTextEmbedder {
    pub model: Arc<dyn Embedder>,
    pub cache: Arc<EmbedCache>,
    /// Texts embedded and found, accumulated over calls.
    pub stats: Mutex<EmbedStats>,
}

impl chunklab_core::TextEmbedder for CachedTextEmbedder {
    fn name(&self) -> &str {
        self.model.name()
    }

    fn embed(&self, texts: &[&str]) -> std::result::Result<Vec<Vec<f32>>, String> {
        let (v, st) = self
            .cache
            .embed(self.model.as_ref(), texts, Role::Passage, &|_| {})
            .map_err(|e| e.to_string())?;
        *self.stats.lock().unwrap() += st;
        Ok(v.iter().map(|x| x.to_vec()).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_depend_on_model_role_and_text() {
        let a = text_key("m", Role::Passage, "x");
        assert_ne!(a, text_key("m", Role::Query, "x"));
        assert_ne!(a, text_key("n", Role::Passage, "x"));
        assert_ne!(a, text_key("m", Role::Passage, "y"));
        assert_eq!(a, text_key("m", Role::Passage, "x"));
    }

    #[test]
    fn explicit_keys_round_trip_through_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let k1 = [1u8; 32];
        let k2 = [2u8; 32];
        {
            let c = EmbedCache::new(Some(dir.path()));
            c.put_keys("toy", 2, &[(k1, vec![0.5, -1.0]), (k2, vec![3.0, 4.0])])
                .unwrap();
        }
        // A torn record at the end is ignored.
        let file = std::fs::read_dir(dir.path())
            .unwrap()
            .next()
            .unwrap()
            .unwrap()
            .path();
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&file)
            .unwrap();
        f.write_all(&[9u8; 20]).unwrap();
        let c = EmbedCache::new(Some(dir.path()));
        let got = c.get_keys("toy", 2, &[k1, k2, [3u8; 32]]).unwrap();
        assert_eq!(&*got[0].clone().unwrap(), &[0.5, -1.0]);
        assert_eq!(&*got[1].clone().unwrap(), &[3.0, 4.0]);
        assert!(got[2].is_none());
    }
}
