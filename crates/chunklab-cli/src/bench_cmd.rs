//! `chunklab bench`: which chunking strategy wins on a corpus and its questions, by how much and
//! at what cost, in one table (plus JSON, CSV, Markdown and an HTML report).

use anyhow::{bail, Context, Result};
use chunklab_eval::archive::{self, ArchiveOptions};
use chunklab_eval::dataset::Dataset;
use chunklab_eval::report;
use chunklab_eval::run::{self, Progress, RunOptions};
use chunklab_eval::sweep::{self, Config, DefaultSweep, Mode, SweepDefaults};
use clap::Args;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Corpus directory (every text file a document; ids are relative paths). Needs --queries.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Queries JSONL: {"id","query","relevant_docs":[ids],"relevant_spans":[{"doc_id","start_char","end_char"}]}.
    #[arg(long)]
    pub queries: Option<PathBuf>,
    /// Built-in dataset: `archive` (generated Dutch municipal archive, the default) or `chroma`
    /// (Chroma's chunking-evaluation set, from --data-dir).
    #[arg(long)]
    pub dataset: Option<String>,
    /// Where the `chroma` dataset lives (default: `datasets/chroma` under $CHUNKLAB_SHARED if
    /// set, else under the repository's data/, else under ../shared beside the repository).
    #[arg(long)]
    pub data_dir: Option<PathBuf>,
    /// Documents of the generated archive (up to 92184).
    #[arg(long, default_value_t = archive::DEFAULT_DOCS)]
    pub docs: usize,
    /// Seed of the generated archive.
    #[arg(long, default_value_t = archive::DEFAULT_SEED)]
    pub seed: u64,
    /// Sweep file (TOML): strategies × parameters × models × modes × k. Default: the built-in
    /// sweep for the dataset.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// Embedding model (default: minilm for chroma, e5-small otherwise); a sweep file may set its own.
    #[arg(long, short = 'm')]
    pub model: Option<String>,
    /// Chunks retrieved per query (default: 5 for chroma, as the report; 10 otherwise).
    #[arg(long, short = 'k')]
    pub k: Option<usize>,
    /// Built-in sweep: `default` (every strategy family; for chroma the report's rows plus ours)
    /// or `contextual` (headings without a context, at the smaller size the context rows chunk at,
    /// with the `header` context and with an `llm` context from --llm; at 250 tokens, dense, on
    /// chroma; at 512, dense and hybrid, otherwise).
    #[arg(long, default_value = "default", value_parser = ["default", "contextual"])]
    pub sweep: String,
    /// Language model of `context = "llm"` configurations (default local:smollm2).
    #[arg(long)]
    pub llm: Option<String>,
    /// Keep only these documents (ids; for chroma the corpora: chatlogs, finance, pubmed,
    /// state_of_the_union, wikitexts) and the queries labelled inside them.
    #[arg(long, value_delimiter = ',')]
    pub only_docs: Vec<String>,
    /// Keep only these retrieval modes (comma separated: dense, bm25, hybrid, dense+rerank,
    /// bm25+rerank, hybrid+rerank).
    #[arg(long, value_delimiter = ',')]
    pub modes: Vec<String>,
    /// Keep only configurations of these strategies (comma separated).
    #[arg(long, value_delimiter = ',')]
    pub strategies: Vec<String>,
    /// Metric to rank by (default: recall where the dataset has spans, else doc_recall).
    #[arg(long)]
    pub metric: Option<String>,
    /// Write the results as JSON.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Write the results as CSV.
    #[arg(long)]
    pub csv: Option<PathBuf>,
    /// Write the table as Markdown.
    #[arg(long)]
    pub markdown: Option<PathBuf>,
    /// Write a self-contained HTML report (inline SVG charts).
    #[arg(long)]
    pub report: Option<PathBuf>,
    /// Embedding cache directory (default: $CHUNKLAB_HOME/cache/embeddings).
    #[arg(long)]
    pub cache_dir: Option<PathBuf>,
    /// Do not read or write the on-disk embedding cache.
    #[arg(long)]
    pub no_cache: bool,
    /// Fetch missing models first.
    #[arg(long)]
    pub fetch: bool,
    /// Where each configuration's index is built and deleted again (default: the system's
    /// temporary directory).
    #[arg(long)]
    pub scratch_dir: Option<PathBuf>,
    /// No progress output.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

