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

/// Tiktoken without its own cursor: windows then measure the whole document and re-count whole
/// windows (the path before the streaming cursor) — the reference the cursor must reproduce.
struct MeasureOnly(Tiktoken);

impl Sizer for MeasureOnly {
    fn name(&self) -> &str {
        self.0.name()
    }
    fn count(&self, text: &str) -> usize {
        self.0.count(text)
    }
    fn measure(&self, text: &str) -> chunklab_core::Measure {
        self.0.measure(text)
    }
}

/// `fixed` (native and LangChain mode) and `sliding` give the same spans, `tokens` included,
/// through the streaming cursor as through the whole-document measure.
#[track_caller]
fn assert_same_windows(text: &str, size: usize, overlap: usize) {
    use chunklab_core::strategies::{Fixed, Sliding};
    use chunklab_core::Chunker;
    for tik in [Tiktoken::cl100k(), Tiktoken::o200k()] {
        let (ours, reference): (Arc<dyn Sizer>, Arc<dyn Sizer>) =
            (Arc::new(tik), Arc::new(MeasureOnly(tik)));
        let pairs: Vec<(Box<dyn Chunker>, Box<dyn Chunker>)> = vec![
            (
                Box::new(Fixed::new(ours.clone(), size, overlap).unwrap()),
                Box::new(Fixed::new(reference.clone(), size, overlap).unwrap()),
            ),
            (
                Box::new(Fixed::langchain(ours.clone(), size, overlap).unwrap()),
                Box::new(Fixed::langchain(reference.clone(), size, overlap).unwrap()),
            ),
            (
                Box::new(Sliding::new(ours.clone(), size, size - overlap).unwrap()),
                Box::new(Sliding::new(reference.clone(), size, size - overlap).unwrap()),
            ),
        ];
        for (a, b) in pairs {
            let (a, b) = (a.spans(text), b.spans(text));
            assert_eq!(
                format!("{a:?}"),
                format!("{b:?}"),
                "{tik:?} size {size} overlap {overlap}: {text:?}"
            );
        }
    }
}

fn edgy_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-zA-Z]{1,12}".prop_map(|s| s),
        3 => Just(" ".to_string()),
        2 => Just("   ".to_string()),
        1 => Just("\t \n".to_string()),
        2 => Just("\n\n".to_string()),
        1 => Just("\r\n".to_string()),
        1 => Just(" !!".to_string()),
        1 => Just("'s ".to_string()),
        1 => Just("'re".to_string()),
        1 => Just("12345".to_string()),
        1 => Just("😀🎉".to_string()),
        1 => Just("中文字符。".to_string()),
        1 => Just("één ĳs\u{a0}".to_string()),
        1 => Just("\u{0301}".to_string()),
        1 => Just("=".repeat(70)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    #[test]
    fn streamed_windows_equal_measured_windows(
        v in prop::collection::vec(edgy_piece(), 0..400),
        size in 1usize..80,
        overlap_pct in 0usize..100,
    ) {
        let overlap = (size * overlap_pct / 100).min(size - 1);
        assert_same_windows(&v.concat(), size, overlap);
    }
}

#[test]
fn streamed_windows_equal_measured_windows_on_real_documents() {
    let dir = shared_path("golden/langchain/inputs");
    let mut docs: Vec<String> = std::fs::read_dir(&dir)
        .expect("golden inputs")
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    // Longer than one tokenizing block, whitespace-heavy, non-ASCII.
    let all = docs.concat();
    docs.push(all.split_whitespace().collect::<Vec<_>>().join("   \n "));
    docs.push(all.replace(' ', "\u{a0} ").replace('e', "é"));
    for text in &docs {
        for (size, overlap) in [(512, 64), (64, 16), (7, 0)] {
            assert_same_windows(text, size, overlap);
        }
    }
}
