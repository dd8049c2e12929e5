//! The language a corpus reads as, judged from a few of its documents: how a new index chooses
//! its embedding model when the run names neither the model nor the language (`--lang auto`,
//! the default). A Dutch archive indexed without `--lang nl` would otherwise embed with the
//! English MiniLM, which finds 7.8 % of the relevant text dense where e5-small finds 61.8 %
//! ([`super::default_model`]) — and re-embedding 92k documents to fix it costs hours.

use crate::{Input, Pipeline, Prepared};
use chunklab_core::Lang;
use rayon::prelude::*;
use std::path::PathBuf;

/// Documents read to judge a corpus (evenly spread over its inputs, so the same inputs give the
/// same judgement).
pub const SAMPLE_DOCS: usize = 8;

/// Sampled documents whose text is longer (bytes) are not kept for indexing: up to
/// [`SAMPLE_DOCS`] of them would be held until their turn.
const KEEP_BELOW: usize = 16 << 20;

/// What a new index is about to hold, to judge its language by.
#[derive(Debug, Clone, Copy)]
pub enum Sample<'a> {
    /// Nothing is known yet.
    Unknown,
    /// The inputs of the files and directories to index.
    Inputs(&'a [Input]),
    /// One text to index.
    Text(&'a str),
}

/// How a sample of a corpus reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CorpusLang {
    /// Documents read whose language could be told.
    pub read: usize,
    /// Of those, the ones that read as Dutch.
    pub dutch: usize,
}

impl CorpusLang {
    /// The corpus reads as Dutch: at least three quarters of the documents read are Dutch. A
    /// mixed corpus keeps the run's default model (and the index warns about its Dutch
    /// documents): e5-small reads both languages but embeds at half MiniLM's speed with 3.6×
    /// its memory, a trade for the user to make.
    pub fn is_dutch(&self) -> bool {
        self.read > 0 && self.dutch * 4 >= self.read * 3
    }
}

/// Read up to [`SAMPLE_DOCS`] documents of `sample` as `pipeline` reads them (parsed, OCR'd
/// when the reading options say so) and count which read as Dutch ([`Lang::detect`]: function
/// words in the first 64 KiB). A document that cannot be read is left out here; indexing
/// reports it.
///
/// ```
/// use chunklab_pipeline::indexing::{corpus_lang, Sample};
/// use chunklab_pipeline::{Pipeline, PipelineConfig};
/// let p = Pipeline::new(PipelineConfig::default()).unwrap();
/// let c = corpus_lang(&p, Sample::Text("De raad heeft de motie over windenergie aangenomen."));
/// assert!(c.is_dutch() && c.read == 1);
/// assert!(!corpus_lang(&p, Sample::Text("The council passed the motion.")).is_dutch());
/// ```
pub fn corpus_lang(pipeline: &Pipeline, sample: Sample<'_>) -> CorpusLang {
    read_sample(pipeline, sample).0
}

/// [`corpus_lang`], and the documents it read, by path, as indexing reads them: the builder
/// indexes these from this reading, so a sampled scan is not OCR'd twice. Read on all cores.
pub(super) fn read_sample(
    pipeline: &Pipeline,
    sample: Sample<'_>,
) -> (CorpusLang, Vec<(PathBuf, Prepared)>) {
    let mut c = CorpusLang::default();
    let mut count = |lang: Option<Lang>| {
        if let Some(lang) = lang {
            c.read += 1;
            c.dutch += (lang == Lang::Dutch) as usize;
        }
    };
    let mut read = Vec::new();
    match sample {
        Sample::Unknown => {}
        Sample::Text(text) => count(Lang::detect(text)),
        Sample::Inputs(inputs) => {
            let n = inputs.len().min(SAMPLE_DOCS);
            let picked: Vec<&Input> = (0..n)
                .map(|i| &inputs[i * inputs.len() / n])
                // Stdin is read once, by indexing (which refuses it).
                .filter(|input| !matches!(input, Input::Stdin))
                .collect();
            read = picked
                .par_iter()
                .filter_map(|input| {
                    let prepared = pipeline.prepare(input, false).ok()?;
                    Some((input.path().to_path_buf(), prepared))
                })
                .collect();
            for (_, prepared) in &read {
                count(Lang::detect(prepared.text()));
            }
            // A big document is read again in its turn rather than held through the run.
            read.retain(|(_, prepared)| prepared.text().len() <= KEEP_BELOW);
        }
    }
    (c, read)
}

#[cfg(test)]
mod tests {
    use super::CorpusLang;
    use crate::indexing::{IndexBuilder, IndexConfig, Sample};
    use crate::{Pipeline, PipelineConfig};
    use std::sync::Arc;

    /// The documents read to judge the corpus are indexed from that reading (none is read
    /// twice), and give the chunks a run that reads them once gives.
    #[test]
    fn sampled_documents_are_indexed_from_their_first_reading() {
        let dir = tempfile::tempdir().unwrap();
        let docs = dir.path().join("archief");
        std::fs::create_dir(&docs).unwrap();
        for i in 0..3 {
            std::fs::write(
                docs.join(format!("motie-{i}.txt")),
                format!("De raad heeft de motie {i} over windenergie aangenomen. Het college wordt verzocht om de windmolens langs de dijk te plaatsen en de inwoners daarbij te betrekken.\n\nDe motie is met een grote meerderheid van de stemmen aangenomen.\n"),
            )
            .unwrap();
        }
        let run = |model: Option<&str>, idx: &str| {
            let pipeline = Arc::new(
                Pipeline::new(PipelineConfig {
                    model: model.map(String::from),
                    ..PipelineConfig::default()
                })
                .unwrap(),
            );
            let inputs = pipeline.collect(&[docs.display().to_string()]).unwrap();
            let loc = dir.path().join(idx).display().to_string();
            let sample = Sample::Inputs(&inputs);
            let mut b =
                IndexBuilder::create_for(&loc, pipeline.clone(), &IndexConfig::default(), sample)
                    .unwrap();
            let sampled = b.sampled.len();
            let s = b.add_inputs(inputs, false, &mut |_| {}).unwrap();
            assert!(b.sampled.is_empty());
            assert_eq!((s.added, s.failed), (3, 0));
            (b.model().0.to_string(), sampled, s.chunks, s.embedded)
        };
        // Judged Dutch from its three documents: e5-small, each document read once.
        let (model, sampled, chunks, embedded) = run(None, "auto.idx");
        assert_eq!((model.as_str(), sampled), ("e5-small", 3));
        // Named, nothing is sampled; the same chunks.
        let named = run(Some("e5-small"), "named.idx");
        assert_eq!(named, ("e5-small".to_string(), 0, chunks, embedded));
    }

    #[test]
    fn three_quarters_dutch_is_a_dutch_corpus() {
        let c = |read, dutch| CorpusLang { read, dutch };
        assert!(c(8, 8).is_dutch() && c(8, 6).is_dutch() && c(4, 3).is_dutch());
        assert!(!c(8, 5).is_dutch() && !c(3, 2).is_dutch() && !c(0, 0).is_dutch());
    }
}
