//! A compact Llama forward pass over GGUF weights (candle-core reads and dequantizes them, its
//! gemm does the products; attention, RoPE and norms are written out here), with an explicit KV cache
//! that can be truncated back to a shared prompt prefix.
//!
//! Architecture as llama.cpp stores it: token embedding (tied output when `output.weight` is
//! absent), per layer RMSNorm → grouped-query attention with interleaved RoPE → residual →
//! RMSNorm → SwiGLU feed-forward → residual, final RMSNorm.

use crate::error::{Error, Result};
use candle_core::quantized::{gguf_file, QMatMul, QTensor};
use candle_core::{DType, Device, Module, Tensor, D};
use std::path::Path;
use std::sync::Arc;

/// Prompt tokens run through the network per step; bounds the attention matrix
/// (`heads × block × context` floats).
const PREFILL_BLOCK: usize = 256;

/// Hyper-parameters read from the `llama.*` GGUF metadata.
#[derive(Clone, Debug, PartialEq)]
pub struct LlamaConfig {
    /// Transformer blocks.
    pub layers: usize,
    /// Query heads.
    pub heads: usize,
    /// Key/value heads (grouped-query attention).
    pub kv_heads: usize,
    /// Hidden size.
    pub dim: usize,
    /// Size of one head.
    pub head_dim: usize,
    /// RMSNorm epsilon.
    pub eps: f64,
    /// RoPE frequency base.
    pub rope_base: f32,
    /// Trained context length in tokens.
    pub context_length: usize,
}

struct Layer {
    attn_norm: Tensor,
    wq: QMatMul,
    wk: QMatMul,
    wv: QMatMul,
    wo: QMatMul,
    ffn_norm: Tensor,
    gate: QMatMul,
    up: QMatMul,
    down: QMatMul,
}

/// The weights of a Llama-architecture GGUF model, shared read-only between sessions.
pub struct LlamaModel {
    /// Hyper-parameters.
    pub config: LlamaConfig,
    name: String,
    embed: Arc<QTensor>,
    layers: Vec<Layer>,
    norm: Tensor,
    output: QMatMul,
    inv_freq: Vec<f32>,
}

/// Keys and values of the tokens seen so far, per layer, as `(kv_heads, len, head_dim)`.
///
/// [`KvCache::truncate`] drops everything after a prefix, so a prompt that starts with the same
/// tokens (the same document) skips their forward pass.
#[derive(Clone, Default)]
pub struct KvCache {
    layers: Vec<Option<(Tensor, Tensor)>>,
    len: usize,
}

impl KvCache {
    /// Tokens in the cache.
    pub fn len(&self) -> usize {
        self.len
    }

    /// `true` when nothing is cached.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Keep only the first `len` tokens.
    pub fn truncate(&mut self, len: usize) -> Result<()> {
        if len >= self.len {
            return Ok(());
        }
        if len == 0 {
            self.layers.clear();
            self.len = 0;
            return Ok(());
        }
        for (k, v) in self.layers.iter_mut().flatten() {
            *k = k.narrow(1, 0, len).map_err(|e| Error::compute("kv", e))?;
            *v = v.narrow(1, 0, len).map_err(|e| Error::compute("kv", e))?;
        }
        self.len = len;
        Ok(())
    }
}

fn meta_u32(c: &gguf_file::Content, path: &Path, key: &str) -> Result<usize> {
    c.metadata
        .get(key)
        .and_then(|v| v.to_u32().ok())
        .map(|v| v as usize)
        .ok_or_else(|| Error::BadModel {
            path: path.to_path_buf(),
            detail: format!("GGUF metadata {key} is missing or not an integer"),
        })
}

fn meta_f32(c: &gguf_file::Content, key: &str, default: f32) -> f32 {
    c.metadata
        .get(key)
        .and_then(|v| v.to_f32().ok())
        .unwrap_or(default)
}

