//! OCR: text from scanned pages and image files.
//!
//! The engine sits behind the [`Ocr`] seam (a grey image in, words with boxes and confidences
//! out); [`tesseract::Tesseract`] is the one engine today. It is run as a **process** per page
//! (`tesseract stdin stdout … tsv`), not linked through the C API: a per-page timeout is a kill,
//! a crash in Leptonica or Tesseract on a hostile image takes one page down instead of the whole
//! run, pages run in parallel without sharing a non-thread-safe `TessBaseAPI`, and the build needs
//! no bindgen or libclang. The cost, a process start and model load per page (~0.1 s), is small
//! next to recognition itself (1–3 s for a 300 dpi A4 page).
//!
//! Around the engine: [`raster`] (grey images, decoding image files and PDF image XObjects:
//! JPEG, Flate, CCITT G3/G4), [`preprocess`] (DPI normalisation, Otsu binarisation, deskew,
//! border removal, orientation), `pages` (pages OCR'd in parallel, a bounded number at a time)
//! and `layout` (words → the PDF parser's lines, so OCR text gets paragraphs, headings and
//! tables from the same structure builder as born-digital PDFs).

pub(crate) mod layout;
pub(crate) mod pages;
pub(crate) mod pdf;
pub mod preprocess;
pub(crate) mod process;
pub mod raster;
pub mod tesseract;
pub(crate) mod xobject;

pub use raster::GrayImage;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which pages are OCR'd.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OcrMode {
    /// Pages without a usable text layer (none, undecodable, or garbage), and image files.
    #[default]
    Auto,
    /// Every page, replacing any text layer.
    Always,
    /// No OCR: image-only pages stay empty (with a warning); image files are refused.
    Never,
}

impl OcrMode {
    /// The name in every face (`auto`, `always`, `never`).
    pub fn name(self) -> &'static str {
        match self {
            OcrMode::Auto => "auto",
            OcrMode::Always => "always",
            OcrMode::Never => "never",
        }
    }
}

impl fmt::Display for OcrMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for OcrMode {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(OcrMode::Auto),
            "always" => Ok(OcrMode::Always),
            "never" | "off" | "none" => Ok(OcrMode::Never),
            other => Err(format!(
                "`{other}` is not an OCR mode; use auto, always or never"
            )),
        }
    }
}

/// How OCR is done: mode, languages, thresholds, preprocessing. The `ocr` part of the
/// pipeline's reading configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OcrOptions {
    /// auto, always or never.
    pub mode: OcrMode,
    /// Tesseract languages joined with `+` (`nld+eng`).
    pub lang: String,
    /// Pages whose mean word confidence (0–100) is below this are listed as warnings.
    pub min_confidence: f32,
    /// Seconds one page may take (rasterising plus recognition) before it is abandoned.
    pub timeout_s: u64,
    /// Preprocessing steps, comma separated, from `dpi`, `otsu`, `deskew`, `border`, `osd`;
    /// `none` for none. See [`preprocess::Steps`].
    pub preprocess: String,
    /// Resolution pages are rasterised at, and low-resolution scans are scaled up to.
    pub dpi: u32,
    /// Pages OCR'd at once per document (0: one per CPU).
    pub jobs: usize,
}

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions {
            mode: OcrMode::Auto,
            lang: "nld+eng".into(),
            min_confidence: 60.0,
            timeout_s: 120,
            preprocess: preprocess::Steps::DEFAULT.into(),
            dpi: 300,
            jobs: 0,
        }
    }
}

impl OcrOptions {
    /// Check every field; errors name the option (`lang`, `preprocess`, ...).
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        if self.lang.split('+').any(|l| {
            l.is_empty()
                || !l
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        }) {
            return Err((
                "lang",
                format!(
                    "`{}` is not a language list; use Tesseract names joined with + (nld+eng)",
                    self.lang
                ),
            ));
        }
        if !(0.0..=100.0).contains(&self.min_confidence) {
            return Err(("min_confidence", "must be between 0 and 100".into()));
        }
        if self.timeout_s == 0 {
            return Err(("timeout", "must be at least 1 second".into()));
        }
        if !(50..=1200).contains(&self.dpi) {
            return Err(("dpi", "must be between 50 and 1200".into()));
        }
        preprocess::Steps::parse(&self.preprocess).map_err(|m| ("preprocess", m))?;
        Ok(())
    }
}

/// One recognised word: text, confidence (0–100) and box in image pixels.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    pub text: String,
    pub conf: f32,
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
    /// The engine's block, paragraph and line numbers (words of one line share them).
    pub block: u32,
    pub par: u32,
    pub line: u32,
}

/// What the engine read on one image.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OcrPage {
    pub words: Vec<Word>,
    /// Image size in pixels.
    pub width: u32,
    pub height: u32,
}

impl OcrPage {
    /// Mean word confidence (0–100), or `None` without words.
    pub fn mean_confidence(&self) -> Option<f32> {
        if self.words.is_empty() {
            return None;
        }
        let sum: f64 = self.words.iter().map(|w| w.conf as f64).sum();
        Some((sum / self.words.len() as f64) as f32)
    }

    /// The words as plain text: a line per engine line, a blank line between blocks.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let mut last: Option<(u32, u32, u32)> = None;
        for w in &self.words {
            let key = (w.block, w.par, w.line);
            match last {
                Some(k) if k == key => out.push(' '),
                Some(k) if k.0 != key.0 || k.1 != key.1 => out.push_str("\n\n"),
                Some(_) => out.push('\n'),
                None => {}
            }
            out.push_str(&w.text);
            last = Some(key);
        }
        out
    }
}

