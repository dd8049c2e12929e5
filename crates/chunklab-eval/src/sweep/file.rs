//! Sweep TOML files: top-level keys are defaults for every `[[config]]`, any value may be a
//! list (every combination is run); problems come back with their line numbers.

use super::config::{Config, Graph, Mode, Retrieval};
use super::spec::ChunkSpec;
use chunklab_index::HnswSettings;
use std::collections::BTreeMap;

/// Keys a `[[config]]` (or the top level, as a default) may set.
const CHUNK_KEYS: &[&str] = &[
    "strategy",
    "size",
    "overlap",
    "stride",
    "unit",
    "tokenizer",
    "compat",
    "separators",
    "regex_separators",
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
    "context",
    "llm",
];
const RUN_KEYS: &[&str] = &[
    "label",
    "model",
    "models",
    "mode",
    "modes",
    "k",
    "reranker",
    "rerank_top",
    "bm25_weight",
    "dense_weight",
    "merge",
    "depth",
    "ef",
    "hnsw_m",
    "hnsw_ef_construction",
];
/// Keys whose single value is itself a list: a list of lists is the sweep over them.
const LIST_VALUED: &[&str] = &["separators", "levels"];

/// What the command line sets when the sweep file does not.
#[derive(Debug, Clone)]
pub struct SweepDefaults {
    pub model: String,
    pub k: usize,
}

/// Parse a sweep TOML file into configurations. Problems come back as `(line, message)`.
pub fn parse_sweep(
    text: &str,
    defaults: &SweepDefaults,
) -> Result<Vec<Config>, Vec<(usize, String)>> {
    let table: toml::Table = toml::from_str(text).map_err(|e| {
        let line = e.span().map_or(0, |s| {
            text[..s.start.min(text.len())].lines().count().max(1)
        });
        vec![(line, format!("malformed TOML: {}", e.message()))]
    })?;
    let header_lines: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.trim() == "[[config]]")
        .map(|(i, _)| i + 1)
        .collect();
    let key_line = |key: &str, from: usize| -> usize {
        text.lines()
            .enumerate()
            .skip(from.saturating_sub(1))
            .find(|(_, l)| {
                let t = l.trim_start();
                t.strip_prefix(key)
                    .is_some_and(|r| r.trim_start().starts_with('='))
            })
            .map_or(from, |(i, _)| i + 1)
    };
    let mut problems = Vec::new();
    let mut top = BTreeMap::new();
    let mut configs: Vec<(usize, toml::Table)> = Vec::new();
    for (k, v) in table {
        if k == "config" {
            match v {
                toml::Value::Array(items) => {
                    for (i, item) in items.into_iter().enumerate() {
                        let line = header_lines.get(i).copied().unwrap_or(0);
                        match item {
                            toml::Value::Table(t) => configs.push((line, t)),
                            _ => problems.push((line, "`config` must be [[config]] tables".into())),
                        }
                    }
                }
                _ => problems.push((
                    key_line("config", 1),
                    "`config` must be [[config]] tables".into(),
                )),
            }
        } else if CHUNK_KEYS.contains(&k.as_str()) || RUN_KEYS.contains(&k.as_str()) {
            top.insert(k, v);
        } else {
            problems.push((key_line(&k, 1), unknown_key(&k)));
        }
    }
    if configs.is_empty() && problems.is_empty() {
        // Top-level keys are defaults of the tables; a sweep written without one names why.
        let hint = if top.contains_key("strategy") {
            " (top-level keys are defaults for the [[config]] tables: put `[[config]]` above \
             `strategy`)"
        } else {
            ""
        };
        problems.push((
            key_line("strategy", 0),
            format!("no [[config]] tables: nothing to run{hint}"),
        ));
    }
    let mut out = Vec::new();
    for (line, t) in configs {
        let mut merged = top.clone();
        for (k, v) in t {
            if CHUNK_KEYS.contains(&k.as_str()) || RUN_KEYS.contains(&k.as_str()) {
                merged.insert(k, v);
            } else {
                problems.push((key_line(&k, line), unknown_key(&k)));
            }
        }
        if !merged.contains_key("strategy") {
            problems.push((line, "[[config]] without `strategy`".into()));
            continue;
        }
        for combo in expand(&merged) {
            match config_from(&combo, defaults).and_then(|c| {
                match c.first().map(|x| x.chunk.config()) {
                    Some(Err(e)) => {
                        let k = e
                            .strip_prefix('`')
                            .and_then(|r| r.split('`').next())
                            .map(String::from);
                        Err((k, e))
                    }
                    _ => Ok(c),
                }
            }) {
                Ok(mut c) => out.append(&mut c),
                Err((key, msg)) => {
                    let l = key.map_or(line, |k| key_line(&k, line));
                    problems.push((l, msg));
                }
            }
        }
    }
    problems.sort_by_key(|p| p.0);
    problems.dedup();
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn unknown_key(k: &str) -> String {
    format!(
        "unknown key `{k}` (known: {}, {})",
        CHUNK_KEYS.join(", "),
        RUN_KEYS.join(", ")
    )
}

