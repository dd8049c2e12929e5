//! The built-in dataset: a deterministic generator of a Dutch municipal archive, in the shape of
//! the reference user's (92k documents of a Dutch municipality, median ~1,400 words with a tail
//! past 80,000, asking "which motions on wind energy passed 2018–2022?").
//!
//! The fictional municipality of Lindeveld files, from 2002 to 2026, motions (`moties/`, with
//! Motivering, Beslispunten and Stemverhouding), council decisions (`raadsbesluiten/`), letters
//! of the executive (`collegebrieven/`, with projects and amounts), proposals with dossier numbers
//! (`raadsvoorstellen/`) and regulations with chapters and articles (`verordeningen/`), on
//! eighteen topics (windenergie, zonne-energie, parkeren, woningbouw, jeugdzorg, ...), mostly as
//! Markdown, some as HTML and some as plain text. Queries ask for motion lists (topic, outcome,
//! years), look-ups by register number, regulation articles and amounts in letters; their gold
//! labels follow from the generated facts, with exact character spans where the answer is a
//! passage of a Markdown or plain-text document.
//!
//! Everything is derived from the seed with our own PRNG, so the same options give the same
//! bytes on every machine and with every crate version. Facts are planned first (cheap, for all
//! documents); text is rendered per document on demand, so [`documents`] streams and [`queries`]
//! renders only the few documents its spans point into.
//!
//! ```
//! use chunklab_eval::archive::{generate, ArchiveOptions};
//! let data = generate(&ArchiveOptions { docs: 30, seed: 7 });
//! assert_eq!(data.name, "archive");
//! assert_eq!(data.docs.len(), 30);
//! assert!(data.queries[0].query.contains("windenergie"));
//! for q in &data.queries {
//!     for span in &q.relevant_spans {
//!         let doc = data.docs.iter().find(|d| d.id == span.doc_id).unwrap();
//!         assert!(span.end_char <= doc.text.chars().count());
//!     }
//! }
//! ```

mod besluit;
mod brief;
mod council;
mod kinds;
mod motie;
mod plan;
mod prng;
mod prose;
mod queries;
mod render;
mod topics;
mod verordening;
mod vocab;
mod voorstel;
mod writer;

use crate::dataset::{Dataset, Document, Query};
use plan::Plan;

/// Documents of the reference user's archive: the most the generator is meant for (more work,
/// but register numbers grow past four digits).
pub const REFERENCE_DOCS: usize = 92_184;

/// Documents in the default archive: hundreds, so five retrieved chunks are a small part of the
/// collection and every question has near-duplicate distractors (each regulation in 5–11 versions),
/// written at bench size (see [`ArchiveOptions::docs`]) so that the default bench (two chunkings
/// embedded with e5-small, every family with BM25) finishes in under three minutes on two cores;
/// use `--docs 1000` or more for documents of the reference lengths.
pub const DEFAULT_DOCS: usize = 200;

/// Seed of the default archive.
pub const DEFAULT_SEED: u64 = 2_018;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ArchiveOptions {
    /// Number of documents ([`DEFAULT_DOCS`] by default; up to [`REFERENCE_DOCS`] for
    /// reference-scale runs). Below 1,000 documents the archive is bench-sized: documents are
    /// written at 8% of the reference lengths (regulations at 15%), the long tail is capped at
    /// `60 × docs` words (at least 2,500), so small archives stay small, and regulations are
    /// filed on 6 topics at twice their reference share, so each comes in several versions as
    /// in the reference archive; from 1,000 up the lengths have the reference median (~1,400
    /// words) and regulations are on all 13 topics that have one.
    pub docs: usize,
    /// Seed: the same options always give the same archive.
    pub seed: u64,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        Self {
            docs: DEFAULT_DOCS,
            seed: DEFAULT_SEED,
        }
    }
}

/// The whole dataset (documents and queries), named `archive`.
pub fn generate(opts: &ArchiveOptions) -> Dataset {
    let plan = Plan::new(opts.docs, opts.seed);
    Dataset {
        name: "archive".to_string(),
        docs: (0..plan.docs.len()).map(|i| document(&plan, i)).collect(),
        queries: queries::build(&plan, query_count(opts.docs)),
        parsed: Default::default(),
    }
}

/// The documents, one at a time (only the plan's facts are held, a few hundred bytes per
/// document), in archive order. Identical to `generate(opts).docs`.
pub fn documents(opts: &ArchiveOptions) -> impl Iterator<Item = Document> {
    let plan = Plan::new(opts.docs, opts.seed);
    (0..plan.docs.len()).map(move |i| document(&plan, i))
}

/// The queries, without building the documents (only those the spans point into are rendered).
/// Identical to `generate(opts).queries`.
pub fn queries(opts: &ArchiveOptions) -> Vec<Query> {
    let plan = Plan::new(opts.docs, opts.seed);
    queries::build(&plan, query_count(opts.docs))
}

/// The topic words of the archive (`windenergie`, `zonne-energie`, `parkeren`, ...): every
/// motion names its topic as `Onderwerp: <word>` and motion queries use these words.
pub fn topic_words() -> impl Iterator<Item = &'static str> {
    topics::TOPICS.iter().map(|t| t.key)
}

/// Half as many queries as documents, at least 40 and (up to 40,000 documents) at most 120;
/// then growing slowly with size (224 at 92,184 documents). The default archive's 200
/// documents get 100: its rows' intervals narrow with the number of questions.
fn query_count(docs: usize) -> usize {
    (40 + docs / 500).max((docs / 2).min(120)).min(250)
}

fn document(plan: &Plan, i: usize) -> Document {
    Document {
        id: plan.id(i),
        name: plan.file_name(i),
        text: kinds::render(plan, i).text,
    }
}
