//! chunklab's side of the peer benchmark's `--external` protocol (`/work/shared/peers/bench_peers.py`).
//!
//! The harness runs this binary with the inputs and settings in the environment:
//!
//! | variable | meaning |
//! |---|---|
//! | `BENCH_FILE_LIST` | file holding the input paths, NUL-separated |
//! | `BENCH_TASK` | `recursive`, `token`, `markdown`; also `tokenize` / `measure` (baselines, see below) |
//! | `BENCH_CHUNK_SIZE`, `BENCH_OVERLAP` | size limit and overlap, in `BENCH_SIZE_UNIT` |
//! | `BENCH_SIZE_UNIT` | `chars` (Unicode scalar values), `words` or `tokens` |
//! | `BENCH_ENCODING` | tokenizer for `tokens`: `cl100k_base` (default) or `o200k_base` |
//! | `BENCH_RUNS` | number of timed runs |
//!
//! chunklab-only knobs (not sent by the harness; set them in the `--external` command):
//!
//! | variable | meaning |
//! |---|---|
//! | `BENCH_STRATEGY` | strategy to build instead of the task's default (`recursive` → `recursive`, `token` → `fixed`, `markdown` → `headings`, parsed with the Markdown parser inside the timed region) |
//! | `BENCH_API` | `spans` (default: `Chunker::spans`, the span list) or `chunks` (`chunk_document`: full `Chunk`s with ids and char offsets) |
//! | `BENCH_DUMP_SPANS` | after each run, write every span as `doc<TAB>start<TAB>end<TAB>tokens` lines (byte offsets, `doc` = index in the file list) to this path, for an outside check of the size limit |
//!
//! Every file is read into memory first (untimed, invalid UTF-8 replaced like Python's
//! `errors="replace"`). Each run builds the chunker (untimed), chunks a 20 kB prefix of the first
//! document once to warm up (untimed, as the harness does for the peers), then chunks the documents
//! one after another on one thread; only that loop is timed. Chunk statistics (count, chars,
//! longest chunk in chars, largest `Span::tokens`) are computed after the clock stops, from the
//! spans the run produced. One JSON line per run goes to stdout:
//! `{"wall_s", "cpu_s", "chunks", "chunk_chars", "max_chunk_chars", "max_chunk_units", "threads": 1}`
//! (`max_chunk_units` is in `BENCH_SIZE_UNIT`: the hard limit the strategy guarantees).
//!
//! Baselines: `BENCH_TASK=tokenize` times `Sizer::count` over each whole document (encoding the
//! text once); `BENCH_TASK=measure` times `Sizer::measure` (encoding plus recording every token's
//! end offset, the one pass a token-limited chunker starts with). They print the same JSON line,
//! with `chunks` = number of documents, `chunk_chars` = input chars and an extra `"tokens"`.
//!
//! ```sh
//! printf '%s\0' README.md > /tmp/list
//! BENCH_FILE_LIST=/tmp/list BENCH_TASK=recursive BENCH_CHUNK_SIZE=2000 BENCH_OVERLAP=200 \
//!   BENCH_SIZE_UNIT=chars BENCH_RUNS=3 chunklab-bench-driver
//! ```

use anyhow::{bail, Context, Result};
use chunklab_core::strategies;
use chunklab_core::text::{count_chars, floor_char_boundary};
use chunklab_core::ChunkConfig;
use chunklab_core::{chunk_document, Chunker, Document, Sizer, Span};
use chunklab_parse::markdown::parse_markdown;
use chunklab_parse::Limits;
use std::sync::Arc;
use std::time::Instant;

/// The settings the harness passes, plus chunklab's own knobs.
#[derive(Debug)]
struct Config {
    files: Vec<String>,
    task: String,
    size: usize,
    overlap: usize,
    unit: String,
    encoding: String,
    runs: usize,
    strategy: Option<String>,
    api: Api,
    dump_spans: Option<String>,
}

/// What the timed loop calls per document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Api {
    Spans,
    Chunks,
}

