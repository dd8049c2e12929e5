//! Why a store refuses a run: the settings it was built with that the run asks otherwise
//! ([`Mismatch`], one [`Difference`] per setting), and where ([`Refusal`]). Typed, so that each
//! face says what to do in its own words (the command line's `--rebuild`, Python's
//! `rebuild=True`) and can tell which settings differ without reading the message.

/// One setting a store holds that a run asks otherwise.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// The setting: `chunker`, `reading`, `unit`, `tokenizer`, `model`, `dim`, `lang` or `hnsw`.
    pub setting: &'static str,
    /// What the store holds.
    pub stored: String,
    /// What the run asks.
    pub asked: String,
}

/// The settings a run asks that a store holds otherwise (at least one), in the order of
/// [`crate::Settings`]' fields. Displayed as `model: index has `minilm`, this run has
/// `e5-small``, joined by `; `.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch(pub Vec<Difference>);

impl Mismatch {
    /// Whether `setting` is the only one that differs.
    ///
    /// ```
    /// use chunklab_index::{HnswSettings, Settings};
    /// let built = Settings {
    ///     chunker: "fixed size=512".into(),
    ///     reading: String::new(),
    ///     unit: "cl100k".into(),
    ///     tokenizer: None,
    ///     model: "minilm".into(),
    ///     dim: 384,
    ///     model_max_tokens: 256,
    ///     lang: "auto".into(),
    ///     hnsw: Some(HnswSettings::DIRECTORY),
    ///     run: None,
    /// };
    /// let asked = Settings { hnsw: Some(HnswSettings::new(16, 80).unwrap()), ..built.clone() };
    /// let why = built.mismatch(&asked).unwrap();
    /// assert!(why.only("hnsw"));
    /// assert_eq!(
    ///     why.to_string(),
    ///     "hnsw: index has `m=16,ef_construction=128`, this run has `m=16,ef_construction=80`"
    /// );
    /// ```
    pub fn only(&self, setting: &str) -> bool {
        matches!(&self.0[..], [d] if d.setting == setting)
    }
}

impl std::fmt::Display for Mismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(
                f,
                "{}: index has `{}`, this run has `{}`",
                d.setting, d.stored, d.asked
            )?;
        }
        Ok(())
    }
}

/// Which kind of store refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StoreKind {
    /// An index directory.
    Directory,
    /// A PostgreSQL store.
    Postgres,
}

/// A store's refusal of a run whose settings differ from the ones it was built with. Displayed
/// with the command line's remedy; other faces build their own message from the fields.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// The index directory or the PostgreSQL store (as shown: no password).
    pub location: String,
    /// What differs.
    pub mismatch: Mismatch,
    /// The kind of store.
    pub store: StoreKind,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Refusal {
            location,
            mismatch,
            store,
        } = self;
        match store {
            StoreKind::Directory => write!(
                f,
                "{location}: the index was built with other settings ({mismatch}); use a new --index directory, or --rebuild to re-index everything with the new settings"
            ),
            StoreKind::Postgres => write!(
                f,
                "{location}: {mismatch}; index again with --rebuild to replace everything"
            ),
        }
    }
}
