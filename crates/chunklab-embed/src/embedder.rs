//! [`BertEmbedder`]: a tokenizer plus a [`BertModel`] plus sentence-transformers' pooling, as an
//! [`Embedder`]. Loads any Hugging Face directory (config.json + tokenizer.json +
//! model.safetensors, and sentence-transformers' `sentence_bert_config.json` /
//! `1_Pooling/config.json` when present).

use crate::bert::{mean_rows, normalize, BertConfig, BertModel, Precision};
use crate::error::{io_err, Error, Result};
use crate::{Embedder, Role, TokenVectors};
use chunklab_core::text::{ceil_char_boundary, floor_char_boundary, is_py_space};
use std::ops::Range;
use std::path::Path;
use tokenizers::{Encoding, Tokenizer, TruncationDirection, TruncationParams, TruncationStrategy};

/// How token vectors become one text vector.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pooling {
    /// Mean over all tokens, special tokens included (sentence-transformers' mean pooling).
    Mean,
    /// The first token's vector (`[CLS]` / `<s>`).
    Cls,
}

/// Settings that are not in the weights.
#[derive(Clone, Debug)]
pub struct EmbedSettings {
    /// Tokens per text, special tokens included; longer texts are truncated (like
    /// sentence-transformers' `max_seq_length`).
    pub max_tokens: usize,
    /// Pooling of the last hidden states.
    pub pooling: Pooling,
    /// Prefix for [`Role::Query`] texts.
    pub query_prefix: String,
    /// Prefix for [`Role::Passage`] texts.
    pub passage_prefix: String,
    /// Texts per forward pass (texts are sorted by length first).
    pub batch_size: usize,
}

/// A token of the text (not special, not prefix): its index in the encoding and its byte span.
type ContentToken = (usize, Range<usize>);

/// A BERT-family sentence embedder.
pub struct BertEmbedder {
    name: String,
    /// Truncates to `settings.max_tokens`; used by `embed`.
    truncating: Tokenizer,
    /// Never truncates; used for token spans and token vectors.
    full: Tokenizer,
    model: BertModel,
    settings: EmbedSettings,
    /// Tokens the special tokens and the passage prefix take in a `token_vectors` call.
    overhead: usize,
}

