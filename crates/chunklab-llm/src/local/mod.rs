//! The `local` backend: a GGUF chat model run in-process on the CPU (SmolLM2-135M-Instruct by
//! default), greedy decoding, and reuse of the KV cache of the longest prompt prefix the
//! previous request had in common with this one (the document, for a document's chunks).

mod gguf_tokenizer;
mod llama;

pub use gguf_tokenizer::GgufTokenizer;
pub use llama::{KvCache, LlamaConfig, LlamaModel};

use crate::error::{io_err, Error, Result};
use crate::llm::{Completion, Llm, Prompt, Usage};
use candle_core::quantized::gguf_file;
use std::path::Path;
use std::sync::Mutex;

/// How the local backend runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LocalOptions {
    /// Keep the KV cache between requests and skip the tokens a request shares with the
    /// previous one. Off = every request runs its whole prompt (same answers, slower).
    pub reuse_prefix: bool,
}

impl Default for LocalOptions {
    fn default() -> Self {
        Self { reuse_prefix: true }
    }
}

struct Session {
    cache: KvCache,
    /// The tokens whose keys and values are in `cache`.
    tokens: Vec<u32>,
}

/// A GGUF chat model on the CPU.
///
/// ```no_run
/// use chunklab_llm::{local::{LocalLlm, LocalOptions}, Llm, Prompt};
/// let path = std::path::Path::new("SmolLM2-135M-Instruct.Q4_1.gguf");
/// let llm = LocalLlm::open(path, "smollm2", LocalOptions::default())?;
/// let answer = llm.complete(&Prompt {
///     system: String::new(),
///     shared: "Name a colour.".into(),
///     request: String::new(),
///     max_tokens: 8,
/// })?;
/// assert!(!answer.text.is_empty());
/// # Ok::<(), chunklab_llm::Error>(())
/// ```
pub struct LocalLlm {
    name: String,
    model: LlamaModel,
    tokenizer: GgufTokenizer,
    default_system: String,
    options: LocalOptions,
    session: Mutex<Session>,
}

impl LocalLlm {
    /// Load the GGUF file at `path`; `name` is the model name in reports and cache keys.
    pub fn open(path: &Path, name: &str, options: LocalOptions) -> Result<Self> {
        let mut file = std::fs::File::open(path).map_err(io_err(path))?;
        let content = gguf_file::Content::read(&mut file).map_err(|e| Error::BadModel {
            path: path.to_path_buf(),
            detail: format!("not a readable GGUF file: {e}"),
        })?;
        let tokenizer = GgufTokenizer::from_gguf(&content, path)?;
        let default_system = content
            .metadata
            .get("tokenizer.chat_template")
            .and_then(|v| v.to_string().ok())
            .and_then(|t| template_default_system(t))
            .unwrap_or_else(|| "You are a helpful assistant.".to_string());
        let model = LlamaModel::load(path, &content, &mut file, name)?;
        Ok(Self {
            name: name.to_string(),
            model,
            tokenizer,
            default_system,
            options,
            session: Mutex::new(Session {
                cache: KvCache::default(),
                tokens: Vec::new(),
            }),
        })
    }

    /// The model's hyper-parameters.
    pub fn config(&self) -> &LlamaConfig {
        &self.model.config
    }

    /// Prompt token ids: the ChatML text of the shared part, then of the rest, tokenized
    /// separately so that a shared prefix always gives the same ids.
    pub fn prompt_tokens(&self, prompt: &Prompt) -> Result<Vec<u32>> {
        let system = if prompt.system.is_empty() {
            &self.default_system
        } else {
            &prompt.system
        };
        let (head, tail) = gguf_tokenizer::chatml(system, &prompt.shared, &prompt.request);
        let mut ids = self.tokenizer.encode(&head)?;
        ids.extend(self.tokenizer.encode(&tail)?);
        Ok(ids)
    }

    /// Greedy answer to `prompt` as token ids (stop token excluded), and how many prompt tokens
    /// came from the KV cache.
    pub fn generate(&self, prompt: &Prompt) -> Result<(Vec<u32>, usize, usize)> {
        let ids = self.prompt_tokens(prompt)?;
        let context = self.model.config.context_length;
        if ids.len() + prompt.max_tokens > context {
            return Err(Error::PromptTooLong {
                backend: format!("local:{}", self.name),
                tokens: ids.len() + prompt.max_tokens,
                context,
            });
        }
        let mut s = self.session.lock().unwrap_or_else(|p| p.into_inner());
        let reused = if self.options.reuse_prefix {
            let common = s
                .tokens
                .iter()
                .zip(&ids)
                .take_while(|(a, b)| a == b)
                .count();
            common.min(ids.len() - 1)
        } else {
            0
        };
        // On any error below the cache may be half-written: start from nothing next time.
        s.tokens.clear();
        s.cache.truncate(reused)?;
        let mut logits = self.model.forward(&ids[reused..], &mut s.cache)?;
        let mut fed = ids.clone();
        let mut out = Vec::new();
        while out.len() < prompt.max_tokens {
            let next = argmax(&logits);
            if self.tokenizer.stop.contains(&next) {
                break;
            }
            out.push(next);
            if out.len() == prompt.max_tokens {
                break;
            }
            logits = self.model.forward(&[next], &mut s.cache)?;
            fed.push(next);
        }
        if self.options.reuse_prefix {
            s.tokens = fed;
        } else {
            s.cache = KvCache::default();
        }
        Ok((out, reused, ids.len()))
    }
}

/// First maximum (lowest id on ties): deterministic greedy choice.
fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (i, &v) in logits.iter().enumerate() {
        if v > logits[best] {
            best = i;
        }
    }
    best as u32
}

/// The system message a ChatML template inserts when the conversation has none.
fn template_default_system(template: &str) -> Option<String> {
    let start = template.find("<|im_start|>system\n")? + "<|im_start|>system\n".len();
    let len = template[start..].find("<|im_end|>")?;
    let s = &template[start..start + len];
    (!s.is_empty() && !s.contains(['{', '}', '\''])).then(|| s.to_string())
}

impl Llm for LocalLlm {
    fn backend(&self) -> &str {
        "local"
    }

    fn model(&self) -> &str {
        &self.name
    }

    fn context_tokens(&self) -> usize {
        self.model.config.context_length
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.tokenizer
            .encode(text)
            .map(|t| t.len())
            .unwrap_or(text.len())
    }

    fn complete(&self, prompt: &Prompt) -> Result<Completion> {
        let (out, reused, input) = self.generate(prompt)?;
        Ok(Completion {
            text: self.tokenizer.decode(&out)?,
            usage: Usage {
                calls: 1,
                cache_hits: 0,
                input_tokens: input as u64,
                cached_tokens: reused as u64,
                output_tokens: out.len() as u64,
            },
        })
    }
}
