//! A BERT-family encoder (BERT, XLM-RoBERTa) on the CPU.
//!
//! Weights are read with candle (safetensors, any float dtype); the forward pass runs on plain
//! buffers with candle's matrix kernel (the `gemm` crate) and rayon, which avoids a tensor
//! allocation and a thread hand-off per elementwise op. On CPUs with AVX-512 VNNI or AVX2 the
//! dense layers run in int8 ([`Precision`], [`crate::int8`]); attention, softmax, GELU and the
//! layer norms stay f32.
//!
//! Batches are *packed*: the tokens of all sequences are stacked into one `(tokens, hidden)`
//! matrix for the dense layers, and attention runs per sequence and head, in parallel. Nothing
//! is padded, so a text gets the same vector alone or in any batch, and no work is spent on
//! padding.

use crate::error::{Error, Result};
use crate::int8::QuantDense;
use candle_core::{DType, Device, Tensor};
use gemm::Parallelism;
use rayon::prelude::*;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::Path;

/// The parts of a Hugging Face `config.json` the encoder needs.
#[derive(Clone, Debug, Deserialize)]
pub struct BertConfig {
    /// `bert`, `xlm-roberta`, `roberta`, ...
    #[serde(default = "default_model_type")]
    pub model_type: String,
    pub vocab_size: usize,
    pub hidden_size: usize,
    pub num_hidden_layers: usize,
    pub num_attention_heads: usize,
    pub intermediate_size: usize,
    #[serde(default = "default_act")]
    pub hidden_act: String,
    pub max_position_embeddings: usize,
    #[serde(default = "default_type_vocab")]
    pub type_vocab_size: usize,
    #[serde(default = "default_eps")]
    pub layer_norm_eps: f64,
    #[serde(default)]
    pub pad_token_id: usize,
}

fn default_model_type() -> String {
    "bert".into()
}
fn default_act() -> String {
    "gelu".into()
}
fn default_type_vocab() -> usize {
    2
}
fn default_eps() -> f64 {
    1e-12
}

impl BertConfig {
    /// First position id: RoBERTa-style models count positions from `pad_token_id + 1`.
    pub fn position_offset(&self) -> usize {
        match self.model_type.as_str() {
            "roberta" | "xlm-roberta" | "camembert" => self.pad_token_id + 1,
            _ => 0,
        }
    }

    /// Longest sequence (special tokens included) the position table allows.
    pub fn max_sequence(&self) -> usize {
        self.max_position_embeddings
            .saturating_sub(self.position_offset())
    }
}

#[derive(Clone, Copy, Debug)]
enum Act {
    GeluErf,
    GeluTanh,
    Relu,
}

struct Norm {
    weight: Vec<f32>,
    bias: Vec<f32>,
}

struct Dense {
    /// `(in, out)`, row-major.
    weight_t: Vec<f32>,
    bias: Vec<f32>,
    inputs: usize,
    outputs: usize,
    /// The same weights in int8, where the CPU runs the int8 kernel.
    quant: Option<QuantDense>,
}

/// How the encoder's dense layers (about 90 % of its arithmetic) compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// Float32 throughout (candle's gemm kernel).
    F32,
    /// Int8 dense layers (weights quantized per output and group of 64 inputs, activations per
    /// token and group, exact i32 accumulation), f32 everywhere else. Needs AVX-512 VNNI or AVX2 (the same vectors on both); every reference vector stays
    /// at cosine ≥ 0.999 to the f32 path (tests/int8.rs).
    Int8,
}

impl Precision {
    /// What a model loads with: [`Precision::Int8`] where the CPU has AVX-512 VNNI or AVX2, unless the
    /// environment variable `CHUNKLAB_EMBED_PRECISION` is `f32`.
    pub fn auto() -> Self {
        let forced_f32 = std::env::var("CHUNKLAB_EMBED_PRECISION")
            .map(|v| v.eq_ignore_ascii_case("f32"))
            .unwrap_or(false);
        if !forced_f32 && crate::int8::supported() {
            Precision::Int8
        } else {
            Precision::F32
        }
    }

