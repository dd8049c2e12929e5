//! When a text-format document can be chunked from its text as read, without its parser
//! ([`Pipeline::chunks_unparsed`](crate::Pipeline::chunks_unparsed)), for a chunker that reads
//! only locations.
//!
//! Such a chunker ([`chunklab_core::Chunker::reads_only_locations`]) takes from a parsed
//! document only its text, its pages and each chunk's source lines. For plain text, Markdown and
//! reStructuredText the parsers (`chunklab_parse::{text, markdown, rst}`) give:
//! - **text**: the decoded text itself, less one leading byte order mark;
//! - **pages**: none, except plain text with form feeds;
//! - **lines**: every element has its source lines, and the final pass (`support::finish`)
//!   puts every stretch of non-whitespace text that no element covers into an `Other`
//!   element, while no element is made of whitespace alone. So the document has lines exactly
//!   when its text has a non-whitespace char, and where the text is the source
//!   ([`ParsedDocument::text_is_source`](chunklab_core::document::ParsedDocument::text_is_source))
//!   a chunk's lines are counted on the text's own newlines, not taken from the elements;
//! - **warnings**: none from reST and plain text; from Markdown only one, for markup nested
//!   `max_depth` (256) tags deep ([`markdown_nesting_bound`] rules that out, or, for a long
//!   list such as a table of contents, [`list_items::markdown_nesting_bound_by_items`]);
//! - **errors**: none, once the text is valid UTF-8 (it is, decoded).
//!
//! That is what [`chunklab_core::chunker::chunk_source_text`] gives from the text alone, so the
//! chunks are the same. `tests/unparsed.rs` of the CLI crate checks it on the shared data sets'
//! Markdown and reST documents for every strategy that reads only locations.

mod list_items;
mod markdown_lines;

use markdown_lines::{container_weight, is_blank, opens, SPARE};

/// Whether a document the parser `parser` would parse, with decoded text `text`, gives the
/// same chunks (and warnings) from its text alone as from its parse, for a chunker that reads
/// only locations (see the module docs). `max_depth` is the parsers' nesting limit
/// ([`chunklab_parse::Limits::max_depth`]).
pub(crate) fn source_text_suffices(parser: &str, text: &str, max_depth: usize) -> bool {
    // Every parser drops a (second) byte order mark from the text.
    if text.starts_with('\u{feff}') {
        return false;
    }
    match parser {
        // Form feeds are pages.
        "text" => memchr::memchr(b'\x0C', text.as_bytes()).is_none(),
        "rst" => true,
        "markdown" => {
            let under = |bound: Option<usize>| bound.is_some_and(|b| b < max_depth);
            under(markdown_nesting_bound(text.as_bytes()))
                || under(list_items::markdown_nesting_bound_by_items(text.as_bytes()))
        }
        _ => false,
    }
}

