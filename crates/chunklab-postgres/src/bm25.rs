//! BM25 in PostgreSQL, scored as the embedded index's tantivy scores it.
//!
//! **Analysis in Rust.** PostgreSQL's `english`/`dutch` configurations are not tantivy's
//! analyzer: its parser keeps e-mail addresses, URLs, file paths, hyphenated words (and their
//! parts) and numbers with signs and decimals as tokens, folds no accents, and its stopword lists
//! differ; only the Snowball stemmers are shared. So the writer analyzes each chunk with the
//! embedded index's own analyzer ([`chunklab_index::bm25::analyze`]: split on
//! non-alphanumerics, drop tokens of 40 bytes or more, lowercase, stopwords, ASCII folding,
//! Snowball stem) over the same text (context, heading path joined by ` / `, text) and stores:
//!
//! * `bm25` — jsonb `{"en:term": tf, …}`: each term prefixed by the field it is in (`en:` or
//!   `nl:`, the document's language, as tantivy's `text_en`/`text_nl` fields), with its
//!   frequency in the chunk; a GIN index (`jsonb_ops`) finds the chunks holding any of a
//!   query's terms (`?|`);
//! * `bm25_len` — the chunk's number of tokens (tantivy's field length);
//! * `bm25_norm` — that length as tantivy stores it (one byte per document: the largest value of
//!   its field-norm table not above the length), which is what tantivy's score uses.
//!
//! **Statistics, exact and transactional.** `bm25_terms (term, df)` and `bm25_fields (field,
//! docs, tokens)` are kept by statement triggers on `chunks` (transition tables: one grouped
//! upsert per `COPY` or `DELETE`, cascades from `documents` included), so they change in the
//! transaction that writes the chunks, on every path (incremental, bulk, a `DELETE` by hand).
//! [`recompute`] rebuilds them from the chunks (migration, repair, tests).
//!
//! **Score.** For a query analyzed by both analyzers (each field's terms deduplicated, as the
//! embedded index builds its `BooleanQuery`), a chunk's score is the sum over the query terms it
//! holds of `idf · (1 + k1) · tf / (tf + k1 · (1 − b + b · norm / avgdl))` with k1 = 1.2,
//! b = 0.75, `idf = ln(1 + (N − df + 0.5) / (df + 0.5))`, N the number of chunks (both fields)
//! and `avgdl` the field's tokens / N — tantivy's formula and statistics. The weights
//! (`idf · (1 + k1)`, `k1 · b / avgdl`) are computed here in `f32` as tantivy does; the sum in
//! SQL (`float8`). Where tantivy differs: its statistics count deleted chunks until their
//! segment is merged; these count live chunks only.

use chunklab_index::bm25::analyze;
use postgres::GenericClient;
use serde_json::{Map, Value};
use std::collections::BTreeMap;

/// tantivy's k1.
pub const K1: f32 = 1.2;
/// tantivy's b.
pub const B: f32 = 0.75;

/// The two fields (languages) of the embedded index.
pub const FIELDS: [&str; 2] = ["en", "nl"];

/// The field a document of language `lang` is indexed in (the embedded index: `nl` or else `en`).
pub fn field(lang: &str) -> &'static str {
    if lang == "nl" {
        "nl"
    } else {
        "en"
    }
}

/// tantivy's field-norm table (`tantivy::fieldnorm`, private there): 0–40, then groups of
/// eight values with steps 2, 4, 8, … (256 entries, the last 2,013,265,944).
fn fieldnorm_table() -> [u32; 256] {
    let mut t = [0u32; 256];
    let mut v = 0u32;
    for (i, slot) in t.iter_mut().enumerate() {
        if i > 40 {
            let group = (i - 41) / 8 + 1;
            v += 1 << group;
        } else {
            v = i as u32;
        }
        *slot = v;
    }
    t
}

/// A field length as tantivy stores it: the largest table value not above `len`.
pub fn fieldnorm(len: u32) -> u32 {
    let t = fieldnorm_table();
    match t.binary_search(&len) {
        Ok(i) => t[i],
        Err(i) => t[i - 1],
    }
}

/// What the writer stores for one chunk: its terms with their frequencies (jsonb), its length
/// and its stored (quantized) length.
#[derive(Debug, Clone, PartialEq)]
pub struct ChunkTerms {
    /// `{"en:term": tf}`.
    pub terms: Value,
    /// Number of tokens.
    pub len: i32,
    /// The length tantivy scores with.
    pub norm: i32,
}

/// The text a chunk is indexed with: context, heading path, text (as the embedded index).
pub fn indexed_text(context: Option<&str>, headings: &[String], text: &str) -> String {
    let mut s = context.unwrap_or_default().to_string();
    s.push('\n');
    s.push_str(&headings.join(" / "));
    s.push('\n');
    s.push_str(text);
    s
}

