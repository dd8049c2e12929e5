//! `parse_markdown` (the copy of pulldown-cmark that steps over the inside of blocks no element
//! needs) against `parse_markdown_reference` (every event of the pulldown-cmark crate): the same
//! document — text, every element's kind, span, lines, title and language, metadata, warnings —
//! on every Markdown file of the shared data and on generated Markdown.

use chunklab_parse::markdown::{parse_markdown, parse_markdown_reference};
use chunklab_parse::{Limits, ParsedDocument};
use chunklab_test_support::shared_path;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

/// Panics with the first difference (not two whole documents) when `fast` is not `reference`.
fn assert_same(fast: &ParsedDocument, reference: &ParsedDocument, what: &str) {
    if fast == reference {
        return;
    }
    assert_eq!(fast.metadata, reference.metadata, "{what}: metadata");
    assert_eq!(fast.warnings, reference.warnings, "{what}: warnings");
    for (i, (a, b)) in fast.elements.iter().zip(&reference.elements).enumerate() {
        assert_eq!(a, b, "{what}: element {i}");
    }
    assert_eq!(
        fast.elements.len(),
        reference.elements.len(),
        "{what}: element count"
    );
    assert_eq!(fast, reference, "{what}");
}

/// Both paths at the default limits and at a nesting limit small enough that the depth warning
/// decides whether a block's inside may be skipped.
fn check(text: &str, what: &str) {
    for max_depth in [Limits::default().max_depth, 6, 1] {
        let limits = Limits {
            max_depth,
            ..Limits::default()
        };
        assert_same(
            &parse_markdown(text, &limits),
            &parse_markdown_reference(text, &limits),
            &format!("{what} (max_depth {max_depth})"),
        );
    }
}

fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            markdown_files(&path, out);
        } else if path
            .extension()
            .is_some_and(|x| x.eq_ignore_ascii_case("md") || x.eq_ignore_ascii_case("markdown"))
        {
            out.push(path);
        }
    }
}

/// Every Markdown file under `dir` through [`check`]; how many there were.
fn check_dir(dir: &Path) -> usize {
    let mut files = Vec::new();
    markdown_files(dir, &mut files);
    assert!(
        !files.is_empty(),
        "no Markdown files under {}",
        dir.display()
    );
    for file in &files {
        let bytes = std::fs::read(file).unwrap();
        // Lossy, as the benchmark harness reads them.
        check(
            &String::from_utf8_lossy(&bytes),
            &file.display().to_string(),
        );
    }
    files.len()
}

#[test]
fn same_document_on_every_shared_markdown_file() {
    let n = check_dir(&shared_path("datasets"));
    assert!(n >= 10, "only {n} Markdown files in the shared datasets");
}

/// The same over a directory of your choice (`CHUNKLAB_MD_IDENTITY_DIR`), e.g. the peers
/// corpus: `CHUNKLAB_MD_IDENTITY_DIR=/tmp/peers/corpus cargo test --release -p chunklab-parse
/// --test markdown_identity -- --ignored --nocapture`.
#[test]
#[ignore = "needs CHUNKLAB_MD_IDENTITY_DIR"]
fn same_document_on_a_chosen_directory() {
    let dir = std::env::var("CHUNKLAB_MD_IDENTITY_DIR")
        .expect("set CHUNKLAB_MD_IDENTITY_DIR to a directory of Markdown files");
    let n = check_dir(Path::new(&dir));
    println!("{n} Markdown files: the same document from both paths");
}

