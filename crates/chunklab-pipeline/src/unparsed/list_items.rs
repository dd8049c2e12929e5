//! A tighter Markdown nesting bound for texts whose runs of non-blank lines are long lists, such
//! as a table of contents: [`markdown_nesting_bound_by_items`] also cuts a run at every line
//! that certainly starts a new list item, since no paragraph (and so no inline tag) spans the
//! start of such a line.

use super::markdown_lines::{container_weight, inline_openers, is_blank, lines, SPARE};

/// [`super::markdown_nesting_bound`], its runs of non-blank lines also cut at the lines
/// [`ItemStarts`] finds; `None` where that bound is `None` or the text may hold an HTML block,
/// a fenced code block or a YAML metadata block (a `<`, ```` ``` ````, `~~~` or `---`
/// anywhere: pulldown-cmark starts a metadata block at a `---` wherever a block may start, in a
/// list item too), whose lines look like list items without being any.
///
/// Line by line: it runs only when the one-pass bound is over the nesting limit.
pub(crate) fn markdown_nesting_bound_by_items(text: &[u8]) -> Option<usize> {
    if !trackable(text) {
        return None;
    }
    let mut items = ItemStarts::default();
    let (mut bound, mut run_weight, mut run_inline) = (0usize, 0usize, 0usize);
    for line in lines(text) {
        if is_blank(line) {
            items.blank();
            bound = bound.max(run_weight + run_inline + SPARE);
            (run_weight, run_inline) = (0, 0);
            continue;
        }
        if items.starts_item(line) {
            bound = bound.max(run_weight + run_inline + SPARE);
            (run_weight, run_inline) = (0, 0);
        }
        run_weight = run_weight.max(container_weight(line));
        run_inline += inline_openers(line);
    }
    Some(bound.max(run_weight + run_inline + SPARE))
}

/// Whether `text` has no footnote, and none of the blocks whose lines [`ItemStarts`] cannot tell
/// from list items (see [`markdown_nesting_bound_by_items`]).
fn trackable(text: &[u8]) -> bool {
    memchr::memchr(b'<', text).is_none()
        && [&b"[^"[..], b"```", b"~~~", b"---"]
            .iter()
            .all(|needle| memchr::memmem::find(text, needle).is_none())
}

/// Follows the list items open in a Markdown text without HTML blocks or fenced code, line by
/// line, and says which lines certainly start a new item.
///
/// A *simple item line* is: `c` spaces, a bullet (`-`, `+`, `*`), 1 to 4 spaces, then content
/// whose first byte is a letter, `[`, `(`, `!`, `"`, `'`, a backtick or a non-ASCII byte, on a
/// line without `>`. As an item its content column is `c + 1 + spaces`. In CommonMark (and in
/// pulldown-cmark 0.13, whose `scan_paragraph_interrupt` lets any bullet item with content
/// interrupt a paragraph) such a line starts a new item when its indentation beyond the
/// containers it matches is at most 3 columns; with 4 or more it continues an open paragraph,
/// lazily or not, or after a blank line begins an indented code block. Without `>` it matches
/// no block quote, and the list items it matches are the open ones whose content columns are at
/// most `c` (an item matches by indentation; the columns grow inwards).
///
/// The tracker holds the content columns of the open items (`known`) while every non-blank
/// line since it learned them is a simple item line. Any other non-blank line makes it forget
/// them; it learns again at the next simple item line with `c <= 3`, which starts an item
/// whatever is open (its extra indentation is at most `c`), and which can be no other block's
/// line: not an indented code block's (4 columns), nor an HTML, fenced code or metadata block's
/// (the text has none), nor a table row (a list item ends a table). Items it never saw may then
/// be open below the known ones, with content columns of at most 3 (`floor`): the rest were
/// closed by that line.
#[derive(Debug, Default)]
pub(crate) struct ItemStarts {
    /// Whether `known` (and `floor`) are the open items.
    certain: bool,
    /// Content columns of the open items the tracker saw, outermost first (increasing).
    known: Vec<usize>,
    /// Items it did not see may be open below `known`, with content columns of at most 3.
    floor: bool,
    /// The previous line is in an open paragraph (an item's first line, or its continuation).
    paragraph: bool,
    /// Set once a line is seen, so that the text's start is a known state (no item open).
    started: bool,
}

