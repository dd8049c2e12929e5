//! `sentence`: whole sentences packed greedily into chunks of at most `size` units, with the last
//! `overlap` sentences of a chunk repeated at the start of the next.
//!
//! Sentences come from [`crate::segment::sentences`] (English or Dutch rules; `auto` decides per
//! document). A chunk starts where a sentence starts and ends where one ends, with surrounding
//! whitespace stripped. A sentence larger than the limit is cut at whitespace, and a word larger
//! than the limit at unit boundaries, so the limit always holds.

use super::pack::{Level, Packer};
use crate::chunk::Span;
use crate::chunker::Chunker;
use crate::error::{param_err, Error, Result};
use crate::lang::Lang;
use crate::segment::sentences;
use crate::sizer::{Sizer, MAX_DOCUMENT_BYTES};
use std::sync::Arc;

/// Sentence packing.
///
/// ```
/// use chunklab_core::{strategies::Sentence, CharSizer, Chunker, Lang};
/// use std::sync::Arc;
/// let text = "Dhr. Jansen opent de vergadering. De notulen worden vastgesteld. Sluiting.";
/// let chunker = Sentence::new(Arc::new(CharSizer), 70, 0, Lang::Dutch).unwrap();
/// let texts: Vec<_> = chunker.spans(text).unwrap().iter().map(|s| &text[s.start..s.end]).collect();
/// assert_eq!(
///     texts,
///     ["Dhr. Jansen opent de vergadering. De notulen worden vastgesteld.", "Sluiting."]
/// );
/// ```
#[derive(Debug)]
pub struct Sentence {
    sizer: Arc<dyn Sizer>,
    size: usize,
    overlap: usize,
    lang: Lang,
}

impl Sentence {
    /// Chunks of at most `size` units of whole sentences; each chunk repeats the last
    /// `overlap_sentences` sentences of the previous one where they fit.
    pub fn new(
        sizer: Arc<dyn Sizer>,
        size: usize,
        overlap_sentences: usize,
        lang: Lang,
    ) -> Result<Self> {
        if size == 0 {
            return param_err("size", "must be at least 1");
        }
        Ok(Self {
            sizer,
            size,
            overlap: overlap_sentences,
            lang,
        })
    }
}

