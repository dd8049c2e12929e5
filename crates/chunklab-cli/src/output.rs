//! Output formats for chunks: chunklab JSONL, a JSON array, LangChain `Document`s and LlamaIndex
//! `TextNode`s (both one JSON object per line).

use crate::json;
use chunklab_core::Chunk;
use rayon::prelude::*;
use serde_json::Value;
use std::io::{self, Write};
use std::sync::mpsc;

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
    /// place for it. Each line is written straight from the chunk's fields ([`json`]): no value
    /// tree, no string built per field, the text escaped and copied once.
    pub fn render_range(
        &self,
        chunks: &[Chunk<'_>],
        embeddings: Option<&[Vec<f32>]>,
        range: std::ops::Range<usize>,
        buf: &mut Vec<u8>,
    ) -> io::Result<()> {
        buf.reserve(estimate(&chunks[range.clone()]));
        for i in range {
            let c = &chunks[i];
            if self.format == Format::Json {
                buf.push(b'\n');
            }
            match self.format {
                Format::Jsonl | Format::Json => {
                    self.chunklab(buf, c, embeddings.and_then(|e| e.get(i)))
                }
                Format::Langchain => self.langchain(buf, c),
                Format::Llamaindex => self.llamaindex(buf, c, chunks, i),
            }
            buf.push(if self.format == Format::Json {
                b','
            } else {
                b'\n'
            });
        }
        Ok(())
    }

    /// [`ChunkWriter::render_range`] of `range` split into pieces of about [`PIECE_BYTES`] of
    /// text, rendered on all cores into `bufs` (one per piece, in order; reused from call to
    /// call, so a large document's output does not fault in fresh memory piece after piece).
    /// Returns each piece's number of chunks, for `ChunkWriter::write`. The bytes, in order,
    /// are those of one `render_range` whatever the number of threads.
    pub fn render_pieces(
        &self,
        chunks: &[Chunk<'_>],
        embeddings: Option<&[Vec<f32>]>,
        range: std::ops::Range<usize>,
        bufs: &mut Vec<Vec<u8>>,
    ) -> io::Result<Vec<usize>> {
        let mut pieces = Vec::new();
        let (mut start, mut bytes) = (range.start, 0usize);
        for i in range.clone() {
            bytes += chunks[i].text.len() + 256;
            if bytes >= PIECE_BYTES {
                pieces.push(start..i + 1);
                (start, bytes) = (i + 1, 0);
            }
        }
        if start < range.end || pieces.is_empty() {
            pieces.push(start..range.end);
        }
        if bufs.len() < pieces.len() {
            bufs.resize_with(pieces.len(), Vec::new);
        }
        let render = |(buf, r): (&mut Vec<u8>, &std::ops::Range<usize>)| {
            buf.clear();
            self.render_range(chunks, embeddings, r.clone(), buf)
        };
        if pieces.len() == 1 {
            render((&mut bufs[0], &pieces[0]))?;
        } else {
            bufs[..pieces.len()]
                .par_iter_mut()
                .zip(pieces.par_iter())
                .try_for_each(render)?;
        }
        Ok(pieces.iter().map(|r| r.len()).collect())
    }

    /// Render `range` of `chunks` and write it to `w`, a wave of pieces at a time (about
    /// [`WAVE_PIECES`] pieces per core rendered in parallel): one thread renders wave after wave
    /// on all cores, up to [`WAVES_AHEAD`] waves ahead of the one being written, while this
    /// thread writes them in order, so neither waits for the other wave by wave. Sets of
    /// buffers are used over and over; `bufs` holds them between calls.
    pub fn render_and_write(
        &mut self,
        w: &mut dyn Write,
        chunks: &[Chunk<'_>],
        embeddings: Option<&[Vec<f32>]>,
        range: std::ops::Range<usize>,
        bufs: &mut Vec<Vec<Vec<u8>>>,
    ) -> io::Result<()> {
        let wave = PIECE_BYTES * WAVE_PIECES * rayon::current_num_threads();
        let mut waves = Vec::new();
        let mut start = range.start;
        while start < range.end {
            let (mut end, mut bytes) = (start, 0usize);
            while end < range.end && bytes < wave {
                bytes += chunks[end].text.len() + 256;
                end += 1;
            }
            waves.push(start..end);
            start = end;
        }
        if waves.is_empty() {
            return Ok(());
        }
        let renderer = ChunkWriter::new(self.format, &self.unit);
        let (free_tx, free_rx) = mpsc::channel::<Vec<Vec<u8>>>();
        for set in bufs.drain(..) {
            free_tx.send(set).expect("the receiver is here");
        }
        std::thread::scope(|scope| -> io::Result<()> {
            let (done_tx, done_rx) = mpsc::sync_channel(WAVES_AHEAD);
            let (renderer, waves) = (&renderer, &waves);
            let rendering = scope.spawn(move || {
                for r in waves {
                    let mut set = free_rx.try_recv().unwrap_or_default();
                    let rendered = renderer.render_pieces(chunks, embeddings, r.clone(), &mut set);
                    let failed = rendered.is_err();
                    // The writer stops listening when a write fails.
                    if done_tx.send(rendered.map(|counts| (set, counts))).is_err() || failed {
                        break;
                    }
                }
                free_rx
            });
            for rendered in done_rx.iter() {
                let (set, counts) = rendered?;
                self.write_pieces(w, set.iter().map(Vec::as_slice).zip(counts))?;
                free_tx.send(set).ok();
            }
            let free_rx = rendering.join().expect("rendering does not panic");
            bufs.extend(free_rx.try_iter());
            Ok(())
        })
    }

    /// Writes rendered buffers (with their chunk counts) in order, fixing up the separating
    /// commas for `Json`, by vectored writes: a large run of buffers goes to the file without
    /// being copied into `w`'s buffer first.
    pub fn write_pieces<'a>(
        &mut self,
        w: &mut dyn Write,
        pieces: impl IntoIterator<Item = (&'a [u8], usize)>,
    ) -> io::Result<()> {
        /// Slices per system call (Linux's `IOV_MAX`).
        const MAX_SLICES: usize = 1024;
        let comma: &[u8] = b",";
        let mut slices = Vec::new();
        for (buf, chunks) in pieces.into_iter().filter(|&(_, chunks)| chunks > 0) {
            if self.format == Format::Json {
                if self.written > 0 {
                    slices.push(io::IoSlice::new(comma));
                }
                // Drop the buffer's trailing comma; the next buffer's leading comma replaces it.
                slices.push(io::IoSlice::new(&buf[..buf.len() - 1]));
            } else {
                slices.push(io::IoSlice::new(buf));
            }
            self.written += chunks;
            if slices.len() + 2 > MAX_SLICES {
                write_all_slices(w, &mut slices)?;
            }
        }
        write_all_slices(w, &mut slices)
    }

    /// One chunklab JSONL object: every field in order, `null` where unset; `embedding` only
    /// with a vector.
    fn chunklab(&self, buf: &mut Vec<u8>, c: &Chunk<'_>, embedding: Option<&Vec<f32>>) {
        let m = &c.meta;
        buf.extend_from_slice(b"{\"id\":");
        json::string(buf, &c.id);
        buf.extend_from_slice(b",\"doc_id\":");
        json::string(buf, c.doc_id);
        buf.extend_from_slice(b",\"source\":");
        json::string(buf, c.source);
        buf.extend_from_slice(b",\"index\":");
        json::uint(buf, c.index as u64);
        buf.extend_from_slice(b",\"total\":");
        json::uint(buf, c.total as u64);
        buf.extend_from_slice(b",\"start_byte\":");
        json::uint(buf, c.start_byte as u64);
        buf.extend_from_slice(b",\"end_byte\":");
        json::uint(buf, c.end_byte as u64);
        buf.extend_from_slice(b",\"start_char\":");
        json::uint(buf, c.start_char as u64);
        buf.extend_from_slice(b",\"end_char\":");
        json::uint(buf, c.end_char as u64);
        buf.extend_from_slice(b",\"tokens\":");
        json::uint(buf, c.tokens as u64);
        buf.extend_from_slice(b",\"unit\":");
        json::string(buf, &self.unit);
        buf.extend_from_slice(b",\"strategy\":");
        json::string(buf, c.strategy);
        buf.extend_from_slice(b",\"headings\":");
        json::strings(buf, &m.headings);
        buf.extend_from_slice(b",\"page\":");
        json::opt_uint(buf, m.page.map(u64::from));
        buf.extend_from_slice(b",\"page_end\":");
        json::opt_uint(buf, m.page_end.map(u64::from));
        buf.extend_from_slice(b",\"lines\":");
        match m.lines {
            Some(l) => json::pair(buf, l),
            None => buf.extend_from_slice(b"null"),
        }
        buf.extend_from_slice(b",\"kind\":");
        json::opt_string(buf, m.kind.as_deref());
        buf.extend_from_slice(b",\"symbol\":");
        json::opt_string(buf, m.symbol.as_deref());
        buf.extend_from_slice(b",\"language\":");
        json::opt_string(buf, m.language.as_deref());
        buf.extend_from_slice(b",\"level\":");
        json::opt_uint(buf, m.level.map(u64::from));
        buf.extend_from_slice(b",\"parent_id\":");
        json::opt_string(buf, m.parent_id.as_deref());
        buf.extend_from_slice(b",\"prefix\":");
        json::opt_string(buf, m.prefix.as_deref());
        buf.extend_from_slice(b",\"context\":");
        json::opt_string(buf, m.context.as_deref());
        buf.extend_from_slice(b",\"ocr\":");
        buf.extend_from_slice(if m.ocr_confidence.is_some() {
            b"true"
        } else {
            b"false"
        });
        buf.extend_from_slice(b",\"ocr_confidence\":");
        match m.ocr_confidence {
            Some(v) => json::float(buf, rounded(v)),
            None => buf.extend_from_slice(b"null"),
        }
        buf.extend_from_slice(b",\"text\":");
        json::string(buf, c.text);
        if let Some(e) = embedding {
            buf.extend_from_slice(b",\"embedding\":");
            serde_json::to_writer(&mut *buf, &embedding_json(e))
                .expect("writing to a Vec cannot fail");
        }
        buf.push(b'}');
    }

    /// The text a framework embeds, as one JSON string: the context, the prefix (heading path,
    /// repeated table header) and the chunk text ([`chunklab_core::embedded_text`]), escaped
    /// piece by piece instead of joined first.
    fn content(buf: &mut Vec<u8>, c: &Chunk<'_>) {
        let context = c.meta.context.as_deref().filter(|x| !x.is_empty());
        let prefix = c.meta.prefix.as_deref().unwrap_or_default();
        match context {
            Some(x) => json::string_of(buf, &[x, "\n\n", prefix, c.text]),
            None => json::string_of(buf, &[prefix, c.text]),
        }
    }

    /// The metadata of the LangChain and LlamaIndex formats, in key order, unset keys left out.
    fn metadata(&self, buf: &mut Vec<u8>, c: &Chunk<'_>) {
        let m = &c.meta;
        buf.extend_from_slice(b"{\"source\":");
        json::string(buf, c.source);
        buf.extend_from_slice(b",\"doc_id\":");
        json::string(buf, c.doc_id);
        buf.extend_from_slice(b",\"chunk_id\":");
        json::string(buf, &c.id);
        buf.extend_from_slice(b",\"start_index\":");
        json::uint(buf, c.start_char as u64);
        buf.extend_from_slice(b",\"end_index\":");
        json::uint(buf, c.end_char as u64);
        buf.extend_from_slice(b",\"start_byte\":");
        json::uint(buf, c.start_byte as u64);
        buf.extend_from_slice(b",\"end_byte\":");
        json::uint(buf, c.end_byte as u64);
        buf.extend_from_slice(b",\"chunk_index\":");
        json::uint(buf, c.index as u64);
        buf.extend_from_slice(b",\"total_chunks\":");
        json::uint(buf, c.total as u64);
        buf.extend_from_slice(b",\"tokens\":");
        json::uint(buf, c.tokens as u64);
        buf.extend_from_slice(b",\"unit\":");
        json::string(buf, &self.unit);
        buf.extend_from_slice(b",\"strategy\":");
        json::string(buf, c.strategy);
        if !m.headings.is_empty() {
            buf.extend_from_slice(b",\"headings\":");
            json::strings(buf, &m.headings);
        }
        if let Some(p) = m.page {
            buf.extend_from_slice(b",\"page\":");
            json::uint(buf, p.into());
        }
        if let Some(p) = m.page_end {
            buf.extend_from_slice(b",\"page_end\":");
            json::uint(buf, p.into());
        }
        if let Some(l) = m.lines {
            buf.extend_from_slice(b",\"lines\":");
            json::pair(buf, l);
        }
        let strings = [
            (&b",\"kind\":"[..], m.kind.as_deref()),
            (b",\"symbol\":", m.symbol.as_deref()),
            (b",\"language\":", m.language.as_deref()),
        ];
        for (key, value) in strings {
            if let Some(v) = value {
                buf.extend_from_slice(key);
                json::string(buf, v);
            }
        }
        if let Some(l) = m.level {
            buf.extend_from_slice(b",\"level\":");
            json::uint(buf, l.into());
        }
        if let Some(p) = m.parent_id.as_deref() {
            buf.extend_from_slice(b",\"parent_id\":");
            json::string(buf, p);
        }
        if let Some(p) = m.prefix.as_deref() {
            buf.extend_from_slice(b",\"prefix\":");
            json::string(buf, p);
        }
        if let Some(v) = m.ocr_confidence {
            buf.extend_from_slice(b",\"ocr\":true,\"ocr_confidence\":");
            json::float(buf, rounded(v));
        }
        buf.push(b'}');
    }

    /// `langchain_core.documents.Document` as `Document.model_dump()` / `dumpd` style JSON; load
    /// with `Document(**obj)` after dropping `type`. `start_index` is exact (LangChain's own comes
    /// from `str.find` and points at the first occurrence of repeated text). With a prefix
    /// (`--title-prefix`, repeated table headers) `page_content` is prefix + text, what is
    /// embedded; `metadata.prefix` holds the prefix and the offsets locate the text after it.
    fn langchain(&self, buf: &mut Vec<u8>, c: &Chunk<'_>) {
        buf.extend_from_slice(b"{\"id\":");
        json::string(buf, &c.id);
        buf.extend_from_slice(b",\"page_content\":");
        Self::content(buf, c);
        buf.extend_from_slice(b",\"metadata\":");
        self.metadata(buf, c);
        buf.extend_from_slice(b",\"type\":\"Document\"}");
    }

    /// LlamaIndex `TextNode` JSON: `id_`, `text`, `start_char_idx`/`end_char_idx`, metadata and
    /// SOURCE / PREVIOUS / NEXT relationships (keys "1", "2", "3"; node types "4" = document,
    /// "1" = text node), as `TextNode.to_dict()` writes them. With a prefix, `text` is prefix +
    /// text as for LangChain.
    fn llamaindex(&self, buf: &mut Vec<u8>, c: &Chunk<'_>, all: &[Chunk<'_>], i: usize) {
        buf.extend_from_slice(b"{\"id_\":");
        json::string(buf, &c.id);
        buf.extend_from_slice(b",\"text\":");
        Self::content(buf, c);
        buf.extend_from_slice(b",\"start_char_idx\":");
        json::uint(buf, c.start_char as u64);
        buf.extend_from_slice(b",\"end_char_idx\":");
        json::uint(buf, c.end_char as u64);
        buf.extend_from_slice(b",\"metadata\":");
        self.metadata(buf, c);
        buf.extend_from_slice(b",\"relationships\":{\"1\":{\"node_id\":");
        json::string(buf, c.doc_id);
        buf.extend_from_slice(b",\"node_type\":\"4\",\"metadata\":{\"source\":");
        json::string(buf, c.source);
        buf.extend_from_slice(b"}}");
        if i > 0 {
            buf.extend_from_slice(b",\"2\":{\"node_id\":");
            json::string(buf, &all[i - 1].id);
            buf.extend_from_slice(b",\"node_type\":\"1\"}");
        }
        if i + 1 < all.len() {
            buf.extend_from_slice(b",\"3\":{\"node_id\":");
            json::string(buf, &all[i + 1].id);
            buf.extend_from_slice(b",\"node_type\":\"1\"}");
        }
        buf.extend_from_slice(b"},\"class_name\":\"TextNode\"}");
    }
}

/// About how much chunk text one piece of [`ChunkWriter::render_pieces`] holds. The sets of
/// buffers hold `(WAVES_AHEAD + 2) * WAVE_PIECES * cores` pieces, each first touched once: with
/// two sets at 1 MiB that was about 2,600 page faults (10 MB of fresh pages) for a 20 MB
/// document; at 256 KiB it is a quarter of that, and writes of 256 KiB cost no more per byte.
pub const PIECE_BYTES: usize = 1 << 18;

/// Writes every byte of `slices` (partial writes resumed) and empties it.
fn write_all_slices(w: &mut dyn Write, slices: &mut Vec<io::IoSlice<'_>>) -> io::Result<()> {
    let mut rest = &mut slices[..];
    while !rest.is_empty() {
        match w.write_vectored(rest) {
            Ok(0) => return Err(io::Error::from(io::ErrorKind::WriteZero)),
            Ok(n) => io::IoSlice::advance_slices(&mut rest, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    slices.clear();
    Ok(())
}

/// Waves [`ChunkWriter::render_and_write`] renders ahead of the one being written (so three
/// sets of buffers are in use: written, waiting, being rendered).
pub const WAVES_AHEAD: usize = 1;
/// Pieces per core in one wave of [`ChunkWriter::render_and_write`].
pub const WAVE_PIECES: usize = 2;

/// OCR confidence as written: one decimal.
fn rounded(v: f32) -> f64 {
    (v as f64 * 10.0).round() / 10.0
}

/// Bytes to reserve for rendering `chunks`: the text with room for escapes, plus the fields.
fn estimate(chunks: &[Chunk<'_>]) -> usize {
    let text: usize = chunks
        .iter()
        .map(|c| c.text.len() + c.meta.prefix.as_ref().map_or(0, String::len))
        .sum();
    text + text / 16 + chunks.len() * 640
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

#[cfg(test)]
mod tests {
    //! The direct writers against the serde structs they replaced (kept here as the reference):
    //! the same bytes for chunks with every field set, unset, and text with every escape.
    use super::*;
    use chunklab_core::ChunkMeta;
    use serde::Serialize;

    /// The previous, serde-based rendering of one chunk.
    struct Reference<'w>(&'w ChunkWriter);

    impl Reference<'_> {
        fn render(&self, chunks: &[Chunk<'_>], embeddings: Option<&[Vec<f32>]>) -> Vec<u8> {
            let w = self.0;
            let mut buf = Vec::new();
            for i in 0..chunks.len() {
                let c = &chunks[i];
                if w.format == Format::Json {
                    buf.extend_from_slice(b"\n");
                }
                match w.format {
                    Format::Jsonl | Format::Json => {
                        let mut line = self.chunklab(c);
                        line.embedding =
                            embeddings.and_then(|e| e.get(i)).map(|e| embedding_json(e));
                        serde_json::to_writer(&mut buf, &line).unwrap();
                    }
                    Format::Langchain => {
                        serde_json::to_writer(&mut buf, &self.langchain(c)).unwrap()
                    }
                    Format::Llamaindex => {
                        serde_json::to_writer(&mut buf, &self.llamaindex(c, chunks, i)).unwrap()
                    }
                }
                buf.extend_from_slice(if w.format == Format::Json {
                    b","
                } else {
                    b"\n"
                });
            }
            buf
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
                unit: &self.0.unit,
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
                unit: &self.0.unit,
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
        fn llamaindex<'a>(
            &'a self,
            c: &'a Chunk<'a>,
            all: &'a [Chunk<'a>],
            i: usize,
        ) -> TextNode<'a> {
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

    fn chunk<'a>(text: &'a str, i: usize, total: usize, meta: ChunkMeta) -> Chunk<'a> {
        Chunk {
            id: format!("{i:032x}"),
            doc_id: "doc \"1\"",
            source: "dir/naam\tmet\\tab.txt",
            text,
            start_byte: i * 7,
            end_byte: i * 7 + text.len(),
            start_char: i * 5,
            end_char: i * 5 + text.chars().count(),
            index: i,
            total,
            tokens: 3 + i,
            strategy: "recursive",
            meta,
        }
    }

    #[test]
    fn direct_writers_match_serde() {
        let texts = [
            "Artikel 1\n\nDe raad \"besluit\": windmolens\top zee.\r\n",
            "",
            "\u{0}\u{1}\u{1f}\u{7f} é € 😀 \\ \u{c}\u{8}",
            "a plain chunk of text without any escapes in it at all, long enough for words",
        ];
        let full = ChunkMeta {
            headings: vec!["Hoofdstuk \"2\"".into(), "Artikel 3\n".into()],
            sections: vec![],
            page: Some(2),
            page_end: Some(3),
            lines: Some((10, 42)),
            kind: Some("table".into()),
            symbol: Some("impl Parser::parse".into()),
            language: Some("rust".into()),
            level: Some(1),
            parent_id: Some("p\"arent".into()),
            parent_index: Some(0),
            prefix: Some("Hoofdstuk 2 > Artikel 3\n\n".into()),
            context: Some("Besluit 2021".into()),
            ocr_confidence: Some(87.46),
        };
        let metas = [
            ChunkMeta::default(),
            full.clone(),
            ChunkMeta {
                context: Some(String::new()),
                ocr_confidence: Some(90.0),
                ..full.clone()
            },
            ChunkMeta {
                prefix: None,
                headings: vec!["één".into()],
                ..ChunkMeta::default()
            },
        ];
        let mut chunks = Vec::new();
        for (k, t) in texts.iter().enumerate() {
            for m in &metas {
                let n = texts.len() * metas.len();
                chunks.push(chunk(t, chunks.len(), n, m.clone()));
                let _ = k;
            }
        }
        let vectors: Vec<Vec<f32>> = (0..chunks.len())
            .map(|i| vec![0.1, -2.5e-8, i as f32, f32::MAX])
            .collect();
        for format in [
            Format::Jsonl,
            Format::Json,
            Format::Langchain,
            Format::Llamaindex,
        ] {
            for unit in ["chars", "cl100k \"x\""] {
                let w = ChunkWriter::new(format, unit);
                for emb in [None, Some(&vectors[..])] {
                    let mut ours = Vec::new();
                    w.render_range(&chunks, emb, 0..chunks.len(), &mut ours)
                        .unwrap();
                    let reference = Reference(&w).render(&chunks, emb);
                    assert_eq!(
                        String::from_utf8(ours).unwrap(),
                        String::from_utf8(reference.clone()).unwrap(),
                        "{format:?} {unit}"
                    );
                    let mut bufs = Vec::new();
                    let counts = w
                        .render_pieces(&chunks, emb, 0..chunks.len(), &mut bufs)
                        .unwrap();
                    assert_eq!(counts, [chunks.len()]);
                    assert_eq!(bufs[0], reference);
                }
            }
        }
    }

    /// Chunks of a third of a piece each, enough for several waves on up to 4 cores.
    fn wave_chunks(text: &str) -> Vec<Chunk<'_>> {
        let n = 3 * 4 * WAVE_PIECES * 4;
        (0..n)
            .map(|i| chunk(text, i, n, ChunkMeta::default()))
            .collect()
    }

    #[test]
    fn pieces_split_big_ranges_in_order() {
        let text = "x".repeat(PIECE_BYTES / 3);
        let chunks = wave_chunks(&text);
        let n = chunks.len();
        for format in [Format::Json, Format::Llamaindex] {
            let mut w = ChunkWriter::new(format, "chars");
            // Stale bytes in reused buffers must not show.
            let mut bufs = vec![b"stale".to_vec(); 7];
            let counts = w.render_pieces(&chunks, None, 2..10, &mut bufs).unwrap();
            assert!(counts.len() > 1);
            assert_eq!(counts.iter().sum::<usize>(), 8);
            let mut whole = Vec::new();
            w.render_range(&chunks, None, 2..10, &mut whole).unwrap();
            assert_eq!(bufs[..counts.len()].concat(), whole);
            // Written in waves, in two calls that reuse the sets of buffers: what one buffer
            // written at once gives.
            let mut streamed = Vec::new();
            w.begin(&mut streamed).unwrap();
            let mut sets = vec![bufs.clone()];
            for range in [0..n / 2, n / 2..n] {
                w.render_and_write(&mut streamed, &chunks, None, range, &mut sets)
                    .unwrap();
                assert!(!sets.is_empty() && sets.len() <= WAVES_AHEAD + 2);
            }
            w.end(&mut streamed).unwrap();
            let mut once = Vec::new();
            let mut v = ChunkWriter::new(format, "chars");
            let mut all = Vec::new();
            v.render_range(&chunks, None, 0..n, &mut all).unwrap();
            v.begin(&mut once).unwrap();
            v.write_pieces(&mut once, [(&all[..], n)]).unwrap();
            v.end(&mut once).unwrap();
            assert_eq!(streamed, once);
        }
    }

    /// A sink that takes at most `step` bytes of its first slice per vectored call, and is
    /// interrupted every third call.
    struct Trickle {
        out: Vec<u8>,
        step: usize,
        calls: usize,
    }
    impl Write for Trickle {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.write_vectored(&[io::IoSlice::new(buf)])
        }
        fn write_vectored(&mut self, bufs: &[io::IoSlice<'_>]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls.is_multiple_of(3) {
                return Err(io::ErrorKind::Interrupted.into());
            }
            let first = bufs
                .iter()
                .find(|b| !b.is_empty())
                .map_or(&[][..], |b| &b[..]);
            let n = first.len().min(self.step);
            self.out.extend_from_slice(&first[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn slices(pieces: &[(Vec<u8>, usize)]) -> Vec<(&[u8], usize)> {
        pieces.iter().map(|(b, k)| (b.as_slice(), *k)).collect()
    }

    /// Vectored writes of many buffers (more than one call's slices, written a few bytes at a
    /// time) give what one buffer of the same chunks gives, JSON commas included.
    #[test]
    fn write_pieces_equals_writing_each_buffer() {
        let text = "ab\"c\n".repeat(40);
        let chunks: Vec<_> = (0..9)
            .map(|i| chunk(&text, i, 9, ChunkMeta::default()))
            .collect();
        for format in [Format::Jsonl, Format::Json, Format::Langchain] {
            let w = ChunkWriter::new(format, "chars");
            // 1,500 buffers of one to three chunks, and some empty ones.
            let mut pieces = Vec::new();
            for i in 0..1_500 {
                let range = i % 9..(i % 9 + i % 4).min(9);
                let mut buf = Vec::new();
                w.render_range(&chunks, None, range.clone(), &mut buf)
                    .unwrap();
                pieces.push((buf, range.len()));
            }
            // What the same chunks give rendered into one buffer and written at once.
            let (mut all, mut n) = (Vec::new(), 0);
            for i in 0..1_500 {
                let range = i % 9..(i % 9 + i % 4).min(9);
                w.render_range(&chunks, None, range.clone(), &mut all)
                    .unwrap();
                n += range.len();
            }
            let mut each = Vec::new();
            let mut one = ChunkWriter::new(format, "chars");
            one.begin(&mut each).unwrap();
            one.write_pieces(&mut each, [(&all[..], n)]).unwrap();
            one.end(&mut each).unwrap();
            for step in [1, 7, usize::MAX] {
                let mut sink = Trickle {
                    out: Vec::new(),
                    step,
                    calls: 0,
                };
                let mut many = ChunkWriter::new(format, "chars");
                many.begin(&mut sink).unwrap();
                many.write_pieces(&mut sink, slices(&pieces[..700]))
                    .unwrap();
                many.write_pieces(&mut sink, slices(&pieces[700..]))
                    .unwrap();
                many.end(&mut sink).unwrap();
                assert!(sink.out == each, "{format:?}, {step} bytes per call");
            }
        }
        let mut w = ChunkWriter::new(Format::Jsonl, "chars");
        let err = w.write_pieces(&mut Full { room: 10 }, [(&b"x".repeat(100)[..], 1)]);
        assert_eq!(err.unwrap_err().to_string(), "disk full");
    }

    /// A sink that takes `room` bytes, then fails.
    struct Full {
        room: usize,
    }
    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::other("disk full"));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_write_stops_the_waves() {
        let text = "x".repeat(PIECE_BYTES / 3);
        let chunks = wave_chunks(&text);
        let n = chunks.len();
        for room in [0, PIECE_BYTES, 5 * PIECE_BYTES] {
            let mut w = ChunkWriter::new(Format::Jsonl, "chars");
            let mut sets = Vec::new();
            let err = w
                .render_and_write(&mut Full { room }, &chunks, None, 0..n, &mut sets)
                .unwrap_err();
            assert_eq!(err.to_string(), "disk full");
        }
    }
}
