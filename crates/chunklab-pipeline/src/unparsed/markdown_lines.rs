//! What one line of Markdown can hold open, for the nesting bounds of [`super`]: its
//! containers' weight, the bytes that may open an inline tag, and the tags every text may hold
//! besides.

/// Whether a line (without its break) is blank: spaces and tabs only.
pub(super) fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b == b' ' || b == b'\t')
}

/// Tags every Markdown text may hold open besides its containers and inline openers: a leaf
/// block (a table's three levels), two links, and 8 to spare.
pub(super) const SPARE: usize = 3 + 2 + 8;

/// The weight of the longest start of `line` made of spaces, tabs, `>` and list markers (`-`,
/// `+`, `*`, or 1–9 digits and `.` or `)`, each followed by a space, a tab or the line's end):
/// at least the number of containers by which a line matches or opens its containers. A tab
/// weighs 4, a bullet 2, any other byte 1.
pub(super) fn container_weight(line: &[u8]) -> usize {
    let n = line.len();
    let space_after = |j: usize| j >= n || line[j] == b' ' || line[j] == b'\t';
    let (mut i, mut weight) = (0, 0);
    while i < n {
        match line[i] {
            b'\t' => (i, weight) = (i + 1, weight + 4),
            b' ' | b'>' => (i, weight) = (i + 1, weight + 1),
            b'-' | b'+' | b'*' if space_after(i + 1) => (i, weight) = (i + 1, weight + 2),
            b'0'..=b'9' => {
                let digits = line[i..].iter().take(9).take_while(|b| b.is_ascii_digit());
                let j = i + digits.count();
                if j < n && matches!(line[j], b'.' | b')') && space_after(j + 1) {
                    (i, weight) = (j + 1, weight + j + 1 - i);
                } else {
                    break;
                }
            }
            _ => break,
        }
    }
    weight
}

/// Whether the byte at `k` of `text` (a `*`, `_`, `~`, `[` or `^`) may open an inline tag other
/// than a link (pulldown-cmark 0.13's delimiter rules): every `[` after a `!` (an image), `~`
/// (strikethrough) and `^`; every `*` and `_` except one followed by a space, a tab, a line break
/// or the end (its run cannot open) and a `_` between two ASCII letters or digits (intraword:
/// cannot open). Only neighbours are read, and a line break is neither `!` nor a letter, so a
/// byte counts the same in its line as in the whole text.
pub(super) fn opens(text: &[u8], k: usize) -> bool {
    let next = text.get(k + 1).copied();
    match text[k] {
        b'*' | b'_' if matches!(next, None | Some(b' ' | b'\t' | b'\n' | b'\r')) => false,
        b'_' => {
            !(k > 0
                && text[k - 1].is_ascii_alphanumeric()
                && next.is_some_and(|b| b.is_ascii_alphanumeric()))
        }
        b'[' => k > 0 && text[k - 1] == b'!',
        _ => true,
    }
}

/// The openers of one line ([`opens`]).
pub(super) fn inline_openers(line: &[u8]) -> usize {
    memchr::memchr3_iter(b'*', b'_', b'~', line)
        .chain(memchr::memchr2_iter(b'[', b'^', line))
        .filter(|&k| opens(line, k))
        .count()
}

/// The lines of `text`, without their breaks (`\n`, `\r\n` or `\r`).
pub(super) fn lines(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let n = text.len();
    let mut i = 0;
    std::iter::from_fn(move || {
        if i >= n {
            return None;
        }
        let end = memchr::memchr2(b'\n', b'\r', &text[i..]).map_or(n, |k| i + k);
        let line = &text[i..end];
        i = end + usize::from(end < n);
        if end < n && text[end] == b'\r' && text.get(end + 1) == Some(&b'\n') {
            i += 1;
        }
        Some(line)
    })
}

/// The options `chunklab_parse::markdown` turns on, for the property tests' parses.
#[cfg(test)]
pub(super) fn parser_options() -> pulldown_cmark::Options {
    use pulldown_cmark::Options;
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_YAML_STYLE_METADATA_BLOCKS
}

/// The most tags pulldown-cmark holds open at once in `text` (the property tests' reference).
#[cfg(test)]
pub(super) fn deepest(text: &str) -> usize {
    use pulldown_cmark::{Event, Parser};
    let (mut open, mut deepest) = (0usize, 0usize);
    for event in Parser::new_ext(text, parser_options()) {
        match event {
            Event::Start(_) => {
                open += 1;
                deepest = deepest.max(open);
            }
            Event::End(_) => open -= 1,
            _ => {}
        }
    }
    deepest
}
