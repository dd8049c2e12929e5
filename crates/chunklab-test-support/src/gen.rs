//! Proptest generators of text for chunker property tests: random concatenations of pieces that
//! stress chunkers (multi-byte Dutch, emoji and ZWJ sequences, CJK, CRLF, whitespace runs,
//! sentence and paragraph punctuation, abbreviations), long unbroken runs and arbitrary strings.
//!
//! The generators are deterministic functions of proptest's seed, so the regression files of the
//! tests that use them keep replaying the same cases.

use proptest::prelude::*;
use std::ops::Range;

/// One piece of text that stresses chunkers: words, spaces, newlines (`\n`, `\n\n`, `\r\n`),
/// tabs, sentence ends, Dutch abbreviations and article numbers, multi-byte letters, emoji (one
/// with a ZWJ sequence), CJK with its full stop, a Dutch number, capitalised words.
pub fn stress_piece() -> impl Strategy<Value = String> {
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

/// One piece of text that stresses sentence and paragraph segmentation: words, spaces, single
/// and double newlines, a CRLF paragraph break, sentence ends (`.`, `?!`, an ellipsis), Dutch
/// abbreviations and article numbers, numbered and bulleted list lines, a control character,
/// emoji with a ZWJ sequence, CJK with its full stop, a no-break space with a paragraph
/// separator, and any string.
pub fn segment_piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z]{1,12}",
        2 => "[A-Z][a-z]{0,8}",
        2 => Just(" ".to_string()),
        1 => Just("\n".to_string()),
        1 => Just("\n\n".to_string()),
        1 => Just("\r\n\r\n".to_string()),
        2 => Just(". ".to_string()),
        1 => Just("?! ".to_string()),
        1 => Just("... ".to_string()),
        1 => Just("dhr. ".to_string()),
        1 => Just("o.a. ".to_string()),
        1 => Just("art. 3.1 ".to_string()),
        1 => Just("\n1. ".to_string()),
        1 => Just("\n- ".to_string()),
        1 => Just("\x1c".to_string()),
        1 => Just("😀👩‍👩‍👧".to_string()),
        1 => Just("中文字符。".to_string()),
        1 => Just("\u{a0}\u{2029}".to_string()),
        1 => any::<String>(),
    ]
}

/// Text made of `piece`s: mostly a concatenation of `pieces` of them (weight 8), else a run of
/// `x` whose length is drawn from `run` (1), else any string (1).
pub fn text_from<S>(
    piece: S,
    pieces: Range<usize>,
    run: Range<usize>,
) -> impl Strategy<Value = String>
where
    S: Strategy<Value = String>,
{
    prop_oneof![
        8 => prop::collection::vec(piece, pieces).prop_map(|v| v.concat()),
        1 => run.prop_map(|n| "x".repeat(n)),
        1 => any::<String>(),
    ]
}

/// [`text_from`] of up to 119 [`stress_piece`]s, or a run of up to 2,999 `x`, or any string.
pub fn text() -> impl Strategy<Value = String> {
    text_from(stress_piece(), 0..120, 0..3000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    #[test]
    fn text_covers_every_shape() {
        let mut runner = TestRunner::deterministic();
        let strategy = text();
        let (mut multibyte, mut crlf, mut long_run) = (false, false, false);
        for _ in 0..500 {
            let t = strategy.new_tree(&mut runner).unwrap().current();
            multibyte |= t.chars().any(|c| c.len_utf8() > 1);
            crlf |= t.contains("\r\n");
            long_run |= t.len() > 200 && t.bytes().all(|b| b == b'x');
        }
        assert!(multibyte && crlf && long_run);
    }
}
