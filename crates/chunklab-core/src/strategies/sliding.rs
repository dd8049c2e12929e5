//! `sliding`: a window of `size` units that moves `stride` units at a time (`stride <= size`;
//! `stride < size` gives overlapping windows, the classic sliding-window retrieval setup).

use super::fixed::validate;
use super::window::windows;
use crate::chunk::Span;
use crate::chunker::Chunker;
use crate::error::{param_err, Result};
use crate::sizer::Sizer;
use std::sync::Arc;

/// Sliding windows.
///
/// ```
/// use chunklab_core::{strategies::Sliding, CharSizer, Chunker};
/// use std::sync::Arc;
/// let spans = Sliding::new(Arc::new(CharSizer), 4, 2).unwrap().spans("abcdefgh").unwrap();
/// let texts: Vec<_> = spans.iter().map(|s| &"abcdefgh"[s.start..s.end]).collect();
/// assert_eq!(texts, ["abcd", "cdef", "efgh"]);
/// ```
#[derive(Debug)]
pub struct Sliding {
    sizer: Arc<dyn Sizer>,
    size: usize,
    stride: usize,
}

/// The stride of a window of `size` when none is given: half the size.
pub(crate) fn default_stride(size: usize) -> usize {
    (size / 2).max(1)
}

/// A window of `size` moved by `stride`: at least 1, and at most the size (a larger stride
/// would skip text).
pub(crate) fn check_stride(size: usize, stride: usize) -> Result<()> {
    if stride == 0 {
        return param_err("stride", "must be at least 1");
    }
    if stride > size {
        return param_err(
            "stride",
            format!("{stride} is larger than the size, {size}, and would skip text"),
        );
    }
    validate(size, size - stride)
}

impl Sliding {
    pub fn new(sizer: Arc<dyn Sizer>, size: usize, stride: usize) -> Result<Self> {
        check_stride(size, stride)?;
        Ok(Self {
            sizer,
            size,
            stride,
        })
    }
}

impl Chunker for Sliding {
    fn strategy(&self) -> &'static str {
        "sliding"
    }
    fn reads_only_locations(&self) -> bool {
        true
    }
    fn config(&self) -> String {
        format!(
            "sliding size={} stride={} unit={}",
            self.size,
            self.stride,
            self.sizer.name()
        )
    }
    fn spans(&self, text: &str) -> Result<Vec<Span>> {
        windows(
            text,
            self.sizer.as_ref(),
            self.size,
            self.size - self.stride,
            true,
        )
    }
}
