//! [`CrossEncoder`]: a BERT sequence classifier (Hugging Face `BertForSequenceClassification`)
//! that reads a query and a passage together and scores their relevance.
//!
//! The model is BERT ([`BertModel`], with token types 0 for the query and 1 for the passage),
//! the pooler (dense + tanh on the `[CLS]` vector) and a linear classifier. It is loaded from a
//! local directory in Hugging Face layout (config.json + tokenizer.json + model.safetensors),
//! for example `cross-encoder/ms-marco-MiniLM-L-6-v2` saved with `save_pretrained`.
//! tests/rerank.rs checks the logits against `transformers` on a random-weight fixture.

use crate::bert::{BertConfig, BertModel, Precision};
use crate::error::{Error, Result};
use crate::reranker::{check_query, Reranker};
use candle_core::{DType, Device, Tensor};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use tokenizers::{
    truncate_encodings, Encoding, PostProcessor, Tokenizer, TruncationDirection, TruncationParams,
    TruncationStrategy,
};

/// Pairs per forward pass (pairs are sorted by length first; batches are packed, not padded).
const BATCH_SIZE: usize = 32;

/// What a fix for a missing or unreadable file looks like.
const SAVE_HINT: &str = "save the model and its tokenizer into one directory with \
    `model.save_pretrained(dir, safe_serialization=True)` and `tokenizer.save_pretrained(dir)`";

/// A dense layer `y = W x + b` with `W` as stored by PyTorch: `(outputs, inputs)`, row-major.
struct Linear {
    weight: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
}

impl Linear {
    fn apply(&self, x: &[f32]) -> Vec<f32> {
        self.weight
            .chunks_exact(self.inputs)
            .zip(&self.bias)
            .map(|(row, b)| b + row.iter().zip(x).map(|(w, v)| w * v).sum::<f32>())
            .collect()
    }
}

/// A cross-encoder reranker: `BertForSequenceClassification` on (query, passage) pairs.
///
/// Each pair is encoded like Hugging Face `tokenizer(query, passage, truncation="longest_first",
/// max_length=...)`: `[CLS] query [SEP] passage [SEP]` with token types 0 / 1; a pair longer
/// than [`CrossEncoder::max_tokens`] loses tokens from the end of whichever text is longer,
/// one at a time. The score of a pair is a raw logit (no sigmoid or softmax): with one label
/// (ms-marco cross-encoders) that logit; with two labels (not relevant / relevant) the logit of
/// label 1.
///
/// ```no_run
/// use chunklab_embed::{CrossEncoder, Reranker};
/// let ce = CrossEncoder::from_dir("models/ms-marco-MiniLM-L-6-v2".as_ref())?;
/// let scores = ce.score("parking permit", &["Visitors need a permit.", "Opening hours."])?;
/// assert_eq!(scores.len(), 2);
/// # Ok::<(), chunklab_embed::Error>(())
/// ```
pub struct CrossEncoder {
    name: String,
    /// Pads and truncates nothing (pairs are truncated in `encode`).
    tokenizer: Tokenizer,
    model: BertModel,
    pooler: Linear,
    classifier: Linear,
    labels: usize,
    max_tokens: usize,
}

impl CrossEncoder {
    /// Load a cross-encoder from a local directory with config.json, tokenizer.json and
    /// model.safetensors (tokenizer_config.json, when present, may lower the maximum length
    /// through `model_max_length`). Errors name the missing or unusable file.
    pub fn from_dir(dir: &Path) -> Result<Self> {
        let bad = |detail: String| Error::BadModel {
            dir: dir.to_path_buf(),
            detail,
        };
        for f in ["config.json", "tokenizer.json", "model.safetensors"] {
            if !dir.join(f).is_file() {
                return Err(bad(format!(
                    "{f} is missing; a cross-encoder directory needs config.json, tokenizer.json \
                     and model.safetensors: {SAVE_HINT}"
                )));
            }
        }
        let config: BertConfig = read_json(dir, "config.json")?;
        let mut max_tokens = config.max_sequence();
        if dir.join("tokenizer_config.json").is_file() {
            let v: serde_json::Value = read_json(dir, "tokenizer_config.json")?;
            // Tokenizers without a limit store a huge sentinel (1e30); the positions bound it.
            if let Some(m) = v.get("model_max_length").and_then(|m| m.as_f64()) {
                if m >= 1.0 && m < max_tokens as f64 {
                    max_tokens = m as usize;
                }
            }
        }
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| bad(format!("tokenizer.json cannot be read ({e}): {SAVE_HINT}")))?;
        // Truncation happens in `encode`; padding never (batches are packed).
        tokenizer.with_padding(None);
        tokenizer
            .with_truncation(None)
            .map_err(|e| bad(format!("tokenizer.json: {e}")))?;