/// Statistics of one run, printed as one JSON line.
#[derive(Debug, Default, PartialEq, Eq)]
struct Stats {
    chunks: usize,
    chunk_chars: usize,
    max_chunk_chars: usize,
    max_chunk_units: usize,
    tokens: Option<usize>,
}

fn main() -> Result<()> {
    let cfg = Config::from_env()?;
    let docs = load(&cfg.files)?;
    let mut first: Option<Stats> = None;
    for run in 0..cfg.runs {
        let (wall_s, cpu_s, stats) = match cfg.task.as_str() {
            "tokenize" | "measure" => time_tokenizer(&cfg, &docs)?,
            _ => time_chunking(&cfg, &docs)?,
        };
        println!("{}", json_line(wall_s, cpu_s, &stats));
        match &first {
            None => first = Some(stats),
            Some(f) if *f != stats => {
                eprintln!("WARNING: run {run} stats differ: {f:?} vs {stats:?}")
            }
            Some(_) => {}
        }
    }
    Ok(())
}

impl Config {
    fn from_env() -> Result<Self> {
        let list = var("BENCH_FILE_LIST")?;
        let raw = std::fs::read(&list).with_context(|| format!("reading {list}"))?;
        let files = raw
            .split(|&b| b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| String::from_utf8_lossy(p).into_owned())
            .collect();
        let task = var("BENCH_TASK")?;
        let default_unit = if task == "token" { "tokens" } else { "chars" };
        let api = match var_or("BENCH_API", "spans").as_str() {
            "spans" => Api::Spans,
            "chunks" => Api::Chunks,
            other => bail!("BENCH_API must be spans or chunks, not `{other}`"),
        };
        Ok(Self {
            files,
            size: parse(&var_or("BENCH_CHUNK_SIZE", "2000"), "BENCH_CHUNK_SIZE")?,
            overlap: parse(&var_or("BENCH_OVERLAP", "0"), "BENCH_OVERLAP")?,
            unit: var_or("BENCH_SIZE_UNIT", default_unit),
            encoding: var_or("BENCH_ENCODING", "cl100k_base"),
            runs: parse(&var_or("BENCH_RUNS", "1"), "BENCH_RUNS")?,
            strategy: std::env::var("BENCH_STRATEGY")
                .ok()
                .filter(|s| !s.is_empty()),
            api,
            dump_spans: std::env::var("BENCH_DUMP_SPANS")
                .ok()
                .filter(|s| !s.is_empty()),
            task,
        })
    }

    /// The strategy the task maps to, unless `BENCH_STRATEGY` overrides it.
    fn strategy(&self) -> String {
        if let Some(s) = &self.strategy {
            return s.clone();
        }
        match self.task.as_str() {
            "token" => "fixed".into(),
            "markdown" => "headings".into(),
            other => other.into(),
        }
    }

    /// The sizer `BENCH_SIZE_UNIT` names; tokenize/measure always use the tokenizer.
    fn sizer(&self) -> Result<Arc<dyn Sizer>> {
        let unit = match self.task.as_str() {
            "tokenize" | "measure" => "tokens",
            _ => self.unit.as_str(),
        };
        Ok(chunklab_tokenizers::sizer_from_spec(
            unit,
            Some(&self.encoding),
            false,
        )?)
    }
}

fn var(name: &str) -> Result<String> {
    std::env::var(name).with_context(|| format!("${name} is not set"))
}

fn var_or(name: &str, default: &str) -> String {
    std::env::var(name)
        .ok()
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| default.to_string())
}

fn parse(s: &str, name: &str) -> Result<usize> {
    s.trim()
        .parse()
        .with_context(|| format!("${name}={s:?} is not a number"))
}

/// Reads every file (untimed), replacing invalid UTF-8 the way Python's `errors="replace"` does.
fn load(files: &[String]) -> Result<Vec<String>> {
    files
        .iter()
        .map(|p| {
            let bytes = std::fs::read(p).with_context(|| format!("reading {p}"))?;
            Ok(match String::from_utf8(bytes) {
                Ok(s) => s,
                Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
            })
        })
        .collect()
}