#[test]
fn same_document_on_hand_picked_cases() {
    let nested = ">".repeat(300) + " deep\n\n# after *the* deep one\n";
    let lists = "- a\n".to_string() + &"  ".repeat(200) + "- deep\n";
    let emphasis = format!("{}x{}\n\n# T\n", "*".repeat(600), "*".repeat(600));
    let links = format!(
        "[r]: {}\n\n{}\n\n# [r]\n",
        "u".repeat(50),
        "[r] ".repeat(5_000)
    );
    // Short paragraphs of links (each one skippable on its own) that together use up
    // pulldown-cmark's link expansion limit before the heading's link.
    let many_links = format!(
        "[r]: {}\n\n{}# [r]\n",
        "u".repeat(200),
        format!("{}\n\n", "[r] ".repeat(100)).repeat(30)
    );
    for (i, text) in [
        "",
        "# Titel ¶\n\nTekst *met* `code` en [link](u \"t\").\n",
        "---\ntitle: 'X'\n---\n# Y\n",
        "Setext\r\n======\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n",
        "- [ ] taak\n- [x] klaar\n\n1. een\n2) twee\n\n> citaat\n> > diep\n",
        "[^1]: voetnoot\n\ntekst[^1]\n\n<div>\nhtml\n</div>\n\n***\n",
        "# [ref]\n\n[ref]: http://example.org\n",
        "<!-- open\n\n# <!-- heading --> x\n",
        &nested,
        &lists,
        &emphasis,
        &links,
        &many_links,
    ]
    .into_iter()
    .enumerate()
    {
        check(text, &format!("case {i}"));
    }
}

/// One line of markdown-ish source: a block start, inline markup, or plain words.
fn line() -> impl Strategy<Value = String> {
    let pieces = prop_oneof![
        Just("# Kop"),
        Just("## Kop *nadruk* `code` ¶"),
        Just("### [link][ref] en ![img](p.png)"),
        Just("#"),
        Just("====="),
        Just("---"),
        Just("***"),
        Just("___"),
        Just("tekst met *nadruk* en **sterk** en ~~weg~~ en _ook_"),
        Just("[ref]: http://example.org \"titel\""),
        Just("[^1]: voetnoot"),
        Just("zie[^1] en [ref] en <http://a.b> en <b>html</b>"),
        Just("```rust ignore"),
        Just("~~~"),
        Just("```"),
        Just("    ingesprongen code"),
        Just("- item"),
        Just("* item"),
        Just("+ item"),
        Just("1. een"),
        Just("2) twee"),
        Just("- [ ] taak"),
        Just("> citaat"),
        Just("> > dieper"),
        Just("| a | b |"),
        Just("|---|:-:|"),
        Just("| 1 | `|` |"),
        Just("<div>"),
        Just("</div>"),
        Just("<!-- commentaar"),
        Just("-->"),
        Just("&amp; &#35; \\* \\#"),
        Just(""),
        Just("title: x"),
    ];
    (
        prop_oneof![
            4 => Just(String::new()),
            1 => Just("  ".to_string()),
            1 => Just("    ".to_string()),
            1 => Just("> ".to_string()),
            1 => Just("- ".to_string()),
            1 => "[>*_\\[ -]{1,12}".prop_map(|s| s),
        ],
        pieces,
        prop_oneof![4 => Just(String::new()), 1 => "[a-z *_`\\[\\]<>|~]{0,16}".prop_map(|s| s)],
    )
        .prop_map(|(prefix, piece, tail)| format!("{prefix}{piece}{tail}"))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn same_document_on_generated_markdown(
        front in prop::option::of(Just("---\ntitle: \"Doc\"\nauteur: Jan\n---\n")),
        lines in prop::collection::vec(line(), 0..40),
        crlf in prop::collection::vec(any::<bool>(), 40),
        max_depth in prop_oneof![Just(256usize), 0usize..12],
    ) {
        let mut text = front.unwrap_or_default().to_string();
        for (line, crlf) in lines.iter().zip(&crlf) {
            text.push_str(line);
            text.push_str(if *crlf { "\r\n" } else { "\n" });
        }
        let limits = Limits { max_depth, ..Limits::default() };
        let (fast, reference) = (parse_markdown(&text, &limits), parse_markdown_reference(&text, &limits));
        prop_assert!(fast == reference, "{text:?}\nfast {fast:#?}\nreference {reference:#?}");
    }
}
