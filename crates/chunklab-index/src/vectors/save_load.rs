//! Saving a [`VectorIndex`] to a directory and loading it back, every file verified first (the
//! layout and the crash-safe commit are in [`persist`](super::persist)).

use std::collections::HashSet;
use std::path::Path;

use super::engine::{context_count, engine_error, Engine};
use super::error::{Result, VectorError};
use super::flat::FlatStore;
use super::params::{GraphVectors, HnswParams};
use super::persist::{self, ExactRows};
use super::VectorIndex;

impl VectorIndex {
    /// Saves the index into `dir` (created if missing) durably: new data files are written and
    /// fsynced, then the manifest `vectors.json` is atomically replaced, then the previous files
    /// are deleted. A crash mid-save leaves the previous version loadable.
    pub fn save(&self, dir: &Path) -> Result<()> {
        let generation = persist::begin(dir)?;
        let graph = match (&self.engine, self.store.len()) {
            (Some(engine), live) if live > 0 => {
                let path = generation
                    .graph
                    .to_str()
                    .ok_or_else(|| VectorError::Corrupt {
                        path: generation.graph.clone(),
                        reason: "path is not UTF-8 (the HNSW engine needs UTF-8 paths)".to_string(),
                    })?;
                {
                    let _context = engine.gate.enter();
                    engine
                        .index
                        .save(path)
                        .map_err(|error| VectorError::Engine {
                            operation: format!("saving {path}"),
                            message: error.to_string(),
                        })?;
                }
                Some(persist::seal(&generation.graph)?)
            }
            _ => None,
        };
        // An i8 graph is not an exact copy: the exact vectors get a file of their own.
        let vectors = if graph.is_some() && self.params.graph == GraphVectors::I8 {
            persist::write_rows(&generation.vectors, &self.store.row_blocks())?;
            Some(persist::seal(&generation.vectors)?)
        } else {
            None
        };
        persist::write_keys(&generation.keys, self.store.keys())?;
        let keys = persist::seal(&generation.keys)?;
        let manifest = persist::manifest(
            &generation,
            self.dim,
            &self.params,
            self.store.len(),
            graph,
            vectors,
            keys,
        );
        persist::commit(dir, &manifest)
    }

    /// Loads an index saved by [`save`](Self::save). Every data file's length and BLAKE3 hash is
    /// checked first; a missing, truncated or corrupt file is an error naming it.
    pub fn load(dir: &Path) -> Result<Self> {
        let manifest = persist::read_manifest(dir)?;
        let keys_path = persist::verify(dir, &manifest.keys)?;
        let keys = persist::read_keys(&keys_path)?;
        let mut seen = HashSet::with_capacity(keys.len());
        if let Some(key) = keys.iter().find(|key| !seen.insert(**key)) {
            return Err(VectorError::Corrupt {
                path: keys_path,
                reason: format!("key {key} appears twice"),
            });
        }
        drop(seen);
        let params = HnswParams {
            m: manifest.m,
            ef_construction: manifest.ef_construction,
            ef_search: manifest.ef_search,
            graph: manifest.graph_vectors(),
        };
        let mut index = VectorIndex::new(manifest.dim, params);
        let Some(graph) = &manifest.graph else {
            return Ok(index);
        };
        let graph_path = persist::verify(dir, graph)?;
        let corrupt = |reason: String| VectorError::Corrupt {
            path: graph_path.clone(),
            reason,
        };
        let path = graph_path
            .to_str()
            .ok_or_else(|| corrupt("path is not UTF-8".to_string()))?;
        // The exact vectors of an i8 graph, verified before the graph is read; memory-mapped
        // where that is supported (persist::MAP_VECTORS), so they are not held on the heap.
        let rows = match &manifest.vectors {
            Some(entry) => Some(persist::open_rows(
                dir,
                entry,
                keys.len(),
                manifest.dim,
                persist::MAP_VECTORS,
            )?),
            None => None,
        };
        let meta = usearch::Index::metadata(path)
            .map_err(|error| corrupt(format!("unreadable HNSW header: {error}")))?;
        let (metric, quantization) = Engine::kinds(params.graph);
        if meta.dimensions != manifest.dim as u64
            || meta.count_present != keys.len() as u64
            || meta.metric != metric
            || meta.quantization != quantization
            || meta.multi
        {
            return Err(corrupt(format!(
                "HNSW header ({} dimensions, {} vectors) does not match the manifest ({} dimensions, {} vectors)",
                meta.dimensions, meta.count_present, manifest.dim, keys.len()
            )));
        }
        let contexts = context_count(index.build_threads);
        let mut engine = Engine::new(manifest.dim, &params, contexts)?;
        engine
            .index
            .load(path)
            .map_err(|error| corrupt(format!("the HNSW engine cannot load it: {error}")))?;
        engine.index.change_expansion_add(params.ef_construction);
        engine
            .index
            .change_expansion_search(Engine::SEARCH_EXPANSION);
        engine.tombstones = meta.count_deleted as usize;
        engine.capacity = engine.index.capacity().max(keys.len() + engine.tombstones);
        engine
            .index
            .reserve_capacity_and_threads(engine.capacity, contexts)
            .map_err(engine_error("reserving threads"))?;
        if let Some(rows) = rows {
            if let Some(key) = keys.iter().find(|&&key| !engine.index.contains(key)) {
                return Err(corrupt(format!("key {key} is missing from the HNSW file")));
            }
            index.store = match rows {
                ExactRows::Mapped(map) => FlatStore::from_mapped(manifest.dim, keys, map),
                ExactRows::Read(rows) => FlatStore::from_rows(manifest.dim, keys, rows),
            };
            index.engine = Some(engine);
            return Ok(index);
        }
        index.store.reserve(keys.len());
        let mut row = vec![0f32; manifest.dim];
        for &key in &keys {
            let found = engine.index.get(key, &mut row).map_err(|error| {
                corrupt(format!("cannot read the vector of key {key}: {error}"))
            })?;
            if found != 1 {
                return Err(corrupt(format!("key {key} is missing from the HNSW file")));
            }
            if row.iter().any(|v| !v.is_finite()) {
                return Err(corrupt(format!("the vector of key {key} is not finite")));
            }
            index.store.upsert(key, &row);
        }
        index.engine = Some(engine);
        Ok(index)
    }
}
