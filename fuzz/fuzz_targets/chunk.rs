//! Every chunking strategy that needs no model (recursive, fixed, sliding, sentence, paragraph,
//! headings, elements, code, hierarchical) × every sizer without files (chars, words, cl100k
//! tokens) on arbitrary text and parameters derived from the input, on plain text (`spans`) and
//! on the text parsed as Markdown, reST, HTML, Python or plain text (`chunk_parsed`).
//!
//! The invariants are the project's own (`chunklab_core::validate`, as the property tests use
//! them): spans on char boundaries inside the text, in order, with their real size within the
//! limit, covering every non-whitespace char (once without overlap); hierarchical levels nested
//! and each within its limit; source lines right; a second run equal to the first. A
//! `TooSmall` refusal must name a char that really is over the limit on its own. LangChain-compat
//! output promises LangChain's texts, not chunklab's budget: only determinism is checked there.
#![no_main]

use arbitrary::Arbitrary;
use chunklab_core::config::{ChunkConfig, Compat, KeepSeparator, Strategy};
use chunklab_core::document::ParsedDocument;
use chunklab_core::validate::{check_hierarchy, check_lines, check_parsed, check_spans, Expect};
use chunklab_core::{strategies, CharSizer, Error, Lang, Sizer, WordSizer};
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

const STRATEGIES: [Strategy; 9] = [
    Strategy::Recursive,
    Strategy::Fixed,
    Strategy::Sliding,
    Strategy::Sentence,
    Strategy::Paragraph,
    Strategy::Headings,
    Strategy::Elements,
    Strategy::Code,
    Strategy::Hierarchical,
];

/// Parsers the text may go through first (`None`: plain `spans`).
const FORMATS: [Option<(&str, &str)>; 6] = [
    None,
    Some(("markdown", "x.md")),
    Some(("rst", "x.rst")),
    Some(("html", "x.html")),
    Some(("code:python", "x.py")),
    Some(("text", "x.txt")),
];

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    strategy: u8,
    sizer: u8,
    size: u16,
    overlap: u16,
    stride: u16,
    langchain: bool,
    separators: Option<Vec<&'a str>>,
    regex: bool,
    keep: u8,
    max_level: u8,
    title_prefix: bool,
    merge_siblings: bool,
    lang: u8,
    levels: Vec<u16>,
    format: u8,
    text: &'a str,
}

fn sizer(which: u8) -> (Arc<dyn Sizer>, usize) {
    static CL100K: OnceLock<Arc<dyn Sizer>> = OnceLock::new();
    match which % 3 {
        0 => (Arc::new(CharSizer), 400),
        1 => (Arc::new(WordSizer), 60),
        _ => (
            CL100K
                .get_or_init(|| Arc::new(chunklab_tokenizers::Tiktoken::cl100k()))
                .clone(),
            80,
        ),
    }
}

fn takes(strategy: Strategy, key: &str) -> bool {
    strategies::catalog()
        .iter()
        .any(|i| i.name == strategy.to_string() && i.params.iter().any(|p| p.name == key))
}

fn config(input: &Input, max: usize) -> ChunkConfig {
    let strategy = STRATEGIES[input.strategy as usize % STRATEGIES.len()];
    let size = 1 + input.size as usize % max;
    let mut cfg = ChunkConfig::new(strategy, size);
    if takes(strategy, "overlap") {
        cfg.overlap = input.overlap as usize % (size + 1);
    }
    if takes(strategy, "stride") {
        cfg.stride = Some(1 + input.stride as usize % size);
    }
    if takes(strategy, "compat") && input.langchain {
        cfg.compat = Compat::LangChain;
    }
    if takes(strategy, "separators") {
        if let Some(seps) = &input.separators {
            cfg.separators = Some(seps.iter().take(6).map(|s| s.to_string()).collect());
            cfg.regex_separators = input.regex;
        }
    }
    if takes(strategy, "keep_separator") {
        cfg.keep_separator = [
            KeepSeparator::Start,
            KeepSeparator::End,
            KeepSeparator::Drop,
        ][input.keep as usize % 3];
    }
    if takes(strategy, "max_level") {
        cfg.max_level = input.max_level as usize % 8;
    }
    if takes(strategy, "title_prefix") {
        cfg.title_prefix = input.title_prefix;
    }
    if takes(strategy, "merge_siblings") {
        cfg.merge_siblings = input.merge_siblings;
    }
    cfg.lang = [Lang::Auto, Lang::English, Lang::Dutch][input.lang as usize % 3];
    if strategy == Strategy::Hierarchical {
        let mut levels: Vec<usize> = input
            .levels
            .iter()
            .take(3)
            .map(|&l| 1 + l as usize % max)
            .collect();
        if levels.is_empty() {
            levels.push(size);
        }
        cfg.levels = Some(levels);
    }
    cfg
}

