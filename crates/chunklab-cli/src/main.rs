//! `chunklab`: chunk documents into retrieval units with exact offsets.

mod chunk_cmd;
mod input;
mod output;
mod strategies_cmd;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

#[derive(Parser)]
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
    /// List every strategy with its parameters and defaults.
    Strategies {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.cmd {
        Cmd::Chunk(args) => chunk_cmd::run(*args),
        Cmd::Strategies { json } => strategies_cmd::run(json),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
