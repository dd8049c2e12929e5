//! `hierarchical`: parent/child chunks in several levels (small chunks to match a query
//! precisely, their parents to give the answer context).
//!
//! Level 0 cuts the text with the native `recursive` strategy at the first (largest) limit; every
//! chunk of level `l` is cut again, inside its own span, at the limit of level `l + 1`. So each
//! level on its own is a complete chunking of the text within its limit, and every chunk lies
//! inside exactly one parent and the children of a parent cover it. A parent that already fits
//! the next limit has one child with the same span (it has its own id: ids include the level).
//!
//! The output holds all levels in pre-order: a parent, then its children (each followed by its
//! own children). [`Chunker::chunk_text`] and [`Chunker::chunk_parsed`] give every chunk its
//! `level` (0 = top) and `parent_index`, which [`crate::chunk_document`] and
//! [`crate::chunk_parsed_document`] turn into the parent's chunk id; [`Chunker::spans`] returns
//! the same spans without the metadata.

use super::Recursive;
use crate::chunk::{ChunkMeta, Span};
use crate::chunker::{Chunker, Locator};
use crate::document::ParsedDocument;
use crate::error::{param_err, Error, Result};
use crate::sizer::{Measure, Sizer, MAX_DOCUMENT_BYTES};
use std::sync::Arc;

/// Most levels a hierarchy may have.
pub const MAX_LEVELS: usize = 8;

/// Parent/child chunking at decreasing size limits.
///
/// ```
/// use chunklab_core::{chunk_document, strategies::Hierarchical, CharSizer, Document};
/// use std::sync::Arc;
/// let text = "Artikel 1. De raad besluit. Het college voert uit.\n\nArtikel 2. Slot.";
/// let chunker = Hierarchical::new(Arc::new(CharSizer), vec![60, 30]).unwrap();
/// let chunks = chunk_document(&Document::new("d", "mem", text), &chunker).unwrap();
/// for c in &chunks {
///     match c.meta.level {
///         Some(0) => assert!(c.tokens <= 60 && c.meta.parent_id.is_none()),
///         _ => {
///             let parent = chunks.iter().find(|p| Some(&p.id) == c.meta.parent_id.as_ref()).unwrap();
///             assert!(parent.start_byte <= c.start_byte && c.end_byte <= parent.end_byte);
///             assert!(c.tokens <= 30);
///         }
///     }
/// }
/// assert_eq!(chunks[0].meta.level, Some(0));
/// assert_eq!(chunks[1].meta.parent_id.as_ref(), Some(&chunks[0].id));
/// ```
#[derive(Debug)]
pub struct Hierarchical {
    sizer: Arc<dyn Sizer>,
    levels: Vec<usize>,
    recursive: Recursive,
}

impl Hierarchical {
    /// Levels with these size limits, largest first (strictly decreasing, each at least 1, at
    /// most `MAX_LEVELS` of them).
    pub fn new(sizer: Arc<dyn Sizer>, levels: Vec<usize>) -> Result<Self> {
        check_levels(&levels)?;
        let recursive = Recursive::new(sizer.clone(), levels[0], 0)?;
        Ok(Self {
            sizer,
            levels,
            recursive,
        })
    }

    /// The size limit of each level, largest first.
    pub fn levels(&self) -> &[usize] {
        &self.levels
    }

    /// Push `span` at `level` with parent `parent`, then its children, depth first.
    fn descend(
        &self,
        text: &str,
        measure: &Measure,
        span: Span,
        level: usize,
        parent: Option<usize>,
        out: &mut Vec<(Span, ChunkMeta)>,
    ) -> Result<()> {
        out.push((
            span,
            ChunkMeta {
                level: Some(level as u32),
                parent_index: parent,
                ..ChunkMeta::default()
            },
        ));
        let me = out.len() - 1;
        let Some(&limit) = self.levels.get(level + 1) else {
            return Ok(());
        };
        let children = if span.tokens <= limit {
            vec![span]
        } else {
            self.recursive
                .spans_in(text, measure, (span.start, span.end), limit)?
        };
        for child in children {
            self.descend(text, measure, child, level + 1, Some(me), out)?;
        }
        Ok(())
    }
}

