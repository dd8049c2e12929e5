//! A bench run as one request: which dataset, which sweep, which filters — the `chunklab bench`
//! flags as a serde [`BenchRequest`] — and [`run()`], which loads the dataset, selects the
//! configurations and runs them. The CLI, the server's bench jobs and the Python package call
//! this; the report renderers in [`crate::report`] turn the result into tables and files.
//!
//! ```no_run
//! use chunklab_eval::bench::{self, BenchRequest};
//! use chunklab_eval::progress::NoProgress;
//! let req: BenchRequest = serde_json::from_str(r#"{"dataset": "archive", "docs": 200}"#).unwrap();
//! let result = bench::run(&req, &NoProgress).unwrap();
//! println!("{}", chunklab_eval::report::json::render(&result));
//! ```

use crate::archive::{self, ArchiveOptions};
use crate::dataset::Dataset;
use crate::progress::Progress;
use crate::result::BenchResult;
use crate::run::{self, RunOptions};
use crate::sweep::{self, Config, DefaultSweep, Mode, SweepDefaults};
use crate::{Error, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What to bench; the keys are the `chunklab bench` flags with `_`, the defaults theirs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BenchRequest {
    /// Corpus directory (every text file a document, and every PDF, DOCX, ODT and image file,
    /// read through the pipeline's parsers with `ocr`); needs `queries`.
    pub corpus: Option<PathBuf>,
    /// Queries JSONL with relevant documents and spans.
    pub queries: Option<PathBuf>,
    /// Built-in dataset: `archive` (the default) or `chroma`.
    pub dataset: Option<String>,
    /// Where the `chroma` dataset lives (default: located like the test data).
    pub data_dir: Option<PathBuf>,
    /// Documents of the generated archive.
    pub docs: usize,
    /// Seed of the generated archive.
    pub seed: u64,
    /// Sweep file (TOML).
    pub config: Option<PathBuf>,
    /// Sweep text (TOML) given inline instead of `config` (a server request, a Python string).
    pub config_text: Option<String>,
    /// Embedding model (default: minilm for chroma, e5-small otherwise).
    pub model: Option<String>,
    /// Chunks retrieved per query (default 5: the Chroma report's, and small against the
    /// archive's hundreds of documents).
    pub k: Option<usize>,
    /// Built-in sweep: `default` or `contextual`.
    pub sweep: String,
    /// Language model of `context = "llm"` configurations.
    pub llm: Option<String>,
    /// Keep only these documents and the queries labelled inside them.
    pub only_docs: Vec<String>,
    /// Keep only these retrieval modes (`dense`, `hybrid+rerank` …).
    pub modes: Vec<String>,
    /// Keep only configurations of these strategies.
    pub strategies: Vec<String>,
    /// Embedding cache directory (default: $CHUNKLAB_HOME/cache/embeddings).
    pub cache_dir: Option<PathBuf>,
    /// Do not read or write the on-disk embedding cache.
    pub no_cache: bool,
    /// Fetch missing models first.
    pub fetch: bool,
    /// Where each configuration's index is built and deleted again.
    pub scratch_dir: Option<PathBuf>,
    /// Build each configuration's collection in PostgreSQL instead: a `postgres://` URL of a
    /// server (with pgvector) whose user may create databases; each configuration gets a
    /// database of its own, dropped after it.
    pub store: Option<String>,
    /// OCR of scanned PDF pages and image files in `corpus`: the `ocr` of the pipeline's
    /// reading configuration (mode `auto`/`always`/`never`, lang, min_confidence, timeout_s,
    /// preprocess, dpi, jobs), as `chunklab chunk --ocr …` reads them.
    pub ocr: chunklab_pipeline::OcrOptions,
    /// The metric to rank by and the one `hybrid-cv` chooses its weights by (default: `recall`
    /// where the dataset has spans, else `doc_recall`).
    pub metric: Option<String>,
}

impl Default for BenchRequest {
    fn default() -> BenchRequest {
        BenchRequest {
            corpus: None,
            queries: None,
            dataset: None,
            data_dir: None,
            docs: archive::DEFAULT_DOCS,
            seed: archive::DEFAULT_SEED,
            config: None,
            config_text: None,
            model: None,
            k: None,
            sweep: "default".into(),
            llm: None,
            only_docs: Vec::new(),
            modes: Vec::new(),
            strategies: Vec::new(),
            cache_dir: None,
            no_cache: false,
            fetch: false,
            scratch_dir: None,
            store: None,
            ocr: chunklab_pipeline::OcrOptions::default(),
            metric: None,
        }
    }
}

fn config_err(msg: impl Into<String>) -> Error {
    Error::Config(msg.into())
}

impl BenchRequest {
    /// The dataset the request names (restricted by `only_docs`) and which default sweep fits it;
    /// what was loaded is told through `progress.note`.
    pub fn dataset(&self, progress: &dyn Progress) -> Result<(Dataset, DefaultSweep)> {
        if let Some(store) = &self.store {
            if !chunklab_postgres::is_postgres_url(store) {
                return Err(config_err(format!(
                    "store `{}` is not a postgres:// URL (without store, each configuration is an embedded index in scratch_dir)",
                    chunklab_postgres::conn::hide_password(store)
                )));
            }
            if self.scratch_dir.is_some() {
                return Err(config_err(
                    "give store (PostgreSQL) or scratch_dir (embedded indexes), not both",
                ));
            }
        }
        let (mut ds, which) = match (&self.corpus, &self.queries, self.dataset.as_deref()) {
            (Some(_), _, Some(_)) => {
                return Err(config_err(
                    "give either corpus/queries or dataset, not both",
                ))
            }
            (Some(c), Some(q), None) => {
                let (ds, corpus) = crate::io::load_dataset_with(c, q, &self.ocr)?;
                let spans = ds
                    .queries
                    .iter()
                    .filter(|q| !q.relevant_spans.is_empty())
                    .count();
                progress.note(&format!(
                    "{}: {} documents ({} files skipped), {} queries ({} with spans)",
                    c.display(),
                    ds.docs.len(),
                    corpus.skipped.len(),
                    ds.queries.len(),
                    spans
                ));
                if !ds.parsed.is_empty() {
                    let ocr = ds
                        .parsed
                        .values()
                        .filter(|p| p.metadata.contains_key("ocr_pages"))
                        .count();
                    progress.note(&format!(
                        "  {} documents parsed from PDF, DOCX, ODT or images ({} with OCR'd pages, --ocr {})",
                        ds.parsed.len(),
                        ocr,
                        self.ocr.mode
                    ));
                }
                for (p, why) in &corpus.skipped {
                    progress.note(&format!("  skipped {}: {why}", p.display()));
                }
                for (p, warning) in &corpus.warnings {
                    progress.note(&format!("  warning: {}: {warning}", p.display()));
                }
                (ds, DefaultSweep::General)
            }
            (Some(_), None, None) => {
                return Err(config_err(
                    "corpus needs queries (a JSONL file of labelled questions)",
                ))
            }
            (None, Some(_), _) => return Err(config_err("queries needs corpus")),
            (None, None, None) | (None, None, Some("archive")) => {
                if self.docs == 0 || self.docs > archive::REFERENCE_DOCS {
                    return Err(config_err(format!(
                        "docs must be between 1 and {}",
                        archive::REFERENCE_DOCS
                    )));
                }
                let ds = archive::generate(&ArchiveOptions {
                    docs: self.docs,
                    seed: self.seed,
                });
                progress.note(&format!(
                    "archive: {} generated documents (seed {}), {} queries",
                    ds.docs.len(),
                    self.seed,
                    ds.queries.len()
                ));
                (ds, DefaultSweep::General)
            }
            (None, None, Some("chroma")) => {
                let dir = match &self.data_dir {
                    Some(dir) => dir.clone(),
                    None => crate::shared_data::locate("datasets/chroma")
                        .map_err(|e| Error::Dataset(e.to_string()))?,
                };
                let ds = crate::chroma::load(&dir)?;
                progress.note(&format!(
                    "chroma ({}): {} corpora, {} questions",
                    dir.display(),
                    ds.docs.len(),
                    ds.queries.len()
                ));
                (ds, DefaultSweep::Chroma)
            }
            (None, None, Some(other)) => {
                return Err(config_err(format!(
                    "unknown dataset `{other}` (archive, chroma)"
                )))
            }
        };
        if !self.only_docs.is_empty() {
            ds = ds.restrict(&self.only_docs).map_err(Error::Dataset)?;
            progress.note(&format!(
                "kept {} documents and the {} queries labelled inside them",
                ds.docs.len(),
                ds.queries.len()
            ));
            if ds.queries.is_empty() {
                return Err(config_err("only_docs leaves no query to ask"));
            }
        }
        Ok((ds, which))
    }

    /// The configurations to run: the sweep file or text, else the built-in sweep, narrowed by
    /// `modes` and `strategies`.
    pub fn configs(&self, which: DefaultSweep) -> Result<Vec<Config>> {
        let chroma = which == DefaultSweep::Chroma;
        let model = self
            .model
            .clone()
            .unwrap_or_else(|| if chroma { "minilm" } else { "e5-small" }.into());
        let k = self.k.unwrap_or(5);
        if k == 0 {
            return Err(config_err("k must be at least 1"));
        }
        if let Some(m) = &self.metric {
            crate::scoring::check_metric(m).map_err(config_err)?;
        }
        let from_text = |path: PathBuf, text: &str| {
            let defaults = SweepDefaults {
                model: model.clone(),
                k,
            };
            sweep::parse_sweep(text, &defaults)
                .map_err(|problems| Error::Invalid { path, problems })
        };
        let mut configs = match (&self.config, &self.config_text) {
            (Some(_), Some(_)) => return Err(config_err("give config or config_text, not both")),
            (Some(path), None) => {
                let text = std::fs::read_to_string(path).map_err(|source| Error::Io {
                    path: path.clone(),
                    source,
                })?;
                from_text(path.clone(), &text)?
            }
            (None, Some(text)) => from_text(PathBuf::from("<config_text>"), text)?,
            (None, None) => match self.sweep.as_str() {
                "contextual" => {
                    let llm = self.llm.as_deref().unwrap_or("local:smollm2");
                    if chroma {
                        sweep::contextual_sweep(250, &[Mode::Dense], &model, k, llm)
                    } else {
                        sweep::contextual_sweep(512, &[Mode::Dense, Mode::Hybrid], &model, k, llm)
                    }
                }
                "default" => sweep::default_sweep(which, &model, k),
                other => {
                    return Err(config_err(format!(
                        "unknown sweep `{other}` (default, contextual)"
                    )))
                }
            },
        };
        if let Some(llm) = &self.llm {
            for c in &mut configs {
                if c.chunk.context.as_deref() == Some("llm") {
                    c.chunk.llm = Some(llm.clone());
                }
            }
        }
        // What the sweep has, to say so when the filters keep nothing.
        let mut had_modes: Vec<&str> = configs.iter().map(|c| c.mode.name()).collect();
        let mut had_strategies: Vec<String> =
            configs.iter().map(|c| c.chunk.strategy.clone()).collect();
        had_strategies.sort();
        had_strategies.dedup();
        had_modes.sort();
        had_modes.dedup();
        let swept = configs.len();
        if !self.modes.is_empty() {
            let modes: Vec<Mode> = self
                .modes
                .iter()
                .map(|m| Mode::parse(m).map_err(config_err))
                .collect::<Result<_>>()?;
            configs.retain(|c| modes.contains(&c.mode));
        }
        if !self.strategies.is_empty() {
            configs.retain(|c| self.strategies.contains(&c.chunk.strategy));
        }
        if configs.is_empty() {
            let mut kept = Vec::new();
            if !self.modes.is_empty() {
                kept.push(format!("modes {}", self.modes.join(", ")));
            }
            if !self.strategies.is_empty() {
                kept.push(format!("strategies {}", self.strategies.join(", ")));
            }
            return Err(config_err(format!(
                "no configuration left to run: the sweep's {swept} configuration{} {} modes {} \
                 and strategies {}, and the filter keeps only {}",
                if swept == 1 { "" } else { "s" },
                if swept == 1 { "has" } else { "have" },
                had_modes.join(", "),
                had_strategies.join(", "),
                kept.join(" and ")
            )));
        }
        Ok(configs)
    }

    /// How the run stores embeddings and scratch indexes.
    pub fn run_options(&self) -> RunOptions {
        let cache_dir = (!self.no_cache).then(|| {
            self.cache_dir.clone().unwrap_or_else(|| {
                chunklab_embed::fetch::home_dir()
                    .join("cache")
                    .join("embeddings")
            })
        });
        RunOptions {
            cache_dir,
            load: chunklab_embed::LoadOptions {
                fetch: self.fetch,
                home: None,
                ..Default::default()
            },
            scratch_dir: self.scratch_dir.clone(),
            store: self.store.clone(),
            metric: self.metric.clone(),
        }
    }
}

/// Load the dataset, select the configurations and run them all.
pub fn run(req: &BenchRequest, progress: &dyn Progress) -> Result<BenchResult> {
    let (ds, which) = req.dataset(progress)?;
    let configs = req.configs(which)?;
    progress.note(&format!("{} configurations", configs.len()));
    run::run(ds, &configs, &req.run_options(), progress)
}
