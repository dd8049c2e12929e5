//! BM25 over chunks with tantivy, with a Dutch and an English analyzer.
//!
//! Each analyzer splits on non-alphanumerics, drops tokens over 40 bytes, lowercases, drops the
//! language's stopwords, folds to ASCII (`geëist` → `geeist`, `café` → `cafe`) and stems with the
//! Snowball stemmer of the language. A chunk is indexed into the field of its document's
//! language (`text_en` or `text_nl`; with `--lang auto` each document's language is detected);
//! a query is analyzed with both analyzers and scored over both fields, so a mixed corpus works.
//! The indexed text is the chunk's heading path followed by its text.
//!
//! Every commit carries the store generation as its payload: when the payload differs from the
//! manifest (a crash between the BM25 commit and the manifest), the BM25 index is rebuilt from the
//! store — in memory by readers, on disk by the next writer.

use crate::error::{Error, Result};
use crate::store::ChunkRecord;
use std::cmp::Reverse;
use std::ops::Range;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tantivy::collector::{FilterCollector, TopDocs};
use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, NumericOptions, Schema, TextFieldIndexing, TextOptions, STRING,
};
use tantivy::tokenizer::{
    AsciiFoldingFilter, Language, LowerCaser, RemoveLongFilter, SimpleTokenizer, Stemmer,
    StopWordFilter, TextAnalyzer, TokenStream,
};
use tantivy::{
    doc, DocAddress, DocId, IndexReader, IndexWriter, ReloadPolicy, Score, SegmentReader,
    TantivyDocument, Term,
};

/// Sub-directory of the index holding the tantivy index.
pub const BM25_DIR: &str = "bm25";

/// Languages with an analyzer, as (code, field name, tokenizer name).
const LANGS: [(&str, &str, &str); 2] = [
    ("en", "text_en", "chunklab_en"),
    ("nl", "text_nl", "chunklab_nl"),
];

/// A predicate over chunk keys, evaluated inside the search (before truncation to the limit).
pub type KeyFilter = Arc<dyn Fn(u64) -> bool + Send + Sync>;

/// The analyzer chunklab uses for `lang` (`en` or `nl`).
pub fn analyzer(lang: &str) -> TextAnalyzer {
    let language = if lang == "nl" {
        Language::Dutch
    } else {
        Language::English
    };
    TextAnalyzer::builder(SimpleTokenizer::default())
        .filter(RemoveLongFilter::limit(40))
        .filter(LowerCaser)
        .filter(StopWordFilter::new(language).expect("tantivy has Dutch and English stopwords"))
        .filter(AsciiFoldingFilter)
        .filter(Stemmer::new(language))
        .build()
}

/// The terms `text` is indexed as under `lang`, with each term's byte range in `text`.
///
/// ```
/// let t = chunklab_index::bm25::analyze("nl", "De vergunningen over windenergie");
/// let terms: Vec<&str> = t.iter().map(|(_, s)| s.as_str()).collect();
/// assert_eq!(terms, ["vergunn", "windenergie"]);
/// assert_eq!(t[0].0, 3..15);
/// ```
pub fn analyze(lang: &str, text: &str) -> Vec<(Range<usize>, String)> {
    let mut a = analyzer(lang);
    let mut stream = a.token_stream(text);
    let mut out = Vec::new();
    while stream.advance() {
        let t = stream.token();
        out.push((t.offset_from..t.offset_to, t.text.clone()));
    }
    out
}

struct Fields {
    key: Field,
    doc_id: Field,
    text: [Field; 2],
}

fn schema() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let key = b.add_u64_field("key", NumericOptions::default().set_fast());
    let doc_id = b.add_text_field("doc_id", STRING);
    let text = LANGS.map(|(_, field, tokenizer)| {
        let opts = TextOptions::default().set_indexing_options(
            TextFieldIndexing::default()
                .set_tokenizer(tokenizer)
                .set_index_option(IndexRecordOption::WithFreqs),
        );
        b.add_text_field(field, opts)
    });
    (b.build(), Fields { key, doc_id, text })
}

/// Up to this much chunk text, [`Bm25::rebuilt_in_memory`] builds one segment on the calling
/// thread; above it, a budgeted `IndexWriter`.
pub const SMALL_REBUILD_BYTES: usize = 8 << 20;

