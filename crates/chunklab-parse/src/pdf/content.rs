//! The content-stream interpreter: runs a page's text operators (and the form XObjects it draws)
//! and records every glyph with its text, baseline position, advance and font size in the page's
//! display coordinates (origin bottom-left, y up, page /Rotate applied).

use super::font::{as_dict, as_number, deref, Font};
use super::lexer::{Lexer, Operand};
use super::stream::{stream_bytes_checked, StreamError};
use lopdf::{Dictionary, Document, Object, ObjectId};
use std::collections::HashMap;
use std::sync::Arc;

/// Operators one page may execute (form XObjects drawn many times count each time).
const MAX_OPS_PER_PAGE: usize = 4_000_000;
/// Glyphs one page may produce.
const MAX_GLYPHS_PER_PAGE: usize = 1_000_000;
/// Nesting of form XObjects.
const MAX_FORM_DEPTH: usize = 12;

/// Style bits of a glyph.
pub(super) const BOLD: u8 = 1;
pub(super) const MONO: u8 = 2;

/// One shown glyph.
#[derive(Debug, Clone, Copy)]
pub(super) struct Glyph {
    /// Baseline start and end x, baseline y, in points.
    pub x0: f32,
    pub x1: f32,
    pub y: f32,
    /// Effective font size (points).
    pub size: f32,
    /// Byte range of its text in [`PageGlyphs::text`].
    pub start: u32,
    pub end: u32,
    pub style: u8,
    /// Text runs left to right and upright (rotated text is laid out separately).
    pub upright: bool,
}

/// All glyphs of a page, in content-stream order.
#[derive(Debug, Default)]
pub(super) struct PageGlyphs {
    pub text: String,
    pub glyphs: Vec<Glyph>,
    /// Display size of the page (points).
    pub width: f32,
    pub height: f32,
    /// Problems met (missing or damaged content, limits), each a sentence naming what failed.
    pub problems: Vec<String>,
    /// Text-showing operators run (`Tj`, `TJ`, `'`, `"`): a page without any has no text layer.
    pub text_ops: usize,
}

/// Fonts decoded so far, shared by all pages.
#[derive(Default)]
pub(super) struct FontCache {
    by_id: HashMap<ObjectId, Arc<Font>>,
}

/// Byte budget shared by a whole document's decoded streams.
pub(super) struct Budget {
    pub bytes_left: usize,
    /// Set once a stream did not fit: the rest of the document is not read.
    pub exhausted: bool,
}

