//! Output formats for chunks: chunklab JSONL, a JSON array, LangChain `Document`s and LlamaIndex
//! `TextNode`s (both one JSON object per line).

use chunklab_core::Chunk;
use serde::Serialize;
use serde_json::Value;
use std::io::{self, Write};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One chunklab chunk object per line.
    Jsonl,
    /// One JSON array of chunk objects.
    Json,
    /// LangChain `Document` objects (`page_content` + `metadata`), one per line.
    Langchain,
    /// LlamaIndex `TextNode`-like objects, one per line.
    Llamaindex,
}

/// Writes chunks in one format; `Json` needs the opening and closing brackets around everything.
pub struct ChunkWriter {
    format: Format,
    unit: String,
    written: usize,
}

impl ChunkWriter {
    pub fn new(format: Format, unit: &str) -> Self {
        Self {
            format,
            unit: unit.to_string(),
            written: 0,
        }
    }

    pub fn begin(&mut self, w: &mut dyn Write) -> io::Result<()> {
        if self.format == Format::Json {
            w.write_all(b"[")?;
        }
        Ok(())
    }

    pub fn end(&mut self, w: &mut dyn Write) -> io::Result<()> {
        if self.format == Format::Json {
            w.write_all(if self.written == 0 { b"]\n" } else { b"\n]\n" })?;
        }
        Ok(())
    }

    /// Serialize `chunks[range]` into `buf` (so documents can be rendered in parallel and
    /// written in order); the whole list is needed for LlamaIndex's neighbour links. With
    /// `embeddings` (one vector per chunk, parallel to `chunks`) each chunk gets an `embedding`
    /// array in the chunklab formats (JSONL, JSON); the LangChain and LlamaIndex formats have no
    /// place for it.
    pub fn render_range(
        &self,
        chunks: &[Chunk<'_>],
        embeddings: Option<&[Vec<f32>]>,
        range: std::ops::Range<usize>,
        buf: &mut Vec<u8>,
    ) -> io::Result<()> {
        for i in range {
            let c = &chunks[i];
            if self.format == Format::Json {
                buf.extend_from_slice(b"\n");
            }
            match self.format {
                // Serialized straight from the chunk's fields: no JSON value tree per chunk.
                Format::Jsonl | Format::Json => {
                    let mut line = self.chunklab(c);
                    line.embedding = embeddings.and_then(|e| e.get(i)).map(|e| embedding_json(e));
                    serde_json::to_writer(&mut *buf, &line)?;
                }
                Format::Langchain => serde_json::to_writer(&mut *buf, &self.langchain(c))?,
                Format::Llamaindex => {
                    serde_json::to_writer(&mut *buf, &self.llamaindex(c, chunks, i))?
                }
            }
            buf.extend_from_slice(if self.format == Format::Json {
                b","
            } else {
                b"\n"
            });
        }
        Ok(())
    }

    /// Write a rendered buffer; for `Json`, fixes up the separating commas.
    pub fn write(&mut self, w: &mut dyn Write, buf: &[u8], chunks: usize) -> io::Result<()> {
        if chunks == 0 {
            return Ok(());
        }
        if self.format == Format::Json {
            if self.written > 0 {
                w.write_all(b",")?;
            }
            // Drop the trailing comma of this buffer; the next buffer's leading comma replaces it.
            w.write_all(&buf[..buf.len() - 1])?;
        } else {
            w.write_all(buf)?;
        }
        self.written += chunks;
        Ok(())
    }

    fn chunklab<'a>(&'a self, c: &'a Chunk<'a>) -> ChunkLine<'a> {
        ChunkLine {
            id: &c.id,
            doc_id: c.doc_id,
            source: c.source,
            index: c.index,
            total: c.total,
            start_byte: c.start_byte,
            end_byte: c.end_byte,
            start_char: c.start_char,
            end_char: c.end_char,
            tokens: c.tokens,
            unit: &self.unit,
            strategy: c.strategy,
            headings: &c.meta.headings,
            page: c.meta.page,
            page_end: c.meta.page_end,
            lines: c.meta.lines.map(|(a, b)| [a, b]),
            kind: c.meta.kind.as_deref(),
            symbol: c.meta.symbol.as_deref(),
            language: c.meta.language.as_deref(),
            level: c.meta.level,
            parent_id: c.meta.parent_id.as_deref(),
            prefix: c.meta.prefix.as_deref(),
            context: c.meta.context.as_deref(),
            ocr: c.meta.ocr_confidence.is_some(),
            ocr_confidence: c
                .meta
                .ocr_confidence
                .map(|v| (v as f64 * 10.0).round() / 10.0),
            text: c.text,
            embedding: None,
        }
    }

    /// The text a framework embeds: the prefix (heading path, repeated table header) and the
    /// chunk text.
    fn content(c: &Chunk<'_>) -> String {
        c.meta.embed_text(c.text)
    }

    fn metadata<'a>(&'a self, c: &'a Chunk<'a>) -> Metadata<'a> {
        Metadata {
            source: c.source,
            doc_id: c.doc_id,
            chunk_id: &c.id,
            start_index: c.start_char,
            end_index: c.end_char,
            start_byte: c.start_byte,
            end_byte: c.end_byte,
            chunk_index: c.index,
            total_chunks: c.total,
            tokens: c.tokens,
            unit: &self.unit,
            strategy: c.strategy,
            headings: &c.meta.headings,
            page: c.meta.page,
            page_end: c.meta.page_end,
            lines: c.meta.lines.map(|(a, b)| [a, b]),
            kind: c.meta.kind.as_deref(),
            symbol: c.meta.symbol.as_deref(),
            language: c.meta.language.as_deref(),
            level: c.meta.level,
            parent_id: c.meta.parent_id.as_deref(),
            prefix: c.meta.prefix.as_deref(),
            ocr: c.meta.ocr_confidence.map(|_| true),
            ocr_confidence: c
                .meta
                .ocr_confidence
                .map(|conf| (conf as f64 * 10.0).round() / 10.0),
        }
    }

    /// `langchain_core.documents.Document` as `Document.model_dump()` / `dumpd` style JSON; load
    /// with `Document(**obj)` after dropping `type`. `start_index` is exact (LangChain's own comes
    /// from `str.find` and points at the first occurrence of repeated text). With a prefix
    /// (`--title-prefix`, repeated table headers) `page_content` is prefix + text, what is
    /// embedded; `metadata.prefix` holds the prefix and the offsets locate the text after it.
    fn langchain<'a>(&'a self, c: &'a Chunk<'a>) -> LangchainDocument<'a> {
        LangchainDocument {
            id: &c.id,
            page_content: Self::content(c),
            metadata: self.metadata(c),
            kind: "Document",
        }
    }

    /// LlamaIndex `TextNode` JSON: `id_`, `text`, `start_char_idx`/`end_char_idx`, metadata and
    /// SOURCE / PREVIOUS / NEXT relationships (keys "1", "2", "3"; node types "4" = document,
    /// "1" = text node), as `TextNode.to_dict()` writes them. With a prefix, `text` is prefix +
    /// text as for LangChain.
    fn llamaindex<'a>(&'a self, c: &'a Chunk<'a>, all: &'a [Chunk<'a>], i: usize) -> TextNode<'a> {
        let neighbour = |j: usize| Neighbour {
            node_id: &all[j].id,
            node_type: "1",
        };
        TextNode {
            id_: &c.id,
            text: Self::content(c),
            start_char_idx: c.start_char,
            end_char_idx: c.end_char,
            metadata: self.metadata(c),
            relationships: Relationships {
                source: SourceNode {
                    node_id: c.doc_id,
                    node_type: "4",
                    metadata: SourceMeta { source: c.source },
                },
                previous: (i > 0).then(|| neighbour(i - 1)),
                next: (i + 1 < all.len()).then(|| neighbour(i + 1)),
            },
            class_name: "TextNode",
        }
    }
}

