//! A Hugging Face tokenizer handed over as an object (LangChain's
//! `from_huggingface_tokenizer(tokenizer)`): its `tokenizer.json` text is kept as a file under
//! chunklab's home, named by its content hash, so that the configuration names a path that a
//! pickled splitter, a worker process or a later session finds again.

use crate::errors::{read_error, ConfigError};
use pyo3::prelude::*;
use std::path::PathBuf;

/// Keep `json` (a `tokenizer.json`'s text) as `<home>/tokenizers/<blake3>.json` and return
/// that path; the same text gives the same file, written once.
#[pyfunction(name = "_keep_tokenizer_json")]
pub fn keep_tokenizer_json(py: Python<'_>, json: &str) -> PyResult<String> {
    if serde_json::from_str::<serde_json::Value>(json).is_err() {
        return Err(ConfigError::new_err(
            "tokenizer: the tokenizer's JSON does not parse; save it with tokenizer.save_pretrained(DIR) and give tokenizer=DIR",
        ));
    }
    let dir = chunklab_embed::fetch::home_dir().join("tokenizers");
    let path = dir.join(format!("{}.json", blake3::hash(json.as_bytes()).to_hex()));
    py.detach(|| write_once(&dir, &path, json)).map_err(|e| {
        read_error(e.context(format!(
            "{}: cannot write (the tokenizer is kept under CHUNKLAB_HOME/tokenizers to be \
                 counted in Rust: set CHUNKLAB_HOME to a writable directory)",
            path.display()
        )))
    })?;
    Ok(path.to_string_lossy().into_owned())
}

/// Write `text` to `path` unless it is there: a temporary file renamed into place, so a reader
/// in another process never sees half a file.
fn write_once(dir: &std::path::Path, path: &PathBuf, text: &str) -> anyhow::Result<()> {
    if path.is_file() {
        return Ok(());
    }
    std::fs::create_dir_all(dir)?;
    // One temporary name per writer, also between threads of one process.
    static WRITERS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = WRITERS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let tmp = path.with_extension(format!("json.{}-{n}.tmp", std::process::id()));
    std::fs::write(&tmp, text)?;
    std::fs::rename(&tmp, path)?;
    Ok(())
}