impl ItemStarts {
    /// A blank line: it closes the paragraph, not the items.
    pub(crate) fn blank(&mut self) {
        self.start();
        self.paragraph = false;
    }

    /// Whether the non-blank `line` certainly starts a new list item (no paragraph spans its
    /// start); learns what it tells about the open items.
    pub(crate) fn starts_item(&mut self, line: &[u8]) -> bool {
        self.start();
        let Some((c, content)) = simple_item(line) else {
            self.certain = false;
            return false;
        };
        if !self.certain {
            if c > 3 {
                return false;
            }
            (self.certain, self.floor) = (true, true);
            self.known.clear();
            self.open(c, content);
            return true;
        }
        // The deepest container the line matches, as the range of columns it may end at.
        let matched = self.known.iter().rev().find(|&&k| k <= c).copied();
        let (least, most) = match matched {
            Some(k) => (k, k),
            None if self.floor => (0, c.min(3)),
            None => (0, 0),
        };
        if c - least <= 3 {
            self.open(c, content);
            true
        } else if c - most >= 4 && self.paragraph {
            false // a continuation line: the items stay as they are
        } else {
            self.certain = false;
            false
        }
    }

    fn start(&mut self) {
        if !self.started {
            (self.started, self.certain) = (true, true);
        }
    }

    /// A new item at column `c` with content column `content`: the open items deeper than `c`
    /// are closed.
    fn open(&mut self, c: usize, content: usize) {
        while self.known.last().is_some_and(|&k| k > c) {
            self.known.pop();
        }
        self.known.push(content);
        self.paragraph = true;
    }
}

