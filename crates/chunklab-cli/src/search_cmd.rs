//! `chunklab search`: query an index built by `chunklab index` (`--index DIR`, or `--store`
//! with a PostgreSQL URL or a directory) — dense, BM25 or hybrid (RRF),
//! optional reranking (MaxSim over the index's model, or a cross-encoder directory), metadata
//! filters inside the search, and result shaping; human-readable or `--json` output.

use anyhow::{bail, Result};
use chunklab_index::{bm25, Hit};
use chunklab_pipeline::search::{SearchConfig, Searcher};
use serde_json::json;
use std::io::{IsTerminal, Write};
use std::ops::Range;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct SearchArgs {
    /// The query.
    query: String,
    /// Index directory (built by `chunklab index`).
    #[arg(long, required_unless_present = "store", conflicts_with = "store")]
    index: Option<PathBuf>,
    /// The store to search: a PostgreSQL URL (`postgres://user@host:5432/db`, any libpq URL,
    /// the password from the URL or $PGPASSWORD) or an index directory.
    #[arg(long, value_name = "URL|DIR")]
    store: Option<String>,
    /// Retrieval: dense, bm25 or hybrid (both, fused with reciprocal rank fusion).
    #[arg(long, default_value = "hybrid")]
    mode: String,
    /// Number of results.
    #[arg(long, short = 'k', default_value_t = 10)]
    k: usize,
    /// Rerank the top --rerank-top candidates: `maxsim` (late interaction over the index's
    /// embedding model, the default) or a cross-encoder model directory.
    #[arg(long, num_args = 0..=1, default_missing_value = "maxsim", value_name = "maxsim|DIR")]
    rerank: Option<String>,
    /// Candidates the reranker scores (at least --k). Each costs a pass of the model over the
    /// candidate (MaxSim: ~0.2-0.4 s per 250-token chunk on 2 cores); docs/EVALUATION.md
    /// measures 10, 30 and 50.
    #[arg(long, default_value_t = 30)]
    rerank_top: usize,
    /// Metadata filter, inside the search: `source=GLOB`, `acl=GROUP`, `FIELD=VALUE` (kind,
    /// language, lang, level, page, heading, symbol, doc_id, or a --meta field). Repeat a field
    /// for alternatives; different fields must all match.
    #[arg(long, value_name = "FIELD=VALUE")]
    filter: Vec<String>,
    /// One result per document (its best chunk).
    #[arg(long)]
    docs: bool,
    /// Merge overlapping or adjacent chunks of a document into one result.
    #[arg(long)]
    merge: bool,
    /// Hierarchical chunks: retrieve the small chunks, return their parents.
    #[arg(long)]
    small_to_big: bool,
    /// Hierarchical chunks: when enough children of a parent are retrieved, return the parent.
    #[arg(long)]
    auto_merge: bool,
    /// Fraction of a parent's children that must be retrieved for --auto-merge.
    #[arg(long, default_value_t = 0.5)]
    merge_threshold: f32,
    /// RRF constant k.
    #[arg(long, default_value_t = 60.0)]
    rrf_k: f32,
    /// Weight of BM25 in hybrid fusion.
    #[arg(long, default_value_t = 1.0)]
    bm25_weight: f32,
    /// Weight of dense retrieval in hybrid fusion.
    #[arg(long, default_value_t = 1.0)]
    dense_weight: f32,
    /// Hybrid: multiply BM25's weight by this when the query names an identifier (a word with
    /// a digit and a letter, `/`, `_` or `#`: `2018/0077`, `COVID-19`); 1 turns it off.
    #[arg(long, default_value_t = chunklab_pipeline::search::IDENTIFIER_BOOST)]
    identifier_boost: f32,
    /// Exact vector search (a scan) instead of the HNSW graph.
    #[arg(long)]
    exact: bool,
    /// The HNSW walk's candidate list size: larger finds more of the true nearest neighbours,
    /// slower (default: the index's, 128; with a PostgreSQL store the depth, at least 40, at
    /// most pgvector's 1000). Ignored by exact scans (indexes up to 10,000 chunks, selective
    /// filters, --exact).
    #[arg(long)]
    ef: Option<usize>,
    /// Candidates per retriever before reranking and shaping (default: -k, or --rerank-top,
    /// × 5 with --merge/--docs/--small-to-big/--auto-merge, at least 50 in hybrid mode); with
    /// --merge it decides which neighbours can join a passage.
    #[arg(long)]
    depth: Option<usize>,
    /// Embedding model for the query; must be the index's model (default: the index's).
    #[arg(long)]
    model: Option<String>,
    /// Fetch the index's model when it is not installed.
    #[arg(long)]
    fetch: bool,
    /// Print `{"results": [...]}` as JSON.
    #[arg(long)]
    json: bool,
}

impl SearchArgs {
    /// The flags as the pipeline's search configuration.
    fn config(&self) -> Result<SearchConfig> {
        let cfg = SearchConfig {
            mode: self.mode.parse().map_err(anyhow::Error::msg)?,
            k: self.k,
            rerank: self.rerank.clone(),
            rerank_top: self.rerank_top,
            filter: self.filter.clone(),
            docs: self.docs,
            merge: self.merge,
            small_to_big: self.small_to_big,
            auto_merge: self.auto_merge,
            merge_threshold: self.merge_threshold,
            rrf_k: self.rrf_k,
            bm25_weight: self.bm25_weight,
            dense_weight: self.dense_weight,
            identifier_boost: self.identifier_boost,
            exact: self.exact,
            ef: self.ef,
            depth: self.depth,
        };
        cfg.validate()
            .map_err(|e| anyhow::anyhow!("--{} {}", e.param.replace('_', "-"), e.message))?;
        Ok(cfg)
    }
}