type Matrix = [f32; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

fn mul(m: &Matrix, n: &Matrix) -> Matrix {
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

fn apply(m: &Matrix, x: f32, y: f32) -> (f32, f32) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

#[derive(Clone)]
struct GState {
    ctm: Matrix,
    font: Option<Arc<Font>>,
    size: f32,
    char_spacing: f32,
    word_spacing: f32,
    h_scale: f32,
    leading: f32,
    rise: f32,
}

struct Interp<'a> {
    doc: &'a Document,
    fonts: &'a mut FontCache,
    budget: &'a mut Budget,
    out: &'a mut PageGlyphs,
    gs: GState,
    stack: Vec<GState>,
    tm: Matrix,
    tlm: Matrix,
    ops: usize,
}

/// Runs the page's content streams.
pub(super) fn page_glyphs(
    doc: &Document,
    page_id: ObjectId,
    fonts: &mut FontCache,
    budget: &mut Budget,
) -> PageGlyphs {
    let mut out = PageGlyphs::default();
    let page = doc.get_dictionary(page_id).ok();
    if page.is_none() {
        out.problems.push(format!(
            "the page object {} {} is missing or damaged",
            page_id.0, page_id.1
        ));
    }
    let media = inherited(doc, page, b"MediaBox")
        .and_then(|o| o.as_array().ok())
        .map(|a| {
            a.iter()
                .filter_map(|o| deref(doc, Some(o)).and_then(as_number))
                .collect::<Vec<_>>()
        })
        .filter(|v| v.len() == 4)
        .map(|v| {
            let (x0, x1) = (v[0].min(v[2]) as f32, v[0].max(v[2]) as f32);
            let (y0, y1) = (v[1].min(v[3]) as f32, v[1].max(v[3]) as f32);
            [x0, y0, x1, y1]
        })
        .unwrap_or([0.0, 0.0, 612.0, 792.0]);
    let rotate = inherited(doc, page, b"Rotate")
        .and_then(as_number)
        .unwrap_or(0.0) as i64;
    let [x0, y0, x1, y1] = media;
    let (ctm, w, h) = match rotate.rem_euclid(360) {
        90 => ([0.0, -1.0, 1.0, 0.0, -y0, x1], y1 - y0, x1 - x0),
        180 => ([-1.0, 0.0, 0.0, -1.0, x1, y1], x1 - x0, y1 - y0),
        270 => ([0.0, 1.0, -1.0, 0.0, y1, -x0], y1 - y0, x1 - x0),
        _ => ([1.0, 0.0, 0.0, 1.0, -x0, -y0], x1 - x0, y1 - y0),
    };
    out.width = w;
    out.height = h;
    let resources = inherited(doc, page, b"Resources").and_then(as_dict);
    let mut data = Vec::new();
    for id in doc.get_page_contents(page_id) {
        let name = format!("content stream {} {}", id.0, id.1);
        let Ok(stream) = doc.get_object(id).and_then(Object::as_stream) else {
            out.problems
                .push(format!("{name} is missing or damaged; its text is lost"));
            continue;
        };
        match stream_bytes_checked(stream, budget.bytes_left) {
            Ok((bytes, damage)) => {
                budget.bytes_left -= bytes.len();
                data.extend_from_slice(&bytes);
                data.push(b'\n');
                if let Some(d) = damage {
                    out.problems
                        .push(format!("{name}: {d}; text after that point is lost"));
                }
            }
            Err(StreamError::TooLarge) => {
                budget.exhausted = true;
                return out;
            }
            Err(StreamError::Undecodable) => out.problems.push(format!(
                "{name} could not be decoded (unknown filter or corrupt data); its text is lost"
            )),
        }
    }
    let mut interp = Interp {
        doc,
        fonts,
        budget,
        out: &mut out,
        gs: GState {
            ctm,
            font: None,
            size: 0.0,
            char_spacing: 0.0,
            word_spacing: 0.0,
            h_scale: 1.0,
            leading: 0.0,
            rise: 0.0,
        },
        stack: Vec::new(),
        tm: IDENTITY,
        tlm: IDENTITY,
        ops: 0,
    };
    interp.run(&data, resources, 0);
    out
}

/// A page attribute, looked up the /Parent chain when absent (MediaBox, Resources, Rotate).
fn inherited<'a>(
    doc: &'a Document,
    page: Option<&'a Dictionary>,
    key: &[u8],
) -> Option<&'a Object> {
    let mut node = page?;
    for _ in 0..64 {
        if let Ok(v) = node.get(key) {
            return deref(doc, Some(v));
        }
        node = deref(doc, node.get(b"Parent").ok()).and_then(as_dict)?;
    }
    None
}

fn num(o: &Object) -> f32 {
    as_number(o).unwrap_or(0.0) as f32
}

