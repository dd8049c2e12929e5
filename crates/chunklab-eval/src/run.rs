//! Run a benchmark: for each configuration, chunk the corpus → embed (through the cache) →
//! index → retrieve every query → score, and measure what it cost.
//!
//! Configurations that share a [`ChunkSpec`] and model share their chunks, vectors and
//! indexes; only retrieval and scoring run per mode and k. Documents are parsed once. The steps,
//! in order: [`run`] checks the inputs and parses the documents, `Resources::open` loads each
//! model, reranker and language model once, [`group_configs`] groups the configurations by what
//! decides their chunks, and `Resources::run_group` chunks, contextualises, embeds, indexes,
//! retrieves and scores one group.

use crate::bootstrap::summarize;
use crate::chunking::{build_chunker, chunk_all, doc_runs, spec_sizer, EvalChunk};
use crate::collection::{Collection, ModelInfo};
use crate::dataset::Dataset;
use crate::embed_cache::{CachedTextEmbedder, EmbedCache, EmbedStats};
use crate::error::{Error, Result};
pub use crate::progress::{NoProgress, Progress};
pub use crate::result::{BenchResult, Cost, Row};
pub use crate::scoring::{check_metric, METRICS};
use crate::scoring::{score_query, QueryLabels, QueryScores};
use crate::sweep::{ChunkSpec, Config, Graph};
use chunklab_core::document::ParsedDocument;
use chunklab_core::Sizer;
use chunklab_embed::{Embedder, LoadOptions, RerankWith, Role};
use chunklab_llm::LlmClient;
use rayon::prelude::*;
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
    /// Instead: a PostgreSQL server (`postgres://` URL) on which each configuration gets a
    /// database of its own, dropped afterwards.
    pub store: Option<String>,
    /// The metric `hybrid-cv` chooses its weights by (a [`METRICS`] name; default: `recall`
    /// where the queries have spans, else `doc_recall`, the report's default ranking).
    pub metric: Option<String>,
}