/// An upper bound on the number of tags pulldown-cmark (0.13, with the options
/// `chunklab_parse::markdown` turns on: tables, footnotes, strikethrough, task lists, YAML
/// front matter) holds open at once in `text`; `None` when the text has a footnote (`[^`),
/// whose definitions are containers with markers this bound does not count.
///
/// The tags open at one event are the block containers around it, one leaf block (or a table's
/// three levels: table, row, cell) and the inline tags open in that block:
/// - **Containers.** A block that starts on line L has every enclosing container matched on L
///   (only a paragraph's continuation lines are lazy, and they open no block): a block quote by
///   its `>`, a list item by its marker (opened on L: `-`, `+` or `*`, or 1–9 digits and `.`
///   or `)`, then a space, a tab or the line's end; a new list and its item are two tags) or by
///   indentation of at least its content column, which is at least 2 columns deeper per nested
///   list (list and item: two tags per two columns). All of these bytes are in L's
///   [`container_weight`], which counts a `>`, a space or a digit 1, a bullet 2 and a tab 4 (a
///   tab is at most 4 columns).
/// - **Inline tags.** Each open inline tag is inside its block: a block with inline content
///   (paragraph, heading, table) never spans a blank line (spaces and tabs only; line breaks
///   `\n`, `\r\n` or `\r`), so the tag's opening delimiter lies in the block's run of non-blank
///   lines. Emphasis, strong emphasis, strikethrough and images have one each, a byte
///   [`opens`] counts. Links are at most two: when a link is made, pulldown-cmark
///   disables every `[` opener before it (CommonMark: links do not contain links), so one
///   inline or reference link is open at a time, and an autolink (`<https://…>`) holds only its
///   text, so it is the innermost tag.
///
/// So in a run of non-blank lines at most `(largest container weight) + 3 + 2 + (inline
/// openers in the run)` tags are open; the bound is the largest over the runs, plus 8 to spare.
pub(crate) fn markdown_nesting_bound(text: &[u8]) -> Option<usize> {
    if memchr::memmem::find(text, b"[^").is_some() {
        return None;
    }
    // One pass over blocks of 64 bytes finds the line breaks and the bytes that may open an
    // inline tag ([`block_masks`]); each such byte is judged by its neighbours ([`opens`]) and
    // counted when the next line break is met, so a run's count is complete when a blank line
    // (which holds none of them) ends it. A search started per line (`memchr`) was most of this
    // scan's time: lines are short.
    let n = text.len();
    let (mut bound, mut run_weight, mut run_openers) = (0usize, 0usize, 0usize);
    let mut start = 0; // of the line being read
    let mut base = 0;
    while base < n {
        let (mut breaks, mut candidates) = block_masks(text, base);
        while breaks != 0 {
            let bit = breaks.trailing_zeros();
            let brk = base + bit as usize;
            breaks &= breaks - 1;
            let mut before = candidates & ((1u64 << bit) - 1);
            candidates ^= before;
            while before != 0 {
                run_openers += usize::from(opens(text, base + before.trailing_zeros() as usize));
                before &= before - 1;
            }
            if brk < start {
                continue; // the `\n` of a `\r\n`, one break
            }
            let line = &text[start..brk];
            if is_blank(line) {
                // A blank line ends the run: its openers are all before it.
                bound = bound.max(run_weight + run_openers + SPARE);
                (run_weight, run_openers) = (0, 0);
            } else {
                run_weight = run_weight.max(container_weight(line));
            }
            start = brk
                + if text[brk] == b'\r' && text.get(brk + 1) == Some(&b'\n') {
                    2
                } else {
                    1
                };
        }
        while candidates != 0 {
            run_openers += usize::from(opens(text, base + candidates.trailing_zeros() as usize));
            candidates &= candidates - 1;
        }
        base += 64;
    }
    let last = &text[start..];
    if !is_blank(last) {
        run_weight = run_weight.max(container_weight(last));
    }
    Some(bound.max(run_weight + run_openers + SPARE))
}

/// For the 64 bytes of `text` from `base` (fewer at its end), bit `j` set where byte `base + j`
/// is a line break (`\n`, `\r`), and where it is a byte that may open an inline tag (`*`, `_`,
/// `~`, `[`, `^`).
fn block_masks(text: &[u8], base: usize) -> (u64, u64) {
    let rest = &text[base..];
    let mut padded = [0u8; 64];
    let block: &[u8; 64] = match rest.first_chunk::<64>() {
        Some(block) => block,
        None => {
            padded[..rest.len()].copy_from_slice(rest);
            &padded
        }
    };
    #[cfg(target_arch = "x86_64")]
    {
        block_masks_sse2(block)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        block_masks_scalar(block)
    }
}

