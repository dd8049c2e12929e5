//! `chunklab parse`: the element tree a parser makes of one file, for inspection — as JSON (the
//! parsed document with each element's text excerpt) or as an indented outline.

use anyhow::{anyhow, Result};
use chunklab_core::document::{ElementKind, ParsedDocument};
use chunklab_pipeline::{prepare, Input, Prepared, Reading, ReadingConfig, Skip};
use serde_json::{json, Value};
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Longest element excerpt shown, in chars.
const EXCERPT_CHARS: usize = 160;

#[derive(clap::Args, Debug)]
pub struct ParseArgs {
    /// The file to parse, or `-` for stdin.
    path: String,
    /// Output: json (the parsed document, elements with text excerpts) or text (an outline).
    #[arg(long, short = 'f', value_enum, default_value = "text")]
    format: ParseFormat,
    /// Use this parser instead of choosing by extension and content (see `chunklab chunk --parser`).
    #[arg(long)]
    parser: Option<String>,
    /// JSON: include the whole extracted text (`text`), not only excerpts.
    #[arg(long)]
    full_text: bool,
    /// Decode text inputs from this encoding (latin1, windows-1252, utf-16le, ...).
    #[arg(long)]
    encoding: Option<String>,
    #[command(flatten)]
    ocr: crate::args::OcrArgs,
    #[command(flatten)]
    limits: crate::args::LimitArgs,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ParseFormat {
    Json,
    Text,
}

pub fn run(a: ParseArgs) -> Result<ExitCode> {
    let input = if a.path == "-" {
        Input::Stdin
    } else {
        Input::File {
            path: PathBuf::from(&a.path),
            doc_id: a.path.clone(),
        }
    };
    let name = input.source();
    let skip = |s: Skip| match s {
        Skip::Binary => anyhow!("{name}: binary file, and no parser for it"),
        Skip::Error(e) => e,
    };
    let reading = Reading::new(&ReadingConfig {
        parser: a.parser.clone(),
        encoding: a.encoding.clone(),
        ocr: a.ocr.options(),
        max_elements: a.limits.max_elements,
        max_expanded_mb: a.limits.max_expanded_mb,
        ..ReadingConfig::default()
    })
    .map_err(crate::args::cli_error)?;
    let (mut doc, warnings) = match prepare(&input, true, &reading, false).map_err(skip)? {
        Prepared::Parsed(doc, warnings) => (doc, warnings),
        Prepared::Plain(_) => unreachable!("prepare parses when structure is needed"),
    };
    for w in &warnings {
        eprintln!("warning: {name}: {w}");
    }
    doc.warnings = warnings;
    let mut out = std::io::stdout().lock();
    let written = match a.format {
        ParseFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &to_json(&doc, &name, a.full_text))
                .map_err(std::io::Error::from)
                .and_then(|()| writeln!(out))
        }
        ParseFormat::Text => outline(&doc, &name, &mut out),
    };
    // `chunklab parse big.pdf | head` stops quietly: see `main`.
    written?;
    Ok(ExitCode::SUCCESS)
}

/// The document as JSON: format, pages, metadata, warnings, text size, and the elements with
/// an excerpt of their text.
fn to_json(doc: &ParsedDocument, source: &str, full_text: bool) -> Value {
    let elements: Vec<Value> = doc
        .elements
        .iter()
        .map(|e| {
            let mut v = serde_json::to_value(e).unwrap_or(Value::Null);
            if let Value::Object(m) = &mut v {
                m.insert("text".into(), excerpt(&doc.text[e.start..e.end]).into());
            }
            v
        })
        .collect();
    let mut v = json!({
        "source": source,
        "format": doc.format,
        "pages": doc.pages,
        "metadata": doc.metadata,
        "warnings": doc.warnings,
        "text_bytes": doc.text.len(),
        "elements": elements,
    });
    if full_text {
        v["text"] = doc.text.clone().into();
    }
    v
}

/// One line per element: source lines or page, the kind (headings with their level), indented
/// under the heading it belongs to, and an excerpt.
fn outline(doc: &ParsedDocument, source: &str, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "{source}: {} · {} elements · {} bytes of text{}",
        doc.format,
        doc.elements.len(),
        doc.text.len(),
        doc.pages
            .map(|p| format!(" · {p} pages"))
            .unwrap_or_default()
    )?;
    for (k, v) in &doc.metadata {
        writeln!(out, "  {k}: {}", excerpt(v))?;
    }
    let mut depth = 0usize;
    let mut table_end = 0usize;
    for e in &doc.elements {
        let place = match (e.lines, e.page) {
            (Some((a, b)), _) if a == b => format!("{a}"),
            (Some((a, b)), _) => format!("{a}-{b}"),
            (None, Some(p)) => format!("p{p}"),
            (None, None) => String::new(),
        };
        let kind = match e.kind {
            ElementKind::Heading { level } => format!("h{level}"),
            ElementKind::TableRow { header: true } => "header_row".into(),
            k => k.name().to_string(),
        };
        let indent = match e.kind.heading_level() {
            Some(level) => {
                depth = level as usize + 1;
                level as usize
            }
            None if e.start < table_end => depth + 1,
            None => depth,
        };
        if e.kind == ElementKind::Table {
            table_end = e.end;
        }
        let mut line = match e.kind.heading_level() {
            Some(_) => excerpt(doc.title_of(e)),
            None => excerpt(&doc.text[e.start..e.end]),
        };
        if let Some(s) = e.symbol() {
            line = format!("[{s}] {line}");
        }
        writeln!(
            out,
            "{place:>9}  {}{kind:<11} {line}",
            "  ".repeat(indent.min(12))
        )?;
    }
    Ok(())
}

/// The first [`EXCERPT_CHARS`] chars of `s` on one line (`⏎` for line breaks, `…` when cut).
fn excerpt(s: &str) -> String {
    let mut out = String::new();
    for (n, c) in s.chars().enumerate() {
        if n == EXCERPT_CHARS {
            out.push('…');
            break;
        }
        match c {
            '\n' => out.push('⏎'),
            '\r' | '\x0C' => {}
            c => out.push(c),
        }
    }
    out
}
