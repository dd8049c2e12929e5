//! The pdf parser (`parser_by_name("pdf")`, format forced) on arbitrary bytes: an error or a
//! document whose elements are spans of its text, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: chunklab_fuzz::init(),
    |data: &[u8]| {
        let _ = chunklab_fuzz::parse_forced("pdf", "x.pdf", data);
    }
);
