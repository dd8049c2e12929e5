//! The command line's spelling of the typed configuration: clap flags that map one to one onto
//! [`PipelineConfig`] (values parse with the configuration types' own `FromStr`), and the
//! rendering of configuration errors in flag spelling (`--max-level` for `max_level`).

use anyhow::{anyhow, bail, Context, Result};
use chunklab_core::strategies::{Breakpoint, Compat, KeepSeparator};
use chunklab_core::{ChunkConfig, Lang, Strategy, Unit};
use chunklab_pipeline::{
    ContextConfig, ContextKind, Fallback, LlmConfig, PipelineConfig, ReadingConfig,
};

/// Every option that decides how inputs are read, parsed and cut: shared by `chunk` and `index`
/// (flattened into both), so an index is built with exactly the chunks `chunk` prints.
#[derive(clap::Args, Debug, Clone)]
pub struct ChunkingArgs {
    /// Strategy; `chunklab strategies` lists them all.
    #[arg(long, short = 's', default_value = "recursive")]
    pub strategy: Strategy,
    /// late: the strategy that draws the chunk boundaries (any other strategy; every other
    /// chunking flag applies to it); default recursive.
    #[arg(long)]
    pub boundaries: Option<Strategy>,
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
    pub unit: Option<Unit>,
    /// Tokenizer for --unit tokens: cl100k, o200k, an embedding model's name (minilm, e5-small:
    /// its tokenizer.json, the model not loaded), or a tokenizer.json path / model directory
    /// (default: cl100k; with --model: the model's tokenizer.json).
    #[arg(long)]
    pub tokenizer: Option<String>,
    /// Embedding model for semantic and cluster (and late), and the model `index` embeds with
    /// (default: the index's own; for a new index e5-small with --lang nl, else minilm):
    /// minilm, e5-small, a local model directory, or a Hugging Face hub id in the local hub
    /// cache.
    #[arg(long)]
    pub model: Option<String>,
    /// Fetch a known --model (or --llm local model) that is not installed yet.
    #[arg(long)]
    pub fetch: bool,
    #[command(flatten)]
    pub llm: LlmArgs,
    #[command(flatten)]
    pub context: ContextArgs,
    /// semantic: how neighbour distances become breakpoints: percentile, stddev, interquartile
    /// or gradient (LangChain SemanticChunker's definitions).
    #[arg(long, default_value = "percentile")]
    pub breakpoint: Breakpoint,
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
    pub lang: Lang,
    /// Output compatibility: native, or langchain (RecursiveCharacterTextSplitter / TokenTextSplitter texts).
    #[arg(long, default_value = "native")]
    pub compat: Compat,
    /// Recursive separators as a JSON array, e.g. '["\n\n", "\n", " ", ""]'.
    #[arg(long)]
    pub separators: Option<String>,
    /// Treat --separators as regular expressions (lookahead allowed: '\n(?=Artikel \d+)').
    #[arg(long)]
    pub regex_separators: bool,
    /// Where a recursive separator goes: start (of the next piece), end (of the previous), none.
    #[arg(long, default_value = "start")]
    pub keep_separator: KeepSeparator,
    /// headings/elements: deepest heading level that starts a chunk (1 = chapters only).
    #[arg(long, default_value_t = 6)]
    pub max_level: usize,
    /// headings/elements/code: prefix each chunk's embedded text with its heading path (or
    /// symbol path); the prefix counts toward --size.
    #[arg(long)]
    pub title_prefix: bool,
    /// headings: merge sibling sections up to --size (the chunk lists its sections); default:
    /// one section per chunk, small neighbours merged only under the same heading path.
    #[arg(long)]
    pub merge_siblings: bool,
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
    #[command(flatten)]
    pub ocr: OcrArgs,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Bounds on what one input may cost to parse: shared by `chunk`, `index` and `parse`.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct LimitArgs {
    /// Most elements (paragraphs, headings, table cells ...) one DOCX or ODT document may hold
    /// (default 2000000); more is an error naming the file.
    #[arg(long, value_name = "N")]
    pub max_elements: Option<usize>,
    /// Most megabytes a DOCX or ODT container may expand to (default 512); more is an error
    /// naming the file.
    #[arg(long, value_name = "MB")]
    pub max_expanded_mb: Option<u64>,
}

/// OCR of scanned PDF pages and image files (PNG, JPEG, TIFF): shared by `chunk`, `index`,
/// `parse` and `bench`; maps onto [`chunklab_pipeline::OcrOptions`].
#[derive(clap::Args, Debug, Clone, Default)]
pub struct OcrArgs {
    /// OCR: auto (pages without a usable text layer, and image files), always (every page), never.
    #[arg(long, value_name = "MODE")]
    pub ocr: Option<chunklab_pipeline::OcrMode>,
    /// OCR languages, Tesseract names joined with + (default nld+eng).
    #[arg(long, value_name = "LANGS")]
    pub ocr_lang: Option<String>,
    /// Pages with a mean word confidence (0-100) below this are listed as warnings (default 60).
    #[arg(long, value_name = "CONF")]
    pub ocr_min_confidence: Option<f32>,
    /// Seconds one page's OCR may take before it is stopped (default 120).
    #[arg(long, value_name = "SECS")]
    pub ocr_timeout: Option<u64>,
    /// Preprocessing steps, comma separated: dpi, border, deskew, otsu, osd; all or none
    /// (default dpi,deskew,osd).
    #[arg(long, value_name = "STEPS")]
    pub ocr_preprocess: Option<String>,
}

impl OcrArgs {
    /// The OCR options these flags give (defaults for the flags not given).
    pub fn options(&self) -> chunklab_pipeline::OcrOptions {
        let mut o = chunklab_pipeline::OcrOptions::default();
        if let Some(m) = self.ocr {
            o.mode = m;
        }
        if let Some(l) = &self.ocr_lang {
            o.lang = l.clone();
        }
        if let Some(c) = self.ocr_min_confidence {
            o.min_confidence = c;
        }
        if let Some(t) = self.ocr_timeout {
            o.timeout_s = t;
        }
        if let Some(p) = &self.ocr_preprocess {
            o.preprocess = p.clone();
        }
        o
    }
}

/// The language model and how it is called (`--context llm`, `--strategy llm`, `queries`).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct LlmArgs {
    /// Language model for --context llm, --strategy llm and `queries generate`:
    /// local:smollm2, local:PATH.gguf, openai:BASE_URL#MODEL (key: $OPENAI_API_KEY if set),
    /// anthropic:MODEL (key: $ANTHROPIC_API_KEY).
    #[arg(long)]
    pub llm: Option<String>,
    /// Do not read or write the LLM answer cache ($CHUNKLAB_HOME/llm-cache).
    #[arg(long)]
    pub llm_no_cache: bool,
    /// Requests in flight at once for HTTP models.
    #[arg(long, default_value_t = 4)]
    pub llm_concurrency: usize,
}

