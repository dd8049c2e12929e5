//! Every strategy keeps its limit in real tiktoken tokens, on random text (with tokens that split
//! multi-byte chars) and on real documents.

use chunklab_core::validate::check_all_strategies;
use chunklab_core::Sizer;
use chunklab_test_support::shared_path;
use chunklab_tokenizers::Tiktoken;
use proptest::prelude::*;
use std::sync::Arc;

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z]{1,12}".prop_map(|s| s),
        2 => Just(" ".to_string()),
        1 => Just("   ".to_string()),
        1 => Just("\n\n".to_string()),
        1 => Just("\r\n".to_string()),
        1 => Just(". ".to_string()),
        1 => Just("'s ".to_string()),
        1 => Just("12345".to_string()),
        1 => Just("😀🎉".to_string()),
        1 => Just("中文字符。".to_string()),
        1 => Just("één ĳs".to_string()),
        1 => Just("\u{0301}".to_string()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn cl100k_invariants(v in prop::collection::vec(piece(), 0..150), size in 1usize..60) {
        let t = v.concat();
        if let Err(e) = check_all_strategies(&t, Arc::new(Tiktoken::cl100k()), size) {
            panic!("{e}\ntext: {t:?}");
        }
    }

    #[test]
    fn o200k_measure_matches_count(v in prop::collection::vec(piece(), 0..150)) {
        let t = v.concat();
        let s = Tiktoken::o200k();
        prop_assert_eq!(s.measure(&t).len(&t), s.count(&t));
    }
}

#[test]
fn real_documents_keep_the_limit_in_tokens() {
    let dir = shared_path("golden/langchain/inputs");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).expect("golden inputs") {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        for size in [64, 512] {
            if let Err(e) = check_all_strategies(&text, Arc::new(Tiktoken::cl100k()), size) {
                panic!("{}: {e}", path.display());
            }
        }
        n += 1;
    }
    assert!(n >= 20, "expected the 20 golden inputs, found {n}");
}