/// The BM25 index of an index directory (or in memory).
pub struct Bm25 {
    index: tantivy::Index,
    reader: IndexReader,
    fields: Fields,
    writer: Option<IndexWriter<TantivyDocument>>,
    path: PathBuf,
}

impl Bm25 {
    fn err(path: &Path) -> impl Fn(tantivy::TantivyError) -> Error + '_ {
        move |e| Error::Bm25 {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }

    fn wrap(index: tantivy::Index, fields: Fields, path: PathBuf) -> Result<Bm25> {
        for (lang, _, tokenizer) in LANGS {
            index.tokenizers().register(tokenizer, analyzer(lang));
        }
        let reader = index
            .reader_builder()
            .reload_policy(ReloadPolicy::Manual)
            .try_into()
            .map_err(Self::err(&path))?;
        Ok(Bm25 {
            index,
            reader,
            fields,
            writer: None,
            path,
        })
    }

    /// Open the BM25 index under `index_dir` for reading. tantivy panics on some damaged files
    /// (a fast-field file overwritten in place: `mid > len`); that is a corrupt index too.
    pub fn open(index_dir: &Path) -> Result<Bm25> {
        let path = index_dir.join(BM25_DIR);
        catch_unwind(AssertUnwindSafe(|| {
            let index = tantivy::Index::open_in_dir(&path).map_err(|e| Error::Corrupt {
                path: path.clone(),
                reason: format!("cannot open the BM25 index: {e}"),
            })?;
            // Checksums first: a damaged length inside a file can make tantivy's reader
            // allocate hundreds of gigabytes, an abort that no panic guard stops
            // (docs/RELIABILITY.md). This reads the BM25 files once per open.
            let damaged = index.validate_checksum().map_err(|e| Error::Corrupt {
                path: path.clone(),
                reason: format!("cannot check the BM25 files: {e}"),
            })?;
            if !damaged.is_empty() {
                let mut names: Vec<String> =
                    damaged.iter().map(|p| p.display().to_string()).collect();
                names.sort();
                return Err(Error::Corrupt {
                    path: path.clone(),
                    reason: format!("checksum does not match (damaged): {}", names.join(", ")),
                });
            }
            let (_, fields) = schema();
            Self::wrap(index, fields, path.clone())
        }))
        .unwrap_or_else(|_| {
            Err(Error::Corrupt {
                path: path.clone(),
                reason: "cannot open the BM25 index: tantivy panicked while reading it".into(),
            })
        })
    }

    /// Open (creating it when absent) the BM25 index under `index_dir` for writing. Only the
    /// holder of the index's writer lock calls this.
    pub fn open_writer(index_dir: &Path) -> Result<Bm25> {
        let path = index_dir.join(BM25_DIR);
        std::fs::create_dir_all(&path).map_err(crate::error::io(&path))?;
        let (schema, fields) = schema();
        let dir = tantivy::directory::MmapDirectory::open(&path).map_err(|e| Error::Bm25 {
            path: path.clone(),
            message: e.to_string(),
        })?;
        let index = tantivy::Index::open_or_create(dir, schema).map_err(Self::err(&path))?;
        let mut bm25 = Self::wrap(index, fields, path)?;
        let writer = bm25
            .index
            .writer_with_num_threads(1, 64 << 20)
            .map_err(Self::err(&bm25.path))?;
        bm25.writer = Some(writer);
        Ok(bm25)
    }

    /// An empty in-memory BM25 index (readers rebuild into one when the disk copy lags or is
    /// damaged). Its writer is small — one indexing thread, one merge thread and tantivy's
    /// minimum budget (15 MB, a segment per 15 MB of postings) — because a reader pays for it on
    /// every open that rebuilds; [`Bm25::close_writer`] ends it once the rebuild is committed.
    pub fn in_memory() -> Result<Bm25> {
        let (schema, fields) = schema();
        let index = tantivy::Index::create_in_ram(schema);
        let mut bm25 = Self::wrap(index, fields, PathBuf::from("<memory>"))?;
        // The builder's default budget is tantivy's minimum.
        let options = tantivy::indexer::IndexWriterOptions::builder()
            .num_worker_threads(1)
            .num_merge_threads(1)
            .build();
        let writer = bm25
            .index
            .writer_with_options(options)
            .map_err(Self::err(&bm25.path))?;
        bm25.writer = Some(writer);
        Ok(bm25)
    }

