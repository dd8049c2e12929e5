//! # chunklab-tokenizers
//!
//! Real-tokenizer [`Sizer`]s for chunklab, so size limits hold in the tokens an embedding model or
//! LLM will actually see:
//!
//! * [`Tiktoken`] — OpenAI's `cl100k_base` and `o200k_base`, vocabularies compiled in (works
//!   offline), via the `bpe-openai` crate; identical counts to `tiktoken`.
//! * [`HfTokenizer`] — any Hugging Face `tokenizer.json` (BERT WordPiece, XLM-R SentencePiece,
//!   byte-level BPE), with padding and truncation switched off, optionally counting the special
//!   tokens (`[CLS]`/`[SEP]`, `<s>`/`</s>`) the model adds.
//!
//! [`sizer_from_spec`] turns a command-line unit/tokenizer pair into a sizer.
//!
//! ```
//! use chunklab_core::Sizer;
//! let cl100k = chunklab_tokenizers::Tiktoken::cl100k();
//! assert_eq!(cl100k.count("hello world"), 2);
//! ```

mod fast_split;
mod hf;
mod piece_cache;
mod tiktoken;
mod tiktoken_sizer;
mod token_cursor;

pub use hf::HfTokenizer;
pub use tiktoken::Tiktoken;

use chunklab_core::{CharSizer, Sizer, WordSizer};
use std::path::Path;
use std::sync::Arc;

/// What a tokenizer spec may name, as error messages list it.
pub const TOKENIZER_CHOICES: &str = "cl100k, o200k, an embedding model's name (minilm, e5-small), or a path to a tokenizer.json (or a directory holding one)";

/// Why a sizer could not be built.
#[derive(Debug, thiserror::Error)]
pub enum TokenizerError {
    #[error("unknown unit `{0}` (chars, words, tokens)")]
    UnknownUnit(String),
    #[error("unknown tokenizer `{0}`: use {TOKENIZER_CHOICES}")]
    UnknownTokenizer(String),
    #[error("cannot load tokenizer {path}: {message}")]
    Load { path: String, message: String },
}

/// Build the sizer for `unit` (`chars`, `words`, `tokens`). For `tokens`, `tokenizer` names
/// `cl100k` (default), `o200k`, or a `tokenizer.json` path / model directory; `count_special`
/// makes a Hugging Face tokenizer count the special tokens its model adds.
pub fn sizer_from_spec(
    unit: &str,
    tokenizer: Option<&str>,
    count_special: bool,
) -> Result<Arc<dyn Sizer>, TokenizerError> {
    match unit {
        "chars" | "char" | "characters" => Ok(Arc::new(CharSizer)),
        "words" | "word" => Ok(Arc::new(WordSizer)),
        "tokens" | "token" => tokenizer_sizer(tokenizer.unwrap_or("cl100k"), count_special),
        other => Err(TokenizerError::UnknownUnit(other.to_string())),
    }
}

fn tokenizer_sizer(spec: &str, count_special: bool) -> Result<Arc<dyn Sizer>, TokenizerError> {
    match spec {
        "cl100k" | "cl100k_base" => return Ok(Arc::new(Tiktoken::cl100k())),
        "o200k" | "o200k_base" => return Ok(Arc::new(Tiktoken::o200k())),
        _ => {}
    }
    let path = Path::new(spec);
    let file = if path.is_dir() {
        path.join("tokenizer.json")
    } else {
        path.to_path_buf()
    };
    if !file.is_file() {
        // What was meant as a path is told as one: a typo in a path is not an unknown name.
        let load = |message: &str| TokenizerError::Load {
            path: spec.to_string(),
            message: message.to_string(),
        };
        // (`org/model` without `.json` may be a hub id, which stays an unknown name.)
        let path_like = path.is_absolute() || spec.starts_with("./") || spec.starts_with("../");
        return Err(if path.is_dir() {
            load("the directory holds no tokenizer.json")
        } else if spec.ends_with(".json") || path_like {
            load("no such file")
        } else {
            TokenizerError::UnknownTokenizer(spec.to_string())
        });
    }
    Ok(Arc::new(HfTokenizer::from_file(&file, count_special)?))
}
