//! Sweeps: which configurations a benchmark runs. A configuration is a chunking strategy with
//! its parameters, an embedding model, a retrieval mode and k. Sweeps come from TOML
//! ([`parse_sweep`]) or are built in ([`default_sweep`]).
//!
//! ```toml
//! # Top-level keys are defaults for every [[config]]; any value may be a list, and every
//! # combination of the lists is run.
//! models = ["e5-small"]
//! modes = ["dense", "hybrid"]
//! k = 10
//! unit = "tokens"
//! tokenizer = "cl100k"
//!
//! [[config]]
//! strategy = "recursive"
//! size = [256, 512]
//! overlap = [0, 64]
//!
//! [[config]]
//! strategy = "late"
//! boundaries = "headings"
//! size = 512
//! ```

use serde::Serialize;
use std::collections::BTreeMap;

/// How chunks are retrieved: a retriever of the index, optionally followed by a reranker over
/// its top candidates (`+rerank`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Mode {
    /// Cosine similarity of query and chunk vectors.
    Dense,
    /// BM25 over the chunk texts.
    Bm25,
    /// Reciprocal-rank fusion of dense and BM25.
    Hybrid,
    /// Dense, then the reranker over the top candidates.
    DenseRerank,
    /// BM25, then the reranker.
    Bm25Rerank,
    /// Hybrid, then the reranker.
    HybridRerank,
}

impl Mode {
    /// Every mode, in report order.
    pub const ALL: [Mode; 6] = [
        Mode::Dense,
        Mode::Bm25,
        Mode::Hybrid,
        Mode::DenseRerank,
        Mode::Bm25Rerank,
        Mode::HybridRerank,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Mode::Dense => "dense",
            Mode::Bm25 => "bm25",
            Mode::Hybrid => "hybrid",
            Mode::DenseRerank => "dense+rerank",
            Mode::Bm25Rerank => "bm25+rerank",
            Mode::HybridRerank => "hybrid+rerank",
        }
    }

    pub fn parse(s: &str) -> Result<Mode, String> {
        Mode::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| {
                let names: Vec<&str> = Mode::ALL.iter().map(|m| m.name()).collect();
                format!("unknown mode `{s}` ({})", names.join(", "))
            })
    }

    /// The index's retriever.
    pub fn retriever(self) -> chunklab_index::Mode {
        match self {
            Mode::Dense | Mode::DenseRerank => chunklab_index::Mode::Dense,
            Mode::Bm25 | Mode::Bm25Rerank => chunklab_index::Mode::Bm25,
            Mode::Hybrid | Mode::HybridRerank => chunklab_index::Mode::Hybrid,
        }
    }

    /// Whether a reranker reorders the retrieved candidates.
    pub fn rerank(self) -> bool {
        matches!(
            self,
            Mode::DenseRerank | Mode::Bm25Rerank | Mode::HybridRerank
        )
    }

    /// Whether the mode needs chunk vectors.
    pub fn dense(self) -> bool {
        self.retriever() != chunklab_index::Mode::Bm25
    }

    /// Whether the mode searches BM25.
    pub fn bm25(self) -> bool {
        self.retriever() != chunklab_index::Mode::Dense
    }
}

impl Serialize for Mode {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

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

    fn with_overlap(mut self, overlap: usize) -> Self {
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
        if let Some(c) = &self.context {
            l.push_str(&format!(" +context {c}"));
        }
        l
    }
}

/// One row of a benchmark.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Config {
    /// Shown in tables (defaults to [`ChunkSpec::label`]).
    pub label: String,
    pub chunk: ChunkSpec,
    /// Embedding model (`minilm`, `e5-small`, a directory).
    pub model: String,
    pub mode: Mode,
    /// Chunks retrieved per query.
    pub k: usize,
    /// Reranker of the `+rerank` modes: `maxsim` over the configuration's model (the default)
    /// or a cross-encoder directory.
    pub reranker: Option<String>,
}

/// Which built-in sweep to use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultSweep {
    /// Every strategy family at 512 cl100k tokens, dense and hybrid (the archive and own
    /// corpora).
    General,
    /// The configurations of the Chroma report's all-MiniLM-L6-v2 table that chunklab can
    /// express, plus chunklab's own strategies at the same size; dense.
    Chroma,
}

/// The separators of the Chroma report's `RecursiveTokenChunker` (its default list; the mean
/// chunk sizes it prints for 200/0, 400/0, 400/200 and 800/400 are what chunklab gets with
/// them: 137, 276, 313 and 661 cl100k tokens).
pub const CHROMA_SEPARATORS: [&str; 7] = ["\n\n", "\n", ".", "?", "!", " ", ""];

