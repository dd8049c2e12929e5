//! The named values of the configuration: every enum reads with `FromStr`, prints with
//! `Display` and (de)serializes with serde under the same names, in every face.

use crate::lang::Lang;
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
