//! `chunklab chunk`: inputs → strategy → chunks in the chosen format, documents in parallel,
//! output in input order.

use crate::input::{self, Decoding, Filters, Input, Skip, Text};
use crate::output::{ChunkWriter, Format};
use anyhow::{anyhow, bail, Context, Result};
use chunklab_core::document::ParsedDocument;
use chunklab_core::strategies::{self, Breakpoint, Compat, KeepSeparator, Options};
use chunklab_core::{
    chunk_document, chunk_parsed_document, Chunk, Chunker, Document, Lang, TextEmbedder,
};
use chunklab_embed::{late_embeddings, LateChunker, LateOptions};
use chunklab_embed::{CoreEmbedder, Embedder, LoadOptions};
use chunklab_parse::detect::{is_binary_format, parser_by_name, parser_for, SNIFF_BYTES};
use chunklab_parse::{Limits, Parser};
use rayon::prelude::*;
use std::io::{BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct ChunkArgs {
    /// Files, directories (walked recursively) or `-` for stdin.
    #[arg(required = true)]
    paths: Vec<String>,
    #[command(flatten)]
    pub chunking: ChunkingArgs,
    /// Output format.
    #[arg(long, short = 'f', value_enum, default_value = "jsonl")]
    format: Format,
    /// Write to FILE instead of stdout.
    #[arg(long, short = 'o')]
    output: Option<String>,
    /// Worker threads (default: all cores).
    #[arg(long, short = 'j')]
    threads: Option<usize>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Every option that decides how inputs are read, parsed and cut: shared by `chunk` and `index`
/// (flattened into both), so an index is built with exactly the chunks `chunk` prints.
#[derive(clap::Args, Debug, Clone)]
pub struct ChunkingArgs {
    /// Strategy; `chunklab strategies` lists them all.
    #[arg(long, short = 's', default_value = "recursive")]
    pub strategy: String,
    /// late: the strategy that draws the chunk boundaries (any other strategy; every other
    /// chunking flag applies to it); default recursive.
    #[arg(long)]
    pub boundaries: Option<String>,
    /// late: tokens per macro window for documents longer than the model's context (default
    /// and maximum: the model's context).
    #[arg(long)]
    pub late_window: Option<usize>,
    /// late: tokens neighbouring macro windows share (default an eighth of the window).
    #[arg(long)]
    pub late_overlap: Option<usize>,
    /// Hard maximum size per chunk, in --unit (--max-size is the same flag).
    #[arg(long, visible_alias = "max-size", default_value_t = 1000)]
    pub size: usize,
    /// Overlap between neighbouring chunks: units for fixed/recursive, sentences for sentence,
    /// paragraphs for paragraph.
    #[arg(long, default_value_t = 0)]
    pub overlap: usize,
    /// Step of the sliding window, in units (default: size/2).
    #[arg(long)]
    pub stride: Option<usize>,
    /// Size unit: chars, words or tokens (default chars; tokens when --tokenizer is given).
    /// With --model and no --tokenizer, the default (and --unit tokens) is tokens of the model's
    /// own tokenizer.json, so sizes are what the model sees.
    #[arg(long)]
    pub unit: Option<String>,
    /// Tokenizer for --unit tokens: cl100k, o200k, or a tokenizer.json path / model directory
    /// (default: cl100k; with --model: the model's tokenizer.json).
    #[arg(long)]
    pub tokenizer: Option<String>,
    /// Embedding model for semantic and cluster (and late): minilm, e5-small, a local model
    /// directory, or a Hugging Face hub id in the local hub cache.
    #[arg(long)]
    pub model: Option<String>,
    /// Fetch a known --model (or --llm local model) that is not installed yet.
    #[arg(long)]
    pub fetch: bool,
    #[command(flatten)]
    pub llm: crate::context::ContextArgs,
    /// semantic: how neighbour distances become breakpoints: percentile, stddev, interquartile
    /// or gradient (LangChain SemanticChunker's definitions).
    #[arg(long, default_value = "percentile")]
    pub breakpoint: String,
    /// semantic: break where the distance is above this percentile (percentile, gradient;
    /// default 95).
    #[arg(long)]
    pub percentile: Option<f64>,
    /// semantic: breakpoint amount for stddev (mean + N standard deviations, default 3) and
    /// interquartile (mean + N interquartile ranges, default 1.5).
    #[arg(long)]
    pub threshold: Option<f64>,
    /// semantic: sentences on each side joined to a sentence before embedding it.
    #[arg(long, default_value_t = 1)]
    pub buffer: usize,
    /// semantic: groups smaller than this (in --unit) are merged into a neighbour while
    /// --size holds.
    #[arg(long)]
    pub min_size: Option<usize>,
    /// cluster: size of the small pieces that are embedded and grouped, in --unit (default 50).
    #[arg(long)]
    pub piece_size: Option<usize>,
    /// hierarchical: size limit of each level, largest first, comma-separated (default
    /// 2048,512,128); the levels replace --size.
    #[arg(long)]
    pub levels: Option<String>,
    /// Count the special tokens a Hugging Face model adds ([CLS]/[SEP]) toward the size.
    #[arg(long)]
    pub count_special: bool,
    /// Language for sentence rules: en, nl or auto (per document).
    #[arg(long, default_value = "auto")]
    pub lang: String,
    /// Output compatibility: native, or langchain (RecursiveCharacterTextSplitter / TokenTextSplitter texts).
    #[arg(long, default_value = "native")]
    pub compat: String,
    /// Recursive separators as a JSON array, e.g. '["\n\n", "\n", " ", ""]'.
    #[arg(long)]
    pub separators: Option<String>,
    /// Treat --separators as regular expressions (lookahead allowed: '\n(?=Artikel \d+)').
    #[arg(long)]
    pub regex_separators: bool,
    /// Where a recursive separator goes: start (of the next piece), end (of the previous), none.
    #[arg(long, default_value = "start")]
    pub keep_separator: String,
    /// headings/elements: deepest heading level that starts a chunk (1 = chapters only).
    #[arg(long, default_value_t = 6)]
    pub max_level: usize,
    /// headings/elements/code: prefix each chunk's embedded text with its heading path (or
    /// symbol path); the prefix counts toward --size.
    #[arg(long)]
    pub title_prefix: bool,
    /// Parse every input with this parser instead of choosing by extension and content: text,
    /// markdown, rst, html, pdf, docx, odt, code, or a language (rust, python, ...).
    #[arg(long)]
    pub parser: Option<String>,
    /// Only files matching these globs (under directories).
    #[arg(long)]
    pub include: Vec<String>,
    /// Skip files matching these globs (under directories).
    #[arg(long)]
    pub exclude: Vec<String>,
    /// Decode inputs from this encoding (latin1, windows-1252, utf-16le, ...).
    #[arg(long)]
    pub encoding: Option<String>,
    /// Replace invalid bytes with U+FFFD instead of failing.
    #[arg(long)]
    pub lossy: bool,
}

/// Parse and validate everything that can be checked before reading a single input.
pub fn options(a: &ChunkingArgs) -> Result<Options> {
    let lang: Lang = a.lang.parse().map_err(anyhow::Error::msg)?;
    let compat = match a.compat.as_str() {
        "native" => Compat::Native,
        "langchain" => Compat::LangChain,
        other => bail!("unknown --compat `{other}` (native, langchain)"),
    };
    let keep_separator = match a.keep_separator.as_str() {
        "start" => KeepSeparator::Start,
        "end" => KeepSeparator::End,
        "none" | "false" => KeepSeparator::Drop,
        other => bail!("unknown --keep-separator `{other}` (start, end, none)"),
    };
    let separators =
        match &a.separators {
            None => None,
            Some(js) => Some(serde_json::from_str::<Vec<String>>(js).with_context(|| {
                format!("--separators must be a JSON array of strings, got {js}")
            })?),
        };
    if a.regex_separators && separators.is_none() && compat != Compat::LangChain {
        bail!("--regex-separators needs --separators");
    }
    let breakpoint: Breakpoint = a.breakpoint.parse().map_err(anyhow::Error::msg)?;
    let breakpoint_amount = match (breakpoint, a.percentile, a.threshold) {
        (_, Some(_), Some(_)) => bail!("give --percentile or --threshold, not both"),
        (Breakpoint::Percentile | Breakpoint::Gradient, p, None) => p,
        (Breakpoint::Percentile | Breakpoint::Gradient, None, Some(_)) => bail!(
            "--threshold applies to --breakpoint stddev and interquartile; use --percentile with {}",
            breakpoint.name()
        ),
        (Breakpoint::StdDev | Breakpoint::Interquartile, None, t) => t,
        (Breakpoint::StdDev | Breakpoint::Interquartile, Some(_), None) => bail!(
            "--percentile applies to --breakpoint percentile and gradient; use --threshold with {}",
            breakpoint.name()
        ),
    };
    let levels = match &a.levels {
        None => None,
        Some(spec) => Some(parse_levels(spec)?),
    };
    Ok(Options {
        strategy: a.strategy.clone(),
        size: a.size,
        overlap: a.overlap,
        stride: a.stride,
        lang,
        compat,
        separators,
        regex_separators: a.regex_separators,
        keep_separator,
        max_level: a.max_level,
        title_prefix: a.title_prefix,
        embedder: None,
        breakpoint,
        breakpoint_amount,
        buffer: a.buffer,
        min_size: a.min_size,
        piece_size: a.piece_size,
        levels,
    })
}

/// `--levels 2048,512,128` → `[2048, 512, 128]` (order and range are checked by the strategy).
fn parse_levels(spec: &str) -> Result<Vec<usize>> {
    spec.split(',')
        .map(|p| {
            let p = p.trim();
            p.parse::<usize>().map_err(|_| {
                anyhow!(
                    "--levels must be sizes separated by commas, largest first (e.g. 2048,512,128); `{p}` is not a size"
                )
            })
        })
        .collect()
}

pub fn unit(a: &ChunkingArgs) -> Result<String> {
    Ok(match (&a.unit, &a.tokenizer) {
        (None, None) => "chars".into(),
        (None, Some(_)) => "tokens".into(),
        (Some(u), Some(_)) if u != "tokens" => {
            bail!("--tokenizer applies to --unit tokens, not --unit {u}")
        }
        (Some(u), _) => u.clone(),
    })
}

/// A document's rendered output, or why it has none.
enum Outcome {
    /// `buf` holds the rendered chunks, unless the document was big and already written.
    Done {
        buf: Vec<u8>,
        chunks: usize,
        bytes: usize,
        written: bool,
        /// The parser's warnings (pages without text, skipped parts ...).
        warnings: Vec<String>,
    },
    Skipped(Skip),
}

/// Documents at least this large are chunked one at a time and written in slices, so memory stays
/// bounded by the map plus one slice of output.
const BIG_DOCUMENT: u64 = 32 << 20;
const BATCH_BYTES: u64 = 64 << 20;
const BATCH_DOCS: usize = 512;

/// What `chunk` and `index` need before reading any input: the chunker, the size unit's name,
/// how to read inputs and the input filters. Every option is checked here.
pub struct Pipeline {
    pub chunker: Box<dyn Chunker>,
    pub unit_name: String,
    pub reading: Reading,
    pub filters: Filters,
    /// The `--model`, loaded (the strategy's embedder, and the model a caller may embed with).
    pub model: Option<Arc<dyn Embedder>>,
    /// `--context`: contextual retrieval applied to every document's chunks.
    pub context: Option<Arc<crate::context::ContextStage>>,
}

impl ChunkingArgs {
    /// Check every option and build the chunker and input reading they describe.
    pub fn pipeline(&self) -> Result<Pipeline> {
        let mut opts = options(self)?;
        let model = self.load_model()?;
        // With a model and no unit (or tokens) and no tokenizer of their own, sizes are in the
        // model's own tokens.
        let tokens_or_none = matches!(self.unit.as_deref(), None | Some("tokens" | "token"));
        let model_tokenizer = match (&model, tokens_or_none, &self.tokenizer) {
            (Some(m), true, None) => Some(model_tokenizer(self, m.dir.as_deref())?),
            _ => None,
        };
        let (unit, tokenizer) = match model_tokenizer {
            Some(t) => ("tokens".to_string(), Some(t)),
            None => (unit(self)?, self.tokenizer.clone()),
        };
        let sizer =
            chunklab_tokenizers::sizer_from_spec(&unit, tokenizer.as_deref(), self.count_special)?;
        let unit_name = sizer.name().to_string();
        let model = model.map(|m| m.model);
        opts.embedder = model
            .as_ref()
            .map(|m| Arc::new(CoreEmbedder::new(m.clone())) as Arc<dyn TextEmbedder>);
        let llm = self.llm.open_llm(self.fetch)?;
        let context =
            crate::context::ContextStage::new(&self.llm, llm.clone(), sizer.clone(), opts.size)?
                .map(Arc::new);
        let chunker = if opts.strategy == "llm" {
            crate::context::llm_chunker(llm.as_ref(), sizer, opts.size, opts.lang)?
        } else {
            self.build_chunker(&opts, sizer, model.as_deref())?
        };
        if let Some(name) = &self.parser {
            if parser_by_name(name).is_none() {
                bail!(
                    "unknown --parser `{name}`; known: {}, or a language (rust, python, javascript, typescript, go, java)",
                    chunklab_parse::detect::PARSER_NAMES.join(", ")
                );
            }
        }
        let reading = Reading {
            decoding: Decoding::new(self.encoding.as_deref(), self.lossy)?,
            parser: self.parser.clone(),
            limits: Limits::default(),
        };
        let filters = Filters::new(&self.include, &self.exclude)?;
        Ok(Pipeline {
            chunker,
            unit_name,
            reading,
            filters,
            model,
            context,
        })
    }

    /// Load `--model` (fetching it with `--fetch`), with the directory it was read from.
    pub fn load_model(&self) -> Result<Option<LoadedModel>> {
        let Some(spec) = &self.model else {
            return Ok(None);
        };
        let how = LoadOptions {
            fetch: self.fetch,
            home: None,
        };
        let model: Arc<dyn Embedder> = chunklab_embed::load(spec, &how)
            .with_context(|| format!("--model {spec}"))?
            .into();
        Ok(Some(LoadedModel {
            dir: chunklab_embed::model_dir(spec, &how),
            model,
        }))
    }
}

/// A `--model`, loaded, and the directory it was read from (where its tokenizer.json is).
pub struct LoadedModel {
    pub model: Arc<dyn Embedder>,
    pub dir: Option<PathBuf>,
}

/// The tokenizer.json of a loaded model's directory, for sizes in the model's own tokens.
fn model_tokenizer(a: &ChunkingArgs, dir: Option<&Path>) -> Result<String> {
    let spec = a.model.as_deref().unwrap_or_default();
    let file = dir
        .map(|d| d.join("tokenizer.json"))
        .filter(|f| f.is_file());
    match file {
        Some(f) => Ok(f.to_string_lossy().into_owned()),
        None => bail!(
            "--model {spec}: no tokenizer.json in the model directory to size chunks with; give --unit (and --tokenizer)"
        ),
    }
}

pub fn run(a: ChunkArgs) -> Result<ExitCode> {
    let Pipeline {
        chunker,
        unit_name,
        reading,
        filters,
        model,
        context,
        ..
    } = a.chunking.pipeline()?;
    let late = a.chunking.late(model.as_ref());
    let inputs = input::collect(&a.paths, &filters)?;
    if let Some(n) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n.max(1))
            .build_global()
            .context("cannot start worker threads")?;
    }

    let out: Box<dyn Write> = match &a.output {
        Some(p) => {
            Box::new(std::fs::File::create(p).with_context(|| format!("{p}: cannot create"))?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = BufWriter::with_capacity(1 << 20, out);
    let mut writer = ChunkWriter::new(a.format, &unit_name);
    writer.begin(&mut out)?;

    let show = !a.quiet && std::io::stderr().is_terminal();
    let progress = if show {
        let pb = indicatif::ProgressBar::new(inputs.len() as u64);
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {pos}/{len} docs {msg} [{elapsed_precise}]",
            )
            .expect("valid template"),
        );
        Some(pb)
    } else {
        None
    };

    let started = Instant::now();
    let (mut docs, mut chunks, mut bytes, mut skipped, mut failed) =
        (0usize, 0usize, 0usize, 0usize, 0usize);
    let mut report = |input: &Input,
                      outcome: Outcome,
                      writer: &mut ChunkWriter,
                      out: &mut dyn Write|
     -> Result<()> {
        match outcome {
            Outcome::Done {
                buf,
                chunks: n,
                bytes: b,
                written,
                warnings,
            } => {
                for w in warnings {
                    warn(
                        progress.as_ref(),
                        &format!("warning: {}: {w}", input.source()),
                    );
                }
                if !written {
                    writer.write(out, &buf, n)?;
                }
                docs += 1;
                chunks += n;
                bytes += b;
            }
            Outcome::Skipped(Skip::Binary) => {
                skipped += 1;
                warn(
                    progress.as_ref(),
                    &format!("warning: {}: binary file skipped", input.source()),
                );
            }
            Outcome::Skipped(Skip::Error(e)) => {
                failed += 1;
                warn(progress.as_ref(), &format!("error: {e:#}"));
            }
        }
        if let Some(pb) = &progress {
            pb.inc(1);
            pb.set_message(format!("{:.1} MB, {chunks} chunks", bytes as f64 / 1e6));
        }
        Ok(())
    };

    let mut i = 0;
    while i < inputs.len() {
        if is_big(&inputs[i]) {
            let outcome = chunk_big(
                &inputs[i],
                chunker.as_ref(),
                &reading,
                late.as_ref(),
                context.as_deref(),
                &mut writer,
                &mut out,
            )?;
            report(&inputs[i], outcome, &mut writer, &mut out)?;
            i += 1;
            continue;
        }
        let mut j = i;
        let mut batch_bytes = 0u64;
        while j < inputs.len()
            && j - i < BATCH_DOCS
            && batch_bytes < BATCH_BYTES
            && !is_big(&inputs[j])
        {
            batch_bytes += file_len(&inputs[j]);
            j += 1;
        }
        let outcomes: Vec<Outcome> = inputs[i..j]
            .par_iter()
            .map(|inp| {
                chunk_one(
                    inp,
                    chunker.as_ref(),
                    &reading,
                    late.as_ref(),
                    context.as_deref(),
                    &writer,
                )
            })
            .collect();
        for (inp, outcome) in inputs[i..j].iter().zip(outcomes) {
            report(inp, outcome, &mut writer, &mut out)?;
        }
        i = j;
    }
    writer.end(&mut out)?;
    out.flush().context("cannot write output")?;
    if let Some(pb) = &progress {
        pb.finish_and_clear();
    }
    if !a.quiet {
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "chunked {docs} documents ({:.1} MB) into {chunks} chunks with {} in {secs:.2} s ({:.1} MB/s){}{}",
            bytes as f64 / 1e6,
            chunker.config(),
            bytes as f64 / 1e6 / secs.max(1e-9),
            if skipped > 0 { format!("; {skipped} binary files skipped") } else { String::new() },
            if failed > 0 { format!("; {failed} files FAILED") } else { String::new() },
        );
        if let Some(late) = &late {
            eprintln!("{}", late.summary());
        }
        if let Some(context) = &context {
            eprintln!("{}", context.summary());
        }
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn warn(pb: Option<&indicatif::ProgressBar>, msg: &str) {
    match pb {
        Some(pb) => pb.println(msg),
        None => eprintln!("{msg}"),
    }
}

fn file_len(input: &Input) -> u64 {
    match input {
        Input::Stdin => 0,
        Input::File { path, .. } => std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
    }
}

fn is_big(input: &Input) -> bool {
    file_len(input) >= BIG_DOCUMENT
}

/// How inputs are read: decoding of text formats, parser override, parser limits.
pub struct Reading {
    pub decoding: Decoding,
    pub parser: Option<String>,
    pub limits: Limits,
}

/// An input ready to chunk: parsed, or (a big text file for a strategy that does not need
/// structure) its text as is, so memory stays bounded by the file map.
pub enum Prepared {
    Parsed(ParsedDocument, Vec<String>),
    Plain(Text),
}

/// Read an input and parse it with the parser its extension and content (or `--parser`) call
/// for. Text formats are decoded first (encodings, `--lossy`, binary detection); PDF, DOCX and ODT
/// get the raw bytes.
pub fn prepare(
    input: &Input,
    chunker: &dyn Chunker,
    how: &Reading,
    big: bool,
) -> Result<Prepared, Skip> {
    let name = input.source();
    let raw = input::read(input)?;
    let bytes = raw.bytes();
    let parser: Box<dyn Parser> = match &how.parser {
        Some(p) => parser_by_name(p).expect("checked before reading"),
        None => parser_for(input.path(), &bytes[..bytes.len().min(SNIFF_BYTES)]),
    };
    let parse = |bytes: &[u8]| {
        parser
            .parse(bytes, input.path(), &how.limits)
            .map_err(|e| Skip::Error(anyhow!("{name}: {e}")))
    };
    if is_binary_format(parser.name()) {
        let mut doc = parse(bytes)?;
        let warnings = std::mem::take(&mut doc.warnings);
        return Ok(Prepared::Parsed(doc, warnings));
    }
    let text = input::decode(&name, raw, &how.decoding)?;
    if big && !chunker.needs_structure() {
        return Ok(Prepared::Plain(text));
    }
    let mut doc = parse(text.as_str().as_bytes())?;
    let warnings = std::mem::take(&mut doc.warnings);
    Ok(Prepared::Parsed(doc, warnings))
}

/// Chunk a prepared input.
pub fn chunks<'a>(
    input: &'a Input,
    source: &'a str,
    prepared: &'a Prepared,
    chunker: &dyn Chunker,
) -> Result<Vec<Chunk<'a>>, Skip> {
    let result = match prepared {
        Prepared::Parsed(doc, _) => chunk_parsed_document(input.doc_id(), source, doc, chunker),
        Prepared::Plain(text) => chunk_document(
            &Document::new(input.doc_id(), source, text.as_str()),
            chunker,
        ),
    };
    result.map_err(|e| Skip::Error(anyhow!("{source}: {e}")))
}