/// [`block_masks`] of one block, 16 bytes at a time (SSE2, which every x86-64 CPU has).
#[cfg(target_arch = "x86_64")]
fn block_masks_sse2(block: &[u8; 64]) -> (u64, u64) {
    use std::arch::x86_64::*;
    let (mut breaks, mut candidates) = (0u64, 0u64);
    for (q, part) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of x86-64 (every such CPU has it); `part` is 16 bytes, loaded
        // unaligned.
        let (b, c) = unsafe {
            let x = _mm_loadu_si128(part.as_ptr().cast());
            let eq = |c: u8| _mm_cmpeq_epi8(x, _mm_set1_epi8(c as i8));
            let b = _mm_or_si128(eq(b'\n'), eq(b'\r'));
            let c = _mm_or_si128(
                _mm_or_si128(eq(b'*'), eq(b'_')),
                _mm_or_si128(_mm_or_si128(eq(b'~'), eq(b'[')), eq(b'^')),
            );
            (_mm_movemask_epi8(b), _mm_movemask_epi8(c))
        };
        breaks |= u64::from(b as u16) << (16 * q);
        candidates |= u64::from(c as u16) << (16 * q);
    }
    (breaks, candidates)
}

/// [`block_masks`] of one block, a byte at a time.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn block_masks_scalar(block: &[u8; 64]) -> (u64, u64) {
    let (mut breaks, mut candidates) = (0u64, 0u64);
    for (j, &b) in block.iter().enumerate() {
        breaks |= u64::from(matches!(b, b'\n' | b'\r')) << j;
        candidates |= u64::from(matches!(b, b'*' | b'_' | b'~' | b'[' | b'^')) << j;
    }
    (breaks, candidates)
}

#[cfg(test)]
mod tests {
    use super::markdown_lines::inline_openers;
    use super::*;

    /// The bound as first written: line by line, each line's openers counted on their own.
    pub(super) fn bound_by_lines(text: &[u8]) -> Option<usize> {
        if memchr::memmem::find(text, b"[^").is_some() {
            return None;
        }
        let mut bound = 0usize;
        let (mut run_weight, mut run_inline) = (0usize, 0usize);
        for line in super::markdown_lines::lines(text) {
            if is_blank(line) {
                bound = bound.max(run_weight + run_inline + SPARE);
                (run_weight, run_inline) = (0, 0);
            } else {
                run_weight = run_weight.max(container_weight(line));
                run_inline += inline_openers(line);
            }
        }
        Some(bound.max(run_weight + run_inline + SPARE))
    }

    proptest::proptest! {
        #[test]
        fn block_masks_are_those_of_the_bytes(
            bytes in proptest::collection::vec(
                proptest::sample::select(b"\n\r*_~[^ a\t\xff\x80".to_vec()), 0..200),
            base in 0usize..200,
        ) {
            let base = base.min(bytes.len());
            let mut block = [0u8; 64];
            let rest = &bytes[base..];
            block[..rest.len().min(64)].copy_from_slice(&rest[..rest.len().min(64)]);
            let expected = block_masks_scalar(&block);
            proptest::prop_assert_eq!(block_masks(&bytes, base), expected);
            #[cfg(target_arch = "x86_64")]
            proptest::prop_assert_eq!(block_masks_sse2(&block), expected);
        }
    }

    #[test]
    fn bounds() {
        assert_eq!(markdown_nesting_bound(b""), Some(13));
        assert_eq!(markdown_nesting_bound(b"# Titel\n\nTekst."), Some(13));
        // `- - *x*`: two bullets and two spaces weigh 6, 1 opener (the closing `*` ends the line).
        assert_eq!(markdown_nesting_bound(b"- - *x*\n"), Some(6 + 1 + 13));
        assert_eq!(container_weight(b"---------"), 0);
        assert_eq!(container_weight(b"> 1. - \t12) x"), 16);
        assert_eq!(container_weight(b"1234567890. x"), 0);
        assert_eq!(container_weight(b"-"), 2);
        assert_eq!(container_weight(b"        code"), 8);
        assert_eq!(inline_openers(b"a_b _c_ a * b *d* [e](f) ~g~ ^"), 5);
        assert_eq!(
            inline_openers(b"<https://x.nl> <a href> a < b <x ![a](b) [c]"),
            1
        );
        // Runs are cut at blank lines, `\r\n` and `\r` included; `\r\n` is not a blank line.
        assert_eq!(
            markdown_nesting_bound(b"*a*\r\n*b*\r\n\r\n*c*\r*d*\r \r"),
            Some(2 + 13)
        );
        // A table of contents: hundreds of links in one run of lines, each closed on its line.
        let toc =
            "  * [`pathlib` \u{2014} Paden](pathlib.html)\n    * [Gebruik](pathlib.html#gebruik)\n"
                .repeat(300);
        assert_eq!(markdown_nesting_bound(toc.as_bytes()), Some(7 + 13));
        assert_eq!(markdown_nesting_bound(b"Zie[^1].\n\n[^1]: noot\n"), None);
        let deep = ">".repeat(300) + " x\n";
        assert!(!source_text_suffices("markdown", &deep, 256));
        assert!(source_text_suffices("markdown", "# a\n\n- b\n", 256));
        assert!(source_text_suffices("rst", "Titel\n=====\n", 256));
        assert!(!source_text_suffices("rst", "\u{feff}Titel\n", 256));
        assert!(!source_text_suffices("text", "een\x0Ctwee", 256));
        assert!(!source_text_suffices("html", "<p>x</p>", 256));
    }
}

