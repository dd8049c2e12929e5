//! HTTP backends: OpenAI-compatible chat completions and the Anthropic Messages API, over a
//! blocking pure-Rust client (ureq with rustls) with retries and bounded concurrency.

mod anthropic;
mod openai;
mod transport;

pub use anthropic::AnthropicLlm;
pub use openai::OpenAiLlm;
pub use transport::HttpOptions;