/// Analyze a chunk of a document in `lang`.
pub fn chunk_terms(
    lang: &str,
    context: Option<&str>,
    headings: &[String],
    text: &str,
) -> ChunkTerms {
    let f = field(lang);
    let tokens = analyze(f, &indexed_text(context, headings, text));
    let mut tf: BTreeMap<String, u64> = BTreeMap::new();
    for (_, t) in &tokens {
        *tf.entry(format!("{f}:{t}")).or_default() += 1;
    }
    let len = tokens.len().min(i32::MAX as usize) as u32;
    let map: Map<String, Value> = tf.into_iter().map(|(k, v)| (k, Value::from(v))).collect();
    ChunkTerms {
        terms: Value::Object(map),
        len: len as i32,
        norm: fieldnorm(len) as i32,
    }
}

/// A query's terms: analyzed by each field's analyzer, prefixed, deduplicated per field, in the
/// order the embedded index builds its clauses.
pub fn query_terms(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for f in FIELDS {
        for (_, t) in analyze(f, text) {
            let term = format!("{f}:{t}");
            if !out.contains(&term) {
                out.push(term);
            }
        }
    }
    out
}

/// A query's scoring weights from the store's statistics: the terms present in the store with
/// their document frequency, `idf · (1 + k1)` and `k1 · b / avgdl` of their field, and the
/// constant `k1 · (1 − b)`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Weights {
    /// Terms with df > 0.
    pub terms: Vec<String>,
    /// Their document frequencies.
    pub df: Vec<i64>,
    /// `idf · (1 + k1)` per term.
    pub w: Vec<f64>,
    /// `k1 · b / avgdl` of the term's field.
    pub kb: Vec<f64>,
    /// Chunks in the store (N).
    pub docs: i64,
}

impl Weights {
    /// `k1 · (1 − b)`.
    pub fn k0() -> f64 {
        f64::from(K1 * (1.0 - B))
    }
}

/// tantivy's idf (f32).
pub fn idf(df: u64, n: u64) -> f32 {
    let x = ((n - df.min(n)) as f32 + 0.5) / (df as f32 + 0.5);
    (1.0 + x).ln()
}

/// The statistics a query's weights need: every field's chunks and tokens, and the document
/// frequencies of the query's terms. Statistics of several shards add up to those of one
/// server holding all their chunks ([`Stats::add`]), so a sharded store scores as one would.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Stats {
    /// Field → (chunks, tokens).
    pub fields: BTreeMap<String, (i64, i64)>,
    /// Term → document frequency (terms in no chunk are absent).
    pub df: BTreeMap<String, i64>,
}

impl Stats {
    /// Read the statistics of `terms` from the store `c` reads.
    pub fn read(c: &mut impl GenericClient, terms: &[String]) -> Result<Stats, postgres::Error> {
        let fields = c
            .query("SELECT field, docs, tokens FROM chunklab.bm25_fields", &[])?
            .iter()
            .map(|r| (r.get(0), (r.get(1), r.get(2))))
            .collect();
        let df = if terms.is_empty() {
            BTreeMap::new()
        } else {
            c.query(
                "SELECT term, df FROM chunklab.bm25_terms WHERE term = ANY($1) AND df > 0",
                &[&terms],
            )?
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect()
        };
        Ok(Stats { fields, df })
    }

    /// Add another shard's statistics.
    pub fn add(&mut self, other: &Stats) {
        for (f, (d, t)) in &other.fields {
            let e = self.fields.entry(f.clone()).or_default();
            e.0 += d;
            e.1 += t;
        }
        for (t, d) in &other.df {
            *self.df.entry(t.clone()).or_default() += d;
        }
    }

    /// The weights of `terms` (those in some chunk), as tantivy computes them (f32).
    pub fn weights(&self, terms: &[String]) -> Weights {
        let n: i64 = self.fields.values().map(|f| f.0).sum();
        let mut out = Weights {
            docs: n,
            ..Weights::default()
        };
        if n <= 0 {
            return out;
        }
        for t in terms {
            let Some(&d) = self.df.get(t).filter(|d| **d > 0) else {
                continue;
            };
            let f = t.split(':').next().unwrap_or("en");
            let tokens = self.fields.get(f).map_or(0, |x| x.1);
            let avg = tokens as f32 / n as f32;
            out.terms.push(t.clone());
            out.df.push(d);
            out.w.push(f64::from(idf(d as u64, n as u64) * (1.0 + K1)));
            out.kb.push(f64::from(K1 * B / avg));
        }
        out
    }
}

/// The weights of `terms` (from [`query_terms`]) in the store `c` reads.
pub fn weights(c: &mut impl GenericClient, terms: &[String]) -> Result<Weights, postgres::Error> {
    Ok(Stats::read(c, terms)?.weights(terms))
}

