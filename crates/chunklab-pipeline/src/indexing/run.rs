//! The configuration an index was last written with, kept in its settings
//! ([`Settings::run`]) so that the next run can take it instead of repeating every flag:
//! `chunklab index archief/ --index archief.idx` after a build with `--strategy headings --size
//! 512 --unit tokens --model e5-small --lang nl` indexes the new and changed files the same way.

use super::IndexConfig;
use crate::PipelineConfig;
use anyhow::{anyhow, Result};
use chunklab_index::Settings;
use serde::{Deserialize, Serialize};

/// What one run of [`super::IndexBuilder`] was configured with: the pipeline's typed
/// configuration and the access and metadata rules ([`IndexConfig::acl`],
/// [`IndexConfig::meta`]). Stored as JSON in the store's settings by every face that writes an
/// index (the CLI, Python).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IndexRun {
    /// How documents were read, cut and embedded.
    pub pipeline: PipelineConfig,
    /// Access groups, `GLOB=GROUP`.
    pub acl: Vec<String>,
    /// Custom metadata fields, `GLOB=FIELD:VALUE`.
    pub meta: Vec<String>,
}

impl IndexRun {
    /// The run of `pipeline` written with `cfg`.
    pub fn new(pipeline: &PipelineConfig, cfg: &IndexConfig) -> IndexRun {
        IndexRun {
            // Fetching is how the model got here, not how the index was made.
            pipeline: PipelineConfig {
                fetch: false,
                ..pipeline.clone()
            },
            acl: cfg.acl.clone(),
            meta: cfg.meta.clone(),
        }
    }

    /// The run recorded in `settings`: `None` for an index written before runs were recorded
    /// (or by a program that records none).
    pub fn from_settings(settings: &Settings) -> Result<Option<IndexRun>> {
        settings
            .run
            .as_ref()
            .map(|v| {
                serde_json::from_value(v.clone()).map_err(|e| {
                    anyhow!("the configuration recorded in the index is not this chunklab's ({e}); give the chunking flags")
                })
            })
            .transpose()
    }

    /// The run as [`Settings::run`] stores it.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self).expect("a configuration serializes")
    }
}

/// The run the store at `location` (an index directory or a PostgreSQL URL) was last written
/// with; `None` when there is no store there yet or it recorded none.
pub fn stored_run(location: &str) -> Result<Option<IndexRun>> {
    match chunklab_postgres::open::stored_settings(location)? {
        Some(s) => IndexRun::from_settings(&s).map_err(|e| anyhow!("{location}: {e}")),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chunklab_core::{Strategy, Unit};

    #[test]
    fn a_run_round_trips_through_the_settings_json() {
        let mut pipeline = PipelineConfig::default();
        pipeline.chunking.strategy = Strategy::Headings;
        pipeline.chunking.size = 512;
        pipeline.chunking.unit = Some(Unit::Tokens);
        pipeline.model = Some("e5-small".into());
        pipeline.fetch = true;
        let cfg = IndexConfig {
            acl: vec!["geheim/**=team-a".into()],
            ..IndexConfig::default()
        };
        let run = IndexRun::new(&pipeline, &cfg);
        assert!(!run.pipeline.fetch, "fetching is not recorded");
        let json = serde_json::to_string(&run.to_json()).unwrap();
        let settings = Settings {
            chunker: String::new(),
            reading: String::new(),
            unit: String::new(),
            tokenizer: None,
            model: String::new(),
            dim: 0,
            model_max_tokens: 0,
            hnsw: None,
            lang: String::new(),
            run: Some(serde_json::from_str(&json).unwrap()),
        };
        let back = IndexRun::from_settings(&settings).unwrap().unwrap();
        assert_eq!(back, run);
        assert_eq!(back.pipeline.chunking.strategy, Strategy::Headings);

        let foreign = Settings {
            run: Some(serde_json::json!({"pipeline": {"chunking": {"shape": "round"}}})),
            ..settings
        };
        let e = IndexRun::from_settings(&foreign).unwrap_err().to_string();
        assert!(e.contains("give the chunking flags"), "{e}");
        assert!(IndexRun::from_settings(&Settings {
            run: None,
            ..foreign
        })
        .unwrap()
        .is_none());
    }
}
