//! `merge` rows: every result is a passage of consecutive chunks, so a merged row retrieves every
//! chunk its unmerged twin retrieves (the passages of the top k chunks outrank every other
//! passage) and more text; its exact recall is never lower on any query.

use chunklab_eval::archive::{generate, ArchiveOptions};
use chunklab_eval::progress::NoProgress;
use chunklab_eval::run::{run, RunOptions};
use chunklab_eval::sweep::{parse_sweep, SweepDefaults};

fn per_query<'a>(row: &'a chunklab_eval::result::Row, name: &str) -> &'a [f64] {
    &row.per_query
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("{}: no per-query {name}", row.label))
        .1
}

#[test]
fn merged_passages_contain_the_unmerged_hits() {
    let ds = generate(&ArchiveOptions { docs: 40, seed: 5 });
    let sweep = "modes = [\"bm25\"]\nk = 3\nunit = \"tokens\"\ntokenizer = \"cl100k\"\n\
                 [[config]]\nstrategy = \"recursive\"\nsize = 64\nmerge = [false, true]\ndepth = 15\n";
    let defaults = SweepDefaults {
        model: "minilm".into(),
        k: 3,
    };
    let configs = parse_sweep(sweep, &defaults).unwrap();
    assert_eq!(configs.len(), 2);
    let result = run(ds, &configs, &RunOptions::default(), &NoProgress).unwrap();
    let plain = &result.rows[0];
    let merged = &result.rows[1];
    assert_eq!(merged.label, "recursive 64 merge depth 15");
    let (a, b) = (
        per_query(plain, "recall_exact"),
        per_query(merged, "recall_exact"),
    );
    let mut spans = 0;
    for (qi, (x, y)) in a.iter().zip(b).enumerate() {
        if x.is_nan() {
            continue;
        }
        spans += 1;
        assert!(y + 1e-9 >= *x, "query {qi}: merged recall {y} < {x}");
    }
    assert!(spans > 0, "no query of the archive has spans");
    // Merging attaches neighbours: more of the documents' text is retrieved.
    assert!(
        merged.cost.prompt_tokens > plain.cost.prompt_tokens,
        "{} vs {}",
        merged.cost.prompt_tokens,
        plain.cost.prompt_tokens
    );
}
