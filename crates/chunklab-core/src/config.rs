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

use crate::error::{Error, Result};
use crate::lang::Lang;
use crate::strategies::catalog::catalog;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Implements `Display`, `Serialize` and `Deserialize` through the type's name strings, so a
/// value reads and writes the same in flags, TOML, JSON and Python.
macro_rules! named_enum {
    ($t:ty) => {
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.name())
            }
        }
        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                s.serialize_str(self.name())
            }
        }
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(
                d: D,
            ) -> std::result::Result<Self, D::Error> {
                let s = String::deserialize(d)?;
                s.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

/// Output compatibility mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compat {
    /// chunklab semantics: exact spans, real-count size guarantee.
    #[default]
    Native,
    /// Reproduce LangChain's splitters' chunk texts (`RecursiveCharacterTextSplitter`,
    /// `TokenTextSplitter`).
    LangChain,
}

/// Where a separator that a recursive split cuts at goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeepSeparator {
    /// Attached to the start of the following piece (LangChain's `keep_separator=True`/`"start"`).
    #[default]
    Start,
    /// Attached to the end of the preceding piece (`keep_separator="end"`).
    End,
    /// Dropped from the pieces (`keep_separator=False`); LangChain then re-joins pieces with the
    /// separator, chunklab keeps the original text between them.
    Drop,
}

/// How distances between neighbouring sentences become breakpoints (LangChain's
/// `SemanticChunker` `breakpoint_threshold_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Breakpoint {
    /// Distances above the `amount`-th percentile.
    #[default]
    Percentile,
    /// Distances above mean + `amount` standard deviations.
    StdDev,
    /// Distances above mean + `amount` interquartile ranges.
    Interquartile,
    /// Distances whose gradient is above its `amount`-th percentile.
    Gradient,
}

impl Breakpoint {
    /// The name used on the command line and in the config.
    pub fn name(self) -> &'static str {
        match self {
            Breakpoint::Percentile => "percentile",
            Breakpoint::StdDev => "stddev",
            Breakpoint::Interquartile => "interquartile",
            Breakpoint::Gradient => "gradient",
        }
    }

    /// LangChain's default amount: 95, 3, 1.5, 95.
    pub fn default_amount(self) -> f64 {
        match self {
            Breakpoint::Percentile | Breakpoint::Gradient => 95.0,
            Breakpoint::StdDev => 3.0,
            Breakpoint::Interquartile => 1.5,
        }
    }
}

impl FromStr for Breakpoint {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Ok(match s {
            "percentile" => Breakpoint::Percentile,
            "stddev" | "standard_deviation" | "standard-deviation" => Breakpoint::StdDev,
            "interquartile" => Breakpoint::Interquartile,
            "gradient" => Breakpoint::Gradient,
            other => {
                return Err(format!(
                    "unknown breakpoint `{other}` (percentile, stddev, interquartile, gradient)"
                ))
            }
        })
    }
}

/// A chunking strategy (one file each under [`crate::strategies`]; `late` and `llm` are built
/// outside the core, by the crates that own their models).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub enum Strategy {
    /// Consecutive windows of `size` units.
    Fixed,
    /// A window moving `stride` units at a time.
    Sliding,
    /// Whole sentences packed up to the size.
    Sentence,
    /// Whole paragraphs packed up to the size.
    Paragraph,
    /// Recursive separators (LangChain-compatible with `compat = langchain`).
    #[default]
    Recursive,
    /// Sections at headings with their heading path.
    Headings,
    /// Whole elements (tables, lists, code) packed up to the size.
    Elements,
    /// Source code by syntax tree.
    Code,
    /// Cut where neighbouring sentences' meaning changes (needs a model).
    Semantic,
    /// Pieces grouped to maximise similarity (needs a model).
    Cluster,
    /// Parent/child levels.
    Hierarchical,
    /// Late chunking: the `boundaries` strategy's chunks, pooled from whole-document token
    /// vectors (needs a model).
    Late,
    /// A language model picks boundaries (needs an LLM).
    Llm,
}

