//! Checks of the chunk invariants, used by the property tests and available to users who want to
//! verify output of their own strategies.

use crate::chunk::{ChunkMeta, Span};
use crate::config::{ChunkConfig, Strategy};
use crate::document::ParsedDocument;
use crate::sizer::Sizer;
use crate::text::{is_py_space, LineIndex};
use crate::text_embedder::TextEmbedder;

/// What [`check_spans`] should require.
#[derive(Debug, Clone, Copy)]
pub struct Expect {
    /// Size limit in the sizer's units.
    pub size: usize,
    /// With no overlap every non-whitespace char must be in exactly one chunk; with overlap, at
    /// least one.
    pub overlap: bool,
}

/// Verify that `spans` are a valid chunking of `text`:
/// * every span lies on char boundaries, inside the text, and is non-empty;
/// * spans are sorted by start;
/// * `span.tokens` is the real size (`sizer.count`) and `<= expect.size`;
/// * every non-whitespace char is covered exactly once (no overlap) or at least once (overlap).
///
/// Returns a description of the first violation.
///
/// ```
/// use chunklab_core::{validate::{check_spans, Expect}, CharSizer, Span};
/// let text = "ab cd";
/// let spans = [Span::new(0, 2, 2), Span::new(3, 5, 2)];
/// assert!(check_spans(text, &spans, &CharSizer, Expect { size: 2, overlap: false }).is_ok());
/// assert!(check_spans(text, &spans[..1], &CharSizer, Expect { size: 2, overlap: false }).is_err());
/// ```
pub fn check_spans(
    text: &str,
    spans: &[Span],
    sizer: &dyn Sizer,
    expect: Expect,
) -> Result<(), String> {
    check(text, spans.iter().map(|s| (s, None)), sizer, expect)
}

/// [`check_spans`] for the output of [`crate::Chunker::chunk_parsed`]: the size that must be real
/// and within the limit is that of `meta.prefix + text`; the spans must cover `doc.text`.
///
/// ```
/// use chunklab_core::{validate::{check_parsed, Expect}, document::ParsedDocument};
/// use chunklab_core::{CharSizer, ChunkMeta, Span};
/// let doc = ParsedDocument::plain("ab cd".into());
/// let meta = ChunkMeta { prefix: Some("X\n".into()), ..ChunkMeta::default() };
/// let ok = [(Span::new(0, 2, 4), meta.clone()), (Span::new(3, 5, 2), ChunkMeta::default())];
/// assert!(check_parsed(&doc, &ok, &CharSizer, Expect { size: 4, overlap: false }).is_ok());
/// let bad = [(Span::new(0, 2, 2), meta), (Span::new(3, 5, 2), ChunkMeta::default())];
/// assert!(check_parsed(&doc, &bad, &CharSizer, Expect { size: 4, overlap: false }).is_err());
/// ```
pub fn check_parsed(
    doc: &ParsedDocument,
    chunks: &[(Span, ChunkMeta)],
    sizer: &dyn Sizer,
    expect: Expect,
) -> Result<(), String> {
    let items = chunks.iter().map(|(s, m)| (s, m.prefix.as_deref()));
    check(&doc.text, items, sizer, expect)?;
    check_lines(doc, chunks)
}

/// Where `doc`'s text is its source file ([`ParsedDocument::text_is_source`]) and its elements
/// carry source lines, every chunk's `lines` must be the first and last line of its own span
/// (without surrounding whitespace), counted on the text's own newlines. Other documents pass.
///
/// ```
/// use chunklab_core::document::{Element, ElementKind, ParsedDocument};
/// use chunklab_core::{validate::check_lines, ChunkMeta, Span};
/// let mut doc = ParsedDocument::plain("een\ntwee\ndrie".into());
/// doc.elements.push(Element::new(ElementKind::Paragraph, 0, 13).with_lines(1, 3));
/// let at = |a, b| ChunkMeta { lines: Some((a, b)), ..ChunkMeta::default() };
/// assert!(check_lines(&doc, &[(Span::new(0, 8, 8), at(1, 2)), (Span::new(9, 13, 4), at(3, 3))]).is_ok());
/// assert!(check_lines(&doc, &[(Span::new(9, 13, 4), at(1, 3))]).is_err());
/// ```
pub fn check_lines(doc: &ParsedDocument, chunks: &[(Span, ChunkMeta)]) -> Result<(), String> {
    if !doc.text_is_source() || !doc.elements.iter().any(|e| e.lines.is_some()) {
        return Ok(());
    }
    let index = LineIndex::new(&doc.text);
    for (i, (s, meta)) in chunks.iter().enumerate() {
        let want = index.span_lines(&doc.text, s.start, s.end);
        if meta.lines != Some(want) {
            return Err(format!(
                "chunk {i} {}..{} says lines {:?}; its text spans lines {want:?}: {:?}",
                s.start,
                s.end,
                meta.lines,
                &doc.text[s.start..s.end]
            ));
        }
    }
    Ok(())
}

