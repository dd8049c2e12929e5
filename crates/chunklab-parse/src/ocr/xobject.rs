//! The image on a scanned PDF page: found among the page's image XObjects and decoded in Rust —
//! DCT (JPEG), Flate (with PNG predictors), uncompressed, and CCITT G3 (1-D) / G4 fax — into grey
//! pixels. JBIG2, JPEG 2000 and anything else is reported by name so the caller can rasterise the
//! page instead (or warn).

use super::raster::{check_size, decode_single, luma, GrayImage};
use flate2::read::ZlibDecoder;
use lopdf::{Dictionary, Document, Object, ObjectId};
use std::io::Read;

/// Images smaller than this many pixels (logos, rules, stamps) do not count as the page scan.
const MIN_SCAN_PIXELS: u64 = 200 * 200;

/// What a page shows as images.
#[derive(Debug)]
pub(crate) enum PageImage {
    /// No image big enough to be a scan.
    None,
    /// Exactly one scan-sized image.
    One(Box<RawImage>),
    /// Several scan-sized images, or images inside form XObjects: rasterise the page.
    Several,
}

/// An image XObject's encoded data and what is needed to decode it.
#[derive(Debug)]
pub(crate) struct RawImage {
    /// `/Im0` — for messages.
    pub name: String,
    pub data: Vec<u8>,
    pub filters: Vec<Vec<u8>>,
    pub parms: Option<Dictionary>,
    pub width: u32,
    pub height: u32,
    pub bpc: u32,
    pub color: Color,
    pub invert: bool,
}

/// An image's colour space, as far as decoding to grey needs it.
#[derive(Debug, Clone)]
pub(crate) enum Color {
    Gray,
    Rgb,
    Cmyk,
    /// Palette of `base` components per entry.
    Indexed {
        base: u32,
        palette: Vec<u8>,
    },
    Other(String),
}

/// The scan image of `page` (looked up in its resources, inherited ones included).
pub(crate) fn page_image(doc: &Document, page: ObjectId) -> PageImage {
    let Some(resources) = inherited(doc, page, b"Resources").and_then(|o| dict(doc, o)) else {
        return PageImage::None;
    };
    let Some(xobjects) = resources.get(b"XObject").ok().and_then(|o| dict(doc, o)) else {
        return PageImage::None;
    };
    let mut found = Vec::new();
    let mut forms = 0usize;
    for (name, obj) in xobjects.iter() {
        let Some(Object::Stream(s)) = deref(doc, obj) else {
            continue;
        };
        match s.dict.get(b"Subtype").and_then(Object::as_name) {
            Ok(b"Form") => forms += 1,
            Ok(b"Image") => {
                let num = |k: &[u8]| {
                    s.dict
                        .get(k)
                        .ok()
                        .and_then(|o| deref(doc, o))
                        .and_then(|o| o.as_i64().ok())
                        .unwrap_or(0)
                        .max(0) as u32
                };
                let (w, h) = (num(b"Width"), num(b"Height"));
                if (w as u64) * (h as u64) < MIN_SCAN_PIXELS {
                    continue;
                }
                let mask = matches!(s.dict.get(b"ImageMask"), Ok(Object::Boolean(true)));
                let filters: Vec<Vec<u8>> =
                    match s.dict.get(b"Filter").ok().and_then(|o| deref(doc, o)) {
                        Some(Object::Name(n)) => vec![n.clone()],
                        Some(Object::Array(a)) => a
                            .iter()
                            .filter_map(|o| o.as_name().ok().map(<[u8]>::to_vec))
                            .collect(),
                        _ => Vec::new(),
                    };
                let parms = match s.dict.get(b"DecodeParms").ok().and_then(|o| deref(doc, o)) {
                    Some(Object::Dictionary(d)) => Some(d.clone()),
                    Some(Object::Array(a)) => a
                        .last()
                        .and_then(|o| deref(doc, o))
                        .and_then(|o| o.as_dict().ok())
                        .cloned(),
                    _ => None,
                };
                let invert = match s.dict.get(b"Decode").ok().and_then(|o| deref(doc, o)) {
                    Some(Object::Array(a)) => a
                        .first()
                        .and_then(|o| o.as_float().ok().or(o.as_i64().ok().map(|i| i as f32)))
                        .is_some_and(|v| v > 0.5),
                    _ => false,
                };
                let color = if mask {
                    Color::Gray
                } else {
                    color_space(doc, s.dict.get(b"ColorSpace").ok())
                };
                found.push(RawImage {
                    name: format!("/{}", String::from_utf8_lossy(name)),
                    data: s.content.clone(),
                    filters,
                    parms,
                    width: w,
                    height: h,
                    bpc: if mask {
                        1
                    } else {
                        num(b"BitsPerComponent").max(1)
                    },
                    color,
                    invert,
                });
            }
            _ => {}
        }
    }
    match (found.len(), forms) {
        (1, 0) => PageImage::One(Box::new(found.pop().expect("one image"))),
        (0, 0) => PageImage::None,
        _ => PageImage::Several,
    }
}

