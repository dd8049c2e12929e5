//! `chunklab embed`: embed texts with an in-process model and print the vectors.

use anyhow::{bail, Result};
use chunklab_embed::{load, LoadOptions, Role};
use std::io::{BufRead, Write};
use std::process::ExitCode;

#[derive(clap::Args, Debug)]
pub struct EmbedArgs {
    /// Texts to embed; with none (or `-`), one text per line of stdin.
    texts: Vec<String>,
    /// Model: a name from `chunklab models list`, a local model directory, or a Hugging Face
    /// hub id present in the local hub cache.
    #[arg(long, short = 'm', default_value = "minilm")]
    model: String,
    /// Embed the texts as search queries (adds the model's query prefix, e.g. e5's "query: ").
    #[arg(long, conflicts_with = "passage")]
    query: bool,
    /// Embed the texts as passages (the default; adds e.g. e5's "passage: ").
    #[arg(long)]
    passage: bool,
    /// Print one JSON object per text: {"model","dim","embedding":[...]}.
    #[arg(long)]
    json: bool,
    /// Fetch the model first if it is not installed.
    #[arg(long)]
    fetch: bool,
}

pub fn run(args: EmbedArgs) -> Result<ExitCode> {
    let texts = if args.texts.is_empty() || args.texts == ["-"] {
        let mut lines = Vec::new();
        for line in std::io::stdin().lock().lines() {
            lines.push(line?);
        }
        lines
    } else {
        args.texts
    };
    if texts.is_empty() {
        bail!("nothing to embed: give texts as arguments or one per line on stdin");
    }
    let opts = LoadOptions {
        fetch: args.fetch,
        home: None,
        ..Default::default()
    };
    let model = load(&args.model, &opts)?;
    let role = if args.query {
        Role::Query
    } else {
        Role::Passage
    };
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let vectors = model.embed(&refs, role)?;
    // Never silently in part: a text past the window has only its head in its vector.
    for t in chunklab_embed::truncated(model.as_ref(), &refs) {
        eprintln!("warning: {}: {t}", model.name());
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for (text, v) in texts.iter().zip(&vectors) {
        if args.json {
            // A struct (not json!) so the floats print in f32's shortest form.
            let line = Line {
                model: model.name(),
                dim: model.dim(),
                embedding: v,
            };
            serde_json::to_writer(&mut out, &line)?;
            writeln!(out)?;
        } else {
            let head: Vec<String> = v.iter().take(4).map(|x| format!("{x:+.4}")).collect();
            let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
            writeln!(
                out,
                "{} {}-d [{}, ...] norm {norm:.3}  {}",
                model.name(),
                model.dim(),
                head.join(", "),
                preview(text)
            )?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[derive(serde::Serialize)]
struct Line<'a> {
    model: &'a str,
    dim: usize,
    embedding: &'a [f32],
}

fn preview(text: &str) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let mut chars = flat.chars();
    let head: String = chars.by_ref().take(60).collect();
    if chars.next().is_some() {
        format!("{head:?}…")
    } else {
        format!("{head:?}")
    }
}
