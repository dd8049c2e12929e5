//! Grey images: the one pixel format OCR works on, decoding of image files (PNG, JPEG, TIFF with
//! every page), PGM in and out (what goes to Tesseract and comes from `pdftoppm -gray`).

use std::io::Cursor;

/// An 8-bit grey image, row-major, 0 = black.
#[derive(Debug, Clone, PartialEq)]
pub struct GrayImage {
    pub width: u32,
    pub height: u32,
    pub data: Vec<u8>,
}

/// One page of an image file: pixels and the resolution it declares (if any).
#[derive(Debug, Clone)]
pub struct ImagePage {
    pub image: GrayImage,
    pub dpi: Option<f32>,
}

/// Largest image accepted, in pixels (a 600 dpi A0 scan is ~ 560 M; this is ~ 16k × 16k).
pub const MAX_PIXELS: u64 = 256 << 20;

impl GrayImage {
    /// A white image.
    pub fn new(width: u32, height: u32) -> GrayImage {
        GrayImage {
            width,
            height,
            data: vec![255; width as usize * height as usize],
        }
    }

    /// The pixel at (x, y).
    #[inline]
    pub fn get(&self, x: u32, y: u32) -> u8 {
        self.data[y as usize * self.width as usize + x as usize]
    }

    /// Binary PGM (P5), what Tesseract reads from stdin.
    pub fn to_pgm(&self) -> Vec<u8> {
        let mut out = format!("P5\n{} {}\n255\n", self.width, self.height).into_bytes();
        out.extend_from_slice(&self.data);
        out
    }

    /// Read a binary PGM (P5, 8 bit), as `pdftoppm -gray` writes it.
    pub fn from_pgm(bytes: &[u8]) -> Result<GrayImage, String> {
        let mut fields = Vec::new();
        let mut i = 0;
        while fields.len() < 4 {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if i < bytes.len() && bytes[i] == b'#' {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            let start = i;
            while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                i += 1;
            }
            if start == i {
                return Err("truncated PGM header".into());
            }
            fields.push(String::from_utf8_lossy(&bytes[start..i]).into_owned());
        }
        i += 1;
        if fields[0] != "P5" || fields[3] != "255" {
            return Err(format!(
                "not an 8-bit binary PGM ({} {})",
                fields[0], fields[3]
            ));
        }
        let w: u32 = fields[1].parse().map_err(|_| "bad PGM width")?;
        let h: u32 = fields[2].parse().map_err(|_| "bad PGM height")?;
        let n = w as usize * h as usize;
        if bytes.len() < i + n {
            return Err(format!("PGM of {w}×{h} is truncated"));
        }
        Ok(GrayImage {
            width: w,
            height: h,
            data: bytes[i..i + n].to_vec(),
        })
    }

    /// Rotated clockwise by 90, 180 or 270 degrees (anything else: unchanged).
    pub fn rotate(&self, degrees: u16) -> GrayImage {
        let (w, h) = (self.width as usize, self.height as usize);
        match degrees % 360 {
            90 => {
                let mut out = vec![0u8; w * h];
                for y in 0..h {
                    for x in 0..w {
                        out[x * h + (h - 1 - y)] = self.data[y * w + x];
                    }
                }
                GrayImage {
                    width: h as u32,
                    height: w as u32,
                    data: out,
                }
            }
            180 => {
                let mut data = self.data.clone();
                data.reverse();
                GrayImage {
                    width: self.width,
                    height: self.height,
                    data,
                }
            }
            270 => {
                let mut out = vec![0u8; w * h];
                for y in 0..h {
                    for x in 0..w {
                        out[(w - 1 - x) * h + y] = self.data[y * w + x];
                    }
                }
                GrayImage {
                    width: h as u32,
                    height: w as u32,
                    data: out,
                }
            }
            _ => self.clone(),
        }
    }

    /// Scaled by `factor` with bilinear interpolation.
    pub fn scale(&self, factor: f32) -> GrayImage {
        let nw = ((self.width as f32 * factor).round() as u32).max(1);
        let nh = ((self.height as f32 * factor).round() as u32).max(1);
        let mut out = Vec::with_capacity(nw as usize * nh as usize);
        let (w, h) = (self.width as usize, self.height as usize);
        for y in 0..nh {
            let sy = ((y as f32 + 0.5) / factor - 0.5).clamp(0.0, (h - 1) as f32);
            let y0 = sy as usize;
            let y1 = (y0 + 1).min(h - 1);
            let fy = sy - y0 as f32;
            for x in 0..nw {
                let sx = ((x as f32 + 0.5) / factor - 0.5).clamp(0.0, (w - 1) as f32);
                let x0 = sx as usize;
                let x1 = (x0 + 1).min(w - 1);
                let fx = sx - x0 as f32;
                let p = |xx: usize, yy: usize| self.data[yy * w + xx] as f32;
                let top = p(x0, y0) * (1.0 - fx) + p(x1, y0) * fx;
                let bottom = p(x0, y1) * (1.0 - fx) + p(x1, y1) * fx;
                out.push((top * (1.0 - fy) + bottom * fy).round() as u8);
            }
        }
        GrayImage {
            width: nw,
            height: nh,
            data: out,
        }
    }
}