/// The bound against pulldown-cmark itself: on generated Markdown dense in containers, links,
/// images and delimiters, the tags it holds open at once never exceed the bound less its spare.
#[cfg(test)]
mod against_the_parser {
    use super::markdown_lines::deepest;
    use super::markdown_nesting_bound;
    use proptest::prelude::*;

    /// Markdown pieces: containers, indentation, links, images, autolinks, delimiters, code,
    /// tables, headings, HTML and line breaks.
    fn markdownish() -> impl Strategy<Value = String> {
        let pieces = prop::sample::select(vec![
            "> ",
            ">",
            "- ",
            "* ",
            "+ ",
            "1. ",
            "2) ",
            "-",
            " ",
            "  ",
            "    ",
            "\t",
            "\n",
            "\n",
            "\n\n",
            "\r\n",
            "\r",
            " \t \n",
            "[",
            "]",
            "](u)",
            "][r]",
            "[r]: /u\n",
            "![",
            "<https://a.nl>",
            "<a@b.nl>",
            "<b>",
            "*",
            "**",
            "_",
            "__",
            "~",
            "~~",
            "^",
            "`",
            "```\n",
            "|",
            "| a | b |\n",
            "|---|---|\n",
            "# ",
            "===\n",
            "---\n",
            "***\n",
            "\\",
            "x",
            "woord ",
            "a_b",
            "(",
            ")",
            "[ ] ",
            "<!-- c -->",
            "<div>\n",
            "&amp;",
            "1",
        ]);
        prop::collection::vec(pieces, 0..120).prop_map(|p| p.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(4000))]
        #[test]
        fn the_parser_never_nests_deeper_than_the_bound(text in markdownish()) {
            // The whole-text scan gives what the line-by-line one did.
            let bound = markdown_nesting_bound(text.as_bytes());
            prop_assert_eq!(bound, super::tests::bound_by_lines(text.as_bytes()), "{:?}", text);
            if let Some(bound) = bound {
                let deepest = deepest(&text);
                prop_assert!(deepest + 8 <= bound, "{deepest} tags open, bound {bound}: {text:?}");
            }
            if let Some(bound) = super::list_items::markdown_nesting_bound_by_items(text.as_bytes()) {
                let deepest = deepest(&text);
                prop_assert!(deepest + 8 <= bound, "{deepest} tags open, by items {bound}: {text:?}");
            }
        }

        #[test]
        fn nested_links_images_and_lists_stay_under_the_bound(
            n in 1usize..40,
            open in prop::sample::select(vec!["[", "![", "**", "_", "- ", "> ", "1. ", "  - "]),
            close in prop::sample::select(vec!["](u)", "]", "**", "_", "", "\n"]),
        ) {
            let text = format!("{}x{}\n", open.repeat(n), close.repeat(n));
            if let Some(bound) = markdown_nesting_bound(text.as_bytes()) {
                let deepest = deepest(&text);
                prop_assert!(deepest + 8 <= bound, "{deepest} tags open, bound {bound}: {text:?}");
            }
        }
    }
}
