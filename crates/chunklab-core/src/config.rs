//! The one typed chunking configuration: every face (command-line flags, sweep TOML, the
//! server's JSON bodies, Python keyword arguments) maps onto [`ChunkConfig`] and nothing else
//! parses strategy names, units or modes. Values parse with [`FromStr`] and (de)serialize with
//! serde under the same names; [`ChunkConfig::validate`] checks everything that can be checked
//! before a text is read, and its errors name the parameter ([`Error::Param`]) — a face adds its
//! own spelling (`--overlap`, `"overlap"`, `overlap=`).
//!
//! ```
//! use chunklab_core::config::{ChunkConfig, Strategy};
//!
//! let cfg: ChunkConfig = serde_json::from_str(r#"{"strategy": "sentence", "size": 300, "overlap": 1}"#).unwrap();
//! assert_eq!(cfg.strategy, Strategy::Sentence);
//! cfg.validate().unwrap();
//! // A parameter the strategy does not take is an error that names the strategies taking it.
//! let bad = ChunkConfig { strategy: Strategy::Headings, overlap: 50, ..ChunkConfig::default() };
//! let e = bad.validate().unwrap_err().to_string();
//! assert!(e.contains("overlap") && e.contains("recursive"), "{e}");
//! ```

mod names;

pub use names::{Breakpoint, Compat, KeepSeparator, Strategy, Unit};

use crate::error::{Error, Result};
use crate::lang::Lang;
use crate::strategies::catalog::catalog;
use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Everything that decides how a document is cut (and nothing about reading, models or
/// retrieval). Unset optional values take the strategy's defaults.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ChunkConfig {
    /// The strategy.
    pub strategy: Strategy,
    /// Hard maximum per chunk, in `unit`.
    pub size: usize,
    /// Overlap: units for `fixed`/`recursive`, sentences for `sentence`, paragraphs for
    /// `paragraph`.
    pub overlap: usize,
    /// `sliding`: units the window moves (default half the size).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stride: Option<usize>,
    /// Size unit; unset: chars, or tokens when a `tokenizer` (or a model) is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unit: Option<Unit>,
    /// Tokenizer of `unit = tokens`: `cl100k`, `o200k` or a tokenizer.json path / model
    /// directory (unset: cl100k, or the model's own tokenizer when a model is given).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokenizer: Option<String>,
    /// Count the special tokens a Hugging Face model adds toward the size.
    pub count_special: bool,
    /// `recursive`/`fixed`: native, or LangChain's own output.
    pub compat: Compat,
    /// `recursive`: separators, highest level first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub separators: Option<Vec<String>>,
    /// `recursive`: the separators are regular expressions.
    pub regex_separators: bool,
    /// `recursive`: where a cut separator goes.
    pub keep_separator: KeepSeparator,
    /// `headings`/`elements`: deepest heading level that starts a chunk.
    pub max_level: usize,
    /// `headings`/`elements`/`code`: prefix each chunk with its heading (or symbol) path,
    /// counted in the size.
    pub title_prefix: bool,
    /// `headings`: merge sibling sections up to the size (default: one section per chunk,
    /// small neighbours merged only under the same heading path).
    pub merge_siblings: bool,
    /// Sentence rules and abbreviations.
    pub lang: Lang,
    /// `semantic`: how neighbour distances become breakpoints.
    pub breakpoint: Breakpoint,
    /// `semantic`: the breakpoint amount (percentile for percentile/gradient, multiplier for
    /// stddev/interquartile; unset: the method's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub breakpoint_amount: Option<f64>,
    /// `semantic`: sentences on each side embedded with a sentence.
    pub buffer: usize,
    /// `semantic`: smaller groups are merged into a neighbour while the size holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_size: Option<usize>,
    /// `cluster`: size of the pieces that are grouped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub piece_size: Option<usize>,
    /// `hierarchical`: limit of each level, largest first (replaces `size`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub levels: Option<Vec<usize>>,
    /// `late`: the strategy that draws the boundaries (default recursive).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub boundaries: Option<Strategy>,
    /// `late`: tokens per macro window (default and maximum: the model's context).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_window: Option<usize>,
    /// `late`: tokens neighbouring macro windows share (default an eighth of the window).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub late_overlap: Option<usize>,
}

