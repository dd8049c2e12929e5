//! Run a benchmark: for each configuration, chunk the corpus → embed (through the cache) →
//! index → retrieve every query → score, and measure what it cost.
//!
//! Configurations that share a [`ChunkSpec`] and model share their chunks, vectors and
//! indexes; only retrieval and scoring run per mode and k. Documents are parsed once.

use crate::bootstrap::{summarize, Summary};
use crate::chunking::{build_chunker, chunk_all, doc_runs, spec_sizer, EvalChunk};
use crate::collection::{Collection, ModelInfo};
use crate::dataset::Dataset;
use crate::embed_cache::{CachedTextEmbedder, EmbedCache, EmbedStats};
use crate::error::{Error, Result};
use crate::scoring::{score_query, QueryLabels, QueryScores};
use crate::sweep::{ChunkSpec, Config, Mode};
use chunklab_core::document::ParsedDocument;
use chunklab_embed::{Embedder, LoadOptions, RerankWith, Role};
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    /// Where embeddings are cached between runs (`None`: in memory only).
    pub cache_dir: Option<PathBuf>,
    /// Model loading (fetch missing known models, cache root).
    pub load: LoadOptions,
    /// Where each configuration's index is built (a temporary directory inside it, deleted
    /// afterwards); default: the system's temporary directory.
    pub scratch_dir: Option<PathBuf>,
}

/// Progress reporting; the CLI draws bars, tests pass [`NoProgress`].
pub trait Progress: Sync {
    /// A stage with `total` steps begins.
    fn start(&self, what: &str, total: u64);
    /// `done` of the stage's steps are finished.
    fn set(&self, done: u64);
    /// The stage is over.
    fn finish(&self);
    /// Something worth telling the user.
    fn note(&self, msg: &str);
}

/// Reports nothing.
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: u64) {}
    fn set(&self, _: u64) {}
    fn finish(&self) {}
    fn note(&self, _: &str) {}
}

/// What a configuration cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Cost {
    /// Chunks in the collection.
    pub chunks: usize,
    /// Mean and largest chunk size in the configuration's unit (prefix included).
    pub mean_tokens: f64,
    pub max_tokens: usize,
    /// Model tokens (special and prefix tokens excluded) that went through the model for the
    /// chunks: each chunk's tokens up to the model's window; for late chunking the documents'.
    pub tokens_embedded: usize,
    /// Chunks longer than the model's window (their tail is not embedded).
    pub truncated: usize,
    /// Bytes on disk of what the mode searches in the configuration's `chunklab-index`:
    /// vectors (store vector files + HNSW snapshot; dense, hybrid) plus the tantivy BM25 index
    /// (bm25, hybrid). Chunk records and document texts are not counted.
    pub index_bytes: u64,
    pub vector_bytes: u64,
    pub bm25_bytes: u64,
    /// Wall time to chunk the corpus.
    pub chunk_ms: f64,
    /// Time in the model for this configuration's chunks in this run (0 when every vector came
    /// from the cache), and how many texts were embedded and found in the cache.
    pub embed_ms: f64,
    pub embedded: usize,
    pub cached: usize,
    /// Retrieval time per query (the query's embedding excluded, same for every row).
    pub query_p50_ms: f64,
    pub query_p95_ms: f64,
    /// Mean cl100k tokens of the top-k chunks' texts: what they add to an LLM prompt.
    pub prompt_tokens: f64,
    /// Contextual retrieval with a language model: time, and tokens it read (of which served
    /// from its KV/prompt cache) and wrote in this run (0 when answers came from the on-disk
    /// answer cache).
    pub context_ms: f64,
    /// Requests the language model answered, and answers taken from the on-disk answer cache.
    pub llm_calls: u64,
    pub llm_cache_hits: u64,
    pub llm_input_tokens: u64,
    pub llm_cached_tokens: u64,
    pub llm_output_tokens: u64,
}

