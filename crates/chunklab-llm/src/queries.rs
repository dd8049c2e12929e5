//! Synthetic evaluation queries: the model reads a passage, writes a question and copies the
//! sentence that answers it; only excerpts found verbatim in the document are kept, with their
//! char span (searching the model's excerpt in the document is the point here).

use crate::error::Result;
use crate::llm::{Llm, Prompt};
use chunklab_core::segment::paragraphs;
use serde::Serialize;

/// Passage size sent per question, in LLM tokens.
pub const PASSAGE_TOKENS: usize = 400;

/// One kept query with the char span of its supporting excerpt.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct GeneratedQuery {
    /// `q1`, `q2`, ... in generation order.
    pub id: String,
    /// The question.
    pub query: String,
    /// Document the excerpt is in.
    pub doc_id: String,
    /// Char offsets of the excerpt in the document.
    pub start_char: usize,
    /// End char offset (exclusive).
    pub end_char: usize,
}

impl GeneratedQuery {
    /// The JSONL record: `{"id","query","relevant_docs","relevant_spans"}`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "id": self.id,
            "query": self.query,
            "relevant_docs": [self.doc_id],
            "relevant_spans": [{"doc_id": self.doc_id, "start_char": self.start_char, "end_char": self.end_char}],
        })
    }
}

/// How many generated queries were kept and why the others were dropped.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct QueryStats {
    /// Queries whose excerpt was found verbatim.
    pub kept: usize,
    /// Answers without a `Question:` and an `Excerpt:` line.
    pub malformed: usize,
    /// Excerpts not found verbatim in the document.
    pub not_found: usize,
}

/// Passages of `text` (byte ranges) of up to about `PASSAGE_TOKENS` tokens: paragraphs joined.
fn passages(llm: &dyn Llm, text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut cur: Option<(usize, usize, usize)> = None;
    for (s, e) in paragraphs(text) {
        if text[s..e].trim().is_empty() {
            continue;
        }
        let t = llm.count_tokens(&text[s..e]);
        cur = match cur {
            Some((cs, _, ct)) if ct + t <= PASSAGE_TOKENS => Some((cs, e, ct + t)),
            Some((cs, ce, _)) => {
                out.push((cs, ce));
                Some((s, e, t))
            }
            None => Some((s, e, t)),
        };
    }
    out.extend(cur.map(|(s, e, _)| (s, e)));
    out
}

/// The question prompt for one passage.
pub fn prompt(passage: &str) -> Prompt {
    Prompt {
        system: String::new(),
        shared: format!("<text>\n{}\n</text>\n", passage.trim()),
        request: "Write one question a reader could ask that this text answers, and copy the one \
                  sentence from the text that answers it, word for word.\nAnswer in exactly this format:\n\
                  Question: <the question>\nExcerpt: <the sentence copied from the text>"
            .into(),
        max_tokens: 120,
    }
}

/// `(question, excerpt)` from an answer in the prompt's format.
pub fn parse_answer(answer: &str) -> Option<(String, String)> {
    let field = |name: &str| {
        answer.lines().find_map(|l| {
            let l = l.trim().trim_start_matches(['*', '-', ' ']);
            let rest = l.strip_prefix(name)?.trim_start_matches(['*', ' ']);
            let rest = rest
                .strip_prefix(':')?
                .trim()
                .trim_matches(['"', '“', '”', '*'])
                .trim();
            (!rest.is_empty()).then(|| rest.to_string())
        })
    };
    Some((field("Question")?, field("Excerpt")?))
}

/// Up to `n` queries over `docs` (`(doc_id, text)`): passages are taken round-robin over the
/// documents (first passage of every document, then the second, ...), one request each.
pub fn generate(
    llm: &dyn Llm,
    docs: &[(String, String)],
    n: usize,
) -> Result<(Vec<GeneratedQuery>, QueryStats)> {
    let per_doc: Vec<Vec<(usize, usize)>> = docs.iter().map(|(_, t)| passages(llm, t)).collect();
    let mut picks = Vec::new();
    let longest = per_doc.iter().map(Vec::len).max().unwrap_or(0);
    'outer: for k in 0..longest {
        for (d, ps) in per_doc.iter().enumerate() {
            if picks.len() == n {
                break 'outer;
            }
            if let Some(&p) = ps.get(k) {
                picks.push((d, p));
            }
        }
    }
    let prompts: Vec<Prompt> = picks
        .iter()
        .map(|&(d, (s, e))| prompt(&docs[d].1[s..e]))
        .collect();
    let answers = llm.complete_all(&prompts);
    let mut stats = QueryStats::default();
    let mut out = Vec::new();
    for (&(d, (ps, pe)), answer) in picks.iter().zip(answers) {
        let answer = answer?;
        let Some((query, excerpt)) = parse_answer(&answer.text) else {
            stats.malformed += 1;
            continue;
        };
        let (doc_id, text) = &docs[d];
        // Prefer the occurrence inside the passage the model saw.
        let at = text[ps..pe]
            .find(&excerpt)
            .map(|i| i + ps)
            .or_else(|| text.find(&excerpt));
        let Some(start) = at else {
            stats.not_found += 1;
            continue;
        };
        let start_char = text[..start].chars().count();
        stats.kept += 1;
        out.push(GeneratedQuery {
            id: format!("q{}", out.len() + 1),
            query,
            doc_id: doc_id.clone(),
            start_char,
            end_char: start_char + excerpt.chars().count(),
        });
    }
    Ok((out, stats))
}