/// Parse every document once (parser chosen by file name); documents whose spans are labelled
/// must parse to their own text, or span offsets would point elsewhere. A document the corpus
/// reader already parsed from its own bytes ([`Dataset::parsed`]: PDF, DOCX, ODT, images) is
/// that parse, whose text is the document's text.
pub fn parse_docs(ds: &Dataset) -> Result<Vec<ParsedDocument>> {
    let spanned: std::collections::HashSet<&str> = ds
        .queries
        .iter()
        .flat_map(|q| q.relevant_spans.iter().map(|s| s.doc_id.as_str()))
        .collect();
    ds.docs
        .par_iter()
        .map(|d| {
            if let Some(parsed) = ds.parsed.get(&d.id) {
                return Ok(ParsedDocument::clone(parsed));
            }
            let path = Path::new(&d.name);
            let bytes = d.text.as_bytes();
            let parsed = chunklab_pipeline::parse(path, bytes, None, &Default::default())
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

/// Run `configs` on `ds`. The dataset is taken by value: once every document is parsed (the
/// parsed document holds its own text), the dataset's copies of the texts are dropped, which at
/// the archive's full scale is 1.6 GB held for the whole run.
pub fn run(
    mut ds: Dataset,
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
    let labels = QueryLabels::new(&ds)?;
    progress.start("parsing documents", ds.docs.len() as u64);
    let parsed = parse_docs(&ds)?;
    for d in &mut ds.docs {
        d.text = String::new();
    }
    progress.set(ds.docs.len() as u64);
    progress.finish();
    let ds = &ds;
    let res = Resources::open(ds, configs, opts, &parsed, labels, progress)?;
    let groups = group_configs(configs);
    let mut rows: Vec<Option<Row>> = vec![None; configs.len()];
    let mut notes = Vec::new();
    // Which vectors the dense rows were scored with: the same model in another precision (int8
    // on CPUs with AVX-512 VNNI or AVX2, f32 elsewhere or with CHUNKLAB_EMBED_PRECISION=f32)
    // moves them by a point or so.
    let mut vectors: Vec<String> = res.models.values().map(|m| m.cache_id()).collect();
    if !vectors.is_empty() {
        vectors.sort();
        notes.push(format!(
            "vectors: {} (`@int8`: int8 dense layers, the same vectors on any CPU with AVX-512 VNNI or AVX2; `CHUNKLAB_EMBED_PRECISION=f32` for f32)",
            vectors.join(", ")
        ));
    }
    for (gi, group) in groups.iter().enumerate() {
        let step = format!("[{}/{}]", gi + 1, groups.len());
        res.run_group(&step, group, &mut rows, &mut notes)?;
    }
    Ok(BenchResult {
        dataset: ds.name.clone(),
        docs: ds.docs.len(),
        queries: ds.queries.len(),
        rows: rows.into_iter().flatten().collect(),
        query_ids: ds.queries.iter().map(|q| q.id.clone()).collect(),
        notes,
        seconds: t0.elapsed().as_secs_f64(),
    })
}

/// Configurations that share their chunks, vectors and index: the same [`ChunkSpec`] and (when
/// it matters) the same model and graph.
pub struct Group {
    /// What decides the chunks.
    pub spec: ChunkSpec,
    /// The model the vectors come from (empty when no member needs one).
    pub model: String,
    /// The HNSW graph the index is built with (the default when no member searches dense).
    pub graph: Graph,
    /// Indexes of the member configurations.
    pub members: Vec<usize>,
}

/// Group configurations by what decides their chunks, vectors and index, in first-seen order.
/// Groups that differ only in their graph share the chunking's and the embedding cache's work.
pub fn group_configs(configs: &[Config]) -> Vec<Group> {
    let mut groups: Vec<Group> = Vec::new();
    for (i, c) in configs.iter().enumerate() {
        let model = if c.mode.dense() || c.chunk.needs_model() {
            c.model.clone()
        } else {
            String::new()
        };
        let graph = if c.mode.dense() {
            c.graph
        } else {
            Graph::default()
        };
        match groups
            .iter_mut()
            .find(|g| g.spec == c.chunk && g.model == model && g.graph == graph)
        {
            Some(g) => g.members.push(i),
            None => groups.push(Group {
                spec: c.chunk.clone(),
                model,
                graph,
                members: vec![i],
            }),
        }
    }
    groups
}

/// What every group shares, opened once: parsed documents, labels, the embedding cache, each
/// model with its query vectors, rerankers and language models.
struct Resources<'a> {
    ds: &'a Dataset,
    configs: &'a [Config],
    parsed: &'a [ParsedDocument],
    ids: Vec<String>,
    labels: QueryLabels,
    cache: Arc<EmbedCache>,
    cl100k: Arc<dyn Sizer>,
    models: HashMap<String, Arc<dyn Embedder>>,
    query_vecs: HashMap<String, Vec<Arc<[f32]>>>,
    rerankers: HashMap<(String, String), RerankWith>,
    llms: HashMap<String, Arc<LlmClient>>,
    scratch: crate::collection::Scratch,
    metric: Option<String>,
    /// Fetch known models that are not installed (also those named as tokenizers).
    fetch: bool,
    progress: &'a dyn Progress,
}

/// A group's chunks, vectors and index, ready to retrieve from.
struct Built {
    chunks: Vec<EvalChunk>,
    collection: Collection,
    chunk_ms: f64,
    index_ms: f64,
    context: crate::context::ContextReport,
    stats: EmbedStats,
    tokens_embedded: usize,
    truncated: usize,
    prompt_counts: Vec<usize>,
    omega: crate::scoring::Collection,
}

impl<'a> Resources<'a> {
    /// Load every model (and embed the queries with it), reranker and language model the
    /// configurations need, once each.
    fn open(
        ds: &'a Dataset,
        configs: &'a [Config],
        opts: &RunOptions,
        parsed: &'a [ParsedDocument],
        labels: QueryLabels,
        progress: &'a dyn Progress,
    ) -> Result<Resources<'a>> {
        let cache = Arc::new(EmbedCache::new(opts.cache_dir.as_deref()));
        let cl100k = chunklab_tokenizers::sizer_from_spec("tokens", Some("cl100k"), false)
            .map_err(|e| Error::Run(e.to_string()))?;
        let mut models: HashMap<String, Arc<dyn Embedder>> = HashMap::new();
        let mut query_vecs: HashMap<String, Vec<Arc<[f32]>>> = HashMap::new();
        for c in configs {
            // A configuration that does not use its model (BM25 alone) still names a real one:
            // a typo is an error, not silently ignored.
            if !needs_model(c) && chunklab_embed::model_dir(&c.model, &opts.load).is_none() {
                return Err(Error::Config(format!(
                    "{}: model `{}` is no known model, model directory or hub snapshot (known: {})",
                    c.label,
                    c.model,
                    chunklab_embed::registry::names()
                )));
            }
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
        // Rerankers of the `+rerank` modes, one per (reranker, model), with their passages'
        // token vectors kept for the run.
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
        let mut llms: HashMap<String, Arc<LlmClient>> = HashMap::new();
        for c in configs {
            let spec = c.chunk.llm_or_default();
            if c.chunk.context.as_deref() != Some("llm") || llms.contains_key(spec) {
                continue;
            }
            let cfg = chunklab_pipeline::LlmConfig {
                spec: Some(spec.to_string()),
                ..Default::default()
            };
            let client = chunklab_pipeline::open_llm(&cfg, opts.load.fetch)
                .map_err(|e| Error::Config(format!("{e:#}")))?
                .expect("a spec opens a model");
            llms.insert(spec.to_string(), client);
        }
        Ok(Resources {
            ds,
            configs,
            parsed,
            ids: ds.docs.iter().map(|d| d.id.clone()).collect(),
            labels,
            cache,
            cl100k,
            models,
            query_vecs,
            rerankers,
            llms,
            scratch: match &opts.store {
                Some(url) => crate::collection::Scratch::Postgres(url.clone()),
                None => crate::collection::Scratch::Dir(
                    opts.scratch_dir.clone().unwrap_or_else(std::env::temp_dir),
                ),
            },
            metric: opts.metric.clone(),
            fetch: opts.load.fetch,
            progress,
        })
    }

    /// Build the group's collection, then retrieve and score for each member.
    fn run_group(
        &self,
        step: &str,
        g: &Group,
        rows: &mut [Option<Row>],
        notes: &mut Vec<String>,
    ) -> Result<()> {
        let Some(built) = self.build(step, g, notes)? else {
            return Ok(());
        };
        for &ci in &g.members {
            let row = self.retrieve_and_score(&self.configs[ci], &built)?;
            if let Some(f) = &row.fusion {
                notes.push(f.note(&row.label));
            }
            rows[ci] = Some(row);
        }
        Ok(())
    }

    /// Chunk (→ context) → embed → index one group; `None` when it has no chunks.
    fn build(&self, step: &str, g: &Group, notes: &mut Vec<String>) -> Result<Option<Built>> {
        let (spec, progress, parsed) = (&g.spec, self.progress, self.parsed);
        let label = spec.label();
        let model = self.models.get(&g.model).cloned();
        let cached_embedder = model.as_ref().map(|m| {
            Arc::new(CachedTextEmbedder {
                model: m.clone(),
                cache: self.cache.clone(),
                stats: Mutex::new(EmbedStats::default()),
            })
        });
        let chunker = build_chunker(spec, model.as_ref(), cached_embedder.clone(), self.fetch)?;
        progress.start(
            &format!("{step} chunking: {label}"),
            self.ds.docs.len() as u64,
        );
        let tc = Instant::now();
        let mut chunks = chunk_all(chunker.as_ref(), parsed, &self.ids)?;
        let chunk_ms = tc.elapsed().as_secs_f64() * 1000.0;
        progress.set(self.ds.docs.len() as u64);
        progress.finish();
        if chunks.is_empty() {
            notes.push(format!(
                "{label}: no chunks (every document empty?); skipped"
            ));
            return Ok(None);
        }
        let mut context = crate::context::ContextReport::default();
        if let Some(kind) = &spec.context {
            let llm = (kind == "llm").then(|| self.llms[spec.llm_or_default()].clone());
            progress.start(
                &format!(
                    "{step} context ({}) for {} chunks: {label}",
                    llm.as_ref()
                        .map_or("header".to_string(), |l| chunklab_llm::full_name(
                            l.as_ref()
                        )),
                    chunks.len()
                ),
                chunks.len() as u64,
            );
            context = crate::context::contextualize_chunks(
                &mut chunks,
                parsed,
                &self.ids,
                llm,
                spec_sizer(spec, self.fetch)?,
                spec.size,
                progress,
            )?;
            progress.finish();
            let w = context.warnings;
            if w.windowed + w.retried + w.fallbacks + w.truncated > 0 {
                notes.push(format!("{label}: contexts: {w}"));
            }
        }
        let mut stats = cached_embedder
            .as_ref()
            .map(|c| *c.stats.lock().unwrap())
            .unwrap_or_default();
        // Vectors.
        let needs_dense = g.members.iter().any(|&i| self.configs[i].mode.dense());
        // The embedding texts of every chunk, built only when they are embedded (late chunking
        // embeds whole documents): a BM25-only group never holds them.
        let texts: Option<Vec<String>> = (needs_dense && spec.strategy != "late").then(|| {
            chunks
                .par_iter()
                .map(|c| c.embed_text(&parsed[c.doc as usize].text))
                .collect()
        });
        let mut vectors = None;
        let (mut tokens_embedded, mut truncated) = (0usize, 0usize);
        if needs_dense {
            let m = model
                .as_ref()
                .expect("dense configurations load their model");
            progress.start(
                &format!("{step} embedding {} chunks: {label}", chunks.len()),
                chunks.len() as u64,
            );
            let vecs = if spec.strategy == "late" {
                late_vectors(
                    m.as_ref(),
                    &self.cache,
                    chunker.as_ref(),
                    parsed,
                    &chunks,
                    &mut stats,
                    progress,
                )?
            } else {
                let texts = texts.as_ref().expect("built for dense groups");
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let (v, st) = self.cache.embed(m.as_ref(), &refs, Role::Passage, &|d| {
                    progress.set(d as u64)
                })?;
                stats += st;
                v
            };
            progress.finish();
            let window = m.max_tokens().saturating_sub(2).max(1);
            if spec.strategy == "late" {
                for d in parsed {
                    tokens_embedded += m.token_spans(&d.text).map(|t| t.len()).unwrap_or(0);
                }
            } else {
                let texts = texts.as_ref().expect("built for dense groups");
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

        if truncated > 0 {
            notes.push(format!(
                "{label}: {truncated} of {} chunks are longer than the model's window and were truncated before embedding",
                chunks.len()
            ));
            progress.note(&format!(
                "warning: {label}: {truncated} of {} chunks truncated before embedding (longer than the model's window)",
                chunks.len()
            ));
        }

        // Prompt sizes in cl100k tokens, counted before indexing so that the embedding texts
        // are freed before the index is built.
        let cl100k_units =
            spec.unit == "tokens" && spec.tokenizer.as_deref().unwrap_or("cl100k") == "cl100k";
        let prompt_counts: Vec<usize> = match &texts {
            _ if cl100k_units => chunks.iter().map(|c| c.tokens).collect(),
            Some(texts) => texts.par_iter().map(|t| self.cl100k.count(t)).collect(),
            None => chunks
                .par_iter()
                .map(|c| {
                    self.cl100k
                        .count(&c.embed_text(&parsed[c.doc as usize].text))
                })
                .collect(),
        };
        drop(texts);

        // The index: the same chunklab-index users build with `chunklab index`.
        progress.start(
            &format!("{step} indexing {} chunks: {label}", chunks.len()),
            1,
        );
        let info = vectors.as_ref().and(model.as_ref()).map(|m| ModelInfo {
            name: m.name(),
            dim: m.dim(),
            max_tokens: m.max_tokens(),
        });
        let t_index = Instant::now();
        let collection = Collection::build(
            &self.scratch,
            spec,
            info,
            g.graph,
            parsed,
            &self.ids,
            &chunks,
            vectors.as_deref(),
        )?;
        let index_ms = t_index.elapsed().as_secs_f64() * 1000.0;
        drop(vectors);
        progress.finish();
        let omega = self.labels.omega_inputs(&chunks, parsed);
        Ok(Some(Built {
            omega,
            chunks,
            collection,
            chunk_ms,
            index_ms,
            context,
            stats,
            tokens_embedded,
            truncated,
            prompt_counts,
        }))
    }

    /// Retrieve every query with one configuration of a built group, score it and count its
    /// cost.
    fn retrieve_and_score(&self, c: &Config, b: &Built) -> Result<Row> {
        let (ds, progress) = (self.ds, self.progress);
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
            (
                &self.rerankers[&(spec, c.model.clone())] as &dyn chunklab_index::Rerank,
                c.rerank_top,
            )
        });
        let mut latencies = Vec::with_capacity(ds.queries.len());
        let mut results: Vec<Vec<u32>> = Vec::with_capacity(ds.queries.len());
        let mut fusion = None;
        if c.mode == crate::sweep::Mode::HybridCv {
            let texts: Vec<&str> = ds.queries.iter().map(|q| q.query.as_str()).collect();
            let (r, l, f) = crate::fusion_cv::retrieve(
                &b.collection,
                &texts,
                &self.query_vecs[&c.model],
                c.k,
                &self.labels,
                &b.chunks,
                &b.omega,
                self.metric.as_deref(),
                progress,
            )?;
            (results, latencies, fusion) = (r, l, Some(f));
        }
        for (qi, q) in ds.queries.iter().enumerate().filter(|_| fusion.is_none()) {
            let vector = c.mode.dense().then(|| &*self.query_vecs[&c.model][qi]);
            let t = Instant::now();
            let hits =
                b.collection
                    .search(&q.query, vector, c.mode, c.k, &c.retrieval, reranker)?;
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
            .map(|(qi, hits)| score_query(&self.labels, qi, hits, &b.chunks, &b.omega))
            .collect();
        let prompt_tokens = results
            .iter()
            .map(|h| {
                h.iter()
                    .map(|&i| b.prompt_counts[i as usize])
                    .sum::<usize>() as f64
            })
            .sum::<f64>()
            / results.len() as f64;
        let dense = c.mode.dense();
        let vector_bytes = if dense { b.collection.bytes.vectors } else { 0 };
        let bm25_bytes = if c.mode.bm25() {
            b.collection.bytes.bm25
        } else {
            0
        };
        let chunks = &b.chunks;
        let cost = Cost {
            chunks: chunks.len(),
            mean_tokens: chunks.iter().map(|c| c.tokens as f64).sum::<f64>() / chunks.len() as f64,
            max_tokens: chunks.iter().map(|c| c.tokens).max().unwrap_or(0),
            tokens_embedded: if dense { b.tokens_embedded } else { 0 },
            truncated: if dense { b.truncated } else { 0 },
            index_bytes: vector_bytes + bm25_bytes,
            vector_bytes,
            bm25_bytes,
            chunk_ms: b.chunk_ms,
            index_ms: b.index_ms,
            embed_ms: if dense { b.stats.seconds * 1000.0 } else { 0.0 },
            embedded: if dense { b.stats.computed } else { 0 },
            cached: if dense { b.stats.cached } else { 0 },
            query_p50_ms: percentile(&mut latencies.clone(), 0.50),
            query_p95_ms: percentile(&mut latencies, 0.95),
            prompt_tokens,
            context_ms: b.context.seconds * 1000.0,
            llm_calls: b.context.usage.calls,
            llm_cache_hits: b.context.usage.cache_hits,
            llm_input_tokens: b.context.usage.input_tokens,
            llm_cached_tokens: b.context.usage.cached_tokens,
            llm_output_tokens: b.context.usage.output_tokens,
        };
        Ok(Row {
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
            retrieval: c.retrieval,
            graph: c.graph,
            metrics: summarize_all(&scores),
            cost,
            per_query: per_query_all(&scores),
            fusion,
        })
    }
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
        let got = cache.get_keys(&model.cache_id(), model.dim(), &keys)?;
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
            cache.put_keys(&model.cache_id(), model.dim(), &items)?;
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

/// Every metric defined for some query with its per-query values, scaled as in
/// [`summarize_all`] (ratios in percent).
fn per_query_all(scores: &[QueryScores]) -> Vec<(String, Vec<f64>)> {
    METRICS
        .iter()
        .filter_map(|(name, ratio)| {
            let f = if *ratio { 100.0 } else { 1.0 };
            let values: Vec<f64> = scores.iter().map(|s| s.get(name) * f).collect();
            (!values.iter().all(|v| v.is_nan())).then(|| (name.to_string(), values))
        })
        .collect()
}

/// Bootstrap summaries of every metric defined for some query.
fn summarize_all(scores: &[QueryScores]) -> Vec<(String, crate::bootstrap::Summary)> {
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
