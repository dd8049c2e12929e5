//! `paragraph`: whole paragraphs (separated by blank lines) packed greedily into chunks of at most
//! `size` units, with the last `overlap` paragraphs of a chunk repeated at the start of the next.
//!
//! A paragraph larger than the limit is cut into sentence-packed pieces (English or Dutch rules,
//! see [`crate::segment`]); a sentence larger than the limit at whitespace, and a word at unit
//! boundaries, so the limit always holds. Chunks are stripped of surrounding whitespace.

use super::pack::{Level, Packer};
use crate::chunk::Span;
use crate::chunker::Chunker;
use crate::error::{param_err, Error, Result};
use crate::lang::Lang;
use crate::segment::paragraphs;
use crate::sizer::{Sizer, MAX_DOCUMENT_BYTES};
use std::sync::Arc;

/// Paragraph packing.
///
/// ```
/// use chunklab_core::{strategies::Paragraph, CharSizer, Chunker, Lang};
/// use std::sync::Arc;
/// let text = "Artikel 1\nDe raad besluit.\n\nArtikel 2\nSlot.\n\nArtikel 3\nInwerkingtreding.";
/// let chunker = Paragraph::new(Arc::new(CharSizer), 45, 0, Lang::Dutch).unwrap();
/// let texts: Vec<_> = chunker.spans(text).unwrap().iter().map(|s| &text[s.start..s.end]).collect();
/// assert_eq!(
///     texts,
///     ["Artikel 1\nDe raad besluit.\n\nArtikel 2\nSlot.", "Artikel 3\nInwerkingtreding."]
/// );
/// ```
#[derive(Debug)]
pub struct Paragraph {
    sizer: Arc<dyn Sizer>,
    size: usize,
    overlap: usize,
    lang: Lang,
}

impl Paragraph {
    /// Chunks of at most `size` units of whole paragraphs; each chunk repeats the last
    /// `overlap_paragraphs` paragraphs of the previous one where they fit. `lang` picks the
    /// sentence rules used to cut paragraphs that are too large.
    pub fn new(
        sizer: Arc<dyn Sizer>,
        size: usize,
        overlap_paragraphs: usize,
        lang: Lang,
    ) -> Result<Self> {
        if size == 0 {
            return param_err("size", "must be at least 1");
        }
        Ok(Self {
            sizer,
            size,
            overlap: overlap_paragraphs,
            lang,
        })
    }
}

