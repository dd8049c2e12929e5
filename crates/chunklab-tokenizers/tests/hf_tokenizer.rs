//! The Hugging Face sizer against reference counts from the Python `tokenizers` package
//! (fixture built by scripts/make_hf_fixture.py, saved with padding and truncation to 16 enabled).

use chunklab_core::validate::check_all_strategies;
use chunklab_core::Sizer;
use chunklab_tokenizers::{sizer_from_spec, HfTokenizer};
use std::path::PathBuf;
use std::sync::Arc;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn reference() -> Vec<(String, usize, usize)> {
    let raw = std::fs::read_to_string(fixture("wordpiece-reference.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&raw).unwrap();
    v.as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["text"].as_str().unwrap().to_string(),
                c["tokens"].as_u64().unwrap() as usize,
                c["tokens_with_special"].as_u64().unwrap() as usize,
            )
        })
        .collect()
}

#[test]
fn counts_equal_python_tokenizers_without_padding_or_truncation() {
    let plain = HfTokenizer::from_file(&fixture("wordpiece-tokenizer.json"), false).unwrap();
    let special = HfTokenizer::from_file(&fixture("wordpiece-tokenizer.json"), true).unwrap();
    let cases = reference();
    assert!(
        cases.iter().any(|c| c.1 > 16),
        "fixture must exceed the saved truncation length"
    );
    for (text, n, n_special) in cases {
        assert_eq!(plain.count(&text), n, "{text:?}");
        assert_eq!(special.count(&text), n_special, "{text:?}");
        assert_eq!(plain.measure(&text).len(&text), n, "measure of {text:?}");
    }
}

#[test]
fn every_strategy_keeps_the_limit_in_hf_tokens() {
    let path = fixture("wordpiece-tokenizer.json");
    for count_special in [false, true] {
        let sizer: Arc<dyn Sizer> =
            sizer_from_spec("tokens", Some(path.to_str().unwrap()), count_special).unwrap();
        for (text, _, _) in reference() {
            for size in [8, 40, 200] {
                if let Err(e) = check_all_strategies(&text, sizer.clone(), size) {
                    panic!("special={count_special} size={size}: {e}");
                }
            }
        }
    }
}

#[test]
fn a_model_directory_and_bad_files_give_clear_errors() {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path();
    std::fs::copy(
        fixture("wordpiece-tokenizer.json"),
        dir.join("tokenizer.json"),
    )
    .unwrap();
    assert!(sizer_from_spec("tokens", Some(dir.to_str().unwrap()), false).is_ok());
    std::fs::write(dir.join("broken.json"), "{ not json").unwrap();
    let err = sizer_from_spec(
        "tokens",
        Some(dir.join("broken.json").to_str().unwrap()),
        false,
    )
    .unwrap_err();
    assert!(err.to_string().contains("broken.json"), "{err}");
    let err = sizer_from_spec("tokens", Some("no-such-tokenizer"), false).unwrap_err();
    assert!(err.to_string().contains("unknown tokenizer"), "{err}");
    // A path is told as a path: a missing file, a directory without a tokenizer.json.
    let missing = dir.join("nope").join("tokenizer.json");
    let err = sizer_from_spec("tokens", Some(missing.to_str().unwrap()), false).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot load tokenizer {}: no such file", missing.display())
    );
    let err = sizer_from_spec("tokens", Some("tokenizr.json"), false).unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot load tokenizer tokenizr.json: no such file"
    );
    let err = sizer_from_spec("tokens", Some("BAAI/bge-small-en"), false).unwrap_err();
    assert!(err.to_string().contains("unknown tokenizer"), "{err}");
    let empty = dir.join("empty");
    std::fs::create_dir(&empty).unwrap();
    let err = sizer_from_spec("tokens", Some(empty.to_str().unwrap()), false).unwrap_err();
    assert!(
        err.to_string()
            .ends_with(": the directory holds no tokenizer.json"),
        "{err}"
    );
}