    /// `"f32"` or `"int8"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::F32 => "f32",
            Precision::Int8 => "int8",
        }
    }
}

struct Layer {
    qkv: Dense,
    attn_out: Dense,
    attn_norm: Norm,
    inter: Dense,
    out: Dense,
    out_norm: Norm,
}

/// The word embedding table: a float tensor, or 4-bit rows dequantized on lookup (a 250k-row
/// multilingual vocabulary is 384 MB as f32 and 54 MB as Q4_0).
pub(crate) enum WordTable {
    /// `rows x dim`, row-major.
    Dense {
        data: Vec<f32>,
        rows: usize,
        dim: usize,
    },
    Q4 {
        /// `rows` rows of `dim / 32` Q4_0 blocks.
        blocks: Vec<u8>,
        rows: usize,
        dim: usize,
    },
}

impl WordTable {
    /// Append the vectors of `ids` to `out`.
    fn lookup(&self, ids: &[u32], out: &mut Vec<f32>) {
        match self {
            WordTable::Dense { data, dim, .. } => {
                for &id in ids {
                    let start = id as usize * dim;
                    out.extend_from_slice(&data[start..start + dim]);
                }
            }
            WordTable::Q4 { blocks, dim, .. } => {
                let row_bytes = dim / 32 * crate::q4::Q4_BLOCK_BYTES;
                for &id in ids {
                    let start = id as usize * row_bytes;
                    crate::q4::dequantize_q4(&blocks[start..start + row_bytes], out);
                }
            }
        }
    }

    fn shape(&self) -> (usize, usize) {
        match self {
            WordTable::Dense { rows, dim, .. } | WordTable::Q4 { rows, dim, .. } => (*rows, *dim),
        }
    }
}

/// The encoder: embeddings plus `num_hidden_layers` transformer layers (no pooler).
pub struct BertModel {
    config: BertConfig,
    act: Act,
    word: WordTable,
    /// `max_position_embeddings x hidden`.
    position: Vec<f32>,
    /// `type_vocab_size x hidden`: segment embeddings (row 0 for single texts, row 1 for the
    /// second text of a pair).
    token_types: Vec<f32>,
    emb_norm: Norm,
    layers: Vec<Layer>,
    precision: Precision,
}

impl BertModel {
    /// Load `model.safetensors` (any float dtype; converted to f32).
    pub fn load(dir: &Path, config: BertConfig) -> Result<Self> {
        let path = dir.join("model.safetensors");
        let tensors =
            candle_core::safetensors::load(&path, &Device::Cpu).map_err(|e| Error::BadModel {
                dir: dir.to_path_buf(),
                detail: format!("cannot read model.safetensors: {e}"),
            })?;
        Self::from_tensors(config, tensors).map_err(|detail| Error::BadModel {
            dir: dir.to_path_buf(),
            detail,
        })
    }

    /// Build the model from named tensors in Hugging Face naming, with or without a `bert.` /
    /// `roberta.` prefix.
    pub fn from_tensors(
        config: BertConfig,
        tensors: HashMap<String, Tensor>,
    ) -> Result<Self, String> {
        Self::from_parts(config, tensors, None, false)
    }