fn prepared_parts(prepared: &Prepared) -> (usize, Vec<String>) {
    match prepared {
        Prepared::Parsed(doc, w) => (doc.text.len(), w.clone()),
        Prepared::Plain(text) => (text.as_str().len(), Vec::new()),
    }
}

fn chunk_one(
    input: &Input,
    chunker: &dyn Chunker,
    how: &Reading,
    late: Option<&Late>,
    context: Option<&crate::context::ContextStage>,
    writer: &ChunkWriter,
) -> Outcome {
    let prepared = match prepare(input, chunker, how, false) {
        Ok(p) => p,
        Err(skip) => return Outcome::Skipped(skip),
    };
    let source = input.source();
    let mut chunks = match chunks(input, &source, &prepared, chunker) {
        Ok(c) => c,
        Err(skip) => return Outcome::Skipped(skip),
    };
    let context_warnings = match context.map(|c| c.apply_prepared(&prepared, input, &mut chunks)) {
        Some(Err(e)) => return Outcome::Skipped(Skip::Error(anyhow!("{source}: {e:#}"))),
        Some(Ok(w)) => w,
        None => Vec::new(),
    };
    let vectors = match late
        .map(|l| l.vectors(&prepared, &chunks, &source))
        .transpose()
    {
        Ok(v) => v,
        Err(skip) => return Outcome::Skipped(skip),
    };
    let (bytes, mut warnings) = prepared_parts(&prepared);
    warnings.extend(context_warnings);
    let mut buf = Vec::with_capacity(bytes + chunks.len() * 256);
    if let Err(e) = writer.render_range(&chunks, vectors.as_deref(), 0..chunks.len(), &mut buf) {
        return Outcome::Skipped(Skip::Error(e.into()));
    }
    Outcome::Done {
        buf,
        chunks: chunks.len(),
        bytes,
        written: false,
        warnings,
    }
}

