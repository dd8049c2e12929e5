//! `chunklab index`: chunk, embed and index files into an on-disk index, incrementally.
//!
//! Inputs are read and chunked exactly as `chunklab chunk` does (same flags, same pipeline). Each
//! file's BLAKE3 content hash (with its access groups) is compared with the index: unchanged
//! files are skipped, changed ones re-chunked and re-embedded, files that are gone are removed.
//! Documents are committed in batches, so an interrupted run keeps every batch it finished and
//! the next run picks up the rest.

use crate::args::ChunkingArgs;
use anyhow::{bail, Context, Result};
use chunklab_embed::Role;
use chunklab_index::{IndexWriter, NewDocument, StoreWriter};
use chunklab_pipeline::{Input, Pipeline, Skip};
use globset::{Glob, GlobMatcher};
use rayon::prelude::*;
use std::collections::{BTreeMap, HashSet};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// The embedding model when `--model` is not given.
pub const DEFAULT_MODEL: &str = "minilm";

#[derive(clap::Args, Debug)]
pub struct IndexArgs {
    /// Files and directories to index (directories are walked like `chunklab chunk` does).
    /// Files indexed before and not found under these paths now are removed from the index.
    #[arg(required_unless_present = "check")]
    paths: Vec<String>,
    /// Verify the index (manifest, checksums of the store, BM25, vectors) and report every
    /// problem with the documents it affects; exit 1 when there is one. Nothing is written.
    #[arg(long, conflicts_with = "rebuild")]
    check: bool,
    /// Index directory (created when missing).
    #[arg(long, required_unless_present = "store", conflicts_with = "store")]
    index: Option<PathBuf>,
    /// The store to write: a PostgreSQL URL (`postgres://user@host:5432/db`, any libpq URL, the
    /// password from the URL or $PGPASSWORD; schema created and migrated by chunklab) or an
    /// index directory.
    #[arg(long, value_name = "URL|DIR")]
    store: Option<String>,
    #[command(flatten)]
    chunking: ChunkingArgs,
    /// Access group for documents whose path matches GLOB: `--acl 'besluiten/**=team-a'`
    /// (repeatable; a document gets every group whose glob matches; searched with
    /// `--filter acl=GROUP`).
    #[arg(long, value_name = "GLOB=GROUP")]
    acl: Vec<String>,
    /// Custom metadata field for documents whose path matches GLOB:
    /// `--meta 'besluiten/**=type:besluit'` (searched with `--filter type=besluit`).
    #[arg(long, value_name = "GLOB=FIELD:VALUE")]
    meta: Vec<String>,
    /// Empty the index and index everything again (needed after changing chunking options or
    /// the model).
    #[arg(long)]
    rebuild: bool,
    /// Documents per commit: a crash keeps every finished commit.
    #[arg(long, default_value_t = 32)]
    commit_every: usize,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// A glob over document ids / sources with what it assigns.
struct Rule<T> {
    glob: GlobMatcher,
    value: T,
}

fn rules<T>(
    specs: &[String],
    flag: &str,
    parse: impl Fn(&str) -> Option<T>,
) -> Result<Vec<Rule<T>>> {
    specs
        .iter()
        .map(|s| {
            let (glob, value) = s
                .rsplit_once('=')
                .filter(|(g, v)| !g.is_empty() && !v.is_empty())
                .with_context(|| format!("{flag} `{s}` is not GLOB=VALUE"))?;
            let value =
                parse(value).with_context(|| format!("{flag} `{s}`: bad value `{value}`"))?;
            let glob = Glob::new(glob)
                .with_context(|| format!("{flag} `{s}`: invalid glob"))?
                .compile_matcher();
            Ok(Rule { glob, value })
        })
        .collect()
}

/// A document to (re)index, after hashing and before chunking.
struct Todo {
    input: Input,
    hash: String,
    acl: Vec<String>,
    fields: BTreeMap<String, String>,
    update: bool,
}

/// A chunked document, ready to embed.
struct Chunked {
    doc: NewDocument,
    /// Texts to embed, one per chunk; empty when the vectors came from late chunking.
    embed_texts: Vec<String>,
    /// `--strategy late`: the chunks already carry their vectors.
    late: bool,
    warnings: Vec<String>,
}

pub fn run(a: IndexArgs) -> Result<ExitCode> {
    let location = match (&a.index, &a.store) {
        (Some(dir), _) => dir.display().to_string(),
        (None, Some(s)) => s.clone(),
        (None, None) => bail!("give --index DIR or --store URL|DIR"),
    };
    let postgres = chunklab_postgres::is_postgres_url(&location);
    if a.check {
        if postgres {
            bail!("--check verifies an index directory; a PostgreSQL store is checked by the server itself");
        }
        let report = chunklab_index::check(std::path::Path::new(&location))?;
        println!("{report}");
        if report.is_ok() {
            return Ok(ExitCode::SUCCESS);
        }
        eprintln!(
            "{}",
            if report.repairable() {
                "run `chunklab index` with the same paths to repair (BM25 and vectors are rebuilt from the store without re-embedding; damaged documents are indexed again)"
            } else {
                "the store itself is damaged beyond repair: run `chunklab index --rebuild`"
            }
        );
        return Ok(ExitCode::from(1));
    }
    let started = Instant::now();
    let acl_rules = rules(&a.acl, "--acl", |v| Some(v.to_string()))?;
    let meta_rules = rules(&a.meta, "--meta", |v| {
        v.split_once(':')
            .filter(|(f, v)| !f.is_empty() && !v.is_empty())
            .map(|(f, v)| (f.to_string(), v.to_string()))
    })?;
    for r in &meta_rules {
        if chunklab_index::filter::BUILTIN_FIELDS.contains(&r.value.0.as_str()) {
            bail!(
                "--meta field `{}` is a built-in filter field; choose another name",
                r.value.0
            );
        }
    }
    let pipeline = a.chunking.pipeline()?;
    let (model_spec, model) = pipeline.index_model(DEFAULT_MODEL)?;
    let settings = pipeline.index_settings(&model_spec, model.as_ref());
    let inputs = pipeline.collect(&a.paths)?;
    if inputs.iter().any(|i| matches!(i, Input::Stdin)) {
        bail!("chunklab index reads files and directories, not stdin (`-`)");
    }
    let mut writer: Box<dyn StoreWriter> = if postgres {
        chunklab_postgres::open_writer(&location, settings, a.rebuild)?
    } else {
        let w = IndexWriter::open(std::path::Path::new(&location), settings, a.rebuild)?;
        let repaired = w.repaired();
        if repaired.any() {
            eprintln!(
                "warning: {location}: the index was damaged and is repaired: {}{}{} documents dropped to be indexed again",
                if repaired.bm25_rebuilt { "BM25 rebuilt from the store; " } else { "" },
                if repaired.vectors_rebuilt { "vectors rebuilt from the store; " } else { "" },
                repaired.dropped_documents.len(),
            );
        }
        Box::new(w)
    };
    // Where the store is, without a password, for messages.
    let shown = writer.location();

    // Decide what to do with every input: hash it and compare with the index.
    let hashed: Vec<(Input, Result<String, String>)> = inputs
        .par_iter()
        .map(|inp| {
            let hash = std::fs::read(inp.path())
                .map(|bytes| blake3::hash(&bytes).to_hex().to_string())
                .map_err(|e| format!("{}: {e}", inp.source()));
            (inp.clone(), hash)
        })
        .collect();
    let mut todo = Vec::new();
    let mut seen = HashSet::new();
    let (mut unchanged, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    for (inp, h) in hashed {
        let doc_id = inp.doc_id().to_string();
        if !seen.insert(doc_id.clone()) {
            eprintln!(
                "warning: {}: document id `{doc_id}` given twice; indexed once",
                inp.source()
            );
            continue;
        }
        // An unreadable file keeps what the index has of it.
        let file_hash = match h {
            Ok(x) => x,
            Err(e) => {
                eprintln!("error: {e}");
                failed += 1;
                continue;
            }
        };
        let matches = |g: &GlobMatcher| g.is_match(&doc_id) || g.is_match(inp.path());
        let acl: Vec<String> = acl_rules
            .iter()
            .filter(|r| matches(&r.glob))
            .map(|r| r.value.clone())
            .collect();
        let fields: BTreeMap<String, String> = meta_rules
            .iter()
            .filter(|r| matches(&r.glob))
            .map(|r| r.value.clone())
            .collect();
        let hash = format!("{file_hash} acl={acl:?} meta={fields:?}");
        match writer.document_hash(&doc_id) {
            Some(h) if h == hash => unchanged += 1,
            existing => todo.push(Todo {
                update: existing.is_some(),
                input: inp,
                hash,
                acl,
                fields,
            }),
        }
    }
    let mut removed = 0usize;
    for doc_id in writer.doc_ids() {
        if !seen.contains(&doc_id) {
            writer.remove_document(&doc_id)?;
            removed += 1;
        }
    }

    // Progress counts the slow unit: bytes of documents chunked and embedded (the bar and its
    // ETA), with chunks embedded and their rate in the message; without a terminal, one line per
    // committed batch (at most every 2 s).
    let show = !a.quiet && std::io::stderr().is_terminal();
    let todo_bytes: u64 = todo
        .iter()
        .map(|t| std::fs::metadata(t.input.path()).map_or(0, |m| m.len()))
        .sum();
    let progress = show.then(|| {
        let pb = indicatif::ProgressBar::new(todo_bytes.max(1));
        pb.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30} {percent}% {msg} [{elapsed_precise}, eta {eta}]",
            )
            .expect("valid template"),
        );
        pb
    });
    let embed_started = Instant::now();
    let (mut docs_done, mut bytes_done) = (0usize, 0u64);
    let mut last_line = Instant::now();
    let warn = |msg: String| match &progress {
        Some(pb) => pb.println(msg),
        None => eprintln!("{msg}"),
    };
    let (mut added, mut updated, mut chunks_total) = (0usize, 0usize, 0usize);
    let (mut truncated, mut embedded) = (0usize, 0usize);
    let window = model.token_capacity();
    let batch = a.commit_every.max(1);
    for group in todo.chunks(batch) {
        let chunked: Vec<Result<Chunked, Skip>> =
            group.par_iter().map(|t| chunk_one(t, &pipeline)).collect();
        let mut ready = Vec::new();
        for (t, c) in group.iter().zip(chunked) {
            match c {
                Ok(c) => {
                    for w in &c.warnings {
                        warn(format!("warning: {}: {w}", t.input.source()));
                    }
                    ready.push((t, c));
                }
                Err(Skip::Binary) => {
                    skipped += 1;
                    warn(format!(
                        "warning: {}: binary file skipped",
                        t.input.source()
                    ));
                }
                Err(Skip::Error(e)) => {
                    failed += 1;
                    warn(format!("error: {e:#}"));
                }
            }
        }
        // One embedding call for the whole batch: the model batches by length across documents.
        let texts: Vec<&str> = ready
            .iter()
            .flat_map(|(_, c)| c.embed_texts.iter().map(String::as_str))
            .collect();
        // Chunks longer than the model's window lose their tail when embedded: counted and
        // reported, never silent.
        truncated += texts
            .par_iter()
            .filter(|t| model.token_spans(t).is_ok_and(|s| s.len() > window))
            .count();
        embedded += texts.len();
        if let Some(pb) = &progress {
            pb.set_message(format!(
                "{docs_done}/{} docs, embedding {} more chunks",
                todo.len(),
                texts.len()
            ));
        }
        let mut vectors = model
            .embed(&texts, Role::Passage)
            .with_context(|| format!("embedding with {model_spec}"))?
            .into_iter();
        for (t, mut c) in ready {
            if !c.late {
                for chunk in &mut c.doc.chunks {
                    chunk.vector = vectors.next().expect("one vector per text");
                }
            }
            chunks_total += c.doc.chunks.len();
            writer.add_document(c.doc)?;
            if t.update {
                updated += 1;
            } else {
                added += 1;
            }
        }
        writer.commit()?;
        docs_done += group.len();
        let group_bytes: u64 = group
            .iter()
            .map(|t| std::fs::metadata(t.input.path()).map_or(0, |m| m.len()))
            .sum();
        bytes_done += group_bytes;
        let secs = embed_started.elapsed().as_secs_f64().max(1e-9);
        let rate = chunks_total as f64 / secs;
        let line = format!(
            "{docs_done}/{} docs, {chunks_total} chunks embedded ({rate:.1} chunks/s)",
            todo.len()
        );
        match &progress {
            Some(pb) => {
                pb.set_position(bytes_done);
                pb.set_message(line);
            }
            None if !a.quiet
                && (last_line.elapsed().as_secs_f64() >= 2.0 || docs_done == todo.len()) =>
            {
                let eta = if bytes_done > 0 {
                    secs * (todo_bytes.saturating_sub(bytes_done)) as f64 / bytes_done as f64
                } else {
                    0.0
                };
                eprintln!("progress: {line}, eta {eta:.0} s");
                last_line = Instant::now();
            }
            None => {}
        }
    }
    if truncated > 0 {
        eprintln!(
            "warning: {truncated} of {embedded} chunks are longer than {model_spec}'s {window}-token window and were truncated before embedding (their tails are only in BM25); chunk with --unit tokens --model {model_spec} or a smaller --size"
        );
    }
    let (store_docs, store_chunks) = writer.finish()?;
    if let Some(pb) = &progress {
        pb.finish_and_clear();
    }
    if !a.quiet {
        eprintln!(
            "indexed {}: {added} added, {updated} updated, {removed} removed, {unchanged} unchanged{}{}; {chunks_total} chunks embedded with {model_spec} in {:.2} s; the index holds {} documents, {} chunks",
            shown,
            if skipped > 0 { format!(", {skipped} binary skipped") } else { String::new() },
            if failed > 0 { format!(", {failed} FAILED") } else { String::new() },
            started.elapsed().as_secs_f64(),
            store_docs,
            store_chunks,
        );
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Read, parse and chunk one document exactly as `chunklab chunk` does.
fn chunk_one(t: &Todo, p: &Pipeline) -> Result<Chunked, Skip> {
    let prepared = p.prepare(&t.input, false)?;
    let source = t.input.source();
    let processed = p.process(&t.input, &source, &prepared)?;
    let warnings = processed.warnings.clone();
    let late = processed.vectors.is_some();
    let (doc, embed_texts) = chunklab_pipeline::index_document(
        t.input.doc_id(),
        &source,
        t.hash.clone(),
        prepared.text(),
        t.acl.clone(),
        t.fields.clone(),
        processed,
    );
    Ok(Chunked {
        doc,
        embed_texts,
        late,
        warnings,
    })
}