/// Size of the untimed warm-up call (the harness warms the peers up on 20,000 chars).
const WARM_UP_BYTES: usize = 20_000;

/// One run of chunking every document in order; returns wall and CPU seconds and the stats.
fn time_chunking(cfg: &Config, docs: &[String]) -> Result<(f64, f64, Stats)> {
    // Built per run but outside the timed region, like the harness does for the peers.
    let strategy = cfg.strategy();
    let defaults = ChunkConfig::new(strategy.parse().map_err(anyhow::Error::msg)?, cfg.size);
    // The harness sends its overlap with every task; `headings` and `elements` take none (their
    // chunks are whole sections and elements), and the typed configuration refuses a parameter
    // a strategy does not take.
    let takes_overlap = strategies::catalog()
        .iter()
        .any(|info| info.name == strategy && info.params.iter().any(|p| p.name == "overlap"));
    let opts = ChunkConfig {
        overlap: if takes_overlap {
            cfg.overlap
        } else {
            defaults.overlap
        },
        ..defaults
    };
    let chunker = strategies::build(&opts, cfg.sizer()?, None)?;
    let structured = chunker.needs_structure();
    if let Some(first) = docs.first() {
        let head = &first[..floor_char_boundary(first, WARM_UP_BYTES)];
        if structured {
            chunker.chunk_parsed(&parse_markdown(head, &Limits::default()))?;
        } else {
            chunker.spans(head)?;
        }
    }
    let mut all: Vec<Vec<Span>> = Vec::with_capacity(docs.len());
    let (w0, c0) = (Instant::now(), cpu_seconds());
    match cfg.api {
        // Structure-aware strategies: parsing the Markdown is part of the timed work, as it is
        // for LangChain's MarkdownHeaderTextSplitter.
        _ if structured => {
            for doc in docs {
                let parsed = parse_markdown(doc, &Limits::default());
                let spans = chunker.chunk_parsed(&parsed)?;
                all.push(spans.into_iter().map(|(s, _)| s).collect());
            }
        }
        Api::Spans => {
            for doc in docs {
                all.push(chunker.spans(doc)?);
            }
        }
        Api::Chunks => {
            for doc in docs {
                all.push(spans_of_chunks(doc, chunker.as_ref())?);
            }
        }
    }
    let (wall, cpu) = (w0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    let mut stats = Stats::default();
    for (doc, spans) in docs.iter().zip(&all) {
        for s in spans {
            let chars = count_chars(&doc[s.start..s.end]);
            stats.chunks += 1;
            stats.chunk_chars += chars;
            stats.max_chunk_chars = stats.max_chunk_chars.max(chars);
            stats.max_chunk_units = stats.max_chunk_units.max(s.tokens);
        }
    }
    if let Some(path) = &cfg.dump_spans {
        write_spans(path, &all)?;
    }
    Ok((wall, cpu, stats))
}

/// Writes `doc<TAB>start<TAB>end<TAB>tokens` per span (untimed; `BENCH_DUMP_SPANS`).
fn write_spans(path: &str, all: &[Vec<Span>]) -> Result<()> {
    use std::io::Write;
    let file = std::fs::File::create(path).with_context(|| format!("creating {path}"))?;
    let mut w = std::io::BufWriter::new(file);
    for (doc, spans) in all.iter().enumerate() {
        for s in spans {
            writeln!(w, "{doc}\t{}\t{}\t{}", s.start, s.end, s.tokens)?;
        }
    }
    w.flush()?;
    Ok(())
}

/// `chunk_document` (full chunks: ids, char offsets), reduced to spans so the timed loop keeps the
/// same amount of output alive as the spans API. The chunks are dropped inside the timed region.
fn spans_of_chunks(doc: &str, chunker: &dyn Chunker) -> Result<Vec<Span>> {
    let chunks = chunk_document(&Document::new("doc", "bench", doc), chunker)?;
    Ok(chunks
        .iter()
        .map(|c| Span::new(c.start_byte, c.end_byte, c.tokens))
        .collect())
}

/// One run of the tokenizer alone over every document: `count` (tokenize) or `measure`.
fn time_tokenizer(cfg: &Config, docs: &[String]) -> Result<(f64, f64, Stats)> {
    let sizer = cfg.sizer()?;
    let measure = cfg.task == "measure";
    if let Some(first) = docs.first() {
        sizer.count(&first[..floor_char_boundary(first, WARM_UP_BYTES)]);
    }
    let mut tokens = 0usize;
    let (w0, c0) = (Instant::now(), cpu_seconds());
    for doc in docs {
        tokens += if measure {
            sizer.measure(doc).len(doc)
        } else {
            sizer.count(doc)
        };
    }
    let (wall, cpu) = (w0.elapsed().as_secs_f64(), cpu_seconds() - c0);
    let chars: Vec<usize> = docs.iter().map(|d| count_chars(d)).collect();
    let stats = Stats {
        chunks: docs.len(),
        chunk_chars: chars.iter().sum(),
        max_chunk_chars: chars.iter().copied().max().unwrap_or(0),
        max_chunk_units: 0,
        tokens: Some(tokens),
    };
    Ok((wall, cpu, stats))
}

/// User + system CPU time of this process so far, in seconds.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage only writes into the zeroed struct we pass.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return f64::NAN;
    }
    let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