        let path = dir.join("model.safetensors");
        let tensors = candle_core::safetensors::load(&path, &Device::Cpu).map_err(|e| {
            bad(format!(
                "model.safetensors cannot be read ({e}); it may be truncated or not a \
                 safetensors file: {SAVE_HINT}"
            ))
        })?;
        let h = config.hidden_size;
        let (pooler, classifier) =
            heads(&tensors, h).map_err(|d| bad(format!("model.safetensors: {d}")))?;
        let labels = classifier.bias.len();
        if !(1..=2).contains(&labels) {
            return Err(bad(format!(
                "model.safetensors: the classifier has {labels} labels; a reranker needs 1 \
                 (relevance logit) or 2 (not relevant / relevant)"
            )));
        }
        let mut model = BertModel::from_tensors(config, tensors)
            .map_err(|d| bad(format!("model.safetensors: {d}")))?;
        // Relevance logits are compared across passages at 1e-4 of transformers' (the int8
        // dense layers are for embeddings, measured by cosine).
        model.set_precision(Precision::F32)?;
        Ok(Self {
            name: dir.display().to_string(),
            tokenizer,
            model,
            pooler,
            classifier,
            labels,
            max_tokens,
        })
    }

    /// Most tokens of a pair, special tokens included; longer pairs are truncated.
    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// Number of classifier outputs (1 or 2).
    pub fn num_labels(&self) -> usize {
        self.labels
    }

    /// Tokens of the encoded pair `(query, passage)` after truncation, special tokens included.
    pub fn pair_tokens(&self, query: &str, passage: &str) -> Result<usize> {
        Ok(self.encode(query, &[passage])?[0].len())
    }

    /// All classifier logits of each `(query, passage)` pair, in input order.
    pub fn logits(&self, query: &str, passages: &[&str]) -> Result<Vec<Vec<f32>>> {
        let encodings = self.encode(query, passages)?;
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].len()));
        let h = self.model.config().hidden_size;
        let mut out = vec![Vec::new(); passages.len()];
        for batch in order.chunks(BATCH_SIZE) {
            let encs: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            let lens: Vec<usize> = encs.iter().map(|e| e.len()).collect();
            let ids: Vec<u32> = encs.iter().flat_map(|e| e.get_ids().to_vec()).collect();
            let types: Vec<u32> = encs
                .iter()
                .flat_map(|e| e.get_type_ids().to_vec())
                .collect();
            let hidden = self.model.forward_typed(&ids, Some(&types), &lens)?;
            let mut start = 0;
            for (&i, len) in batch.iter().zip(lens) {
                let cls = &hidden[start * h..(start + 1) * h];
                let pooled: Vec<f32> = self.pooler.apply(cls).iter().map(|v| v.tanh()).collect();
                out[i] = self.classifier.apply(&pooled);
                start += len;
            }
        }
        Ok(out)
    }

    /// Encode `(query, passage)` pairs like Hugging Face `tokenizer(query, passage,
    /// truncation="longest_first", max_length=self.max_tokens)`.
    ///
    /// The texts are encoded alone, truncated with the tokenizers library's own longest-first
    /// rule and only then joined by the post-processor (`[CLS] q [SEP] p [SEP]`, token types
    /// 0 / 1). Encoding the pair with truncation on would also build every combination of the
    /// two texts' overflow pieces, which for two long texts runs out of memory.
    fn encode(&self, query: &str, passages: &[&str]) -> Result<Vec<Encoding>> {
        let tok_err = |e: tokenizers::Error| Error::Tokenizer(e.to_string());
        let added = self
            .tokenizer
            .get_post_processor()
            .map_or(0, |p| p.added_tokens(true));
        let params = TruncationParams {
            direction: TruncationDirection::Right,
            max_length: self.max_tokens.saturating_sub(added),
            strategy: TruncationStrategy::LongestFirst,
            stride: 0,
        };
        let query = self.tokenizer.encode_fast(query, false).map_err(tok_err)?;
        let passages = self
            .tokenizer
            .encode_batch_fast(passages.to_vec(), false)
            .map_err(tok_err)?;
        let mut out = Vec::with_capacity(passages.len());
        for passage in passages {
            let (mut a, b) =
                truncate_encodings(query.clone(), Some(passage), &params).map_err(tok_err)?;
            let mut b = b.unwrap_or_default();
            a.take_overflowing();
            b.take_overflowing();
            let pair = self
                .tokenizer
                .post_process(a, Some(b), true)
                .map_err(tok_err)?;
            if pair.is_empty() || pair.len() > self.max_tokens {
                return Err(Error::Tokenizer(format!(
                    "a (query, passage) pair encoded to {} tokens; the model takes 1 to {}",
                    pair.len(),
                    self.max_tokens
                )));
            }
            out.push(pair);
        }
        Ok(out)
    }
}

