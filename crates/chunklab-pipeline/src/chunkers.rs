//! From a [`ChunkConfig`] to a chunker: the sizer its unit names, and the strategy — the core's,
//! or the two built around a model here (`late` over an embedding model, `llm` over a language
//! model). The CLI and the lab both build their chunkers with [`build_chunker`].

use anyhow::{bail, Context, Result};
use chunklab_core::{strategies, ChunkConfig, Chunker, Sizer, Strategy, TextEmbedder, Unit};
use chunklab_embed::{Embedder, LateChunker, LateOptions, LoadOptions};
use chunklab_llm::strategy::LlmChunker;
use chunklab_llm::{Llm, LlmClient};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// An embedding model, loaded, and the directory it was read from (its tokenizer.json).
pub struct LoadedModel {
    /// The model.
    pub model: Arc<dyn Embedder>,
    /// Where it was read from.
    pub dir: Option<PathBuf>,
}

/// Load the embedding model `spec` names (fetching a known one with `fetch`).
pub fn load_model(spec: &str, fetch: bool) -> Result<LoadedModel> {
    let how = LoadOptions {
        fetch,
        ..Default::default()
    };
    let model: Arc<dyn Embedder> = chunklab_embed::load(spec, &how)
        .with_context(|| format!("model {spec}"))?
        .into();
    Ok(LoadedModel {
        dir: chunklab_embed::model_dir(spec, &how),
        model,
    })
}

/// The sizer of `cfg`'s unit. Unit unset: chars, or tokens when a tokenizer is given. With a
/// `model` and tokens (or no unit) and no tokenizer, sizes are in the model's own tokens (its
/// directory's tokenizer.json), so sizes are what the model sees. A known model named as the
/// tokenizer (`minilm`) that is not installed is fetched with `fetch`.
pub fn sizer(
    cfg: &ChunkConfig,
    model: Option<(&str, Option<&Path>)>,
    fetch: bool,
) -> Result<Arc<dyn Sizer>> {
    let tokens_or_none = matches!(cfg.unit, None | Some(Unit::Tokens));
    let (unit, tokenizer) = match (model, tokens_or_none, &cfg.tokenizer) {
        (Some((spec, dir)), true, None) => {
            let file = dir
                .map(|d| d.join("tokenizer.json"))
                .filter(|f| f.is_file());
            match file {
                Some(f) => (Unit::Tokens, Some(f.to_string_lossy().into_owned())),
                None => bail!(
                    "model {spec}: no tokenizer.json in the model directory to size chunks with; give a unit (and a tokenizer)"
                ),
            }
        }
        _ => {
            let unit = match (cfg.unit, &cfg.tokenizer) {
                (Some(u), _) => u,
                (None, Some(_)) => Unit::Tokens,
                (None, None) => Unit::Chars,
            };
            let tokenizer = cfg
                .tokenizer
                .as_deref()
                .map(|spec| tokenizer_file(spec, fetch))
                .transpose()?;
            (unit, tokenizer)
        }
    };
    chunklab_tokenizers::sizer_from_spec(unit.name(), tokenizer.as_deref(), cfg.count_special)
        .map_err(|e| {
            use chunklab_tokenizers::TokenizerError as E;
            // Named by the key, so each face spells it (`--tokenizer …`, `tokenizer: …`).
            let message = match &e {
                E::UnknownUnit(_) => return param("unit", &e.to_string()),
                E::UnknownTokenizer(spec) => format!(
                    "`{spec}` is unknown: use {}",
                    chunklab_tokenizers::TOKENIZER_CHOICES
                ),
                E::Load { path, message } => format!("cannot load {path}: {message}"),
            };
            param("tokenizer", &message)
        })
}