fn check<'a>(
    text: &str,
    spans: impl Iterator<Item = (&'a Span, Option<&'a str>)> + Clone,
    sizer: &dyn Sizer,
    expect: Expect,
) -> Result<(), String> {
    let mut prev_start = 0;
    for (i, (s, prefix)) in spans.clone().enumerate() {
        if s.start >= s.end || s.end > text.len() {
            return Err(format!(
                "span {i} {}..{} is empty or outside the text ({} bytes)",
                s.start,
                s.end,
                text.len()
            ));
        }
        if !text.is_char_boundary(s.start) || !text.is_char_boundary(s.end) {
            return Err(format!(
                "span {i} {}..{} is not on char boundaries",
                s.start, s.end
            ));
        }
        if s.start < prev_start {
            return Err(format!(
                "span {i} starts at {} before the previous span ({prev_start})",
                s.start
            ));
        }
        prev_start = s.start;
        let real = match prefix {
            None => sizer.count(&text[s.start..s.end]),
            Some(p) => sizer.count(&format!("{p}{}", &text[s.start..s.end])),
        };
        if real != s.tokens {
            return Err(format!(
                "span {i} claims {} units, real count is {real}",
                s.tokens
            ));
        }
        if real > expect.size {
            return Err(format!(
                "span {i} has {real} units, over the limit {}: {:?}",
                expect.size,
                &text[s.start..s.end]
            ));
        }
    }
    // Coverage: sweep spans over the text.
    let mut covered = vec![0u16; text.len()];
    for (s, _) in spans {
        for c in &mut covered[s.start..s.end] {
            *c = c.saturating_add(1);
        }
    }
    for (b, ch) in text.char_indices() {
        if is_py_space(ch) {
            continue;
        }
        let n = covered[b];
        if n == 0 {
            return Err(format!("char {ch:?} at byte {b} is in no chunk"));
        }
        if n > 1 && !expect.overlap {
            return Err(format!(
                "char {ch:?} at byte {b} is in {n} chunks without overlap"
            ));
        }
    }
    Ok(())
}

/// Run every strategy of [`crate::strategies::catalog`] on `text` with `sizer` and limit `size`,
/// without and with overlap, and [`check_spans`] each result; also checks determinism (a second
/// run gives the same spans). Used by the property tests of every sizer.
pub fn check_all_strategies(
    text: &str,
    sizer: std::sync::Arc<dyn Sizer>,
    size: usize,
) -> Result<(), String> {
    check_all_strategies_with(text, sizer, size, None)
}

/// [`check_all_strategies`] with an embedder for the model-driven strategies (`semantic`,
/// `cluster`), which are skipped when `embedder` is `None`. `hierarchical` is checked with
/// [`check_hierarchy`] at levels derived from `size` (`size`, `size / 3`, `size / 9`).
pub fn check_all_strategies_with(
    text: &str,
    sizer: std::sync::Arc<dyn Sizer>,
    size: usize,
    embedder: Option<std::sync::Arc<dyn TextEmbedder>>,
) -> Result<(), String> {
    use crate::strategies::{build, catalog};
    for info in catalog() {
        if outside_core(info.name) {
            continue;
        }
        if info.name == "hierarchical" {
            check_hierarchical(text, None, sizer.clone(), size)?;
            continue;
        }
        let model = needs_model(info.name);
        if model && embedder.is_none() {
            continue;
        }
        let mut variants = vec![(config(info.name, size, 0, size), false)];
        let overlap = match info.name {
            "sentence" | "paragraph" => 1,
            _ => (size / 4).max(1),
        };
        // The model-driven strategies have no overlap.
        if overlap < size && !model {
            variants.push((config(info.name, size, overlap, (size / 2).max(1)), true));
        }
        for (opts, overlap) in variants {
            let chunker = match build(&opts, sizer.clone(), embedder.clone()) {
                Ok(c) => c,
                // Strategies needing a model or structure are not built from plain options.
                Err(crate::Error::Config(m)) if m.contains("requires") => continue,
                Err(e) => return Err(format!("{}: cannot build: {e}", info.name)),
            };
            let spans = match chunker.spans(text) {
                Ok(s) => s,
                // Structure-aware strategies need a parsed document (`check_all_parsed`).
                Err(crate::Error::Config(m)) if m.contains("requires") => continue,
                // Refusing is right only when the char really cannot fit on its own.
                Err(crate::Error::TooSmall {
                    text: t,
                    offset,
                    units,
                    size: limit,
                }) if units > limit
                    && sizer.count(&t) == units
                    && text.get(offset..offset + t.len()) == Some(t.as_str()) =>
                {
                    continue
                }
                Err(e) => return Err(format!("{}: {e}", chunker.config())),
            };
            check_spans(text, &spans, sizer.as_ref(), Expect { size, overlap })
                .map_err(|e| format!("{}: {e}", chunker.config()))?;
            let again = chunker.spans(text).map_err(|e| e.to_string())?;
            if again != spans {
                return Err(format!("{}: output is not deterministic", chunker.config()));
            }
        }
    }
    Ok(())
}