/// Every combination of the list-valued keys (model/models and mode/modes are expanded later).
fn expand(m: &BTreeMap<String, toml::Value>) -> Vec<BTreeMap<String, toml::Value>> {
    let mut out = vec![BTreeMap::new()];
    for (k, v) in m {
        let alternatives: Vec<toml::Value> = match v {
            toml::Value::Array(a)
                if !matches!(k.as_str(), "models" | "modes")
                    && (!LIST_VALUED.contains(&k.as_str())
                        || a.iter().all(|x| matches!(x, toml::Value::Array(_)))) =>
            {
                a.clone()
            }
            other => vec![other.clone()],
        };
        let mut next = Vec::with_capacity(out.len() * alternatives.len());
        for combo in &out {
            for alt in &alternatives {
                let mut c = combo.clone();
                c.insert(k.clone(), alt.clone());
                next.push(c);
            }
        }
        out = next;
    }
    out
}

type KeyErr = (Option<String>, String);

fn config_from(
    m: &BTreeMap<String, toml::Value>,
    d: &SweepDefaults,
) -> Result<Vec<Config>, KeyErr> {
    let err = |k: &str, msg: String| (Some(k.to_string()), msg);
    let string = |k: &str| -> Result<Option<String>, KeyErr> {
        match m.get(k) {
            None => Ok(None),
            Some(toml::Value::String(s)) => Ok(Some(s.clone())),
            Some(v) => Err(err(k, format!("`{k}` must be a string, got {v}"))),
        }
    };
    let uint = |k: &str| -> Result<Option<usize>, KeyErr> {
        match m.get(k) {
            None => Ok(None),
            Some(toml::Value::Integer(i)) if *i >= 0 => Ok(Some(*i as usize)),
            Some(v) => Err(err(
                k,
                format!("`{k}` must be a non-negative integer, got {v}"),
            )),
        }
    };
    let boolean = |k: &str| -> Result<Option<bool>, KeyErr> {
        match m.get(k) {
            None => Ok(None),
            Some(toml::Value::Boolean(b)) => Ok(Some(*b)),
            Some(v) => Err(err(k, format!("`{k}` must be true or false, got {v}"))),
        }
    };
    let strategy = string("strategy")?.unwrap_or_default();
    let mut s = ChunkSpec::new(&strategy, uint("size")?.unwrap_or(512));
    if let Some(u) = string("unit")? {
        if u != "tokens" {
            s.tokenizer = None;
        }
        s.unit = u;
    }
    if let Some(t) = string("tokenizer")? {
        s.unit = "tokens".into();
        s.tokenizer = Some(t);
    }
    s.overlap = uint("overlap")?.unwrap_or(0);
    s.stride = uint("stride")?;
    if let Some(c) = string("compat")? {
        s.compat = c;
    }
    if let Some(v) = m.get("separators") {
        let seps = v
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|x| x.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| {
                err(
                    "separators",
                    "`separators` must be a list of strings".into(),
                )
            })?;
        s.separators = Some(seps);
    }
    s.regex_separators = boolean("regex_separators")?.unwrap_or(false);
    s.max_level = uint("max_level")?.unwrap_or(6);
    s.title_prefix = boolean("title_prefix")?.unwrap_or(false);
    s.merge_siblings = boolean("merge_siblings")?.unwrap_or(false);
    if let Some(l) = string("lang")? {
        s.lang = l;
    }
    s.breakpoint = string("breakpoint")?;
    s.breakpoint_amount = match m.get("breakpoint_amount") {
        None => None,
        Some(toml::Value::Float(f)) => Some(*f),
        Some(toml::Value::Integer(i)) => Some(*i as f64),
        Some(v) => {
            return Err(err(
                "breakpoint_amount",
                format!("`breakpoint_amount` must be a number, got {v}"),
            ))
        }
    };
    s.buffer = uint("buffer")?;
    s.min_size = uint("min_size")?;
    s.piece_size = uint("piece_size")?;
    if let Some(v) = m.get("levels") {
        let lv = v
            .as_array()
            .and_then(|a| {
                a.iter()
                    .map(|x| x.as_integer().filter(|i| *i > 0).map(|i| i as usize))
                    .collect::<Option<Vec<_>>>()
            })
            .ok_or_else(|| {
                err(
                    "levels",
                    "`levels` must be a list of positive integers".into(),
                )
            })?;
        s.levels = Some(lv);
    }
    s.boundaries = string("boundaries")?;
    s.context = string("context")?;
    if let Some(c) = &s.context {
        if c != "header" && c != "llm" {
            return Err(err(
                "context",
                format!("unknown context `{c}` (header, llm)"),
            ));
        }
    }
    s.llm = string("llm")?;
    let reranker = string("reranker")?;
    let k = uint("k")?.unwrap_or(d.k);
    if k == 0 {
        return Err(err("k", "`k` must be at least 1".into()));
    }
    let rerank_top = uint("rerank_top")?.unwrap_or(crate::collection::RERANK_TOP);
    if rerank_top == 0 {
        return Err(err("rerank_top", "`rerank_top` must be at least 1".into()));
    }
    let models = strings(m, "model", "models")?.unwrap_or_else(|| vec![d.model.clone()]);
    let modes = match strings(m, "mode", "modes")? {
        None => vec![Mode::Dense],
        Some(v) => v
            .iter()
            .map(|x| Mode::parse(x))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| {
                (
                    Some(
                        if m.contains_key("modes") {
                            "modes"
                        } else {
                            "mode"
                        }
                        .into(),
                    ),
                    e,
                )
            })?,
    };
    let weight = |k: &str| -> Result<f32, KeyErr> {
        match m.get(k) {
            None => Ok(1.0),
            Some(toml::Value::Float(f)) => Ok(*f as f32),
            Some(toml::Value::Integer(i)) => Ok(*i as f32),
            Some(v) => Err(err(k, format!("`{k}` must be a number, got {v}"))),
        }
    };
    let retrieval = Retrieval {
        bm25_weight: weight("bm25_weight")?,
        dense_weight: weight("dense_weight")?,
        merge: boolean("merge")?.unwrap_or(false),
        depth: uint("depth")?,
        ef: uint("ef")?,
    };
    // Checked as `chunklab search` checks them (hybrid: both weights 0 rank nothing).
    let mut search = retrieval.search_config();
    search.mode = chunklab_index::Mode::Hybrid;
    search
        .validate()
        .map_err(|e| err(e.param, format!("`{}` {}", e.param, e.message)))?;
    if !retrieval.is_default() && modes.contains(&Mode::HybridCv) {
        let key = ["bm25_weight", "dense_weight", "merge", "depth", "ef"]
            .into_iter()
            .find(|k| m.contains_key(*k))
            .unwrap_or("merge");
        return Err(err(
            key,
            format!("mode `hybrid-cv` chooses its own weights over unshaped candidates; `{key}` applies to the other modes (give hybrid-cv a [[config]] of its own)"),
        ));
    }
    let graph = Graph {
        m: uint("hnsw_m")?,
        ef_construction: uint("hnsw_ef_construction")?,
    };
    // Checked against an index directory's default; a PostgreSQL store (`--store`) checks
    // against its own when it builds.
    graph.settings(HnswSettings::DIRECTORY).map_err(|e| {
        let key = e.param();
        // At the line of a key the row gives (`hnsw_m` alone can ask for more than the default
        // ef_construction allows).
        let at = match m.contains_key(key) {
            true => key,
            false => ["hnsw_m", "hnsw_ef_construction"]
                .into_iter()
                .find(|k| m.contains_key(*k))
                .unwrap_or(key),
        };
        err(at, e.spelled(|k| format!("`{k}`")))
    })?;
    let label = string("label")?;
    let mut out = Vec::new();
    for model in &models {
        for &mode in &modes {
            out.push(Config {
                label: label.clone().unwrap_or_else(|| {
                    let mut l = s.label() + &graph.label_suffix() + &retrieval.label_suffix();
                    if mode.rerank() && m.contains_key("rerank_top") {
                        l.push_str(&format!(" top {rerank_top}"));
                    }
                    l
                }),
                chunk: s.clone(),
                model: model.clone(),
                mode,
                k,
                reranker: reranker.clone(),
                rerank_top,
                retrieval,
                graph,
            });
        }
    }
    Ok(out)
}

fn strings(
    m: &BTreeMap<String, toml::Value>,
    one: &str,
    many: &str,
) -> Result<Option<Vec<String>>, KeyErr> {
    let bad = |k: &str| {
        (
            Some(k.to_string()),
            format!("`{k}` must be a string or a list of strings"),
        )
    };
    for k in [one, many] {
        match m.get(k) {
            None => {}
            Some(toml::Value::String(s)) => return Ok(Some(vec![s.clone()])),
            Some(toml::Value::Array(a)) => {
                return a
                    .iter()
                    .map(|x| x.as_str().map(String::from))
                    .collect::<Option<Vec<_>>>()
                    .map(Some)
                    .ok_or_else(|| bad(k))
            }
            Some(_) => return Err(bad(k)),
        }
    }
    Ok(None)
}