/// A tokenizer spec as the sizer reads it: `cl100k`, `o200k` and paths as given; the name of a
/// known embedding model (`minilm`, `e5-small`) or a hub id in the local cache is the
/// `tokenizer.json` of its directory, so sizes can be counted in a model's tokens without
/// loading it (the lab's sweeps, `chunk --tokenizer minilm`). A known model that is not
/// installed is fetched with `fetch`, else refused with [`chunklab_embed::Error::ModelMissing`].
fn tokenizer_file(spec: &str, fetch: bool) -> Result<String> {
    let builtin = matches!(spec, "cl100k" | "cl100k_base" | "o200k" | "o200k_base");
    if builtin || Path::new(spec).exists() {
        return Ok(spec.to_string());
    }
    let how = LoadOptions::default();
    let Some(dir) = chunklab_embed::model_dir(spec, &how) else {
        return Ok(spec.to_string());
    };
    let file = dir.join("tokenizer.json");
    if file.is_file() {
        return Ok(file.to_string_lossy().into_owned());
    }
    let why = format!("{} has no tokenizer.json", dir.display());
    let Some(known) = chunklab_embed::registry::find(spec) else {
        bail!("tokenizer {spec}: {why}");
    };
    if !fetch {
        return Err(chunklab_embed::Error::ModelMissing {
            name: known.name.to_string(),
            detail: why,
        })
        .with_context(|| format!("tokenizer {spec}"));
    }
    let home = how.home.unwrap_or_else(chunklab_embed::fetch::home_dir);
    let dir = chunklab_embed::installed_dir(known, &home, true)
        .with_context(|| format!("tokenizer {spec}"))?;
    Ok(dir.join("tokenizer.json").to_string_lossy().into_owned())
}

/// What a model-driven strategy may need: the embedding model (`late`), its text-embedding view
/// (`semantic`, `cluster`; the lab passes a cached one) and the language model (`llm`).
#[derive(Default, Clone)]
pub struct Models<'a> {
    /// The embedding model.
    pub embedder: Option<&'a Arc<dyn Embedder>>,
    /// The model as the core's `TextEmbedder`.
    pub text_embedder: Option<Arc<dyn TextEmbedder>>,
    /// The language model.
    pub llm: Option<&'a Arc<LlmClient>>,
}

/// The chunker `cfg` describes, measuring with `sizer`.
pub fn build_chunker(
    cfg: &ChunkConfig,
    sizer: Arc<dyn Sizer>,
    models: Models<'_>,
) -> Result<Box<dyn Chunker>> {
    cfg.validate()?;
    match cfg.strategy {
        Strategy::Llm => {
            let Some(llm) = models.llm else {
                return Err(param(
                    "llm",
                    "is needed by strategy llm (local:smollm2, openai:BASE_URL#MODEL or anthropic:MODEL)",
                ));
            };
            let llm: Arc<dyn Llm> = llm.clone();
            Ok(Box::new(LlmChunker::new(llm, sizer, cfg.size, cfg.lang)?))
        }
        Strategy::Late => {
            let Some(model) = models.embedder else {
                return Err(param(
                    "model",
                    "is needed by strategy late (minilm, e5-small or a model directory): each document is embedded with it once",
                ));
            };
            let boundaries = ChunkConfig {
                strategy: cfg.cutting_strategy(),
                boundaries: None,
                late_window: None,
                late_overlap: None,
                ..cfg.clone()
            };
            let chunker = strategies::build(&boundaries, sizer, models.text_embedder)
                .with_context(|| format!("boundaries {}", boundaries.strategy))?;
            let late = LateChunker::new(chunker, model.as_ref(), late_options(cfg)).map_err(
                |e| match e {
                    // Named by its key, so each face spells it (`--late-overlap`, …).
                    chunklab_embed::Error::LateSetting { setting, message } => {
                        param(setting, &message)
                    }
                    e => anyhow::Error::new(e).context("late chunking"),
                },
            )?;
            Ok(Box::new(late))
        }
        _ => Ok(strategies::build(cfg, sizer, models.text_embedder)?),
    }
}

/// A configuration error naming its key.
fn param(param: &'static str, message: &str) -> anyhow::Error {
    chunklab_core::Error::Param {
        param,
        message: message.into(),
    }
    .into()
}

/// The macro-window settings of `late`.
pub fn late_options(cfg: &ChunkConfig) -> LateOptions {
    LateOptions {
        window: cfg.late_window,
        overlap: cfg.late_overlap,
    }
}