/// The built-in sweep `which` for `model`, with retrieval depth `k`.
pub fn default_sweep(which: DefaultSweep, model: &str, k: usize) -> Vec<Config> {
    let mut specs: Vec<(ChunkSpec, Vec<Mode>)> = Vec::new();
    let both = vec![Mode::Dense, Mode::Hybrid];
    match which {
        DefaultSweep::General => {
            let mut sliding = ChunkSpec::new("sliding", 1024).with_overlap(256);
            sliding.stride = Some(768);
            sliding.overlap = 0;
            let mut late = ChunkSpec::new("late", 512);
            late.boundaries = Some("headings".into());
            for s in [
                ChunkSpec::new("fixed", 512),
                ChunkSpec::new("fixed", 512).with_overlap(64),
                sliding,
                ChunkSpec::new("sentence", 512),
                ChunkSpec::new("paragraph", 512),
                ChunkSpec::new("recursive", 512),
                ChunkSpec::new("headings", 512),
                ChunkSpec::new("semantic", 512),
                late,
                ChunkSpec::new("hierarchical", 512),
            ] {
                specs.push((s, both.clone()));
            }
        }
        DefaultSweep::Chroma => {
            let seps: Vec<String> = CHROMA_SEPARATORS.iter().map(|s| s.to_string()).collect();
            for (size, overlap) in [(250, 125), (250, 0), (200, 0)] {
                let mut r = ChunkSpec::new("recursive", size).with_overlap(overlap);
                r.compat = "langchain".into();
                r.separators = Some(seps.clone());
                specs.push((r, vec![Mode::Dense]));
            }
            for (size, overlap) in [(250, 125), (250, 0), (200, 0)] {
                let mut f = ChunkSpec::new("fixed", size).with_overlap(overlap);
                f.compat = "langchain".into();
                specs.push((f, vec![Mode::Dense]));
            }
            let mut late = ChunkSpec::new("late", 250);
            late.boundaries = Some("recursive".into());
            for s in [
                ChunkSpec::new("recursive", 250),
                ChunkSpec::new("sentence", 250),
                ChunkSpec::new("cluster", 250),
                late,
            ] {
                specs.push((s, vec![Mode::Dense]));
            }
        }
    }
    let mut out = Vec::new();
    for (spec, modes) in specs {
        // The report's rows keep the report's names.
        let label = match (spec.compat.as_str(), spec.strategy.as_str()) {
            ("langchain", "recursive") => format!("Recursive {}/{}", spec.size, spec.overlap),
            ("langchain", "fixed") => format!("TokenText {}/{}", spec.size, spec.overlap),
            _ => spec.label(),
        };
        for mode in modes {
            out.push(Config {
                label: label.clone(),
                chunk: spec.clone(),
                model: model.into(),
                mode,
                k,
                reranker: None,
            });
        }
    }
    out
}

/// The contextual-retrieval sweep: `headings` at `size` cl100k tokens without a context, at the
/// smaller size the context configurations chunk at (the same chunks, without a context: the
/// control that separates the context's effect from the smaller chunks'), with the `header`
/// context and with an `llm` context written by `llm`, each in `modes`.
pub fn contextual_sweep(
    size: usize,
    modes: &[Mode],
    model: &str,
    k: usize,
    llm: &str,
) -> Vec<Config> {
    let mut out = Vec::new();
    let mut with_context = ChunkSpec::new("headings", size);
    with_context.context = Some("header".into());
    let control = with_context.chunk_size();
    for (size, context) in [
        (size, None),
        (control, None),
        (size, Some("header")),
        (size, Some("llm")),
    ] {
        let mut spec = ChunkSpec::new("headings", size);
        spec.context = context.map(String::from);
        if context == Some("llm") {
            spec.llm = Some(llm.to_string());
        }
        for &mode in modes {
            out.push(Config {
                label: spec.label(),
                chunk: spec.clone(),
                model: model.into(),
                mode,
                k,
                reranker: None,
            });
        }
    }
    out
}

/// Keys a `[[config]]` (or the top level, as a default) may set.
const CHUNK_KEYS: &[&str] = &[
    "strategy",
    "size",
    "overlap",
    "stride",
    "unit",
    "tokenizer",
    "compat",
    "separators",
    "regex_separators",
    "max_level",
    "title_prefix",
    "lang",
    "breakpoint",
    "breakpoint_amount",
    "buffer",
    "min_size",
    "piece_size",
    "levels",
    "boundaries",
    "context",
    "llm",
];
const RUN_KEYS: &[&str] = &["label", "model", "models", "mode", "modes", "k", "reranker"];
/// Keys whose single value is itself a list: a list of lists is the sweep over them.
const LIST_VALUED: &[&str] = &["separators", "levels"];