/// A refusal is right only when the char it names really is over the limit on its own.
fn refusal_is_right(e: &Error, text: &str, sizer: &dyn Sizer, parsed: bool) -> bool {
    match e {
        // Structure-aware strategies need a parsed document.
        Error::Config(m) => m.contains("requires"),
        Error::TooSmall {
            text: t,
            offset,
            units,
            size,
        } => {
            units > size
                && (parsed
                    || (sizer.count(t) == *units
                        && text.get(*offset..offset + t.len()) == Some(t.as_str())))
        }
        _ => false,
    }
}

/// The span checks of `check_spans` without coverage: inside the text on char boundaries,
/// non-empty, sorted, real size = claimed size <= limit.
fn check_bounds(text: &str, spans: &[chunklab_core::Span], sizer: &dyn Sizer, size: usize) {
    let mut prev = 0;
    for (i, s) in spans.iter().enumerate() {
        assert!(
            s.start < s.end && s.end <= text.len(),
            "span {i} {}..{} outside",
            s.start,
            s.end
        );
        assert!(text.is_char_boundary(s.start) && text.is_char_boundary(s.end));
        assert!(s.start >= prev, "span {i} out of order");
        prev = s.start;
        let real = sizer.count(&text[s.start..s.end]);
        assert_eq!(
            real, s.tokens,
            "span {i} claims {} units, is {real}",
            s.tokens
        );
        assert!(real <= size, "span {i} has {real} units, over {size}");
    }
}

fuzz_target!(
    init: chunklab_fuzz::init(),
    |input: Input| {
        let (sizer, max) = sizer(input.sizer);
        let cfg = config(&input, max);
        let Ok(chunker) = strategies::build(&cfg, sizer.clone(), None) else {
            return;
        };
        let exact = cfg.compat == Compat::Native;
        let overlap = cfg.overlap > 0 || cfg.strategy == Strategy::Sliding;
        let expect = Expect {
            size: cfg.size,
            overlap,
        };
        let text = input.text;
        let format = FORMATS[input.format as usize % FORMATS.len()];
        let doc: Option<ParsedDocument> = match format {
            None => None,
            Some((name, file)) => match chunklab_fuzz::parse_forced(name, file, text.as_bytes()) {
                Some(d) => Some(d),
                None => return,
            },
        };
        let hierarchical = cfg.strategy == Strategy::Hierarchical;
        // `keep_separator = drop` drops the separators at chunk boundaries: with custom
        // (non-whitespace) separators those chars are in no chunk by design, so only the span
        // checks apply there, not coverage.
        let dropped = cfg.keep_separator == KeepSeparator::Drop && cfg.separators.is_some();
        match &doc {
            None if !hierarchical => {
                let spans = match chunker.spans(text) {
                    Ok(s) => s,
                    Err(e) if refusal_is_right(&e, text, sizer.as_ref(), false) => return,
                    Err(e) => panic!("{}: {e}", chunker.config()),
                };
                if exact && dropped {
                    check_bounds(text, &spans, sizer.as_ref(), cfg.size);
                } else if exact {
                    if let Err(e) = check_spans(text, &spans, sizer.as_ref(), expect) {
                        panic!("{}: {e}", chunker.config());
                    }
                }
                let again = chunker.spans(text).expect("second run fails where the first did not");
                assert_eq!(again, spans, "{}: not deterministic", chunker.config());
            }
            _ => {
                let run = || match &doc {
                    Some(d) => chunker.chunk_parsed(d),
                    None => chunker.chunk_text(text),
                };
                let chunks = match run() {
                    Ok(c) => c,
                    Err(e) if refusal_is_right(&e, text, sizer.as_ref(), doc.is_some()) => return,
                    Err(e) => panic!("{}: {e}", chunker.config()),
                };
                let whole = doc.as_ref().map_or(text, |d| d.text.as_str());
                if exact && hierarchical {
                    let levels = cfg.levels.clone().expect("set above");
                    if let Err(e) = check_hierarchy(whole, &chunks, sizer.as_ref(), &levels) {
                        panic!("{}: {e}", chunker.config());
                    }
                    if let Some(d) = &doc {
                        if let Err(e) = check_lines(d, &chunks) {
                            panic!("{}: {e}", chunker.config());
                        }
                    }
                } else if exact && dropped {
                    let spans: Vec<_> = chunks.iter().map(|(s, _)| *s).collect();
                    let d = doc.as_ref().expect("only hierarchical chunks plain text here");
                    check_bounds(&d.text, &spans, sizer.as_ref(), cfg.size);
                } else if exact {
                    let d = doc.as_ref().expect("only hierarchical chunks plain text here");
                    if let Err(e) = check_parsed(d, &chunks, sizer.as_ref(), expect) {
                        panic!("{}: {e}", chunker.config());
                    }
                }
                let again = run().expect("second run fails where the first did not");
                assert_eq!(again, chunks, "{}: not deterministic", chunker.config());
            }
        }
    }
);