impl Reranker for CrossEncoder {
    fn name(&self) -> &str {
        &self.name
    }

    /// The relevance logit of each pair: the only logit with one label, the logit of label 1
    /// ("relevant") with two.
    fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>> {
        check_query(query)?;
        let label = self.labels - 1;
        Ok(self
            .logits(query, passages)?
            .into_iter()
            .map(|l| l[label])
            .collect())
    }
}

/// The pooler (`*pooler.dense.*`) and classifier (`classifier.*`) of a
/// `BertForSequenceClassification` checkpoint.
fn heads(tensors: &HashMap<String, Tensor>, h: usize) -> Result<(Linear, Linear), String> {
    let find = |suffix: &str| -> Result<&Tensor, String> {
        let mut names: Vec<&String> = tensors.keys().filter(|k| k.ends_with(suffix)).collect();
        names.sort();
        names.first().map(|k| &tensors[*k]).ok_or_else(|| {
            format!(
                "no tensor named {suffix}; only BertForSequenceClassification checkpoints \
                 (BERT + pooler + classifier) are supported"
            )
        })
    };
    let floats = |t: &Tensor| -> Result<Vec<f32>, String> {
        t.to_dtype(DType::F32)
            .and_then(|t| t.flatten_all())
            .and_then(|t| t.to_vec1::<f32>())
            .map_err(|e| e.to_string())
    };
    let linear = |name: &str, outputs: Option<usize>| -> Result<Linear, String> {
        let w = find(&format!("{name}.weight"))?;
        let b = find(&format!("{name}.bias"))?;
        let (rows, cols) = match w.dims() {
            &[r, c] => (r, c),
            d => {
                return Err(format!(
                    "{name}.weight has shape {d:?}, expected 2 dimensions"
                ))
            }
        };
        let want = outputs.unwrap_or(rows);
        if cols != h || rows != want || b.dims() != [rows] {
            return Err(format!(
                "{name} has shapes {:?} and {:?}, expected [{want}, {h}] and [{want}]",
                w.dims(),
                b.dims(),
            ));
        }
        Ok(Linear {
            weight: floats(w)?,
            bias: floats(b)?,
            inputs: h,
        })
    };
    Ok((
        linear("pooler.dense", Some(h))?,
        linear("classifier", None)?,
    ))
}

/// Parse `dir/file` as JSON; errors name the file.
fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, file: &str) -> Result<T> {
    let path: PathBuf = dir.join(file);
    let text = std::fs::read_to_string(&path).map_err(|e| Error::BadModel {
        dir: dir.to_path_buf(),
        detail: format!("{file} cannot be read: {e}"),
    })?;
    serde_json::from_str(&text).map_err(|e| Error::BadModel {
        dir: dir.to_path_buf(),
        detail: format!("{file} is not a valid model configuration ({e}): {SAVE_HINT}"),
    })
}
