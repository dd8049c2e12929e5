//! [`LlmClient`]: any [`Llm`] plus an on-disk answer cache and per-run token accounting.
//!
//! Answers are cached under `$CHUNKLAB_HOME/llm-cache/` keyed by blake3 of (backend, model,
//! prompt): a re-run of the same command sends nothing and costs nothing. Answers that failed a
//! quality gate are marked `"rejected"` ([`Llm::reject`]) and asked again on the next run.

use crate::error::{io_err, Result};
use crate::llm::{full_name, Completion, Llm, Prompt, Usage};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Directory of the answer cache under a chunklab home.
pub fn cache_dir(home: &Path) -> PathBuf {
    home.join("llm-cache")
}

/// An [`Llm`] with an answer cache and a running [`Usage`] total.
pub struct LlmClient {
    inner: Box<dyn Llm>,
    cache: Option<PathBuf>,
    usage: Mutex<Usage>,
}

impl LlmClient {
    /// Wrap `inner`; `cache` is the cache directory (`None` = no caching).
    pub fn new(inner: Box<dyn Llm>, cache: Option<PathBuf>) -> Self {
        Self {
            inner,
            cache,
            usage: Mutex::new(Usage::default()),
        }
    }

    /// Tokens spent so far through this client.
    pub fn usage(&self) -> Usage {
        *self.usage.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The cache key of `prompt`: blake3 over backend, model and the prompt's fields.
    pub fn key(&self, prompt: &Prompt) -> String {
        let mut h = blake3::Hasher::new();
        for part in [
            full_name(self.inner.as_ref()).as_str(),
            &prompt.system,
            &prompt.shared,
            &prompt.request,
        ] {
            h.update(&(part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        h.update(&(prompt.max_tokens as u64).to_le_bytes());
        h.finalize().to_hex().to_string()
    }

    fn path(&self, prompt: &Prompt) -> Option<PathBuf> {
        let key = self.key(prompt);
        self.cache
            .as_ref()
            .map(|d| d.join(&key[..2]).join(format!("{key}.json")))
    }

    /// The cached answer to `prompt`; answers marked rejected are not answers.
    fn lookup(&self, prompt: &Prompt) -> Option<String> {
        let path = self.path(prompt)?;
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        if v.get("rejected").is_some() {
            return None;
        }
        v["text"].as_str().map(str::to_string)
    }

    /// Whether the cached answer to `prompt` is marked rejected, and why.
    pub fn rejected(&self, prompt: &Prompt) -> Option<String> {
        let path = self.path(prompt)?;
        let v: serde_json::Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
        v["rejected"].as_str().map(str::to_string)
    }

    fn store(&self, prompt: &Prompt, text: &str) -> Result<()> {
        self.write(prompt, text, None)
    }

    /// Write the cache entry of `prompt`; `rejected` marks an answer that failed a gate.
    fn write(&self, prompt: &Prompt, text: &str, rejected: Option<&str>) -> Result<()> {
        let Some(path) = self.path(prompt) else {
            return Ok(());
        };
        let dir = path.parent().expect("cache paths have a parent");
        std::fs::create_dir_all(dir).map_err(io_err(dir))?;
        let mut body = serde_json::json!({ "model": full_name(self.inner.as_ref()), "text": text });
        if let Some(r) = rejected {
            body["rejected"] = r.into();
        }
        let tmp = tempfile_in(dir, &path);
        std::fs::write(&tmp, body.to_string()).map_err(io_err(&tmp))?;
        std::fs::rename(&tmp, &path).map_err(io_err(&path))
    }

    fn record(&self, u: &Usage) {
        self.usage.lock().unwrap_or_else(|p| p.into_inner()).add(u);
    }

    fn finish(&self, prompt: &Prompt, r: Result<Completion>) -> Result<Completion> {
        let c = r?;
        self.record(&c.usage);
        self.store(prompt, &c.text)?;
        Ok(c)
    }

    fn hit(&self, text: String) -> Completion {
        let usage = Usage {
            cache_hits: 1,
            ..Usage::default()
        };
        self.record(&usage);
        Completion { text, usage }
    }
}

/// A temporary name next to `path`, unique per process and thread.
fn tempfile_in(dir: &Path, path: &Path) -> PathBuf {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    dir.join(format!(
        ".{name}.{}.{:?}.tmp",
        std::process::id(),
        std::thread::current().id()
    ))
}

impl Llm for LlmClient {
    fn backend(&self) -> &str {
        self.inner.backend()
    }

    fn model(&self) -> &str {
        self.inner.model()
    }

    fn context_tokens(&self) -> usize {
        self.inner.context_tokens()
    }

    fn count_tokens(&self, text: &str) -> usize {
        self.inner.count_tokens(text)
    }

    fn complete(&self, prompt: &Prompt) -> Result<Completion> {
        if let Some(text) = self.lookup(prompt) {
            return Ok(self.hit(text));
        }
        let r = self.inner.complete(prompt);
        self.finish(prompt, r)
    }

    fn complete_all(&self, prompts: &[Prompt]) -> Vec<Result<Completion>> {
        let mut out: Vec<Option<Result<Completion>>> = prompts
            .iter()
            .map(|p| self.lookup(p).map(|t| Ok(self.hit(t))))
            .collect();
        let missing: Vec<usize> = (0..prompts.len()).filter(|&i| out[i].is_none()).collect();
        let todo: Vec<Prompt> = missing.iter().map(|&i| prompts[i].clone()).collect();
        for (i, r) in missing.into_iter().zip(self.inner.complete_all(&todo)) {
            out[i] = Some(self.finish(&prompts[i], r));
        }
        out.into_iter().map(|r| r.expect("filled above")).collect()
    }

    /// Mark the cached answer to `prompt` as rejected (kept for inspection, never served): the
    /// next run asks the model again. A cache that cannot be written is left as it is (the
    /// answer was already counted as rejected by the caller).
    fn reject(&self, prompt: &Prompt, reason: &str) {
        let Some(path) = self.path(prompt) else {
            return;
        };
        let Ok(bytes) = std::fs::read(&path) else {
            return;
        };
        let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
            return;
        };
        let text = v["text"].as_str().unwrap_or_default().to_string();
        let _ = self.write(prompt, &text, Some(reason));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scripted::Scripted;

    fn prompt() -> Prompt {
        Prompt {
            system: String::new(),
            shared: "<document>\nParken\n</document>\n".into(),
            request: "Situate the chunk.".into(),
            max_tokens: 16,
        }
    }

    #[test]
    fn a_rejected_answer_is_not_served_from_the_cache_again() {
        let dir = tempfile::tempdir().unwrap();
        let llm = LlmClient::new(
            Box::new(Scripted::answers(&["loop loop loop", "Over de parken."])),
            Some(dir.path().to_path_buf()),
        );
        let p = prompt();
        assert_eq!(llm.complete(&p).unwrap().text, "loop loop loop");
        // A good answer would be served from the cache ...
        assert_eq!(llm.complete(&p).unwrap().text, "loop loop loop");
        assert_eq!((llm.usage().calls, llm.usage().cache_hits), (1, 1));
        // ... a rejected one is kept for inspection, marked, and asked again.
        llm.reject(&p, "repetition");
        assert_eq!(llm.rejected(&p).as_deref(), Some("repetition"));
        let again = llm.complete_all(std::slice::from_ref(&p));
        assert_eq!(again[0].as_ref().unwrap().text, "Over de parken.");
        assert_eq!(llm.usage().calls, 2);
        assert_eq!(
            llm.rejected(&p),
            None,
            "the new answer replaced the rejected one"
        );
        assert_eq!(llm.complete(&p).unwrap().text, "Over de parken.");
        assert_eq!(llm.usage().cache_hits, 2);
    }

    #[test]
    fn rejecting_without_a_cache_or_entry_does_nothing() {
        let llm = LlmClient::new(Box::new(Scripted::answers(&["a b"])), None);
        llm.reject(&prompt(), "length");
        assert_eq!(llm.rejected(&prompt()), None);
        let dir = tempfile::tempdir().unwrap();
        let llm = LlmClient::new(
            Box::new(Scripted::answers(&["a b"])),
            Some(dir.path().to_path_buf()),
        );
        llm.reject(&prompt(), "length");
        assert_eq!(llm.rejected(&prompt()), None);
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}
