//! Sweeps: which configurations a benchmark runs. A configuration is a chunking strategy with
//! its parameters, an embedding model, a retrieval mode and k. Sweeps come from TOML
//! ([`parse_sweep`]) or are built in ([`default_sweep`]).
//!
//! ```toml
//! # Top-level keys are defaults for every [[config]]; any value may be a list, and every
//! # combination of the lists is run.
//! models = ["e5-small"]
//! modes = ["dense", "hybrid"]
//! k = 10
//! unit = "tokens"
//! tokenizer = "cl100k"
//!
//! [[config]]
//! strategy = "recursive"
//! size = [256, 512]
//! overlap = [0, 64]
//!
//! [[config]]
//! strategy = "late"
//! boundaries = "headings"
//! size = 512
//! ```

mod config;
mod defaults;
mod file;
mod spec;

pub use config::{Config, Graph, Mode, Retrieval};
pub use defaults::{contextual_sweep, default_sweep, DefaultSweep, CHROMA_SEPARATORS};
pub use file::{parse_sweep, SweepDefaults};
pub use spec::ChunkSpec;

#[cfg(test)]
mod tests {
    use super::*;

    fn d() -> SweepDefaults {
        SweepDefaults {
            model: "minilm".into(),
            k: 5,
        }
    }

    #[test]
    fn lists_expand_to_every_combination() {
        let text = r#"
modes = ["dense", "hybrid"]
tokenizer = "cl100k"

[[config]]
strategy = "recursive"
size = [256, 512]
overlap = [0, 64]

[[config]]
strategy = "hierarchical"
levels = [[1024, 256], [512, 128]]
k = 10
"#;
        let c = parse_sweep(text, &d()).unwrap();
        assert_eq!(c.len(), 2 * 2 * 2 + 2 * 2);
        assert_eq!(c[0].label, "recursive 256");
        assert_eq!(c[0].mode, Mode::Dense);
        assert_eq!(c[1].mode, Mode::Hybrid);
        assert_eq!(c[0].model, "minilm");
        assert_eq!(c[2].chunk.size, 512);
        assert_eq!(c[4].chunk.overlap, 64);
        assert_eq!(c[8].chunk.levels, Some(vec![1024, 256]));
        assert_eq!(c[8].k, 10);
        assert_eq!(c[0].k, 5);
    }

