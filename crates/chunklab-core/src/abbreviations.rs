//! Abbreviation lists for the sentence segmenter ([`crate::segment`]).
//!
//! Entries are lowercase and written without their final period (`"dhr"` for "Dhr.", `"ph.d"`
//! for "Ph.D."). Chains of single letters ("o.a.", "d.w.z.", "U.S.", initials like "J.A.") need no
//! entry: the segmenter treats every such chain as an abbreviation, except the ones listed in the
//! `*_TERMINAL` lists, which often end a sentence ("e.d.", "a.s.", "p.m.").
//!
//! Every list is kept sorted so lookups are binary searches; a unit test checks that.

use crate::lang::Lang;

/// How a period after an abbreviation behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Abbrev {
    /// Never ends a sentence: titles and connectives that a name or clause always follows
    /// ("Dhr. Jansen", "bijv. De Vries", "Mr. Smith", "vs. Ajax").
    Never,
    /// Ends a sentence only before an uppercase letter; before a number it is a label
    /// ("art. 3.1", "No. 5", "Fig. 3", "blz. 12", "12 jan. 2021").
    BeforeNumber,
    /// A single-letter chain that often ends a sentence ("e.d.", "a.s.", "p.m."): treated like an
    /// ordinary word, so the usual capital-letter rule decides.
    Terminal,
}

/// Titles and connectives used in both languages (Dutch texts quote English titles and vice versa).
const COMMON_NEVER: &[&str] = &[
    "ca", "cf", "dhr", "dr", "drs", "mevr", "mgr", "mr", "mrs", "ms", "mw", "ph.d", "prof", "st",
    "v", "vs",
];

const DUTCH_NEVER: &[&str] = &[
    "adj", "afd", "bijv", "bv", "ds", "evt", "excl", "gebr", "hr", "incl", "ing", "ir", "jhr",
    "jkvr", "mej", "nl", "ong", "resp", "vgl", "vlgs", "vnl", "wnd", "zgn",
];

const DUTCH_BEFORE_NUMBER: &[&str] = &[
    "apr", "art", "aug", "bijl", "blz", "dec", "feb", "fig", "hfst", "jan", "jul", "jun", "max",
    "min", "mrt", "no", "nov", "nr", "okt", "p", "pag", "par", "pp", "sep", "sept", "tab", "tel",
];

const DUTCH_TERMINAL: &[&str] = &[
    "a.s", "a.u.b", "b.v", "c.s", "e.a", "e.d", "e.v", "n.m", "n.v", "n.v.t", "s.v.p", "t.z.t",
    "v.m", "z.s.m",
];

const ENGLISH_NEVER: &[&str] = &[
    "approx", "assn", "bros", "capt", "cmdr", "co", "col", "corp", "dept", "esp", "gen", "gov",
    "hon", "inc", "jr", "lt", "ltd", "messrs", "mlle", "mme", "mt", "pres", "rep", "rev", "sen",
    "sgt", "sr", "supt", "univ", "viz",
];

const ENGLISH_BEFORE_NUMBER: &[&str] = &[
    "al", "apr", "art", "aug", "ch", "chap", "dec", "ed", "eds", "eq", "eqs", "ext", "feb", "fig",
    "figs", "jan", "jul", "jun", "max", "min", "no", "nos", "nov", "oct", "op", "p", "para", "pp",
    "ref", "refs", "sec", "sect", "sep", "sept", "tab", "tel", "vol", "vols",
];

const ENGLISH_TERMINAL: &[&str] = &["a.d", "a.m", "b.c", "p.m"];

/// Capitalised nouns that label a numbered heading: the period in "Hoofdstuk 1. Titel" or
/// "Chapter 2. Title" does not end a sentence.
const DUTCH_HEADING_NOUNS: &[&str] = &[
    "afdeling",
    "agendapunt",
    "artikel",
    "bijlage",
    "deel",
    "fase",
    "figuur",
    "hoofdstuk",
    "onderdeel",
    "paragraaf",
    "punt",
    "stap",
    "tabel",
    "titel",
];

const ENGLISH_HEADING_NOUNS: &[&str] = &[
    "annex", "appendix", "article", "chapter", "figure", "item", "part", "phase", "section",
    "step", "table",
];

/// Is `word` (lowercase) a heading noun in `lang`?
pub(crate) fn is_heading_noun(word: &str, lang: Lang) -> bool {
    let list = match lang {
        Lang::Dutch => DUTCH_HEADING_NOUNS,
        Lang::English | Lang::Auto => ENGLISH_HEADING_NOUNS,
    };
    list.binary_search(&word).is_ok()
}

/// Classify `word` (lowercase, without its final period) for `lang` (`Auto` is treated as
/// English; the segmenter resolves it first).
pub(crate) fn lookup(word: &str, lang: Lang) -> Option<Abbrev> {
    let has = |list: &[&str]| list.binary_search(&word).is_ok();
    let (never, before_number, terminal) = match lang {
        Lang::Dutch => (DUTCH_NEVER, DUTCH_BEFORE_NUMBER, DUTCH_TERMINAL),
        Lang::English | Lang::Auto => (ENGLISH_NEVER, ENGLISH_BEFORE_NUMBER, ENGLISH_TERMINAL),
    };
    if has(terminal) {
        Some(Abbrev::Terminal)
    } else if has(COMMON_NEVER) || has(never) {
        Some(Abbrev::Never)
    } else if has(before_number) {
        Some(Abbrev::BeforeNumber)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_sorted_lowercase_and_without_final_period() {
        for list in [
            COMMON_NEVER,
            DUTCH_NEVER,
            DUTCH_BEFORE_NUMBER,
            DUTCH_TERMINAL,
            ENGLISH_NEVER,
            ENGLISH_BEFORE_NUMBER,
            ENGLISH_TERMINAL,
            DUTCH_HEADING_NOUNS,
            ENGLISH_HEADING_NOUNS,
        ] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "unsorted: {list:?}");
            for w in list {
                assert_eq!(*w, w.to_lowercase());
                assert!(!w.ends_with('.') && !w.is_empty());
            }
        }
    }

    #[test]
    fn lookups_depend_on_language() {
        assert_eq!(lookup("dhr", Lang::Dutch), Some(Abbrev::Never));
        assert_eq!(lookup("dhr", Lang::English), Some(Abbrev::Never));
        assert_eq!(lookup("bijv", Lang::English), None);
        assert_eq!(lookup("dr", Lang::English), Some(Abbrev::Never));
        assert_eq!(lookup("art", Lang::Dutch), Some(Abbrev::BeforeNumber));
        assert_eq!(lookup("e.d", Lang::Dutch), Some(Abbrev::Terminal));
        assert_eq!(lookup("inc", Lang::English), Some(Abbrev::Never));
        // Dutch words that are English abbreviations stay words in Dutch.
        assert_eq!(lookup("vol", Lang::Dutch), None);
        assert_eq!(lookup("al", Lang::Dutch), None);
    }
}
