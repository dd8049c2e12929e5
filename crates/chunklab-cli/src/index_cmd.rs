//! `chunklab index`: chunk, embed and index files into an on-disk index, incrementally.
//!
//! Inputs are read and chunked exactly as `chunklab chunk` does (same flags, same pipeline). Each
//! file's BLAKE3 content hash (with its access groups) is compared with the index: unchanged
//! files are skipped, changed ones re-chunked and re-embedded, files that are gone are removed.
//! Documents are committed in batches, so an interrupted run keeps every batch it finished and
//! the next run picks up the rest.
//!
//! A run without chunking flags takes the configuration the index was last written with
//! (recorded in its settings, [`IndexRun`]), and one without `--acl` / `--meta` its rules, so
//! `chunklab index archief/ --index archief.idx` repeats nothing; `--rebuild` takes only the
//! flags given.

use crate::args::{chunking_flags_given, cli_error, ChunkingArgs};
use anyhow::{bail, Result};
use chunklab_pipeline::indexing::{
    settings_refused, stored_run, Flags, IndexBuilder, IndexConfig, IndexRun, Progress, Sample,
};
use chunklab_pipeline::Pipeline;
use clap::parser::ValueSource;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

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
    /// A new index's HNSW graph: links per node, 2 to 100 (default 16). Fixed once the index
    /// is built: another value needs --rebuild.
    #[arg(long, value_name = "M")]
    hnsw_m: Option<usize>,
    /// A new index's HNSW graph: candidates per insert, 4 to 1000 and at least twice
    /// --hnsw-m (default 128 for an index directory, pgvector's 64 for PostgreSQL). Smaller
    /// builds faster and finds less: at 1M chunks 80 inserts ~5,000/s where 128 inserts
    /// ~3,200/s, and needs `search --ef 192` for the same recall (docs/PERFORMANCE.md).
    /// Fixed once the index is built: another value needs --rebuild.
    #[arg(long, value_name = "EF")]
    hnsw_ef_construction: Option<usize>,
    /// No progress bar and no summary on stderr.
    #[arg(long, short = 'q')]
    quiet: bool,
}

/// Which of the flags that an index records were given on the command line.
#[derive(Debug, Default)]
pub struct Given {
    /// The chunking flags given ([`chunking_flags_given`]).
    chunking: Vec<String>,
    /// `--acl` or `--meta` given.
    rules: bool,
}

impl Given {
    /// What `index`'s matches hold from the command line (not from defaults).
    pub fn of(m: &clap::ArgMatches) -> Given {
        let on_line = |id: &str| m.value_source(id) == Some(ValueSource::CommandLine);
        Given {
            chunking: chunking_flags_given(m),
            rules: on_line("acl") || on_line("meta"),
        }
    }
}

