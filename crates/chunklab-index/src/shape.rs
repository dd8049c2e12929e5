//! Result shaping after retrieval (and reranking), in this order:
//!
//! 1. **small-to-big** ([`small_to_big`]): every retrieved child chunk is replaced by its parent
//!    (hierarchical chunks, `parent_id`), duplicates folded into the best-ranked one;
//! 2. **auto-merging** ([`auto_merge`]): when at least `threshold` of a parent's children were
//!    retrieved, they are replaced by the parent, repeatedly up the hierarchy;
//! 3. **merging** ([`merge_adjacent`]): overlapping, touching or consecutive chunks of one
//!    document become one hit spanning them, its text cut from the original document text;
//! 4. **document aggregation** ([`best_per_document`]): one hit per document, its best chunk.
//!
//! A shaped hit scores as the best of the chunks it stands for and lists their ids in
//! [`Hit::chunks`]; hits stay sorted by score descending, ties by key.
//!
//! Shaping reads chunks through a [`ShapeSource`]: the embedded [`Store`], or what another store
//! (PostgreSQL) fetched for the candidates, so every store shapes with this code.

use crate::error::Result;
use crate::store::{ChunkRecord, Store};
use crate::Hit;
use std::collections::HashMap;

/// What shaping needs of a store: chunks by key (the candidates and their ancestors), keys by
/// chunk id, how many children each parent has, and document texts.
pub trait ShapeSource {
    /// The chunk with this key (every candidate and every ancestor of one must be there).
    fn chunk(&self, key: u64) -> Option<&ChunkRecord>;
    /// The key of a chunk id.
    fn key_of(&self, chunk_id: &str) -> Option<u64>;
    /// Number of children of each parent chunk id (at least of the candidates' ancestors).
    fn child_counts(&self) -> HashMap<String, usize>;
    /// The full text of a document.
    fn doc_text(&self, doc_id: &str) -> Result<String>;
    /// Give hits made from records that carry no text (the embedded [`Store`] holds none in
    /// memory) the text of their span; records with texts leave nothing to do.
    fn fill_texts(&self, _hits: &mut [Hit]) -> Result<()> {
        Ok(())
    }
}

impl ShapeSource for Store {
    fn chunk(&self, key: u64) -> Option<&ChunkRecord> {
        Store::chunk(self, key)
    }
    fn key_of(&self, chunk_id: &str) -> Option<u64> {
        Store::key_of(self, chunk_id)
    }
    fn child_counts(&self) -> HashMap<String, usize> {
        let mut children: HashMap<String, usize> = HashMap::new();
        for c in self.chunks() {
            if let Some(p) = c.parent_id.as_deref() {
                *children.entry(p.to_string()).or_default() += 1;
            }
        }
        children
    }
    fn doc_text(&self, doc_id: &str) -> Result<String> {
        Store::doc_text(self, doc_id)
    }
    fn fill_texts(&self, hits: &mut [Hit]) -> Result<()> {
        Store::fill_texts(self, hits)
    }
}

fn rank(hits: &mut [Hit]) {
    hits.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.key.cmp(&b.key)));
}

/// Fold `from` into `into`: best score, union of chunk ids, first-seen retriever ranks.
fn absorb(into: &mut Hit, from: &Hit) {
    if from.score > into.score {
        into.score = from.score;
    }
    for id in &from.chunks {
        if !into.chunks.contains(id) {
            into.chunks.push(id.clone());
        }
    }
    into.bm25_rank = min_rank(into.bm25_rank, from.bm25_rank);
    into.dense_rank = min_rank(into.dense_rank, from.dense_rank);
}

fn min_rank(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => Some(x.min(y)),
        (x, y) => x.or(y),
    }
}

fn parent_of<'s>(store: &'s dyn ShapeSource, chunk: &ChunkRecord) -> Option<&'s ChunkRecord> {
    let pid = chunk.parent_id.as_deref()?;
    store.chunk(store.key_of(pid)?)
}

/// Replace each hit by its parent chunk (hits without a parent stay), folding duplicates.
pub fn small_to_big(hits: Vec<Hit>, store: &dyn ShapeSource) -> Vec<Hit> {
    let mut out: Vec<Hit> = Vec::with_capacity(hits.len());
    let mut at: HashMap<u64, usize> = HashMap::new();
    for hit in hits {
        let up = store
            .chunk(hit.key)
            .and_then(|c| parent_of(store, c))
            .map(|p| {
                let mut h = Hit::from_chunk(p, hit.score);
                h.chunks = hit.chunks.clone();
                h.bm25_rank = hit.bm25_rank;
                h.dense_rank = hit.dense_rank;
                h
            })
            .unwrap_or(hit);
        match at.get(&up.key) {
            Some(&i) => absorb(&mut out[i], &up),
            None => {
                at.insert(up.key, out.len());
                out.push(up);
            }
        }
    }
    rank(&mut out);
    out
}