    /// Like [`BertModel::from_tensors`], with the word embeddings given separately (when
    /// `words` is `Some`, the tensor map need not hold them). `int8_projections`: whether the
    /// query/key/value projection runs in int8 too under [`Precision::Int8`] — only for models
    /// where that was measured to keep every reference vector at cosine ≥ 0.999 to f32
    /// (e5-small: yes; MiniLM: no, its attention on one-token texts such as "?" falls to 0.9983).
    pub(crate) fn from_parts(
        config: BertConfig,
        tensors: HashMap<String, Tensor>,
        words: Option<WordTable>,
        int8_projections: bool,
    ) -> Result<Self, String> {
        let act = match config.hidden_act.as_str() {
            "gelu" => Act::GeluErf,
            "gelu_new" | "gelu_pytorch_tanh" | "gelu_fast" => Act::GeluTanh,
            "relu" => Act::Relu,
            other => return Err(format!("unsupported hidden_act {other:?}")),
        };
        if config.num_attention_heads == 0
            || !config
                .hidden_size
                .is_multiple_of(config.num_attention_heads)
        {
            return Err("hidden_size is not a multiple of num_attention_heads".into());
        }
        if config.type_vocab_size == 0 {
            return Err("type_vocab_size is 0 (the model needs at least one token type)".into());
        }
        let suffix = "embeddings.position_embeddings.weight";
        let prefix = tensors
            .keys()
            .find_map(|k| k.strip_suffix(suffix))
            .ok_or_else(|| format!("no tensor named {suffix}"))?
            .to_string();
        let h = config.hidden_size;
        let get = |name: &str, shape: &[usize]| -> Result<Vec<f32>, String> {
            let full = format!("{prefix}{name}");
            let t = tensors
                .get(&full)
                .ok_or_else(|| format!("missing tensor {full}"))?;
            if t.dims() != shape {
                return Err(format!(
                    "tensor {full} has shape {:?}, expected {shape:?}",
                    t.dims()
                ));
            }
            let flat = t.to_dtype(DType::F32).and_then(|t| t.flatten_all());
            flat.and_then(|t| t.to_vec1::<f32>())
                .map_err(|e| e.to_string())
        };
        let norm = |name: &str| -> Result<Norm, String> {
            let (w, b) = if tensors.contains_key(&format!("{prefix}{name}.weight")) {
                ("weight", "bias")
            } else {
                ("gamma", "beta")
            };
            Ok(Norm {
                weight: get(&format!("{name}.{w}"), &[h])?,
                bias: get(&format!("{name}.{b}"), &[h])?,
            })
        };
        // Several `(out, in)` weights side by side as one `(in, sum of out)` matrix.
        let dense =
            |names: &[String], din: usize, dout: usize, int8: bool| -> Result<Dense, String> {
                let outputs = dout * names.len();
                let mut weight_t = vec![0f32; din * outputs];
                let mut bias = Vec::with_capacity(outputs);
                for (part, n) in names.iter().enumerate() {
                    let w = get(&format!("{n}.weight"), &[dout, din])?;
                    for o in 0..dout {
                        for i in 0..din {
                            weight_t[i * outputs + part * dout + o] = w[o * din + i];
                        }
                    }
                    bias.extend(get(&format!("{n}.bias"), &[dout])?);
                }
                let quant = (int8 && crate::int8::supported())
                    .then(|| QuantDense::new(&weight_t, &bias, din, outputs));
                Ok(Dense {
                    weight_t,
                    bias,
                    inputs: din,
                    outputs,
                    quant,
                })
            };
        let one = |n: &str| vec![n.to_string()];
        let mut layers = Vec::with_capacity(config.num_hidden_layers);
        for i in 0..config.num_hidden_layers {
            let p = format!("encoder.layer.{i}.");
            let qkv: Vec<String> = ["query", "key", "value"]
                .iter()
                .map(|x| format!("{p}attention.self.{x}"))
                .collect();
            layers.push(Layer {
                qkv: dense(&qkv, h, h, int8_projections)?,
                attn_out: dense(&one(&format!("{p}attention.output.dense")), h, h, true)?,
                attn_norm: norm(&format!("{p}attention.output.LayerNorm"))?,
                inter: dense(
                    &one(&format!("{p}intermediate.dense")),
                    h,
                    config.intermediate_size,
                    true,
                )?,
                out: dense(
                    &one(&format!("{p}output.dense")),
                    config.intermediate_size,
                    h,
                    true,
                )?,
                out_norm: norm(&format!("{p}output.LayerNorm"))?,
            });
        }
        let token_types = get(
            "embeddings.token_type_embeddings.weight",
            &[config.type_vocab_size, h],
        )?;
        let word = match words {
            Some(w) => w,
            None => WordTable::Dense {
                data: get("embeddings.word_embeddings.weight", &[config.vocab_size, h])?,
                rows: config.vocab_size,
                dim: h,
            },
        };
        if word.shape() != (config.vocab_size, h) {
            return Err(format!(
                "word embeddings are {:?}, config.json says {:?}",
                word.shape(),
                (config.vocab_size, h)
            ));
        }
        Ok(Self {
            act,
            word,
            position: get(
                "embeddings.position_embeddings.weight",
                &[config.max_position_embeddings, h],
            )?,
            token_types,
            emb_norm: norm("embeddings.LayerNorm")?,
            layers,
            config,
            precision: Precision::auto(),
        })
    }

