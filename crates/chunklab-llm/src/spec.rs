//! `--llm` specs: `local:smollm2` (a known model, fetched/verified by chunklab-embed) or
//! `local:PATH.gguf`, `openai:BASE_URL#MODEL`, `anthropic:MODEL` (or `anthropic:BASE_URL#MODEL`).

use crate::error::{Error, Result};
use crate::local::{LocalLlm, LocalOptions};
use std::path::{Path, PathBuf};

/// A parsed `--llm` spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LlmSpec {
    /// A known model name or a GGUF file, run in-process.
    Local(String),
    /// An OpenAI-compatible server: base URL (ending in `/v1`) and model.
    OpenAi { base_url: String, model: String },
    /// The Anthropic Messages API: base URL and model.
    Anthropic { base_url: String, model: String },
}

/// Default Anthropic API root (override with `anthropic:BASE_URL#MODEL` or `$ANTHROPIC_BASE_URL`).
pub const ANTHROPIC_URL: &str = "https://api.anthropic.com";

impl LlmSpec {
    /// Parse `spec`.
    ///
    /// ```
    /// use chunklab_llm::spec::LlmSpec;
    /// assert_eq!(LlmSpec::parse("local:smollm2").unwrap(), LlmSpec::Local("smollm2".into()));
    /// assert_eq!(
    ///     LlmSpec::parse("openai:http://127.0.0.1:11434/v1#qwen2.5:7b").unwrap(),
    ///     LlmSpec::OpenAi { base_url: "http://127.0.0.1:11434/v1".into(), model: "qwen2.5:7b".into() }
    /// );
    /// assert!(LlmSpec::parse("openai:http://x/v1").is_err());
    /// ```
    pub fn parse(spec: &str) -> Result<Self> {
        let bad = |detail: &str| Error::BadSpec {
            spec: spec.to_string(),
            detail: detail.to_string(),
        };
        let (backend, rest) = spec
            .split_once(':')
            .ok_or_else(|| bad("no backend prefix"))?;
        if rest.trim().is_empty() {
            return Err(bad("nothing after the backend"));
        }
        match backend {
            "local" => Ok(LlmSpec::Local(rest.to_string())),
            "openai" => {
                let (url, model) = rest
                    .rsplit_once('#')
                    .ok_or_else(|| bad("openai needs BASE_URL#MODEL"))?;
                if !(url.starts_with("http://") || url.starts_with("https://")) || model.is_empty()
                {
                    return Err(bad(
                        "openai needs an http(s) BASE_URL and a MODEL after '#'",
                    ));
                }
                Ok(LlmSpec::OpenAi {
                    base_url: url.trim_end_matches('/').to_string(),
                    model: model.to_string(),
                })
            }
            "anthropic" => {
                let (url, model) = match rest.rsplit_once('#') {
                    Some((u, m)) => (u.to_string(), m.to_string()),
                    None => (
                        std::env::var("ANTHROPIC_BASE_URL")
                            .ok()
                            .filter(|u| !u.is_empty())
                            .unwrap_or_else(|| ANTHROPIC_URL.to_string()),
                        rest.to_string(),
                    ),
                };
                if model.is_empty() || !(url.starts_with("http://") || url.starts_with("https://"))
                {
                    return Err(bad("anthropic needs MODEL or http(s) BASE_URL#MODEL"));
                }
                Ok(LlmSpec::Anthropic {
                    base_url: url.trim_end_matches('/').to_string(),
                    model,
                })
            }
            other => Err(bad(&format!("unknown backend {other:?}"))),
        }
    }
}

/// The GGUF file of a known local model (`smollm2`) under `home`, verified by sha256 and fetched
/// first when `fetch` is set; or `name` itself when it is a path to a `.gguf` file.
pub fn local_model_path(name: &str, home: &Path, fetch: bool) -> Result<PathBuf> {
    if let Some(known) = chunklab_embed::registry::find(name) {
        let dir = chunklab_embed::installed_dir(known, home, fetch)?;
        let file = known
            .files()
            .find(|f| f.local_path.ends_with(".gguf"))
            .ok_or_else(|| Error::BadSpec {
                spec: format!("local:{name}"),
                detail: "this known model is not a GGUF language model".into(),
            })?;
        return Ok(dir.join(file.local_path));
    }
    let path = PathBuf::from(name);
    if path.is_file() {
        return Ok(path);
    }
    Err(Error::BadSpec {
        spec: format!("local:{name}"),
        detail: format!(
            "not a known model ({}) nor an existing .gguf file",
            chunklab_embed::registry::names()
        ),
    })
}

/// Open the local model `name` (see [`local_model_path`]).
pub fn open_local(name: &str, home: &Path, fetch: bool, options: LocalOptions) -> Result<LocalLlm> {
    let path = local_model_path(name, home, fetch)?;
    let model_name = if chunklab_embed::registry::find(name).is_some() {
        name.to_string()
    } else {
        path.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| name.to_string())
    };
    LocalLlm::open(&path, &model_name, options)
}

/// How [`open`] builds a client.
#[derive(Clone, Debug, Default)]
pub struct OpenOptions {
    /// chunklab home (models, answer cache); [`chunklab_embed::fetch::home_dir`] when `None`.
    pub home: Option<PathBuf>,
    /// Fetch a missing known local model.
    pub fetch: bool,
    /// Do not read or write the on-disk answer cache.
    pub no_cache: bool,
    /// Retries, timeouts and concurrency of the HTTP backends.
    pub http: crate::http::HttpOptions,
    /// Settings of the local backend.
    pub local: LocalOptions,
}

/// Open the model `spec` names, wrapped in an [`crate::LlmClient`] (answer cache + accounting).
///
/// Keys: `$OPENAI_API_KEY` (optional; sent when set), `$ANTHROPIC_API_KEY` (required).
pub fn open(spec: &str, opts: &OpenOptions) -> Result<crate::LlmClient> {
    let home = opts
        .home
        .clone()
        .unwrap_or_else(chunklab_embed::fetch::home_dir);
    let inner: Box<dyn crate::Llm> = match LlmSpec::parse(spec)? {
        LlmSpec::Local(name) => Box::new(open_local(&name, &home, opts.fetch, opts.local)?),
        LlmSpec::OpenAi { base_url, model } => {
            let key = std::env::var("OPENAI_API_KEY")
                .ok()
                .filter(|k| !k.is_empty());
            Box::new(crate::http::OpenAiLlm::new(
                &base_url,
                &model,
                key,
                opts.http.clone(),
            ))
        }
        LlmSpec::Anthropic { base_url, model } => {
            let key = std::env::var("ANTHROPIC_API_KEY")
                .ok()
                .filter(|k| !k.is_empty())
                .ok_or(Error::MissingKey {
                    backend: "anthropic".into(),
                    var: "ANTHROPIC_API_KEY",
                })?;
            Box::new(crate::http::AnthropicLlm::new(
                &base_url,
                &model,
                key,
                opts.http.clone(),
            ))
        }
    };
    let cache = (!opts.no_cache).then(|| crate::client::cache_dir(&home));
    Ok(crate::LlmClient::new(inner, cache))
}
