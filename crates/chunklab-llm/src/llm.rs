//! The [`Llm`] seam: one chat request in, the model's answer and its token accounting out.

use crate::error::Result;
use serde::Serialize;

/// One chat request: a system message and a user message in two parts.
///
/// `shared` is the leading part many requests have in common (the whole document when
/// contextualising its chunks); backends reuse it: the local model keeps its KV cache, Anthropic
/// marks it `cache_control: ephemeral`, OpenAI-compatible servers cache prefixes themselves.
/// The user message is `shared + request`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Prompt {
    /// System message; empty = the backend's default (the chat template's own for local models,
    /// none for HTTP backends).
    pub system: String,
    /// Leading part of the user message that other prompts share.
    pub shared: String,
    /// The rest of the user message.
    pub request: String,
    /// Most tokens to generate.
    pub max_tokens: usize,
}

/// Tokens spent, summed over calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Usage {
    /// Requests answered by the model (not from the on-disk cache).
    pub calls: u64,
    /// Requests answered from the on-disk cache (cost nothing).
    pub cache_hits: u64,
    /// Prompt tokens, cached ones included.
    pub input_tokens: u64,
    /// Prompt tokens the backend did not recompute (local KV prefix, provider prompt cache).
    pub cached_tokens: u64,
    /// Generated tokens.
    pub output_tokens: u64,
}

impl Usage {
    /// Add `other` to `self`.
    pub fn add(&mut self, other: &Usage) {
        self.calls += other.calls;
        self.cache_hits += other.cache_hits;
        self.input_tokens += other.input_tokens;
        self.cached_tokens += other.cached_tokens;
        self.output_tokens += other.output_tokens;
    }

    /// What was spent since `earlier` (a reading of the same counter).
    pub fn since(&self, earlier: &Usage) -> Usage {
        Usage {
            calls: self.calls.saturating_sub(earlier.calls),
            cache_hits: self.cache_hits.saturating_sub(earlier.cache_hits),
            input_tokens: self.input_tokens.saturating_sub(earlier.input_tokens),
            cached_tokens: self.cached_tokens.saturating_sub(earlier.cached_tokens),
            output_tokens: self.output_tokens.saturating_sub(earlier.output_tokens),
        }
    }
}

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} calls, {} answered from the cache; {} input tokens ({} cached), {} output tokens",
            self.calls, self.cache_hits, self.input_tokens, self.cached_tokens, self.output_tokens
        )
    }
}

/// A model's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The generated text (special tokens removed).
    pub text: String,
    /// What this request cost.
    pub usage: Usage,
}

/// A chat language model.
pub trait Llm: Send + Sync {
    /// Backend name: `local`, `openai` or `anthropic`.
    fn backend(&self) -> &str;

    /// Model name within the backend.
    fn model(&self) -> &str;

    /// Context window in tokens (prompt plus answer).
    fn context_tokens(&self) -> usize;

    /// Tokens of `text`: exact for the local model; for HTTP backends, whose tokenizer is not
    /// known here, a conservative estimate (one token per 3 bytes).
    fn count_tokens(&self, text: &str) -> usize;

    /// Answer one prompt (greedy / temperature 0, no streaming).
    fn complete(&self, prompt: &Prompt) -> Result<Completion>;

    /// Answer many prompts, results in input order. The default runs them one after the other
    /// (what the local model wants: consecutive prompts share their document prefix); HTTP
    /// backends run a bounded number concurrently.
    fn complete_all(&self, prompts: &[Prompt]) -> Vec<Result<Completion>> {
        prompts.iter().map(|p| self.complete(p)).collect()
    }

    /// The answer to `prompt` failed a quality gate ([`crate::quality`]) for `reason`: it must
    /// not be served again as a good answer. The default does nothing (nothing is kept); the
    /// [`crate::LlmClient`] marks its cached answer as rejected, so a re-run asks again.
    fn reject(&self, prompt: &Prompt, reason: &str) {
        let _ = (prompt, reason);
    }
}

/// `backend:model`, the name used in cache keys and reports.
pub fn full_name(llm: &dyn Llm) -> String {
    format!("{}:{}", llm.backend(), llm.model())
}