/// Replace the retrieved children of a parent by the parent when they are at least `threshold`
/// (0..=1) of its children, repeatedly (a merged parent counts as a retrieved child of its own
/// parent). Only parents with at least two children merge.
pub fn auto_merge(mut hits: Vec<Hit>, store: &dyn ShapeSource, threshold: f32) -> Vec<Hit> {
    let children = store.child_counts();
    loop {
        let mut retrieved: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, h) in hits.iter().enumerate() {
            if let Some(p) = store.chunk(h.key).and_then(|c| parent_of(store, c)) {
                retrieved.entry(p.key).or_default().push(i);
            }
        }
        let mut parents: Vec<(u64, Vec<usize>)> = retrieved
            .into_iter()
            .filter(|(pk, idx)| {
                let parent = store.chunk(*pk).expect("parent is live");
                let total = children.get(parent.id.as_str()).copied().unwrap_or(0);
                idx.len() >= 2 && idx.len() as f32 >= threshold * total as f32
            })
            .collect();
        if parents.is_empty() {
            break;
        }
        parents.sort_unstable_by_key(|p| p.0);
        let mut drop = vec![false; hits.len()];
        let mut merged = Vec::new();
        for (pk, idx) in parents {
            let parent = store.chunk(pk).expect("parent is live");
            let mut h = Hit::from_chunk(parent, f32::NEG_INFINITY);
            h.chunks.clear();
            for &i in &idx {
                absorb(&mut h, &hits[i]);
                drop[i] = true;
            }
            merged.push(h);
        }
        let mut keep: Vec<Hit> = hits
            .into_iter()
            .zip(drop)
            .filter(|(_, d)| !d)
            .map(|(h, _)| h)
            .collect();
        // A parent that was itself retrieved absorbs its merged copy.
        for m in merged {
            match keep.iter_mut().find(|h| h.key == m.key) {
                Some(h) => absorb(h, &m),
                None => keep.push(m),
            }
        }
        hits = keep;
        rank(&mut hits);
    }
    hits
}

/// Merge hits of the same document whose spans overlap or touch, or that are consecutive chunks,
/// into one hit spanning them (text cut from the stored document text).
pub fn merge_adjacent(hits: Vec<Hit>, store: &dyn ShapeSource) -> Result<Vec<Hit>> {
    let mut by_doc: HashMap<String, Vec<Hit>> = HashMap::new();
    for h in hits {
        by_doc.entry(h.doc_id.clone()).or_default().push(h);
    }
    let mut out = Vec::new();
    let mut docs: Vec<_> = by_doc.into_iter().collect();
    docs.sort_by(|a, b| a.0.cmp(&b.0));
    for (doc_id, mut group) in docs {
        if group.len() == 1 {
            out.extend(group);
            continue;
        }
        group.sort_by_key(|h| (h.start_byte, h.end_byte, h.key));
        let index_of = |h: &Hit| store.chunk(h.key).map(|c| c.index);
        let mut runs: Vec<(Hit, Option<usize>, bool)> = Vec::new();
        for h in group {
            let idx = index_of(&h);
            if let Some((run, last_idx, grown)) = runs.last_mut() {
                let consecutive = matches!((*last_idx, idx), (Some(a), Some(b)) if b == a + 1);
                if h.start_byte <= run.end_byte || consecutive {
                    if h.end_byte > run.end_byte {
                        run.end_byte = h.end_byte;
                        run.end_char = h.end_char;
                    }
                    absorb(run, &h);
                    *last_idx = idx.or(*last_idx);
                    *grown = true;
                    continue;
                }
            }
            runs.push((h, idx, false));
        }
        if runs.iter().any(|r| r.2) {
            let text = store.doc_text(&doc_id)?;
            for (run, _, grown) in &mut runs {
                if *grown {
                    run.text = text
                        .get(run.start_byte..run.end_byte)
                        .unwrap_or_default()
                        .to_string();
                }
            }
        }
        out.extend(runs.into_iter().map(|r| r.0));
    }
    rank(&mut out);
    Ok(out)
}

/// Keep the best hit of each document.
pub fn best_per_document(hits: Vec<Hit>) -> Vec<Hit> {
    let mut seen = std::collections::HashSet::new();
    hits.into_iter()
        .filter(|h| seen.insert(h.doc_id.clone()))
        .collect()
}