/// Progress on stderr: bars on a terminal, one line per finished stage otherwise.
struct CliProgress {
    quiet: bool,
    tty: bool,
    state: Mutex<Option<(indicatif::ProgressBar, String, Instant)>>,
}

impl Progress for CliProgress {
    fn start(&self, what: &str, total: u64) {
        if self.quiet {
            return;
        }
        let pb = if self.tty {
            let pb = indicatif::ProgressBar::new(total);
            pb.set_style(
                indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg} [{elapsed}]")
                    .expect("valid template"),
            );
            pb.set_message(what.to_string());
            pb
        } else {
            indicatif::ProgressBar::hidden()
        };
        *self.state.lock().unwrap() = Some((pb, what.to_string(), Instant::now()));
    }

    fn set(&self, done: u64) {
        if let Some((pb, _, _)) = &*self.state.lock().unwrap() {
            pb.set_position(done);
        }
    }

    fn finish(&self) {
        if let Some((pb, what, t)) = self.state.lock().unwrap().take() {
            pb.finish_and_clear();
            if !self.quiet {
                eprintln!("{what}: {:.1} s", t.elapsed().as_secs_f64());
            }
        }
    }

    fn note(&self, msg: &str) {
        if !self.quiet {
            eprintln!("{msg}");
        }
    }
}

/// The dataset the flags name, and which default sweep fits it.
fn load_dataset(a: &BenchArgs) -> Result<(Dataset, DefaultSweep)> {
    match (&a.corpus, &a.queries, a.dataset.as_deref()) {
        (Some(_), _, Some(_)) => bail!("give either --corpus/--queries or --dataset, not both"),
        (Some(c), Some(q), None) => {
            let (ds, corpus) = chunklab_eval::io::load_dataset(c, q)?;
            let labelled_spans = ds
                .queries
                .iter()
                .filter(|q| !q.relevant_spans.is_empty())
                .count();
            eprintln!(
                "{}: {} documents ({} files skipped), {} queries ({} with spans)",
                c.display(),
                ds.docs.len(),
                corpus.skipped.len(),
                ds.queries.len(),
                labelled_spans
            );
            for (p, why) in &corpus.skipped {
                eprintln!("  skipped {}: {why}", p.display());
            }
            Ok((ds, DefaultSweep::General))
        }
        (Some(_), None, None) => {
            bail!("--corpus needs --queries (a JSONL file of labelled questions)")
        }
        (None, Some(_), _) => bail!("--queries needs --corpus"),
        (None, None, None) | (None, None, Some("archive")) => {
            if a.docs == 0 || a.docs > archive::REFERENCE_DOCS {
                bail!("--docs must be between 1 and {}", archive::REFERENCE_DOCS);
            }
            let ds = archive::generate(&ArchiveOptions {
                docs: a.docs,
                seed: a.seed,
            });
            eprintln!(
                "archive: {} generated documents (seed {}), {} queries",
                ds.docs.len(),
                a.seed,
                ds.queries.len()
            );
            Ok((ds, DefaultSweep::General))
        }
        (None, None, Some("chroma")) => {
            let dir = match &a.data_dir {
                Some(dir) => dir.clone(),
                None => chunklab_eval::shared_data::locate("datasets/chroma")?,
            };
            let ds = chunklab_eval::chroma::load(&dir)?;
            eprintln!(
                "chroma ({}): {} corpora, {} questions",
                dir.display(),
                ds.docs.len(),
                ds.queries.len()
            );
            Ok((ds, DefaultSweep::Chroma))
        }
        (None, None, Some(other)) => bail!("unknown --dataset `{other}` (archive, chroma)"),
    }
}

