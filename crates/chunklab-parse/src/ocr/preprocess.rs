//! Preprocessing of scanned pages before recognition. Each step can be switched on and off
//! (`--ocr-preprocess dpi,deskew`) so its effect is measured (`scripts/scanned-set/measure.sh`,
//! docs/EVALUATION.md): `dpi` scales low-resolution scans up (and very high ones down) to the
//! target resolution, `border` whitens the dark margins a scanner leaves, `deskew` finds the
//! skew by projection profiles and rotates it away, `otsu` binarises with Otsu's threshold, `osd`
//! asks the engine for the page orientation (90/180/270) when a first reading is poor.

use super::GrayImage;

/// The preprocessing steps that are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Steps {
    pub dpi: bool,
    pub border: bool,
    pub deskew: bool,
    pub otsu: bool,
    pub osd: bool,
}

impl Steps {
    /// The default: the steps that helped on the scanned test set (docs/EVALUATION.md).
    pub const DEFAULT: &'static str = "dpi,deskew,osd";
    /// Every step name.
    pub const ALL: [&'static str; 5] = ["dpi", "border", "deskew", "otsu", "osd"];

    /// Parse `dpi,deskew,...` (or `none`).
    pub fn parse(list: &str) -> Result<Steps, String> {
        let mut s = Steps::default();
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            match name {
                "none" => {}
                "all" => {
                    s = Steps {
                        dpi: true,
                        border: true,
                        deskew: true,
                        otsu: true,
                        osd: true,
                    }
                }
                "dpi" => s.dpi = true,
                "border" => s.border = true,
                "deskew" => s.deskew = true,
                "otsu" => s.otsu = true,
                "osd" => s.osd = true,
                other => {
                    return Err(format!(
                        "unknown step `{other}`; known: {}, all, none",
                        Steps::ALL.join(", ")
                    ))
                }
            }
        }
        Ok(s)
    }
}

/// Apply the pixel steps (everything but `osd`) to a page scanned at `dpi`; returns the image and
/// its resolution afterwards.
pub fn apply(mut img: GrayImage, dpi: u32, target: u32, steps: Steps) -> (GrayImage, u32) {
    let mut dpi = dpi;
    if steps.dpi && (dpi * 10 < target * 8 || dpi > target * 3 / 2) {
        let factor = target as f32 / dpi as f32;
        img = img.scale(factor);
        dpi = target;
    }
    if steps.border {
        remove_border(&mut img);
    }
    if steps.deskew {
        let angle = skew_angle(&img);
        if angle.abs() > 0.15 {
            img = rotate_small(&img, angle);
        }
    }
    if steps.otsu {
        let t = otsu(&img);
        img.data
            .iter_mut()
            .for_each(|p| *p = if *p <= t { 0 } else { 255 });
    }
    (img, dpi)
}

/// Otsu's threshold: the grey level that best separates ink from paper.
pub fn otsu(img: &GrayImage) -> u8 {
    let mut hist = [0u64; 256];
    for &p in &img.data {
        hist[p as usize] += 1;
    }
    let total = img.data.len() as f64;
    let sum_all: f64 = hist
        .iter()
        .enumerate()
        .map(|(i, &h)| i as f64 * h as f64)
        .sum();
    let (mut w0, mut sum0, mut best, mut best_t) = (0.0, 0.0, -1.0, 127u8);
    for (t, &h) in hist.iter().enumerate() {
        w0 += h as f64;
        if w0 == 0.0 {
            continue;
        }
        let w1 = total - w0;
        if w1 == 0.0 {
            break;
        }
        sum0 += t as f64 * h as f64;
        let m0 = sum0 / w0;
        let m1 = (sum_all - sum0) / w1;
        let between = w0 * w1 * (m0 - m1) * (m0 - m1);
        if between > best {
            best = between;
            best_t = t as u8;
        }
    }
    best_t
}

/// The skew of the text lines in degrees (positive: lines fall to the right), from the
/// projection profile of the ink, searched within ±5°.
pub fn skew_angle(img: &GrayImage) -> f32 {
    let small = if img.width > 1000 {
        img.scale(1000.0 / img.width as f32)
    } else {
        img.clone()
    };
    let t = otsu(&small);
    let mut ink = Vec::new();
    for y in 0..small.height {
        for x in 0..small.width {
            if small.get(x, y) <= t {
                ink.push((x as f32, y as f32));
            }
        }
    }
    // Too little ink, or a dark page (ink everywhere): no skew can be told.
    if ink.len() < 200 || ink.len() * 3 > small.data.len() {
        return 0.0;
    }
    let score = |deg: f32| {
        let tan = deg.to_radians().tan();
        let mut bins = vec![0u32; small.height as usize * 2 + small.width as usize];
        let off = small.width as f32;
        for &(x, y) in &ink {
            let row = (y - x * tan + off) as usize;
            if let Some(b) = bins.get_mut(row) {
                *b += 1;
            }
        }
        bins.iter().map(|&b| (b as f64) * (b as f64)).sum::<f64>()
    };
    let search = |from: f32, to: f32, step: f32| {
        let mut best = (f64::MIN, 0.0f32);
        let mut a = from;
        while a <= to + 1e-4 {
            let s = score(a);
            if s > best.0 {
                best = (s, a);
            }
            a += step;
        }
        best.1
    };
    let coarse = search(-5.0, 5.0, 0.25);
    search(coarse - 0.25, coarse + 0.25, 0.05)
}

