//! The chunk model: a span of the original text plus metadata. Text is always borrowed from the
//! document at the span's offsets — never copied and searched for again.

use serde::Serialize;

/// A byte range into a document, as produced by a strategy, with its verified size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Span {
    /// Start byte offset (inclusive, on a char boundary).
    pub start: usize,
    /// End byte offset (exclusive, on a char boundary).
    pub end: usize,
    /// Size of `text[start..end]` in the sizer's units (the real count, not an estimate).
    pub tokens: usize,
}

impl Span {
    pub fn new(start: usize, end: usize, tokens: usize) -> Self {
        debug_assert!(start <= end);
        Self { start, end, tokens }
    }
    pub fn len(&self) -> usize {
        self.end - self.start
    }
    pub fn is_empty(&self) -> bool {
        self.end == self.start
    }
}

/// Metadata that structure-aware and hierarchical strategies fill; empty for plain text ones.
///
/// ```
/// use chunklab_core::ChunkMeta;
/// let meta = ChunkMeta {
///     headings: vec!["Hoofdstuk 2. Vergunningen".into(), "Artikel 3 Bewonersvergunning".into()],
///     prefix: Some("Hoofdstuk 2. Vergunningen > Artikel 3 Bewonersvergunning\n\n".into()),
///     ..ChunkMeta::default()
/// };
/// assert_eq!(meta.embed_text("1. Het college verleent ..."),
///            "Hoofdstuk 2. Vergunningen > Artikel 3 Bewonersvergunning\n\n1. Het college verleent ...");
/// ```
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ChunkMeta {
    /// Heading path from the document root to this chunk.
    pub headings: Vec<String>,
    /// For a chunk that merges several sections (`headings` with
    /// [`crate::strategies::Headings::with_merge_siblings`]): the heading path of every section
    /// whose heading it contains, in document order. Empty (and not serialized) otherwise.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sections: Vec<Vec<String>>,
    /// 1-based page number (where the chunk starts) where the format has pages.
    pub page: Option<u32>,
    /// 1-based page number where the chunk ends.
    pub page_end: Option<u32>,
    /// 1-based inclusive line range in the source file (formats that keep source lines).
    pub lines: Option<(u32, u32)>,
    /// Element kind (paragraph, table, code, ...).
    pub kind: Option<String>,
    /// For code: the symbol path of the unit (`impl Parser::parse`).
    pub symbol: Option<String>,
    /// For code: the programming language.
    pub language: Option<String>,
    /// Depth in a hierarchy of chunks (hierarchical strategies; 0 = top).
    pub level: Option<u32>,
    /// Id of the parent chunk (hierarchical strategies).
    pub parent_id: Option<String>,
    /// Index of the parent chunk in the strategy's output. Strategies set it (they cannot know
    /// chunk ids); [`crate::chunk_document`] and [`crate::chunk_parsed_document`] turn it into
    /// `parent_id`. Not serialized.
    #[serde(skip)]
    pub parent_index: Option<usize>,
    /// Text prepended to the chunk for embedding (the heading path with `--title-prefix`, a
    /// table's repeated header row). It is **not** part of the span, but it counts toward the size:
    /// the chunk's `tokens` is the real size of `prefix + text`.
    pub prefix: Option<String>,
    /// A short text situating the chunk in its document (contextual retrieval: written by a
    /// language model, or the document title and heading path). Like `prefix` it is **not** part
    /// of the span but is embedded and counted: the embedded text is `context + "\n\n" + prefix +
    /// text` and `tokens` is its real size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// For a chunk on pages read by OCR: the mean word confidence (0–100) of those pages
    /// (outputs write `ocr: true` with it). `None` for text from a text layer or a text format.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ocr_confidence: Option<f32>,
}

impl ChunkMeta {
    /// The text to embed: see [`embedded_text`].
    pub fn embed_text(&self, text: &str) -> String {
        embedded_text(self.context.as_deref(), self.prefix.as_deref(), text)
    }
}