fn configs(a: &BenchArgs, which: DefaultSweep) -> Result<Vec<Config>> {
    let chroma = which == DefaultSweep::Chroma;
    let model = a
        .model
        .clone()
        .unwrap_or_else(|| if chroma { "minilm" } else { "e5-small" }.into());
    let k = a.k.unwrap_or(if chroma { 5 } else { 10 });
    if k == 0 {
        bail!("--k must be at least 1");
    }
    let mut configs = match &a.config {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("reading {}", path.display()))?;
            let defaults = SweepDefaults { model, k };
            sweep::parse_sweep(&text, &defaults).map_err(|problems| {
                chunklab_eval::Error::Invalid {
                    path: path.clone(),
                    problems,
                }
            })?
        }
        None if a.sweep == "contextual" => {
            let llm = a.llm.as_deref().unwrap_or("local:smollm2");
            if chroma {
                sweep::contextual_sweep(250, &[Mode::Dense], &model, k, llm)
            } else {
                sweep::contextual_sweep(512, &[Mode::Dense, Mode::Hybrid], &model, k, llm)
            }
        }
        None => sweep::default_sweep(which, &model, k),
    };
    if let Some(llm) = &a.llm {
        for c in &mut configs {
            if c.chunk.context.as_deref() == Some("llm") {
                c.chunk.llm = Some(llm.clone());
            }
        }
    }
    if !a.modes.is_empty() {
        let modes: Vec<Mode> = a
            .modes
            .iter()
            .map(|m| Mode::parse(m).map_err(anyhow::Error::msg))
            .collect::<Result<_>>()?;
        configs.retain(|c| modes.contains(&c.mode));
    }
    if !a.strategies.is_empty() {
        configs.retain(|c| a.strategies.contains(&c.chunk.strategy));
    }
    if configs.is_empty() {
        bail!("no configuration left to run (check --modes / --strategies)");
    }
    Ok(configs)
}

pub fn run(a: BenchArgs) -> Result<ExitCode> {
    // Check everything cheap before the expensive part.
    if let Some(m) = &a.metric {
        if !run::METRICS.iter().any(|(n, _)| n == m) {
            let known: Vec<&str> = run::METRICS.iter().map(|(n, _)| *n).collect();
            bail!("unknown --metric `{m}` (known: {})", known.join(", "));
        }
    }
    let (mut ds, which) = load_dataset(&a)?;
    if !a.only_docs.is_empty() {
        ds = ds.restrict(&a.only_docs).map_err(anyhow::Error::msg)?;
        eprintln!(
            "kept {} documents and the {} queries labelled inside them",
            ds.docs.len(),
            ds.queries.len()
        );
        if ds.queries.is_empty() {
            bail!("--only-docs leaves no query to ask");
        }
    }
    let configs = configs(&a, which)?;
    let cache_dir = if a.no_cache {
        None
    } else {
        Some(a.cache_dir.clone().unwrap_or_else(|| {
            chunklab_embed::fetch::home_dir()
                .join("cache")
                .join("embeddings")
        }))
    };
    eprintln!("{} configurations", configs.len());
    let progress = CliProgress {
        quiet: a.quiet,
        tty: std::io::stderr().is_terminal(),
        state: Mutex::new(None),
    };
    let opts = RunOptions {
        cache_dir,
        load: chunklab_embed::LoadOptions {
            fetch: a.fetch,
            home: None,
        },
        scratch_dir: a.scratch_dir.clone(),
    };
    let result = run::run(&ds, &configs, &opts, &progress)?;
    let metric = a
        .metric
        .clone()
        .unwrap_or_else(|| report::default_metric(&result).to_string());
    print!("{}", report::table::render(&result, &metric));
    let write = |path: &Path, text: String| -> Result<()> {
        std::fs::write(path, text).with_context(|| format!("writing {}", path.display()))
    };
    if let Some(p) = &a.json {
        write(p, report::json::render(&result))?;
    }
    if let Some(p) = &a.csv {
        write(p, report::csv::render(&result))?;
    }
    if let Some(p) = &a.markdown {
        write(p, report::markdown::render(&result, &metric))?;
    }
    if let Some(p) = &a.report {
        write(p, report::html::render(&result, &metric))?;
    }
    Ok(ExitCode::SUCCESS)
}
