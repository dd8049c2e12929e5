//! `chunklab bench`: which chunking strategy wins on a corpus and its questions, by how much and
//! at what cost, in one table (plus JSON, CSV, Markdown and an HTML report).

use anyhow::{Context, Result};
use chunklab_eval::archive;
use chunklab_eval::bench::BenchRequest;
use chunklab_eval::report;
use chunklab_eval::run::{self, Progress};
use clap::Args;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Corpus directory (every text file a document, and every PDF, DOCX, ODT and image file,
    /// parsed as `chunklab chunk` reads it, with --ocr; ids are relative paths). Needs --queries.
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
    /// Chunks retrieved per query (default 5: the Chroma report's, and small against the
    /// archive's hundreds of documents).
    #[arg(long, short = 'k')]
    pub k: Option<usize>,
    /// Built-in sweep: `default` (every strategy family with BM25, fixed 512 and headings 512
    /// merged with the heading path also dense, hybrid and hybrid-cv; for chroma the report's
    /// rows plus ours) or `contextual` (headings without a context, at the smaller size the
    /// context rows chunk at, with the `header` context and with an `llm` context from --llm; at
    /// 250 tokens, dense, on chroma; at 512, dense and hybrid, otherwise).
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
    /// Metric to rank by, and the one `hybrid-cv` chooses its fusion weight by (default: recall
    /// where the dataset has spans, else doc_recall).
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
    /// Write every row's metrics on every query as JSON lines (`label`, `mode`, `k`, `query`,
    /// `metrics`), for paired comparisons or held-out selection of one's own.
    #[arg(long, value_name = "FILE")]
    pub per_query: Option<PathBuf>,
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
    /// Build each configuration's collection in PostgreSQL + pgvector instead: a postgres://
    /// URL whose user may create databases; each configuration gets a database of its own,
    /// dropped after it.
    #[arg(long, value_name = "URL")]
    pub store: Option<String>,
    /// Write the dataset instead of running: documents under DIR/corpus (at their ids), queries
    /// as DIR/queries.jsonl, the files --corpus DIR/corpus --queries DIR/queries.jsonl reads.
    /// DIR must be new or empty.
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
    /// No progress output.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub ocr: crate::args::OcrArgs,
}

/// Dataset notes on stderr, also with --quiet (what was loaded, what was skipped).
struct NotesToStderr;

impl Progress for NotesToStderr {
    fn start(&self, _: &str, _: u64) {}
    fn set(&self, _: u64) {}
    fn finish(&self) {}
    fn note(&self, msg: &str) {
        eprintln!("{msg}");
    }
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

impl BenchArgs {
    /// The flags as the library's bench request.
    fn request(&self) -> BenchRequest {
        BenchRequest {
            corpus: self.corpus.clone(),
            queries: self.queries.clone(),
            dataset: self.dataset.clone(),
            data_dir: self.data_dir.clone(),
            docs: self.docs,
            seed: self.seed,
            config: self.config.clone(),
            config_text: None,
            model: self.model.clone(),
            k: self.k,
            sweep: self.sweep.clone(),
            llm: self.llm.clone(),
            only_docs: self.only_docs.clone(),
            modes: self.modes.clone(),
            strategies: self.strategies.clone(),
            cache_dir: self.cache_dir.clone(),
            no_cache: self.no_cache,
            fetch: self.fetch,
            scratch_dir: self.scratch_dir.clone(),
            store: self.store.clone(),
            ocr: self.ocr.options(),
            metric: self.metric.clone(),
        }
    }
}

pub fn run(a: BenchArgs) -> Result<ExitCode> {
    // Check everything cheap before the expensive part.
    if let Some(m) = &a.metric {
        run::check_metric(m).map_err(|e| anyhow::anyhow!("--metric: {e}"))?;
    }
    let req = a.request();
    let stderr_notes = NotesToStderr;
    if let Some(dir) = &a.export {
        let e = chunklab_eval::export::export(&req, dir, &stderr_notes)?;
        eprintln!(
            "exported {} documents ({:.1} MB) to {} and {} queries to {}",
            e.documents,
            e.bytes as f64 / 1e6,
            e.corpus.display(),
            e.query_count,
            e.queries.display()
        );
        eprintln!(
            "run it: chunklab bench --corpus {} --queries {}",
            e.corpus.display(),
            e.queries.display()
        );
        return Ok(ExitCode::SUCCESS);
    }
    // Dataset and configurations are checked before anything expensive runs.
    let (ds, which) = req.dataset(&stderr_notes)?;
    let configs = req.configs(which)?;
    eprintln!("{} configurations", configs.len());
    let progress = CliProgress {
        quiet: a.quiet,
        tty: std::io::stderr().is_terminal(),
        state: Mutex::new(None),
    };
    let result = run::run(ds, &configs, &req.run_options(), &progress)?;
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
    if let Some(p) = &a.per_query {
        write(p, report::per_query::render(&result))?;
    }
    Ok(ExitCode::SUCCESS)
}