/// A big document is rendered and written a slice of chunks at a time.
fn chunk_big(
    input: &Input,
    chunker: &dyn Chunker,
    how: &Reading,
    late: Option<&Late>,
    context: Option<&crate::context::ContextStage>,
    writer: &mut ChunkWriter,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let prepared = match prepare(input, chunker, how, true) {
        Ok(p) => p,
        Err(skip) => return Ok(Outcome::Skipped(skip)),
    };
    let source = input.source();
    let mut chunks = match chunks(input, &source, &prepared, chunker) {
        Ok(c) => c,
        Err(skip) => return Ok(Outcome::Skipped(skip)),
    };
    let context_warnings = match context.map(|c| c.apply_prepared(&prepared, input, &mut chunks)) {
        Some(Err(e)) => return Ok(Outcome::Skipped(Skip::Error(anyhow!("{source}: {e:#}")))),
        Some(Ok(w)) => w,
        None => Vec::new(),
    };
    let vectors = match late
        .map(|l| l.vectors(&prepared, &chunks, &source))
        .transpose()
    {
        Ok(v) => v,
        Err(skip) => return Ok(Outcome::Skipped(skip)),
    };
    let mut buf = Vec::new();
    let mut start = 0;
    while start < chunks.len() {
        let end = (start + 4096).min(chunks.len());
        buf.clear();
        writer.render_range(&chunks, vectors.as_deref(), start..end, &mut buf)?;
        writer.write(out, &buf, end - start)?;
        start = end;
    }
    let (bytes, mut warnings) = prepared_parts(&prepared);
    warnings.extend(context_warnings);
    Ok(Outcome::Done {
        buf: Vec::new(),
        chunks: chunks.len(),
        bytes,
        written: true,
        warnings,
    })
}