/// Rebuild the statistics from the chunks (inside the caller's transaction).
pub fn recompute(c: &mut impl GenericClient) -> Result<(), postgres::Error> {
    c.batch_execute(
        "DELETE FROM chunklab.bm25_terms; DELETE FROM chunklab.bm25_fields;
         INSERT INTO chunklab.bm25_terms (term, df)
             SELECT k, count(*) FROM chunklab.chunks c, jsonb_object_keys(c.bm25) k GROUP BY k;
         INSERT INTO chunklab.bm25_fields (field, docs, tokens)
             SELECT CASE WHEN lang = 'nl' THEN 'nl' ELSE 'en' END, count(*), coalesce(sum(bm25_len), 0)
             FROM chunklab.chunks GROUP BY 1;",
    )
}

/// The statistics as stored: (terms with df, fields with docs and tokens), sorted.
#[allow(clippy::type_complexity)]
pub fn stats(
    c: &mut impl GenericClient,
) -> Result<(Vec<(String, i64)>, Vec<(String, i64, i64)>), postgres::Error> {
    let terms = c
        .query(
            "SELECT term, df FROM chunklab.bm25_terms WHERE df <> 0 ORDER BY term",
            &[],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect();
    let fields = c
        .query(
            "SELECT field, docs, tokens FROM chunklab.bm25_fields WHERE docs <> 0 OR tokens <> 0 ORDER BY field",
            &[],
        )?
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect();
    Ok((terms, fields))
}

/// Analyze every chunk that has no terms yet (a store written before schema version 3) and
/// recompute the statistics; returns the number of chunks analyzed.
pub fn backfill(c: &mut impl GenericClient) -> Result<u64, postgres::Error> {
    let mut done = 0u64;
    loop {
        let rows = c.query(
            "SELECT key, lang, context, headings, text FROM chunklab.chunks WHERE bm25 IS NULL ORDER BY key LIMIT 2000",
            &[],
        )?;
        if rows.is_empty() {
            break;
        }
        let mut keys = Vec::with_capacity(rows.len());
        let mut terms = Vec::with_capacity(rows.len());
        let mut lens = Vec::with_capacity(rows.len());
        let mut norms = Vec::with_capacity(rows.len());
        for r in &rows {
            let lang: String = r.get(1);
            let context: Option<String> = r.get(2);
            let headings: Vec<String> = r.get(3);
            let text: String = r.get(4);
            let t = chunk_terms(&lang, context.as_deref(), &headings, &text);
            keys.push(r.get::<_, i64>(0));
            terms.push(t.terms);
            lens.push(t.len);
            norms.push(t.norm);
        }
        c.execute(
            "UPDATE chunklab.chunks c SET bm25 = u.t, bm25_len = u.l, bm25_norm = u.n
             FROM unnest($1::int8[], $2::jsonb[], $3::int4[], $4::int4[]) u(k, t, l, n) WHERE c.key = u.k",
            &[&keys, &terms, &lens, &norms],
        )?;
        done += rows.len() as u64;
    }
    recompute(c)?;
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fieldnorm_table_is_tantivys() {
        let t = fieldnorm_table();
        assert_eq!(&t[..4], &[0, 1, 2, 3]);
        assert_eq!(t[40], 40);
        assert_eq!(t[41], 42);
        assert_eq!(t[48], 56);
        assert_eq!(t[49], 60);
        assert_eq!(t[88], 1_048);
        assert_eq!(t[120], 16_408);
        assert_eq!(t[255], 2_013_265_944);
        assert!(t.windows(2).all(|w| w[0] < w[1]));
        assert_eq!(fieldnorm(41), 40);
        assert_eq!(fieldnorm(59), 56);
        assert_eq!(fieldnorm(60), 60);
        assert_eq!(fieldnorm(u32::MAX), 2_013_265_944);
    }

    #[test]
    fn chunk_terms_are_the_embedded_analysis_with_frequencies() {
        let t = chunk_terms(
            "nl",
            None,
            &["Vergunningen".to_string()],
            "De vergunningen over windenergie",
        );
        assert_eq!(t.terms["nl:vergunn"], 2);
        assert_eq!(t.terms["nl:windenergie"], 1);
        assert_eq!(t.len, 3);
        let q = query_terms("running dogs");
        assert!(q.contains(&"en:run".to_string()), "{q:?}");
        assert!(q.iter().any(|t| t.starts_with("nl:")), "{q:?}");
    }

    #[test]
    fn idf_is_tantivys() {
        // ln(1 + (10 - 1 + 0.5) / 1.5)
        assert!((idf(1, 10) - (1.0f32 + 9.5 / 1.5).ln()).abs() < 1e-6);
        assert!(idf(10, 10) > 0.0);
    }
}
