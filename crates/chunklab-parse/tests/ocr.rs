//! OCR with the real Tesseract on scanned fixtures built at test time from a born-digital PDF
//! whose true text is known: `pdftoppm` renders its pages, `img2pdf` wraps them as an
//! image-only PDF, `pdfunite` joins born-digital and scanned pages. Tesseract (with nld and eng),
//! pdftoppm, pdfunite and img2pdf must be installed (CI installs them from .ci/apt-packages);
//! a missing one fails the test with the package to install.

use chunklab_parse::image_file::ImageParser;
use chunklab_parse::ocr::{OcrMode, OcrOptions};
use chunklab_parse::pdf::{PdfOcrParser, PdfParser};
use chunklab_parse::{Limits, ParseError, ParsedDocument, Parser};
use chunklab_test_support::shared_dir;
use std::path::{Path, PathBuf};
use std::process::Command;

fn need(program: &str, package: &str) {
    let ok = Command::new(program)
        .arg(if program == "img2pdf" {
            "--version"
        } else {
            "-v"
        })
        .output()
        .is_ok();
    assert!(
        ok,
        "`{program}` is not installed: the OCR tests need it (Debian package {package})"
    );
}

fn tools() {
    need(
        "tesseract",
        "tesseract-ocr, tesseract-ocr-nld, tesseract-ocr-eng",
    );
    need("pdftoppm", "poppler-utils");
    need("pdfunite", "poppler-utils");
    need("img2pdf", "img2pdf");
}

fn run(cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn born_digital() -> PathBuf {
    shared_dir().join("datasets/documents/pdf/raadsbesluit.pdf")
}

/// The born-digital file parsed from its text layer: the reference for its scans.
fn born_digital_parse() -> ParsedDocument {
    PdfParser
        .parse(
            &std::fs::read(born_digital()).unwrap(),
            "t.pdf".as_ref(),
            &Limits::default(),
        )
        .unwrap()
}

/// Pages of `pdf` rendered as grey PNGs at `dpi` into `dir`: `p-1.png`, `p-2.png` ...
fn render(pdf: &Path, dpi: u32, dir: &Path) -> Vec<PathBuf> {
    run(Command::new("pdftoppm")
        .args(["-r", &dpi.to_string(), "-gray", "-png"])
        .arg(pdf)
        .arg(dir.join("p")));
    let mut pngs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "png"))
        .collect();
    pngs.sort();
    pngs
}

fn img2pdf(images: &[PathBuf], out: &Path) {
    run(Command::new("img2pdf").args(images).arg("-o").arg(out));
}

fn opts(mode: OcrMode) -> OcrOptions {
    OcrOptions {
        mode,
        ..OcrOptions::default()
    }
}

fn ocr_pdf(bytes: &[u8], mode: OcrMode) -> Result<ParsedDocument, ParseError> {
    PdfOcrParser { ocr: opts(mode) }.parse(bytes, "scan.pdf".as_ref(), &Limits::default())
}

/// Character error rate of `got` against `want`, whitespace collapsed.
fn cer(want: &str, got: &str) -> f64 {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let (a, b): (Vec<char>, Vec<char>) =
        (norm(want).chars().collect(), norm(got).chars().collect());
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            cur[j + 1] = (prev[j] + usize::from(ca != cb))
                .min(prev[j + 1] + 1)
                .min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()] as f64 / a.len().max(1) as f64
}

fn page_text(doc: &ParsedDocument, page: u32) -> String {
    doc.elements
        .iter()
        .filter(|e| e.page == Some(page) && e.heading_level_or_block())
        .map(|e| &doc.text[e.start..e.end])
        .collect::<Vec<_>>()
        .join("\n")
}

trait Block {
    fn heading_level_or_block(&self) -> bool;
}

impl Block for chunklab_parse::Element {
    /// Leaf blocks only (not tables around rows), so no text is counted twice.
    fn heading_level_or_block(&self) -> bool {
        !matches!(
            self.kind,
            chunklab_parse::ElementKind::Table | chunklab_parse::ElementKind::PageBreak
        )
    }
}

#[test]
fn scanned_pdf_is_read_with_confidence_and_low_cer() {
    tools();
    let dir = tempfile::tempdir().unwrap();
    let pngs = render(&born_digital(), 200, dir.path());
    let scan = dir.path().join("scan.pdf");
    img2pdf(&pngs, &scan);
    let bytes = std::fs::read(&scan).unwrap();
    // Without OCR the scan has no text, and says so.
    let plain = PdfParser
        .parse(&bytes, "scan.pdf".as_ref(), &Limits::default())
        .unwrap();
    assert!(plain.text.trim().is_empty());
    assert!(
        plain.warnings[0].contains("OCR not enabled"),
        "{:?}",
        plain.warnings
    );
    let truth = born_digital_parse();
    let doc = ocr_pdf(&bytes, OcrMode::Auto).unwrap();
    assert_eq!(
        doc.metadata.get("ocr_pages").map(String::as_str),
        Some("1–2")
    );
    assert!(doc.metadata["ocr"].starts_with("tesseract nld+eng"));
    let confs = chunklab_parse::ocr::page_confidences(&doc.metadata);
    assert_eq!(confs.len(), 2);
    assert!(confs.iter().all(|(_, c)| *c > 80.0), "{confs:?}");
    for page in 1..=2 {
        let e = cer(&page_text(&truth, page), &page_text(&doc, page));
        assert!(e < 0.05, "page {page}: CER {e:.3}");
    }
    // Structure from the shared builder: the born-digital file's title and headings, at
    // their levels, and pages on every element.
    assert_eq!(headings(&doc), headings(&truth));
    assert!(doc.elements.iter().all(|e| e.page.is_some()));
}