fn check_levels(levels: &[usize]) -> Result<()> {
    let shown = || {
        levels
            .iter()
            .map(|l| l.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    if levels.is_empty() {
        return param_err("levels", "needs at least one size (e.g. 2048,512,128)");
    }
    if levels.len() > MAX_LEVELS {
        return param_err(
            "levels",
            format!(
                "{} has {} levels; at most {MAX_LEVELS}",
                shown(),
                levels.len()
            ),
        );
    }
    if levels.contains(&0) {
        return param_err(
            "levels",
            format!("{}: every level's size must be at least 1", shown()),
        );
    }
    if levels.windows(2).any(|w| w[1] >= w[0]) {
        return param_err(
            "levels",
            format!(
                "{} must be strictly decreasing, largest (the parents) first, e.g. 2048,512,128",
                shown()
            ),
        );
    }
    Ok(())
}

impl Chunker for Hierarchical {
    fn strategy(&self) -> &'static str {
        "hierarchical"
    }

    fn config(&self) -> String {
        let levels: Vec<String> = self.levels.iter().map(|l| l.to_string()).collect();
        format!(
            "hierarchical levels={} unit={}",
            levels.join(","),
            self.sizer.name()
        )
    }

    /// The spans of every level, in pre-order (see the module docs); [`Chunker::chunk_text`]
    /// adds their levels and parents.
    fn spans(&self, text: &str) -> Result<Vec<Span>> {
        Ok(self.chunk_text(text)?.into_iter().map(|(s, _)| s).collect())
    }

    fn chunk_text(&self, text: &str) -> Result<Vec<(Span, ChunkMeta)>> {
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(text.len()));
        }
        let measure = self.sizer.measure(text);
        let top = self
            .recursive
            .spans_in(text, &measure, (0, text.len()), self.levels[0])?;
        let mut out = Vec::with_capacity(top.len() * (1 + self.levels.len()));
        for span in top {
            self.descend(text, &measure, span, 0, None, &mut out)?;
        }
        Ok(out)
    }

    fn chunk_parsed(&self, doc: &ParsedDocument) -> Result<Vec<(Span, ChunkMeta)>> {
        let mut parts = self.chunk_text(&doc.text)?;
        let locator = Locator::new(doc);
        for (s, meta) in &mut parts {
            let located = locator.meta(s.start, s.end);
            meta.page = located.page;
            meta.page_end = located.page_end;
            meta.lines = located.lines;
        }
        Ok(parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizer::{CharSizer, WordSizer};

    #[test]
    fn levels_are_checked() {
        let s: Arc<dyn Sizer> = Arc::new(CharSizer);
        for bad in [
            vec![],
            vec![512, 2048],
            vec![100, 100],
            vec![100, 0],
            vec![9; 9],
        ] {
            let err = Hierarchical::new(s.clone(), bad.clone()).unwrap_err();
            assert!(err.to_string().contains("levels"), "{bad:?}: {err}");
        }
        assert!(Hierarchical::new(s, vec![10]).is_ok());
    }

    #[test]
    fn every_level_is_a_chunking_and_children_lie_in_parents() {
        let text = "Een zin over windmolens. Nog een zin over wind.\n\n".repeat(20)
            + &"Zonnepanelen op daken leveren stroom. ".repeat(30);
        let chunker = Hierarchical::new(Arc::new(WordSizer), vec![120, 40, 9]).unwrap();
        let parts = chunker.chunk_text(&text).unwrap();
        crate::validate::check_hierarchy(&text, &parts, &WordSizer, chunker.levels()).unwrap();
        assert!(parts.iter().any(|(_, m)| m.level == Some(2)));
    }

    #[test]
    fn empty_and_blank_text_have_no_chunks() {
        let chunker = Hierarchical::new(Arc::new(CharSizer), vec![20, 5]).unwrap();
        assert!(chunker.chunk_text("").unwrap().is_empty());
        assert!(chunker.chunk_text(" \n\t ").unwrap().is_empty());
    }
}