fn color_space(doc: &Document, obj: Option<&Object>) -> Color {
    let Some(obj) = obj.and_then(|o| deref(doc, o)) else {
        return Color::Gray;
    };
    match obj {
        Object::Name(n) => match n.as_slice() {
            b"DeviceGray" | b"G" | b"CalGray" => Color::Gray,
            b"DeviceRGB" | b"RGB" | b"CalRGB" => Color::Rgb,
            b"DeviceCMYK" | b"CMYK" => Color::Cmyk,
            other => Color::Other(String::from_utf8_lossy(other).into_owned()),
        },
        Object::Array(a) => {
            let kind = a.first().and_then(|o| o.as_name().ok()).unwrap_or_default();
            match kind {
                b"ICCBased" => {
                    let n = a
                        .get(1)
                        .and_then(|o| deref(doc, o))
                        .and_then(|o| o.as_stream().ok())
                        .and_then(|s| s.dict.get(b"N").ok()?.as_i64().ok())
                        .unwrap_or(3);
                    match n {
                        1 => Color::Gray,
                        4 => Color::Cmyk,
                        _ => Color::Rgb,
                    }
                }
                b"CalGray" => Color::Gray,
                b"CalRGB" | b"Lab" => Color::Rgb,
                b"Indexed" | b"I" => {
                    let base = match color_space(doc, a.get(1)) {
                        Color::Gray => 1,
                        Color::Cmyk => 4,
                        _ => 3,
                    };
                    let palette = match a.get(3).and_then(|o| deref(doc, o)) {
                        Some(Object::String(s, _)) => s.clone(),
                        Some(Object::Stream(s)) => s.decompressed_content().unwrap_or_default(),
                        _ => Vec::new(),
                    };
                    Color::Indexed { base, palette }
                }
                other => Color::Other(String::from_utf8_lossy(other).into_owned()),
            }
        }
        _ => Color::Gray,
    }
}

/// Decode to grey pixels; the error names the filter or colour space that is not supported.
pub(crate) fn decode(img: &RawImage) -> Result<GrayImage, String> {
    check_size(img.width as u64, img.height as u64)?;
    let comps = match &img.color {
        Color::Gray | Color::Indexed { .. } => 1,
        Color::Rgb => 3,
        Color::Cmyk => 4,
        Color::Other(name) => return Err(format!("colour space {name} is not supported")),
    };
    let limit = (img.width as usize * img.height as usize * comps * img.bpc as usize).div_ceil(8)
        + img.height as usize
        + 1024;
    let mut data = img.data.clone();
    let n = img.filters.len();
    for (i, f) in img.filters.iter().enumerate() {
        let last = i + 1 == n;
        match f.as_slice() {
            b"FlateDecode" | b"Fl" => {
                data = inflate(&data, limit)?;
                if last {
                    data = unpredict(data, img, comps)?;
                }
            }
            b"DCTDecode" | b"DCT" if last => {
                let mut g = decode_single(&data).map_err(|e| format!("JPEG: {e}"))?;
                if img.invert {
                    g.data.iter_mut().for_each(|p| *p = 255 - *p);
                }
                return Ok(g);
            }
            b"CCITTFaxDecode" | b"CCF" if last => return fax(&data, img),
            b"JBIG2Decode" => return Err("JBIG2 is not decoded in Rust".into()),
            b"JPXDecode" => return Err("JPEG 2000 is not decoded in Rust".into()),
            other => {
                return Err(format!(
                    "filter {} is not supported for images",
                    String::from_utf8_lossy(other)
                ))
            }
        }
    }
    raw_pixels(&data, img, comps)
}

fn inflate(data: &[u8], limit: usize) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let res = ZlibDecoder::new(data)
        .take(limit as u64 + 1)
        .read_to_end(&mut out);
    if out.len() > limit {
        return Err("image data inflates beyond its declared size".into());
    }
    if out.is_empty() {
        return Err(format!(
            "Flate data is corrupt ({})",
            res.err().map_or("empty".into(), |e| e.to_string())
        ));
    }
    Ok(out)
}

