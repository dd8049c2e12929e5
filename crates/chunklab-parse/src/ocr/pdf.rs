//! Which PDF pages are OCR'd and how: `auto` takes pages without a text layer that show an
//! image, pages whose text cannot be decoded, and pages whose text layer is garbage (a poor
//! invisible OCR layer); `always` takes every page. A page with exactly one scan-sized image is
//! read from that image (decoded in Rust); a page that mixes text and images, has several
//! images, or an image format not decoded in Rust is rasterised with `pdftoppm`.

use super::pages::{engine, Job, Runner, Source};
use super::xobject::{page_image, PageImage};
use super::{page_ranges, OcrMode, OcrOptions};
use crate::pdf::layout::PageLines;
use crate::ParseError;
use lopdf::{Document, ObjectId};
use std::collections::BTreeMap;

/// What the PDF parser knows about a page before OCR.
pub(crate) struct PageFacts {
    pub id: ObjectId,
    /// Display size in points.
    pub width: f32,
    pub height: f32,
    /// The text layer, lines joined by newlines.
    pub text: String,
    /// Text is drawn but none could be decoded.
    pub undecodable: bool,
}

/// What OCR did to the document.
pub(crate) struct Outcome {
    /// Pages that got words from OCR.
    pub recognised: Vec<u32>,
    /// What to say after "no text on pages …:" for the pages still empty.
    pub empty_note: String,
}

/// OCR the pages `opts` asks for, replacing their lines in `pages`; warnings and the `ocr`,
/// `ocr_pages` and `ocr_confidence` metadata are added. An engine that cannot start is an error
/// with `always` and a warning with `auto`.
pub(crate) fn ocr_pages(
    doc: &Document,
    bytes: &[u8],
    facts: &[PageFacts],
    pages: &mut [PageLines],
    opts: &OcrOptions,
    warnings: &mut Vec<String>,
    metadata: &mut BTreeMap<String, String>,
) -> Result<Outcome, ParseError> {
    let mut outcome = Outcome {
        recognised: Vec::new(),
        empty_note: "scanned? OCR is set to never".into(),
    };
    if opts.mode == OcrMode::Never {
        for (i, f) in facts.iter().enumerate() {
            if let Some(why) = garbage(&f.text) {
                warnings.push(format!(
                    "page {}: the text layer looks like garbage ({why}); OCR set to auto would read the page instead",
                    i + 1
                ));
            }
        }
        return Ok(outcome);
    }
    outcome.empty_note = "no image to OCR either".into();
    // Choose pages and their sources (the page's image is looked up now, decoded later).
    let mut chosen: Vec<(u32, bool)> = Vec::new();
    let mut garbage_pages = Vec::new();
    for (i, f) in facts.iter().enumerate() {
        let no = i as u32 + 1;
        let has_text = !f.text.trim().is_empty();
        let take = match opts.mode {
            OcrMode::Always => true,
            _ if f.undecodable || !has_text => true,
            _ => match garbage(&f.text) {
                Some(why) => {
                    garbage_pages.push(format!("{no} ({why})"));
                    true
                }
                None => false,
            },
        };
        if take {
            chosen.push((
                no,
                has_text && !f.undecodable && opts.mode == OcrMode::Always,
            ));
        }
    }
    if !garbage_pages.is_empty() {
        warnings.push(format!(
            "the text layer looks like garbage on page(s) {}; OCR'd instead",
            garbage_pages.join(", ")
        ));
    }
    if chosen.is_empty() {
        return Ok(outcome);
    }
    let engine = match engine(opts) {
        Ok(e) => e,
        Err(e) if opts.mode == OcrMode::Always => return Err(ParseError::Ocr(e)),
        Err(e) => {
            outcome.empty_note = format!("scanned? OCR failed: {e}");
            return Ok(outcome);
        }
    };
    let runner = Runner::new(opts, engine, Some(bytes));
    let mut confidences: Vec<(u32, f32)> = Vec::new();
    let mut low = Vec::new();
    let mut failed = Vec::new();
    for window in chosen.chunks(runner.window()) {
        let jobs: Vec<Job> = window
            .iter()
            .filter_map(|&(no, mixed)| {
                let f = &facts[no as usize - 1];
                let source = if mixed {
                    Source::Raster
                } else {
                    match page_image(doc, f.id) {
                        PageImage::One(raw) => Source::Image(raw),
                        PageImage::Several => Source::Raster,
                        // A page with nothing drawn as an image: OCR only when asked for all.
                        PageImage::None if opts.mode == OcrMode::Always => Source::Raster,
                        PageImage::None => return None,
                    }
                };
                Some(Job {
                    page: no,
                    source,
                    width: f.width,
                    height: f.height,
                })
            })
            .collect();
        for done in runner.run(jobs) {
            warnings.extend(done.notes);
            match done.lines {
                Ok(lines) if done.words > 0 => {
                    pages[done.page as usize - 1] = lines;
                    outcome.recognised.push(done.page);
                    let conf = done.confidence.unwrap_or(0.0);
                    confidences.push((done.page, conf));
                    if conf < opts.min_confidence {
                        low.push(format!("{} ({conf:.0})", done.page));
                    }
                }
                Ok(_) => {}
                Err(e) => failed.push(format!("page {}: OCR failed: {e}", done.page)),
            }
        }
    }
    warnings.extend(failed);
    super::layout::unify_sizes(
        pages
            .iter_mut()
            .enumerate()
            .filter(|(i, _)| outcome.recognised.contains(&(*i as u32 + 1)))
            .map(|(_, p)| p),
    );
    if !low.is_empty() {
        warnings.push(format!(
            "low OCR confidence (below {}) on page(s) {}",
            opts.min_confidence,
            low.join(", ")
        ));
    }
    if !confidences.is_empty() {
        metadata.insert("ocr".into(), runner.engine_name());
        metadata.insert("ocr_pages".into(), page_ranges(&outcome.recognised));
        let list: Vec<String> = confidences
            .iter()
            .map(|(p, c)| format!("{p}:{c:.1}"))
            .collect();
        metadata.insert("ocr_confidence".into(), list.join(" "));
    }
    Ok(outcome)
}

