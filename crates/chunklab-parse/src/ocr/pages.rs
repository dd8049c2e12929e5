//! OCR of a document's pages: each page's pixels (a decoded image XObject, a page rasterised by
//! `pdftoppm`, or a page of an image file) are preprocessed and recognised in parallel, a bounded
//! window of pages at a time so a 500-page scan never holds more than a few decoded pages.

use super::preprocess::{self, Steps};
use super::process::run;
use super::raster::GrayImage;
use super::tesseract::Tesseract;
use super::xobject::{self, RawImage};
use super::{layout, Ocr, OcrError, OcrOptions, OcrPage};
use crate::pdf::layout::PageLines;
use rayon::prelude::*;
use std::collections::HashMap;
use std::io::Write;
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// Where a page's pixels come from.
pub(crate) enum Source {
    /// The page's one scan image, decoded in Rust.
    Image(Box<RawImage>),
    /// The page rasterised by `pdftoppm` (mixed text and images, several images, or an image
    /// format not decoded in Rust).
    Raster,
    /// A page of an image file, already decoded, with its declared resolution.
    Pixels(GrayImage, Option<f32>),
}

/// One page to OCR.
pub(crate) struct Job {
    /// 1-based page number.
    pub page: u32,
    pub source: Source,
    /// Page size in points (the image is mapped onto it).
    pub width: f32,
    pub height: f32,
}

/// A page's OCR result.
pub(crate) struct Done {
    pub page: u32,
    /// The recognised lines, or why there are none.
    pub lines: Result<PageLines, String>,
    /// Mean word confidence and word count.
    pub confidence: Option<f32>,
    pub words: usize,
    /// Non-fatal notes (`page 3: image /Im0 is JBIG2 …; rasterised instead`).
    pub notes: Vec<String>,
}

/// Runs OCR jobs for one document.
pub(crate) struct Runner<'a> {
    opts: &'a OcrOptions,
    steps: Steps,
    engine: Arc<dyn Ocr>,
    /// The PDF's bytes, for `pdftoppm` (written to a scratch file on first need).
    pdf: Option<&'a [u8]>,
    pdf_file: OnceLock<Result<tempfile::NamedTempFile, String>>,
    pool: Option<rayon::ThreadPool>,
}

/// The engine for `opts`, created once per language list and timeout (its check runs
/// `tesseract --list-langs`).
pub(crate) fn engine(opts: &OcrOptions) -> Result<Arc<dyn Ocr>, OcrError> {
    type Engines = Mutex<HashMap<(String, u64), Arc<Tesseract>>>;
    static ENGINES: OnceLock<Engines> = OnceLock::new();
    let key = (opts.lang.clone(), opts.timeout_s);
    let mut cache = ENGINES
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(e) = cache.get(&key) {
        return Ok(e.clone());
    }
    let t = Arc::new(Tesseract::new(
        &opts.lang,
        Duration::from_secs(opts.timeout_s),
    )?);
    cache.insert(key, t.clone());
    Ok(t)
}