    /// How the dense layers compute (see [`Precision::auto`]).
    pub fn precision(&self) -> Precision {
        self.precision
    }

    /// Compute in `precision` from now on. Fails for [`Precision::Int8`] on a CPU with neither
    /// AVX-512 VNNI nor AVX2.
    pub fn set_precision(&mut self, precision: Precision) -> Result<()> {
        if precision == Precision::Int8 && !crate::int8::supported() {
            return Err(Error::Unsupported(
                "int8 precision needs a CPU with AVX-512 VNNI or AVX2 and FMA".into(),
            ));
        }
        self.precision = precision;
        Ok(())
    }

    /// The model's configuration.
    pub fn config(&self) -> &BertConfig {
        &self.config
    }

    /// Last hidden states of a packed batch: `ids` holds the sequences back to back, `lens`
    /// their lengths. Returns `ids.len() x hidden` floats, row-major. Every length must be at
    /// most [`BertConfig::max_sequence`].
    pub fn forward(&self, ids: &[u32], lens: &[usize]) -> Result<Vec<f32>> {
        self.forward_typed(ids, None, lens)
    }

    /// [`BertModel::forward`] with a token type (segment) id per token, as for sentence pairs:
    /// `type_ids` is parallel to `ids` (0 for the first text, 1 for the second); `None` means
    /// all 0. Every type id must be below `type_vocab_size`.
    pub fn forward_typed(
        &self,
        ids: &[u32],
        type_ids: Option<&[u32]>,
        lens: &[usize],
    ) -> Result<Vec<f32>> {
        let n = ids.len();
        if lens.iter().sum::<usize>() != n {
            return Err(Error::Tokenizer("sequence lengths do not add up".into()));
        }
        if let Some(types) = type_ids {
            if types.len() != n {
                return Err(Error::Tokenizer(
                    "token type ids and token ids differ in length".into(),
                ));
            }
            let limit = self.config.type_vocab_size as u32;
            if types.iter().any(|&t| t >= limit) {
                return Err(Error::Tokenizer(format!(
                    "token type id outside the model's {limit} token types (tokenizer and model do not match)"
                )));
            }
        }
        let max_seq = self.config.max_sequence();
        if let Some(&too_long) = lens.iter().find(|&&l| l > max_seq) {
            return Err(Error::TooLong {
                tokens: too_long,
                limit: max_seq,
            });
        }
        let vocab = self.config.vocab_size as u32;
        if ids.iter().any(|&i| i >= vocab) {
            return Err(Error::Tokenizer(
                "token id outside the model's vocabulary (tokenizer and model do not match)".into(),
            ));
        }
        let h = self.config.hidden_size;
        let offset = self.config.position_offset();
        let mut x = Vec::with_capacity(n * h);
        self.word.lookup(ids, &mut x);
        let mut row = 0;
        for &len in lens {
            for p in 0..len {
                let pos = &self.position[(p + offset) * h..(p + offset + 1) * h];
                let t = type_ids.map_or(0, |types| types[row] as usize);
                let segment = &self.token_types[t * h..(t + 1) * h];
                let r = &mut x[row * h..(row + 1) * h];
                for ((v, a), b) in r.iter_mut().zip(pos).zip(segment) {
                    *v += a + b;
                }
                row += 1;
            }
        }
        let eps = self.config.layer_norm_eps as f32;
        add_layer_norm(&mut x, None, &self.emb_norm, eps);
        let mut scratch = Scratch::default();
        for layer in &self.layers {
            self.layer(&mut x, layer, lens, &mut scratch);
        }
        Ok(x)
    }