/// `--strategy late`: the model every document is embedded with and the window settings; the
/// chunks' vectors go into the output as `embedding`.
pub struct Late {
    pub model: Arc<dyn Embedder>,
    pub opts: LateOptions,
    /// Totals over all documents, for the summary line.
    pub stats: LateStats,
}

/// What late chunking took, summed over documents.
#[derive(Default)]
pub struct LateStats {
    pub tokens: AtomicUsize,
    pub windows: AtomicUsize,
    pub forward_passes: AtomicUsize,
    pub direct: AtomicUsize,
}

impl Late {
    /// The late-chunking vectors of a document's chunks (one per chunk, in order).
    pub fn vectors(
        &self,
        prepared: &Prepared,
        chunks: &[Chunk<'_>],
        source: &str,
    ) -> Result<Vec<Vec<f32>>, Skip> {
        let text = match prepared {
            Prepared::Parsed(doc, _) => doc.text.as_str(),
            Prepared::Plain(text) => text.as_str(),
        };
        let spans: Vec<_> = chunks.iter().map(|c| c.start_byte..c.end_byte).collect();
        let late = late_embeddings(self.model.as_ref(), text, &spans, &self.opts)
            .map_err(|e| Skip::Error(anyhow!("{source}: late chunking: {e}")))?;
        let s = &self.stats;
        s.tokens.fetch_add(late.tokens, Ordering::Relaxed);
        s.windows.fetch_add(late.windows.len(), Ordering::Relaxed);
        s.forward_passes
            .fetch_add(late.forward_passes, Ordering::Relaxed);
        s.direct.fetch_add(late.direct, Ordering::Relaxed);
        Ok(late.vectors)
    }

    /// One line for stderr: tokens, windows, model calls, chunks embedded on their own.
    pub fn summary(&self) -> String {
        let s = &self.stats;
        format!(
            "late chunking with {}: {} tokens in {} windows, {} model calls, {} chunks without tokens embedded on their own",
            self.model.name(),
            s.tokens.load(Ordering::Relaxed),
            s.windows.load(Ordering::Relaxed),
            s.forward_passes.load(Ordering::Relaxed),
            s.direct.load(Ordering::Relaxed),
        )
    }
}

impl ChunkingArgs {
    /// `--late-window` / `--late-overlap` as library options.
    pub fn late_options(&self) -> LateOptions {
        LateOptions {
            window: self.late_window,
            overlap: self.late_overlap,
        }
    }