/// `(c, content column)` of a simple item line (see [`ItemStarts`]).
fn simple_item(line: &[u8]) -> Option<(usize, usize)> {
    let c = line.iter().take_while(|&&b| b == b' ').count();
    if !matches!(line.get(c), Some(b'-' | b'+' | b'*')) {
        return None;
    }
    let spaces = line[c + 1..].iter().take_while(|&&b| b == b' ').count();
    let first = *line.get(c + 1 + spaces)?;
    let safe = first.is_ascii_alphabetic()
        || matches!(first, b'[' | b'(' | b'!' | b'"' | b'\'' | b'`')
        || first >= 0x80;
    if !(1..=4).contains(&spaces) || !safe || memchr::memchr(b'>', line).is_some() {
        return None;
    }
    Some((c, c + 1 + spaces))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_item_lines() {
        assert_eq!(simple_item(b"* a"), Some((0, 2)));
        assert_eq!(simple_item(b"    -    [x](y)"), Some((4, 9)));
        assert_eq!(simple_item(b"  +  \xc3\xa9"), Some((2, 5)));
        for line in [
            &b"*a"[..],
            b"*     a",
            b"* 1. a",
            b"* # a",
            b"* * *",
            b"*\ta",
            b"\t* a",
            b"* a > b",
            b"1. a",
            b"a",
            b"* ",
            b"*",
        ] {
            assert_eq!(
                simple_item(line),
                None,
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn a_table_of_contents_is_cut_at_its_items() {
        let mut items = ItemStarts::default();
        let lines = [
            "Inhoud",             // a paragraph: not an item
            "  * [Een](een)",     // c = 2: an item whatever is open
            "    * [Twee](twee)", // nested in it (content column 4)
            "      * [Drie](x)",  // nested again (6)
            "    * [Vier](y)",    // a sibling of Twee
            "          * lui",    // 10 columns, 6 past Vier's content: a continuation
            "  * [Vijf](z)",      // top level again
        ];
        let starts: Vec<bool> = lines
            .iter()
            .map(|l| items.starts_item(l.as_bytes()))
            .collect();
        assert_eq!(starts, [false, true, true, true, true, false, true]);
        assert_eq!(items.known, [4]);
        // After a blank line, 4 columns past every open item is indented code: unknown, until
        // an item at column 3 or less.
        items.blank();
        assert!(!items.starts_item(b"        * code"));
        assert!(!items.starts_item(b"    * [Zes](z)"));
        assert!(items.starts_item(b"   * [Zeven](z)"));
    }

    #[test]
    fn bounds() {
        let toc = "  * [Een _a](een)\n    * [Twee](twee)\n      * [Drie *b*](x)\n".repeat(400);
        // Container weights 5, 7 and 9 (spaces, the bullet 2, the space after it); the openers
        // `_a`, `*b*` (both stars: the closing one is not followed by a space).
        let whole = super::super::markdown_nesting_bound(toc.as_bytes());
        assert_eq!(whole, Some(9 + 3 * 400 + 13));
        assert_eq!(
            markdown_nesting_bound_by_items(toc.as_bytes()),
            Some(9 + 2 + 13)
        );
        for refused in ["<b>\n", "```\n", "~~~\n", "---\n", "[^1]\n"] {
            let text = format!("{toc}{refused}");
            assert_eq!(markdown_nesting_bound_by_items(text.as_bytes()), None);
        }
        // A continuation line keeps the run: its openers count with the item's.
        assert_eq!(
            markdown_nesting_bound_by_items(b"* _a\n      * _b\n* c\n"),
            Some(9 + 2 + 13)
        );
    }

    /// Against pulldown-cmark: every line the tracker says starts an item does, on generated
    /// lists of every indentation, with continuation lines, blank lines, quotes, headings,
    /// rules, tables, ordered items and indented code among them (and no `---`, which the
    /// bound refuses).
    mod against_the_parser {
        use super::*;
        use crate::unparsed::markdown_lines::{deepest, parser_options};
        use proptest::prelude::*;
        use pulldown_cmark::{Event, Parser, Tag};

        fn item_starts(text: &str) -> Vec<usize> {
            Parser::new_ext(text, parser_options())
                .into_offset_iter()
                .filter_map(|(event, range)| match event {
                    Event::Start(Tag::Item) => Some(range.start),
                    _ => None,
                })
                .collect()
        }

        fn listish() -> impl Strategy<Value = String> {
            let indent = prop::sample::select(vec![
                0usize, 0, 1, 2, 2, 3, 4, 4, 5, 6, 6, 7, 8, 8, 9, 10, 12,
            ]);
            let marker = prop::sample::select(vec![
                "* ", "- ", "+ ", "*  ", "-    ", "-     ", "*\t", "1. ", "2) ", "> ", "", "",
            ]);
            let content = prop::sample::select(vec![
                "a",
                "[l](u)",
                "`c`",
                "x _y_ z",
                "*e",
                "# h",
                "***",
                "===",
                "| a | b |",
                "|:-|-:|",
                "* * *",
                "[r]: /u",
                "1. x",
                "- y",
                "\u{e9}",
                "(p)",
                "[ ] t",
                "",
                "b  ",
            ]);
            let line = (indent, marker, content, any::<bool>()).prop_map(|(i, m, c, blank)| {
                if blank && i % 5 == 0 {
                    String::new()
                } else {
                    format!("{}{m}{c}", " ".repeat(i))
                }
            });
            prop::collection::vec(line, 1..40).prop_map(|lines| lines.join("\n"))
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(3000))]
            #[test]
            fn every_item_start_found_is_one(text in listish()) {
                prop_assume!(trackable(text.as_bytes()));
                let starts = item_starts(&text);
                let mut items = ItemStarts::default();
                let mut at = 0;
                for line in text.split('\n') {
                    if line.trim_matches([' ', '\t']).is_empty() {
                        items.blank();
                    } else if items.starts_item(line.as_bytes()) {
                        let marker = at + line.len() - line.trim_start_matches(' ').len();
                        // An item's range starts on its marker's line (pulldown-cmark
                        // includes the line's indentation).
                        prop_assert!(
                            starts.iter().any(|&s| (at..=marker).contains(&s)),
                            "no item starts on the line at byte {at}: {text:?}"
                        );
                    }
                    at += line.len() + 1;
                }
                if let Some(bound) = markdown_nesting_bound_by_items(text.as_bytes()) {
                    let deepest = deepest(&text);
                    prop_assert!(deepest + 8 <= bound, "{deepest} open, bound {bound}: {text:?}");
                }
            }
        }
    }
}
