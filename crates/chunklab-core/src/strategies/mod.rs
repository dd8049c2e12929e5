//! Chunking strategies, one per file, and [`build`] which turns the typed
//! [`ChunkConfig`] into a boxed [`Chunker`]. [`catalog`] describes
//! every strategy and the configuration keys it takes.

pub(crate) mod catalog;
mod cluster;
mod code;
mod elements;
pub(crate) mod fixed;
mod groups;
mod headings;
mod hierarchical;
mod pack;
mod paragraph;
mod recursive;
mod semantic;
mod sentence;
mod separators;
pub(crate) mod sliding;
mod structured;
pub(crate) mod window;

pub use cluster::Cluster;
pub use code::Code;
pub use elements::Elements;
pub use fixed::Fixed;
pub use headings::Headings;
pub use hierarchical::Hierarchical;
pub use paragraph::Paragraph;
pub use recursive::{Recursive, LANGCHAIN_SEPARATORS};
pub use semantic::Semantic;
pub use sentence::Sentence;
pub use sliding::Sliding;

/// The configuration enums, where strategies take them from.
pub use crate::config::{Breakpoint, Compat, KeepSeparator};
pub use catalog::{catalog, ParamInfo, StrategyInfo};

use crate::chunker::Chunker;
use crate::config::{ChunkConfig, Strategy};
use crate::error::{config_err, Error, Result};
use crate::sizer::Sizer;
use crate::text_embedder::TextEmbedder;
use std::sync::Arc;

/// Build the chunker `cfg` describes, measuring with `sizer`; `embedder` is the model of
/// `semantic` and `cluster`. The configuration is validated first
/// ([`ChunkConfig::validate`]), so every parameter check happens before any text is read.
/// `late` and `llm` are built by the crates that own their models (`chunklab-embed`,
/// `chunklab-llm`; the pipeline does this).
pub fn build(
    cfg: &ChunkConfig,
    sizer: Arc<dyn Sizer>,
    embedder: Option<Arc<dyn TextEmbedder>>,
) -> Result<Box<dyn Chunker>> {
    cfg.validate()?;
    let langchain = cfg.compat == Compat::LangChain;
    let model = || {
        embedder.clone().ok_or_else(|| Error::Param {
            param: "model",
            message: format!(
                "is needed by strategy {} (minilm, e5-small or a model directory)",
                cfg.strategy
            ),
        })
    };
    Ok(match cfg.strategy {
        Strategy::Fixed if langchain => Box::new(Fixed::langchain(sizer, cfg.size, cfg.overlap)?),
        Strategy::Fixed => Box::new(Fixed::new(sizer, cfg.size, cfg.overlap)?),
        Strategy::Recursive => {
            let r = if langchain {
                Recursive::langchain(sizer, cfg.size, cfg.overlap)?
            } else {
                Recursive::new(sizer, cfg.size, cfg.overlap)?
            };
            let r = match &cfg.separators {
                Some(seps) => r.with_separators(seps, cfg.regex_separators)?,
                None => r,
            };
            Box::new(r.with_keep_separator(cfg.keep_separator))
        }
        Strategy::Sliding => {
            let stride = cfg.stride.unwrap_or(sliding::default_stride(cfg.size));
            Box::new(Sliding::new(sizer, cfg.size, stride)?)
        }
        Strategy::Sentence => Box::new(Sentence::new(sizer, cfg.size, cfg.overlap, cfg.lang)?),
        Strategy::Paragraph => Box::new(Paragraph::new(sizer, cfg.size, cfg.overlap, cfg.lang)?),
        Strategy::Headings => Box::new(
            Headings::new(sizer, cfg.size, cfg.max_level, cfg.title_prefix)?
                .with_merge_siblings(cfg.merge_siblings),
        ),
        Strategy::Code => Box::new(Code::new(sizer, cfg.size, cfg.title_prefix)?),
        Strategy::Elements => Box::new(Elements::new(
            sizer,
            cfg.size,
            cfg.max_level,
            cfg.title_prefix,
        )?),
        Strategy::Semantic => Box::new(
            Semantic::new(sizer, cfg.size, model()?, cfg.lang)?
                .with_breakpoint(cfg.breakpoint, cfg.breakpoint_amount)?
                .with_buffer(cfg.buffer)?
                .with_min_size(cfg.min_size)?,
        ),
        Strategy::Cluster => Box::new(Cluster::new(
            sizer,
            cfg.size,
            cfg.piece_size
                .unwrap_or_else(|| DEFAULT_PIECE_SIZE.max(cfg.size.div_ceil(256)).min(cfg.size)),
            model()?,
        )?),
        Strategy::Hierarchical => Box::new(Hierarchical::new(
            sizer,
            cfg.levels
                .clone()
                .unwrap_or_else(|| DEFAULT_LEVELS.to_vec()),
        )?),
        Strategy::Late | Strategy::Llm => {
            return config_err(format!(
                "strategy {} needs a model outside chunklab-core: build it with \
                 chunklab_embed::LateChunker / chunklab_llm::LlmChunker (chunklab-pipeline does)",
                cfg.strategy
            ))
        }
    })
}

/// `cluster`: default size of the pieces that are embedded and grouped (Chroma's 50 tokens;
/// the size limit when that is smaller, `size / 256` when that is larger).
pub const DEFAULT_PIECE_SIZE: usize = 50;

/// `hierarchical`: default limits of the levels, largest first.
pub const DEFAULT_LEVELS: [usize; 3] = [2048, 512, 128];