impl BertEmbedder {
    /// Load a Hugging Face / sentence-transformers directory. `name` is what [`Embedder::name`]
    /// reports.
    pub fn from_dir(dir: &Path, name: &str) -> Result<Self> {
        let bad = |detail: String| Error::BadModel {
            dir: dir.to_path_buf(),
            detail,
        };
        for f in ["config.json", "tokenizer.json", "model.safetensors"] {
            if !dir.join(f).is_file() {
                return Err(bad(format!(
                    "{f} is missing (a model directory needs config.json, tokenizer.json and model.safetensors)"
                )));
            }
        }
        let config: BertConfig = read_json(&dir.join("config.json"))?;
        let tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| bad(format!("tokenizer.json: {e}")))?;
        let mut max_tokens = config.max_sequence();
        let st_config = dir.join("sentence_bert_config.json");
        if st_config.is_file() {
            let v: serde_json::Value = read_json(&st_config)?;
            if let Some(m) = v.get("max_seq_length").and_then(|m| m.as_u64()) {
                max_tokens = max_tokens.min(m as usize);
            }
        }
        let pooling = read_pooling(dir)?;
        let model = BertModel::load(dir, config)?;
        let settings = EmbedSettings {
            max_tokens,
            pooling,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            batch_size: 32,
        };
        Self::new(name, tokenizer, model, settings)
    }

    /// Combine a tokenizer and a model. The tokenizer's own padding and truncation settings
    /// are replaced: no padding, truncation to `settings.max_tokens`.
    pub fn new(
        name: &str,
        tokenizer: Tokenizer,
        model: BertModel,
        settings: EmbedSettings,
    ) -> Result<Self> {
        let mut settings = settings;
        settings.max_tokens = settings.max_tokens.min(model.config().max_sequence());
        settings.batch_size = settings.batch_size.max(1);
        let mut full = tokenizer;
        full.with_padding(None);
        full.with_truncation(None)
            .map_err(|e| Error::Tokenizer(e.to_string()))?;
        let mut truncating = full.clone();
        truncating
            .with_truncation(Some(TruncationParams {
                direction: TruncationDirection::Right,
                max_length: settings.max_tokens,
                strategy: TruncationStrategy::LongestFirst,
                stride: 0,
            }))
            .map_err(|e| Error::Tokenizer(e.to_string()))?;
        let specials = encode(&full, "", true)?.len();
        let prefix = encode(&full, &settings.passage_prefix, false)?.len();
        Ok(Self {
            name: name.to_string(),
            truncating,
            full,
            model,
            overhead: specials + prefix,
            settings,
        })
    }

    /// How the model's dense layers compute ([`Precision::auto`] when loaded).
    pub fn precision(&self) -> Precision {
        self.model.precision()
    }

    /// Compute in `precision` from now on (int8 needs AVX-512 VNNI or AVX2).
    pub fn set_precision(&mut self, precision: Precision) -> Result<()> {
        self.model.set_precision(precision)
    }

    /// Change the prefixes added for [`Role::Query`] and [`Role::Passage`].
    pub fn with_prefixes(mut self, query: &str, passage: &str) -> Result<Self> {
        self.settings.query_prefix = query.to_string();
        self.settings.passage_prefix = passage.to_string();
        let specials = encode(&self.full, "", true)?.len();
        self.overhead = specials + encode(&self.full, passage, false)?.len();
        Ok(self)
    }

    /// Change how many texts go through the model at once.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.settings.batch_size = batch_size.max(1);
        self
    }

    /// The settings in use.
    pub fn settings(&self) -> &EmbedSettings {
        &self.settings
    }

    fn prefix(&self, role: Role) -> &str {
        match role {
            Role::Query => &self.settings.query_prefix,
            Role::Passage => &self.settings.passage_prefix,
        }
    }

    /// Pool + normalize one packed batch of token ids.
    fn run_batch(&self, encodings: &[&Encoding]) -> Result<Vec<Vec<f32>>> {
        let lens: Vec<usize> = encodings.iter().map(|e| e.len()).collect();
        let ids: Vec<u32> = encodings
            .iter()
            .flat_map(|e| e.get_ids().iter().copied())
            .collect();
        let hidden = self.model.forward(&ids, &lens)?;
        let dim = self.dim();
        let mut start = 0;
        let mut out = Vec::with_capacity(lens.len());
        for len in lens {
            let mut v = match self.settings.pooling {
                Pooling::Mean => mean_rows(&hidden, dim, start, len),
                Pooling::Cls => hidden[start * dim..(start + 1) * dim].to_vec(),
            };
            normalize(&mut v);
            out.push(v);
            start += len;
        }
        Ok(out)
    }

    /// Full (untruncated) encoding of `passage prefix + text` and the content tokens' spans
    /// in `text`: `(token index in the encoding, byte span in text)`.
    fn content_tokens(&self, text: &str) -> Result<(Encoding, Vec<ContentToken>)> {
        self.content_tokens_for(text, Role::Passage)
    }

    /// [`BertEmbedder::content_tokens`] with the prefix of `role`.
    fn content_tokens_for(&self, text: &str, role: Role) -> Result<(Encoding, Vec<ContentToken>)> {
        let prefix = self.prefix(role);
        let input = format!("{prefix}{text}");
        let enc = encode(&self.full, &input, true)?;
        let p = prefix.len();
        let mut tokens = Vec::with_capacity(enc.len());
        for (i, (&(s, e), &special)) in enc
            .get_offsets()
            .iter()
            .zip(enc.get_special_tokens_mask())
            .enumerate()
        {
            if special == 1 || e <= p || s >= e {
                continue;
            }
            let start = floor_char_boundary(text, s.max(p) - p);
            let end = ceil_char_boundary(text, e - p).max(start);
            tokens.push((i, start..end));
        }
        Ok((enc, tokens))
    }
}

