//! The HNSW graph's shape ([`HnswSettings`]), fixed when a store builds its graph, and the
//! typed error of a shape out of range ([`BadHnsw`]), which each face spells with its own names
//! for the two parameters.

use serde::{Deserialize, Serialize};

/// The shape of an HNSW graph, fixed when the graph is built: what a faster bulk load trades
/// against recall (docs/PERFORMANCE.md, "Index": at 1M items `ef_construction` 80 inserts about
/// 5,000 items/s where 128 inserts 3,159/s, and needs a query `ef` of 192 for recall@10 0.98).
///
/// ```
/// use chunklab_index::HnswSettings;
/// let s: HnswSettings = "m=16,ef_construction=80".parse().unwrap();
/// assert_eq!((s.m, s.ef_construction), (16, 80));
/// assert_eq!(s.to_string(), "m=16,ef_construction=80");
/// assert!(HnswSettings::new(1, 80).is_err());
/// ```
#[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct HnswSettings {
    /// Links per node on the upper levels (the base level keeps `2 * m`): 2 to 100.
    pub m: usize,
    /// Candidate list size while inserting: 4 to 1,000, at least `2 * m`.
    pub ef_construction: usize,
}

impl HnswSettings {
    /// An index directory's default: `m = 16, ef_construction = 128` (recall@10 0.994 at 1M
    /// items with the default query `ef` of 128).
    pub const DIRECTORY: HnswSettings = HnswSettings {
        m: 16,
        ef_construction: 128,
    };

    /// A PostgreSQL store's default: pgvector's `m = 16, ef_construction = 64`.
    pub const POSTGRES: HnswSettings = HnswSettings {
        m: 16,
        ef_construction: 64,
    };

    /// Checked settings; the error names the parameter (`hnsw_m`, `hnsw_ef_construction`). The
    /// bounds are pgvector's, so that one setting suits both stores.
    pub fn new(m: usize, ef_construction: usize) -> Result<HnswSettings, BadHnsw> {
        if !(2..=100).contains(&m) {
            return Err(BadHnsw::M(m));
        }
        if !(4..=1000).contains(&ef_construction) || ef_construction < 2 * m {
            return Err(BadHnsw::EfConstruction { ef_construction, m });
        }
        Ok(HnswSettings { m, ef_construction })
    }

    /// The settings a run names, the unnamed one taken from the store's `default`; `None` when
    /// it names neither (the store keeps what it has, or its default). Checked as [`Self::new`].
    ///
    /// ```
    /// use chunklab_index::HnswSettings;
    /// let s = HnswSettings::resolve(None, Some(80), HnswSettings::DIRECTORY).unwrap();
    /// assert_eq!(s, Some(HnswSettings { m: 16, ef_construction: 80 }));
    /// assert_eq!(HnswSettings::resolve(None, None, HnswSettings::POSTGRES), Ok(None));
    /// assert!(HnswSettings::resolve(Some(48), None, HnswSettings::POSTGRES).is_err());
    /// ```
    pub fn resolve(
        m: Option<usize>,
        ef_construction: Option<usize>,
        default: HnswSettings,
    ) -> Result<Option<HnswSettings>, BadHnsw> {
        if m.is_none() && ef_construction.is_none() {
            return Ok(None);
        }
        HnswSettings::new(
            m.unwrap_or(default.m),
            ef_construction.unwrap_or(default.ef_construction),
        )
        .map(Some)
    }
}

impl std::fmt::Display for HnswSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "m={},ef_construction={}", self.m, self.ef_construction)
    }
}

impl std::str::FromStr for HnswSettings {
    type Err = String;

    /// `m=M,ef_construction=E` (the [`Display`](std::fmt::Display) form), both keys given.
    fn from_str(text: &str) -> Result<HnswSettings, String> {
        let (mut m, mut ef) = (None, None);
        for part in text.split(',') {
            let (key, value) = part.split_once('=').ok_or_else(|| {
                format!("hnsw: {part:?} is not KEY=VALUE (m=16,ef_construction=128)")
            })?;
            let value: usize = value
                .trim()
                .parse()
                .map_err(|_| format!("hnsw: {key}={value:?} is not a whole number"))?;
            match key.trim() {
                "m" => m = Some(value),
                "ef_construction" => ef = Some(value),
                other => return Err(format!("hnsw: unknown key {other:?} (m, ef_construction)")),
            }
        }
        match (m, ef) {
            (Some(m), Some(ef)) => HnswSettings::new(m, ef).map_err(|e| e.to_string()),
            _ => Err("hnsw: give both m and ef_construction (m=16,ef_construction=128)".into()),
        }
    }
}

/// Graph settings out of range (the bounds are pgvector's). Displayed with the configuration
/// keys (`hnsw_m: 1 (must be 2 to 100)`); [`BadHnsw::spelled`] names them as a face does.
///
/// ```
/// use chunklab_index::{BadHnsw, HnswSettings};
/// let e = HnswSettings::new(32, 40).unwrap_err();
/// assert_eq!(e, BadHnsw::EfConstruction { ef_construction: 40, m: 32 });
/// assert_eq!(e.param(), "hnsw_ef_construction");
/// assert_eq!(
///     e.to_string(),
///     "hnsw_ef_construction: 40 (must be 4 to 1000 and at least twice hnsw_m, 64)"
/// );
/// let flags = e.spelled(|key| format!("--{}", key.replace('_', "-")));
/// assert_eq!(
///     flags,
///     "--hnsw-ef-construction: 40 (must be 4 to 1000 and at least twice --hnsw-m, 64)"
/// );
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BadHnsw {
    /// `hnsw_m` is not 2 to 100.
    M(usize),
    /// `hnsw_ef_construction` is not 4 to 1,000, or less than twice `hnsw_m` (`m`).
    EfConstruction {
        /// The value asked.
        ef_construction: usize,
        /// The `hnsw_m` it goes with.
        m: usize,
    },
}

impl BadHnsw {
    /// The configuration key that is out of range: `hnsw_m` or `hnsw_ef_construction`.
    pub fn param(&self) -> &'static str {
        match self {
            BadHnsw::M(_) => "hnsw_m",
            BadHnsw::EfConstruction { .. } => "hnsw_ef_construction",
        }
    }

    /// The message with every key spelled by `name` (`--hnsw-m` for the command line, a sweep
    /// file's `` `hnsw_m` ``).
    pub fn spelled(&self, name: impl Fn(&'static str) -> String) -> String {
        match *self {
            BadHnsw::M(m) => format!("{}: {m} (must be 2 to 100)", name("hnsw_m")),
            BadHnsw::EfConstruction { ef_construction, m } => format!(
                "{}: {ef_construction} (must be 4 to 1000 and at least twice {}, {})",
                name("hnsw_ef_construction"),
                name("hnsw_m"),
                2 * m
            ),
        }
    }
}

impl std::fmt::Display for BadHnsw {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.spelled(str::to_string))
    }
}

impl std::error::Error for BadHnsw {}