    /// End writing: wait for the writer's threads and free its memory. Searches go on; `add`,
    /// `remove_doc`, `clear` and `commit` are no longer allowed. Call it after the last commit.
    pub fn close_writer(&mut self) -> Result<()> {
        if let Some(writer) = self.writer.take() {
            writer
                .wait_merging_threads()
                .map_err(Self::err(&self.path))?;
        }
        Ok(())
    }

    /// A read-only in-memory BM25 index of `chunks` (each with its document's language), as a
    /// reader rebuilds it when the disk copy lags or is damaged; `text_bytes` is about how much
    /// text they hold. Up to [`SMALL_REBUILD_BYTES`] of text it is built as one segment on the
    /// calling thread with a hash table sized to the text (tantivy's `IndexWriter` starts threads
    /// and sizes its table to a 15 MB minimum budget, then walks all of it at the commit: most
    /// of the time a small rebuild took); larger stores go through [`Bm25::in_memory`], whose
    /// budget bounds the memory. No commit payload is set: the generation is the store's.
    pub fn rebuilt_in_memory<'a>(
        chunks: impl IntoIterator<Item = Result<(ChunkRecord, &'a str)>>,
        text_bytes: usize,
        generation: u64,
    ) -> Result<Bm25> {
        if text_bytes > SMALL_REBUILD_BYTES {
            let mut bm25 = Self::in_memory()?;
            for c in chunks {
                let (chunk, lang) = c?;
                bm25.add(&chunk, lang)?;
            }
            bm25.commit(generation)?;
            bm25.close_writer()?;
            return Ok(bm25);
        }
        let (schema, fields) = schema();
        let bm25 = Self::wrap(
            tantivy::Index::create_in_ram(schema),
            fields,
            PathBuf::from("<memory>"),
        )?;
        // tantivy sizes the table to a third of the budget (at least 1,024 slots) and grows it
        // as needed; the budget does not limit a single segment's size.
        let budget = (text_bytes * 4).clamp(64 << 10, 16 << 20);
        let mut writer =
            tantivy::SingleSegmentIndexWriter::<TantivyDocument>::new(bm25.index.clone(), budget)
                .map_err(Self::err(&bm25.path))?;
        for c in chunks {
            let (chunk, lang) = c?;
            writer
                .add_document(bm25.document(&chunk, lang))
                .map_err(Self::err(&bm25.path))?;
        }
        writer.finalize().map_err(Self::err(&bm25.path))?;
        bm25.reader.reload().map_err(Self::err(&bm25.path))?;
        Ok(bm25)
    }

    /// The store generation of the last commit, from the commit payload.
    pub fn generation(&self) -> Result<Option<u64>> {
        let metas = self.index.load_metas().map_err(Self::err(&self.path))?;
        Ok(metas.payload.and_then(|p| p.parse().ok()))
    }

    fn writer(&self) -> &IndexWriter<TantivyDocument> {
        self.writer.as_ref().expect("opened for writing")
    }

    /// Index a chunk of a document analyzed as `lang`.
    pub fn add(&self, chunk: &ChunkRecord, lang: &str) -> Result<()> {
        self.writer()
            .add_document(self.document(chunk, lang))
            .map_err(Self::err(&self.path))?;
        Ok(())
    }

    /// The tantivy document of a chunk: its key, its document id and, in the field analyzed for
    /// `lang`, the context (if any), the heading path and the text — contextual BM25 searches
    /// all three.
    fn document(&self, chunk: &ChunkRecord, lang: &str) -> TantivyDocument {
        let field = if lang == "nl" {
            self.fields.text[1]
        } else {
            self.fields.text[0]
        };
        let mut text = chunk.context.clone().unwrap_or_default();
        text.push('\n');
        text.push_str(&chunk.headings.join(" / "));
        text.push('\n');
        text.push_str(&chunk.text);
        doc!(
            self.fields.key => chunk.key,
            self.fields.doc_id => chunk.doc_id.as_str(),
            field => text,
        )
    }

