//! `chunklab strategies`: what each strategy does and which parameters it takes (the JSON lists
//! configuration keys, as the sweep TOML and the server take them; the table their flags).

use anyhow::Result;
use std::io::Write;
use std::process::ExitCode;

pub fn run(json: bool) -> Result<ExitCode> {
    let catalog = chunklab_core::strategies::catalog();
    let mut out = std::io::stdout().lock();
    if json {
        serde_json::to_writer_pretty(&mut out, &catalog)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    for s in &catalog {
        writeln!(out, "{:<12} {}", s.name, s.summary)?;
        for p in &s.params {
            writeln!(
                out,
                "    {:<20} default {:<8} {}",
                crate::args::flag(p.name),
                p.default,
                p.help
            )?;
        }
        writeln!(out)?;
    }
    writeln!(
        out,
        "Common: --unit chars|words|tokens, --tokenizer cl100k|o200k|PATH/tokenizer.json, --format jsonl|json|langchain|llamaindex"
    )?;
    Ok(ExitCode::SUCCESS)
}
