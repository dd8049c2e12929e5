//! The `openai` backend: any OpenAI-compatible `/v1/chat/completions` server (OpenAI, vLLM,
//! llama.cpp server, Ollama). Key from `$OPENAI_API_KEY` when set; streaming off.

use super::transport::{run_bounded, HttpOptions, Transport};
use crate::error::{Error, Result};
use crate::llm::{Completion, Llm, Prompt, Usage};
use serde_json::{json, Value};

/// Default context window assumed for OpenAI-compatible models (not discoverable by the API).
pub const DEFAULT_CONTEXT: usize = 32_768;

/// A chat model behind an OpenAI-compatible server.
pub struct OpenAiLlm {
    base_url: String,
    model: String,
    key: Option<String>,
    context: usize,
    transport: Transport,
}

impl OpenAiLlm {
    /// `base_url` ends in `/v1` (`http://127.0.0.1:11434/v1`); `key` is sent as a bearer token.
    pub fn new(base_url: &str, model: &str, key: Option<String>, options: HttpOptions) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            key,
            context: DEFAULT_CONTEXT,
            transport: Transport::new("openai", options),
        }
    }

    /// Override the assumed context window.
    pub fn with_context(mut self, tokens: usize) -> Self {
        self.context = tokens;
        self
    }

    /// The JSON body sent for `prompt`.
    pub fn request_body(&self, prompt: &Prompt) -> Value {
        let mut messages = Vec::new();
        if !prompt.system.is_empty() {
            messages.push(json!({"role": "system", "content": prompt.system}));
        }
        messages.push(
            json!({"role": "user", "content": format!("{}{}", prompt.shared, prompt.request)}),
        );
        json!({
            "model": self.model,
            "messages": messages,
            "max_tokens": prompt.max_tokens,
            "temperature": 0,
            "stream": false,
        })
    }
}

impl Llm for OpenAiLlm {
    fn backend(&self) -> &str {
        "openai"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn context_tokens(&self) -> usize {
        self.context
    }

    fn count_tokens(&self, text: &str) -> usize {
        text.len().div_ceil(3)
    }

    fn complete(&self, prompt: &Prompt) -> Result<Completion> {
        let url = format!("{}/chat/completions", self.base_url);
        let mut headers = Vec::new();
        if let Some(k) = &self.key {
            headers.push(("authorization", format!("Bearer {k}")));
        }
        let v = self
            .transport
            .post_json(&url, &headers, &self.request_body(prompt))?;
        let text = v["choices"][0]["message"]["content"]
            .as_str()
            .ok_or_else(|| Error::BadResponse {
                backend: "openai".into(),
                url: url.clone(),
                detail: "no choices[0].message.content".into(),
            })?
            .to_string();
        let n = |x: &Value| x.as_u64().unwrap_or(0);
        let u = &v["usage"];
        Ok(Completion {
            text,
            usage: Usage {
                calls: 1,
                cache_hits: 0,
                input_tokens: n(&u["prompt_tokens"]),
                cached_tokens: n(&u["prompt_tokens_details"]["cached_tokens"]),
                output_tokens: n(&u["completion_tokens"]),
            },
        })
    }

    fn complete_all(&self, prompts: &[Prompt]) -> Vec<Result<Completion>> {
        run_bounded(prompts, self.transport.options.concurrency, |p| {
            self.complete(p)
        })
    }
}