    /// For `--strategy late`, the model (the pipeline's `--model`) and window settings to
    /// embed every document's chunks with; `None` for other strategies.
    pub fn late(&self, model: Option<&Arc<dyn Embedder>>) -> Option<Late> {
        (self.strategy == "late").then_some(())?;
        Some(Late {
            model: model?.clone(),
            opts: self.late_options(),
            stats: LateStats::default(),
        })
    }

    /// The strategy's chunker; for `late`, the `--boundaries` strategy wrapped in a
    /// [`LateChunker`] (strategy `late`, model and window settings in its config).
    fn build_chunker(
        &self,
        opts: &Options,
        sizer: Arc<dyn chunklab_core::Sizer>,
        model: Option<&dyn Embedder>,
    ) -> Result<Box<dyn Chunker>> {
        if self.strategy != "late" {
            if self.boundaries.is_some()
                || self.late_window.is_some()
                || self.late_overlap.is_some()
            {
                bail!("--boundaries, --late-window and --late-overlap apply to --strategy late");
            }
            return Ok(strategies::build(opts, sizer)?);
        }
        let Some(model) = model else {
            bail!("--strategy late needs --model (minilm, e5-small or a model directory): each document is embedded with it once");
        };
        let boundaries = self.boundaries.as_deref().unwrap_or("recursive");
        if boundaries == "late" {
            bail!("--boundaries late: the boundaries must come from another strategy (recursive, headings, sentence, paragraph, fixed, elements, ...)");
        }
        let inner = Options {
            strategy: boundaries.to_string(),
            ..opts.clone()
        };
        let chunker = strategies::build(&inner, sizer)
            .with_context(|| format!("--boundaries {boundaries}"))?;
        Ok(Box::new(
            LateChunker::new(chunker, model, self.late_options())
                .context("--late-window / --late-overlap")?,
        ))
    }
}
