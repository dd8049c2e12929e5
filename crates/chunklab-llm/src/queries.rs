//! Synthetic evaluation queries: the model reads a passage, writes a question and copies the
//! sentence that answers it; only excerpts found verbatim in the document are kept, with their
//! char span (searching the model's excerpt in the document is the point here). Answers also
//! pass the gates of [`crate::quality::check_query`] (prompt echo, repetition, a copied
//! sentence as the question, length, language); every dropped answer is marked rejected in the
//! answer cache, and [`QueryStats::failure`] says when a run kept too little to be used.

use crate::error::Result;
use crate::llm::{Llm, Prompt};
use crate::quality::{check_query, Rejections};
use chunklab_core::segment::paragraphs;
use chunklab_core::Lang;
use serde::Serialize;
use std::ops::Range;

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
    /// Answers in the format whose question or excerpt failed a quality gate, per reason.
    pub rejected: Rejections,
}

impl QueryStats {
    /// Answers received (kept or dropped for any reason).
    pub fn answers(&self) -> usize {
        self.kept + self.malformed + self.not_found + self.rejected.total()
    }

    /// Why this run is not usable, when it is not: no answer at all, none kept, or fewer kept
    /// than dropped.
    ///
    /// ```
    /// use chunklab_llm::queries::QueryStats;
    /// let s = QueryStats { kept: 0, malformed: 6, not_found: 2, ..Default::default() };
    /// assert!(s.failure().unwrap().starts_with("0 of 8 answers kept"));
    /// assert_eq!(QueryStats { kept: 5, malformed: 5, ..Default::default() }.failure(), None);
    /// ```
    pub fn failure(&self) -> Option<String> {
        let answers = self.answers();
        if answers == 0 {
            return Some("no passage to ask about: the documents hold no text".into());
        }
        if self.kept > 0 && self.kept * 2 >= answers {
            return None;
        }
        Some(format!(
            "{} of {answers} answers kept ({}, {} malformed, {} excerpts not found verbatim, {} rejected: {}); \
             the model does not follow the question format or does not copy its excerpt; a larger model \
             (openai:BASE_URL#MODEL, anthropic:MODEL) does better",
            self.kept,
            if self.kept == 0 { "none usable" } else { "most dropped" },
            self.malformed,
            self.not_found,
            self.rejected.total(),
            self.rejected,
        ))
    }
}

/// `3 kept, 1 dropped (excerpt not found verbatim), 2 dropped (malformed answer), 2 rejected
/// (1 repetition, 1 prompt echo)`.
impl std::fmt::Display for QueryStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} kept, {} dropped (excerpt not found verbatim), {} dropped (malformed answer), {} rejected ({})",
            self.kept,
            self.not_found,
            self.malformed,
            self.rejected.total(),
            self.rejected
        )
    }
}

