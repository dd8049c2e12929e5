//! How an index is written besides the pipeline: rebuilding, commit size, access and metadata
//! rules, and the HNSW graph's shape for a new store.

use crate::spelling::{Flags, Spelling};
use anyhow::Result;
use chunklab_index::HnswSettings;

/// How an index is written, besides the pipeline (chunking, reading, model).
#[derive(Debug, Clone)]
pub struct IndexConfig {
    /// Empty the store first (needed after changing the chunking options or the model).
    pub rebuild: bool,
    /// Documents per commit of [`IndexBuilder::add_files`](super::IndexBuilder::add_files): a
    /// crash keeps every finished commit.
    pub commit_every: usize,
    /// Access groups: `GLOB=GROUP` (a document whose id or path matches GLOB gets GROUP).
    pub acl: Vec<String>,
    /// Custom metadata fields: `GLOB=FIELD:VALUE`.
    pub meta: Vec<String>,
    /// The HNSW graph's `m` (links per node, 2 to 100) for a new store; `None`: the store's
    /// own, a new store's default ([`HnswSettings::DIRECTORY`], [`HnswSettings::POSTGRES`]).
    /// An existing store built with other graph settings is refused unless `rebuild`.
    pub hnsw_m: Option<usize>,
    /// The HNSW graph's `ef_construction` (4 to 1,000, at least `2 * m`) for a new store:
    /// smaller builds faster and finds less (docs/PERFORMANCE.md, "Index"); `None` as
    /// [`IndexConfig::hnsw_m`].
    pub hnsw_ef_construction: Option<usize>,
    /// How the builder's messages name options (a failed document's decoding options, the
    /// language and model of a Dutch corpus's model choice): [`Flags`], the command line's, by
    /// default.
    pub spelling: &'static (dyn Spelling + Sync),
}

impl Default for IndexConfig {
    fn default() -> IndexConfig {
        IndexConfig {
            rebuild: false,
            commit_every: 32,
            acl: Vec::new(),
            meta: Vec::new(),
            hnsw_m: None,
            hnsw_ef_construction: None,
            spelling: &Flags,
        }
    }
}

impl IndexConfig {
    /// The graph settings named, the other one at the default of the store at `location` (an
    /// index directory or a PostgreSQL URL); `None` when neither is named. The error names the
    /// parameter ([`chunklab_index::BadHnsw`], for faces to spell it their way).
    ///
    /// ```
    /// use chunklab_pipeline::indexing::IndexConfig;
    /// let cfg = IndexConfig { hnsw_ef_construction: Some(80), ..IndexConfig::default() };
    /// let s = cfg.hnsw("archief.idx").unwrap().unwrap();
    /// assert_eq!(s.to_string(), "m=16,ef_construction=80");
    /// let m = IndexConfig { hnsw_m: Some(24), ..IndexConfig::default() };
    /// let s = m.hnsw("postgres://localhost/archief").unwrap().unwrap();
    /// assert_eq!(s.to_string(), "m=24,ef_construction=64");
    /// assert_eq!(IndexConfig::default().hnsw("archief.idx").unwrap(), None);
    /// let bad = IndexConfig { hnsw_m: Some(1), ..IndexConfig::default() };
    /// assert!(bad.hnsw("archief.idx").unwrap_err().to_string().starts_with("hnsw_m: 1"));
    /// ```
    pub fn hnsw(&self, location: &str) -> Result<Option<HnswSettings>> {
        let default = match chunklab_postgres::is_postgres_url(location) {
            true => HnswSettings::POSTGRES,
            false => HnswSettings::DIRECTORY,
        };
        HnswSettings::resolve(self.hnsw_m, self.hnsw_ef_construction, default)
            .map_err(anyhow::Error::new)
    }
}
