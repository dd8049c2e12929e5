//! Quality gates for model answers: a small local model loops ("Django 1.11.23 release notes\n\n
//! Django 1.11.22 release notes\n\n…"), copies the chunk or the prompt back, answers in the wrong
//! language or rambles. Each gate names its [`Reject`] reason; callers count them in
//! [`Rejections`], never cache a rejected answer as a good one ([`crate::Llm::reject`]) and fall
//! back (contexts: the header context) or drop the answer (queries).

use chunklab_core::Lang;
use serde::Serialize;
use std::collections::{HashMap, HashSet};

/// Why an answer was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub enum Reject {
    /// No letter or digit at all.
    Empty,
    /// A repetition loop: the same line or phrase over and over.
    Repetition,
    /// A copy of the chunk (contexts) or of the passage (questions) instead of an answer.
    EchoChunk,
    /// The prompt's instructions, markup or placeholders, or a long copy of the document.
    EchoPrompt,
    /// Not in the document's language (Dutch or English, [`Lang::detect`]).
    Language,
    /// Too short or too long.
    Length,
}

impl Reject {
    /// Short name used in summaries and in the answer cache.
    pub fn as_str(self) -> &'static str {
        match self {
            Reject::Empty => "empty",
            Reject::Repetition => "repetition",
            Reject::EchoChunk => "chunk echo",
            Reject::EchoPrompt => "prompt echo",
            Reject::Language => "wrong language",
            Reject::Length => "length",
        }
    }
}

impl std::fmt::Display for Reject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Rejected answers per reason.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Rejections {
    /// [`Reject::Empty`].
    pub empty: usize,
    /// [`Reject::Repetition`].
    pub repetition: usize,
    /// [`Reject::EchoChunk`].
    pub echo_chunk: usize,
    /// [`Reject::EchoPrompt`].
    pub echo_prompt: usize,
    /// [`Reject::Language`].
    pub language: usize,
    /// [`Reject::Length`].
    pub length: usize,
}

impl Rejections {
    /// Count one rejection.
    pub fn count(&mut self, r: Reject) {
        *match r {
            Reject::Empty => &mut self.empty,
            Reject::Repetition => &mut self.repetition,
            Reject::EchoChunk => &mut self.echo_chunk,
            Reject::EchoPrompt => &mut self.echo_prompt,
            Reject::Language => &mut self.language,
            Reject::Length => &mut self.length,
        } += 1;
    }

    /// Add `o` to `self`.
    pub fn add(&mut self, o: &Rejections) {
        self.empty += o.empty;
        self.repetition += o.repetition;
        self.echo_chunk += o.echo_chunk;
        self.echo_prompt += o.echo_prompt;
        self.language += o.language;
        self.length += o.length;
    }

    /// All rejections.
    pub fn total(&self) -> usize {
        self.per_reason().iter().map(|(_, n)| n).sum()
    }

    /// `(reason, count)` for every reason, in a fixed order.
    pub fn per_reason(&self) -> [(Reject, usize); 6] {
        [
            (Reject::Empty, self.empty),
            (Reject::Repetition, self.repetition),
            (Reject::EchoChunk, self.echo_chunk),
            (Reject::EchoPrompt, self.echo_prompt),
            (Reject::Language, self.language),
            (Reject::Length, self.length),
        ]
    }
}

/// `2 repetition, 1 chunk echo` (reasons with a count only), or `none`.
impl std::fmt::Display for Rejections {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = self
            .per_reason()
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(r, n)| format!("{n} {r}"))
            .collect();
        if parts.is_empty() {
            f.write_str("none")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

/// Words of `text` for comparisons: lowercased, outer punctuation stripped, digits folded to `0`
/// (so "1.11.23" and "1.11.22" are the same word in a loop).
pub(crate) fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .chars()
                .map(|c| if c.is_ascii_digit() { '0' } else { c })
                .flat_map(char::to_lowercase)
                .collect::<String>()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Word n-grams of `words`, joined by a space.
fn ngrams(words: &[String], n: usize) -> impl Iterator<Item = String> + '_ {
    words.windows(n).map(|w| w.join(" "))
}

/// Word 4-grams of a text (hashed), for echo checks against it.
#[derive(Clone, Debug, Default)]
pub struct Ngrams(HashSet<u64>);

/// A fixed-key hash of an n-gram (deterministic across runs).
fn gram_hash(g: &[String]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    g.hash(&mut h);
    h.finish()
}

impl Ngrams {
    /// The 4-grams of `text`.
    pub fn of(text: &str) -> Self {
        Ngrams(words(text).windows(ECHO_N).map(gram_hash).collect())
    }

