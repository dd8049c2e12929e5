//! Property tests: every strategy, on random and real text, produces exact, bounded, covering,
//! deterministic spans (see `chunklab_core::validate`).

use chunklab_core::validate::check_all_strategies;
use chunklab_core::{CharSizer, Sizer, WordSizer};
use proptest::prelude::*;
use std::sync::Arc;

/// Pieces that stress chunkers: multi-byte Dutch, emoji, CJK, CRLF, whitespace runs, sentence and
/// paragraph punctuation, abbreviations, a very long word.
fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,12}".prop_map(|s| s),
        2 => Just(" ".to_string()),
        1 => Just("  ".to_string()),
        1 => Just("\n".to_string()),
        1 => Just("\n\n".to_string()),
        1 => Just("\r\n".to_string()),
        1 => Just("\t".to_string()),
        1 => Just(". ".to_string()),
        1 => Just("? ".to_string()),
        1 => Just("dhr. ".to_string()),
        1 => Just("art. 3.1 ".to_string()),
        1 => Just("Überprüfung ".to_string()),
        1 => Just("ĳsbeer één".to_string()),
        1 => Just("😀".to_string()),
        1 => Just("👩‍👩‍👧".to_string()),
        1 => Just("中文字符。".to_string()),
        1 => Just("1.400,50".to_string()),
        1 => Just("Artikel 4".to_string()),
        1 => "[A-Z][a-z]{0,8}".prop_map(|s| s),
    ]
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::collection::vec(piece(), 0..120).prop_map(|v| v.concat()),
        1 => (0usize..3000).prop_map(|n| "x".repeat(n)),
        1 => any::<String>(),
    ]
}

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
