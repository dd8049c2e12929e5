use thiserror::Error;

/// Everything that can go wrong in the chunking core. Configuration problems are reported before
/// any text is touched.
#[derive(Debug, Error)]
pub enum Error {
    /// A parameter is out of range or inconsistent (e.g. `overlap >= size`).
    #[error("invalid configuration: {0}")]
    Config(String),
    /// One parameter of the configuration is wrong: `param` is its key in
    /// [`crate::config::ChunkConfig`] (faces spell it their way: `--max-level`, `"max_level"`).
    #[error("invalid `{param}`: {message}")]
    Param {
        /// The configuration key.
        param: &'static str,
        /// What is wrong, without the key.
        message: String,
    },
    /// A separator pattern did not compile.
    #[error("invalid separator pattern {pattern:?}: {message}")]
    Pattern { pattern: String, message: String },
    /// A single char is larger than the size limit in the sizer's units (e.g. an emoji that is
    /// 3 tokens with `--size 2`), so no span on char boundaries can respect the limit.
    #[error("the text {text:?} at byte {offset} is {units} units on its own, more than the size limit {size}; raise the size")]
    TooSmall {
        text: String,
        offset: usize,
        units: usize,
        size: usize,
    },
    /// The text is larger than one in-memory document can be (4 GiB); stream it in blocks.
    #[error("document of {0} bytes is larger than 4 GiB; split it or use the streaming reader")]
    TooLarge(usize),
    /// The embedding model of a model-driven strategy (`semantic`, `cluster`) failed.
    #[error("embedding failed: {0}")]
    Embed(String),
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn config_err<T>(msg: impl Into<String>) -> Result<T> {
    Err(Error::Config(msg.into()))
}

/// An [`Error::Param`] for configuration key `param`.
pub(crate) fn param_err<T>(param: &'static str, msg: impl Into<String>) -> Result<T> {
    Err(Error::Param {
        param,
        message: msg.into(),
    })
}
