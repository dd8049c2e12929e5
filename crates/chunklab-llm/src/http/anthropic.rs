//! The `anthropic` backend: the Messages API (`POST /v1/messages`, `anthropic-version:
//! 2023-06-01`), key from `$ANTHROPIC_API_KEY`, streaming off. The shared part of the prompt
//! (the document) is its own content block marked `cache_control: {"type": "ephemeral"}`, so
//! every chunk after the first reads the document from Anthropic's prompt cache.

use super::transport::{run_bounded, HttpOptions, Transport};
use crate::error::{Error, Result};
use crate::llm::{Completion, Llm, Prompt, Usage};
use serde_json::{json, Value};

/// Context window of current Claude models.
pub const CONTEXT: usize = 200_000;

/// A Claude model behind the Anthropic Messages API.
pub struct AnthropicLlm {
    base_url: String,
    model: String,
    key: String,
    transport: Transport,
}

impl AnthropicLlm {
    /// `base_url` without `/v1` (`https://api.anthropic.com`).
    pub fn new(base_url: &str, model: &str, key: String, options: HttpOptions) -> Self {
        Self {
            base_url: base_url.trim_end_matches('/').to_string(),
            model: model.to_string(),
            key,
            transport: Transport::new("anthropic", options),
        }
    }

    /// The JSON body sent for `prompt`.
    pub fn request_body(&self, prompt: &Prompt) -> Value {
        let mut content = Vec::new();
        if !prompt.shared.is_empty() {
            content.push(json!({
                "type": "text",
                "text": prompt.shared,
                "cache_control": {"type": "ephemeral"},
            }));
        }
        if !prompt.request.is_empty() || content.is_empty() {
            content.push(json!({"type": "text", "text": prompt.request}));
        }
        let mut body = json!({
            "model": self.model,
            "max_tokens": prompt.max_tokens,
            "temperature": 0,
            "stream": false,
            "messages": [{"role": "user", "content": content}],
        });
        if !prompt.system.is_empty() {
            body["system"] = json!(prompt.system);
        }
        body
    }
}

impl Llm for AnthropicLlm {
    fn backend(&self) -> &str {
        "anthropic"
    }

    fn model(&self) -> &str {
        &self.model
    }

    fn context_tokens(&self) -> usize {
        CONTEXT
    }

    fn count_tokens(&self, text: &str) -> usize {
        text.len().div_ceil(3)
    }

    fn complete(&self, prompt: &Prompt) -> Result<Completion> {
        let url = format!("{}/v1/messages", self.base_url);
        let headers = [
            ("x-api-key", self.key.clone()),
            ("anthropic-version", "2023-06-01".to_string()),
        ];
        let v = self
            .transport
            .post_json(&url, &headers, &self.request_body(prompt))?;
        let blocks = v["content"].as_array().ok_or_else(|| Error::BadResponse {
            backend: "anthropic".into(),
            url: url.clone(),
            detail: "no content array".into(),
        })?;
        let text: String = blocks
            .iter()
            .filter(|b| b["type"] == "text")
            .filter_map(|b| b["text"].as_str())
            .collect();
        let n = |x: &Value| x.as_u64().unwrap_or(0);
        let u = &v["usage"];
        let read = n(&u["cache_read_input_tokens"]);
        Ok(Completion {
            text,
            usage: Usage {
                calls: 1,
                cache_hits: 0,
                input_tokens: n(&u["input_tokens"]) + n(&u["cache_creation_input_tokens"]) + read,
                cached_tokens: read,
                output_tokens: n(&u["output_tokens"]),
            },
        })
    }

    fn complete_all(&self, prompts: &[Prompt]) -> Vec<Result<Completion>> {
        run_bounded(prompts, self.transport.options.concurrency, |p| {
            self.complete(p)
        })
    }
}
