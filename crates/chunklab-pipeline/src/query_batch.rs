//! Queries that arrive together share one forward pass of the model.
//!
//! A long-lived searcher (the server, a Python `Index`) embeds every dense or hybrid query. Run
//! one by one, concurrent queries queue for the cores and each pays a whole forward pass; run
//! together, the model's matrix products serve them all at once (500 short queries batched take
//! ≈ 1.7 ms each on 2 cores, one alone ≈ 10–20 ms). [`QueryBatcher`] batches without waiting:
//! a caller queues its query and takes the model's turn; whoever holds the turn embeds every
//! query queued so far and hands each caller its vector. Nobody waits for a batch to fill, so a
//! lone query costs what it did. A query's vector does not depend on its batch (sequences are
//! packed, not padded), so results are the same whatever the concurrency.

use anyhow::{anyhow, Result};
use chunklab_embed::{Embedder, Role};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;

/// One waiting query and where its vector goes.
type Waiting = (String, Sender<std::result::Result<Vec<f32>, String>>);

/// Embeds concurrent queries in shared batches; see the module docs.
#[derive(Default)]
pub(crate) struct QueryBatcher {
    queued: Mutex<Vec<Waiting>>,
    turn: Mutex<()>,
    batches: AtomicU64,
    queries: AtomicU64,
}

/// How many forward passes a searcher's query batcher ran, and for how many queries: their
/// ratio is the mean batch size (1 when queries never meet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct QueryBatchStats {
    /// Forward passes.
    pub batches: u64,
    /// Queries embedded in them.
    pub queries: u64,
}

/// At most this many queries share one forward pass.
const MAX_BATCH: usize = 64;

impl QueryBatcher {
    /// Forward passes and queries so far.
    pub fn stats(&self) -> QueryBatchStats {
        QueryBatchStats {
            batches: self.batches.load(Ordering::Relaxed),
            queries: self.queries.load(Ordering::Relaxed),
        }
    }

    /// `query`'s vector from `model` (role [`Role::Query`]), batched with the queries of other
    /// threads that are waiting at the same time.
    pub fn embed(&self, model: &dyn Embedder, query: &str) -> Result<Vec<f32>> {
        let (tx, rx) = channel();
        self.queued
            .lock()
            .map_err(|_| anyhow!("query batch lock"))?
            .push((query.to_string(), tx));
        loop {
            let turn = self.turn.lock().map_err(|_| anyhow!("query batch turn"))?;
            // An earlier turn may have embedded this query already.
            if let Ok(answer) = rx.try_recv() {
                return answer.map_err(|e| anyhow!(e));
            }
            let batch: Vec<Waiting> = {
                let mut q = self
                    .queued
                    .lock()
                    .map_err(|_| anyhow!("query batch lock"))?;
                let n = q.len().min(MAX_BATCH);
                q.drain(..n).collect()
            };
            if !batch.is_empty() {
                self.batches.fetch_add(1, Ordering::Relaxed);
                self.queries
                    .fetch_add(batch.len() as u64, Ordering::Relaxed);
                let texts: Vec<&str> = batch.iter().map(|(t, _)| t.as_str()).collect();
                match model.embed(&texts, Role::Query) {
                    Ok(vectors) if vectors.len() == batch.len() => {
                        for ((_, to), v) in batch.into_iter().zip(vectors) {
                            let _ = to.send(Ok(v));
                        }
                    }
                    Ok(vectors) => {
                        let e = format!("{} vectors for {} queries", vectors.len(), batch.len());
                        for (_, to) in batch {
                            let _ = to.send(Err(e.clone()));
                        }
                    }
                    Err(e) => {
                        let e = e.to_string();
                        for (_, to) in batch {
                            let _ = to.send(Err(e.clone()));
                        }
                    }
                }
            }
            drop(turn);
            // This query was in that batch, or is still queued (more than MAX_BATCH waited):
            // then take another turn.
            if let Ok(answer) = rx.try_recv() {
                return answer.map_err(|e| anyhow!(e));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    fn minilm() -> Option<Arc<dyn Embedder>> {
        chunklab_embed::load("minilm", &chunklab_embed::LoadOptions::default())
            .ok()
            .map(Arc::from)
    }

    #[test]
    fn concurrent_queries_get_the_vectors_they_get_alone() {
        let Some(model) = minilm() else {
            panic!("the minilm model is not installed: run `chunklab models fetch minilm`");
        };
        let queries: Vec<String> = (0..40)
            .map(|i| {
                format!(
                    "welke moties over windenergie zijn aangenomen in {}",
                    2000 + i
                )
            })
            .collect();
        let alone: Vec<Vec<f32>> = queries
            .iter()
            .map(|q| model.embed(&[q.as_str()], Role::Query).unwrap().remove(0))
            .collect();
        let batcher = Arc::new(QueryBatcher::default());
        let got: Vec<Vec<f32>> = std::thread::scope(|s| {
            let handles: Vec<_> = queries
                .iter()
                .map(|q| {
                    let (b, m) = (batcher.clone(), model.clone());
                    s.spawn(move || b.embed(&*m, q).unwrap())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert_eq!(got, alone);
        assert!(batcher.queued.lock().unwrap().is_empty());
    }
}
