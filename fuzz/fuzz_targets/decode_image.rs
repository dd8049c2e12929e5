//! PNG, JPEG and TIFF decoding for OCR, up to (not including) the Tesseract call: the image
//! parser's decoding (`ocr::raster::decode_file`), the resolution guess and the pixel
//! preprocessing steps (`dpi`, `border`, `deskew`, `otsu`) on pages of at most 1 M pixels. An
//! error, never a panic.
#![no_main]

use chunklab_parse::ocr::preprocess::{apply, Steps};
use chunklab_parse::ocr::raster::{decode_file, guess_dpi};
use libfuzzer_sys::fuzz_target;

fuzz_target!(
    init: chunklab_fuzz::init(),
    |data: &[u8]| {
        let pages = match chunklab_fuzz::guard(|| decode_file(data)) {
            Ok(p) => p,
            Err(_) => return,
        };
        let all = Steps::parse("dpi,border,deskew,otsu").expect("known steps");
        for page in pages {
            let img = &page.image;
            assert_eq!(
                img.data.len() as u64,
                img.width as u64 * img.height as u64,
                "decoded pixels do not match the size"
            );
            if img.width as u64 * img.height as u64 > 1 << 20 {
                continue;
            }
            let dpi = guess_dpi(img, page.dpi);
            let (out, _) = chunklab_fuzz::guard(|| apply(page.image, dpi, 300, all));
            assert_eq!(out.data.len() as u64, out.width as u64 * out.height as u64);
        }
    }
);