/// What the command line sets when the sweep file does not.
#[derive(Debug, Clone)]
pub struct SweepDefaults {
    pub model: String,
    pub k: usize,
}

/// Parse a sweep TOML file into configurations. Problems come back as `(line, message)`.
pub fn parse_sweep(
    text: &str,
    defaults: &SweepDefaults,
) -> Result<Vec<Config>, Vec<(usize, String)>> {
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(0, |s| {
            text[..s.start.min(text.len())].lines().count().max(1)
        });
        vec![(line, format!("malformed TOML: {}", e.message()))]
    })?;
    let header_lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == "[[config]]")
        .map(|(i, _)| i + 1)
        .collect();
    let key_line = |key: &str, from: usize| -> usize {
        text.lines()
            .enumerate()
            .skip(from.saturating_sub(1))
            .find(|(_, l)| {
                let t = l.trim_start();
                t.strip_prefix(key)
                    .is_some_and(|r| r.trim_start().starts_with('='))
            })
            .map_or(from, |(i, _)| i + 1)
    };
    let mut problems = Vec::new();
    let mut top = BTreeMap::new();
    let mut configs: Vec<(usize, toml::Table)> = Vec::new();
    for (k, v) in table {
        if k == "config" {
            match v {
                toml::Value::Array(items) => {
                    for (i, item) in items.into_iter().enumerate() {
                        let line = header_lines.get(i).copied().unwrap_or(0);
                        match item {
                            toml::Value::Table(t) => configs.push((line, t)),
                            _ => problems.push((line, "`config` must be [[config]] tables".into())),
                        }
                    }
                }
                _ => problems.push((
                    key_line("config", 1),
                    "`config` must be [[config]] tables".into(),
                )),
            }
        } else if CHUNK_KEYS.contains(&k.as_str()) || RUN_KEYS.contains(&k.as_str()) {
            top.insert(k, v);
        } else {
            problems.push((key_line(&k, 1), unknown_key(&k)));
        }
    }
    if configs.is_empty() && problems.is_empty() {
        problems.push((0, "no [[config]] tables: nothing to run".into()));
    }
    let mut out = Vec::new();
    for (line, t) in configs {
        let mut merged = top.clone();
        for (k, v) in t {
            if CHUNK_KEYS.contains(&k.as_str()) || RUN_KEYS.contains(&k.as_str()) {
                merged.insert(k, v);
            } else {
                problems.push((key_line(&k, line), unknown_key(&k)));
            }
        }
        if !merged.contains_key("strategy") {
            problems.push((line, "[[config]] without `strategy`".into()));
            continue;
        }
        for combo in expand(&merged) {
            match config_from(&combo, defaults).and_then(|c| {
                match c.first().map(|x| x.chunk.config()) {
                    Some(Err(e)) => {
                        let k = e
                            .strip_prefix('`')
                            .and_then(|r| r.split('`').next())
                            .map(String::from);
                        Err((k, e))
                    }
                    _ => Ok(c),
                }
            }) {
                Ok(mut c) => out.append(&mut c),
                Err((key, msg)) => {
                    let l = key.map_or(line, |k| key_line(&k, line));
                    problems.push((l, msg));
                }
            }
        }
    }
    problems.sort_by_key(|p| p.0);
    problems.dedup();
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn unknown_key(k: &str) -> String {
    format!(
        "unknown key `{k}` (known: {}, {})",
        CHUNK_KEYS.join(", "),
        RUN_KEYS.join(", ")
    )
}

/// Every combination of the list-valued keys (model/models and mode/modes are expanded later).
fn expand(m: &BTreeMap<String, toml::Value>) -> Vec<BTreeMap<String, toml::Value>> {
    let mut out = vec![BTreeMap::new()];
    for (k, v) in m {
        let alternatives: Vec<toml::Value> = match v {
            toml::Value::Array(a)
                if !matches!(k.as_str(), "models" | "modes")
                    && (!LIST_VALUED.contains(&k.as_str())
                        || a.iter().all(|x| matches!(x, toml::Value::Array(_)))) =>
            {
                a.clone()
            }
            other => vec![other.clone()],
        };
        let mut next = Vec::with_capacity(out.len() * alternatives.len());
        for combo in &out {
            for alt in &alternatives {
                let mut c = combo.clone();
                c.insert(k.clone(), alt.clone());
                next.push(c);
            }
        }
        out = next;
    }
    out
}