impl Interp<'_> {
    fn run(&mut self, data: &[u8], resources: Option<&Dictionary>, depth: usize) {
        let mut lexer = Lexer::new(data);
        let mut a: Vec<Operand<'_>> = Vec::new();
        while let Some(op) = lexer.next_op(&mut a) {
            self.ops += 1;
            if self.ops > MAX_OPS_PER_PAGE || self.out.glyphs.len() >= MAX_GLYPHS_PER_PAGE {
                self.out
                    .problems
                    .push("the page exceeds the operator/glyph limit; rest skipped".into());
                return;
            }
            let n = |i: usize| a.get(i).and_then(Operand::number).unwrap_or(0.0);
            match op {
                b"q" if self.stack.len() < 256 => self.stack.push(self.gs.clone()),
                b"Q" => {
                    if let Some(g) = self.stack.pop() {
                        self.gs = g;
                    }
                }
                b"cm" if a.len() == 6 => {
                    let m = [n(0), n(1), n(2), n(3), n(4), n(5)];
                    self.gs.ctm = mul(&m, &self.gs.ctm);
                }
                b"BT" => {
                    self.tm = IDENTITY;
                    self.tlm = IDENTITY;
                }
                b"Tf" if a.len() == 2 => {
                    self.gs.font = match &a[0] {
                        Operand::Name(name) => self.font(resources, name),
                        _ => None,
                    };
                    self.gs.size = n(1);
                }
                b"Tc" => self.gs.char_spacing = n(0),
                b"Tw" => self.gs.word_spacing = n(0),
                b"Tz" => self.gs.h_scale = n(0) / 100.0,
                b"TL" => self.gs.leading = n(0),
                b"Ts" => self.gs.rise = n(0),
                b"Td" => self.move_line(n(0), n(1)),
                b"TD" => {
                    self.gs.leading = -n(1);
                    self.move_line(n(0), n(1));
                }
                b"Tm" if a.len() == 6 => {
                    self.tlm = [n(0), n(1), n(2), n(3), n(4), n(5)];
                    self.tm = self.tlm;
                }
                b"T*" => self.move_line(0.0, -self.gs.leading),
                b"Tj" => {
                    self.out.text_ops += 1;
                    if let Some(Operand::String(s)) = a.first() {
                        self.show(s);
                    }
                }
                b"'" => {
                    self.out.text_ops += 1;
                    self.move_line(0.0, -self.gs.leading);
                    if let Some(Operand::String(s)) = a.first() {
                        self.show(s);
                    }
                }
                b"\"" if a.len() == 3 => {
                    self.out.text_ops += 1;
                    self.gs.word_spacing = n(0);
                    self.gs.char_spacing = n(1);
                    self.move_line(0.0, -self.gs.leading);
                    if let Operand::String(s) = &a[2] {
                        self.show(s);
                    }
                }
                b"TJ" => {
                    self.out.text_ops += 1;
                    if let Some(Operand::Array(items)) = a.first() {
                        for item in items {
                            match item {
                                Operand::String(s) => self.show(s),
                                Operand::Number(adjust) => {
                                    let tx = -adjust / 1000.0 * self.gs.size * self.gs.h_scale;
                                    self.tm = mul(&[1.0, 0.0, 0.0, 1.0, tx, 0.0], &self.tm);
                                }
                                _ => {}
                            }
                        }
                    }
                }
                b"Do" if depth < MAX_FORM_DEPTH => {
                    if let Some(Operand::Name(name)) = a.first() {
                        self.draw_form(resources, name, depth);
                    }
                }
                _ => {}
            }
        }
    }

    fn move_line(&mut self, tx: f32, ty: f32) {
        self.tlm = mul(&[1.0, 0.0, 0.0, 1.0, tx, ty], &self.tlm);
        self.tm = self.tlm;
    }

    fn font(&mut self, resources: Option<&Dictionary>, name: &[u8]) -> Option<Arc<Font>> {
        let fonts = deref(self.doc, resources?.get(b"Font").ok()).and_then(as_dict)?;
        let entry = fonts.get(name).ok()?;
        let limit = self.budget.bytes_left.min(4 << 20);
        match entry {
            Object::Reference(id) => {
                let font = match self.fonts.by_id.get(id) {
                    Some(f) => f.clone(),
                    None => {
                        let dict = deref(self.doc, Some(entry)).and_then(as_dict)?;
                        let font = Arc::new(Font::load(self.doc, dict, limit));
                        self.fonts.by_id.insert(*id, font.clone());
                        font
                    }
                };
                self.font_problems(&font, name);
                Some(font)
            }
            Object::Dictionary(dict) => {
                let font = Arc::new(Font::load(self.doc, dict, limit));
                self.font_problems(&font, name);
                Some(font)
            }
            _ => None,
        }
    }

    /// Reports a damaged font once per page: its text may come out wrong or not at all.
    fn font_problems(&mut self, font: &Font, name: &[u8]) {
        for p in &font.problems {
            let p = format!(
                "font /{}: {p}; its text may be lost",
                String::from_utf8_lossy(name)
            );
            if !self.out.problems.contains(&p) {
                self.out.problems.push(p);
            }
        }
    }

    fn show(&mut self, bytes: &[u8]) {
        let Some(font) = self.gs.font.clone() else {
            return;
        };
        let gs = &self.gs;
        let style = if font.bold { BOLD } else { 0 } | if font.mono { MONO } else { 0 };
        let mut tm = self.tm;
        let out = &mut *self.out;
        font.decode(bytes, |code| {
            let full = mul(&tm, &gs.ctm);
            let mut advance = code.width * gs.size + gs.char_spacing;
            if code.is_space_code {
                advance += gs.word_spacing;
            }
            advance *= gs.h_scale;
            let (x0, y) = apply(&full, 0.0, gs.rise);
            let (x1, _) = apply(&full, advance, gs.rise);
            let scale_y = (full[2] * full[2] + full[3] * full[3]).sqrt();
            let size = (gs.size.abs() * scale_y).max(0.01);
            let upright = full[0] > 0.0
                && full[3] > 0.0
                && full[1].abs() < 0.1 * full[0]
                && full[2].abs() < 0.1 * full[3];
            tm = mul(&[1.0, 0.0, 0.0, 1.0, advance, 0.0], &tm);
            if code.text.is_empty() || out.glyphs.len() >= MAX_GLYPHS_PER_PAGE {
                return;
            }
            let start = out.text.len() as u32;
            push_text(&mut out.text, code.text);
            let end = out.text.len() as u32;
            if end == start || !x0.is_finite() || !y.is_finite() || !x1.is_finite() {
                out.text.truncate(start as usize);
                return;
            }
            out.glyphs.push(Glyph {
                x0,
                x1: x1.max(x0),
                y,
                size,
                start,
                end,
                style,
                upright,
            });
        });
        self.tm = tm;
    }

    fn draw_form(&mut self, resources: Option<&Dictionary>, name: &[u8], depth: usize) {
        let doc = self.doc;
        let Some(xobjects) = resources
            .and_then(|r| deref(doc, r.get(b"XObject").ok()))
            .and_then(as_dict)
        else {
            return;
        };
        let entry = xobjects.get(name).ok();
        let label = match entry {
            Some(Object::Reference(id)) => format!("form XObject {} {}", id.0, id.1),
            _ => format!("form XObject /{}", String::from_utf8_lossy(name)),
        };
        let Some(Object::Stream(stream)) = deref(doc, entry) else {
            if entry.is_some_and(|e| matches!(e, Object::Reference(_))) {
                self.out
                    .problems
                    .push(format!("{label} is missing or damaged; its text is lost"));
            }
            return;
        };
        if stream.dict.get(b"Subtype").and_then(Object::as_name).ok() != Some(b"Form") {
            return;
        }
        let bytes = match stream_bytes_checked(stream, self.budget.bytes_left) {
            Ok((bytes, damage)) => {
                if let Some(d) = damage {
                    self.out
                        .problems
                        .push(format!("{label}: {d}; text after that point is lost"));
                }
                bytes
            }
            Err(StreamError::TooLarge) => {
                self.budget.exhausted = true;
                return;
            }
            Err(StreamError::Undecodable) => {
                self.out.problems.push(format!(
                    "{label} could not be decoded (unknown filter or corrupt data); its text is lost"
                ));
                return;
            }
        };
        self.budget.bytes_left -= bytes.len();
        let matrix = deref(doc, stream.dict.get(b"Matrix").ok())
            .and_then(|o| o.as_array().ok())
            .map(|a| a.iter().map(num).collect::<Vec<_>>())
            .filter(|v| v.len() == 6)
            .map(|v| [v[0], v[1], v[2], v[3], v[4], v[5]])
            .unwrap_or(IDENTITY);
        let own = deref(doc, stream.dict.get(b"Resources").ok()).and_then(as_dict);
        let saved = (self.gs.clone(), self.tm, self.tlm, self.stack.len());
        self.gs.ctm = mul(&matrix, &self.gs.ctm);
        self.run(&bytes, own.or(resources), depth + 1);
        self.stack.truncate(saved.3);
        self.gs = saved.0;
        self.tm = saved.1;
        self.tlm = saved.2;
    }
}

/// Appends glyph text: ligatures expanded, control characters dropped, soft hyphens kept (the
/// layout decides), NBSP as a space.
fn push_text(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '\u{fb00}' => out.push_str("ff"),
            '\u{fb01}' => out.push_str("fi"),
            '\u{fb02}' => out.push_str("fl"),
            '\u{fb03}' => out.push_str("ffi"),
            '\u{fb04}' => out.push_str("ffl"),
            '\u{fb05}' | '\u{fb06}' => out.push_str("st"),
            '\u{a0}' | '\t' => out.push(' '),
            '\u{fffd}' => {}
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
}
