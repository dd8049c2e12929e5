//! [`ChunkSpec`]: what decides a configuration's chunks, as the sweep file spells it, and its
//! mapping onto the one typed configuration ([`ChunkSpec::config`]).

use serde::Serialize;

/// Everything that decides the chunks (and nothing that does not): two configurations with
/// equal specs share their chunks and embeddings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ChunkSpec {
    pub strategy: String,
    pub size: usize,
    pub overlap: usize,
    /// `sliding`: step (default size − overlap, or half the size).
    pub stride: Option<usize>,
    /// `chars`, `words` or `tokens`.
    pub unit: String,
    /// For `tokens`: `cl100k`, `o200k` or a tokenizer.json path.
    pub tokenizer: Option<String>,
    /// `native` or `langchain`.
    pub compat: String,
    pub separators: Option<Vec<String>>,
    pub regex_separators: bool,
    pub max_level: usize,
    pub title_prefix: bool,
    /// `headings`: merge sibling sections up to the size (the chunk lists its sections).
    pub merge_siblings: bool,
    pub lang: String,
    /// `semantic`: percentile, stddev, interquartile, gradient.
    pub breakpoint: Option<String>,
    pub breakpoint_amount: Option<f64>,
    pub buffer: Option<usize>,
    pub min_size: Option<usize>,
    /// `cluster`: piece size.
    pub piece_size: Option<usize>,
    /// `hierarchical`: level limits, largest first.
    pub levels: Option<Vec<usize>>,
    /// `late`: the strategy that draws the boundaries (default `headings`).
    pub boundaries: Option<String>,
    /// Contextual retrieval: `header` (title + heading path) or `llm` (a language model writes
    /// a context per chunk); embedded and indexed as `context + "\n\n" + chunk`.
    pub context: Option<String>,
    /// The language model of `context = "llm"` (default `local:smollm2`).
    pub llm: Option<String>,
}

impl ChunkSpec {
    /// A spec with chunklab's defaults for everything but strategy and size.
    pub fn new(strategy: &str, size: usize) -> Self {
        ChunkSpec {
            strategy: strategy.into(),
            size,
            overlap: 0,
            stride: None,
            unit: "tokens".into(),
            tokenizer: Some("cl100k".into()),
            compat: "native".into(),
            separators: None,
            regex_separators: false,
            max_level: 6,
            title_prefix: false,
            merge_siblings: false,
            lang: "auto".into(),
            breakpoint: None,
            breakpoint_amount: None,
            buffer: None,
            min_size: None,
            piece_size: None,
            levels: None,
            boundaries: None,
            context: None,
            llm: None,
        }
    }

    pub(crate) fn with_overlap(mut self, overlap: usize) -> Self {
        self.overlap = overlap;
        self
    }

    /// Whether chunking needs the embedding model (`semantic`, `cluster`, `late`).
    pub fn needs_model(&self) -> bool {
        matches!(self.strategy.as_str(), "semantic" | "cluster" | "late")
    }