/// One configuration's result.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub label: String,
    pub strategy: String,
    pub params: serde_json::Map<String, serde_json::Value>,
    pub model: String,
    pub mode: Mode,
    pub k: usize,
    /// Metric name → summary over queries. Ratios in percent; `mrr` and `ndcg` in 0..1.
    pub metrics: Vec<(String, Summary)>,
    pub cost: Cost,
}

impl Row {
    /// A metric's summary by name.
    pub fn metric(&self, name: &str) -> Option<&Summary> {
        self.metrics.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }
}

/// A whole benchmark.
#[derive(Debug, Clone, Serialize)]
pub struct BenchResult {
    pub dataset: String,
    pub docs: usize,
    pub queries: usize,
    pub rows: Vec<Row>,
    /// Things the user should know (skipped configurations, warnings).
    pub notes: Vec<String>,
    /// Wall time of the whole run.
    pub seconds: f64,
}

/// Metric names in report order, with whether they are ratios (shown in percent).
pub const METRICS: &[(&str, bool)] = &[
    ("recall", true),
    ("precision", true),
    ("iou", true),
    ("precision_omega", true),
    ("recall_exact", true),
    ("precision_exact", true),
    ("iou_exact", true),
    ("precision_omega_exact", true),
    ("doc_recall", true),
    ("hit", true),
    ("mrr", false),
    ("ndcg", false),
    ("chunk_recall", true),
    ("chunk_precision", true),
];

/// Parse every document once (parser chosen by file name); documents whose spans are labelled
/// must parse to their own text, or span offsets would point elsewhere.
pub fn parse_docs(ds: &Dataset) -> Result<Vec<ParsedDocument>> {
    let spanned: std::collections::HashSet<&str> = ds
        .queries
        .iter()
        .flat_map(|q| q.relevant_spans.iter().map(|s| s.doc_id.as_str()))
        .collect();
    ds.docs
        .par_iter()
        .map(|d| {
            let path = Path::new(&d.name);
            let bytes = d.text.as_bytes();
            let parsed = chunklab_parse::parser_for(path, bytes)
                .parse(bytes, path, &chunklab_parse::Limits::default())
                .map_err(|e| Error::Run(format!("parsing `{}`: {e}", d.id)))?;
            if parsed.text != d.text && spanned.contains(d.id.as_str()) {
                return Err(Error::Dataset(format!(
                    "`{}` is {} whose extracted text differs from the file, but queries label spans in it; span labels need a format whose text is the file (Markdown, plain text, reST, code)",
                    d.id, parsed.format
                )));
            }
            Ok(parsed)
        })
        .collect()
}