impl LlamaModel {
    /// Load the weights of `path` (already read `content` of the same file).
    pub fn load(
        path: &Path,
        content: &gguf_file::Content,
        file: &mut std::fs::File,
        name: &str,
    ) -> Result<Self> {
        let arch = content
            .metadata
            .get("general.architecture")
            .and_then(|v| v.to_string().ok())
            .cloned()
            .unwrap_or_default();
        if arch != "llama" {
            return Err(Error::BadModel {
                path: path.to_path_buf(),
                detail: format!(
                    "architecture {arch:?} is not supported (only llama-architecture GGUF models)"
                ),
            });
        }
        let heads = meta_u32(content, path, "llama.attention.head_count")?;
        let kv_heads = meta_u32(content, path, "llama.attention.head_count_kv").unwrap_or(heads);
        let dim = meta_u32(content, path, "llama.embedding_length")?;
        if heads == 0 || kv_heads == 0 || heads % kv_heads != 0 || dim % heads != 0 {
            return Err(Error::BadModel {
                path: path.to_path_buf(),
                detail: format!("inconsistent heads ({heads}, {kv_heads} kv) for dim {dim}"),
            });
        }
        let config = LlamaConfig {
            layers: meta_u32(content, path, "llama.block_count")?,
            heads,
            kv_heads,
            dim,
            head_dim: dim / heads,
            eps: meta_f32(content, "llama.attention.layer_norm_rms_epsilon", 1e-5) as f64,
            rope_base: meta_f32(content, "llama.rope.freq_base", 10_000.0),
            context_length: meta_u32(content, path, "llama.context_length").unwrap_or(2048),
        };
        let dev = Device::Cpu;
        let mut get = |n: &str| -> Result<QTensor> {
            content.tensor(file, n, &dev).map_err(|e| Error::BadModel {
                path: path.to_path_buf(),
                detail: format!("tensor {n}: {e}"),
            })
        };
        let dense = |q: QTensor| q.dequantize(&Device::Cpu);
        // candle's CPU kernel for Q4_1 is scalar (≈20x slower than f32 gemm on a prompt block,
        // measured), so matrices are dequantized once at load: f32 weights, 4 bytes a parameter.
        let mm = |q: QTensor| q.dequantize(&Device::Cpu).map(QMatMul::Tensor);
        let bad = |e: candle_core::Error| Error::BadModel {
            path: path.to_path_buf(),
            detail: e.to_string(),
        };
        let embed = Arc::new(get("token_embd.weight")?);
        let mut layers = Vec::with_capacity(config.layers);
        for i in 0..config.layers {
            let p = format!("blk.{i}");
            layers.push(Layer {
                attn_norm: dense(get(&format!("{p}.attn_norm.weight"))?).map_err(bad)?,
                wq: mm(get(&format!("{p}.attn_q.weight"))?).map_err(bad)?,
                wk: mm(get(&format!("{p}.attn_k.weight"))?).map_err(bad)?,
                wv: mm(get(&format!("{p}.attn_v.weight"))?).map_err(bad)?,
                wo: mm(get(&format!("{p}.attn_output.weight"))?).map_err(bad)?,
                ffn_norm: dense(get(&format!("{p}.ffn_norm.weight"))?).map_err(bad)?,
                gate: mm(get(&format!("{p}.ffn_gate.weight"))?).map_err(bad)?,
                up: mm(get(&format!("{p}.ffn_up.weight"))?).map_err(bad)?,
                down: mm(get(&format!("{p}.ffn_down.weight"))?).map_err(bad)?,
            });
        }
        let norm = dense(get("output_norm.weight")?).map_err(bad)?;
        let output = if content.tensor_infos.contains_key("output.weight") {
            mm(get("output.weight")?).map_err(bad)?
        } else {
            QMatMul::Tensor(embed.dequantize(&dev).map_err(bad)?)
        };
        let half = config.head_dim / 2;
        let inv_freq = (0..half)
            .map(|i| {
                1.0 / config
                    .rope_base
                    .powf(2.0 * i as f32 / config.head_dim as f32)
            })
            .collect();
        Ok(Self {
            config,
            name: name.to_string(),
            embed,
            layers,
            norm,
            output,
            inv_freq,
        })
    }

    /// Run `tokens` after the cached ones, append them to `cache` and return the logits of the
    /// last token.
    pub fn forward(&self, tokens: &[u32], cache: &mut KvCache) -> Result<Vec<f32>> {
        if tokens.is_empty() {
            return Err(Error::compute(&self.name, "forward pass over zero tokens"));
        }
        let mut logits = Vec::new();
        for block in tokens.chunks(PREFILL_BLOCK) {
            logits = self
                .forward_block(block, cache)
                .map_err(|e| Error::compute(&self.name, e))?;
        }
        Ok(logits)
    }