/// Why a text layer looks like garbage (`"12% plausible words"`), or `None` if it reads as
/// text. Judged on pages with at least 40 non-space characters: control, replacement and
/// private-use characters, and the share of tokens that look like words (letters with a vowel,
/// numbers, at most 25 characters, no case changes inside).
pub(crate) fn garbage(text: &str) -> Option<String> {
    let chars: Vec<char> = text.chars().filter(|c| !c.is_whitespace()).collect();
    if chars.len() < 40 {
        return None;
    }
    let odd = chars
        .iter()
        .filter(|&&c| c.is_control() || c == '\u{FFFD}' || ('\u{E000}'..='\u{F8FF}').contains(&c))
        .count();
    if odd * 10 > chars.len() {
        return Some(format!(
            "{}% unreadable characters",
            odd * 100 / chars.len()
        ));
    }
    let tokens: Vec<&str> = text
        .split_whitespace()
        .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|t| !t.is_empty())
        .collect();
    if tokens.len() < 10 {
        return None;
    }
    let plausible = tokens.iter().filter(|t| plausible_word(t)).count();
    if plausible * 100 < tokens.len() * 60 {
        return Some(format!(
            "{}% plausible words",
            plausible * 100 / tokens.len()
        ));
    }
    None
}

fn plausible_word(t: &str) -> bool {
    let n = t.chars().count();
    if n > 25 {
        return false;
    }
    if t.chars()
        .all(|c| c.is_ascii_digit() || c == '.' || c == ',')
    {
        return true;
    }
    if !t
        .chars()
        .all(|c| c.is_alphabetic() || c == '-' || c == '\'')
    {
        return false;
    }
    let vowel = t
        .chars()
        .any(|c| "aeiouyAEIOUYáéíóúàèëïöüÁÉÍÓÚËÏÖÜ".contains(c));
    // Lower-case after the first letter, or all capitals (ABC, GEMEENTE).
    let rest: String = t.chars().skip(1).collect();
    let case_ok = rest.chars().all(|c| !c.is_uppercase()) || t.chars().all(|c| !c.is_lowercase());
    (vowel || n <= 3) && case_ok
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_layers_are_told_from_text() {
        let dutch = "Het college van burgemeester en wethouders besluit de verordening \
                     parkeerbelastingen 2022 vast te stellen met ingang van 1 januari.";
        assert_eq!(garbage(dutch), None);
        let noise = "xQ#r Tz9k| lRqW vBn;; ZzkT p0Qx mnbV qWrt~ KlPz fGhJ vbNm qwRt xcVb \
                     tPkL sDfG";
        assert!(
            garbage(noise).unwrap().contains("plausible"),
            "{:?}",
            garbage(noise)
        );
        let pua = "\u{E012}".repeat(50);
        assert!(garbage(&pua).unwrap().contains("unreadable"));
        assert_eq!(garbage("1"), None);
    }
}