/// Undo PNG predictors (Predictor ≥ 10) of a Flate stream.
fn unpredict(data: Vec<u8>, img: &RawImage, comps: usize) -> Result<Vec<u8>, String> {
    let predictor = img
        .parms
        .as_ref()
        .and_then(|p| p.get(b"Predictor").ok()?.as_i64().ok())
        .unwrap_or(1);
    if predictor < 10 {
        return if predictor == 1 {
            Ok(data)
        } else {
            Err(format!("Flate predictor {predictor} is not supported"))
        };
    }
    let bpp = (comps * img.bpc as usize).div_ceil(8).max(1);
    let row = (img.width as usize * comps * img.bpc as usize).div_ceil(8);
    let mut out = Vec::with_capacity(row * img.height as usize);
    let mut prev = vec![0u8; row];
    for chunk in data.chunks(row + 1) {
        if chunk.len() < row + 1 {
            break;
        }
        let (kind, src) = (chunk[0], &chunk[1..]);
        let mut cur = src.to_vec();
        for i in 0..row {
            let a = if i >= bpp { cur[i - bpp] as i16 } else { 0 };
            let b = prev[i] as i16;
            let c = if i >= bpp { prev[i - bpp] as i16 } else { 0 };
            let add = match kind {
                0 => 0,
                1 => a,
                2 => b,
                3 => (a + b) / 2,
                4 => {
                    let p = a + b - c;
                    let (pa, pb, pc) = ((p - a).abs(), (p - b).abs(), (p - c).abs());
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                k => return Err(format!("PNG predictor row type {k} is invalid")),
            };
            cur[i] = cur[i].wrapping_add(add as u8);
        }
        out.extend_from_slice(&cur);
        prev = cur;
    }
    Ok(out)
}

/// Unpacked samples (1, 2, 4 or 8 bits) → grey.
fn raw_pixels(data: &[u8], img: &RawImage, comps: usize) -> Result<GrayImage, String> {
    let (w, h, bpc) = (img.width as usize, img.height as usize, img.bpc as usize);
    if !matches!(bpc, 1 | 2 | 4 | 8) {
        return Err(format!("{bpc} bits per component is not supported"));
    }
    let row = (w * comps * bpc).div_ceil(8);
    if data.len() < row * h {
        return Err(format!(
            "image data is truncated ({} of {} bytes)",
            data.len(),
            row * h
        ));
    }
    let max = (1u32 << bpc) - 1;
    let sample = |r: &[u8], i: usize| -> u32 {
        if bpc == 8 {
            return r[i] as u32;
        }
        let bit = i * bpc;
        ((r[bit / 8] >> (8 - bpc - bit % 8)) as u32) & max
    };
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h {
        let r = &data[y * row..(y + 1) * row];
        for x in 0..w {
            let v = match &img.color {
                Color::Indexed { base, palette } => {
                    let idx = sample(r, x) as usize * *base as usize;
                    match palette.get(idx..idx + *base as usize) {
                        Some(p) if *base == 3 => luma(p),
                        Some(p) if *base == 4 => cmyk(p),
                        Some(p) => p[0],
                        None => 255,
                    }
                }
                _ if comps == 1 => (sample(r, x) * 255 / max) as u8,
                _ => {
                    let px: Vec<u8> = (0..comps)
                        .map(|c| (sample(r, x * comps + c) * 255 / max) as u8)
                        .collect();
                    if comps == 4 {
                        cmyk(&px)
                    } else {
                        luma(&px)
                    }
                }
            };
            out.push(v);
        }
    }
    // A stencil mask paints (black) where the sample is 0; Decode [1 0] swaps that.
    if img.invert {
        out.iter_mut().for_each(|p| *p = 255 - *p);
    }
    Ok(GrayImage {
        width: img.width,
        height: img.height,
        data: out,
    })
}

fn cmyk(p: &[u8]) -> u8 {
    let k = p[3] as u32;
    let rgb: Vec<u8> = p[..3]
        .iter()
        .map(|&c| (255 - (c as u32 + k).min(255)) as u8)
        .collect();
    luma(&rgb)
}

/// CCITT G4 (K < 0) or G3 1-D (K = 0) fax data.
fn fax(data: &[u8], img: &RawImage) -> Result<GrayImage, String> {
    let p = |k: &[u8]| img.parms.as_ref().and_then(|d| d.get(k).ok());
    let k = p(b"K").and_then(|o| o.as_i64().ok()).unwrap_or(0);
    let columns = p(b"Columns")
        .and_then(|o| o.as_i64().ok())
        .unwrap_or(1728)
        .clamp(1, u16::MAX as i64) as u16;
    let rows = p(b"Rows")
        .and_then(|o| o.as_i64().ok())
        .filter(|&r| r > 0)
        .unwrap_or(img.height as i64)
        .clamp(1, u16::MAX as i64) as u16;
    let black_is_1 = matches!(p(b"BlackIs1"), Some(Object::Boolean(true)));
    let w = columns as usize;
    let mut out: Vec<u8> = Vec::with_capacity(w * rows as usize);
    let mut push_line = |transitions: &[u16]| {
        for c in fax::decoder::pels(transitions, columns) {
            out.push(if c == fax::Color::Black { 0 } else { 255 });
        }
    };
    let ok = if k < 0 {
        fax::decoder::decode_g4(data.iter().copied(), columns, Some(rows), &mut push_line)
    } else if k == 0 {
        fax::decoder::decode_g3(data.iter().copied(), &mut push_line)
    } else {
        return Err("CCITT G3 2-D (K > 0) is not supported".into());
    };
    let lines = out.len() / w;
    if ok.is_none() && lines == 0 {
        return Err("CCITT fax data is corrupt".into());
    }
    out.truncate(lines.min(rows as usize) * w);
    out.resize(rows as usize * w, 255);
    // A black run is sample 0 (or 1 with BlackIs1), which DeviceGray paints black (or white
    // with Decode [1 0]).
    if black_is_1 != img.invert {
        out.iter_mut().for_each(|p| *p = 255 - *p);
    }
    Ok(GrayImage {
        width: columns as u32,
        height: rows as u32,
        data: out,
    })
}

fn deref<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Object> {
    match obj {
        Object::Reference(id) => doc.get_object(*id).ok(),
        o => Some(o),
    }
}

fn dict<'a>(doc: &'a Document, obj: &'a Object) -> Option<&'a Dictionary> {
    match deref(doc, obj)? {
        Object::Dictionary(d) => Some(d),
        Object::Stream(s) => Some(&s.dict),
        _ => None,
    }
}

/// A page attribute, looked up the /Parent chain (Resources, MediaBox).
pub(crate) fn inherited<'a>(doc: &'a Document, page: ObjectId, key: &[u8]) -> Option<&'a Object> {
    let mut node = doc.get_object(page).ok().and_then(|o| o.as_dict().ok());
    for _ in 0..64 {
        let d = node?;
        if let Ok(v) = d.get(key) {
            return Some(v);
        }
        node = d
            .get(b"Parent")
            .ok()
            .and_then(|o| deref(doc, o))
            .and_then(|o| o.as_dict().ok());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(data: Vec<u8>, filters: &[&[u8]], bpc: u32, color: Color) -> RawImage {
        RawImage {
            name: "/Im0".into(),
            data,
            filters: filters.iter().map(|f| f.to_vec()).collect(),
            parms: None,
            width: 4,
            height: 2,
            bpc,
            color,
            invert: false,
        }
    }

    #[test]
    fn raw_and_flate_pixels() {
        let g = decode(&raw(vec![0, 85, 170, 255, 1, 2, 3, 4], &[], 8, Color::Gray)).unwrap();
        assert_eq!(g.data[..4], [0, 85, 170, 255]);
        let bits = decode(&raw(vec![0b1010_0000, 0b0101_0000], &[], 1, Color::Gray)).unwrap();
        assert_eq!(bits.data, vec![255, 0, 255, 0, 0, 255, 0, 255]);
        let mut enc = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut enc, &[9u8; 24]).unwrap();
        let rgb = decode(&raw(
            enc.finish().unwrap(),
            &[b"FlateDecode"],
            8,
            Color::Rgb,
        ))
        .unwrap();
        assert_eq!(rgb.data, vec![9; 8]);
    }

    #[test]
    fn unsupported_and_corrupt_are_named() {
        let e = decode(&raw(vec![1, 2], &[b"JBIG2Decode"], 1, Color::Gray)).unwrap_err();
        assert!(e.contains("JBIG2"), "{e}");
        let e = decode(&raw(vec![1, 2, 3], &[b"FlateDecode"], 8, Color::Gray)).unwrap_err();
        assert!(e.contains("corrupt"), "{e}");
        let e = decode(&raw(
            vec![0xFF, 0xD8, 0xFF, 0],
            &[b"DCTDecode"],
            8,
            Color::Gray,
        ))
        .unwrap_err();
        assert!(e.contains("JPEG"), "{e}");
        let e = decode(&raw(vec![0; 4], &[], 8, Color::Gray)).unwrap_err();
        assert!(e.contains("truncated"), "{e}");
    }
}