/// Rotated by `degrees` (small angles; positive turns lines that fall to the right level) around
/// the centre, bilinear, white where nothing maps.
pub fn rotate_small(img: &GrayImage, degrees: f32) -> GrayImage {
    let (sin, cos) = degrees.to_radians().sin_cos();
    let (w, h) = (img.width as usize, img.height as usize);
    let (cx, cy) = (w as f32 / 2.0, h as f32 / 2.0);
    let mut out = Vec::with_capacity(w * h);
    for y in 0..h {
        let dy = y as f32 - cy;
        for x in 0..w {
            let dx = x as f32 - cx;
            let sx = cx + dx * cos - dy * sin;
            let sy = cy + dx * sin + dy * cos;
            if sx < 0.0 || sy < 0.0 || sx > (w - 1) as f32 || sy > (h - 1) as f32 {
                out.push(255);
                continue;
            }
            let (x0, y0) = (sx as usize, sy as usize);
            let (x1, y1) = ((x0 + 1).min(w - 1), (y0 + 1).min(h - 1));
            let (fx, fy) = (sx - x0 as f32, sy - y0 as f32);
            let p = |xx: usize, yy: usize| img.data[yy * w + xx] as f32;
            let top = p(x0, y0) * (1.0 - fx) + p(x1, y0) * fx;
            let bottom = p(x0, y1) * (1.0 - fx) + p(x1, y1) * fx;
            out.push((top * (1.0 - fy) + bottom * fy).round() as u8);
        }
    }
    GrayImage {
        width: img.width,
        height: img.height,
        data: out,
    }
}

/// Whiten dark bands along the edges (scanner lid, page shadow): rows and columns from each edge
/// inward that are more than half ink, up to a tenth of the page.
pub fn remove_border(img: &mut GrayImage) {
    let t = otsu(img);
    let (w, h) = (img.width as usize, img.height as usize);
    let dark_row = |img: &GrayImage, y: usize| {
        img.data[y * w..(y + 1) * w]
            .iter()
            .filter(|&&p| p <= t)
            .count()
            * 2
            > w
    };
    let dark_col =
        |img: &GrayImage, x: usize| (0..h).filter(|&y| img.data[y * w + x] <= t).count() * 2 > h;
    let (max_y, max_x) = (h / 10, w / 10);
    let top = (0..max_y).take_while(|&y| dark_row(img, y)).count();
    let bottom = (0..max_y).take_while(|&i| dark_row(img, h - 1 - i)).count();
    let left = (0..max_x).take_while(|&x| dark_col(img, x)).count();
    let right = (0..max_x).take_while(|&i| dark_col(img, w - 1 - i)).count();
    for y in 0..h {
        for x in 0..w {
            if y < top || y >= h - bottom || x < left || x >= w - right {
                img.data[y * w + x] = 255;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A white page with dark horizontal bars (text lines) sloping by `deg`.
    fn lines_at(deg: f32) -> GrayImage {
        let mut img = GrayImage::new(600, 400);
        let tan = deg.to_radians().tan();
        for line in 0..8 {
            let y0 = 60.0 + line as f32 * 35.0;
            for x in 50..550u32 {
                let y = (y0 + (x as f32 - 300.0) * tan).round() as u32;
                for dy in 0..6 {
                    if (x / 9) % 4 != 3 {
                        img.data[((y + dy) * 600 + x) as usize] = 20;
                    }
                }
            }
        }
        img
    }

    #[test]
    fn skew_is_found_and_removed() {
        for deg in [-2.5f32, 0.0, 1.5, 3.0] {
            let img = lines_at(deg);
            let found = skew_angle(&img);
            assert!((found - deg).abs() < 0.2, "skew {deg}: found {found}");
            let level = rotate_small(&img, found);
            assert!(skew_angle(&level).abs() < 0.2);
        }
    }

    #[test]
    fn otsu_splits_ink_from_paper() {
        let mut img = GrayImage::new(10, 10);
        img.data[..30].iter_mut().for_each(|p| *p = 40);
        img.data[30..].iter_mut().for_each(|p| *p = 220);
        let t = otsu(&img);
        assert!((40..220).contains(&t), "{t}");
    }

    #[test]
    fn borders_whitened_and_steps_parsed() {
        let mut img = lines_at(0.0);
        for y in 0..400 {
            for x in 0..20 {
                img.data[y * 600 + x] = 0;
            }
        }
        remove_border(&mut img);
        assert!(img.data[300 * 600 + 5] == 255 && img.data[60 * 600 + 90] == 20);
        assert!(Steps::parse(Steps::DEFAULT).unwrap().deskew);
        assert_eq!(Steps::parse("none").unwrap(), Steps::default());
        assert!(Steps::parse("dpi,sharpen").is_err());
    }
}
