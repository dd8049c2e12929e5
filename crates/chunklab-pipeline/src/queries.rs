//! Synthetic evaluation queries over a corpus: every text file under the paths is read and
//! decoded, and the language model asks one question per passage whose supporting excerpt must
//! be found verbatim ([`chunklab_llm::queries::generate`]). `chunklab queries generate` and the
//! Python package's `queries_generate` call [`generate_queries`].

use crate::input::{self, Decoding, Filters};
use crate::{open_llm, LlmConfig};
use anyhow::{Context as _, Result};
use chunklab_llm::queries::{GeneratedQuery, QueryStats};

/// What [`generate_queries`] made.
pub struct Generated {
    /// The kept queries (`q1`, `q2`, ...), with their supporting spans.
    pub queries: Vec<GeneratedQuery>,
    /// Kept, dropped and rejected answers.
    pub stats: QueryStats,
    /// Files that were skipped (unreadable, binary or not text), one line each.
    pub warnings: Vec<String>,
    /// The language model's full name and what it cost (`local:smollm2: 3 calls, ...`).
    pub usage: String,
}

impl Generated {
    /// Why the run counts as failed (nothing kept, or fewer kept than dropped), or `None`.
    pub fn failure(&self) -> Option<String> {
        self.stats.failure()
    }
}

/// Ask the language model `llm` names (fetching a missing known local model with `fetch`)
/// for up to `n` queries over the text files under `paths`.
pub fn generate_queries(
    paths: &[String],
    llm: &LlmConfig,
    fetch: bool,
    n: usize,
) -> Result<Generated> {
    let llm = open_llm(llm, fetch)?.context(
        "queries generate needs an llm (local:smollm2, openai:BASE_URL#MODEL or anthropic:MODEL)",
    )?;
    let inputs = input::collect(paths, &Filters::new(&[], &[])?)?;
    let decoding = Decoding::new(None, false)?;
    let mut docs = Vec::new();
    let mut warnings = Vec::new();
    for inp in &inputs {
        let raw = match input::read(inp) {
            Ok(r) => r,
            Err(_) => {
                warnings.push(format!("{}: skipped (unreadable or binary)", inp.source()));
                continue;
            }
        };
        match input::decode(&inp.source(), raw, &decoding) {
            Ok(t) => docs.push((inp.doc_id().to_string(), t.as_str().to_string())),
            Err(_) => warnings.push(format!("{}: skipped (not text)", inp.source())),
        }
    }
    let (queries, stats) = chunklab_llm::queries::generate(llm.as_ref(), &docs, n)?;
    Ok(Generated {
        queries,
        stats,
        warnings,
        usage: format!("{}: {}", chunklab_llm::full_name(llm.as_ref()), llm.usage()),
    })
}