impl Default for ChunkConfig {
    fn default() -> Self {
        ChunkConfig {
            strategy: Strategy::Recursive,
            size: 1000,
            overlap: 0,
            stride: None,
            unit: None,
            tokenizer: None,
            count_special: false,
            compat: Compat::Native,
            separators: None,
            regex_separators: false,
            keep_separator: KeepSeparator::Start,
            max_level: 6,
            title_prefix: false,
            merge_siblings: false,
            lang: Lang::Auto,
            breakpoint: Breakpoint::Percentile,
            breakpoint_amount: None,
            buffer: 1,
            min_size: None,
            piece_size: None,
            levels: None,
            boundaries: None,
            late_window: None,
            late_overlap: None,
        }
    }
}

/// Every key of [`ChunkConfig`], as faces spell them (flags add `--` and use `-`).
pub const KEYS: &[&str] = &[
    "strategy",
    "size",
    "overlap",
    "stride",
    "unit",
    "tokenizer",
    "count_special",
    "compat",
    "separators",
    "regex_separators",
    "keep_separator",
    "max_level",
    "title_prefix",
    "merge_siblings",
    "lang",
    "breakpoint",
    "breakpoint_amount",
    "buffer",
    "min_size",
    "piece_size",
    "levels",
    "boundaries",
    "late_window",
    "late_overlap",
];

/// Keys every strategy takes.
const UNIVERSAL: &[&str] = &["strategy", "unit", "tokenizer", "count_special", "lang"];

fn param(param: &'static str, message: impl Into<String>) -> Error {
    Error::Param {
        param,
        message: message.into(),
    }
}

impl ChunkConfig {
    /// A configuration of `strategy` at `size` with every other value at its default.
    pub fn new(strategy: Strategy, size: usize) -> Self {
        ChunkConfig {
            strategy,
            size,
            ..ChunkConfig::default()
        }
    }

    /// The strategy whose parameters apply: the `boundaries` of `late`, else the strategy.
    pub fn cutting_strategy(&self) -> Strategy {
        match self.strategy {
            Strategy::Late => self.boundaries.unwrap_or(Strategy::Recursive),
            s => s,
        }
    }