impl<'a> Runner<'a> {
    /// A runner with `engine`; `pdf` is the document when it is a PDF.
    pub fn new(opts: &'a OcrOptions, engine: Arc<dyn Ocr>, pdf: Option<&'a [u8]>) -> Self {
        let pool = (opts.jobs > 0)
            .then(|| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(opts.jobs)
                    .build()
                    .ok()
            })
            .flatten();
        Runner {
            opts,
            steps: Steps::parse(&opts.preprocess).unwrap_or_default(),
            engine,
            pdf,
            pdf_file: OnceLock::new(),
            pool,
        }
    }

    /// How many pages to have decoded at once.
    pub fn window(&self) -> usize {
        let threads = self
            .pool
            .as_ref()
            .map_or_else(rayon::current_num_threads, |p| p.current_num_threads());
        threads.max(1) * 2
    }

    /// The engine's name (`tesseract nld+eng`).
    pub fn engine_name(&self) -> String {
        self.engine.name()
    }

    /// OCR `jobs` in parallel; results in the order of `jobs`.
    pub fn run(&self, jobs: Vec<Job>) -> Vec<Done> {
        let work = || jobs.into_par_iter().map(|j| self.page(j)).collect();
        match &self.pool {
            Some(pool) => pool.install(work),
            None => work(),
        }
    }

    fn page(&self, job: Job) -> Done {
        let mut notes = Vec::new();
        let no = job.page;
        let result = self.recognise(job.source, no, job.width, &mut notes);
        match result {
            Ok((page, rotated)) => {
                let (w, h) = if rotated {
                    (job.height, job.width)
                } else {
                    (job.width, job.height)
                };
                Done {
                    page: no,
                    confidence: page.mean_confidence(),
                    words: page.words.len(),
                    lines: Ok(layout::page_lines(&page, w, h)),
                    notes,
                }
            }
            Err(e) => Done {
                page: no,
                lines: Err(e),
                confidence: None,
                words: 0,
                notes,
            },
        }
    }

    /// Pixels → preprocessing → words; `true` when the page was turned by 90 or 270 degrees.
    fn recognise(
        &self,
        source: Source,
        no: u32,
        width_pt: f32,
        notes: &mut Vec<String>,
    ) -> Result<(OcrPage, bool), String> {
        let (img, dpi) = match source {
            Source::Image(raw) => match xobject::decode(&raw) {
                Ok(img) => {
                    let dpi = (img.width as f32 * 72.0 / width_pt.max(1.0)).round() as u32;
                    (img, dpi.clamp(50, 1200))
                }
                Err(why) if self.pdf.is_some() => {
                    notes.push(format!(
                        "page {no}: image {} not decoded ({why}); page rasterised with pdftoppm instead",
                        raw.name
                    ));
                    (self.rasterise(no)?, self.opts.dpi)
                }
                Err(why) => return Err(format!("image {}: {why}", raw.name)),
            },
            Source::Raster => (self.rasterise(no)?, self.opts.dpi),
            Source::Pixels(img, declared) => {
                let dpi = super::raster::guess_dpi(&img, declared);
                (img, dpi)
            }
        };
        let (img, dpi) = preprocess::apply(img, dpi, self.opts.dpi, self.steps);
        let first = self
            .engine
            .recognize(&img, dpi)
            .map_err(|e| e.to_string())?;
        let poor = first.words.len() < 15 || first.mean_confidence().unwrap_or(0.0) < 70.0;
        if !(self.steps.osd && poor) {
            return Ok((first, false));
        }
        let Ok(Some(turn)) = self.engine.orientation(&img, dpi) else {
            return Ok((first, false));
        };
        if turn == 0 {
            return Ok((first, false));
        }
        let score =
            |p: &OcrPage| p.mean_confidence().unwrap_or(0.0) * (p.words.len() as f32).sqrt();
        let mut best = (score(&first), first, 0u16);
        // OSD's "Rotate" has been read both ways across versions: try it and its opposite.
        for t in [turn, (360 - turn) % 360] {
            let turned = img.rotate(t);
            if let Ok(p) = self.engine.recognize(&turned, dpi) {
                let s = score(&p);
                if s > best.0 * 1.1 {
                    best = (s, p, t);
                }
            }
            if best.2 != 0 {
                break;
            }
        }
        if best.2 != 0 {
            notes.push(format!(
                "page {no}: turned {}° (orientation detection)",
                best.2
            ));
        }
        Ok((best.1, best.2 % 180 == 90))
    }

    /// Page `no` of the PDF as grey pixels at the configured resolution.
    fn rasterise(&self, no: u32) -> Result<GrayImage, String> {
        let file = self
            .pdf_file
            .get_or_init(|| {
                let bytes = self.pdf.ok_or("not a PDF")?;
                let mut f = tempfile::Builder::new()
                    .prefix("chunklab-ocr-")
                    .suffix(".pdf")
                    .tempfile()
                    .map_err(|e| format!("scratch file for pdftoppm: {e}"))?;
                f.write_all(bytes)
                    .and_then(|_| f.flush())
                    .map_err(|e| format!("scratch file for pdftoppm: {e}"))?;
                Ok(f)
            })
            .as_ref()
            .map_err(Clone::clone)?;
        let program = std::env::var("CHUNKLAB_PDFTOPPM").unwrap_or_else(|_| "pdftoppm".into());
        let mut cmd = Command::new(program);
        cmd.args(["-f", &no.to_string(), "-l", &no.to_string(), "-r"])
            .arg(self.opts.dpi.to_string())
            .arg("-gray")
            .arg(file.path());
        let out = run(
            cmd,
            None,
            Duration::from_secs(self.opts.timeout_s),
            "pdftoppm",
            "poppler-utils",
        )
        .map_err(|e| e.to_string())?;
        if !out.success {
            return Err(format!("pdftoppm failed: {}", out.stderr.trim()));
        }
        GrayImage::from_pgm(&out.stdout).map_err(|e| format!("pdftoppm output: {e}"))
    }
}
