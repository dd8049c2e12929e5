//! Language models for chunklab: contextual retrieval (a short LLM-written context per chunk,
//! stored next to the span, never in it), LLM-chosen chunk boundaries and synthetic queries.
//!
//! The [`Llm`] seam has three backends: [`local`] (a GGUF model such as SmolLM2-135M-Instruct
//! run in-process on the CPU, reusing the KV cache of a document across its chunks),
//! OpenAI-compatible `/v1/chat/completions` servers and the Anthropic Messages API (prompt
//! caching on the document block).

pub mod client;
pub mod context;
mod error;
pub mod fit;
pub mod header;
pub mod http;
pub mod llm;
pub mod local;
pub mod quality;
pub mod queries;
pub mod spec;
pub mod strategy;

#[cfg(test)]
mod scripted;

pub use client::LlmClient;
pub use error::{Error, Result};
pub use llm::{full_name, Completion, Llm, Prompt, Usage};