    /// Share of the 4-grams of `answer` (its [`words`]) found in `self`; 0 when it has none.
    fn share(&self, answer: &[String]) -> f64 {
        let total = answer.len().saturating_sub(ECHO_N - 1);
        if total == 0 {
            return 0.0;
        }
        let hits = answer
            .windows(ECHO_N)
            .filter(|g| self.0.contains(&gram_hash(g)))
            .count();
        hits as f64 / total as f64
    }
}

/// n of the n-grams compared for echoes.
const ECHO_N: usize = 4;

/// Whether `text` is a repetition loop: a line of three or more words twice, any line three
/// times, a word trigram four times, or fewer than half of its (ten or more) trigrams distinct.
///
/// ```
/// use chunklab_llm::quality::is_loop;
/// assert!(is_loop("Django 1.11.23 release notes\n\nDjango 1.11.22 release notes\n\nDjango 1.11.21"));
/// assert!(!is_loop("The 2023 annual report of Utrecht, section on park maintenance."));
/// ```
pub fn is_loop(text: &str) -> bool {
    let mut lines: HashMap<String, usize> = HashMap::new();
    for l in text.lines() {
        let w = words(l);
        if w.is_empty() {
            continue;
        }
        let n = lines.entry(w.join(" ")).or_default();
        *n += 1;
        if *n >= 3 || (*n >= 2 && w.len() >= 3) {
            return true;
        }
    }
    let w = words(text);
    let mut grams: HashMap<String, usize> = HashMap::new();
    let mut total = 0;
    for g in ngrams(&w, 3) {
        total += 1;
        let n = grams.entry(g).or_default();
        *n += 1;
        if *n >= 4 {
            return true;
        }
    }
    total >= 10 && grams.len() * 2 < total
}

/// The language of `text` as far as it shows ([`Lang::detect`]).
pub fn language(text: &str) -> Option<Lang> {
    Lang::detect(text)
}

/// Whether `answer` is in another language than `doc_lang` (`None`: not checked). Only clear
/// evidence counts: more function words of the other language than of the document's.
fn wrong_language(answer: &str, doc_lang: Option<Lang>) -> bool {
    match (doc_lang, language(answer)) {
        (Some(d), Some(a)) => d != a,
        _ => false,
    }
}

/// Markup and placeholders of our prompts that never belong in an answer.
const PROMPT_MARKERS: [&str; 8] = [
    "<document>",
    "</document>",
    "<chunk>",
    "</chunk>",
    "<text>",
    "</text>",
    "<the question>",
    "<the sentence",
];

fn has_prompt_marker(answer: &str) -> bool {
    let lower = answer.to_lowercase();
    PROMPT_MARKERS.iter().any(|m| lower.contains(m))
}

/// Limits of the context gates.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ContextGates {
    /// Fewest words of a context.
    pub min_words: usize,
    /// Most words of a context ("short succinct context").
    pub max_words: usize,
    /// Check the language against the document's.
    pub language: bool,
}

impl Default for ContextGates {
    fn default() -> Self {
        Self {
            min_words: 2,
            max_words: 60,
            language: true,
        }
    }
}

/// What a context is checked against: the prompt's own text and the document (built once per
/// document, see [`ContextCheck::new`]).
pub struct ContextCheck {
    gates: ContextGates,
    instructions: Ngrams,
    document: Ngrams,
    doc_lang: Option<Lang>,
}

impl ContextCheck {
    /// Checks for contexts of `doc` asked with the instruction text `instructions` (the template
    /// without the document and the chunk).
    pub fn new(gates: ContextGates, instructions: &str, doc: &str) -> Self {
        Self {
            gates,
            instructions: Ngrams::of(instructions),
            document: Ngrams::of(doc),
            doc_lang: if gates.language { language(doc) } else { None },
        }
    }

    /// The cleaned context (trimmed, outer quotes removed), or why `answer` is no context for
    /// `chunk`.
    ///
    /// ```
    /// use chunklab_llm::quality::{ContextCheck, ContextGates, Reject};
    /// let doc = "# Parks\n\nThe city planted 1,200 trees along the canals in 2023.";
    /// let check = ContextCheck::new(ContextGates::default(), "Situate this chunk.", doc);
    /// let chunk = "The city planted 1,200 trees along the canals in 2023.";
    /// assert_eq!(check.check("Parks section of the annual report.", chunk).unwrap(),
    ///            "Parks section of the annual report.");
    /// assert_eq!(check.check(chunk, chunk), Err(Reject::EchoChunk));
    /// ```
    pub fn check(&self, answer: &str, chunk: &str) -> Result<String, Reject> {
        let t = answer.trim().trim_matches('"').trim();
        if !t.chars().any(char::is_alphanumeric) {
            return Err(Reject::Empty);
        }
        let w = words(t);
        if has_prompt_marker(t) || self.instructions.share(&w) >= 0.5 {
            return Err(Reject::EchoPrompt);
        }
        if is_loop(t) {
            return Err(Reject::Repetition);
        }
        if w.len() > ECHO_N + 1 && Ngrams::of(chunk).share(&w) >= 0.6 {
            return Err(Reject::EchoChunk);
        }
        if w.len() >= 12 && self.document.share(&w) >= 0.8 {
            return Err(Reject::EchoPrompt);
        }
        if w.len() < self.gates.min_words || w.len() > self.gates.max_words {
            return Err(Reject::Length);
        }
        if wrong_language(t, self.doc_lang) {
            return Err(Reject::Language);
        }
        Ok(t.to_string())
    }