/// Run every strategy of [`crate::strategies::catalog`] through [`crate::Chunker::chunk_parsed`]
/// on a parsed document, with limit `size`; `headings` and `elements` also with `title_prefix` and
/// `max_level` 1 and 2. [`check_parsed`] each result and check determinism. Used by the parser
/// tests on real documents.
pub fn check_all_parsed(
    doc: &ParsedDocument,
    sizer: std::sync::Arc<dyn Sizer>,
    size: usize,
) -> Result<(), String> {
    use crate::strategies::{build, catalog};
    for info in catalog() {
        if outside_core(info.name) {
            continue;
        }
        if info.name == "hierarchical" {
            check_hierarchical(&doc.text, Some(doc), sizer.clone(), size)?;
            continue;
        }
        if needs_model(info.name) {
            continue;
        }
        let structured = matches!(info.name, "headings" | "elements");
        let mut variants = vec![config(info.name, size, 0, size)];
        if structured {
            for (max_level, title_prefix) in [(6, true), (1, false), (2, true)] {
                variants.push(ChunkConfig {
                    max_level,
                    title_prefix,
                    ..config(info.name, size, 0, size)
                });
            }
        }
        for opts in variants {
            let chunker = match build(&opts, sizer.clone(), None) {
                Ok(c) => c,
                Err(crate::Error::Config(m)) if m.contains("requires") => continue,
                Err(e) => return Err(format!("{}: cannot build: {e}", info.name)),
            };
            let chunks = match chunker.chunk_parsed(doc) {
                Ok(c) => c,
                Err(crate::Error::TooSmall {
                    units, size: limit, ..
                }) if units > limit => continue,
                Err(e) => return Err(format!("{}: {e}", chunker.config())),
            };
            let expect = Expect {
                size,
                overlap: false,
            };
            check_parsed(doc, &chunks, sizer.as_ref(), expect)
                .map_err(|e| format!("{}: {e}", chunker.config()))?;
            if chunker.chunk_parsed(doc).map_err(|e| e.to_string())? != chunks {
                return Err(format!("{}: output is not deterministic", chunker.config()));
            }
        }
    }
    Ok(())
}

/// The configuration of strategy `name` at `size` with `overlap` where the strategy takes one
/// and `stride` for `sliding`.
fn config(name: &str, size: usize, overlap: usize, stride: usize) -> ChunkConfig {
    let strategy: Strategy = name.parse().expect("catalog names parse");
    let takes = |key: &str| {
        crate::strategies::catalog()
            .iter()
            .any(|i| i.name == name && i.params.iter().any(|p| p.name == key))
    };
    ChunkConfig {
        overlap: if takes("overlap") { overlap } else { 0 },
        stride: (strategy == Strategy::Sliding).then_some(stride),
        ..ChunkConfig::new(strategy, size)
    }
}

/// Strategies listed in the catalog but built outside chunklab-core (`late` in chunklab-embed,
/// `llm` in chunklab-llm); their own crates test them.
fn outside_core(strategy: &str) -> bool {
    matches!(strategy, "late" | "llm")
}

fn needs_model(strategy: &str) -> bool {
    matches!(strategy, "semantic" | "cluster")
}

/// Level limits for checking `hierarchical` at `size`: `size`, `size / 3`, `size / 9` while
/// they are at least 1.
fn hierarchy_levels(size: usize) -> Vec<usize> {
    let mut levels = vec![size.max(1)];
    while levels.len() < 3 {
        let next = levels[levels.len() - 1] / 3;
        if next == 0 {
            break;
        }
        levels.push(next);
    }
    levels
}