    fn layer(&self, x: &mut [f32], layer: &Layer, lens: &[usize], s: &mut Scratch) {
        let h = self.config.hidden_size;
        let eps = self.config.layer_norm_eps as f32;
        let int8 = self.precision == Precision::Int8;
        linear_into(x, &layer.qkv, int8, &mut s.qkv);
        attention_into(&s.qkv, lens, h, self.config.num_attention_heads, &mut s.ctx);
        linear_into(&s.ctx, &layer.attn_out, int8, &mut s.out);
        add_layer_norm(x, Some(&s.out), &layer.attn_norm, eps);
        linear_into(x, &layer.inter, int8, &mut s.inter);
        let inter = &mut s.inter;
        match self.act {
            Act::GeluErf => crate::gelu::gelu_in_place(inter),
            Act::GeluTanh => inter.par_chunks_mut(8192).for_each(|c| {
                for v in c {
                    let t = (0.797_884_6 * (*v + 0.044_715 * *v * *v * *v)).tanh();
                    *v = 0.5 * *v * (1.0 + t);
                }
            }),
            Act::Relu => inter.par_iter_mut().for_each(|v| *v = v.max(0.0)),
        }
        linear_into(&s.inter, &layer.out, int8, &mut s.out);
        add_layer_norm(x, Some(&s.out), &layer.out_norm, eps);
    }
}

/// The intermediate buffers of a forward pass, allocated by the first layer and reused by the
/// others: fresh multi-megabyte buffers per layer cost page faults (28 M minor faults in a
/// Chroma sweep) and the kernel time to zero the pages.
#[derive(Default)]
struct Scratch {
    qkv: Vec<f32>,
    ctx: Vec<f32>,
    inter: Vec<f32>,
    out: Vec<f32>,
}

fn threads() -> Parallelism {
    match rayon::current_num_threads() {
        0 | 1 => Parallelism::None,
        t => Parallelism::Rayon(t),
    }
}

/// `out = x (rows x inputs) · weight_t + bias`, in int8 when `int8` and the layer has int8
/// weights; `out` is resized, its allocation reused.
fn linear_into(x: &[f32], d: &Dense, int8: bool, out: &mut Vec<f32>) {
    if let (true, Some(q)) = (int8, &d.quant) {
        return crate::int8::linear_into(x, q, out);
    }
    let rows = x.len() / d.inputs;
    assert_eq!(rows * d.inputs, x.len());
    assert_eq!(d.weight_t.len(), d.inputs * d.outputs);
    out.clear();
    out.reserve(rows * d.outputs);
    for _ in 0..rows {
        out.extend_from_slice(&d.bias);
    }
    // SAFETY: every pointer/stride pair describes a buffer whose size was checked above:
    // out is rows x outputs, x is rows x inputs, weight_t is inputs x outputs, all row-major.
    unsafe {
        gemm::gemm(
            rows,
            d.outputs,
            d.inputs,
            out.as_mut_ptr(),
            1,
            d.outputs as isize,
            true,
            x.as_ptr(),
            1,
            d.inputs as isize,
            d.weight_t.as_ptr(),
            1,
            d.outputs as isize,
            1.0,
            1.0,
            false,
            false,
            false,
            threads(),
        );
    }
}

/// A raw pointer that may be shared between rayon tasks writing disjoint regions.
#[derive(Clone, Copy)]
struct SharedOut(*mut f32);
// SAFETY: tasks only write disjoint regions through it (see `attention`).
unsafe impl Send for SharedOut {}
unsafe impl Sync for SharedOut {}

impl SharedOut {
    fn ptr(&self) -> *mut f32 {
        self.0
    }
}