pub fn run(a: SearchArgs) -> Result<ExitCode> {
    let started = Instant::now();
    let cfg = a.config()?;
    if a.query.trim().is_empty() {
        bail!("the query is empty");
    }
    let searcher = match (&a.index, &a.store) {
        (Some(dir), _) => Searcher::open(dir, a.fetch)?,
        (None, Some(location)) => Searcher::open_location(location, a.fetch)?,
        (None, None) => bail!("give --index DIR or --store URL|DIR"),
    };
    let store = searcher.store();
    if let Some(repairs) = searcher.index().map(|i| i.repairs()) {
        if repairs.bm25_rebuilt || repairs.vectors_added > 0 || repairs.vectors_removed > 0 {
            eprintln!(
                "warning: {}: an interrupted `chunklab index` left the search structures behind the committed documents; repaired in memory (run `chunklab index` again to repair on disk)",
                store.location()
            );
        }
    }
    if let Some(m) = &a.model {
        let settings = store.settings();
        if *m != settings.model {
            bail!(
                "--model {m}: the index {} was embedded with `{}`; a query embedded with another model cannot be compared with it (omit --model, or build an index with --model {m})",
                store.location(),
                settings.model
            );
        }
    }
    if (a.small_to_big || a.auto_merge) && !store.is_hierarchical() {
        bail!(
            "--small-to-big and --auto-merge need hierarchical chunks (with parent_id); this index was built with `{}`",
            store.settings().chunker
        );
    }
    let hits = searcher.search(&a.query, &cfg, None)?;
    let mut out = std::io::stdout().lock();
    if a.json {
        let results: Vec<serde_json::Value> = hits
            .iter()
            .map(|h| {
                json!({
                    "score": h.score,
                    "source": h.source,
                    "doc_id": h.doc_id,
                    "chunk_id": h.chunk_id,
                    "text": h.text,
                    "headings": h.headings,
                    "page": h.page,
                    "start_char": h.start_char,
                    "end_char": h.end_char,
                    "start_byte": h.start_byte,
                    "end_byte": h.end_byte,
                    "chunks": h.chunks,
                })
            })
            .collect();
        serde_json::to_writer(&mut out, &json!({ "results": results }))?;
        writeln!(out)?;
    } else {
        let color = std::io::stdout().is_terminal();
        if hits.is_empty() {
            writeln!(out, "no results")?;
        }
        for (i, h) in hits.iter().enumerate() {
            let lang = store.doc_lang(&h.doc_id).unwrap_or_else(|| "en".into());
            write_hit(&mut out, i + 1, h, &a.query, &lang, color)?;
        }
        eprintln!(
            "{} result{} in {:.0} ms ({} mode{})",
            hits.len(),
            if hits.len() == 1 { "" } else { "s" },
            started.elapsed().as_secs_f64() * 1e3,
            cfg.mode,
            if a.rerank.is_some() { ", reranked" } else { "" }
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn write_hit(
    out: &mut dyn Write,
    n: usize,
    h: &Hit,
    query: &str,
    lang: &str,
    color: bool,
) -> Result<()> {
    let page = h.page.map(|p| format!("  p.{p}")).unwrap_or_default();
    writeln!(
        out,
        "{n:>2}. {:.4}  {}{page}  [{}..{}]",
        h.score, h.source, h.start_char, h.end_char
    )?;
    if !h.headings.is_empty() {
        writeln!(out, "    {}", h.headings.join(" > "))?;
    }
    writeln!(out, "    {}", snippet(&h.text, query, lang, color))?;
    writeln!(out)?;
    Ok(())
}

/// Byte ranges of `text` whose term under the document's analyzer is a query term.
fn matches(text: &str, query: &str, lang: &str) -> Vec<Range<usize>> {
    let terms: std::collections::HashSet<String> = bm25::analyze(lang, query)
        .into_iter()
        .map(|t| t.1)
        .collect();
    bm25::analyze(lang, text)
        .into_iter()
        .filter(|t| terms.contains(&t.1))
        .map(|t| t.0)
        .collect()
}

/// About 300 bytes of `text` around the first query term, terms (as the document's `lang`
/// analyzer sees them) highlighted: bold on a terminal, `**term**` otherwise; whitespace collapsed.
pub fn snippet(text: &str, query: &str, lang: &str, color: bool) -> String {
    const WIDTH: usize = 300;
    let hits = matches(text, query, lang);
    let first = hits.first().map_or(0, |r| r.start);
    let floor = |mut i: usize| {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let start = floor(first.saturating_sub(80));
    let end = floor((start + WIDTH).min(text.len()));
    let (on, off) = if color {
        ("\x1b[1;33m", "\x1b[0m")
    } else {
        ("**", "**")
    };
    let mut s = String::new();
    if start > 0 {
        s.push('…');
    }
    let mut at = start;
    for r in hits.iter().filter(|r| r.start >= start && r.end <= end) {
        s.push_str(&text[at..r.start]);
        s.push_str(on);
        s.push_str(&text[r.clone()]);
        s.push_str(off);
        at = r.end;
    }
    s.push_str(&text[at..end]);
    if end < text.len() {
        s.push('…');
    }
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