/// The one definition of the text that is embedded and indexed for a chunk:
/// `context + "\n\n" + prefix + text`, where a missing **or empty** context adds nothing (no
/// separator) and a missing prefix adds nothing. Every stage that embeds, indexes or sizes a
/// chunk with its context calls this.
///
/// ```
/// use chunklab_core::chunk::embedded_text;
/// assert_eq!(embedded_text(Some("Besluit 2021"), Some("Art. 1\n\n"), "Tekst"), "Besluit 2021\n\nArt. 1\n\nTekst");
/// assert_eq!(embedded_text(Some(""), None, "Tekst"), "Tekst");
/// assert_eq!(embedded_text(None, None, "Tekst"), "Tekst");
/// ```
pub fn embedded_text(context: Option<&str>, prefix: Option<&str>, text: &str) -> String {
    let context = context.filter(|c| !c.is_empty());
    let mut out = String::with_capacity(
        context.map_or(0, |c| c.len() + 2) + prefix.map_or(0, str::len) + text.len(),
    );
    if let Some(c) = context {
        out.push_str(c);
        out.push_str("\n\n");
    }
    if let Some(p) = prefix {
        out.push_str(p);
    }
    out.push_str(text);
    out
}

/// One chunk of one document.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Chunk<'a> {
    /// Stable content hash of doc id, span, text and strategy config.
    pub id: String,
    pub doc_id: &'a str,
    pub source: &'a str,
    /// `&document[start_byte..end_byte]`.
    pub text: &'a str,
    pub start_byte: usize,
    pub end_byte: usize,
    pub start_char: usize,
    pub end_char: usize,
    /// Position of this chunk in the document's chunk list, and the list's length.
    pub index: usize,
    pub total: usize,
    /// Size in the configured sizer's units, of `meta.prefix` + `text` when there is a prefix.
    pub tokens: usize,
    /// Strategy name.
    pub strategy: &'static str,
    #[serde(flatten)]
    pub meta: ChunkMeta,
}

/// `blake3(doc_id, start, end, config, text)` as 32 hex chars: stable across runs and machines,
/// different when any of the inputs change.
pub fn chunk_id(doc_id: &str, start: usize, end: usize, config: &str, text: &str) -> String {
    let mut h = blake3::Hasher::new();
    h.update(&(doc_id.len() as u64).to_le_bytes());
    h.update(doc_id.as_bytes());
    h.update(&(start as u64).to_le_bytes());
    h.update(&(end as u64).to_le_bytes());
    h.update(&(config.len() as u64).to_le_bytes());
    h.update(config.as_bytes());
    h.update(text.as_bytes());
    let hex = h.finalize().to_hex();
    hex[..32].to_string()
}

/// What [`chunk_id`] hashes for one chunk.
#[derive(Debug, Clone, Copy)]
pub struct IdInput<'a> {
    pub doc_id: &'a str,
    pub start: usize,
    pub end: usize,
    pub config: &'a str,
    pub text: &'a str,
}

