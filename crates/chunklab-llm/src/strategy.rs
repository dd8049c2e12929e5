//! The `llm` strategy: a language model picks chunk boundaries among numbered candidates
//! (sentence starts from chunklab-core's segmenter). The model never rewrites text, so every
//! chunk is an exact span; pieces over the size limit, and windows whose answer has no usable
//! numbers, are split by the `recursive` strategy instead.

use crate::llm::{full_name, Llm, Prompt};
use chunklab_core::segment::sentences;
use chunklab_core::{strategies, Chunker, Lang, Result, Sizer, Span};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// LLM tokens of candidate text per request.
pub const WINDOW_TOKENS: usize = 1500;

/// Chunks whose boundaries a language model chooses.
pub struct LlmChunker {
    llm: Arc<dyn Llm>,
    sizer: Arc<dyn Sizer>,
    size: usize,
    lang: Lang,
    window_tokens: usize,
    fallback: Box<dyn Chunker>,
    requests: AtomicUsize,
    fallbacks: AtomicUsize,
}

impl LlmChunker {
    /// Chunks of at most `size` in `sizer`'s units, boundaries chosen by `llm`.
    pub fn new(llm: Arc<dyn Llm>, sizer: Arc<dyn Sizer>, size: usize, lang: Lang) -> Result<Self> {
        let fallback = Box::new(strategies::Recursive::new(sizer.clone(), size, 0)?);
        Ok(Self {
            llm,
            sizer,
            size,
            lang,
            window_tokens: WINDOW_TOKENS,
            fallback,
            requests: AtomicUsize::new(0),
            fallbacks: AtomicUsize::new(0),
        })
    }

    /// Requests sent so far and windows that fell back to `recursive` (unusable answer).
    pub fn stats(&self) -> (usize, usize) {
        (
            self.requests.load(Ordering::Relaxed),
            self.fallbacks.load(Ordering::Relaxed),
        )
    }

    /// The boundary prompt for the candidate units `units` of `text`.
    pub fn prompt(&self, text: &str, units: &[(usize, usize)]) -> Prompt {
        let mut list = String::new();
        for (k, &(s, e)) in units.iter().enumerate() {
            let one_line: String = text[s..e].split_whitespace().collect::<Vec<_>>().join(" ");
            list.push_str(&format!("[{}] {one_line}\n", k + 1));
        }
        Prompt {
            system: String::new(),
            shared: format!(
                "The numbered sentences below are consecutive parts of one document.\n\n{list}\n"
            ),
            request: format!(
                "Split the text into coherent sections about one topic each (each at most about {} {}). \
                 List the numbers of the sentences that START a new section, separated by commas. \
                 Answer only with the numbers.",
                self.size,
                self.sizer.name()
            ),
            max_tokens: 64,
        }
    }

    /// Split `text[start..end]` with the fallback strategy, offsets moved to the document.
    fn split(&self, text: &str, start: usize, end: usize, out: &mut Vec<Span>) -> Result<()> {
        let (s, e) = trim(text, start, end);
        if s == e {
            return Ok(());
        }
        let n = self.sizer.count(&text[s..e]);
        if n <= self.size {
            out.push(Span::new(s, e, n));
            return Ok(());
        }
        for sp in self.fallback.spans(&text[s..e])? {
            out.push(Span::new(sp.start + s, sp.end + s, sp.tokens));
        }
        Ok(())
    }
}

/// `start..end` without leading and trailing whitespace.
fn trim(text: &str, start: usize, end: usize) -> (usize, usize) {
    let t = &text[start..end];
    let lead = t.len() - t.trim_start().len();
    let s = start + lead;
    (s, s + t.trim().len())
}

/// Candidate numbers in `answer` that are valid starts (2..=n), sorted; `None` when the answer
/// holds no number at all.
pub fn parse_boundaries(answer: &str, n: usize) -> Option<Vec<usize>> {
    let nums: Vec<usize> = answer
        .split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .filter_map(|t| t.parse().ok())
        .collect();
    if nums.is_empty() {
        return None;
    }
    let mut ok: Vec<usize> = nums.into_iter().filter(|&k| k >= 2 && k <= n).collect();
    ok.sort_unstable();
    ok.dedup();
    Some(ok)
}

impl Chunker for LlmChunker {
    fn strategy(&self) -> &'static str {
        "llm"
    }

    fn config(&self) -> String {
        format!(
            "llm size={} unit={} llm={}",
            self.size,
            self.sizer.name(),
            full_name(self.llm.as_ref())
        )
    }

    fn spans(&self, text: &str) -> Result<Vec<Span>> {
        let units = sentences(text, self.lang);
        let mut out = Vec::new();
        let mut i = 0;
        while i < units.len() {
            // One window: units until the LLM token budget is used (at least one unit).
            let mut j = i;
            let mut used = 0;
            while j < units.len() {
                let t = self.llm.count_tokens(&text[units[j].0..units[j].1]);
                if j > i && used + t > self.window_tokens {
                    break;
                }
                used += t;
                j += 1;
            }
            let window = &units[i..j];
            let (ws, we) = (window[0].0, window[window.len() - 1].1);
            let starts = if window.len() == 1 {
                Some(Vec::new())
            } else {
                self.requests.fetch_add(1, Ordering::Relaxed);
                let answer = self
                    .llm
                    .complete(&self.prompt(text, window))
                    .map_err(|e| chunklab_core::Error::Config(format!("llm strategy: {e}")))?;
                parse_boundaries(&answer.text, window.len())
            };
            match starts {
                Some(starts) => {
                    let mut s = ws;
                    for k in starts {
                        let b = window[k - 1].0;
                        self.split(text, s, b, &mut out)?;
                        s = b;
                    }
                    self.split(text, s, we, &mut out)?;
                }
                None => {
                    self.fallbacks.fetch_add(1, Ordering::Relaxed);
                    self.split(text, ws, we, &mut out)?;
                }
            }
            i = j;
        }
        Ok(out)
    }
}