impl Strategy {
    /// Every strategy, in catalog order.
    pub const ALL: [Strategy; 13] = [
        Strategy::Recursive,
        Strategy::Fixed,
        Strategy::Sliding,
        Strategy::Sentence,
        Strategy::Paragraph,
        Strategy::Headings,
        Strategy::Elements,
        Strategy::Code,
        Strategy::Semantic,
        Strategy::Cluster,
        Strategy::Hierarchical,
        Strategy::Late,
        Strategy::Llm,
    ];

    /// The name used in every face.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::Fixed => "fixed",
            Strategy::Sliding => "sliding",
            Strategy::Sentence => "sentence",
            Strategy::Paragraph => "paragraph",
            Strategy::Recursive => "recursive",
            Strategy::Headings => "headings",
            Strategy::Elements => "elements",
            Strategy::Code => "code",
            Strategy::Semantic => "semantic",
            Strategy::Cluster => "cluster",
            Strategy::Hierarchical => "hierarchical",
            Strategy::Late => "late",
            Strategy::Llm => "llm",
        }
    }

    /// Whether chunking needs an embedding model (`semantic`, `cluster`, `late`).
    pub fn needs_model(self) -> bool {
        matches!(
            self,
            Strategy::Semantic | Strategy::Cluster | Strategy::Late
        )
    }
}

impl FromStr for Strategy {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Strategy::ALL
            .into_iter()
            .find(|x| x.name() == s)
            .ok_or_else(|| {
                let known: Vec<&str> = Strategy::ALL.iter().map(|x| x.name()).collect();
                format!("unknown strategy `{s}`; known: {}", known.join(", "))
            })
    }
}
named_enum!(Strategy);

/// The unit sizes are given in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Unit {
    /// Unicode scalar values.
    Chars,
    /// Whitespace-separated words.
    Words,
    /// Tokens of a real tokenizer (`tokenizer`: cl100k, o200k, a tokenizer.json, or the model's).
    Tokens,
}

impl Unit {
    /// The name used in every face.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Chars => "chars",
            Unit::Words => "words",
            Unit::Tokens => "tokens",
        }
    }
}

impl FromStr for Unit {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "chars" | "char" | "characters" => Ok(Unit::Chars),
            "words" | "word" => Ok(Unit::Words),
            "tokens" | "token" => Ok(Unit::Tokens),
            other => Err(format!("unknown unit `{other}` (chars, words, tokens)")),
        }
    }
}
named_enum!(Unit);

impl Compat {
    /// The name used in every face.
    pub fn name(self) -> &'static str {
        match self {
            Compat::Native => "native",
            Compat::LangChain => "langchain",
        }
    }
}

impl FromStr for Compat {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "native" => Ok(Compat::Native),
            "langchain" => Ok(Compat::LangChain),
            other => Err(format!("unknown compat `{other}` (native, langchain)")),
        }
    }
}
named_enum!(Compat);

impl KeepSeparator {
    /// The name used in every face.
    pub fn name(self) -> &'static str {
        match self {
            KeepSeparator::Start => "start",
            KeepSeparator::End => "end",
            KeepSeparator::Drop => "none",
        }
    }
}

impl FromStr for KeepSeparator {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "start" => Ok(KeepSeparator::Start),
            "end" => Ok(KeepSeparator::End),
            "none" | "false" => Ok(KeepSeparator::Drop),
            other => Err(format!(
                "unknown keep_separator `{other}` (start, end, none)"
            )),
        }
    }
}
named_enum!(KeepSeparator);
named_enum!(Breakpoint);

impl Lang {
    /// The name used in every face (`en`, `nl`, `auto`).
    pub fn name(self) -> &'static str {
        self.code()
    }
}
named_enum!(Lang);

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