/// The setting that turns OCR off, as the command line writes it (a face with other words
/// passes its own to [`OcrError::spelled`]).
pub const OCR_NEVER: &str = "--ocr never";

/// Why OCR of a page failed, or could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum OcrError {
    /// The engine's program is not installed.
    #[error("{}", OcrError::missing(.program, .package, .detail, OCR_NEVER))]
    Missing {
        program: String,
        package: &'static str,
        detail: String,
    },
    /// OCR is off, and the input (an image file) has text only through OCR.
    #[error("{}", OcrError::off(OCR_NEVER))]
    Off,
    /// A language model is not installed.
    #[error("tesseract has no `{missing}` language (installed: {installed}); install tesseract-ocr-{missing}")]
    Lang { missing: String, installed: String },
    /// The page took longer than the timeout.
    #[error("{what} took longer than {secs} s and was stopped")]
    Timeout { what: String, secs: u64 },
    /// The engine or rasteriser failed.
    #[error("{0}")]
    Failed(String),
    /// The image could not be decoded.
    #[error("{0}")]
    Image(String),
}

impl OcrError {
    /// The message, with the setting that turns OCR off written as `never` (`--ocr never` on
    /// the command line, `ocr="never"` in Python).
    pub fn spelled(&self, never: &str) -> String {
        match self {
            OcrError::Missing {
                program,
                package,
                detail,
            } => Self::missing(program, package, detail, never),
            OcrError::Off => Self::off(never),
            other => other.to_string(),
        }
    }

    fn missing(program: &str, package: &str, detail: &str, never: &str) -> String {
        format!("{program} not found ({detail}); install it (Debian: {package}) or use {never}")
    }

    fn off(never: &str) -> String {
        format!("an image has text only through OCR, and OCR is off ({never})")
    }
}

/// An OCR engine: a grey image at a resolution in, words out.
pub trait Ocr: Send + Sync {
    /// Engine and languages (`tesseract nld+eng`), as recorded in the `ocr` metadata.
    fn name(&self) -> String;
    /// Recognise the words on `image`, scanned at `dpi`.
    fn recognize(&self, image: &GrayImage, dpi: u32) -> Result<OcrPage, OcrError>;
    /// Clockwise rotation (0, 90, 180, 270) that makes the page upright, if the engine can tell.
    fn orientation(&self, _image: &GrayImage, _dpi: u32) -> Result<Option<u16>, OcrError> {
        Ok(None)
    }
}

/// Pages as a list with ranges: `3–7, 9`.
pub(crate) fn page_ranges(pages: &[u32]) -> String {
    let mut ranges: Vec<(u32, u32)> = Vec::new();
    for &p in pages {
        match ranges.last_mut() {
            Some(r) if r.1 + 1 == p => r.1 = p,
            _ => ranges.push((p, p)),
        }
    }
    let list: Vec<String> = ranges
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    list.join(", ")
}

/// The per-page confidences recorded in a document's `ocr_confidence` metadata
/// (`"3:91.2 4:88.0"`): page → mean word confidence.
pub fn page_confidences(metadata: &std::collections::BTreeMap<String, String>) -> Vec<(u32, f32)> {
    metadata
        .get("ocr_confidence")
        .map(|s| {
            s.split_whitespace()
                .filter_map(|p| {
                    let (page, conf) = p.split_once(':')?;
                    Some((page.parse().ok()?, conf.parse().ok()?))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// For a chunk on pages `first..=last` of a document with `confidences` (from
/// [`page_confidences`]): the mean confidence of its OCR'd pages, or `None` if none was OCR'd.
pub fn chunk_confidence(confidences: &[(u32, f32)], first: u32, last: u32) -> Option<f32> {
    let hits: Vec<f32> = confidences
        .iter()
        .filter(|(p, _)| (first..=last).contains(p))
        .map(|&(_, c)| c)
        .collect();
    (!hits.is_empty()).then(|| hits.iter().sum::<f32>() / hits.len() as f32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_and_options() {
        assert_eq!("ALWAYS".parse::<OcrMode>(), Ok(OcrMode::Always));
        assert!("maybe".parse::<OcrMode>().unwrap_err().contains("auto"));
        assert!(OcrOptions::default().validate().is_ok());
        let bad = OcrOptions {
            lang: "nld+".into(),
            ..OcrOptions::default()
        };
        assert_eq!(bad.validate().unwrap_err().0, "lang");
        let bad = OcrOptions {
            preprocess: "otsu,sharpen".into(),
            ..OcrOptions::default()
        };
        assert_eq!(bad.validate().unwrap_err().0, "preprocess");
    }

    #[test]
    fn confidences_by_page() {
        let mut m = std::collections::BTreeMap::new();
        m.insert("ocr_confidence".to_string(), "3:90 4:80.5".to_string());
        let c = page_confidences(&m);
        assert_eq!(c, vec![(3, 90.0), (4, 80.5)]);
        assert_eq!(chunk_confidence(&c, 3, 4), Some(85.25));
        assert_eq!(chunk_confidence(&c, 1, 2), None);
        assert_eq!(page_ranges(&[1, 3, 4, 5, 9]), "1, 3–5, 9");
    }
}