/// Run `configs` on `ds`.
pub fn run(
    ds: &Dataset,
    configs: &[Config],
    opts: &RunOptions,
    progress: &dyn Progress,
) -> Result<BenchResult> {
    let t0 = Instant::now();
    if ds.docs.is_empty() {
        return Err(Error::Dataset(format!("{}: empty corpus", ds.name)));
    }
    if ds.queries.is_empty() {
        return Err(Error::Dataset(format!("{}: no queries", ds.name)));
    }
    if configs.is_empty() {
        return Err(Error::Config("no configurations to run".into()));
    }
    let labels = QueryLabels::new(ds)?;
    progress.start("parsing documents", ds.docs.len() as u64);
    let parsed = parse_docs(ds)?;
    progress.set(ds.docs.len() as u64);
    progress.finish();
    let ids: Vec<String> = ds.docs.iter().map(|d| d.id.clone()).collect();
    let cache = Arc::new(EmbedCache::new(opts.cache_dir.as_deref()));
    let cl100k = chunklab_tokenizers::sizer_from_spec("tokens", Some("cl100k"), false)
        .map_err(|e| Error::Run(e.to_string()))?;

    // Models, loaded once each, and the query vectors of each.
    let mut models: HashMap<String, Arc<dyn Embedder>> = HashMap::new();
    let mut query_vecs: HashMap<String, Vec<Arc<[f32]>>> = HashMap::new();
    for c in configs {
        if models.contains_key(&c.model) || !needs_model(c) {
            continue;
        }
        let m: Arc<dyn Embedder> = chunklab_embed::load(&c.model, &opts.load)
            .map_err(|e| Error::Config(format!("model `{}`: {e}", c.model)))?
            .into();
        let qs: Vec<&str> = ds.queries.iter().map(|q| q.query.as_str()).collect();
        progress.start(
            &format!("embedding {} queries ({})", qs.len(), c.model),
            qs.len() as u64,
        );
        let (v, _) = cache.embed(m.as_ref(), &qs, Role::Query, &|d| progress.set(d as u64))?;
        progress.finish();
        query_vecs.insert(c.model.clone(), v);
        models.insert(c.model.clone(), m);
    }
    // Rerankers of the `+rerank` modes, one per (reranker, model), with their passages' token
    // vectors kept for the run.
    let mut rerankers: HashMap<(String, String), RerankWith> = HashMap::new();
    for c in configs.iter().filter(|c| c.mode.rerank()) {
        let spec = c.reranker.clone().unwrap_or_else(|| "maxsim".into());
        let key = (spec.clone(), c.model.clone());
        if rerankers.contains_key(&key) {
            continue;
        }
        let model = models.get(&c.model).cloned();
        let r: Box<dyn chunklab_embed::Reranker> = if spec.eq_ignore_ascii_case("maxsim") {
            let model = model.ok_or_else(|| Error::Config("maxsim needs a model".into()))?;
            Box::new(chunklab_embed::MaxSim::new(model).with_passage_cache())
        } else {
            chunklab_embed::load_reranker(&spec, model)
                .map_err(|e| Error::Config(format!("reranker `{spec}`: {e}")))?
        };
        rerankers.insert(key, RerankWith(r));
    }
    // Language models of `context = "llm"`, opened once each.
    let mut llms: HashMap<String, Arc<chunklab_llm::LlmClient>> = HashMap::new();
    for c in configs {
        if c.chunk.context.as_deref() != Some("llm") || llms.contains_key(c.chunk.llm_or_default())
        {
            continue;
        }
        let spec = c.chunk.llm_or_default();
        let open = chunklab_llm::spec::OpenOptions {
            fetch: opts.load.fetch,
            ..Default::default()
        };
        let client = chunklab_llm::spec::open(spec, &open)
            .map_err(|e| Error::Config(format!("llm `{spec}`: {e}")))?;
        llms.insert(spec.to_string(), Arc::new(client));
    }
    let scratch = opts.scratch_dir.clone().unwrap_or_else(std::env::temp_dir);

    // Group configurations by what decides their chunks and vectors.
    let mut groups: Vec<(ChunkSpec, String, Vec<usize>)> = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        let model_key = if c.mode.dense() || c.chunk.needs_model() {
            c.model.clone()
        } else {
            String::new()
        };
        match groups
            .iter_mut()
            .find(|(s, m, _)| *s == c.chunk && *m == model_key)
        {
            Some(g) => g.2.push(i),
            None => groups.push((c.chunk.clone(), model_key, vec![i])),
        }
    }

    let mut rows: Vec<Option<Row>> = vec![None; configs.len()];
    let mut notes = Vec::new();
    for (gi, (spec, model_name, members)) in groups.iter().enumerate() {
        let label = spec.label();
        let model = models.get(model_name).cloned();
        let cached_embedder = model.as_ref().map(|m| {
            Arc::new(CachedTextEmbedder {
                model: m.clone(),
                cache: cache.clone(),
                stats: Mutex::new(EmbedStats::default()),
            })
        });
        let chunker = build_chunker(spec, model.as_ref(), cached_embedder.clone())?;
        progress.start(
            &format!("[{}/{}] chunking: {label}", gi + 1, groups.len()),
            ds.docs.len() as u64,
        );
        let tc = Instant::now();
        let mut chunks = chunk_all(chunker.as_ref(), &parsed, &ids)?;
        let chunk_ms = tc.elapsed().as_secs_f64() * 1000.0;
        progress.set(ds.docs.len() as u64);
        progress.finish();
        if chunks.is_empty() {
            notes.push(format!(
                "{label}: no chunks (every document empty?); skipped"
            ));
            continue;
        }
        let mut context_cost = crate::context::ContextReport::default();
        if let Some(kind) = &spec.context {
            let llm = (kind == "llm").then(|| llms[spec.llm_or_default()].clone());
            progress.start(
                &format!(
                    "[{}/{}] context ({}) for {} chunks: {label}",
                    gi + 1,
                    groups.len(),
                    llm.as_ref()
                        .map_or("header".to_string(), |l| chunklab_llm::full_name(
                            l.as_ref()
                        )),
                    chunks.len()
                ),
                chunks.len() as u64,
            );
            let sizer = spec_sizer(spec)?;
            context_cost = crate::context::contextualize_chunks(
                &mut chunks,
                &parsed,
                &ids,
                llm.as_deref(),
                sizer.as_ref(),
                spec.size,
                progress,
            )?;
            progress.finish();
            let w = context_cost.warnings;
            if w.windowed + w.retried + w.fallbacks + w.truncated > 0 {
                notes.push(format!(
                    "{label}: {} contexts shortened to fit the size, {} chunks saw a window of their document, {} asked twice, {} header fallbacks",
                    w.truncated, w.windowed, w.retried, w.fallbacks
                ));
            }
        }
        let mut stats = cached_embedder
            .as_ref()
            .map(|c| *c.stats.lock().unwrap())
            .unwrap_or_default();
        let texts: Vec<String> = chunks
            .par_iter()
            .map(|c| c.embed_text(&parsed[c.doc as usize].text))
            .collect();

        // Vectors.
        let needs_dense = members.iter().any(|&i| configs[i].mode.dense());
        let mut vectors = None;
        let (mut tokens_embedded, mut truncated) = (0usize, 0usize);
        if needs_dense {
            let m = model
                .as_ref()
                .expect("dense configurations load their model");
            progress.start(
                &format!(
                    "[{}/{}] embedding {} chunks: {label}",
                    gi + 1,
                    groups.len(),
                    chunks.len()
                ),
                chunks.len() as u64,
            );
            let vecs = if spec.strategy == "late" {
                late_vectors(
                    m.as_ref(),
                    &cache,
                    chunker.as_ref(),
                    &parsed,
                    &chunks,
                    &mut stats,
                    progress,
                )?
            } else {
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let (v, st) = cache.embed(m.as_ref(), &refs, Role::Passage, &|d| {
                    progress.set(d as u64)
                })?;
                stats += st;
                v
            };
            progress.finish();
            let window = m.max_tokens().saturating_sub(2).max(1);
            if spec.strategy == "late" {
                for d in &parsed {
                    tokens_embedded += m.token_spans(&d.text).map(|t| t.len()).unwrap_or(0);
                }
            } else {
                let counts: Vec<usize> = texts
                    .par_iter()
                    .map(|t| m.token_spans(t).map(|s| s.len()).unwrap_or(0))
                    .collect();
                for n in counts {
                    tokens_embedded += n.min(window);
                    truncated += usize::from(n > window);
                }
            }
            vectors = Some(vecs);
        }

        // The index: the same chunklab-index users build with `chunklab index`.
        progress.start(
            &format!(
                "[{}/{}] indexing {} chunks: {label}",
                gi + 1,
                groups.len(),
                chunks.len()
            ),
            1,
        );
        let info = vectors.as_ref().and(model.as_ref()).map(|m| ModelInfo {
            name: m.name(),
            dim: m.dim(),
            max_tokens: m.max_tokens(),
        });
        let collection = Collection::build(
            &scratch,
            spec,
            info,
            &parsed,
            &ids,
            &chunks,
            vectors.as_deref(),
        )?;
        progress.finish();

        // Sizes and prompt tokens.
        let prompt_counts: Vec<usize> =
            if spec.unit == "tokens" && spec.tokenizer.as_deref().unwrap_or("cl100k") == "cl100k" {
                chunks.iter().map(|c| c.tokens).collect()
            } else {
                texts.par_iter().map(|t| cl100k.count(t)).collect()
            };
        let mean_tokens = chunks.iter().map(|c| c.tokens as f64).sum::<f64>() / chunks.len() as f64;
        let max_tokens = chunks.iter().map(|c| c.tokens).max().unwrap_or(0);
        let omega = labels.omega_inputs(&chunks, &parsed);

        for &ci in members {
            let c = &configs[ci];
            progress.start(
                &format!(
                    "retrieving {} queries: {} ({}, k={})",
                    ds.queries.len(),
                    c.label,
                    c.mode.name(),
                    c.k
                ),
                ds.queries.len() as u64,
            );
            let reranker = c.mode.rerank().then(|| {
                let spec = c.reranker.clone().unwrap_or_else(|| "maxsim".into());
                &rerankers[&(spec, c.model.clone())] as &dyn chunklab_index::Rerank
            });
            let mut latencies = Vec::with_capacity(ds.queries.len());
            let mut results: Vec<Vec<u32>> = Vec::with_capacity(ds.queries.len());
            for (qi, q) in ds.queries.iter().enumerate() {
                let vector = c.mode.dense().then(|| &*query_vecs[&c.model][qi]);
                let t = Instant::now();
                let hits = collection.search(&q.query, vector, c.mode, c.k, reranker)?;
                latencies.push(t.elapsed().as_secs_f64() * 1000.0);
                results.push(hits);
                if qi % 16 == 0 {
                    progress.set(qi as u64);
                }
            }
            progress.finish();
            let scores: Vec<QueryScores> = results
                .par_iter()
                .enumerate()
                .map(|(qi, hits)| score_query(&labels, qi, hits, &chunks, &omega))
                .collect();
            let prompt_tokens = results
                .iter()
                .map(|h| h.iter().map(|&i| prompt_counts[i as usize]).sum::<usize>() as f64)
                .sum::<f64>()
                / results.len() as f64;
            let vector_bytes = if c.mode.dense() {
                collection.bytes.vectors
            } else {
                0
            };
            let bm25_bytes = if c.mode.bm25() {
                collection.bytes.bm25
            } else {
                0
            };
            let dense_cost = c.mode.dense();
            let cost = Cost {
                chunks: chunks.len(),
                mean_tokens,
                max_tokens,
                tokens_embedded: if dense_cost { tokens_embedded } else { 0 },
                truncated: if dense_cost { truncated } else { 0 },
                index_bytes: vector_bytes + bm25_bytes,
                vector_bytes,
                bm25_bytes,
                chunk_ms,
                embed_ms: if dense_cost {
                    stats.seconds * 1000.0
                } else {
                    0.0
                },
                embedded: if dense_cost { stats.computed } else { 0 },
                cached: if dense_cost { stats.cached } else { 0 },
                query_p50_ms: percentile(&mut latencies.clone(), 0.50),
                query_p95_ms: percentile(&mut latencies, 0.95),
                prompt_tokens,
                context_ms: context_cost.seconds * 1000.0,
                llm_calls: context_cost.usage.calls,
                llm_cache_hits: context_cost.usage.cache_hits,
                llm_input_tokens: context_cost.usage.input_tokens,
                llm_cached_tokens: context_cost.usage.cached_tokens,
                llm_output_tokens: context_cost.usage.output_tokens,
            };
            rows[ci] = Some(Row {
                label: c.label.clone(),
                strategy: c.chunk.strategy.clone(),
                params: c.chunk.params(),
                model: if needs_model(c) {
                    c.model.clone()
                } else {
                    String::new()
                },
                mode: c.mode,
                k: c.k,
                metrics: summarize_all(&scores),
                cost,
            });
        }
    }
    Ok(BenchResult {
        dataset: ds.name.clone(),
        docs: ds.docs.len(),
        queries: ds.queries.len(),
        rows: rows.into_iter().flatten().collect(),
        notes,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Late-chunking vectors, cached by (model, window settings, document text, span).
fn late_vectors(
    model: &dyn Embedder,
    cache: &EmbedCache,
    chunker: &dyn chunklab_core::Chunker,
    parsed: &[ParsedDocument],
    chunks: &[EvalChunk],
    stats: &mut EmbedStats,
    progress: &dyn Progress,
) -> Result<Vec<Arc<[f32]>>> {
    let config = chunker.config();
    let mut out: Vec<Option<Arc<[f32]>>> = vec![None; chunks.len()];
    for (doc, run) in doc_runs(chunks) {
        let (start, end) = (run.start, run.end);
        let text = &parsed[doc].text;
        let doc_hash = blake3::hash(text.as_bytes());
        let keys: Vec<[u8; 32]> = chunks[start..end]
            .iter()
            .map(|c| {
                let mut h = blake3::Hasher::new();
                h.update(b"late\0");
                h.update(config.as_bytes());
                h.update(doc_hash.as_bytes());
                h.update(&(c.start_byte as u64).to_le_bytes());
                h.update(&(c.end_byte as u64).to_le_bytes());
                *h.finalize().as_bytes()
            })
            .collect();
        let got = cache.get_keys(model.name(), model.dim(), &keys)?;
        if got.iter().all(Option::is_some) {
            stats.cached += got.len();
            for (i, g) in got.into_iter().enumerate() {
                out[start + i] = g;
            }
        } else {
            let spans: Vec<std::ops::Range<usize>> = chunks[start..end]
                .iter()
                .map(|c| c.start_byte..c.end_byte)
                .collect();
            let t = Instant::now();
            let late = chunklab_embed::late_embeddings(
                model,
                text,
                &spans,
                &chunklab_embed::LateOptions::default(),
            )
            .map_err(|e| Error::Run(format!("late chunking: {e}")))?;
            stats.seconds += t.elapsed().as_secs_f64();
            stats.computed += spans.len();
            let items: Vec<([u8; 32], Vec<f32>)> = keys.into_iter().zip(late.vectors).collect();
            cache.put_keys(model.name(), model.dim(), &items)?;
            for (i, (_, v)) in items.into_iter().enumerate() {
                out[start + i] = Some(v.into());
            }
        }
        progress.set(end as u64);
    }
    Ok(out
        .into_iter()
        .map(|v| v.expect("every chunk got a vector"))
        .collect())
}

/// Whether a configuration needs its embedding model (vectors, model-driven chunking, or a
/// MaxSim reranker).
fn needs_model(c: &Config) -> bool {
    c.mode.dense()
        || c.chunk.needs_model()
        || (c.mode.rerank()
            && c.reranker
                .as_deref()
                .is_none_or(|r| r.eq_ignore_ascii_case("maxsim")))
}

fn percentile(v: &mut [f64], q: f64) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i]
}

/// Bootstrap summaries of every metric defined for some query.
fn summarize_all(scores: &[QueryScores]) -> Vec<(String, Summary)> {
    let mut out = Vec::new();
    for (mi, (name, ratio)) in METRICS.iter().enumerate() {
        let values: Vec<f64> = scores.iter().map(|s| s.get(name)).collect();
        if values.iter().all(|v| v.is_nan()) {
            continue;
        }
        let s = summarize(&values, 0x5EED + mi as u64);
        out.push((name.to_string(), if *ratio { s.scaled(100.0) } else { s }));
    }
    out
}