impl Chunker for Sentence {
    fn strategy(&self) -> &'static str {
        "sentence"
    }
    fn reads_only_locations(&self) -> bool {
        true
    }
    fn config(&self) -> String {
        format!(
            "sentence size={} overlap={} lang={} unit={}",
            self.size,
            self.overlap,
            self.lang.code(),
            self.sizer.name()
        )
    }
    fn spans(&self, text: &str) -> Result<Vec<Span>> {
        if text.len() > MAX_DOCUMENT_BYTES {
            return Err(Error::TooLarge(text.len()));
        }
        let lang = self.lang.resolve(text);
        let mut packer = Packer::new(text, self.sizer.as_ref(), self.size);
        let pieces = packer.pieces(sentences(text, lang));
        packer.pack(&pieces, self.overlap, &[Level::Words])?;
        Ok(packer.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizer::{CharSizer, Measure, WordSizer};
    use crate::text::is_py_space;
    use crate::validate::{check_spans, Expect};

    const MOTIE: &str = "De raad van de gemeente Utrecht, in vergadering bijeen op 12 mei 2021, \
        gehoord de beraadslaging,\n\noverwegende dat:\n- dhr. Jansen en mevr. De Boer o.a. namens \
        de bewoners een petitie hebben aangeboden;\n- de kosten, bijv. Voor onderhoud, i.p.v. \
        € 1.400,50 nu € 2.100,75 bedragen (zie art. 3.1, blz. 12);\n\nverzoekt het college:\n\
        1. Vóór 1 jan. 2022 een plan op te stellen m.b.t. zonnepanelen, d.w.z. Op alle daken.\n\
        2. De raad t.a.v. de voortgang te informeren om 10.30 uur, etc. en zo verder.\n\n\
        En gaat over tot de orde van de dag. Mr. J.A. de Vries, Dr. Pietersen en Prof. Smit \
        tekenden. De fiets is z.g.a.n. verkocht. Zie www.utrecht.nl of besluit-v1.2.3.pdf! \
        Klaar? Ja... Nee.";

    const ENGLISH: &str = "Mr. Smith met Mrs. Jones at 10.30 on Baker St. in London. They \
        discussed Fig. 3 and No. 5 of the report, e.g. The budget, i.e. The U.S. share. Acme \
        Inc. paid $3.14 million. Was it enough? Nobody knew! The meeting ended... Then they \
        left.\n\nA new paragraph starts here. It has two sentences.";

    fn chunk(text: &str, sizer: Arc<dyn Sizer>, size: usize, overlap: usize) -> Vec<Span> {
        Sentence::new(sizer, size, overlap, Lang::Auto)
            .unwrap()
            .spans(text)
            .unwrap()
    }

    fn texts<'a>(text: &'a str, spans: &[Span]) -> Vec<&'a str> {
        spans.iter().map(|s| &text[s.start..s.end]).collect()
    }

    /// The stripped sentences of `text`.
    fn sentence_texts(text: &str) -> Vec<&str> {
        sentences(text, Lang::Auto)
            .into_iter()
            .map(|(s, e)| text[s..e].trim_matches(is_py_space))
            .collect()
    }

    #[test]
    fn size_and_coverage_hold_for_chars_and_words() {
        let long_word = "w".repeat(3000);
        let edge = format!("Kort. {long_word}. Ook\r\nkort. 😀👩‍👩‍👧 Emoji! 中文。好的？ Eind.");
        for text in [MOTIE, ENGLISH, edge.as_str()] {
            for size in [1, 2, 3, 5, 8, 13, 40, 100, 250, 1000, 5000] {
                for overlap in [0, 1, 2] {
                    let expect = Expect {
                        size,
                        overlap: overlap > 0,
                    };
                    let spans = chunk(text, Arc::new(CharSizer), size, overlap);
                    check_spans(text, &spans, &CharSizer, expect).unwrap();
                    let spans = chunk(text, Arc::new(WordSizer), size, overlap);
                    check_spans(text, &spans, &WordSizer, expect).unwrap();
                    for s in &spans {
                        let t = &text[s.start..s.end];
                        assert_eq!(t, t.trim_matches(is_py_space));
                    }
                }
            }
        }
    }

    #[test]
    fn chunks_are_whole_sentences_when_they_fit() {
        for text in [MOTIE, ENGLISH] {
            let sents = sentence_texts(text);
            let longest = sents.iter().map(|s| s.chars().count()).max().unwrap();
            for size in [longest, longest + 10, 2 * longest, 10_000] {
                let spans = chunk(text, Arc::new(CharSizer), size, 0);
                let mut next = 0;
                for t in texts(text, &spans) {
                    // Each chunk is the next few sentences, starting and ending on sentence edges.
                    let mut k = next;
                    while !t.ends_with(sents[k]) {
                        k += 1;
                    }
                    assert!(
                        t.starts_with(sents[next]),
                        "chunk {t:?} starts mid-sentence"
                    );
                    next = k + 1;
                }
                assert_eq!(next, sents.len());
            }
        }
    }

    #[test]
    fn dutch_abbreviations_never_end_a_chunk() {
        let sents = sentence_texts(MOTIE);
        assert!(sents.contains(&"- dhr. Jansen en mevr. De Boer o.a. namens de bewoners een petitie hebben aangeboden;"));
        assert!(sents.contains(&"1. Vóór 1 jan. 2022 een plan op te stellen m.b.t. zonnepanelen, d.w.z. Op alle daken."));
        assert!(sents.contains(&"Mr. J.A. de Vries, Dr. Pietersen en Prof. Smit tekenden."));
        assert!(sents.contains(&"De fiets is z.g.a.n. verkocht."));
        let longest = sents.iter().map(|s| s.chars().count()).max().unwrap();
        let spans = chunk(MOTIE, Arc::new(CharSizer), longest, 0);
        for t in texts(MOTIE, &spans) {
            for abbr in [
                "dhr.", "mevr.", "o.a.", "bijv.", "i.p.v.", "art.", "blz.", "jan.", "m.b.t.",
                "d.w.z.", "t.a.v.", "Mr.", "J.A.", "Dr.", "Prof.", "z.g.a.n.",
            ] {
                assert!(!t.ends_with(abbr), "chunk ends at {abbr}: {t:?}");
            }
        }
    }

    #[test]
    fn overlap_repeats_last_sentences() {
        let text = "Een aa. Twee bb. Drie cc. Vier dd. Vijf ee.";
        let spans = chunk(text, Arc::new(WordSizer), 6, 1);
        assert_eq!(
            texts(text, &spans),
            ["Een aa. Twee bb. Drie cc.", "Drie cc. Vier dd. Vijf ee."]
        );
        let spans = chunk(text, Arc::new(WordSizer), 6, 2);
        assert_eq!(
            texts(text, &spans),
            [
                "Een aa. Twee bb. Drie cc.",
                "Twee bb. Drie cc. Vier dd.",
                "Drie cc. Vier dd. Vijf ee."
            ]
        );
        // Overlap that would fill the whole chunk shrinks so every chunk adds a sentence.
        let spans = chunk(text, Arc::new(WordSizer), 4, 5);
        assert_eq!(
            texts(text, &spans),
            [
                "Een aa. Twee bb.",
                "Twee bb. Drie cc.",
                "Drie cc. Vier dd.",
                "Vier dd. Vijf ee."
            ]
        );
    }

    #[test]
    fn oversized_sentence_is_cut_at_words_then_units() {
        let text = "Kort. Dit is een veel te lange zin met woorden. Ook kort.";
        let spans = chunk(text, Arc::new(CharSizer), 12, 0);
        assert_eq!(
            texts(text, &spans),
            [
                "Kort.",
                "Dit is een",
                "veel te",
                "lange zin",
                "met woorden.",
                "Ook kort."
            ]
        );
        let word = "x".repeat(3000);
        let spans = chunk(&word, Arc::new(CharSizer), 1000, 0);
        assert_eq!(spans.len(), 3);
        assert!(spans.iter().all(|s| s.tokens == 1000));
    }

    /// Not additive: counts chars plus one per period, and measures plain chars, so plans are
    /// underestimates that verification must catch.
    struct PeriodTax;
    impl Sizer for PeriodTax {
        fn name(&self) -> &str {
            "period-tax"
        }
        fn count(&self, text: &str) -> usize {
            text.chars().count() + text.matches('.').count()
        }
        fn measure(&self, _text: &str) -> Measure {
            Measure::Chars
        }
    }

    #[test]
    fn non_additive_sizer_is_verified() {
        let sizer: Arc<dyn Sizer> = Arc::new(PeriodTax);
        for text in [MOTIE, ENGLISH, "....... ..", "a.b.c.d.e.f"] {
            for size in [2, 3, 7, 30, 120] {
                for overlap in [0, 1] {
                    let spans = chunk(text, sizer.clone(), size, overlap);
                    let expect = Expect {
                        size,
                        overlap: overlap > 0,
                    };
                    check_spans(text, &spans, sizer.as_ref(), expect)
                        .unwrap_or_else(|e| panic!("size {size}: {e}"));
                }
            }
        }
    }

    #[test]
    fn char_larger_than_the_limit_is_reported() {
        let sizer: Arc<dyn Sizer> = Arc::new(PeriodTax);
        let err = Sentence::new(sizer, 1, 0, Lang::Dutch)
            .unwrap()
            .spans("a.")
            .unwrap_err();
        assert!(matches!(err, Error::TooSmall { offset: 1, .. }), "{err}");
    }

    #[test]
    fn edge_inputs() {
        for text in [
            "",
            " ",
            "\n\n\r\n",
            "geen punt",
            "。",
            "😀",
            "...",
            "a\u{2029}b",
            "\u{85}",
        ] {
            for size in [1, 3, 50] {
                let spans = chunk(text, Arc::new(CharSizer), size, 1);
                check_spans(
                    text,
                    &spans,
                    &CharSizer,
                    Expect {
                        size,
                        overlap: true,
                    },
                )
                .unwrap();
            }
        }
        assert!(chunk("  \n ", Arc::new(CharSizer), 10, 0).is_empty());
        assert!(Sentence::new(Arc::new(CharSizer), 0, 0, Lang::Dutch).is_err());
    }

    #[test]
    fn config_names_lang_and_overlap() {
        let c = Sentence::new(Arc::new(WordSizer), 200, 2, Lang::Dutch).unwrap();
        assert_eq!(c.config(), "sentence size=200 overlap=2 lang=nl unit=words");
        assert_eq!(c.strategy(), "sentence");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig { cases: 200, ..Default::default() })]
        #[test]
        fn random_text_invariants(
            parts in proptest::collection::vec(chunklab_test_support::gen::segment_piece(), 0..80),
            size in 1usize..120,
            overlap in 0usize..3,
            words in proptest::bool::ANY,
        ) {
            let text = parts.concat();
            let sizer: Arc<dyn Sizer> = if words { Arc::new(WordSizer) } else { Arc::new(CharSizer) };
            let spans = chunk(&text, sizer.clone(), size, overlap);
            let expect = Expect { size, overlap: overlap > 0 };
            if let Err(e) = check_spans(&text, &spans, sizer.as_ref(), expect) {
                panic!("{e}\ntext: {text:?}");
            }
            for s in &spans {
                let t = &text[s.start..s.end];
                proptest::prop_assert_eq!(t, t.trim_matches(is_py_space));
            }
            proptest::prop_assert_eq!(&spans, &chunk(&text, sizer, size, overlap));
        }
    }

    /// `cargo test --release -p chunklab-core sentence_throughput -- --ignored --nocapture`
    #[test]
    #[ignore]
    fn sentence_throughput() {
        let dir = chunklab_test_support::shared_path("golden/langchain/inputs");
        let entries = std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        let mut corpus = String::new();
        for entry in entries {
            corpus.push_str(&std::fs::read_to_string(entry.unwrap().path()).unwrap_or_default());
            corpus.push_str("\n\n");
        }
        let text = corpus.repeat((100 << 20) / corpus.len().max(1) + 1);
        let sizers: [Arc<dyn Sizer>; 2] = [Arc::new(CharSizer), Arc::new(WordSizer)];
        for sizer in sizers {
            let chunker = Sentence::new(sizer.clone(), 1000, 1, Lang::English).unwrap();
            let t = std::time::Instant::now();
            let n = chunker.spans(&text).unwrap().len();
            let s = t.elapsed().as_secs_f64();
            eprintln!(
                "sentence size=1000 overlap=1 unit={}: {:.0} MiB/s, {n} chunks",
                sizer.name(),
                text.len() as f64 / 1048576.0 / s
            );
        }
    }
}
