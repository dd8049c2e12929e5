//! `chunklab`: chunk documents into retrieval units with exact offsets.

mod args;
mod bench_cmd;
mod chunk_cmd;
mod embed_cmd;
mod index_cmd;
mod json;
mod models_cmd;
mod output;
mod parse_cmd;
mod queries_cmd;
mod search_cmd;
mod serve_cmd;
mod strategies_cmd;

use clap::{CommandFactory, FromArgMatches, Subcommand};
use std::process::ExitCode;

#[derive(clap::Parser)]
#[command(
    name = "chunklab",
    version,
    about = "Cut documents into retrieval units with exact offsets, and measure which cut works best."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Cmd,
}

#[derive(Subcommand)]
enum Cmd {
    /// Chunk files, directories or stdin (`-`) and write chunks as JSONL (default).
    Chunk(Box<chunk_cmd::ChunkArgs>),
    /// Show the element tree a parser makes of a file (headings, paragraphs, tables, pages ...).
    Parse(parse_cmd::ParseArgs),
    /// Embedding models: list them, fetch them into the local cache.
    #[command(subcommand)]
    Models(models_cmd::ModelsCmd),
    /// Embed texts with an in-process model (MiniLM, ...) and print the vectors.
    Embed(embed_cmd::EmbedArgs),
    /// Build or update a search index (BM25 + vectors) of files and directories: only new,
    /// changed and removed files are processed.
    Index(Box<index_cmd::IndexArgs>),
    /// Search an index: dense, BM25 or hybrid, optional reranking, filters and result shaping.
    Search(Box<search_cmd::SearchArgs>),
    /// Benchmark chunking strategies on a corpus and its questions: one table of quality and cost.
    Bench(Box<bench_cmd::BenchArgs>),
    /// Synthetic evaluation queries from a language model (excerpts checked verbatim).
    #[command(subcommand)]
    Queries(queries_cmd::QueriesCmd),
    /// Serve the HTTP API (chunk, parse, embed, search, documents) and the web page.
    Serve(Box<serve_cmd::ServeArgs>),
    /// List every strategy with its parameters and defaults.
    Strategies {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let result = match cli.cmd {
        Cmd::Chunk(args) => chunk_cmd::run(*args),
        Cmd::Parse(args) => parse_cmd::run(args),
        Cmd::Models(cmd) => models_cmd::run(cmd),
        Cmd::Embed(args) => embed_cmd::run(args),
        Cmd::Index(args) => {
            let given = matches
                .subcommand_matches("index")
                .map(index_cmd::Given::of)
                .unwrap_or_default();
            index_cmd::run(*args, given)
        }
        Cmd::Search(args) => search_cmd::run(*args),
        Cmd::Bench(args) => bench_cmd::run(*args),
        Cmd::Queries(cmd) => queries_cmd::run(cmd),
        Cmd::Serve(args) => {
            let given = matches
                .subcommand_matches("serve")
                .map(args::chunking_flags_given)
                .unwrap_or_default();
            serve_cmd::run(*args, given)
        }
        Cmd::Strategies { json } => strategies_cmd::run(json),
    };
    match result {
        Ok(code) => code,
        // `chunklab chunk big.pdf | head` is fine, as it is for ripgrep and other filters.
        Err(e) if reader_of_stdout_gone(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {:#}", args::cli_error(e));
            ExitCode::from(2)
        }
    }
}

/// Whether `e` is a broken pipe while whatever read our standard output has closed it (the
/// command's output is not wanted any more, so it stops quietly). A broken pipe elsewhere (a
/// socket, a child process) while stdout is still read stays an error.
fn reader_of_stdout_gone(e: &anyhow::Error) -> bool {
    let broken_pipe = e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    });
    broken_pipe && stdout_has_no_reader()
}

/// Whether stdout is a pipe or socket whose reading end is closed: `poll` reports `POLLERR` on
/// such a writing end (Linux, macOS, the BSDs).
#[cfg(unix)]
fn stdout_has_no_reader() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDOUT_FILENO,
        events: 0,
        revents: 0,
    };
    // SAFETY: one valid pollfd, a zero timeout; poll only writes `revents`.
    let ready = unsafe { libc::poll(&mut fd, 1, 0) };
    ready == 1 && fd.revents & libc::POLLERR != 0
}

#[cfg(not(unix))]
fn stdout_has_no_reader() -> bool {
    false
}
