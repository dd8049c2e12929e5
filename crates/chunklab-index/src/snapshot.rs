//! Snapshots of the vector index, and bringing one up to date with the store.
//!
//! The store holds every vector (it is the source of truth); the HNSW graph is derived from it
//! and saved as a snapshot when a writer finishes: the [`VectorIndex`] is saved into a fresh
//! `vectors.tmp/` with a `snapshot.keys` file (the keys it holds, little-endian `u64`), and the
//! directory is renamed to `vectors-<generation>/` — so a snapshot directory is always complete.
//! Older snapshots are deleted afterwards.
//!
//! Opening takes the newest snapshot not newer than the manifest and reconciles it with the
//! store: keys the snapshot has and the store does not are removed, keys the store has and the
//! snapshot does not are added (their vectors read from the store's segments). After an
//! interrupted `chunklab index` the snapshot is older than the store; the difference is replayed
//! in memory by readers and saved by the next writer. A missing or unreadable snapshot is
//! rebuilt from the store.

use crate::error::{io, Error, Result};
use crate::graph_settings::HnswSettings;
use crate::manifest::sync_dir;
use crate::store::Store;
use crate::vectors::{HnswParams, VectorIndex};
use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};

const PREFIX: &str = "vectors-";
const TMP: &str = "vectors.tmp";
const KEYS: &str = "snapshot.keys";

/// Vectors added to the graph per batch when replaying the store.
const BATCH: usize = 4096;

/// The snapshot directories under `index_dir`, newest first.
fn snapshots(index_dir: &Path) -> Vec<(u64, PathBuf)> {
    let mut out: Vec<(u64, PathBuf)> = std::fs::read_dir(index_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let g = name.strip_prefix(PREFIX)?.parse::<u64>().ok()?;
            Some((g, e.path()))
        })
        .collect();
    out.sort_by_key(|s| std::cmp::Reverse(s.0));
    out
}

/// Save `vectors` (holding exactly `keys`) as the snapshot of `generation`, then delete older
/// snapshots.
pub fn save(index_dir: &Path, vectors: &VectorIndex, generation: u64, keys: &[u64]) -> Result<()> {
    let tmp = index_dir.join(TMP);
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    vectors.save(&tmp)?;
    let kp = tmp.join(KEYS);
    {
        let mut f = std::fs::File::create(&kp).map_err(io(&kp))?;
        let mut buf = Vec::with_capacity(keys.len() * 8);
        for k in keys {
            buf.extend_from_slice(&k.to_le_bytes());
        }
        f.write_all(&buf).map_err(io(&kp))?;
        f.sync_all().map_err(io(&kp))?;
    }
    sync_dir(&tmp)?;
    let dest = index_dir.join(format!("{PREFIX}{generation:010}"));
    if dest.exists() {
        std::fs::remove_dir_all(&dest).map_err(io(&dest))?;
    }
    std::fs::rename(&tmp, &dest).map_err(io(&dest))?;
    sync_dir(index_dir)?;
    for (g, path) in snapshots(index_dir) {
        if g != generation {
            let _ = std::fs::remove_dir_all(path);
        }
    }
    Ok(())
}

fn read_keys(path: &Path) -> Result<Vec<u64>> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    if bytes.len() % 8 != 0 {
        return Err(Error::Corrupt {
            path: path.to_path_buf(),
            reason: format!("{} bytes is not a whole number of keys", bytes.len()),
        });
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect())
}

/// How a vector index was brought up to date.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Loaded {
    /// Generation of the snapshot it started from (`None`: built from the store alone).
    pub snapshot: Option<u64>,
    /// Vectors added from the store.
    pub added: usize,
    /// Vectors removed because the store no longer has them.
    pub removed: usize,
}

impl Loaded {
    /// `true` when the snapshot did not match the store.
    pub fn changed(&self) -> bool {
        self.added > 0 || self.removed > 0
    }
}

/// The graph parameters of an index built with `hnsw` (the query-time ones at their defaults).
pub fn params(hnsw: HnswSettings) -> HnswParams {
    HnswParams {
        m: hnsw.m,
        ef_construction: hnsw.ef_construction,
        ..HnswParams::default()
    }
}