    /// The unit's display name: `chars`, `words`, or the tokenizer (`cl100k`).
    pub fn unit_name(&self) -> String {
        match (self.unit.as_str(), &self.tokenizer) {
            ("tokens", Some(t)) => std::path::Path::new(t)
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| t.clone()),
            ("tokens", None) => "cl100k".into(),
            (u, _) => u.into(),
        }
    }

    /// The parameters a report shows, as a JSON object: `size`, `overlap`, `unit` where they
    /// apply, plus whatever differs from the defaults.
    pub fn params(&self) -> serde_json::Map<String, serde_json::Value> {
        use serde_json::json;
        let mut m = serde_json::Map::new();
        let s = self.strategy.as_str();
        if s == "hierarchical" {
            m.insert("levels".into(), json!(self.levels_or_default()));
        } else {
            m.insert("size".into(), json!(self.size));
        }
        if matches!(
            s,
            "fixed" | "recursive" | "sentence" | "paragraph" | "sliding"
        ) || self.overlap > 0
        {
            m.insert("overlap".into(), json!(self.overlap));
        }
        m.insert("unit".into(), json!(self.unit_name()));
        if let Some(x) = self.stride {
            m.insert("stride".into(), json!(x));
        }
        if self.compat != "native" {
            m.insert("compat".into(), json!(self.compat));
        }
        if let Some(x) = &self.separators {
            m.insert("separators".into(), json!(x));
        }
        if self.title_prefix {
            m.insert("title_prefix".into(), json!(true));
        }
        if self.merge_siblings {
            m.insert("merge_siblings".into(), json!(true));
        }
        if self.max_level != 6 {
            m.insert("max_level".into(), json!(self.max_level));
        }
        if let Some(x) = &self.breakpoint {
            m.insert("breakpoint".into(), json!(x));
        }
        if let Some(x) = self.breakpoint_amount {
            m.insert("breakpoint_amount".into(), json!(x));
        }
        if let Some(x) = self.buffer {
            m.insert("buffer".into(), json!(x));
        }
        if let Some(x) = self.min_size {
            m.insert("min_size".into(), json!(x));
        }
        if let Some(x) = self.piece_size {
            m.insert("piece_size".into(), json!(x));
        }
        if s == "late" {
            m.insert("boundaries".into(), json!(self.boundaries_or_default()));
        }
        if let Some(c) = &self.context {
            m.insert("context".into(), json!(c));
            m.insert("context_reserve".into(), json!(self.context_reserve()));
            if c == "llm" {
                m.insert("llm".into(), json!(self.llm_or_default()));
            }
        }
        m
    }

    /// The typed chunking configuration this spec describes (at [`ChunkSpec::chunk_size`], the
    /// size the chunker runs at), validated; errors name the key.
    pub fn config(&self) -> Result<chunklab_core::ChunkConfig, String> {
        use chunklab_core::{ChunkConfig, Strategy};
        let key = |k: &str, e: String| format!("`{k}`: {e}");
        let strategy: Strategy = self.strategy.parse().map_err(|e| key("strategy", e))?;
        let cfg = ChunkConfig {
            strategy,
            size: self.chunk_size(),
            overlap: self.overlap,
            stride: self.stride,
            unit: Some(self.unit.parse().map_err(|e| key("unit", e))?),
            tokenizer: match self.unit.as_str() {
                "tokens" => Some(self.tokenizer.clone().unwrap_or_else(|| "cl100k".into())),
                _ => None,
            },
            compat: self.compat.parse().map_err(|e| key("compat", e))?,
            separators: self.separators.clone(),
            regex_separators: self.regex_separators,
            max_level: self.max_level,
            title_prefix: self.title_prefix,
            merge_siblings: self.merge_siblings,
            lang: self.lang.parse().map_err(|e| key("lang", e))?,
            breakpoint: match &self.breakpoint {
                Some(b) => b.parse().map_err(|e| key("breakpoint", e))?,
                None => Default::default(),
            },
            breakpoint_amount: self.breakpoint_amount,
            buffer: self.buffer.unwrap_or(1),
            min_size: self.min_size,
            piece_size: self.piece_size,
            levels: match strategy {
                Strategy::Hierarchical => Some(self.levels_or_default()),
                _ => self.levels.clone(),
            },
            boundaries: match strategy {
                Strategy::Late => Some(
                    self.boundaries_or_default()
                        .parse()
                        .map_err(|e| key("boundaries", e))?,
                ),
                _ => None,
            },
            ..ChunkConfig::default()
        };
        cfg.validate().map_err(|e| match e {
            chunklab_core::Error::Param { param, message } => format!("`{param}` {message}"),
            other => other.to_string(),
        })?;
        Ok(cfg)
    }

    /// Room left for the context: a configuration with a context chunks at `size` minus this,
    /// so that context + chunk stays within `size` (one fifth of the size, at most 64).
    pub fn context_reserve(&self) -> usize {
        if self.context.is_some() {
            (self.size / 5).min(64)
        } else {
            0
        }
    }

    /// The size the chunker runs at: `size` less the context reserve.
    pub fn chunk_size(&self) -> usize {
        self.size - self.context_reserve()
    }

    /// The language model of `context = "llm"`.
    pub fn llm_or_default(&self) -> &str {
        self.llm.as_deref().unwrap_or("local:smollm2")
    }

    pub fn levels_or_default(&self) -> Vec<usize> {
        self.levels
            .clone()
            .unwrap_or_else(|| chunklab_core::strategies::DEFAULT_LEVELS.to_vec())
    }

    pub fn boundaries_or_default(&self) -> &str {
        self.boundaries.as_deref().unwrap_or("headings")
    }

    /// A short human label: `recursive 250/125 cl100k langchain`.
    pub fn label(&self) -> String {
        let mut l = self.strategy.clone();
        if self.strategy == "late" {
            l = format!("late({})", self.boundaries_or_default());
        }
        if self.strategy == "hierarchical" {
            let lv: Vec<String> = self
                .levels_or_default()
                .iter()
                .map(|x| x.to_string())
                .collect();
            l.push_str(&format!(" {}", lv.join("/")));
        } else if self.overlap > 0 {
            l.push_str(&format!(" {}/{}", self.size, self.overlap));
        } else {
            l.push_str(&format!(" {}", self.size));
        }
        if let Some(st) = self.stride {
            l.push_str(&format!(" stride {st}"));
        }
        if self.compat != "native" {
            l.push_str(&format!(" {}", self.compat));
        }
        if self.separators.is_some() {
            l.push_str(" custom-seps");
        }
        if self.merge_siblings {
            l.push_str(" merged");
        }
        if self.title_prefix {
            l.push_str(" +title");
        }
        if let Some(c) = &self.context {
            l.push_str(&format!(" +context {c}"));
        }
        l
    }
}
