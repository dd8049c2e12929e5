//! `chunklab chunk`: inputs → strategy → chunks in the chosen format, documents in parallel,
//! output in input order.

use crate::args::ChunkingArgs;
use crate::output::{ChunkWriter, Format};
use anyhow::{Context, Result};
use chunklab_pipeline::input::{self, Raw};
use chunklab_pipeline::{Input, Pipeline, Skip};
use std::io::{BufWriter, IsTerminal, Write};
use std::process::ExitCode;
use std::sync::mpsc::Receiver;
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
    /// Worker threads (default, and 0: all cores; at most 1024). The output is the same for any
    /// number.
    #[arg(long, short = 'j')]
    threads: Option<usize>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// A document's rendered output, or why it has none.
enum Outcome {
    /// `pieces` hold the rendered chunks (with their counts, in order), unless the document was
    /// big and already written.
    Done {
        pieces: Vec<(Vec<u8>, usize)>,
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
/// Documents at least this large (and smaller than [`BIG_DOCUMENT`]) are chunked one at a time,
/// their chunks rendered on all cores and written a wave of pieces at a time.
const LARGE_DOCUMENT: u64 = 4 << 20;
/// The input a task of the pool chunks itself, beyond which its mapped files are chunked alone
/// (see [`read_and_chunk`]).
const TASK_BYTES: u64 = 8 << 20;
/// Rendered output gathered from finished tasks before it is written.
const WRITE_BYTES: usize = 8 << 20;
/// The most worker threads `--threads` may ask for.
const MAX_THREADS: usize = 1024;
/// Documents chunked together as one task of the pool, so that their chunks' ids are hashed
/// side by side.
const ID_GROUP_DOCS: usize = 32;

pub fn run(a: ChunkArgs) -> Result<ExitCode> {
    let pipeline = a.chunking.pipeline()?;
    // The paths are checked now, before the output is created; the walk itself runs beside
    // the chunking.
    let walk = pipeline.walk(&a.paths)?;
    if let Some(n) = a.threads {
        if n > MAX_THREADS {
            // Each worker is an OS thread with its own stack: `-j 100000` spent minutes and
            // gigabytes starting threads before reading anything.
            let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
            anyhow::bail!(
                "--threads {n} is more than {MAX_THREADS} worker threads; 0 (the default) uses every core ({cores} here)"
            );
        }
        rayon::ThreadPoolBuilder::new()
            // 0 is rayon's "all cores", as ripgrep's `-j 0` is.
            .num_threads(n)
            .build_global()
            .context("cannot start worker threads")?;
    }

    // An input named as the output would be emptied before it is read: refused.
    if let Some(p) = &a.output {
        if let Some(own) = file_id(std::path::Path::new(p)) {
            if let Some(same) = a
                .paths
                .iter()
                .find(|i| file_id(std::path::Path::new(i)) == Some(own))
            {
                anyhow::bail!("{same} is both an input and the output (-o {p}): it would be emptied before it is read");
            }
        }
    }
    let out: Box<dyn Write> = match &a.output {
        Some(p) => {
            Box::new(std::fs::File::create(p).with_context(|| format!("{p}: cannot create"))?)
        }
        None => Box::new(std::io::stdout().lock()),
    };
    // The output file, found again by a directory walk, is not a document.
    let own_output = a
        .output
        .as_deref()
        .map(std::path::Path::new)
        .and_then(|p| Some((p.file_name()?.to_os_string(), file_id(p)?)));
    let mut out = BufWriter::with_capacity(1 << 20, out);
    let mut writer = ChunkWriter::new(a.format, &pipeline.unit_name);
    writer.begin(&mut out)?;

    let show = !a.quiet && std::io::stderr().is_terminal();
    let progress = if show {
        // Its length grows as the walk finds documents.
        let pb = indicatif::ProgressBar::new(0);
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
    // Counts a document's outcome, prints its warnings and returns the pieces it still has to
    // write.
    let mut report = |input: &Input, outcome: Outcome| -> Vec<(Vec<u8>, usize)> {
        let mut unwritten = Vec::new();
        match outcome {
            Outcome::Done {
                pieces,
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
                    unwritten = pieces;
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
        unwritten
    };

    // The walk finds the inputs on its own thread; a dispatcher thread cuts what it has found
    // into groups of at most ID_GROUP_DOCS documents and hands each to the pool as one task
    // (read, chunk, render); this thread takes the tasks' results in input order, writes them,
    // and chunks the large documents itself. The pool is never drained between groups: the
    // dispatcher keeps up to `in_flight` tasks queued ahead of the writer (a stream of tasks,
    // where batches of 512 documents with a read phase and a chunk phase left a core idle at
    // each batch's end, ~15 % of the corpus run). Memory: at most `in_flight` + 2 groups read
    // and rendered, each about TASK_BYTES (past that a task leaves its mapped files, like the
    // documents of LARGE_DOCUMENT or more, to this thread, which maps them again and chunks
    // them alone on all cores); when a write fails this thread stops listening, and the
    // others stop in turn.
    let render = ChunkWriter::new(a.format, &pipeline.unit_name);
    let pipeline = &pipeline;
    let render = &render;
    let found_progress = progress.clone();
    let in_flight = 2 * rayon::current_num_threads().max(1) + 2;
    std::thread::scope(|s| -> Result<()> {
        let (found, to_chunk) = std::sync::mpsc::channel::<Input>();
        s.spawn(move || {
            walk.run(|input| {
                // Names first: only a file named as the output is looked at again.
                if let Some((name, id)) = &own_output {
                    let path = input.path();
                    if path.file_name() == Some(name.as_os_str()) && file_id(path) == Some(*id) {
                        return true;
                    }
                }
                if let Some(pb) = &found_progress {
                    pb.inc_length(1);
                }
                found.send(input).is_ok()
            })
        });
        let (queued, to_write) = std::sync::mpsc::sync_channel::<Receiver<Vec<Item>>>(in_flight);
        s.spawn(move || {
            rayon::in_place_scope(|tasks| {
                while let Ok(first) = to_chunk.recv() {
                    let mut group = vec![first];
                    group.extend(to_chunk.try_iter().take(ID_GROUP_DOCS - 1));
                    let (result, task) = std::sync::mpsc::sync_channel(1);
                    tasks.spawn(move |_| {
                        // The writer may have stopped on an error: nobody to tell.
                        let _ = result.send(read_and_chunk(group, pipeline, render));
                    });
                    if queued.send(task).is_err() {
                        return; // the writer stopped on an error
                    }
                }
            });
        });
        // Rendered pieces not written yet: the results already done are written together.
        let mut unwritten: Vec<(Vec<u8>, usize)> = Vec::new();
        let mut next = to_write.recv().ok();
        while let Some(task) = next.take() {
            let items = match task.try_recv() {
                Ok(items) => items,
                Err(_) => {
                    // Not done yet: write what is, then wait for it.
                    flush(&mut writer, &mut out, &mut unwritten)?;
                    match task.recv() {
                        Ok(items) => items,
                        Err(_) => break, // the task panicked; the scope reports it
                    }
                }
            };
            for item in items {
                match item {
                    Item::Done(input, outcome) => unwritten.extend(report(&input, outcome)),
                    Item::Large(input, len) => {
                        flush(&mut writer, &mut out, &mut unwritten)?;
                        let outcome = if len >= BIG_DOCUMENT {
                            chunk_big(&input, pipeline, &mut writer, &mut out)?
                        } else {
                            chunk_large(&input, pipeline, &mut writer, &mut out)?
                        };
                        report(&input, outcome);
                    }
                }
            }
            let pending: usize = unwritten.iter().map(|(b, _)| b.len()).sum();
            next = match to_write.try_recv() {
                Ok(task) if pending < WRITE_BYTES => Some(task),
                found => {
                    flush(&mut writer, &mut out, &mut unwritten)?;
                    found.ok().or_else(|| to_write.recv().ok())
                }
            };
        }
        flush(&mut writer, &mut out, &mut unwritten)?;
        Ok(())
    })?;
    writer.end(&mut out)?;
    out.flush().context("cannot write output")?;
    if let Some(pb) = &progress {
        pb.finish_and_clear();
    }
    if docs + skipped + failed == 0 {
        // An empty or mistyped directory, or filters that leave nothing: not silent.
        eprintln!(
            "warning: no files to read under {} (hidden and .gitignored files are skipped{})",
            a.paths.join(", "),
            if a.chunking.include.is_empty() && a.chunking.exclude.is_empty() {
                ""
            } else {
                "; --include and --exclude apply"
            }
        );
    }
    if !a.quiet {
        let secs = started.elapsed().as_secs_f64();
        eprintln!(
            "chunked {} ({:.1} MB) into {} with {} in {secs:.2} s ({:.1} MB/s){}{}",
            count(docs, "document"),
            bytes as f64 / 1e6,
            count(chunks, "chunk"),
            pipeline.chunker.config(),
            bytes as f64 / 1e6 / secs.max(1e-9),
            if skipped > 0 {
                format!("; {} skipped", count(skipped, "binary file"))
            } else {
                String::new()
            },
            if failed > 0 {
                format!("; {} FAILED", count(failed, "file"))
            } else {
                String::new()
            },
        );
        if let Some(late) = &pipeline.late {
            eprintln!("{}", late.summary());
        }
        if let Some(summary) = pipeline.llm_strategy_summary() {
            eprintln!("{summary}");
        }
        if let Some(context) = &pipeline.context {
            eprintln!("{}", context.summary());
        }
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// One input of a group, as the pool hands it to the writing thread (in input order).
enum Item {
    /// A document chunked and rendered (or skipped).
    Done(Input, Outcome),
    /// A document to chunk alone (with its length): of at least [`LARGE_DOCUMENT`] bytes, or
    /// mapped after its task had read [`TASK_BYTES`].
    Large(Input, u64),
}

/// One task of the pool: a group's files read (their lengths what was read: asking for the
/// lengths first was a `statx` of every path, 8,073 for the corpus), its documents chunked
/// together ([`chunk_group`]), except the large ones, left to the writer, which maps them again
/// and chunks them alone on all cores. Once the group has read [`TASK_BYTES`], its further
/// mapped files (of [`input::READ_BELOW`] or more) count as large too, so that a task holds
/// at most about `TASK_BYTES` + [`LARGE_DOCUMENT`] + `ID_GROUP_DOCS` × `READ_BELOW` of input
/// and its rendering. Standard input, which cannot be read again, is chunked here whatever its
/// length.
fn read_and_chunk(group: Vec<Input>, pipeline: &Pipeline, render: &ChunkWriter) -> Vec<Item> {
    let mut large = Vec::new();
    let mut small = Vec::with_capacity(group.len());
    let mut reads = Vec::with_capacity(group.len());
    let mut read = 0u64;
    for (i, input) in group.into_iter().enumerate() {
        let raw = input::read(&input);
        let len = raw.as_ref().map_or(0, |raw| raw.bytes().len() as u64);
        let alone = len >= LARGE_DOCUMENT || (read >= TASK_BYTES && len >= input::READ_BELOW);
        if alone && matches!(input, Input::File { .. }) {
            large.push((i, Item::Large(input, len)));
        } else {
            read += len;
            small.push(input);
            reads.push(raw);
        }
    }
    let outcomes = chunk_group(&small, reads, pipeline, render);
    let mut done = small
        .into_iter()
        .zip(outcomes)
        .map(|(i, o)| Item::Done(i, o));
    let mut large = large.into_iter().peekable();
    let mut items = Vec::with_capacity(done.len() + large.len());
    loop {
        match large.peek() {
            Some((at, _)) if *at == items.len() => items.push(large.next().expect("peeked").1),
            _ => match done.next() {
                Some(item) => items.push(item),
                None => break,
            },
        }
    }
    items.extend(large.map(|(_, item)| item));
    items
}

/// Writes the rendered pieces waiting in `unwritten` (a whole run of results in few system
/// calls, straight from their buffers) and empties it.
fn flush(
    writer: &mut ChunkWriter,
    out: &mut dyn Write,
    unwritten: &mut Vec<(Vec<u8>, usize)>,
) -> std::io::Result<()> {
    writer.write_pieces(out, unwritten.iter().map(|(b, k)| (&b[..], *k)))?;
    unwritten.clear();
    Ok(())
}

fn warn(pb: Option<&indicatif::ProgressBar>, msg: &str) {
    match pb {
        Some(pb) => pb.println(msg),
        None => eprintln!("{msg}"),
    }
}

/// Small documents (read as `read`) chunked together on one core, their ids hashed side by side
/// ([`Pipeline::with_processed_each_read`]), and each rendered into its own buffers.
fn chunk_group(
    inputs: &[Input],
    read: Vec<Result<Raw, Skip>>,
    pipeline: &Pipeline,
    writer: &ChunkWriter,
) -> Vec<Outcome> {
    let done = pipeline.with_processed_each_read(inputs, read, |doc| {
        let n = doc.chunks.len();
        let mut bufs = Vec::new();
        let counts = writer.render_pieces(&doc.chunks, doc.vectors.as_deref(), 0..n, &mut bufs)?;
        Ok::<_, std::io::Error>(Outcome::Done {
            pieces: bufs.into_iter().zip(counts).collect(),
            chunks: n,
            bytes: doc.bytes,
            written: false,
            warnings: doc.warnings,
        })
    });
    done.into_iter()
        .map(|d| match d {
            Ok(Ok(outcome)) => outcome,
            Ok(Err(e)) => Outcome::Skipped(Skip::Error(e.into())),
            Err(skip) => Outcome::Skipped(skip),
        })
        .collect()
}

/// A large document is chunked whole (its chunks made on all cores), then rendered on all cores
/// and written a wave of pieces at a time, before the next batch.
fn chunk_large(
    input: &Input,
    pipeline: &Pipeline,
    writer: &mut ChunkWriter,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let done = pipeline.with_processed(input, |doc| {
        let n = doc.chunks.len();
        let mut bufs = Default::default();
        writer.render_and_write(out, &doc.chunks, doc.vectors.as_deref(), 0..n, &mut bufs)?;
        Ok::<_, std::io::Error>(Outcome::Done {
            pieces: Vec::new(),
            chunks: n,
            bytes: doc.bytes,
            written: true,
            warnings: doc.warnings,
        })
    });
    Ok(match done {
        Ok(outcome) => outcome?,
        Err(skip) => Outcome::Skipped(skip),
    })
}

/// A big document is chunked, rendered and written a window of chunks at a time
/// ([`Pipeline::process_windowed`]): plain text never holds more than a window of chunks.
fn chunk_big(
    input: &Input,
    pipeline: &Pipeline,
    writer: &mut ChunkWriter,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let prepared = match pipeline.prepare(input, true) {
        Ok(p) => p,
        Err(skip) => return Ok(Outcome::Skipped(skip)),
    };
    let source = input.source();
    let mut write_error = None;
    let mut bufs = Default::default();
    let mut each = |w: chunklab_pipeline::Window| {
        let written = writer.render_and_write(out, w.chunks, w.vectors, w.new, &mut bufs);
        written.map_err(|e| {
            let message = e.to_string();
            write_error = Some(e);
            anyhow::anyhow!(message)
        })
    };
    let done = pipeline.process_windowed(input, &source, &prepared, 4096, &mut each);
    if let Some(e) = write_error {
        return Err(e.into());
    }
    Ok(match done {
        Ok(d) => Outcome::Done {
            pieces: Vec::new(),
            chunks: d.chunks,
            bytes: d.bytes,
            written: true,
            warnings: d.warnings,
        },
        Err(skip) => Outcome::Skipped(skip),
    })
}

/// `n` and the noun, plural unless `n` is 1: `1 document`, `3 documents`.
fn count(n: usize, noun: &str) -> String {
    match n {
        1 => format!("1 {noun}"),
        n => format!("{n} {noun}s"),
    }
}

/// The device and inode of the file at `path` (`None`: no such file).
fn file_id(path: &std::path::Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}