impl Chunker for Paragraph {
    fn strategy(&self) -> &'static str {
        "paragraph"
    }
    fn reads_only_locations(&self) -> bool {
        true
    }
    fn config(&self) -> String {
        format!(
            "paragraph size={} overlap={} lang={} unit={}",
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
        let pieces = packer.pieces(paragraphs(text));
        packer.pack(
            &pieces,
            self.overlap,
            &[Level::Sentences(lang), Level::Words],
        )?;
        Ok(packer.finish())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sizer::{CharSizer, WordSizer};
    use crate::text::is_py_space;
    use crate::validate::{check_spans, Expect};

    const BESLUIT: &str = "Besluit van de raad van de gemeente Utrecht\r\n\r\n\
        De raad van de gemeente Utrecht, in vergadering bijeen op 12 mei 2021, gelet op art. 147 \
        van de Gemeentewet en het voorstel van dhr. Jansen d.d. 1 april 2021, nr. 2021/17;\r\n\r\n\
        besluit:\r\n1. De Verordening Parkeren 2021 vast te stellen.\r\n2. Het college te \
        verzoeken de raad vóór 1 jan. 2022 te informeren, bijv. Via een raadsinformatiebrief.\
        \r\n\r\nArtikel 1. Begrippen\r\nIn deze verordening wordt verstaan onder: a. parkeren: \
        het laten staan van een voertuig; b. vergunning: een vergunning als bedoeld in art. 3.1. \
        Mr. J.A. de Vries tekende. Dr. Pietersen ook.\r\n\r\n\r\nAldus vastgesteld in de \
        openbare vergadering van 8 juli 2021.\r\n\r\nDe griffier, mw. drs. A.B. Smit";

    fn chunk(text: &str, sizer: Arc<dyn Sizer>, size: usize, overlap: usize) -> Vec<Span> {
        Paragraph::new(sizer, size, overlap, Lang::Auto)
            .unwrap()
            .spans(text)
            .unwrap()
    }

    fn texts<'a>(text: &'a str, spans: &[Span]) -> Vec<&'a str> {
        spans.iter().map(|s| &text[s.start..s.end]).collect()
    }

    fn paragraph_texts(text: &str) -> Vec<&str> {
        paragraphs(text)
            .into_iter()
            .map(|(s, e)| text[s..e].trim_matches(is_py_space))
            .collect()
    }

    #[test]
    fn size_and_coverage_hold_for_chars_and_words() {
        let long_word = "w".repeat(3000);
        let edge = format!("Kort.\n\n{long_word}.\n\n😀👩‍👩‍👧\r\n\r\n中文。好的？\n \n\tEind.");
        for text in [BESLUIT, edge.as_str()] {
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
                }
            }
        }
    }

    #[test]
    fn packs_whole_paragraphs() {
        let paras = paragraph_texts(BESLUIT);
        assert_eq!(paras.len(), 6);
        let longest = paras.iter().map(|p| p.chars().count()).max().unwrap();
        let spans = chunk(BESLUIT, Arc::new(CharSizer), longest, 0);
        let mut next = 0;
        for t in texts(BESLUIT, &spans) {
            assert!(
                t.starts_with(paras[next]),
                "chunk starts mid-paragraph: {t:?}"
            );
            while !t.ends_with(paras[next]) {
                next += 1;
            }
            next += 1;
        }
        assert_eq!(next, paras.len());
    }

    #[test]
    fn oversized_paragraph_is_cut_at_sentences() {
        let text = "Kop\n\nEen zin hier. Nog een zin. Derde zin hier.\n\nSlot.";
        let spans = chunk(text, Arc::new(CharSizer), 30, 0);
        assert_eq!(
            texts(text, &spans),
            [
                "Kop",
                "Een zin hier. Nog een zin.",
                "Derde zin hier.",
                "Slot."
            ]
        );
        // Dutch abbreviations do not end a sentence piece.
        let text = "Inleiding\n\nDhr. Jansen en mevr. Smit, o.a. namens de bewoners, spraken. \
                    Zie art. 3.1 op blz. 12. Het bedrag is € 1.400,50.";
        let spans = chunk(text, Arc::new(CharSizer), 70, 0);
        assert_eq!(
            texts(text, &spans),
            [
                "Inleiding",
                "Dhr. Jansen en mevr. Smit, o.a. namens de bewoners, spraken.",
                "Zie art. 3.1 op blz. 12. Het bedrag is € 1.400,50."
            ]
        );
    }

    #[test]
    fn overlap_repeats_last_paragraphs() {
        let text = "Een.\n\nTwee.\n\nDrie.\n\nVier.";
        let spans = chunk(text, Arc::new(WordSizer), 3, 1);
        assert_eq!(
            texts(text, &spans),
            ["Een.\n\nTwee.\n\nDrie.", "Drie.\n\nVier."]
        );
        let spans = chunk(text, Arc::new(WordSizer), 2, 3);
        assert_eq!(
            texts(text, &spans),
            ["Een.\n\nTwee.", "Twee.\n\nDrie.", "Drie.\n\nVier."]
        );
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
            "\x0c\x0c",
            "a\u{2029}b",
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
        assert!(chunk("\r\n\r\n", Arc::new(CharSizer), 10, 0).is_empty());
        assert!(Paragraph::new(Arc::new(CharSizer), 0, 1, Lang::Auto).is_err());
    }

    #[test]
    fn config_names_lang_and_overlap() {
        let c = Paragraph::new(Arc::new(CharSizer), 800, 1, Lang::Auto).unwrap();
        assert_eq!(
            c.config(),
            "paragraph size=800 overlap=1 lang=auto unit=chars"
        );
        assert_eq!(c.strategy(), "paragraph");
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
}