/// The vector index matching `store` at manifest generation `generation`: the newest snapshot
/// not newer than it, reconciled with the store (see the module docs). A graph built anew
/// takes the index's `hnsw` settings.
pub fn load(
    index_dir: &Path,
    store: &Store,
    generation: u64,
    hnsw: HnswSettings,
) -> Result<(VectorIndex, Loaded)> {
    if store.dim() == 0 {
        // A text-only index (built without a model) has no vectors to load.
        let none = Loaded {
            snapshot: Some(generation),
            added: 0,
            removed: 0,
        };
        return Ok((VectorIndex::new(0, HnswParams::default()), none));
    }
    let snapshot = snapshots(index_dir)
        .into_iter()
        .find(|(g, _)| *g <= generation)
        .and_then(|(g, path)| {
            let keys = read_keys(&path.join(KEYS)).ok()?;
            let index = VectorIndex::load(&path).ok()?;
            (index.dim() == store.dim() && index.len() == keys.len()).then_some((g, index, keys))
        });
    let (mut index, from, keys) = match snapshot {
        Some((g, index, keys)) => (index, Some(g), keys),
        None => (
            VectorIndex::new(store.dim(), params(hnsw)),
            None,
            Vec::new(),
        ),
    };
    let mut loaded = Loaded {
        snapshot: from,
        added: 0,
        removed: 0,
    };
    let had: HashSet<u64> = keys.iter().copied().collect();
    for k in keys {
        if store.chunk(k).is_none() && index.remove(k)? {
            loaded.removed += 1;
        }
    }
    let missing: Vec<u64> = store
        .keys()
        .into_iter()
        .filter(|k| !had.contains(k))
        .collect();
    for batch in missing.chunks(BATCH) {
        let vectors = store.vectors(batch)?;
        let items: Vec<(u64, &[f32])> = batch
            .iter()
            .zip(&vectors)
            .map(|(k, v)| (*k, v.as_slice()))
            .collect();
        index.add_batch(&items)?;
        loaded.added += batch.len();
    }
    Ok((index, loaded))
}

/// Delete every snapshot and an interrupted save (before a rebuild).
pub fn remove_all(index_dir: &Path) -> Result<()> {
    for (_, path) in snapshots(index_dir) {
        std::fs::remove_dir_all(&path).map_err(io(&path))?;
    }
    let tmp = index_dir.join(TMP);
    if tmp.exists() {
        std::fs::remove_dir_all(&tmp).map_err(io(&tmp))?;
    }
    Ok(())
}

/// Problems of the vector snapshot for `store` at manifest generation `generation`: none, or
/// one that cannot be loaded (its files are checksummed), or one that lags behind the store.
/// Readers rebuild or catch up in memory and the next writer saves a sound snapshot; a
/// text-only index has none to check. With `compare_keys` false (the store itself lost damaged
/// documents) only the snapshot's own files are checked, not whether it matches the store.
pub fn verify(
    index_dir: &Path,
    store: &Store,
    generation: u64,
    compare_keys: bool,
) -> Vec<(PathBuf, String)> {
    if store.dim() == 0 {
        return Vec::new();
    }
    let Some((g, path)) = snapshots(index_dir)
        .into_iter()
        .find(|(g, _)| *g <= generation)
    else {
        return vec![(
            index_dir.join(format!("{PREFIX}{generation:010}")),
            "no vector snapshot (searches rebuild it from the store on every open)".into(),
        )];
    };
    let keys = match read_keys(&path.join(KEYS)) {
        Ok(k) => k,
        Err(e) => return vec![(path.join(KEYS), e.to_string())],
    };
    let index = match VectorIndex::load(&path) {
        Ok(i) => i,
        Err(e) => return vec![(path, e.to_string())],
    };
    if index.dim() != store.dim() || index.len() != keys.len() {
        return vec![(
            path,
            format!(
                "holds {} vectors of {} dimensions, its key list {} keys, the index has {} dimensions",
                index.len(),
                index.dim(),
                keys.len(),
                store.dim()
            ),
        )];
    }
    if !compare_keys {
        return Vec::new();
    }
    let had: HashSet<u64> = keys.iter().copied().collect();
    let stale = keys.iter().filter(|k| store.chunk(**k).is_none()).count();
    let missing = store.keys().iter().filter(|k| !had.contains(k)).count();
    if stale > 0 || missing > 0 || g != generation {
        return vec![(
            path,
            format!(
                "snapshot of generation {g} lags behind the store (generation {generation}): {missing} vectors to add, {stale} to remove"
            ),
        )];
    }
    Vec::new()
}
