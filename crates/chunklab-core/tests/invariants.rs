//! Property tests: every strategy, on random and real text, produces exact, bounded, covering,
//! deterministic spans (see `chunklab_core::validate`).

use chunklab_core::validate::check_all_strategies;
use chunklab_core::{CharSizer, Sizer, WordSizer};
use chunklab_test_support::gen::text;
use proptest::prelude::*;
use std::sync::Arc;

fn run(text: &str, sizer: Arc<dyn Sizer>, size: usize) {
    if let Err(e) = check_all_strategies(text, sizer, size) {
        panic!("{e}\ntext: {text:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn chars_invariants(t in text(), size in 1usize..200) {
        run(&t, Arc::new(CharSizer), size);
    }

    #[test]
    fn words_invariants(t in text(), size in 1usize..40) {
        run(&t, Arc::new(WordSizer), size);
    }
}

#[test]
fn long_word_and_edges() {
    for t in [
        "",
        " ",
        "\n\n\n",
        "\r\n\r\n",
        &"w".repeat(3000),
        "a",
        "😀",
        "één",
    ] {
        for size in [1, 2, 7, 100] {
            run(t, Arc::new(CharSizer), size);
            run(t, Arc::new(WordSizer), size);
        }
    }
}
