//! The code parser (tree-sitter) with the language forced by the first byte (`code:rust` …
//! `code:java`) on the rest of the input: an error or a document whose elements are spans of its
//! text, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

const LANGUAGES: [(&str, &str); 7] = [
    ("code:rust", "x.rs"),
    ("code:python", "x.py"),
    ("code:javascript", "x.js"),
    ("code:typescript", "x.ts"),
    ("code:tsx", "x.tsx"),
    ("code:go", "x.go"),
    ("code:java", "x.java"),
];

fuzz_target!(
    init: chunklab_fuzz::init(),
    |data: &[u8]| {
        let Some((&first, rest)) = data.split_first() else {
            return;
        };
        let (name, file) = LANGUAGES[first as usize % LANGUAGES.len()];
        let _ = chunklab_fuzz::parse_forced(name, file, rest);
    }
);