    /// Delete every chunk of a document.
    pub fn remove_doc(&self, doc_id: &str) {
        self.writer()
            .delete_term(Term::from_field_text(self.fields.doc_id, doc_id));
    }

    /// Delete everything (before a rebuild).
    pub fn clear(&self) -> Result<()> {
        self.writer()
            .delete_all_documents()
            .map_err(Self::err(&self.path))?;
        Ok(())
    }

    /// Make the changes durable with `generation` as the commit payload, and visible to searches.
    pub fn commit(&mut self, generation: u64) -> Result<()> {
        let path = self.path.clone();
        let writer = self.writer.as_mut().expect("opened for writing");
        let mut prepared = writer.prepare_commit().map_err(Self::err(&path))?;
        prepared.set_payload(&generation.to_string());
        prepared.commit().map_err(Self::err(&path))?;
        self.reader.reload().map_err(Self::err(&path))?;
        Ok(())
    }

    /// The `limit` best chunks for `query` by BM25, as `(key, score)`, best first (ties by key);
    /// any `limit` is safe (it is capped at the number of chunks).
    /// `filter`, when given, is applied inside the collector, so `limit` matching chunks come
    /// back whenever that many match.
    pub fn search(
        &self,
        query: &str,
        limit: usize,
        filter: Option<KeyFilter>,
    ) -> Result<Vec<(u64, f32)>> {
        // Damaged index files can make tantivy fail or even panic: both become an error that
        // names the index and says how to repair it.
        let damaged = |what: String| {
            Error::Corrupt {
            path: self.path.clone(),
            reason: format!(
                "the BM25 index cannot be searched ({what}); `chunklab index` rebuilds it from the store"
            ),
        }
        };
        match catch_unwind(AssertUnwindSafe(|| {
            self.search_unguarded(query, limit, filter)
        })) {
            Ok(Err(Error::Bm25 { message, .. })) => Err(damaged(short(&message))),
            Ok(result) => result,
            Err(_) => Err(damaged("tantivy panicked".into())),
        }
    }

    fn search_unguarded(
        &self,
        query: &str,
        limit: usize,
        filter: Option<KeyFilter>,
    ) -> Result<Vec<(u64, f32)>> {
        let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for (i, (lang, _, _)) in LANGS.iter().enumerate() {
            for (_, term) in analyze(lang, query) {
                if seen.insert((i, term.clone())) {
                    let t = Term::from_field_text(self.fields.text[i], &term);
                    clauses.push((
                        Occur::Should,
                        Box::new(TermQuery::new(t, IndexRecordOption::WithFreqs)),
                    ));
                }
            }
        }
        let searcher = self.reader.searcher();
        // tantivy preallocates `limit` slots: never ask for more than there are chunks.
        let limit = usize::try_from(searcher.num_docs()).map_or(limit, |n| limit.min(n));
        if clauses.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        let q = BooleanQuery::new(clauses);
        // One more than asked for: tantivy cuts ties by segment and position, which depend on
        // how the index was committed and merged. When the one past the cut ties with the last
        // one inside it, the search is made again with ties ranked by key, so the same chunks
        // come back however the index is laid out.
        let probe = usize::try_from(searcher.num_docs()).map_or(limit + 1, |n| (limit + 1).min(n));
        let top = TopDocs::with_limit(probe);
        let hits = match &filter {
            Some(f) => {
                let f = f.clone();
                let collector = FilterCollector::new("key".to_string(), move |k: u64| f(k), top);
                searcher.search(&q, &collector)
            }
            None => searcher.search(&q, &top),
        }
        .map_err(Self::err(&self.path))?;
        let mut out = self.keyed(&searcher, hits)?;
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        if out.len() > limit && out[limit - 1].1 == out[limit].1 {
            let top = TopDocs::with_limit(limit).tweak_score(|segment: &SegmentReader| {
                let keys = segment.fast_fields().u64("key").ok();
                move |doc: DocId, score: Score| {
                    let key = keys.as_ref().and_then(|c| c.first(doc));
                    (score, Reverse(key.unwrap_or(u64::MAX)))
                }
            });
            let hits = match filter {
                Some(f) => {
                    let collector =
                        FilterCollector::new("key".to_string(), move |k: u64| f(k), top);
                    searcher.search(&q, &collector)
                }
                None => searcher.search(&q, &top),
            }
            .map_err(Self::err(&self.path))?;
            let hits = hits.into_iter().map(|((score, _), addr)| (score, addr));
            out = self.keyed(&searcher, hits.collect())?;
            out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        }
        out.truncate(limit);
        Ok(out)
    }