    #[test]
    fn problems_carry_line_numbers() {
        let text = "k = 5\n\n[[config]]\nstrategy = \"fixed\"\nsise = 3\n\n[[config]]\nstrategy = \"fixed\"\nmode = \"sparse\"\n";
        let p = parse_sweep(text, &d()).unwrap_err();
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[0].0, 5);
        assert!(p[0].1.contains("unknown key `sise`"));
        assert_eq!(p[1].0, 9);
        assert!(p[1].1.contains("unknown mode `sparse`"));
    }

    #[test]
    fn rerank_top_is_a_run_key_with_a_default() {
        let text = "[[config]]\nstrategy = \"fixed\"\nsize = 100\nmodes = [\"hybrid+rerank\"]\nrerank_top = [10, 50]\n";
        let c = parse_sweep(text, &d()).unwrap();
        let tops: Vec<usize> = c.iter().map(|c| c.rerank_top).collect();
        assert_eq!(tops, [10, 50]);
        assert_eq!(c[1].label, "fixed 100 top 50");
        let text =
            "[[config]]\nstrategy = \"fixed\"\nsize = 100\nmodes = [\"dense\"]\nef = [32, 256]\n";
        let c = parse_sweep(text, &d()).unwrap();
        let efs: Vec<Option<usize>> = c.iter().map(|c| c.retrieval.ef).collect();
        assert_eq!(efs, [Some(32), Some(256)]);
        assert_eq!(c[1].label, "fixed 100 ef 256");
        assert_eq!(c[1].retrieval.search_config().ef, Some(256));
        let bad = "[[config]]\nstrategy = \"fixed\"\nsize = 100\nef = 0\n";
        let e = parse_sweep(bad, &d()).unwrap_err();
        assert!(e[0].1.contains("`ef` must be between 1 and 10000"), "{e:?}");
        let c = parse_sweep("[[config]]\nstrategy = \"fixed\"\nsize = 100\n", &d()).unwrap();
        assert_eq!(c[0].rerank_top, crate::collection::RERANK_TOP);
        let p = parse_sweep(
            "[[config]]\nstrategy = \"fixed\"\nsize = 100\nrerank_top = 0\n",
            &d(),
        )
        .unwrap_err();
        assert!(p[0].1.contains("rerank_top"), "{p:?}");
    }

    /// The graph's shape sweeps per row; rows of one chunking that differ only there are
    /// grouped apart (one index each); a shape no store can build is refused at its line.
    #[test]
    fn the_graph_is_a_run_key_and_its_own_group() {
        let text = "[[config]]\nstrategy = \"fixed\"\nsize = 100\nmodes = [\"dense\", \"bm25\"]\nhnsw_ef_construction = [40, 128]\nhnsw_m = 8\n";
        let c = parse_sweep(text, &d()).unwrap();
        let got: Vec<(String, Graph)> = c.iter().map(|c| (c.label.clone(), c.graph)).collect();
        let g = |ef| Graph {
            m: Some(8),
            ef_construction: Some(ef),
        };
        assert_eq!(
            got,
            [
                ("fixed 100 m 8 efc 40".to_string(), g(40)),
                ("fixed 100 m 8 efc 40".to_string(), g(40)),
                ("fixed 100 m 8 efc 128".to_string(), g(128)),
                ("fixed 100 m 8 efc 128".to_string(), g(128)),
            ]
        );
        // Dense rows get an index per graph; BM25 rows need none and share one.
        let groups = crate::run::group_configs(&c);
        let members: Vec<Vec<usize>> = groups.iter().map(|g| g.members.clone()).collect();
        assert_eq!(members, [vec![0], vec![1, 3], vec![2]]);
        assert_eq!(groups[1].graph, Graph::default());
        let bad = "k = 5\n[[config]]\nstrategy = \"fixed\"\nsize = 100\nhnsw_m = 80\n";
        let e = parse_sweep(bad, &d()).unwrap_err();
        assert_eq!(e[0].0, 5, "{e:?}");
        assert!(
            e[0].1.contains(
                "`hnsw_ef_construction`: 128 (must be 4 to 1000 and at least twice `hnsw_m`, 160)"
            ),
            "{e:?}"
        );
        let bad = "[[config]]\nstrategy = \"fixed\"\nsize = 100\nhnsw_m = 1\n";
        let e = parse_sweep(bad, &d()).unwrap_err();
        assert!(e[0].1.contains("`hnsw_m`: 1 (must be 2 to 100)"), "{e:?}");
    }

    #[test]
    fn windows_that_cannot_be_cut_are_refused_at_their_line() {
        // Found when the sweep is read, not after the corpus is parsed and embedded.
        let bad = "[[config]]\nstrategy = \"recursive\"\nsize = [100, 200]\noverlap = 100\n";
        let e = parse_sweep(bad, &d()).unwrap_err();
        assert_eq!(e[0].0, 4, "{e:?}");
        assert!(
            e[0].1
                .contains("`overlap` 100 must be smaller than the size, 100"),
            "{e:?}"
        );
        let bad = "[[config]]\nstrategy = \"sliding\"\nsize = 100\nstride = 120\n";
        let e = parse_sweep(bad, &d()).unwrap_err();
        assert!(
            e[0].1.contains("`stride` 120 is larger than the size, 100"),
            "{e:?}"
        );
    }

    #[test]
    fn fusion_weights_merge_and_depth_are_run_keys() {
        let text = "[[config]]\nstrategy = \"fixed\"\nsize = 100\nmodes = [\"hybrid\"]\nbm25_weight = [1, 4]\nmerge = true\ndepth = 20\n";
        let c = parse_sweep(text, &d()).unwrap();
        let got: Vec<(f32, bool, Option<usize>)> = c
            .iter()
            .map(|c| {
                (
                    c.retrieval.bm25_weight,
                    c.retrieval.merge,
                    c.retrieval.depth,
                )
            })
            .collect();
        assert_eq!(got, [(1.0, true, Some(20)), (4.0, true, Some(20))]);
        assert_eq!(c[0].label, "fixed 100 merge depth 20");
        assert_eq!(c[1].label, "fixed 100 w 4:1 merge depth 20");
        let c = parse_sweep("[[config]]\nstrategy = \"fixed\"\nsize = 100\n", &d()).unwrap();
        assert_eq!(c[0].retrieval, Retrieval::default());
        assert_eq!(c[0].label, "fixed 100");
        for (bad, key) in [
            ("bm25_weight = -1", "bm25_weight"),
            ("bm25_weight = 0\ndense_weight = 0", "bm25_weight"),
            ("dense_weight = \"x\"", "dense_weight"),
            ("depth = 0", "depth"),
            ("merge = 1", "merge"),
            (
                "merge = true\nmodes = [\"hybrid\", \"hybrid-cv\"]",
                "hybrid-cv",
            ),
        ] {
            let text = format!("[[config]]\nstrategy = \"fixed\"\nsize = 100\n{bad}\n");
            let p = parse_sweep(&text, &d()).unwrap_err();
            assert!(p[0].1.contains(key), "{bad}: {p:?}");
        }
    }

    #[test]
    fn merge_siblings_reaches_the_headings_chunker() {
        let text =
            "[[config]]\nstrategy = \"headings\"\nsize = 512\nmerge_siblings = [false, true]\n";
        let c = parse_sweep(text, &d()).unwrap();
        assert_eq!(c[0].label, "headings 512");
        assert_eq!(c[1].label, "headings 512 merged");
        assert!(c[1].chunk.config().unwrap().merge_siblings);
        assert_ne!(c[0].chunk, c[1].chunk, "different chunks, different groups");
        let p = parse_sweep(
            "[[config]]\nstrategy = \"fixed\"\nsize = 100\nmerge_siblings = true\n",
            &d(),
        )
        .unwrap_err();
        assert!(p[0].1.contains("merge_siblings"), "{p:?}");
    }

    #[test]
    fn malformed_toml_names_its_line() {
        let p = parse_sweep("k = 5\n[[config]\nstrategy = 1\n", &d()).unwrap_err();
        assert_eq!(p[0].0, 2, "{p:?}");
        let p = parse_sweep("k = 5\n", &d()).unwrap_err();
        assert!(p[0].1.contains("no [[config]]"));
        assert!(!p[0].1.contains("put `[[config]]`"), "{p:?}");
        // Strategies written at the top level: the table they need is named, at their line.
        let p = parse_sweep("k = 5\nstrategy = \"fixed\"\nsize = [100]\n", &d()).unwrap_err();
        assert_eq!(p[0].0, 2, "{p:?}");
        assert!(
            p[0].1.contains("put `[[config]]` above `strategy`"),
            "{p:?}"
        );
    }

    #[test]
    fn default_sweeps_cover_the_issue() {
        let g = default_sweep(DefaultSweep::General, "e5-small", 5);
        assert_eq!(g.len(), 16);
        let strategies: Vec<&str> = g.iter().map(|c| c.chunk.strategy.as_str()).collect();
        for s in [
            "fixed",
            "sliding",
            "sentence",
            "paragraph",
            "recursive",
            "headings",
            "hierarchical",
        ] {
            assert!(strategies.contains(&s), "{s}");
        }
        // Every family with BM25; only fixed 512 and headings 512 are embedded (dense, hybrid,
        // hybrid-cv).
        let embedded: Vec<&str> = g
            .iter()
            .filter(|c| c.mode.dense())
            .map(|c| c.label.as_str())
            .collect();
        assert_eq!(
            embedded,
            [
                "fixed 512",
                "fixed 512",
                "fixed 512",
                "headings 512 merged +title",
                "headings 512 merged +title",
                "headings 512 merged +title"
            ]
        );
        // Heading-aware without the heading path before each chunk stays as a BM25 row.
        assert!(g
            .iter()
            .any(|c| c.label == "headings 512 merged" && c.mode == Mode::Bm25));
        assert!(g.iter().all(|c| !c.chunk.needs_model() && c.k == 5));
        let c = default_sweep(DefaultSweep::Chroma, "minilm", 5);
        assert_eq!(c[0].label, "Recursive 250/125");
        assert_eq!(c[4].label, "TokenText 250/0");
        assert_eq!(c[0].chunk.separators.as_ref().unwrap().len(), 7);
        let (ours, report): (Vec<&Config>, Vec<&Config>) =
            c.iter().partition(|x| x.mode == Mode::Hybrid);
        assert!(report.iter().all(|x| x.k == 5 && x.mode == Mode::Dense));
        assert_eq!(ours.len(), 1);
        assert_eq!(ours[0].label, "recursive 70 merge depth 25");
        assert!(ours[0].retrieval.merge);
    }

    #[test]
    fn contextual_sweep_has_a_same_chunks_control() {
        let c = contextual_sweep(250, &[Mode::Dense], "minilm", 5, "local:smollm2");
        let labels: Vec<&str> = c.iter().map(|x| x.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "headings 250",
                "headings 200",
                "headings 250 +context header",
                "headings 250 +context llm"
            ]
        );
        // The context rows chunk at the control's size.
        assert_eq!(c[2].chunk.chunk_size(), c[1].chunk.size);
        assert_eq!(c[3].chunk.llm_or_default(), "local:smollm2");
        assert_eq!(c[2].chunk.params()["context_reserve"], 50);
        let p = parse_sweep(
            "[[config]]\nstrategy = \"headings\"\ncontext = \"summary\"\n",
            &SweepDefaults {
                model: "minilm".into(),
                k: 5,
            },
        )
        .unwrap_err();
        assert!(p[0].1.contains("unknown context `summary`"), "{p:?}");
    }
}
