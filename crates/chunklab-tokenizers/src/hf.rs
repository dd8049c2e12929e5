//! Hugging Face `tokenizer.json` tokenizers as a [`Sizer`].

use crate::TokenizerError;
use chunklab_core::{Measure, Sizer};
use std::path::Path;

/// A Hugging Face tokenizer loaded from `tokenizer.json`, with padding and truncation disabled
/// (a shipped `tokenizer.json` often pads/truncates to 128 or 512, which would make counts lie).
pub struct HfTokenizer {
    name: String,
    tok: tokenizers::Tokenizer,
    count_special: bool,
}

impl std::fmt::Debug for HfTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "HfTokenizer({})", self.name)
    }
}

impl HfTokenizer {
    /// Load `path`. With `count_special`, counts include the special tokens the post-processor
    /// adds (e.g. `[CLS]` and `[SEP]` for BERT), i.e. what the embedding model's context sees.
    pub fn from_file(path: &Path, count_special: bool) -> Result<Self, TokenizerError> {
        let err = |message: String| TokenizerError::Load {
            path: path.display().to_string(),
            message,
        };
        let mut tok = tokenizers::Tokenizer::from_file(path).map_err(|e| err(e.to_string()))?;
        tok.with_truncation(None).map_err(|e| err(e.to_string()))?;
        tok.with_padding(None);
        let stem = path
            .parent()
            .and_then(|p| p.file_name())
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        Ok(Self {
            name: format!("hf:{stem}{}", if count_special { "+special" } else { "" }),
            tok,
            count_special,
        })
    }

    fn encode(&self, text: &str, special: bool) -> Option<tokenizers::Encoding> {
        self.tok.encode(text, special).ok()
    }
}

impl Sizer for HfTokenizer {
    fn name(&self) -> &str {
        &self.name
    }

    fn count(&self, text: &str) -> usize {
        match self.tok.encode_fast(text, self.count_special) {
            Ok(e) => e.len(),
            // The tokenizers crate only fails on inputs its normalizer rejects; count bytes so a
            // limit still holds conservatively rather than panicking.
            Err(_) => text.len(),
        }
    }

    fn measure(&self, text: &str) -> Measure {
        let Some(enc) = self.encode(text, false) else {
            return Measure::Chars;
        };
        let mut ends = Vec::with_capacity(enc.len());
        let mut last = 0usize;
        for &(_, end) in enc.get_offsets() {
            // Offsets are byte offsets; some models give overlapping offsets for merged pieces,
            // so keep them non-decreasing.
            last = last.max(end.min(text.len()));
            ends.push(last as u32);
        }
        if let Some(l) = ends.last_mut() {
            *l = text.len() as u32;
        }
        Measure::Ends(ends)
    }
}