/// [`chunk_id`] of many chunks at once, the same ids. A chunk's hash input (the lengths, ids
/// and config, then its text) is a few BLAKE3 chunks of 1 KiB; one hashed at a time runs the
/// compression one block after the other. Here the whole 1 KiB chunks of all inputs are
/// compressed side by side, as many as the SIMD width (8 with AVX2), with BLAKE3's own
/// `hash_many`, grouped by their position (the chunk counter). So are the blocks of each
/// input's last chunk but its last block, grouped by position and number of blocks; that last
/// block (the root of an input of one chunk) and the tree above the chunks are finished one
/// input at a time (`blake3::hazmat`).
///
/// The inputs go through in batches of `ID_BATCH`, so the copies of the chunks that take in
/// a header are a bounded buffer reused by the allocator rather than 1 KiB per input held to
/// the end (for 12,000 ids of 2 KB that was 12 MB of fresh pages, a fifth of the page faults of
/// `chunklab chunk` on a 20 MB document).
pub fn chunk_ids(items: &[IdInput<'_>]) -> Vec<String> {
    let mut ids = Vec::with_capacity(items.len());
    for batch in items.chunks(ID_BATCH) {
        ids.extend(chunk_ids_batch(batch));
    }
    ids
}

/// How many inputs [`chunk_ids`] hashes side by side at most: a multiple of every SIMD width
/// BLAKE3 has (4, 8, 16 lanes). The last chunks are split into up to 16 groups by their number
/// of blocks, so a batch of 256 still fills most groups' lanes (with 64, most lanes of a group
/// were empty).
const ID_BATCH: usize = 256;

/// [`chunk_ids`] of one batch.
fn chunk_ids_batch(items: &[IdInput<'_>]) -> Vec<String> {
    use blake3::hazmat::{merge_subtrees_non_root, merge_subtrees_root, Mode};
    use blake3::CHUNK_LEN;
    type Cv = [u8; 32];
    /// Bytes of a hash input: in the text, or where in the arena ([`bytes`]).
    type Found<'b> = Result<&'b [u8], std::ops::Range<usize>>;

    /// Appends the hash input's header of `it` to `h`.
    fn header(h: &mut Vec<u8>, it: &IdInput<'_>) {
        h.extend_from_slice(&(it.doc_id.len() as u64).to_le_bytes());
        h.extend_from_slice(it.doc_id.as_bytes());
        h.extend_from_slice(&(it.start as u64).to_le_bytes());
        h.extend_from_slice(&(it.end as u64).to_le_bytes());
        h.extend_from_slice(&(it.config.len() as u64).to_le_bytes());
        h.extend_from_slice(it.config.as_bytes());
    }
    /// Bytes `range` of `header ++ text`: borrowed from the text (`Ok`), or copied where they
    /// take in the header to the end of `arena` (`Err`: where), so that a batch's copies share
    /// one buffer instead of one allocation each.
    fn bytes<'b>(
        header: &[u8],
        text: &'b [u8],
        range: std::ops::Range<usize>,
        arena: &mut Vec<u8>,
    ) -> Found<'b> {
        let h = header.len();
        if range.start >= h {
            return Ok(&text[range.start - h..range.end - h]);
        }
        let at = arena.len();
        arena.extend_from_slice(&header[range.start..range.end.min(h)]);
        if range.end > h {
            arena.extend_from_slice(&text[..range.end - h]);
        }
        Err(at..arena.len())
    }
    /// How many bytes [`bytes`] copies to the arena for `range`.
    fn copied(header: &[u8], range: &std::ops::Range<usize>) -> usize {
        if range.start >= header.len() {
            0
        } else {
            range.len()
        }
    }
    /// The bytes [`bytes`] gave, once `arena` is complete.
    fn resolve<'b>(found: &Found<'b>, arena: &'b [u8]) -> &'b [u8] {
        match found {
            Ok(text) => text,
            Err(at) => &arena[at.clone()],
        }
    }
    /// The chaining value of a subtree of whole chunks' values (left subtree: the largest power
    /// of two of chunks that leaves the right one non-empty).
    fn subtree(cvs: &[Cv]) -> Cv {
        if cvs.len() == 1 {
            return cvs[0];
        }
        let left = left_len(cvs.len());
        merge_subtrees_non_root(&subtree(&cvs[..left]), &subtree(&cvs[left..]), Mode::Hash)
    }
    fn left_len(n: usize) -> usize {
        1 << (usize::BITS - 1 - (n - 1).leading_zeros())
    }

    // Every header in one buffer (one allocation for the batch, not one per chunk).
    let mut header_bytes = Vec::with_capacity(
        items
            .iter()
            .map(|it| 32 + it.doc_id.len() + it.config.len())
            .sum(),
    );
    let header_at: Vec<std::ops::Range<usize>> = items
        .iter()
        .map(|it| {
            let start = header_bytes.len();
            header(&mut header_bytes, it);
            start..header_bytes.len()
        })
        .collect();
    let headers: Vec<&[u8]> = header_at
        .iter()
        .map(|at| &header_bytes[at.clone()])
        .collect();
    let lens: Vec<usize> = items
        .iter()
        .zip(&headers)
        .map(|(it, h)| h.len() + it.text.len())
        .collect();
    // The whole chunks before each input's last one, by position: (input, bytes).
    let most = lens
        .iter()
        .map(|&l| l.div_ceil(CHUNK_LEN).saturating_sub(1))
        .max()
        .unwrap_or(0);
    // Inputs of one chunk have no chunk values before their last.
    let mut cvs: Vec<Vec<Cv>> = lens
        .iter()
        .map(|&l| {
            Vec::with_capacity(if l > CHUNK_LEN {
                l.div_ceil(CHUNK_LEN)
            } else {
                0
            })
        })
        .collect();
    let platform = blake3::platform::Platform::detect();
    let mut arena = Vec::new();
    for c in 0..most {
        let range = c * CHUNK_LEN..(c + 1) * CHUNK_LEN;
        let owns = |i: usize| lens[i] > CHUNK_LEN && lens[i].div_ceil(CHUNK_LEN) - 1 > c;
        let mut owners = Vec::new();
        let mut blocks = Vec::new();
        arena.clear();
        // Reserved at once: grown copy by copy, the arena was copied over and over.
        arena.reserve(
            (0..items.len())
                .filter(|&i| owns(i))
                .map(|i| copied(headers[i], &range))
                .sum(),
        );
        for (i, it) in items.iter().enumerate() {
            if owns(i) {
                owners.push(i);
                blocks.push(bytes(
                    headers[i],
                    it.text.as_bytes(),
                    range.clone(),
                    &mut arena,
                ));
            }
        }
        let inputs: Vec<&[u8; CHUNK_LEN]> = blocks
            .iter()
            .map(|b| <&[u8; CHUNK_LEN]>::try_from(resolve(b, &arena)).expect("a whole chunk"))
            .collect();
        let mut out = vec![0u8; 32 * inputs.len()];
        platform.hash_many(
            &inputs,
            &IV,
            c as u64,
            blake3::IncrementCounter::No,
            0,
            CHUNK_START,
            CHUNK_END,
            &mut out,
        );
        for (k, &i) in owners.iter().enumerate() {
            cvs[i].push(out[32 * k..32 * (k + 1)].try_into().expect("32 bytes"));
        }
    }
    // The last chunk of every input, and the root of the one-chunk inputs.
    let last_range = |i: usize| (lens[i].div_ceil(CHUNK_LEN).max(1) - 1) * CHUNK_LEN..lens[i];
    arena.clear();
    arena.reserve(
        (0..items.len())
            .map(|i| copied(headers[i], &last_range(i)))
            .sum(),
    );
    let found: Vec<(u64, Found<'_>)> = items
        .iter()
        .enumerate()
        .map(|(i, it)| {
            let range = last_range(i);
            let c = range.start / CHUNK_LEN;
            (
                c as u64,
                bytes(headers[i], it.text.as_bytes(), range, &mut arena),
            )
        })
        .collect();
    let tails: Vec<(u64, &[u8])> = found
        .iter()
        .map(|(c, last)| (*c, resolve(last, &arena)))
        .collect();
    let last_cvs = last_chunk_cvs(&platform, &tails);
    items
        .iter()
        .enumerate()
        .map(|(i, _)| {
            let last = blake3::platform::le_bytes_from_words_32(&last_cvs[i]);
            if lens[i] <= CHUNK_LEN {
                return hex_id(&last);
            }
            let mut chunks = std::mem::take(&mut cvs[i]);
            chunks.push(last);
            let left = left_len(chunks.len());
            let root = merge_subtrees_root(
                &subtree(&chunks[..left]),
                &subtree(&chunks[left..]),
                Mode::Hash,
            );
            root.to_hex()[..32].to_string()
        })
        .collect()
}

/// An id: the first 16 bytes of a hash in lowercase hex, as `blake3::Hash::to_hex` writes them.
fn hex_id(hash: &[u8; 32]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(32);
    for &b in &hash[..16] {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 15)] as char);
    }
    s
}

