//! The built-in sweeps: the general one (every strategy family), Chroma's report table, and the
//! contextual-retrieval sweep with its same-chunks control.

use super::config::{Config, Mode};
use super::spec::ChunkSpec;

/// Which built-in sweep to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultSweep {
    /// Every strategy family at 512 cl100k tokens with BM25, fixed size and heading-aware also
    /// dense, hybrid and hybrid-cv (the archive and own corpora).
    General,
    /// The configurations of the Chroma report's all-MiniLM-L6-v2 table that chunklab can
    /// express, plus chunklab's own strategies at the same size; dense.
    Chroma,
}

/// The separators of the Chroma report's `RecursiveTokenChunker` (its default list; the mean
/// chunk sizes it prints for 200/0, 400/0, 400/200 and 800/400 are what chunklab gets with
/// them: 137, 276, 313 and 661 cl100k tokens).
pub const CHROMA_SEPARATORS: [&str; 7] = ["\n\n", "\n", ".", "?", "!", " ", ""];

/// The built-in sweep `which` for `model`, with retrieval depth `k`.
pub fn default_sweep(which: DefaultSweep, model: &str, k: usize) -> Vec<Config> {
    let mut specs: Vec<(ChunkSpec, Vec<Mode>)> = Vec::new();
    match which {
        DefaultSweep::General => {
            // Every family is indexed for BM25 (no embedding: free); the two the choice is
            // between — fixed size against heading-aware — are also embedded, dense and hybrid.
            // Heading-aware as users run it merges sibling sections up to the size and puts
            // the heading path (document title > chapter > article) before each chunk, as
            // Docling's `contextualize` and LlamaIndex's header metadata do; without the path,
            // and one section per chunk (small sections alone), stay as BM25 rows.
            // Semantic and late chunking (which embed while chunking) are in `--config` sweeps.
            // `hybrid-cv` reuses the hybrid rows' candidates: the fusion weight the queries
            // support, held out, beside equal weight.
            let all = vec![Mode::Bm25, Mode::Dense, Mode::Hybrid, Mode::HybridCv];
            let mut sliding = ChunkSpec::new("sliding", 1024).with_overlap(256);
            sliding.stride = Some(768);
            sliding.overlap = 0;
            let mut merged = ChunkSpec::new("headings", 512);
            merged.merge_siblings = true;
            let mut titled = merged.clone();
            titled.title_prefix = true;
            specs.push((ChunkSpec::new("fixed", 512), all.clone()));
            specs.push((titled, all));
            for s in [
                merged,
                ChunkSpec::new("headings", 512),
                ChunkSpec::new("fixed", 512).with_overlap(64),
                sliding,
                ChunkSpec::new("sentence", 512),
                ChunkSpec::new("paragraph", 512),
                ChunkSpec::new("recursive", 512),
                ChunkSpec::new("hierarchical", 512),
            ] {
                specs.push((s, vec![Mode::Bm25]));
            }
        }
        DefaultSweep::Chroma => {
            let seps: Vec<String> = CHROMA_SEPARATORS.iter().map(|s| s.to_string()).collect();
            for (size, overlap) in [(250, 125), (250, 0), (200, 0)] {
                let mut r = ChunkSpec::new("recursive", size).with_overlap(overlap);
                r.compat = "langchain".into();
                r.separators = Some(seps.clone());
                specs.push((r, vec![Mode::Dense]));
            }
            for (size, overlap) in [(250, 125), (250, 0), (200, 0)] {
                let mut f = ChunkSpec::new("fixed", size).with_overlap(overlap);
                f.compat = "langchain".into();
                specs.push((f, vec![Mode::Dense]));
            }
            let mut late = ChunkSpec::new("late", 250);
            late.boundaries = Some("recursive".into());
            for s in [
                ChunkSpec::new("recursive", 250),
                ChunkSpec::new("sentence", 250),
                ChunkSpec::new("cluster", 250),
                late,
            ] {
                specs.push((s, vec![Mode::Dense]));
            }
        }
    }
    let mut out = Vec::new();
    for (spec, modes) in specs {
        // The report's rows keep the report's names.
        let label = match (spec.compat.as_str(), spec.strategy.as_str()) {
            ("langchain", "recursive") => format!("Recursive {}/{}", spec.size, spec.overlap),
            ("langchain", "fixed") => format!("TokenText {}/{}", spec.size, spec.overlap),
            _ => spec.label(),
        };
        for mode in modes {
            out.push(Config {
                label: label.clone(),
                chunk: spec.clone(),
                model: model.into(),
                mode,
                k,
                reranker: None,
                rerank_top: crate::collection::RERANK_TOP,
                retrieval: Default::default(),
                graph: Default::default(),
            });
        }
    }
    if which == DefaultSweep::Chroma {
        // Recall ≥ 85 and IoU ≥ 8 at once (docs/EVALUATION.md): small chunks, both retrievers,
        // and each of the k results a passage of the chunks retrieved next to each other.
        let spec = ChunkSpec::new("recursive", 70);
        let retrieval = super::Retrieval {
            merge: true,
            depth: Some(25),
            ..Default::default()
        };
        out.push(Config {
            label: spec.label() + &retrieval.label_suffix(),
            chunk: spec,
            model: model.into(),
            mode: Mode::Hybrid,
            k,
            reranker: None,
            rerank_top: crate::collection::RERANK_TOP,
            retrieval,
            graph: Default::default(),
        });
    }
    out
}

/// The contextual-retrieval sweep: `headings` at `size` cl100k tokens without a context, at the
/// smaller size the context configurations chunk at (the same chunks, without a context: the
/// control that separates the context's effect from the smaller chunks'), with the `header`
/// context and with an `llm` context written by `llm`, each in `modes`.
pub fn contextual_sweep(
    size: usize,
    modes: &[Mode],
    model: &str,
    k: usize,
    llm: &str,
) -> Vec<Config> {
    let mut out = Vec::new();
    let mut with_context = ChunkSpec::new("headings", size);
    with_context.context = Some("header".into());
    let control = with_context.chunk_size();
    for (size, context) in [
        (size, None),
        (control, None),
        (size, Some("header")),
        (size, Some("llm")),
    ] {
        let mut spec = ChunkSpec::new("headings", size);
        spec.context = context.map(String::from);
        if context == Some("llm") {
            spec.llm = Some(llm.to_string());
        }
        for &mode in modes {
            out.push(Config {
                label: spec.label(),
                chunk: spec.clone(),
                model: model.into(),
                mode,
                k,
                reranker: None,
                rerank_top: crate::collection::RERANK_TOP,
                retrieval: Default::default(),
                graph: Default::default(),
            });
        }
    }
    out
}
