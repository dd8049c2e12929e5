//! Image files as documents: a PNG, a JPEG or a TIFF (every page of a multi-page TIFF) is OCR'd
//! page by page into the same structure as a PDF page ([`crate::ocr`]). The text is the OCR text;
//! metadata `ocr`, `ocr_pages` and `ocr_confidence` (page:confidence) say how it was read.

use crate::ocr::pages::{engine, Job, Runner, Source};
use crate::ocr::raster::{decode_file, guess_dpi};
use crate::ocr::{page_ranges, OcrError, OcrMode, OcrOptions};
use crate::pdf::layout::PageLines;
use crate::{Limits, ParseError, Parser};
use chunklab_core::document::ParsedDocument;
use std::collections::BTreeMap;
use std::path::Path;

/// The parser for PNG, JPEG and TIFF files.
#[derive(Debug, Clone, Default)]
pub struct ImageParser {
    /// Languages, thresholds, preprocessing (mode `never` refuses images).
    pub ocr: OcrOptions,
}

impl Parser for ImageParser {
    fn name(&self) -> &'static str {
        "image"
    }

    fn parse(
        &self,
        bytes: &[u8],
        _path: &Path,
        limits: &Limits,
    ) -> Result<ParsedDocument, ParseError> {
        if bytes.len() as u64 > limits.max_decompressed_bytes {
            return Err(ParseError::Limit {
                what: format!("image of {} bytes", bytes.len()),
                limit: limits.max_decompressed_bytes,
            });
        }
        let kind = crate::ocr::raster::sniff(bytes).unwrap_or("image");
        let images = decode_file(bytes).map_err(|message| ParseError::Invalid {
            format: kind,
            message,
        })?;
        if self.ocr.mode == OcrMode::Never {
            return Err(ParseError::Ocr(OcrError::Off));
        }
        let engine = engine(&self.ocr).map_err(ParseError::Ocr)?;
        let runner = Runner::new(&self.ocr, engine, None);
        let count = images.len();
        let mut pages: Vec<PageLines> = Vec::with_capacity(count);
        let mut warnings = Vec::new();
        let mut confidences = Vec::new();
        let mut recognised = Vec::new();
        let mut low = Vec::new();
        let mut images = images.into_iter().enumerate().peekable();
        while images.peek().is_some() {
            let jobs: Vec<Job> = images
                .by_ref()
                .take(runner.window())
                .map(|(i, p)| {
                    let dpi = guess_dpi(&p.image, p.dpi) as f32;
                    Job {
                        page: i as u32 + 1,
                        width: p.image.width as f32 * 72.0 / dpi,
                        height: p.image.height as f32 * 72.0 / dpi,
                        source: Source::Pixels(p.image, p.dpi),
                    }
                })
                .collect();
            for done in runner.run(jobs) {
                warnings.extend(done.notes);
                match done.lines {
                    Ok(lines) => {
                        if done.words > 0 {
                            let conf = done.confidence.unwrap_or(0.0);
                            confidences.push(format!("{}:{conf:.1}", done.page));
                            recognised.push(done.page);
                            if conf < self.ocr.min_confidence {
                                low.push(format!("{} ({conf:.0})", done.page));
                            }
                        } else {
                            warnings.push(format!("page {}: OCR found no text", done.page));
                        }
                        pages.push(lines);
                    }
                    // One page failing: an error for a single image, a warning in a TIFF.
                    Err(e) if count == 1 => return Err(ParseError::Ocr(OcrError::Failed(e))),
                    Err(e) => {
                        warnings.push(format!("page {}: OCR failed: {e}", done.page));
                        pages.push(PageLines {
                            lines: Vec::new(),
                            rotated: String::new(),
                            height: 842.0,
                        });
                    }
                }
            }
        }
        crate::ocr::layout::unify_sizes(pages.iter_mut());
        if !low.is_empty() {
            warnings.push(format!(
                "low OCR confidence (below {}) on page(s) {}",
                self.ocr.min_confidence,
                low.join(", ")
            ));
        }
        let mut metadata = BTreeMap::new();
        metadata.insert("ocr".into(), runner.engine_name());
        metadata.insert("image_format".into(), kind.into());
        if !recognised.is_empty() {
            metadata.insert("ocr_pages".into(), page_ranges(&recognised));
            metadata.insert("ocr_confidence".into(), confidences.join(" "));
        }
        Ok(crate::pdf::assemble(pages, metadata, warnings, "image"))
    }
}
