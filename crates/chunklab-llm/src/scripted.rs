//! A scripted [`Llm`] for unit tests: canned answers chosen by a function of the prompt, every
//! prompt and every rejection recorded.

use crate::error::Result;
use crate::llm::{Completion, Llm, Prompt, Usage};
use std::sync::Mutex;

type Script = Box<dyn Fn(&Prompt, usize) -> String + Send + Sync>;

/// Answers `script(prompt, n)` where `n` counts the requests so far (0-based); one token per
/// whitespace-separated word.
pub(crate) struct Scripted {
    script: Script,
    context: usize,
    pub(crate) prompts: Mutex<Vec<Prompt>>,
    pub(crate) rejected: Mutex<Vec<(Prompt, String)>>,
}

impl Scripted {
    /// A model answering with `script`.
    pub(crate) fn new(script: impl Fn(&Prompt, usize) -> String + Send + Sync + 'static) -> Self {
        Self {
            script: Box::new(script),
            context: 100_000,
            prompts: Mutex::new(Vec::new()),
            rejected: Mutex::new(Vec::new()),
        }
    }

    /// A model giving `answers` in order, then empty answers.
    pub(crate) fn answers(answers: &[&str]) -> Self {
        let answers: Vec<String> = answers.iter().map(|a| a.to_string()).collect();
        Self::new(move |_, n| answers.get(n).cloned().unwrap_or_default())
    }

    /// Requests seen so far.
    pub(crate) fn seen(&self) -> Vec<Prompt> {
        self.prompts.lock().unwrap().clone()
    }

    /// Rejection reasons reported so far.
    pub(crate) fn reasons(&self) -> Vec<String> {
        self.rejected
            .lock()
            .unwrap()
            .iter()
            .map(|(_, r)| r.clone())
            .collect()
    }
}

impl Llm for Scripted {
    fn backend(&self) -> &str {
        "scripted"
    }

    fn model(&self) -> &str {
        "test"
    }

    fn context_tokens(&self) -> usize {
        self.context
    }

    fn count_tokens(&self, text: &str) -> usize {
        text.split_whitespace().count()
    }

    fn complete(&self, prompt: &Prompt) -> Result<Completion> {
        let mut seen = self.prompts.lock().unwrap();
        let text = (self.script)(prompt, seen.len());
        seen.push(prompt.clone());
        Ok(Completion {
            usage: Usage {
                calls: 1,
                output_tokens: self.count_tokens(&text) as u64,
                ..Usage::default()
            },
            text,
        })
    }

    fn reject(&self, prompt: &Prompt, reason: &str) {
        self.rejected
            .lock()
            .unwrap()
            .push((prompt.clone(), reason.to_string()));
    }
}