/// Check a size before allocating for it.
pub(crate) fn check_size(width: u64, height: u64) -> Result<(), String> {
    if width == 0 || height == 0 {
        return Err("the image has no pixels".into());
    }
    if width * height > MAX_PIXELS {
        return Err(format!(
            "the image is {width}×{height} pixels, over the limit of {MAX_PIXELS}"
        ));
    }
    Ok(())
}

/// The image file format of `head`: `png`, `jpeg` or `tiff`.
pub fn sniff(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if head.starts_with(b"\xFF\xD8\xFF") {
        Some("jpeg")
    } else if head.starts_with(b"II*\0") || head.starts_with(b"MM\0*") {
        Some("tiff")
    } else {
        None
    }
}

/// Every page of a PNG, JPEG or TIFF file as grey pixels with its declared resolution.
pub fn decode_file(bytes: &[u8]) -> Result<Vec<ImagePage>, String> {
    match sniff(bytes) {
        Some("tiff") => decode_tiff(bytes),
        Some(kind) => {
            let image = decode_single(bytes)?;
            let dpi = if kind == "png" {
                png_dpi(bytes)
            } else {
                jpeg_dpi(bytes)
            };
            Ok(vec![ImagePage { image, dpi }])
        }
        None => Err("not a PNG, JPEG or TIFF image (unknown signature)".into()),
    }
}

/// A PNG or JPEG (or any format the `image` crate was built with) as grey pixels.
pub fn decode_single(bytes: &[u8]) -> Result<GrayImage, String> {
    let reader = image::ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .map_err(|e| e.to_string())?;
    let (w, h) = reader.into_dimensions().map_err(|e| e.to_string())?;
    check_size(w as u64, h as u64)?;
    let img = image::load_from_memory(bytes).map_err(|e| e.to_string())?;
    let luma = img.to_luma8();
    Ok(GrayImage {
        width: luma.width(),
        height: luma.height(),
        data: luma.into_raw(),
    })
}

/// The `tiff` crate panics on some malformed files (an index out of bounds on a strip table
/// that does not match the image): such a file is invalid, not a crash.
fn decode_tiff(bytes: &[u8]) -> Result<Vec<ImagePage>, String> {
    std::panic::catch_unwind(|| decode_tiff_unguarded(bytes))
        .unwrap_or_else(|_| Err("malformed TIFF (the TIFF decoder failed on it)".into()))
}

fn decode_tiff_unguarded(bytes: &[u8]) -> Result<Vec<ImagePage>, String> {
    use tiff::decoder::{Decoder, DecodingResult, Limits};
    use tiff::tags::Tag;
    let mut dec = Decoder::new(Cursor::new(bytes))
        .map_err(|e| e.to_string())?
        .with_limits(Limits::default());
    let mut pages = Vec::new();
    loop {
        let n = pages.len() + 1;
        let (w, h) = dec.dimensions().map_err(|e| format!("page {n}: {e}"))?;
        check_size(w as u64, h as u64).map_err(|e| format!("page {n}: {e}"))?;
        let color = dec.colortype().map_err(|e| format!("page {n}: {e}"))?;
        let white_is_zero = dec
            .find_tag_unsigned::<u16>(Tag::PhotometricInterpretation)
            .ok()
            .flatten()
            == Some(0);
        let dpi = dec
            .find_tag(Tag::XResolution)
            .ok()
            .flatten()
            .and_then(|v| v.into_f32().ok())
            .map(|r| {
                let unit = dec
                    .find_tag_unsigned::<u16>(Tag::ResolutionUnit)
                    .ok()
                    .flatten();
                if unit == Some(3) {
                    r * 2.54
                } else {
                    r
                }
            });
        let data = dec.read_image().map_err(|e| format!("page {n}: {e}"))?;
        let DecodingResult::U8(raw) = data else {
            return Err(format!(
                "page {n}: only 8-bit and 1-bit TIFF images are read"
            ));
        };
        let image = to_gray(&raw, w, h, color, white_is_zero)
            .ok_or_else(|| format!("page {n}: TIFF colour type {color:?} is not supported"))?;
        pages.push(ImagePage {
            image,
            dpi: dpi.filter(|d| *d > 10.0),
        });
        if !dec.more_images() {
            break;
        }
        dec.next_image()
            .map_err(|e| format!("page {}: {e}", n + 1))?;
    }
    Ok(pages)
}

