//! `chunklab queries generate CORPUS --llm SPEC --n N`: synthetic evaluation queries whose
//! supporting excerpts are found verbatim in the documents, as JSONL on stdout. Answers pass
//! the quality gates of `chunklab_llm::quality`; a run that keeps nothing, or fewer queries
//! than it drops, exits non-zero with the reason (the kept queries are still written).

use crate::args::LlmArgs;
use anyhow::{Context as _, Result};
use std::io::Write;
use std::process::ExitCode;

/// `queries` subcommands.
#[derive(clap::Subcommand)]
pub enum QueriesCmd {
    /// Ask a language model for questions with the exact supporting excerpt; keep those whose
    /// excerpt is found verbatim and that pass the quality gates; write
    /// {"id","query","relevant_docs","relevant_spans"} JSONL. Fails when none, or fewer than
    /// half, of the answers are kept.
    Generate(GenerateArgs),
}

#[derive(clap::Args)]
pub struct GenerateArgs {
    /// Files and directories of the corpus.
    #[arg(required = true)]
    pub paths: Vec<String>,
    /// Queries to ask for (fewer are written when excerpts are not found verbatim).
    #[arg(long, short = 'n', default_value_t = 100)]
    pub n: usize,
    /// Fetch a known local model that is not installed yet.
    #[arg(long)]
    pub fetch: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
}

pub fn run(cmd: QueriesCmd) -> Result<ExitCode> {
    let QueriesCmd::Generate(a) = cmd;
    let g = chunklab_pipeline::queries::generate_queries(&a.paths, &a.llm.config(), a.fetch, a.n)
        .map_err(
        |e| match e.to_string().strip_prefix("queries generate needs an llm") {
            Some(rest) => anyhow::anyhow!("queries generate needs --llm{rest}"),
            None => e,
        },
    )?;
    for w in &g.warnings {
        eprintln!("warning: {w}");
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for q in &g.queries {
        writeln!(out, "{}", q.to_json()).context("cannot write output")?;
    }
    out.flush().context("cannot write output")?;
    eprintln!("queries: {}; {}", g.stats, g.usage);
    if let Some(why) = g.failure() {
        anyhow::bail!("queries generate: {why}");
    }
    Ok(ExitCode::SUCCESS)
}