    /// The keys of `hits`, with their scores.
    fn keyed(
        &self,
        searcher: &tantivy::Searcher,
        hits: Vec<(Score, DocAddress)>,
    ) -> Result<Vec<(u64, f32)>> {
        let mut out = Vec::with_capacity(hits.len());
        for (score, addr) in hits {
            let column = searcher
                .segment_reader(addr.segment_ord)
                .fast_fields()
                .u64("key")
                .map_err(Self::err(&self.path))?;
            let key = column.first(addr.doc_id).ok_or_else(|| Error::Corrupt {
                path: self.path.clone(),
                reason: "a BM25 document has no key".into(),
            })?;
            out.push((key, score));
        }
        Ok(out)
    }

    /// Number of chunks visible to searches.
    pub fn len(&self) -> u64 {
        self.reader.searcher().num_docs()
    }

    /// `true` when no chunk is visible.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// At most 200 bytes of an engine message (tantivy quotes whole files in some errors).
fn short(message: &str) -> String {
    if message.len() <= 200 {
        return message.to_string();
    }
    let mut end = 200;
    while !message.is_char_boundary(end) {
        end -= 1;
    }
    format!("{} …", &message[..end])
}

/// Problems of the BM25 index under `index_dir`, for a store at `generation` with `chunks`
/// live chunks: it cannot be opened, a file of a live segment is missing or fails tantivy's
/// checksum, its commit is of another generation, or it holds another number of chunks. Each
/// problem names the file (or the BM25 directory). Empty when the index is sound. Never panics.
pub fn verify(index_dir: &Path, generation: u64, chunks: usize) -> Vec<(PathBuf, String)> {
    let dir = index_dir.join(BM25_DIR);
    let found = catch_unwind(AssertUnwindSafe(|| {
        verify_unguarded(&dir, generation, chunks)
    }));
    found.unwrap_or_else(|_| vec![(dir, "tantivy panicked while reading it".into())])
}

fn verify_unguarded(dir: &Path, generation: u64, chunks: usize) -> Vec<(PathBuf, String)> {
    let problem = |what: String| vec![(dir.to_path_buf(), what)];
    if !dir.is_dir() {
        return problem("missing".into());
    }
    let index = match tantivy::Index::open_in_dir(dir) {
        Ok(i) => i,
        Err(e) => return problem(format!("cannot be opened: {}", short(&e.to_string()))),
    };
    let mut out = Vec::new();
    let metas = match index.searchable_segment_metas() {
        Ok(m) => m,
        Err(e) => {
            return problem(format!(
                "unreadable segment list: {}",
                short(&e.to_string())
            ))
        }
    };
    for meta in &metas {
        for f in meta.list_files() {
            // Every component is listed; a deletes file exists only once there are deletes.
            let deletes = f.extension().is_some_and(|e| e == "del");
            if (!deletes || meta.has_deletes()) && !dir.join(&f).exists() {
                out.push((dir.join(f), "missing".to_string()));
            }
        }
    }
    match index.validate_checksum() {
        Ok(damaged) => {
            let mut damaged: Vec<PathBuf> = damaged.into_iter().collect();
            damaged.sort();
            for f in damaged {
                out.push((dir.join(f), "checksum does not match (damaged)".into()));
            }
        }
        Err(e) => out.push((
            dir.to_path_buf(),
            format!("files cannot be checked: {}", short(&e.to_string())),
        )),
    }
    if !out.is_empty() {
        return out;
    }
    match index.load_metas() {
        Ok(m) => {
            let got = m.payload.and_then(|p| p.parse::<u64>().ok());
            if got != Some(generation) {
                out.push((
                    dir.join("meta.json"),
                    format!(
                        "committed for store generation {}, the manifest is at {generation}",
                        got.map_or("(none)".to_string(), |g| g.to_string())
                    ),
                ));
            }
        }
        Err(e) => out.push((dir.join("meta.json"), short(&e.to_string()))),
    }
    let docs: u64 = metas.iter().map(|m| u64::from(m.num_docs())).sum();
    if out.is_empty() && docs != chunks as u64 {
        out.push((
            dir.to_path_buf(),
            format!("holds {docs} chunks, the store {chunks}"),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(key: u64, doc: &str, text: &str) -> ChunkRecord {
        serde_json::from_value(serde_json::json!({
            "key": key, "id": format!("c{key}"), "doc_id": doc, "source": "t", "text": text,
            "start_byte": 0, "end_byte": text.len(), "start_char": 0, "end_char": text.len(),
            "index": 0, "tokens": 0, "headings": ["Artikel 3"],
        }))
        .unwrap()
    }

    /// Chunks that tie at the cut come back by key, however tantivy stored them: added in
    /// descending key order over two commits (two segments), with and without a filter.
    #[test]
    fn ties_at_the_cut_go_to_the_lower_keys() {
        let mut bm25 = Bm25::in_memory().unwrap();
        for key in (0..8u64).rev() {
            let c = chunk(key, &format!("d{key}"), "windenergie motie");
            bm25.add(&c, "nl").unwrap();
            if key == 4 {
                bm25.commit(1).unwrap();
            }
        }
        bm25.add(&chunk(100, "d100", "parkeervergunning"), "nl")
            .unwrap();
        bm25.commit(2).unwrap();
        let keys = |hits: Vec<(u64, f32)>| hits.into_iter().map(|h| h.0).collect::<Vec<_>>();
        for limit in 1..=8 {
            let got = keys(bm25.search("windenergie", limit, None).unwrap());
            assert_eq!(got, (0..limit as u64).collect::<Vec<_>>(), "limit {limit}");
        }
        let odd: KeyFilter = Arc::new(|k| k % 2 == 1);
        let got = keys(bm25.search("windenergie motie", 2, Some(odd)).unwrap());
        assert_eq!(got, [1, 3]);
    }

    /// The one-segment rebuild ranks exactly as the budgeted writer does (same scores, same
    /// order), in both languages, headings included.
    #[test]
    fn small_rebuild_scores_equal_the_writer_path() {
        let words = [
            "windenergie",
            "motie",
            "aangenomen",
            "raad",
            "parkeervergunning",
            "tarief",
            "wind",
            "turbine",
            "energy",
            "council",
            "motion",
            "passed",
            "permit",
            "fee",
        ];
        let chunks: Vec<ChunkRecord> = (0..300u64)
            .map(|k| {
                let text: Vec<&str> = (0..(5 + k % 17))
                    .map(|i| words[((k * 7 + i * 13) % words.len() as u64) as usize])
                    .collect();
                chunk(k, &format!("d{}", k / 5), &text.join(" "))
            })
            .collect();
        let langs = |c: &ChunkRecord| if c.key.is_multiple_of(2) { "nl" } else { "en" };
        let pairs = || chunks.iter().map(|c| Ok((c.clone(), langs(c))));
        let small = Bm25::rebuilt_in_memory(pairs(), 4096, 7).unwrap();
        let large = Bm25::rebuilt_in_memory(pairs(), SMALL_REBUILD_BYTES + 1, 7).unwrap();
        assert!(large.writer.is_none() && small.writer.is_none());
        for q in [
            "windenergie motie",
            "parking permit fee",
            "artikel",
            "raad turbine",
            "nope",
        ] {
            let a = small.search(q, 20, None).unwrap();
            let b = large.search(q, 20, None).unwrap();
            assert_eq!(a.len(), b.len(), "{q}");
            for ((ka, sa), (kb, sb)) in a.iter().zip(&b) {
                assert_eq!(ka, kb, "{q}");
                assert!((sa - sb).abs() < 1e-5, "{q}: {sa} vs {sb}");
            }
            if q != "nope" {
                assert!(!a.is_empty(), "{q}");
            }
        }
    }
}