pub fn run(a: IndexArgs, given: Given) -> Result<ExitCode> {
    if a.commit_every == 0 {
        // As Python's commit_every=0 is refused (it was taken as 1, silently).
        bail!("--commit-every must be at least 1");
    }
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
    // What the flags leave out comes from the index's last run (never with --rebuild).
    let stored = match a.rebuild || (!given.chunking.is_empty() && given.rules) {
        true => None,
        false => stored_run(&location)?,
    };
    let adopt_chunking = given.chunking.is_empty() && stored.is_some();
    let adopt_rules = !given.rules && stored.is_some();
    let pipeline = match &stored {
        Some(run) if adopt_chunking => Pipeline::new(run.pipeline.clone())
            .map_err(cli_error)
            .map_err(|e| e.context(format!("{location}: the index's own configuration")))?,
        _ => a.chunking.pipeline()?,
    };
    let pipeline = Arc::new(pipeline);
    let inputs = pipeline.collect(&a.paths)?;
    let (acl, meta) = match &stored {
        Some(IndexRun { acl, meta, .. }) if adopt_rules => (acl.clone(), meta.clone()),
        _ => (a.acl.clone(), a.meta.clone()),
    };
    let cfg = IndexConfig {
        rebuild: a.rebuild,
        commit_every: a.commit_every,
        acl,
        meta,
        hnsw_m: a.hnsw_m,
        hnsw_ef_construction: a.hnsw_ef_construction,
        spelling: &Flags,
    };
    // Out-of-range graph settings, named as the flags.
    cfg.hnsw(&location)
        .map_err(|e| match e.downcast_ref::<chunklab_index::BadHnsw>() {
            Some(bad) => anyhow::anyhow!("{}", bad.spelled(crate::args::flag)),
            None => e,
        })?;
    let mut builder =
        match IndexBuilder::create_for(&location, pipeline, &cfg, Sample::Inputs(&inputs)) {
            Ok(b) => b,
            Err(e) => {
                if settings_refused(&e).is_some() && stored.is_some() && !given.chunking.is_empty()
                {
                    eprintln!(
                        "note: without {} this run takes the index's own configuration",
                        given.chunking.join(", ")
                    );
                }
                return Err(flag_names(e));
            }
        };
    if !a.quiet && adopt_chunking {
        let s = builder.settings();
        eprintln!(
            "using the index's own configuration: {} (model {}, lang {}); chunking flags would replace it",
            s.chunker, s.model, s.lang
        );
    }
    if !a.quiet && adopt_rules && !(cfg.acl.is_empty() && cfg.meta.is_empty()) {
        let rules: Vec<String> = cfg
            .acl
            .iter()
            .map(|r| format!("--acl '{r}'"))
            .chain(cfg.meta.iter().map(|r| format!("--meta '{r}'")))
            .collect();
        eprintln!("keeping the index's rules: {}", rules.join(" "));
    }
    for note in builder.notes() {
        eprintln!("warning: {note}");
    }
    if let (Some(why), false) = (builder.model_choice(), a.quiet) {
        eprintln!("note: {why}; --model minilm keeps the English model");
    }
    // Where the store is, without a password, for messages.
    let shown = builder.location();
    let model_spec = builder.model().0.to_string();
    let window = builder.model().1.token_capacity();

    // Progress counts the slow unit: bytes of documents chunked and embedded (the bar and its
    // ETA), with chunks embedded and their rate in the message; without a terminal, one line per
    // committed batch (at most every 2 s).
    let show = !a.quiet && std::io::stderr().is_terminal();
    let mut bar: Option<indicatif::ProgressBar> = None;
    let mut last_line = Instant::now();
    let mut on_progress = |p: Progress| match p {
        Progress::Message(msg) => match &bar {
            Some(pb) => pb.println(msg),
            None => eprintln!("{msg}"),
        },
        Progress::Planned { bytes, .. } => {
            bar = show.then(|| {
                let pb = indicatif::ProgressBar::new(bytes.max(1));
                pb.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{bar:30} {percent}% {msg} [{elapsed_precise}, eta {eta}]",
                    )
                    .expect("valid template"),
                );
                pb
            });
        }
        Progress::Embedding {
            docs_done,
            docs,
            chunks,
        } => {
            if let Some(pb) = &bar {
                pb.set_message(format!(
                    "{docs_done}/{docs} docs, embedding {chunks} more chunks"
                ));
            }
        }
        Progress::Committed {
            docs_done,
            docs,
            bytes_done,
            bytes,
            chunks,
            seconds,
        } => {
            let secs = seconds.max(1e-9);
            let rate = chunks as f64 / secs;
            let line =
                format!("{docs_done}/{docs} docs, {chunks} chunks embedded ({rate:.1} chunks/s)");
            match &bar {
                Some(pb) => {
                    pb.set_position(bytes_done);
                    pb.set_message(line);
                }
                None if !a.quiet
                    && (last_line.elapsed().as_secs_f64() >= 2.0 || docs_done == docs) =>
                {
                    let eta = if bytes_done > 0 {
                        secs * (bytes.saturating_sub(bytes_done)) as f64 / bytes_done as f64
                    } else {
                        0.0
                    };
                    eprintln!("progress: {line}, eta {eta:.0} s");
                    last_line = Instant::now();
                }
                None => {}
            }
        }
    };
    let s = builder.add_inputs(inputs, true, &mut on_progress)?;
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let warnings = [
        s.truncation_warning(&model_spec, window, &Flags),
        s.language_warning(&model_spec, &Flags),
    ];
    for w in warnings.into_iter().flatten() {
        eprintln!("warning: {w}");
    }
    let (store_docs, store_chunks) = builder.finish()?;
    if !a.quiet {
        eprintln!(
            "indexed {}: {} added, {} updated, {} removed, {} unchanged{}{}; {} chunks embedded with {model_spec} in {:.2} s; the index holds {} documents, {} chunks",
            shown,
            s.added,
            s.updated,
            s.removed,
            s.unchanged,
            if s.skipped > 0 { format!(", {} binary skipped", s.skipped) } else { String::new() },
            if s.failed > 0 { format!(", {} FAILED", s.failed) } else { String::new() },
            s.chunks,
            started.elapsed().as_secs_f64(),
            store_docs,
            store_chunks,
        );
    }
    Ok(if s.failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The library names `acl` and `meta` as parameters; the CLI's user typed `--acl` / `--meta`.
fn flag_names(e: anyhow::Error) -> anyhow::Error {
    let msg = format!("{e:#}");
    for p in ["acl", "meta"] {
        if let Some(rest) = msg.strip_prefix(&format!("{p} ")) {
            return anyhow::anyhow!("--{p} {rest}");
        }
    }
    e
}