impl Embedder for BertEmbedder {
    fn name(&self) -> &str {
        &self.name
    }

    fn cache_id(&self) -> String {
        match self.model.precision() {
            Precision::F32 => self.name.clone(),
            p => format!("{}@{}", self.name, p.as_str()),
        }
    }

    fn dim(&self) -> usize {
        self.model.config().hidden_size
    }

    fn max_tokens(&self) -> usize {
        self.settings.max_tokens
    }

    fn token_capacity(&self) -> usize {
        self.settings.max_tokens.saturating_sub(self.overhead)
    }

    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>> {
        let prefix = self.prefix(role);
        // sentence-transformers strips every input with Python's str.strip().
        let inputs: Vec<String> = texts
            .iter()
            .map(|t| format!("{prefix}{}", t.trim_matches(is_py_space)))
            .collect();
        let encodings = self
            .truncating
            .encode_batch_fast(inputs.iter().map(String::as_str).collect(), true)
            .map_err(|e| Error::Tokenizer(e.to_string()))?;
        // Longest first, so each batch holds texts of similar length.
        let mut order: Vec<usize> = (0..encodings.len()).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(encodings[i].len()));
        let mut out = vec![Vec::new(); texts.len()];
        for batch in order.chunks(self.settings.batch_size) {
            let encs: Vec<&Encoding> = batch.iter().map(|&i| &encodings[i]).collect();
            for (&i, v) in batch.iter().zip(self.run_batch(&encs)?) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn token_spans(&self, text: &str) -> Result<Vec<Range<usize>>> {
        Ok(self
            .content_tokens(text)?
            .1
            .into_iter()
            .map(|(_, s)| s)
            .collect())
    }

    fn token_vectors(&self, text: &str) -> Result<TokenVectors> {
        let (enc, tokens) = self.content_tokens(text)?;
        let dim = self.dim();
        if enc.len() > self.settings.max_tokens {
            return Err(Error::TooLong {
                tokens: tokens.len(),
                limit: self.token_capacity(),
            });
        }
        let hidden = self.model.forward(enc.get_ids(), &[enc.len()])?;
        let mut vectors = Vec::with_capacity(tokens.len() * dim);
        let mut spans = Vec::with_capacity(tokens.len());
        for (i, span) in tokens {
            vectors.extend_from_slice(&hidden[i * dim..(i + 1) * dim]);
            spans.push(span);
        }
        Ok(TokenVectors {
            dim,
            spans,
            vectors,
        })
    }

    fn token_vectors_batch(&self, texts: &[&str], role: Role) -> Result<Vec<TokenVectors>> {
        let dim = self.dim();
        let mut out: Vec<TokenVectors> = texts
            .iter()
            .map(|_| TokenVectors {
                dim,
                spans: Vec::new(),
                vectors: Vec::new(),
            })
            .collect();
        let windows = self.windows(texts, role)?;
        // Windows stay in text order, so each text's tokens are appended in order.
        for batch in windows.chunks(self.settings.batch_size) {
            let lens: Vec<usize> = batch.iter().map(|w| w.ids.len()).collect();
            let ids: Vec<u32> = batch.iter().flat_map(|w| w.ids.iter().copied()).collect();
            let hidden = self.model.forward(&ids, &lens)?;
            let mut row0 = 0;
            for w in batch {
                let tv = &mut out[w.text];
                for (i, span) in &w.tokens {
                    let r = row0 + i;
                    tv.vectors
                        .extend_from_slice(&hidden[r * dim..(r + 1) * dim]);
                    tv.spans.push(span.clone());
                }
                row0 += w.ids.len();
            }
        }
        Ok(out)
    }
}

/// One forward-pass input of [`BertEmbedder::token_vectors_batch`]: a window of one text.
struct Window {
    /// Index of the text in the input.
    text: usize,
    /// Token ids: special and prefix tokens around the window's part of the text.
    ids: Vec<u32>,
    /// `(row in ids, byte span in the text)` of the window's content tokens.
    tokens: Vec<ContentToken>,
}

impl BertEmbedder {
    /// Split the full encoding of every text into windows that fit the context (see
    /// [`Embedder::token_vectors_batch`]).
    fn windows(&self, texts: &[&str], role: Role) -> Result<Vec<Window>> {
        let mut windows = Vec::new();
        for (t, text) in texts.iter().enumerate() {
            let (enc, tokens) = self.content_tokens_for(text, role)?;
            let (Some(first), Some(last)) = (tokens.first(), tokens.last()) else {
                continue;
            };
            let ids = enc.get_ids();
            // Head: [CLS] and the prefix; tail: [SEP]. Every window repeats both.
            let (head, tail) = (&ids[..first.0], &ids[last.0 + 1..]);
            let capacity = self
                .settings
                .max_tokens
                .saturating_sub(head.len() + tail.len());
            if capacity == 0 {
                return Err(Error::TooLong {
                    tokens: tokens.len(),
                    limit: 0,
                });
            }
            let mut rest = tokens.as_slice();
            let mut start = first.0;
            while start <= last.0 {
                let end = (start + capacity).min(last.0 + 1);
                let n = rest.iter().take_while(|(i, _)| *i < end).count();
                let (inside, after) = rest.split_at(n);
                let mut window = Vec::with_capacity(head.len() + (end - start) + tail.len());
                window.extend_from_slice(head);
                window.extend_from_slice(&ids[start..end]);
                window.extend_from_slice(tail);
                let shift = head.len();
                windows.push(Window {
                    text: t,
                    ids: window,
                    tokens: inside
                        .iter()
                        .map(|(i, span)| (i - start + shift, span.clone()))
                        .collect(),
                });
                rest = after;
                start = end;
            }
        }
        Ok(windows)
    }
}

fn encode(tokenizer: &Tokenizer, text: &str, specials: bool) -> Result<Encoding> {
    tokenizer
        .encode(text, specials)
        .map_err(|e| Error::Tokenizer(e.to_string()))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(io_err(path))?;
    serde_json::from_str(&text).map_err(|e| Error::BadModel {
        dir: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        detail: format!("{}: {e}", path.display()),
    })
}

/// Pooling from sentence-transformers' `modules.json` → `*_Pooling/config.json`; mean pooling
/// when the directory has none.
fn read_pooling(dir: &Path) -> Result<Pooling> {
    let mut pooling_dir = dir.join("1_Pooling");
    let modules = dir.join("modules.json");
    if modules.is_file() {
        let v: serde_json::Value = read_json(&modules)?;
        let found = v.as_array().into_iter().flatten().find(|m| {
            m.get("type")
                .and_then(|t| t.as_str())
                .is_some_and(|t| t.ends_with(".Pooling"))
        });
        if let Some(path) = found.and_then(|m| m.get("path")).and_then(|p| p.as_str()) {
            pooling_dir = dir.join(path);
        }
    }
    let config = pooling_dir.join("config.json");
    if !config.is_file() {
        return Ok(Pooling::Mean);
    }
    let v: serde_json::Value = read_json(&config)?;
    let on = |k: &str| v.get(k).and_then(|b| b.as_bool()).unwrap_or(false);
    if on("pooling_mode_mean_tokens") {
        Ok(Pooling::Mean)
    } else if on("pooling_mode_cls_token") {
        Ok(Pooling::Cls)
    } else {
        Err(Error::BadModel {
            dir: dir.to_path_buf(),
            detail: format!(
                "{}: only mean and CLS pooling are supported",
                config.display()
            ),
        })
    }
}