    /// The keys set to something other than their default.
    pub fn set_keys(&self) -> Vec<&'static str> {
        let d = ChunkConfig::default();
        let mut out = Vec::new();
        let mut check = |k: &'static str, set: bool| {
            if set {
                out.push(k)
            }
        };
        check("overlap", self.overlap != d.overlap);
        check("stride", self.stride.is_some());
        check("compat", self.compat != d.compat);
        check("separators", self.separators.is_some());
        check("regex_separators", self.regex_separators);
        check("keep_separator", self.keep_separator != d.keep_separator);
        check("max_level", self.max_level != d.max_level);
        check("title_prefix", self.title_prefix);
        check("merge_siblings", self.merge_siblings);
        check("breakpoint", self.breakpoint != d.breakpoint);
        check("breakpoint_amount", self.breakpoint_amount.is_some());
        check("buffer", self.buffer != d.buffer);
        check("min_size", self.min_size.is_some());
        check("piece_size", self.piece_size.is_some());
        check("levels", self.levels.is_some());
        check("boundaries", self.boundaries.is_some());
        check("late_window", self.late_window.is_some());
        check("late_overlap", self.late_overlap.is_some());
        out
    }

    /// Check everything that can be checked before a text is read: parameters the strategy
    /// does not take, values out of range, combinations that contradict each other. Strategy
    /// constructors check the rest (e.g. a size too small for the sizer).
    pub fn validate(&self) -> Result<()> {
        let cutting = self.cutting_strategy();
        let cat = catalog();
        let takes = |s: Strategy, key: &str| {
            UNIVERSAL.contains(&key)
                || cat
                    .iter()
                    .find(|i| i.name == s.name())
                    .is_some_and(|i| i.params.iter().any(|p| p.name == key))
        };
        for key in self.set_keys() {
            let late_key = matches!(key, "boundaries" | "late_window" | "late_overlap");
            let ok = if late_key {
                self.strategy == Strategy::Late
            } else {
                takes(cutting, key)
                    || (self.strategy == Strategy::Late && takes(Strategy::Late, key))
            };
            if !ok {
                let takers: Vec<&str> = Strategy::ALL
                    .iter()
                    .filter(|s| takes(**s, key))
                    .map(|s| s.name())
                    .collect();
                let what = if cutting == self.strategy {
                    format!("`{}`", self.strategy)
                } else {
                    format!("`late` with boundaries `{cutting}`")
                };
                return Err(param(
                    key,
                    format!(
                        "does not apply to strategy {what}; it applies to: {}",
                        takers.join(", ")
                    ),
                ));
            }
        }
        if self.strategy == Strategy::Late && self.boundaries == Some(Strategy::Late) {
            return Err(param(
                "boundaries",
                "`late` cannot draw its own boundaries: choose another strategy (recursive, \
                 headings, sentence, paragraph, fixed, elements, ...)",
            ));
        }
        if self.size == 0 && cutting != Strategy::Hierarchical {
            return Err(param("size", "must be at least 1"));
        }
        // Windows measured in the size's units: checked here too, so a sweep row or a request
        // is refused before anything is read.
        match cutting {
            Strategy::Recursive | Strategy::Fixed => {
                crate::strategies::fixed::validate(self.size, self.overlap)?
            }
            Strategy::Sliding => crate::strategies::sliding::check_stride(
                self.size,
                self.stride
                    .unwrap_or(crate::strategies::sliding::default_stride(self.size)),
            )?,
            _ => {}
        }
        if self.tokenizer.is_some() && matches!(self.unit, Some(Unit::Chars | Unit::Words)) {
            return Err(param(
                "tokenizer",
                format!("applies to unit tokens, not unit {}", self.unit.unwrap()),
            ));
        }
        if self.regex_separators && self.separators.is_none() && self.compat != Compat::LangChain {
            return Err(param("regex_separators", "needs separators"));
        }
        if let Some(seps) = &self.separators {
            if seps.is_empty() {
                return Err(param(
                    "separators",
                    "is an empty list; give at least one separator (\"\" = chars), or leave it \
                     unset for the built-in ones",
                ));
            }
        }
        if let Some(levels) = &self.levels {
            if levels.is_empty() {
                return Err(param("levels", "needs at least one level"));
            }
        }
        Ok(())
    }

    /// A short human label: `recursive 250/125 cl100k`.
    pub fn label(&self) -> String {
        let mut l = match self.strategy {
            Strategy::Late => format!("late({})", self.cutting_strategy()),
            s => s.to_string(),
        };
        match &self.levels {
            Some(levels) if self.cutting_strategy() == Strategy::Hierarchical => {
                let lv: Vec<String> = levels.iter().map(|x| x.to_string()).collect();
                l.push_str(&format!(" {}", lv.join("/")));
            }
            _ if self.overlap > 0 => l.push_str(&format!(" {}/{}", self.size, self.overlap)),
            _ => l.push_str(&format!(" {}", self.size)),
        }
        if let Some(st) = self.stride {
            l.push_str(&format!(" stride {st}"));
        }
        if self.compat != Compat::Native {
            l.push_str(&format!(" {}", self.compat));
        }
        if self.separators.is_some() {
            l.push_str(" custom-seps");
        }
        l
    }
}