type KeyErr = (Option<String>, String);

fn config_from(
    m: &BTreeMap<String, toml::Value>,
    d: &SweepDefaults,
) -> Result<Vec<Config>, KeyErr> {
    let err = |k: &str, msg: String| (Some(k.to_string()), msg);
    let string = |k: &str| -> Result<Option<String>, KeyErr> {
        match m.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(err(k, format!("`{k}` must be a string, got {v}"))),
        }
    };
    let uint = |k: &str| -> Result<Option<usize>, KeyErr> {
        match m.get(k) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) if *i >= 0 => Ok(Some(*i as usize)),
            Some(v) => Err(err(
                k,
                format!("`{k}` must be a non-negative integer, got {v}"),
            )),
        }
    };
    let boolean = |k: &str| -> Result<Option<bool>, KeyErr> {
        match m.get(k) {
            None => Ok(None),
            Some(toml::Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(err(k, format!("`{k}` must be true or false, got {v}"))),
        }
    };
    let strategy = string("strategy")?.unwrap_or_default();
    let mut s = ChunkSpec::new(&strategy, uint("size")?.unwrap_or(512));
    if let Some(u) = string("unit")? {
        if u != "tokens" {
            s.tokenizer = None;
        }
        s.unit = u;
    }
    if let Some(t) = string("tokenizer")? {
        s.unit = "tokens".into();
        s.tokenizer = Some(t);
    }
    s.overlap = uint("overlap")?.unwrap_or(0);
    s.stride = uint("stride")?;
    if let Some(c) = string("compat")? {
        s.compat = c;
    }
    if let Some(v) = m.get("separators") {
        let seps = v
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|x| x.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| {
                err(
                    "separators",
                    "`separators` must be a list of strings".into(),
                )
            })?;
        s.separators = Some(seps);
    }
    s.regex_separators = boolean("regex_separators")?.unwrap_or(false);
    s.max_level = uint("max_level")?.unwrap_or(6);
    s.title_prefix = boolean("title_prefix")?.unwrap_or(false);
    if let Some(l) = string("lang")? {
        s.lang = l;
    }
    s.breakpoint = string("breakpoint")?;
    s.breakpoint_amount = match m.get("breakpoint_amount") {
        None => None,
        Some(toml::Value::Float(f)) => Some(*f),
        Some(toml::Value::Integer(i)) => Some(*i as f64),
        Some(v) => {
            return Err(err(
                "breakpoint_amount",
                format!("`breakpoint_amount` must be a number, got {v}"),
            ))
        }
    };
    s.buffer = uint("buffer")?;
    s.min_size = uint("min_size")?;
    s.piece_size = uint("piece_size")?;
    if let Some(v) = m.get("levels") {
        let lv = v
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|x| x.as_integer().filter(|i| *i > 0).map(|i| i as usize))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| {
                err(
                    "levels",
                    "`levels` must be a list of positive integers".into(),
                )
            })?;
        s.levels = Some(lv);
    }
    s.boundaries = string("boundaries")?;
    s.context = string("context")?;
    if let Some(c) = &s.context {
        if c != "header" && c != "llm" {
            return Err(err(
                "context",
                format!("unknown context `{c}` (header, llm)"),
            ));
        }
    }
    s.llm = string("llm")?;
    let reranker = string("reranker")?;
    let k = uint("k")?.unwrap_or(d.k);
    if k == 0 {
        return Err(err("k", "`k` must be at least 1".into()));
    }
    let models = strings(m, "model", "models")?.unwrap_or_else(|| vec![d.model.clone()]);
    let modes = match strings(m, "mode", "modes")? {
        None => vec![Mode::Dense],
        Some(v) => v
            .iter()
            .map(|x| Mode::parse(x))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                (
                    Some(
                        if m.contains_key("modes") {
                            "modes"
                        } else {
                            "mode"
                        }
                        .into(),
                    ),
                    e,
                )
            })?,
    };
    let label = string("label")?;
    let mut out = Vec::new();
    for model in &models {
        for &mode in &modes {
            out.push(Config {
                label: label.clone().unwrap_or_else(|| s.label()),
                chunk: s.clone(),
                model: model.clone(),
                mode,
                k,
                reranker: reranker.clone(),
            });
        }
    }
    Ok(out)
}