/// Scaled dot-product attention of every sequence and head. `qkv` is `tokens x 3h` (queries,
/// keys, values side by side); `ctx` becomes the `tokens x h` context (resized, its allocation
/// reused).
fn attention_into(qkv: &[f32], lens: &[usize], h: usize, heads: usize, ctx: &mut Vec<f32>) {
    let tokens: usize = lens.iter().sum();
    assert_eq!(qkv.len(), tokens * 3 * h);
    let d = h / heads;
    let scale = 1.0 / (d as f32).sqrt();
    ctx.clear();
    ctx.resize(tokens * h, 0.0);
    let out = SharedOut(ctx.as_mut_ptr());
    let mut starts = Vec::with_capacity(lens.len());
    let mut s = 0;
    for &len in lens {
        starts.push(s);
        s += len;
    }
    let units: Vec<(usize, usize, usize)> = starts
        .iter()
        .zip(lens)
        .filter(|(_, &len)| len > 0)
        .flat_map(|(&start, &len)| (0..heads).map(move |head| (start, len, head)))
        .collect();
    units.par_iter().for_each(|&(start, len, head)| {
        let stride = 3 * h;
        let q = &qkv[start * stride + head * d..];
        let k = &qkv[start * stride + h + head * d..];
        let v = &qkv[start * stride + 2 * h + head * d..];
        SCORES.with_borrow_mut(|scores| {
            scores.clear();
            scores.resize(len * len, 0.0);
            // SAFETY: q, k and v rows are `stride` apart inside qkv (len rows of d values from the
            // given offsets fit: the last row ends at (start + len - 1) * stride + 3h <= qkv.len());
            // scores is len x len; the context block written is rows start..start+len, columns
            // head*d..head*d+d of ctx, which no other task writes.
            unsafe {
                gemm::gemm(
                    len,
                    len,
                    d,
                    scores.as_mut_ptr(),
                    1,
                    len as isize,
                    false,
                    q.as_ptr(),
                    1,
                    stride as isize,
                    k.as_ptr(),
                    stride as isize,
                    1,
                    0.0,
                    scale,
                    false,
                    false,
                    false,
                    Parallelism::None,
                );
            }
            for row in scores.chunks_exact_mut(len) {
                crate::softmax::softmax(row);
            }
            unsafe {
                gemm::gemm(
                    len,
                    d,
                    len,
                    out.ptr().add(start * h + head * d),
                    1,
                    h as isize,
                    false,
                    scores.as_ptr(),
                    1,
                    len as isize,
                    v.as_ptr(),
                    1,
                    stride as isize,
                    0.0,
                    1.0,
                    false,
                    false,
                    false,
                    Parallelism::None,
                );
            }
        });
    });
}

thread_local! {
    /// One attention head's `len x len` scores, per thread: kept from head to head and batch to
    /// batch (at most 512 x 512 floats, 1 MiB), where a fresh one above 128 KiB was a mapping.
    static SCORES: std::cell::RefCell<Vec<f32>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `x = layer_norm(x + y)` row by row (`y` absent: `layer_norm(x)`), like torch's LayerNorm
/// (biased variance, eps inside the square root).
fn add_layer_norm(x: &mut [f32], y: Option<&[f32]>, norm: &Norm, eps: f32) {
    let h = norm.weight.len();
    let body = |(r, y): (&mut [f32], Option<&[f32]>)| {
        if let Some(y) = y {
            r.iter_mut().zip(y).for_each(|(a, b)| *a += b);
        }
        let mean = r.iter().sum::<f32>() / h as f32;
        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f32>() / h as f32;
        let inv = 1.0 / (var + eps).sqrt();
        for ((v, w), b) in r.iter_mut().zip(&norm.weight).zip(&norm.bias) {
            *v = (*v - mean) * inv * w + b;
        }
    };
    match y {
        Some(y) => x
            .par_chunks_mut(h)
            .zip(y.par_chunks(h))
            .for_each(|(r, y)| body((r, Some(y)))),
        None => x.par_chunks_mut(h).for_each(|r| body((r, None))),
    }
}

/// Mean of `rows` consecutive rows of a row-major matrix, starting at `start`.
pub(crate) fn mean_rows(data: &[f32], dim: usize, start: usize, rows: usize) -> Vec<f32> {
    let mut acc = vec![0f32; dim];
    for r in start..start + rows {
        for (a, v) in acc.iter_mut().zip(&data[r * dim..(r + 1) * dim]) {
            *a += v;
        }
    }
    let denom = (rows as f32).max(1e-9);
    acc.iter_mut().for_each(|a| *a /= denom);
    acc
}

/// L2-normalize in place like `torch.nn.functional.normalize` (eps 1e-12).
pub(crate) fn normalize(v: &mut [f32]) {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    v.iter_mut().for_each(|x| *x /= norm);
}