/// Build `hierarchical` for `size`, chunk `text` (through `chunk_parsed` when `doc` is given),
/// [`check_hierarchy`] the result and check determinism.
fn check_hierarchical(
    text: &str,
    doc: Option<&ParsedDocument>,
    sizer: std::sync::Arc<dyn Sizer>,
    size: usize,
) -> Result<(), String> {
    use crate::strategies::build;
    let levels = hierarchy_levels(size);
    let opts = ChunkConfig {
        levels: Some(levels.clone()),
        ..ChunkConfig::new(Strategy::Hierarchical, size)
    };
    let chunker = build(&opts, sizer.clone(), None).map_err(|e| format!("hierarchical: {e}"))?;
    let run = || match doc {
        Some(d) => chunker.chunk_parsed(d),
        None => chunker.chunk_text(text),
    };
    let parts = match run() {
        Ok(p) => p,
        Err(crate::Error::TooSmall {
            text: t,
            offset,
            units,
            size: limit,
        }) if units > limit
            && sizer.count(&t) == units
            && text.get(offset..offset + t.len()) == Some(t.as_str()) =>
        {
            return Ok(())
        }
        Err(e) => return Err(format!("{}: {e}", chunker.config())),
    };
    check_hierarchy(text, &parts, sizer.as_ref(), &levels)
        .map_err(|e| format!("{}: {e}", chunker.config()))?;
    if let Some(d) = doc {
        check_lines(d, &parts).map_err(|e| format!("{}: {e}", chunker.config()))?;
    }
    if run().map_err(|e| e.to_string())? != parts {
        return Err(format!("{}: output is not deterministic", chunker.config()));
    }
    Ok(())
}

/// Verify a hierarchical chunking (the output of `hierarchical`'s
/// [`crate::Chunker::chunk_text`] or `chunk_parsed`): every chunk has a `level` below
/// `levels.len()`; level-0 chunks have no parent and every other chunk's `parent_index` names an
/// earlier chunk one level up whose span contains it; the chunks of each level on their own pass
/// [`check_spans`] with that level's limit and no overlap (so each level covers the text, and the
/// children of a parent cover the parent).
///
/// ```
/// use chunklab_core::{validate::check_hierarchy, CharSizer, ChunkMeta, Span};
/// let text = "ab cd";
/// let top = ChunkMeta { level: Some(0), ..ChunkMeta::default() };
/// let child = ChunkMeta { level: Some(1), parent_index: Some(0), ..ChunkMeta::default() };
/// let parts = [(Span::new(0, 5, 5), top), (Span::new(0, 2, 2), child.clone()), (Span::new(3, 5, 2), child)];
/// assert!(check_hierarchy(text, &parts, &CharSizer, &[5, 2]).is_ok());
/// assert!(check_hierarchy(text, &parts[..2], &CharSizer, &[5, 2]).is_err()); // "cd" has no child
/// ```
pub fn check_hierarchy(
    text: &str,
    parts: &[(Span, ChunkMeta)],
    sizer: &dyn Sizer,
    levels: &[usize],
) -> Result<(), String> {
    let mut by_level: Vec<Vec<Span>> = vec![Vec::new(); levels.len()];
    for (i, (s, meta)) in parts.iter().enumerate() {
        let level = match meta.level {
            Some(l) if (l as usize) < levels.len() => l as usize,
            other => {
                return Err(format!(
                    "chunk {i} has level {other:?}; expected one of 0..{}",
                    levels.len()
                ))
            }
        };
        match (level, meta.parent_index) {
            (0, None) => {}
            (0, Some(p)) => return Err(format!("top-level chunk {i} has a parent ({p})")),
            (_, None) => return Err(format!("chunk {i} at level {level} has no parent")),
            (_, Some(p)) => {
                let Some((ps, pm)) = parts.get(p).filter(|_| p < i) else {
                    return Err(format!(
                        "chunk {i} names chunk {p} as its parent, which does not come before it"
                    ));
                };
                if pm.level != Some(level as u32 - 1) {
                    return Err(format!(
                        "chunk {i} at level {level} has parent {p} at level {:?}",
                        pm.level
                    ));
                }
                if s.start < ps.start || s.end > ps.end {
                    return Err(format!(
                        "chunk {i} {}..{} is not inside its parent {p} {}..{}",
                        s.start, s.end, ps.start, ps.end
                    ));
                }
            }
        }
        by_level[level].push(*s);
    }
    for (level, spans) in by_level.iter().enumerate() {
        let expect = Expect {
            size: levels[level],
            overlap: false,
        };
        check_spans(text, spans, sizer, expect).map_err(|e| format!("level {level}: {e}"))?;
    }
    Ok(())
}