impl LlmArgs {
    /// As the typed configuration.
    pub fn config(&self) -> LlmConfig {
        LlmConfig {
            spec: self.llm.clone(),
            no_cache: self.llm_no_cache,
            concurrency: self.llm_concurrency,
        }
    }
}

/// Contextual retrieval.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ContextArgs {
    /// Contextual retrieval: `llm` (a language model writes a context per chunk, see --llm) or
    /// `header` (document title + heading path, no model).
    #[arg(long)]
    pub context: Option<ContextKind>,
    /// File with the context prompt; `{doc}` and `{chunk}` are replaced (default: Anthropic's
    /// contextual-retrieval prompt).
    #[arg(long)]
    pub context_prompt: Option<std::path::PathBuf>,
    /// Most tokens of one context.
    #[arg(long, default_value_t = 100)]
    pub context_max_tokens: usize,
    /// When the model gives no usable context twice: `header` falls back to the header context
    /// (counted in the summary), `error` fails the document.
    #[arg(long, default_value = "header")]
    pub context_fallback: Fallback,
    /// Most document tokens per context prompt (default: as many as the model's context
    /// leaves); longer documents are sent as windows holding the chunk, shared by neighbouring
    /// chunks. A small cap makes a local model much faster per chunk.
    #[arg(long)]
    pub context_doc_tokens: Option<usize>,
}

impl ContextArgs {
    /// As the typed configuration (`None` without `--context`); context flags without
    /// `--context` are an error.
    pub fn config(&self) -> Result<Option<ContextConfig>> {
        let Some(kind) = self.context else {
            if self.context_prompt.is_some()
                || self.context_doc_tokens.is_some()
                || self.context_max_tokens != 100
                || self.context_fallback != Fallback::Header
            {
                bail!("--context-prompt, --context-max-tokens, --context-fallback and --context-doc-tokens apply with --context");
            }
            return Ok(None);
        };
        Ok(Some(ContextConfig {
            kind,
            prompt: self.context_prompt.clone(),
            max_tokens: self.context_max_tokens,
            fallback: self.context_fallback,
            doc_tokens: self.context_doc_tokens,
        }))
    }
}