/// One chunklab JSONL line, in field order (every field, `null` where unset; `embedding` only
/// when vectors were asked for).
#[derive(Serialize)]
struct ChunkLine<'a> {
    id: &'a str,
    doc_id: &'a str,
    source: &'a str,
    index: usize,
    total: usize,
    start_byte: usize,
    end_byte: usize,
    start_char: usize,
    end_char: usize,
    tokens: usize,
    unit: &'a str,
    strategy: &'a str,
    headings: &'a [String],
    page: Option<u32>,
    page_end: Option<u32>,
    lines: Option<[u32; 2]>,
    kind: Option<&'a str>,
    symbol: Option<&'a str>,
    language: Option<&'a str>,
    level: Option<u32>,
    parent_id: Option<&'a str>,
    prefix: Option<&'a str>,
    context: Option<&'a str>,
    ocr: bool,
    ocr_confidence: Option<f64>,
    text: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    embedding: Option<Value>,
}

/// The metadata of the LangChain and LlamaIndex formats, in key order (unset keys left out).
#[derive(Serialize)]
struct Metadata<'a> {
    source: &'a str,
    doc_id: &'a str,
    chunk_id: &'a str,
    start_index: usize,
    end_index: usize,
    start_byte: usize,
    end_byte: usize,
    chunk_index: usize,
    total_chunks: usize,
    tokens: usize,
    unit: &'a str,
    strategy: &'a str,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    headings: &'a [String],
    #[serde(skip_serializing_if = "Option::is_none")]
    page: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    page_end: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lines: Option<[u32; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    kind: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    symbol: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    language: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    level: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    prefix: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ocr: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    ocr_confidence: Option<f64>,
}

/// A LangChain `Document`.
#[derive(Serialize)]
struct LangchainDocument<'a> {
    id: &'a str,
    page_content: String,
    metadata: Metadata<'a>,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// A LlamaIndex `TextNode`.
#[derive(Serialize)]
struct TextNode<'a> {
    id_: &'a str,
    text: String,
    start_char_idx: usize,
    end_char_idx: usize,
    metadata: Metadata<'a>,
    relationships: Relationships<'a>,
    class_name: &'static str,
}

/// SOURCE ("1"), PREVIOUS ("2") and NEXT ("3").
#[derive(Serialize)]
struct Relationships<'a> {
    #[serde(rename = "1")]
    source: SourceNode<'a>,
    #[serde(rename = "2", skip_serializing_if = "Option::is_none")]
    previous: Option<Neighbour<'a>>,
    #[serde(rename = "3", skip_serializing_if = "Option::is_none")]
    next: Option<Neighbour<'a>>,
}

#[derive(Serialize)]
struct SourceNode<'a> {
    node_id: &'a str,
    node_type: &'static str,
    metadata: SourceMeta<'a>,
}

#[derive(Serialize)]
struct SourceMeta<'a> {
    source: &'a str,
}

#[derive(Serialize)]
struct Neighbour<'a> {
    node_id: &'a str,
    node_type: &'static str,
}

/// A vector as a JSON array whose numbers print in f32's shortest form (`0.1`, not the f64
/// widening `0.10000000149011612`), so output is compact and reads back to the same f32s.
fn embedding_json(v: &[f32]) -> Value {
    Value::Array(
        v.iter()
            .map(|x| {
                let shortest: f64 = x.to_string().parse().unwrap_or(f64::NAN);
                serde_json::Number::from_f64(shortest).map_or(Value::Null, Value::Number)
            })
            .collect(),
    )
}
