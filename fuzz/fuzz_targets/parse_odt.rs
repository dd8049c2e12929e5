//! The odt parser (`parser_by_name("odt")`, format forced). The first byte picks what the input
//! is: 0 the whole container (zip structure, limits); 1 the main part `content.xml` of a real
//! document (fuzz/seeds/parse_odt/raadsbesluit.odt), zipped back with its other parts; 2 another part (the
//! second byte picks which: styles, numbering, manifest …). An error or a document whose
//! elements are spans of its text, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::OnceLock;

fn entries() -> &'static [(String, Vec<u8>)] {
    static E: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    E.get_or_init(|| {
        chunklab_fuzz::zip_entries(include_bytes!(
            "../../data/datasets/documents/odt/raadsbesluit.odt"
        ))
    })
}

fuzz_target!(
    init: {
        chunklab_fuzz::init();
        entries();
    },
    |data: &[u8]| {
        if let Some(bytes) = chunklab_fuzz::office_input(entries(), "content.xml", data) {
            let _ = chunklab_fuzz::parse_forced("odt", "x.odt", &bytes);
        }
    }
);