impl ChunkingArgs {
    /// The typed configuration these flags spell. Only what flags spell differently from the
    /// configuration is handled here (`--percentile`/`--threshold`, `--levels 2048,512,128`,
    /// `--separators` as JSON); everything else is checked by the configuration itself.
    pub fn config(&self) -> Result<PipelineConfig> {
        let breakpoint_amount = match (self.breakpoint, self.percentile, self.threshold) {
            (_, Some(_), Some(_)) => bail!("give --percentile or --threshold, not both"),
            (Breakpoint::Percentile | Breakpoint::Gradient, p, None) => p,
            (Breakpoint::Percentile | Breakpoint::Gradient, None, Some(_)) => bail!(
                "--threshold applies to --breakpoint stddev and interquartile; use --percentile with {}",
                self.breakpoint
            ),
            (Breakpoint::StdDev | Breakpoint::Interquartile, None, t) => t,
            (Breakpoint::StdDev | Breakpoint::Interquartile, Some(_), None) => bail!(
                "--percentile applies to --breakpoint percentile and gradient; use --threshold with {}",
                self.breakpoint
            ),
        };
        let separators = match &self.separators {
            None => None,
            Some(js) => Some(serde_json::from_str::<Vec<String>>(js).with_context(|| {
                format!("--separators must be a JSON array of strings, got {js}")
            })?),
        };
        let levels = self.levels.as_deref().map(parse_levels).transpose()?;
        let chunking = ChunkConfig {
            strategy: self.strategy,
            size: self.size,
            overlap: self.overlap,
            stride: self.stride,
            unit: self.unit,
            tokenizer: self.tokenizer.clone(),
            count_special: self.count_special,
            compat: self.compat,
            separators,
            regex_separators: self.regex_separators,
            keep_separator: self.keep_separator,
            max_level: self.max_level,
            title_prefix: self.title_prefix,
            merge_siblings: self.merge_siblings,
            lang: self.lang,
            breakpoint: self.breakpoint,
            breakpoint_amount,
            buffer: self.buffer,
            min_size: self.min_size,
            piece_size: self.piece_size,
            levels,
            boundaries: self.boundaries,
            late_window: self.late_window,
            late_overlap: self.late_overlap,
        };
        chunking.validate().map_err(flag_error)?;
        Ok(PipelineConfig {
            chunking,
            model: self.model.clone(),
            fetch: self.fetch,
            llm: self.llm.config(),
            context: self.context.config()?,
            reading: ReadingConfig {
                parser: self.parser.clone(),
                encoding: self.encoding.clone(),
                lossy: self.lossy,
                include: self.include.clone(),
                exclude: self.exclude.clone(),
                ocr: self.ocr.options(),
                max_elements: self.limits.max_elements,
                max_expanded_mb: self.limits.max_expanded_mb,
            },
        })
    }

    /// Check every option and build the pipeline they describe.
    pub fn pipeline(&self) -> Result<chunklab_pipeline::Pipeline> {
        chunklab_pipeline::Pipeline::new(self.config()?).map_err(cli_error)
    }
}

/// The chunking flags (every flag of [`ChunkingArgs`], `--strategy`, `--size`, ...) that the
/// command line of a command flattening [`ChunkingArgs`] gives, in their spelling: a command
/// given none may take the configuration an index recorded instead of the flags' defaults.
pub fn chunking_flags_given(m: &clap::ArgMatches) -> Vec<String> {
    let flags = <ChunkingArgs as clap::Args>::augment_args(clap::Command::new("chunking"));
    flags
        .get_arguments()
        .filter(|arg| {
            m.value_source(arg.get_id().as_str()) == Some(clap::parser::ValueSource::CommandLine)
        })
        .map(|arg| format!("--{}", arg.get_long().unwrap_or(arg.get_id().as_str())))
        .collect()
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

/// The flag that spells configuration key `param`.
pub fn flag(param: &str) -> String {
    chunklab_pipeline::Spelling::key(&chunklab_pipeline::Flags, param)
}

/// A configuration error in flag spelling: `--overlap does not apply to ...`.
pub fn flag_error(e: chunklab_core::Error) -> anyhow::Error {
    match e {
        chunklab_core::Error::Param { param, message } => anyhow!("{} {message}", flag(param)),
        other => other.into(),
    }
}

/// [`flag_error`] for an error anywhere in a chain.
pub fn cli_error(e: anyhow::Error) -> anyhow::Error {
    for cause in e.chain() {
        if let Some(chunklab_core::Error::Param { param, message }) =
            cause.downcast_ref::<chunklab_core::Error>()
        {
            return anyhow!("{} {message}", flag(param));
        }
    }
    e
}