fn strings(
    m: &BTreeMap<String, toml::Value>,
    one: &str,
    many: &str,
) -> Result<Option<Vec<String>>, KeyErr> {
    let bad = |k: &str| {
        (
            Some(k.to_string()),
            format!("`{k}` must be a string or a list of strings"),
        )
    };
    for k in [one, many] {
        match m.get(k) {
            None => {}
            Some(toml::Value::String(s)) => return Ok(Some(vec![s.clone()])),
            Some(toml::Value::Array(a)) => {
                return a
                    .iter()
                    .map(|x| x.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
                    .map(Some)
                    .ok_or_else(|| bad(k))
            }
            Some(_) => return Err(bad(k)),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d() -> SweepDefaults {
        SweepDefaults {
            model: "minilm".into(),
            k: 5,
        }
    }

    #[test]
    fn lists_expand_to_every_combination() {
        let text = r#"
modes = ["dense", "hybrid"]
tokenizer = "cl100k"

[[config]]
strategy = "recursive"
size = [256, 512]
overlap = [0, 64]

[[config]]
strategy = "hierarchical"
levels = [[1024, 256], [512, 128]]
k = 10
"#;
        let c = parse_sweep(text, &d()).unwrap();
        assert_eq!(c.len(), 2 * 2 * 2 + 2 * 2);
        assert_eq!(c[0].label, "recursive 256");
        assert_eq!(c[0].mode, Mode::Dense);
        assert_eq!(c[1].mode, Mode::Hybrid);
        assert_eq!(c[0].model, "minilm");
        assert_eq!(c[2].chunk.size, 512);
        assert_eq!(c[4].chunk.overlap, 64);
        assert_eq!(c[8].chunk.levels, Some(vec![1024, 256]));
        assert_eq!(c[8].k, 10);
        assert_eq!(c[0].k, 5);
    }

    #[test]
    fn problems_carry_line_numbers() {
        let text = "k = 5\n\n[[config]]\nstrategy = \"fixed\"\nsise = 3\n\n[[config]]\nstrategy = \"fixed\"\nmode = \"sparse\"\n";
        let p = parse_sweep(text, &d()).unwrap_err();
        assert_eq!(p.len(), 2, "{p:?}");
        assert_eq!(p[0].0, 5);
        assert!(p[0].1.contains("unknown key `sise`"));
        assert_eq!(p[1].0, 9);
        assert!(p[1].1.contains("unknown mode `sparse`"));
    }

    #[test]
    fn malformed_toml_names_its_line() {
        let p = parse_sweep("k = 5\n[[config]\nstrategy = 1\n", &d()).unwrap_err();
        assert_eq!(p[0].0, 2, "{p:?}");
        let p = parse_sweep("k = 5\n", &d()).unwrap_err();
        assert!(p[0].1.contains("no [[config]]"));
    }

    #[test]
    fn default_sweeps_cover_the_issue() {
        let g = default_sweep(DefaultSweep::General, "e5-small", 10);
        assert_eq!(g.len(), 20);
        let strategies: Vec<&str> = g.iter().map(|c| c.chunk.strategy.as_str()).collect();
        for s in [
            "fixed",
            "sliding",
            "sentence",
            "paragraph",
            "recursive",
            "headings",
            "semantic",
            "late",
            "hierarchical",
        ] {
            assert!(strategies.contains(&s), "{s}");
        }
        let c = default_sweep(DefaultSweep::Chroma, "minilm", 5);
        assert_eq!(c[0].label, "Recursive 250/125");
        assert_eq!(c[4].label, "TokenText 250/0");
        assert_eq!(c[0].chunk.separators.as_ref().unwrap().len(), 7);
        assert!(c.iter().all(|x| x.k == 5 && x.mode == Mode::Dense));
    }

    #[test]
    fn contextual_sweep_has_a_same_chunks_control() {
        let c = contextual_sweep(250, &[Mode::Dense], "minilm", 5, "local:smollm2");
        let labels: Vec<&str> = c.iter().map(|x| x.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "headings 250",
                "headings 200",
                "headings 250 +context header",
                "headings 250 +context llm"
            ]
        );
        // The context rows chunk at the control's size.
        assert_eq!(c[2].chunk.chunk_size(), c[1].chunk.size);
        assert_eq!(c[3].chunk.llm_or_default(), "local:smollm2");
        assert_eq!(c[2].chunk.params()["context_reserve"], 50);
        let p = parse_sweep(
            "[[config]]\nstrategy = \"headings\"\ncontext = \"summary\"\n",
            &SweepDefaults {
                model: "minilm".into(),
                k: 5,
            },
        )
        .unwrap_err();
        assert!(p[0].1.contains("unknown context `summary`"), "{p:?}");
    }
}
