//! `chunklab serve`: the HTTP API and the web page (crate chunklab-server) on 127.0.0.1 unless
//! told otherwise, with the index, its model and the tokens loaded once at start.

use crate::args::ChunkingArgs;
use anyhow::{bail, Context, Result};
use chunklab_pipeline::indexing::stored_run;
use chunklab_server::{AppState, Limits, ServerConfig, Tokens};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct ServeArgs {
    /// The index to search and write (built with `chunklab index`); without it only chunk,
    /// parse and the page are served.
    #[arg(long, conflicts_with = "store")]
    index: Option<PathBuf>,
    /// Serve a store instead: an index directory (as --index) or a `postgres://` URL (search
    /// only: POST/DELETE /v1/documents answer 409 — write it with `chunklab index --store`;
    /// GET /v1/chunks/{id} and /v1/documents/{id} answer 501).
    #[arg(long, value_name = "URL|DIR")]
    store: Option<String>,
    /// Bearer tokens with their ACL groups and roles (TOML, `[[token]]` entries); required
    /// with --index or --store.
    #[arg(long)]
    tokens: Option<PathBuf>,
    /// Port (0: any free port, printed at start).
    #[arg(long, default_value_t = 8080)]
    port: u16,
    /// Address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    bind: IpAddr,
    /// The directory bench jobs (POST /v1/bench) may read corpora, queries and sweep files
    /// from; without it they run only the generated archive and inline sweeps.
    #[arg(long, value_name = "DIR")]
    bench_dir: Option<PathBuf>,
    /// Largest JSON body, in MiB.
    #[arg(long, default_value_t = 16)]
    max_body_mb: usize,
    /// Largest multipart upload, in MiB.
    #[arg(long, default_value_t = 64)]
    max_upload_mb: usize,
    /// Longest time one request may take, in seconds.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Most requests served at once; more get 429.
    #[arg(long, default_value_t = 256)]
    max_in_flight: usize,
    /// Most CPU-bound jobs at once (default: the number of cores).
    #[arg(long)]
    workers: Option<usize>,
    /// How documents sent to POST /v1/documents are chunked: without chunking flags, the
    /// configuration the index was last written with; flags replace it (writes are refused
    /// when they differ from the index's settings).
    #[command(flatten)]
    chunking: Box<ChunkingArgs>,
}

/// The largest body or upload limit, in MiB (1 TiB).
const MAX_MIB: usize = 1 << 20;

/// `given`: the chunking flags on the command line ([`crate::args::chunking_flags_given`]).
pub fn run(a: ServeArgs, given: Vec<String>) -> Result<ExitCode> {
    let tokens = match &a.tokens {
        Some(p) => Tokens::load(p)?,
        None => Tokens::default(),
    };
    // A limit of 0 would refuse every request (or was taken as 1, silently): refused here.
    let mib = |flag: &str, v: usize| -> Result<usize> {
        match v {
            1..=MAX_MIB => Ok(v << 20),
            _ => bail!("--{flag} must be 1 to {MAX_MIB} (MiB)"),
        }
    };
    for (flag, v) in [
        ("timeout", a.timeout as usize),
        ("max-in-flight", a.max_in_flight),
        ("workers", a.workers.unwrap_or(1)),
    ] {
        if v == 0 {
            bail!("--{flag} must be at least 1");
        }
    }
    let mut limits = Limits {
        body_bytes: mib("max-body-mb", a.max_body_mb)?,
        upload_bytes: mib("max-upload-mb", a.max_upload_mb)?,
        request_timeout: Duration::from_secs(a.timeout),
        max_in_flight: a.max_in_flight,
        ..Limits::default()
    };
    if let Some(w) = a.workers {
        limits.workers = w;
    }
    let location = a
        .index
        .as_ref()
        .map(|d| d.display().to_string())
        .or_else(|| a.store.clone());
    // Without chunking flags, an index directory's recorded configuration (a PostgreSQL store
    // is served for search only: nothing is written through it).
    let recorded = match &location {
        Some(l) if given.is_empty() && !chunklab_postgres::is_postgres_url(l) => stored_run(l)?,
        _ => None,
    };
    let write_pipeline = match (&location, recorded) {
        (None, _) => None,
        (Some(_), Some(run)) => {
            eprintln!(
                "chunklab serve: documents written are chunked with the index's own configuration"
            );
            Some(run.pipeline)
        }
        (Some(_), None) => Some(a.chunking.config()?),
    };
    let cfg = ServerConfig {
        write_pipeline,
        index: a.index.clone(),
        store: a.store.clone(),
        bench_dir: a.bench_dir.clone(),
        tokens,
        limits,
    };
    let state = AppState::load(cfg).context("cannot start the server")?;
    let addr = SocketAddr::new(a.bind, a.port);
    chunklab_server::run(addr, state, |bound| {
        eprintln!("chunklab serve: listening on http://{bound}/");
    })?;
    Ok(ExitCode::SUCCESS)
}