/// The char span `(start, end)` of `excerpt` in `text`: found verbatim (exact bytes), the
/// occurrence inside `passage` (the byte range the model saw) preferred over an earlier one
/// elsewhere; `None` when the excerpt is not in the text.
///
/// ```
/// use chunklab_llm::queries::locate;
/// let text = "Bomen. Het budget steeg. Bomen.";
/// assert_eq!(locate(text, 20..text.len(), "Bomen."), Some((25, 31)));
/// assert_eq!(locate(text, 0..text.len(), "bomen."), None);
/// ```
pub fn locate(text: &str, passage: Range<usize>, excerpt: &str) -> Option<(usize, usize)> {
    if excerpt.is_empty() {
        return None;
    }
    let (ps, pe) = (passage.start, passage.end.min(text.len()));
    let start = text
        .get(ps..pe)
        .and_then(|p| p.find(excerpt))
        .map(|i| i + ps)
        .or_else(|| text.find(excerpt))?;
    let start_char = text[..start].chars().count();
    Some((start_char, start_char + excerpt.chars().count()))
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
            // Markdown bold and quotes around the value, with or without spaces between.
            let rest = rest
                .strip_prefix(':')?
                .trim_matches(|c: char| c.is_whitespace() || matches!(c, '"' | '“' | '”' | '*'));
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
    let langs: Vec<Option<Lang>> = docs.iter().map(|(_, t)| Lang::detect(t)).collect();
    let mut stats = QueryStats::default();
    let mut out = Vec::new();
    for ((&(d, (ps, pe)), answer), prompt) in picks.iter().zip(answers).zip(&prompts) {
        let answer = answer?;
        let Some((query, excerpt)) = parse_answer(&answer.text) else {
            stats.malformed += 1;
            llm.reject(prompt, "malformed");
            continue;
        };
        let (doc_id, text) = &docs[d];
        if let Err(r) = check_query(&query, &excerpt, &text[ps..pe], &prompt.request, langs[d]) {
            stats.rejected.count(r);
            llm.reject(prompt, r.as_str());
            continue;
        }
        let Some((start_char, end_char)) = locate(text, ps..pe, &excerpt) else {
            stats.not_found += 1;
            llm.reject(prompt, "excerpt not found verbatim");
            continue;
        };
        stats.kept += 1;
        out.push(GeneratedQuery {
            id: format!("q{}", out.len() + 1),
            query,
            doc_id: doc_id.clone(),
            start_char,
            end_char,
        });
    }
    Ok((out, stats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scripted::Scripted;

    const DOC: &str = "The city of Utrecht planted 1,200 trees along the canals in 2023.";
    const BUDGET: &str = "The budget for park maintenance rose by 8 percent to 14 million euros.";

    /// Two documents of one passage each: one request per document.
    fn docs() -> Vec<(String, String)> {
        vec![
            ("parks".to_string(), DOC.to_string()),
            ("budget".to_string(), BUDGET.to_string()),
        ]
    }

    #[test]
    fn parse_answer_reads_the_two_fields() {
        assert_eq!(
            parse_answer("Question: How many trees?\nExcerpt: planted 1,200 trees"),
            Some(("How many trees?".into(), "planted 1,200 trees".into()))
        );
        // Markdown bold, bullets, quotes and text around the fields.
        assert_eq!(
            parse_answer("Sure!\n- **Question**: \"How many trees?\"\n* **Excerpt:** “planted 1,200 trees”\nDone."),
            Some(("How many trees?".into(), "planted 1,200 trees".into()))
        );
        assert_eq!(parse_answer("Question: How many trees?"), None);
        assert_eq!(parse_answer("Excerpt: planted 1,200 trees"), None);
        assert_eq!(
            parse_answer("Question:\nExcerpt: planted"),
            None,
            "an empty field"
        );
        assert_eq!(parse_answer("The city planted 1,200 trees."), None);
        assert_eq!(parse_answer(""), None);
    }

    #[test]
    fn locate_finds_excerpts_verbatim_in_chars() {
        let text = "Één boom. Het budget steeg. Één boom.";
        let second = text.rfind("Één").unwrap();
        // The occurrence in the passage the model saw wins over the first one.
        let (s, e) = locate(text, second..text.len(), "Één boom.").unwrap();
        let chars: Vec<char> = text.chars().collect();
        assert_eq!(chars[s..e].iter().collect::<String>(), "Één boom.");
        assert_eq!(s, text[..second].chars().count());
        // Outside the passage: the first occurrence in the document.
        assert_eq!(locate(text, 10..27, "Één boom."), Some((0, 9)));
        // Not verbatim: other case, other spacing, paraphrase, empty.
        assert_eq!(locate(text, 0..text.len(), "één boom."), None);
        assert_eq!(locate(text, 0..text.len(), "Het  budget"), None);
        assert_eq!(locate(text, 0..text.len(), ""), None);
        // A passage range past the end is clamped, not a panic.
        assert_eq!(locate(text, 0..10_000, "budget"), Some((14, 20)));
    }

    #[test]
    fn generate_keeps_verbatim_excerpts_and_counts_every_drop() {
        let llm = Scripted::answers(&[
            "Question: How many trees did Utrecht plant in 2023?\nExcerpt: planted 1,200 trees along the canals",
            "I cannot answer that.",
        ]);
        let (qs, stats) = generate(&llm, &docs(), 5).unwrap();
        assert_eq!(llm.seen().len(), 2, "one request per passage");
        assert_eq!((stats.kept, stats.malformed, stats.not_found), (1, 1, 0));
        let q = &qs[0];
        assert_eq!(q.id, "q1");
        let excerpt: String = DOC
            .chars()
            .skip(q.start_char)
            .take(q.end_char - q.start_char)
            .collect();
        assert_eq!(excerpt, "planted 1,200 trees along the canals");
        assert_eq!(q.to_json()["relevant_spans"][0]["doc_id"], "parks");
        assert_eq!(llm.reasons(), ["malformed"]);
        assert_eq!(stats.failure(), None, "half kept is usable");
    }

    #[test]
    fn gated_and_unfound_answers_are_dropped_and_rejected_in_the_cache() {
        let llm = Scripted::answers(&[
            "Question: <the question>\nExcerpt: <the sentence copied from the text>",
            "Question: How much did the budget rise?\nExcerpt: rose by 9 percent",
        ]);
        let (qs, stats) = generate(&llm, &docs(), 2).unwrap();
        assert!(qs.is_empty());
        assert_eq!(
            (stats.kept, stats.not_found, stats.rejected.echo_prompt),
            (0, 1, 1)
        );
        assert_eq!(llm.reasons(), ["prompt echo", "excerpt not found verbatim"]);
        let why = stats.failure().unwrap();
        assert!(why.starts_with("0 of 2 answers kept"), "{why}");
        assert!(
            why.contains("1 excerpts not found verbatim") && why.contains("1 prompt echo"),
            "{why}"
        );
        assert_eq!(
            stats.to_string(),
            "0 kept, 1 dropped (excerpt not found verbatim), 0 dropped (malformed answer), 1 rejected (1 prompt echo)"
        );
    }

    #[test]
    fn every_query_gate_drops_its_answer() {
        let cases = [
            ("Question: What? What? What? What? What? What? What? What? What? What?\nExcerpt: planted 1,200 trees", "repetition"),
            ("Question: The city of Utrecht planted 1,200 trees along the canals in 2023.\nExcerpt: planted 1,200 trees", "chunk echo"),
            ("Question: Trees?\nExcerpt: planted 1,200 trees", "length"),
            ("Question: Hoeveel bomen heeft de gemeente geplant?\nExcerpt: planted 1,200 trees", "wrong language"),
        ];
        for (answer, reason) in cases {
            let llm = Scripted::answers(&[answer]);
            let (qs, stats) = generate(&llm, &docs()[..], 1).unwrap();
            assert!(qs.is_empty(), "{answer}");
            assert_eq!(stats.rejected.total(), 1, "{answer}");
            assert_eq!(llm.reasons(), [reason], "{answer}");
            assert!(stats.failure().is_some());
        }
    }

    #[test]
    fn most_rejected_or_nothing_to_ask_is_a_failure() {
        let s = QueryStats {
            kept: 1,
            malformed: 2,
            ..QueryStats::default()
        };
        assert!(s.failure().unwrap().contains("most dropped"));
        let none = generate(
            &Scripted::answers(&[]),
            &[("e".into(), "  \n\n ".into())],
            3,
        )
        .unwrap();
        assert_eq!(none.1.answers(), 0);
        assert!(none.1.failure().unwrap().contains("no passage"));
    }
}
