//! `fixed`: consecutive windows of `size` units (chars, words or tokens) with `overlap` units
//! shared between neighbours. In LangChain mode it reproduces `TokenTextSplitter` exactly.

use super::window::windows;
use crate::chunk::Span;
use crate::chunker::Chunker;
use crate::error::{param_err, Result};
use crate::sizer::Sizer;
use std::sync::Arc;

/// Fixed-size windows.
///
/// ```
/// use chunklab_core::{strategies::Fixed, CharSizer, Chunker};
/// use std::sync::Arc;
/// let spans = Fixed::new(Arc::new(CharSizer), 4, 1).unwrap().spans("abcdefghij").unwrap();
/// let texts: Vec<_> = spans.iter().map(|s| &"abcdefghij"[s.start..s.end]).collect();
/// assert_eq!(texts, ["abcd", "defg", "ghij"]);
/// ```
#[derive(Debug)]
pub struct Fixed {
    sizer: Arc<dyn Sizer>,
    size: usize,
    overlap: usize,
    langchain: bool,
}

impl Fixed {
    /// Windows of `size` units overlapping by `overlap` units; every chunk is verified to fit.
    pub fn new(sizer: Arc<dyn Sizer>, size: usize, overlap: usize) -> Result<Self> {
        validate(size, overlap)?;
        Ok(Self {
            sizer,
            size,
            overlap,
            langchain: false,
        })
    }

    /// LangChain `TokenTextSplitter` semantics: windows over the document's token ids, advancing
    /// by `size - overlap`, with no re-counting of the window text.
    pub fn langchain(sizer: Arc<dyn Sizer>, size: usize, overlap: usize) -> Result<Self> {
        validate(size, overlap)?;
        Ok(Self {
            sizer,
            size,
            overlap,
            langchain: true,
        })
    }
}

pub(crate) fn validate(size: usize, overlap: usize) -> Result<()> {
    if size == 0 {
        return param_err("size", "must be at least 1");
    }
    if overlap >= size {
        return param_err(
            "overlap",
            format!("{overlap} must be smaller than the size, {size}"),
        );
    }
    Ok(())
}

impl Chunker for Fixed {
    fn strategy(&self) -> &'static str {
        "fixed"
    }
    fn reads_only_locations(&self) -> bool {
        true
    }
    fn config(&self) -> String {
        format!(
            "fixed size={} overlap={} unit={}{}",
            self.size,
            self.overlap,
            self.sizer.name(),
            if self.langchain {
                " compat=langchain"
            } else {
                ""
            }
        )
    }
    fn spans(&self, text: &str) -> Result<Vec<Span>> {
        windows(
            text,
            self.sizer.as_ref(),
            self.size,
            self.overlap,
            !self.langchain,
        )
    }
}