impl FromStr for ChunkConfig {
    type Err = Error;
    /// `key=value` pairs separated by whitespace or `;` (`strategy=sentence size=300 overlap=1`);
    /// list values as JSON (`levels=[1024,256]`).
    fn from_str(s: &str) -> Result<Self> {
        let mut map = serde_json::Map::new();
        for pair in s
            .split([' ', '\t', '\n', ';'])
            .filter(|p| !p.trim().is_empty())
        {
            let (k, v) = pair.split_once('=').ok_or_else(|| {
                Error::Config(format!(
                    "`{pair}` is not key=value (keys: {})",
                    KEYS.join(", ")
                ))
            })?;
            let v = v.trim();
            let value = serde_json::from_str::<serde_json::Value>(v)
                .ok()
                .filter(|j| !j.is_string())
                .unwrap_or_else(|| serde_json::Value::String(v.to_string()));
            map.insert(k.trim().to_string(), value);
        }
        let cfg: ChunkConfig = serde_json::from_value(serde_json::Value::Object(map))
            .map_err(|e| Error::Config(e.to_string()))?;
        cfg.validate()?;
        Ok(cfg)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_from_str_display_and_serde() {
        for s in Strategy::ALL {
            assert_eq!(s.name().parse::<Strategy>().unwrap(), s);
            let js = serde_json::to_string(&s).unwrap();
            assert_eq!(serde_json::from_str::<Strategy>(&js).unwrap(), s);
        }
        assert!("nope"
            .parse::<Strategy>()
            .unwrap_err()
            .contains("recursive"));
        assert_eq!(
            "none".parse::<KeepSeparator>().unwrap(),
            KeepSeparator::Drop
        );
        assert_eq!(KeepSeparator::Drop.to_string(), "none");
    }

    #[test]
    fn a_parameter_a_strategy_does_not_take_is_an_error_naming_the_takers() {
        for (cfg, key) in [
            (
                ChunkConfig {
                    strategy: Strategy::Headings,
                    overlap: 50,
                    ..Default::default()
                },
                "overlap",
            ),
            (
                ChunkConfig {
                    strategy: Strategy::Fixed,
                    title_prefix: true,
                    ..Default::default()
                },
                "title_prefix",
            ),
            (
                ChunkConfig {
                    strategy: Strategy::Sentence,
                    stride: Some(20),
                    ..Default::default()
                },
                "stride",
            ),
        ] {
            match cfg.validate() {
                Err(Error::Param { param, message }) => {
                    assert_eq!(param, key);
                    assert!(message.contains("applies to"), "{message}");
                }
                other => panic!("{key}: {other:?}"),
            }
        }
        // `late` takes its boundaries' parameters.
        let late = ChunkConfig {
            strategy: Strategy::Late,
            boundaries: Some(Strategy::Headings),
            title_prefix: true,
            late_window: Some(256),
            ..Default::default()
        };
        late.validate().unwrap();
        let not_late = ChunkConfig {
            late_window: Some(256),
            ..Default::default()
        };
        assert!(not_late.validate().is_err());
    }

    #[test]
    fn parses_from_key_value_text_and_json() {
        let c: ChunkConfig = "strategy=hierarchical levels=[1024,256] unit=words"
            .parse()
            .unwrap();
        assert_eq!(c.levels, Some(vec![1024, 256]));
        assert_eq!(c.unit, Some(Unit::Words));
        let e = "strategy=sentence sise=3"
            .parse::<ChunkConfig>()
            .unwrap_err();
        assert!(e.to_string().contains("sise"), "{e}");
        let js = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<ChunkConfig>(&js).unwrap(), c);
        let e = "strategy=recursive separators=[]"
            .parse::<ChunkConfig>()
            .unwrap_err();
        assert!(
            matches!(
                e,
                Error::Param {
                    param: "separators",
                    ..
                }
            ),
            "{e}"
        );
    }
}