    fn forward_block(&self, tokens: &[u32], cache: &mut KvCache) -> candle_core::Result<Vec<f32>> {
        let c = &self.config;
        let seq = tokens.len();
        let pos0 = cache.len;
        if cache.layers.len() != c.layers {
            cache.layers = vec![None; c.layers];
        }
        let ids = Tensor::new(tokens, &Device::Cpu)?;
        let mut x = self.embed.embedding(&ids)?.to_dtype(DType::F32)?;
        let (cos, sin) = self.rope_tables(pos0, seq);
        let total = pos0 + seq;
        let group = c.heads / c.kv_heads;
        let mask = causal_mask(group, seq, pos0)?;
        let scale = 1.0 / (c.head_dim as f64).sqrt();
        for (layer, kv) in self.layers.iter().zip(cache.layers.iter_mut()) {
            let h = rms_norm(&x, &layer.attn_norm, c.eps)?;
            let q = self.rope(&layer.wq.forward(&h)?, c.heads, &cos, &sin)?;
            let k = self.rope(&layer.wk.forward(&h)?, c.kv_heads, &cos, &sin)?;
            let v = layer.wv.forward(&h)?;
            // (seq, heads*hd) -> (heads, seq, hd)
            let q = q.reshape((seq, c.heads, c.head_dim))?.transpose(0, 1)?;
            let k = k.reshape((seq, c.kv_heads, c.head_dim))?.transpose(0, 1)?;
            let v = v.reshape((seq, c.kv_heads, c.head_dim))?.transpose(0, 1)?;
            let (k, v) = match kv.take() {
                Some((pk, pv)) => (Tensor::cat(&[&pk, &k], 1)?, Tensor::cat(&[&pv, &v], 1)?),
                None => (k.contiguous()?, v.contiguous()?),
            };
            // Query heads h*group..(h+1)*group share kv head h: (kv_heads, group*seq, hd).
            let q = q
                .contiguous()?
                .reshape((c.kv_heads, group * seq, c.head_dim))?;
            let att = (q.matmul(&k.t()?)? * scale)?.broadcast_add(&mask)?;
            let att = softmax_last(&att)?;
            let out = att.matmul(&v)?; // (kv_heads, group*seq, hd)
            let out = out
                .reshape((c.heads, seq, c.head_dim))?
                .transpose(0, 1)?
                .contiguous()?
                .reshape((seq, c.dim))?;
            *kv = Some((k, v));
            x = (x + layer.wo.forward(&out)?)?;
            let h = rms_norm(&x, &layer.ffn_norm, c.eps)?;
            let ff = (layer.gate.forward(&h)?.silu()? * layer.up.forward(&h)?)?;
            x = (x + layer.down.forward(&ff)?)?;
        }
        cache.len = total;
        let last = x.narrow(0, seq - 1, 1)?;
        let last = rms_norm(&last, &self.norm, c.eps)?;
        self.output.forward(&last)?.flatten_all()?.to_vec1::<f32>()
    }

    /// cos/sin of every (position, frequency) pair of this block.
    fn rope_tables(&self, pos0: usize, seq: usize) -> (Vec<f32>, Vec<f32>) {
        let half = self.inv_freq.len();
        let mut cos = Vec::with_capacity(seq * half);
        let mut sin = Vec::with_capacity(seq * half);
        for t in 0..seq {
            let pos = (pos0 + t) as f32;
            for f in &self.inv_freq {
                let a = pos * f;
                cos.push(a.cos());
                sin.push(a.sin());
            }
        }
        (cos, sin)
    }

    /// Interleaved RoPE (pairs `2i, 2i+1` of each head), as llama.cpp's GGUF layout expects.
    fn rope(
        &self,
        x: &Tensor,
        heads: usize,
        cos: &[f32],
        sin: &[f32],
    ) -> candle_core::Result<Tensor> {
        let (seq, width) = x.dims2()?;
        let hd = self.config.head_dim;
        let half = hd / 2;
        let mut data = x.flatten_all()?.to_vec1::<f32>()?;
        for t in 0..seq {
            let cs = &cos[t * half..(t + 1) * half];
            let sn = &sin[t * half..(t + 1) * half];
            for h in 0..heads {
                let row = &mut data[t * width + h * hd..t * width + (h + 1) * hd];
                for i in 0..half {
                    let (a, b) = (row[2 * i], row[2 * i + 1]);
                    row[2 * i] = a * cs[i] - b * sn[i];
                    row[2 * i + 1] = a * sn[i] + b * cs[i];
                }
            }
        }
        Tensor::from_vec(data, (seq, width), &Device::Cpu)
    }
}

/// `(group*seq, pos0+seq)` additive mask: query row `r` (token `r % seq`, at position
/// `pos0 + r % seq`) sees keys up to its own position.
fn causal_mask(group: usize, seq: usize, pos0: usize) -> candle_core::Result<Tensor> {
    let total = pos0 + seq;
    let mut m = vec![0f32; group * seq * total];
    for r in 0..group * seq {
        let pos = pos0 + r % seq;
        for v in &mut m[r * total + pos + 1..(r + 1) * total] {
            *v = f32::NEG_INFINITY;
        }
    }
    Tensor::from_vec(m, (group * seq, total), &Device::Cpu)
}

fn rms_norm(x: &Tensor, w: &Tensor, eps: f64) -> candle_core::Result<Tensor> {
    let r = (x.sqr()?.mean_keepdim(D::Minus1)? + eps)?.sqrt()?.recip()?;
    x.broadcast_mul(&r)?.broadcast_mul(w)
}

fn softmax_last(x: &Tensor) -> candle_core::Result<Tensor> {
    let max = x.max_keepdim(D::Minus1)?;
    let e = x.broadcast_sub(&max)?.exp()?;
    let s = e.sum_keepdim(D::Minus1)?;
    e.broadcast_div(&s)
}
