//! Issue 19 item 1: any `k`, `rerank_top` or `depth` a caller gives is safe. Before the clamp,
//! `k = usize::MAX` panicked with "capacity overflow" (BM25, hybrid, shaping) and `k = 2^32`
//! aborted on a 64 GiB allocation; now every count is capped at the collection size.

use chunklab_index::vectors::{HnswParams, VectorIndex};
use chunklab_index::{Index, IndexWriter, Mode, NewChunk, NewDocument, Query, Rerank, Settings};

fn settings() -> Settings {
    Settings {
        chunker: "paragraph size=200 unit=chars".into(),
        reading: "parser=auto".into(),
        unit: "chars".into(),
        tokenizer: None,
        model: "toy".into(),
        dim: 2,
        model_max_tokens: 64,
        hnsw: None,
        lang: "en".into(),
        run: None,
    }
}

fn doc(doc_id: &str, text: &str) -> NewDocument {
    let mut chunks = Vec::new();
    let mut start = 0;
    for (i, para) in text.split("\n\n").enumerate() {
        let end = start + para.len();
        let v = if i % 2 == 0 {
            vec![1.0, 0.0]
        } else {
            vec![0.0, 1.0]
        };
        chunks.push(NewChunk::new(
            &format!("{doc_id}#{i}"),
            start,
            end,
            start,
            end,
            i,
            v,
        ));
        start = end + 2;
    }
    NewDocument {
        doc_id: doc_id.into(),
        source: doc_id.into(),
        hash: doc_id.into(),
        text: text.into(),
        acl: vec![],
        fields: Default::default(),
        chunks,
    }
}

struct Shortest;

impl Rerank for Shortest {
    fn rerank(&self, _query: &str, passages: &[&str]) -> Result<Vec<f32>, String> {
        Ok(passages.iter().map(|p| -(p.len() as f32)).collect())
    }
}

fn index() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let mut w = IndexWriter::open(dir.path(), settings(), false).unwrap();
    w.add_document(doc("a.txt", "wind turbines at sea\n\nmore wind on land"))
        .unwrap();
    w.add_document(doc("b.txt", "parking permits\n\nwind and parking"))
        .unwrap();
    w.finish().unwrap();
    let index = Index::open(dir.path()).unwrap();
    (dir, index)
}

#[test]
fn huge_k_rerank_top_and_depth_return_every_match_without_panicking() {
    let (_dir, index) = index();
    let reranker = Shortest;
    for k in [usize::MAX, 1 << 32, u32::MAX as usize + 7] {
        for mode in [Mode::Bm25, Mode::Dense, Mode::Hybrid] {
            for shape in 0..4 {
                for rerank in [false, true] {
                    let mut q = Query::new("wind", mode, k).with_vector(&[1.0, 0.0]);
                    q.docs = shape == 1;
                    q.merge = shape == 2;
                    if shape == 3 {
                        q.depth = Some(k);
                    }
                    if rerank {
                        q.rerank = Some(&reranker);
                        q.rerank_top = k;
                    }
                    let hits = index.search(&q).unwrap();
                    let want = match (mode, shape) {
                        (_, 1) => 2,
                        (Mode::Bm25, 2) => 2,
                        (Mode::Bm25, _) => 3,
                        (_, 2) => 2,
                        _ => 4,
                    };
                    assert_eq!(
                        hits.len(),
                        want,
                        "k={k} {mode:?} shape {shape} rerank {rerank}"
                    );
                }
            }
        }
    }
}

#[test]
fn an_empty_index_answers_huge_k_with_nothing() {
    let dir = tempfile::tempdir().unwrap();
    IndexWriter::open(dir.path(), settings(), false)
        .unwrap()
        .finish()
        .unwrap();
    let index = Index::open(dir.path()).unwrap();
    for mode in [Mode::Bm25, Mode::Dense, Mode::Hybrid] {
        let q = Query::new("wind", mode, usize::MAX).with_vector(&[1.0, 0.0]);
        assert!(index.search(&q).unwrap().is_empty());
    }
}

#[test]
fn vector_searches_clamp_k_to_the_number_of_vectors() {
    let mut v = VectorIndex::new(2, HnswParams::default());
    v.add(1, &[1.0, 0.0]).unwrap();
    v.add(2, &[0.6, 0.8]).unwrap();
    v.add(3, &[0.0, 1.0]).unwrap();
    for k in [usize::MAX, 1 << 32] {
        assert_eq!(v.search(&[1.0, 0.0], k, None).unwrap().len(), 3);
        assert_eq!(v.search_exact(&[1.0, 0.0], k, None).unwrap().len(), 3);
        // The graph walk sized its result buffer from k: 2^32 aborted the process.
        let graph = v.search_graph(&[1.0, 0.0], k, None).unwrap();
        assert_eq!(graph.iter().map(|h| h.0).collect::<Vec<_>>(), [1, 2, 3]);
    }
}