/// (level, text) of a document's title (level 0) and headings.
fn headings(doc: &ParsedDocument) -> Vec<(u8, String)> {
    doc.elements
        .iter()
        .filter_map(|e| {
            Some((
                e.kind.heading_level()?,
                doc.text[e.start..e.end].to_string(),
            ))
        })
        .collect()
}

/// A scan's headings are the born-digital file's at every common resolution: a two-line title
/// is one title (a descender in its second line once made it a quarter bigger than the first,
/// so the first became a heading and the second the title), sections keep their level on every
/// page, and a table row whose box caught a rule stays a row.
#[test]
fn scanned_headings_are_the_born_digital_ones_at_150_to_300_dpi() {
    tools();
    let truth = born_digital_parse();
    let want = headings(&truth);
    assert_eq!(want.len(), 8, "{want:?}");
    assert_eq!(
        want[0],
        (
            0,
            "Raadsbesluit 2020-117: Kader voor windenergie op land".to_string()
        )
    );
    for dpi in [150, 300] {
        let dir = tempfile::tempdir().unwrap();
        let pngs = render(&born_digital(), dpi, dir.path());
        let scan = dir.path().join("scan.pdf");
        img2pdf(&pngs, &scan);
        let doc = ocr_pdf(&std::fs::read(&scan).unwrap(), OcrMode::Auto).unwrap();
        assert_eq!(headings(&doc), want, "{dpi} dpi");
        assert!(
            doc.elements
                .iter()
                .any(|e| e.kind == chunklab_parse::ElementKind::Table),
            "{dpi} dpi: the table"
        );
    }
}

#[test]
fn auto_mode_ocrs_only_image_pages_and_never_mode_none() {
    tools();
    let dir = tempfile::tempdir().unwrap();
    let pngs = render(&born_digital(), 150, dir.path());
    let scan = dir.path().join("scan.pdf");
    img2pdf(&pngs[..1], &scan);
    let mixed = dir.path().join("mixed.pdf");
    run(Command::new("pdfunite")
        .arg(born_digital())
        .arg(&scan)
        .arg(&mixed));
    let bytes = std::fs::read(&mixed).unwrap();
    let doc = ocr_pdf(&bytes, OcrMode::Auto).unwrap();
    assert_eq!(doc.pages, Some(3));
    assert_eq!(doc.metadata.get("ocr_pages").map(String::as_str), Some("3"));
    assert!(doc.elements.iter().any(|e| e.page == Some(3)));
    let never = ocr_pdf(&bytes, OcrMode::Never).unwrap();
    assert!(!never.metadata.contains_key("ocr_pages"));
    assert!(
        never
            .warnings
            .iter()
            .any(|w| w.contains("no text on page 3")),
        "{:?}",
        never.warnings
    );
}

#[test]
fn image_files_png_and_multipage_tiff() {
    tools();
    let dir = tempfile::tempdir().unwrap();
    let pngs = render(&born_digital(), 150, dir.path());
    let parser = ImageParser::default();
    let png = std::fs::read(&pngs[0]).unwrap();
    let doc = parser
        .parse(&png, "p-1.png".as_ref(), &Limits::default())
        .unwrap();
    assert_eq!(doc.format, "image");
    assert_eq!(doc.pages, Some(1));
    assert!(doc.text.contains("Voorbeeldstad"), "{}", doc.text);
    // A two-page TIFF written here from the two rendered pages.
    let mut tif = std::io::Cursor::new(Vec::new());
    {
        let mut enc = tiff::encoder::TiffEncoder::new(&mut tif).unwrap();
        for p in &pngs {
            let img = image::open(p).unwrap().to_luma8();
            enc.write_image::<tiff::encoder::colortype::Gray8>(
                img.width(),
                img.height(),
                img.as_raw(),
            )
            .unwrap();
        }
    }
    let doc = parser
        .parse(tif.get_ref(), "scan.tif".as_ref(), &Limits::default())
        .unwrap();
    assert_eq!(doc.pages, Some(2));
    assert_eq!(
        doc.metadata.get("ocr_pages").map(String::as_str),
        Some("1–2")
    );
}

#[test]
fn corrupt_images_are_errors_not_panics() {
    let parser = ImageParser::default();
    let mut png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\x01\0\0\0\x01\0\x08\0\0\0\0".to_vec();
    png.extend_from_slice(&[0xde, 0xad]);
    match parser.parse(&png, "bad.png".as_ref(), &Limits::default()) {
        Err(ParseError::Invalid { format, message }) => {
            assert_eq!(format, "png");
            assert!(!message.is_empty());
        }
        other => panic!("expected an Invalid error, got {other:?}"),
    }
    let never = ImageParser {
        ocr: opts(OcrMode::Never),
    };
    let tiny = {
        let mut c = std::io::Cursor::new(Vec::new());
        image::GrayImage::new(4, 4)
            .write_to(&mut c, image::ImageFormat::Png)
            .unwrap();
        c.into_inner()
    };
    let err = never
        .parse(&tiny, "x.png".as_ref(), &Limits::default())
        .unwrap_err();
    assert!(err.to_string().contains("--ocr never"), "{err}");
}