    /// The document's language, when it shows.
    pub fn doc_lang(&self) -> Option<Lang> {
        self.doc_lang
    }
}

/// Whether a generated question and its excerpt are usable for `passage` (the text the model
/// saw, in a document of language `doc_lang`; `instructions` is the prompt's request). The
/// verbatim check of the excerpt is separate (`queries::locate`).
///
/// ```
/// use chunklab_llm::quality::{check_query, Reject};
/// let passage = "The city planted 1,200 trees along the canals in 2023.";
/// assert!(check_query("How many trees did the city plant?", "The city planted 1,200 trees", passage, "", None).is_ok());
/// assert_eq!(check_query("<the question>", "The city planted", passage, "", None), Err(Reject::EchoPrompt));
/// ```
pub fn check_query(
    question: &str,
    excerpt: &str,
    passage: &str,
    instructions: &str,
    doc_lang: Option<Lang>,
) -> Result<(), Reject> {
    let (q, e) = (words(question), words(excerpt));
    if q.is_empty() || e.is_empty() {
        return Err(Reject::Empty);
    }
    if has_prompt_marker(question)
        || has_prompt_marker(excerpt)
        || Ngrams::of(instructions).share(&q) >= 0.5
    {
        return Err(Reject::EchoPrompt);
    }
    if is_loop(question) || is_loop(excerpt) {
        return Err(Reject::Repetition);
    }
    // A sentence of the passage copied as the "question", or the question copied as the excerpt.
    if q == e || (q.len() > ECHO_N && Ngrams::of(passage).share(&q) >= 0.8) {
        return Err(Reject::EchoChunk);
    }
    if !(3..=40).contains(&q.len()) || e.len() < 3 {
        return Err(Reject::Length);
    }
    if wrong_language(question, doc_lang) {
        return Err(Reject::Language);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC_EN: &str =
        "# Parks\n\nThe city of Utrecht planted 1,200 trees along the canals in 2023. \
                          The budget for the maintenance of the parks rose to 14 million euros.";
    const CHUNK: &str = "The city of Utrecht planted 1,200 trees along the canals in 2023.";
    const INSTRUCTIONS: &str = "<document>\n\n</document>\nHere is the chunk we want to situate \
        within the whole document\n<chunk>\n\n</chunk>\nPlease give a short succinct context to \
        situate this chunk within the overall document for the purposes of improving search \
        retrieval of the chunk. Answer only with the succinct context and nothing else.";

    fn check(doc: &str) -> ContextCheck {
        ContextCheck::new(ContextGates::default(), INSTRUCTIONS, doc)
    }

    #[test]
    fn a_good_context_passes_cleaned() {
        let c = check(DOC_EN);
        assert_eq!(
            c.check(
                "  \"From the parks section of Utrecht's 2023 report.\" ",
                CHUNK
            ),
            Ok("From the parks section of Utrecht's 2023 report.".into())
        );
    }

    #[test]
    fn empty_and_punctuation_only_answers_are_empty() {
        for a in ["", "   ", "...", "\"\""] {
            assert_eq!(check(DOC_EN).check(a, CHUNK), Err(Reject::Empty), "{a:?}");
        }
    }

    #[test]
    fn repetition_loops_are_caught() {
        let django = "Django 1.11.23 release notes\n\nDjango 1.11.22 release notes\n\n\
                      Django 1.11.21 release notes\n\nDjango 1.11.20 release notes";
        assert_eq!(check(DOC_EN).check(django, CHUNK), Err(Reject::Repetition));
        // Within one line, too: a phrase over and over.
        let phrase = "the parks budget of the city, the parks budget of the city, the parks budget of the city, the parks budget";
        assert_eq!(check(DOC_EN).check(phrase, CHUNK), Err(Reject::Repetition));
        assert!(is_loop("a a a\na a a\na a a"));
        assert!(!is_loop("Parks section.\nBudget section."));
        assert!(!is_loop(
            "This chunk describes the trees planted along the canals in 2023, part of the parks chapter of the annual report."
        ));
    }

    #[test]
    fn a_copy_of_the_chunk_is_an_echo() {
        let c = check(DOC_EN);
        assert_eq!(c.check(CHUNK, CHUNK), Err(Reject::EchoChunk));
        // Most of it copied, a few words added.
        let a = format!("Context: {CHUNK}");
        assert_eq!(c.check(&a, CHUNK), Err(Reject::EchoChunk));
        // Reusing a few of the chunk's words is fine.
        assert!(c
            .check("Trees planted along the canals, parks chapter.", CHUNK)
            .is_ok());
    }

    #[test]
    fn the_prompt_markup_or_instructions_are_an_echo() {
        let c = check(DOC_EN);
        assert_eq!(
            c.check("<chunk>The city planted trees</chunk>", CHUNK),
            Err(Reject::EchoPrompt)
        );
        assert_eq!(
            c.check(
                "Please give a short succinct context to situate this chunk within the overall document",
                CHUNK
            ),
            Err(Reject::EchoPrompt)
        );
        // A long copy of another part of the document.
        let other = "The budget for the maintenance of the parks rose to 14 million euros.";
        assert_eq!(c.check(other, CHUNK), Err(Reject::EchoPrompt));
    }

    #[test]
    fn too_short_and_too_long_contexts_are_length() {
        let c = check(DOC_EN);
        assert_eq!(c.check("Parks", CHUNK), Err(Reject::Length));
        let long = (0..70)
            .map(|i| format!("word{}", (b'a' + (i % 26) as u8) as char).repeat(1 + i / 26))
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(c.check(&long, CHUNK), Err(Reject::Length));
    }

    #[test]
    fn an_answer_in_the_other_language_is_rejected() {
        let nl = "# Parken\n\nDe gemeente plantte 1.200 bomen langs de grachten. Het budget voor \
                  het onderhoud van de parken steeg naar 14 miljoen euro.";
        let c = check(nl);
        assert_eq!(c.doc_lang(), Some(Lang::Dutch));
        assert_eq!(
            c.check(
                "This chunk is about the trees of the city.",
                "De gemeente plantte bomen."
            ),
            Err(Reject::Language)
        );
        assert!(c
            .check(
                "Dit deel gaat over de bomen van de gemeente.",
                "De gemeente plantte bomen."
            )
            .is_ok());
        // No evidence either way (a title) is not a wrong language.
        assert!(c
            .check("Jaarverslag 2023, Parken", "De gemeente plantte bomen.")
            .is_ok());
        // The gate can be turned off.
        let off = ContextCheck::new(
            ContextGates {
                language: false,
                ..ContextGates::default()
            },
            INSTRUCTIONS,
            nl,
        );
        assert!(off
            .check(
                "This chunk is about the trees of the city.",
                "De gemeente plantte bomen."
            )
            .is_ok());
    }

    #[test]
    fn query_gates() {
        let p = CHUNK;
        let ok = check_query(
            "How many trees did Utrecht plant?",
            "planted 1,200 trees",
            p,
            "",
            None,
        );
        assert_eq!(ok, Ok(()));
        assert_eq!(
            check_query(
                "<the question>",
                "<the sentence copied from the text>",
                p,
                "",
                None
            ),
            Err(Reject::EchoPrompt)
        );
        let instr = "Write one question a reader could ask that this text answers";
        assert_eq!(
            check_query(
                "Write one question a reader could ask",
                "planted 1,200 trees",
                p,
                instr,
                None
            ),
            Err(Reject::EchoPrompt)
        );
        assert_eq!(
            check_query(
                "What? What? What? What? What? What? What? What? What? What? What? What?",
                "planted 1,200 trees",
                p,
                "",
                None
            ),
            Err(Reject::Repetition)
        );
        assert_eq!(
            check_query(CHUNK, "planted 1,200 trees", p, "", None),
            Err(Reject::EchoChunk)
        );
        assert_eq!(
            check_query("How many trees?", "How many trees?", p, "", None),
            Err(Reject::EchoChunk)
        );
        assert_eq!(
            check_query("Trees?", "planted 1,200 trees", p, "", None),
            Err(Reject::Length)
        );
        assert_eq!(
            check_query("How many trees were planted?", "1,200", p, "", None),
            Err(Reject::Length)
        );
        assert_eq!(
            check_query(
                "Hoeveel bomen heeft de gemeente geplant?",
                "planted 1,200 trees",
                p,
                "",
                Some(Lang::English)
            ),
            Err(Reject::Language)
        );
        assert_eq!(check_query("", "x y z", p, "", None), Err(Reject::Empty));
    }

    #[test]
    fn rejections_count_per_reason_and_print_only_nonzero_reasons() {
        let mut r = Rejections::default();
        assert_eq!(r.to_string(), "none");
        r.count(Reject::Repetition);
        r.count(Reject::Repetition);
        r.count(Reject::EchoChunk);
        let mut total = Rejections::default();
        total.add(&r);
        total.add(&r);
        assert_eq!(total.total(), 6);
        assert_eq!(r.to_string(), "2 repetition, 1 chunk echo");
    }
}