fn json_line(wall_s: f64, cpu_s: f64, s: &Stats) -> String {
    let mut v = serde_json::json!({
        "wall_s": wall_s,
        "chunks": s.chunks,
        "chunk_chars": s.chunk_chars,
        "max_chunk_chars": s.max_chunk_chars,
        "threads": 1,
    });
    // cpu_s is optional in the protocol; leave it out rather than send null.
    if cpu_s.is_finite() {
        v["cpu_s"] = cpu_s.into();
    }
    match s.tokens {
        Some(t) => v["tokens"] = t.into(),
        None => v["max_chunk_units"] = s.max_chunk_units.into(),
    }
    v.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(task: &str, unit: &str, size: usize, overlap: usize) -> Config {
        Config {
            files: Vec::new(),
            task: task.into(),
            size,
            overlap,
            unit: unit.into(),
            encoding: "cl100k_base".into(),
            runs: 1,
            strategy: None,
            api: Api::Spans,
            dump_spans: None,
        }
    }

    fn docs() -> Vec<String> {
        vec![
            "Een zin over windenergie. ".repeat(40),
            String::new(),
            "naïve café 😀 中文\r\n\r\n".repeat(30),
        ]
    }

    #[test]
    fn recursive_chars_respects_the_limit_and_both_apis_agree() {
        let mut cfg = config("recursive", "chars", 100, 10);
        let (_, _, spans) = time_chunking(&cfg, &docs()).unwrap();
        assert!(spans.chunks > 2);
        assert!(spans.max_chunk_chars <= 100);
        assert_eq!(spans.max_chunk_units, spans.max_chunk_chars);
        cfg.api = Api::Chunks;
        let (_, _, chunks) = time_chunking(&cfg, &docs()).unwrap();
        assert_eq!(spans, chunks);
    }

    #[test]
    fn token_task_defaults_to_fixed_windows_in_tokens() {
        let cfg = config("token", "tokens", 16, 4);
        assert_eq!(cfg.strategy(), "fixed");
        let (_, _, stats) = time_chunking(&cfg, &docs()).unwrap();
        assert!(stats.chunks > 0);
        assert!(stats.max_chunk_units <= 16);
    }

    #[test]
    fn tokenize_and_measure_count_the_same_tokens() {
        let (_, _, count) = time_tokenizer(&config("tokenize", "chars", 0, 0), &docs()).unwrap();
        let (_, _, measure) = time_tokenizer(&config("measure", "chars", 0, 0), &docs()).unwrap();
        assert_eq!(count, measure);
        assert_eq!(count.chunks, 3);
        assert!(count.tokens.unwrap() > 0);
    }

    #[test]
    fn unknown_strategy_is_an_error_not_a_panic() {
        assert!(time_chunking(&config("markdown-nope", "chars", 10, 0), &docs()).is_err());
    }
}