/// BLAKE3's IV (the key of the plain hash mode).
const IV: [u32; 8] = [
    0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A, 0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19,
];
/// BLAKE3's domain flags.
const CHUNK_START: u8 = 1;
const CHUNK_END: u8 = 2;
const ROOT: u8 = 8;

/// The chaining values of the last chunks `tails` (each its chunk counter and its 1 to 1,024
/// bytes), the root's for chunk 0 (an input of one chunk, whose hash it is). A chunk is one
/// block after the other; here the blocks before each last block are compressed side by side
/// with `hash_many` (inputs grouped by counter and number of blocks, since one call takes one
/// of each), and only the last block of each, shorter or with other flags, on its own.
fn last_chunk_cvs(platform: &blake3::platform::Platform, tails: &[(u64, &[u8])]) -> Vec<[u32; 8]> {
    use blake3::BLOCK_LEN;
    // Never empty: every input starts with a header of at least 32 bytes.
    let before_last = |t: &[u8]| (t.len() - 1) / BLOCK_LEN;
    let mut cvs = vec![IV; tails.len()];
    let mut order: Vec<usize> = (0..tails.len())
        .filter(|&i| before_last(tails[i].1) > 0)
        .collect();
    let key = |i: usize| (tails[i].0, before_last(tails[i].1));
    order.sort_by_key(|&i| key(i));
    let mut out = Vec::new();
    for group in order.chunk_by(|&a, &b| key(a) == key(b)) {
        let (counter, blocks) = key(group[0]);
        out.clear();
        out.resize(32 * group.len(), 0);
        // `hash_many` takes arrays of a fixed length: one instance per number of blocks.
        macro_rules! many {
            ($($n:literal)*) => {
                match blocks {
                    $($n => {
                        let inputs: Vec<&[u8; $n * BLOCK_LEN]> = group
                            .iter()
                            .map(|&i| (&tails[i].1[..$n * BLOCK_LEN]).try_into().expect("whole blocks"))
                            .collect();
                        platform.hash_many(
                            &inputs,
                            &IV,
                            counter,
                            blake3::IncrementCounter::No,
                            0,
                            CHUNK_START,
                            0,
                            &mut out,
                        );
                    })*
                    _ => unreachable!("a chunk has at most 16 blocks"),
                }
            };
        }
        many!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);
        for (k, &i) in group.iter().enumerate() {
            let cv: &[u8; 32] = out[32 * k..32 * (k + 1)].try_into().expect("32 bytes");
            cvs[i] = blake3::platform::words_from_le_bytes_32(cv);
        }
    }
    for (cv, (counter, tail)) in cvs.iter_mut().zip(tails) {
        let done = before_last(tail) * BLOCK_LEN;
        let mut block = [0u8; BLOCK_LEN];
        block[..tail.len() - done].copy_from_slice(&tail[done..]);
        let mut flags = CHUNK_END;
        if done == 0 {
            flags |= CHUNK_START;
        }
        // Chunk 0 is the last chunk only of an input of one chunk: its root.
        if *counter == 0 {
            flags |= ROOT;
        }
        platform.compress_in_place(cv, &block, (tail.len() - done) as u8, *counter, flags);
    }
    cvs
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_stable_and_sensitive() {
        let a = chunk_id("d", 0, 5, "fixed size=5", "hello");
        assert_eq!(a, chunk_id("d", 0, 5, "fixed size=5", "hello"));
        assert_eq!(a.len(), 32);
        assert_ne!(a, chunk_id("d", 0, 5, "fixed size=6", "hello"));
        assert_ne!(a, chunk_id("e", 0, 5, "fixed size=5", "hello"));
        assert_ne!(a, chunk_id("d", 1, 6, "fixed size=5", "hello"));
    }

    /// Many at once: [`chunk_id`] of each, for texts around every chunk boundary and headers
    /// (doc id, config) short, long and longer than a BLAKE3 chunk.
    #[test]
    fn many_ids_are_the_ids() {
        let text: String = (0..12_000u32)
            .map(|i| char::from_u32(0x61 + (i * 7919 % 26)).unwrap_or('a'))
            .collect();
        let configs = [
            String::new(),
            "recursive size=2000 overlap=200 compat=langchain".to_string(),
            "x".repeat(1500),
            "y".repeat(3000),
        ];
        let mut items = Vec::new();
        let mut seed = 7u64;
        for config in &configs {
            for len in (0..40)
                .map(|k| k * 97)
                .chain([1023, 1024, 1025, 2047, 2048, 2049, 4096, 5000])
            {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let start = (seed >> 33) as usize % (text.len() - len);
                items.push(IdInput {
                    doc_id: if len % 2 == 0 {
                        "doc-1"
                    } else {
                        "een/langer/pad/naar/het/document.txt"
                    },
                    start,
                    end: start + len,
                    config,
                    text: &text[start..start + len],
                });
            }
        }
        let want: Vec<String> = items
            .iter()
            .map(|it| chunk_id(it.doc_id, it.start, it.end, it.config, it.text))
            .collect();
        assert_eq!(chunk_ids(&items), want);
        // In any grouping.
        for k in [1, 3, 8, 9] {
            let got: Vec<String> = items.chunks(k).flat_map(chunk_ids).collect();
            assert_eq!(got, want);
        }
    }

    #[test]
    fn ids_of_every_length_are_the_ids() {
        // Every length of hash input from 33 bytes (the header of an empty text) to past three
        // BLAKE3 chunks: every number of blocks in a last chunk, each with chunk counters 0-3,
        // side by side with inputs of other lengths and counters.
        let text = "abcdefghijklmnopqrstuvwxyz0123456789".repeat(100);
        let items: Vec<IdInput<'_>> = (0..3200)
            .map(|len| IdInput {
                doc_id: "d",
                start: len,
                end: 2 * len,
                config: "c",
                text: &text[..len],
            })
            .collect();
        let want: Vec<String> = items
            .iter()
            .map(|it| chunk_id(it.doc_id, it.start, it.end, it.config, it.text))
            .collect();
        assert_eq!(chunk_ids(&items), want);
        let mut shuffled = items.clone();
        shuffled.reverse();
        let mut want_reversed = want;
        want_reversed.reverse();
        assert_eq!(chunk_ids(&shuffled), want_reversed);
    }
}
