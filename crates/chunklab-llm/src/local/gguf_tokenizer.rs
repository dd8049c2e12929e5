//! The tokenizer and chat template stored in a GGUF file's metadata: a byte-level BPE
//! (`tokenizer.ggml.model = "gpt2"`) rebuilt with the `tokenizers` crate, and the ChatML turn
//! markers the `tokenizer.chat_template` uses.

use crate::error::{Error, Result};
use candle_core::quantized::gguf_file::{Content, Value};
use std::path::Path;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{AddedToken, Tokenizer};

/// `tokenizer.ggml.token_type` of control tokens (`<|im_start|>`) and user-defined ones.
const CONTROL: i32 = 3;
const USER_DEFINED: i32 = 4;

/// A GGUF model's tokenizer plus the ids that end an assistant turn.
pub struct GgufTokenizer {
    tokenizer: Tokenizer,
    /// Ids that end generation (`<|im_end|>`, the end-of-sequence token).
    pub stop: Vec<u32>,
}

fn strings<'a>(c: &'a Content, path: &Path, key: &str) -> Result<Vec<&'a str>> {
    let bad = || Error::BadModel {
        path: path.to_path_buf(),
        detail: format!("GGUF metadata {key} is missing or not a string array"),
    };
    let arr = c
        .metadata
        .get(key)
        .and_then(|v| v.to_vec().ok())
        .ok_or_else(bad)?;
    arr.iter()
        .map(|v| v.to_string().map(|s| s.as_str()).map_err(|_| bad()))
        .collect()
}

impl GgufTokenizer {
    /// Build the tokenizer of the GGUF `content` read from `path`.
    ///
    /// Supports byte-level BPE vocabularies (`gpt2`); the pre-tokenizer splits digits one by one
    /// first when `tokenizer.ggml.pre` is `smollm` (as SmolLM2's tokenizer.json does). The chat
    /// template must be ChatML (`<|im_start|>role\n...<|im_end|>`).
    pub fn from_gguf(c: &Content, path: &Path) -> Result<Self> {
        let bad = |detail: String| Error::BadModel {
            path: path.to_path_buf(),
            detail,
        };
        let get_str = |k: &str| c.metadata.get(k).and_then(|v| v.to_string().ok()).cloned();
        let model = get_str("tokenizer.ggml.model").unwrap_or_default();
        if model != "gpt2" {
            return Err(bad(format!(
                "tokenizer.ggml.model {model:?} is not supported (only byte-level BPE, \"gpt2\")"
            )));
        }
        let template = get_str("tokenizer.chat_template").unwrap_or_default();
        if !template.contains("<|im_start|>") {
            return Err(bad(
                "tokenizer.chat_template is not ChatML (no <|im_start|>); only ChatML models are supported".into(),
            ));
        }
        let tokens = strings(c, path, "tokenizer.ggml.tokens")?;
        let merges: Vec<(String, String)> = strings(c, path, "tokenizer.ggml.merges")?
            .into_iter()
            .filter_map(|m| m.split_once(' '))
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let types: Vec<i32> = match c.metadata.get("tokenizer.ggml.token_type") {
            Some(Value::Array(a)) => a.iter().map(|v| v.to_i32().unwrap_or(1)).collect(),
            _ => vec![1; tokens.len()],
        };
        let vocab: tokenizers::models::bpe::Vocab = tokens
            .iter()
            .enumerate()
            .map(|(i, t)| (t.to_string(), i as u32))
            .collect();
        let bpe = BPE::builder()
            .vocab_and_merges(vocab, merges)
            .build()
            .map_err(|e| bad(format!("tokenizer: {e}")))?;
        let mut tokenizer = Tokenizer::new(bpe);
        let byte_level = ByteLevel::new(false, true, true);
        if get_str("tokenizer.ggml.pre").as_deref() == Some("smollm") {
            tokenizer.with_pre_tokenizer(Some(Sequence::new(vec![
                Digits::new(true).into(),
                byte_level.into(),
            ])));
        } else {
            tokenizer.with_pre_tokenizer(Some(byte_level));
        }
        tokenizer.with_decoder(Some(ByteLevelDecoder::default()));
        let special: Vec<AddedToken> = tokens
            .iter()
            .zip(&types)
            .filter(|(_, t)| **t == CONTROL || **t == USER_DEFINED)
            .map(|(s, _)| AddedToken::from(s.to_string(), true))
            .collect();
        tokenizer.add_special_tokens(&special);
        let id = |t: &str| vocab_id(&tokens, t);
        let im_end = id("<|im_end|>").ok_or_else(|| bad("no <|im_end|> token".into()))?;
        let mut stop = vec![im_end];
        if let Some(eos) = c
            .metadata
            .get("tokenizer.ggml.eos_token_id")
            .and_then(|v| v.to_u32().ok())
        {
            if eos != im_end {
                stop.push(eos);
            }
        }
        Ok(Self { tokenizer, stop })
    }

    /// Token ids of `text`; `<|im_start|>`-style markers in it become their special ids.
    pub fn encode(&self, text: &str) -> Result<Vec<u32>> {
        self.tokenizer
            .encode(text, false)
            .map(|e| e.get_ids().to_vec())
            .map_err(|e| Error::compute("tokenizer", e))
    }

    /// Text of `ids`, special tokens left out.
    pub fn decode(&self, ids: &[u32]) -> Result<String> {
        self.tokenizer
            .decode(ids, true)
            .map_err(|e| Error::compute("tokenizer", e))
    }
}

fn vocab_id(tokens: &[&str], t: &str) -> Option<u32> {
    tokens.iter().position(|x| *x == t).map(|i| i as u32)
}

/// ChatML text of a system turn, a user turn and the opening of the assistant turn, split in
/// the part that is the same for every chunk of a document (`shared`) and the rest.
pub fn chatml(system: &str, user_shared: &str, user_rest: &str) -> (String, String) {
    (
        format!("<|im_start|>system\n{system}<|im_end|>\n<|im_start|>user\n{user_shared}"),
        format!("{user_rest}<|im_end|>\n<|im_start|>assistant\n"),
    )
}