fn to_gray(
    raw: &[u8],
    w: u32,
    h: u32,
    color: tiff::ColorType,
    white_is_zero: bool,
) -> Option<GrayImage> {
    use tiff::ColorType;
    let n = w as usize * h as usize;
    let mut data = match color {
        ColorType::Gray(8) => raw.get(..n)?.to_vec(),
        ColorType::Gray(1) => {
            let row = (w as usize).div_ceil(8);
            let mut out = Vec::with_capacity(n);
            for y in 0..h as usize {
                for x in 0..w as usize {
                    let b = raw.get(y * row + x / 8)?;
                    out.push(if b >> (7 - x % 8) & 1 == 1 { 255 } else { 0 });
                }
            }
            out
        }
        ColorType::GrayA(8) => raw.chunks_exact(2).take(n).map(|p| p[0]).collect(),
        ColorType::RGB(8) => raw.chunks_exact(3).take(n).map(luma).collect(),
        ColorType::RGBA(8) => raw.chunks_exact(4).take(n).map(luma).collect(),
        _ => return None,
    };
    if data.len() != n {
        return None;
    }
    if white_is_zero {
        data.iter_mut().for_each(|p| *p = 255 - *p);
    }
    Some(GrayImage {
        width: w,
        height: h,
        data,
    })
}

/// ITU-R 601 luma of an RGB pixel.
pub(crate) fn luma(p: &[u8]) -> u8 {
    ((p[0] as u32 * 299 + p[1] as u32 * 587 + p[2] as u32 * 114) / 1000) as u8
}

/// Horizontal resolution from a PNG `pHYs` chunk (pixels per metre).
fn png_dpi(bytes: &[u8]) -> Option<f32> {
    let mut i = 8;
    while i + 12 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[i..i + 4].try_into().ok()?) as usize;
        let kind = &bytes[i + 4..i + 8];
        if kind == b"pHYs" && len >= 9 && i + 8 + 9 <= bytes.len() {
            let d = &bytes[i + 8..i + 17];
            let ppu = u32::from_be_bytes(d[0..4].try_into().ok()?) as f32;
            return (d[8] == 1 && ppu > 0.0).then_some(ppu * 0.0254);
        }
        if kind == b"IDAT" {
            return None;
        }
        i += 12 + len;
    }
    None
}

/// Horizontal resolution from a JPEG's JFIF APP0 segment.
fn jpeg_dpi(bytes: &[u8]) -> Option<f32> {
    let app0 = bytes.get(2..20)?;
    if app0[0] != 0xFF || app0[1] != 0xE0 || &app0[4..9] != b"JFIF\0" {
        return None;
    }
    let unit = app0[11];
    let x = u16::from_be_bytes([app0[12], app0[13]]) as f32;
    match unit {
        1 if x > 1.0 => Some(x),
        2 if x > 1.0 => Some(x * 2.54),
        _ => None,
    }
}

/// A resolution for an image that declares none (or a placeholder like 72): the one at which
/// its width is that of an A4 or Letter page, within 100–600 dpi.
pub fn guess_dpi(image: &GrayImage, declared: Option<f32>) -> u32 {
    let guessed = (image.width.min(image.height) as f32 / 8.4).clamp(100.0, 600.0);
    match declared {
        Some(d) if (100.0..=1200.0).contains(&d) => d.round() as u32,
        _ => guessed.round() as u32,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pgm_round_trip_and_rotation() {
        let img = GrayImage {
            width: 3,
            height: 2,
            data: vec![1, 2, 3, 4, 5, 6],
        };
        assert_eq!(GrayImage::from_pgm(&img.to_pgm()).unwrap(), img);
        let r = img.rotate(90);
        assert_eq!((r.width, r.height), (2, 3));
        assert_eq!(r.data, vec![4, 1, 5, 2, 6, 3]);
        assert_eq!(r.rotate(270), img);
        assert_eq!(img.rotate(180).rotate(180), img);
        assert_eq!(img.scale(2.0).width, 6);
        assert!(GrayImage::from_pgm(b"P5\n3 2\n255\n\x01").is_err());
    }

    #[test]
    fn corrupt_files_are_errors() {
        assert!(decode_file(b"hello").is_err());
        assert!(decode_file(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").is_err());
        assert!(decode_file(b"II*\0\x08\0\0\0\xff\xff").is_err());
    }
}
