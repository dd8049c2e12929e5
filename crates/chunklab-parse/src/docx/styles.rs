//! `word/styles.xml` and `word/numbering.xml`: paragraph styles by id (name, `w:basedOn`,
//! outline level, numbering) resolved to a [`Role`] through the shared table of localized style
//! names, and the list definitions that give list items their markers.

use crate::blocks::NumberStyle;
use crate::office::roles::{role_from_name, Role};
use crate::xml;
use quick_xml::events::Event;
use std::collections::HashMap;

/// Word's outline levels: headings 1 to 9.
const MAX_LEVEL: u8 = 9;

/// A numbering reference: `w:numId` and `w:ilvl`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct NumRef {
    pub id: String,
    pub level: u8,
}

#[derive(Debug, Default)]
struct StyleDef {
    name: String,
    based_on: Option<String>,
    outline: Option<u8>,
    num: Option<NumRef>,
}

/// Paragraph styles of `word/styles.xml`, by style id.
#[derive(Debug, Default)]
pub(super) struct Styles {
    defs: HashMap<String, StyleDef>,
    pub default_id: Option<String>,
}

impl Styles {
    /// Reads `word/styles.xml`; broken XML ends the reading.
    pub fn parse(xml_bytes: &[u8]) -> Self {
        let mut styles = Styles::default();
        let mut r = xml::reader(xml_bytes);
        let mut current: Option<(String, StyleDef)> = None;
        let mut in_ppr = false;
        while let Ok(ev) = r.read_event() {
            match ev {
                Event::Start(e) => match e.name().as_ref() {
                    b"w:style" => {
                        let paragraph = xml::attr(&e, b"w:type").as_deref() == Some("paragraph");
                        let id = xml::attr(&e, b"w:styleId");
                        if let (true, Some(id)) = (paragraph, id) {
                            if xml::attr(&e, b"w:default").is_some_and(|v| on(&v)) {
                                styles.default_id = Some(id.clone());
                            }
                            current = Some((id, StyleDef::default()));
                        }
                    }
                    name => {
                        let Some((_, def)) = current.as_mut() else {
                            continue;
                        };
                        let val = || xml::attr(&e, b"w:val");
                        match name {
                            b"w:name" => def.name = val().unwrap_or_default().to_lowercase(),
                            b"w:basedOn" => def.based_on = val(),
                            b"w:pPr" => in_ppr = true,
                            b"w:outlineLvl" if in_ppr => {
                                def.outline = val().and_then(|v| v.parse().ok())
                            }
                            b"w:numId" if in_ppr => {
                                def.num.get_or_insert_with(NumRef::default).id =
                                    val().unwrap_or_default()
                            }
                            b"w:ilvl" if in_ppr => {
                                def.num.get_or_insert_with(NumRef::default).level =
                                    val().and_then(|v| v.parse().ok()).unwrap_or(0)
                            }
                            _ => {}
                        }
                    }
                },
                Event::End(e) => match e.name().as_ref() {
                    b"w:style" => {
                        if let Some((id, def)) = current.take() {
                            styles.defs.insert(id, def);
                        }
                    }
                    b"w:pPr" => in_ppr = false,
                    _ => {}
                },
                Event::Eof => break,
                _ => {}
            }
        }
        styles
    }

    /// The role of style `id`, following `w:basedOn` (a loop or a missing style ends the walk).
    pub fn role(&self, id: &str) -> Role {
        let mut id = id;
        for _ in 0..16 {
            let Some(def) = self.defs.get(id) else {
                return role_from_name(&id.to_lowercase(), MAX_LEVEL).unwrap_or(Role::Body);
            };
            if let Some(role) = role_from_name(&def.name, MAX_LEVEL) {
                return role;
            }
            if let Some(role) = role_from_name(&id.to_lowercase(), MAX_LEVEL) {
                return role;
            }
            if let Some(level) = def.outline.filter(|&l| l < 9) {
                return Role::Heading(level + 1);
            }
            match &def.based_on {
                Some(parent) => id = parent,
                None => break,
            }
        }
        Role::Body
    }

    /// The numbering a style (or one it is based on) applies.
    pub fn num(&self, id: &str) -> Option<NumRef> {
        let mut id = id;
        for _ in 0..16 {
            let def = self.defs.get(id)?;
            if let Some(num) = &def.num {
                return Some(num.clone());
            }
            id = def.based_on.as_deref()?;
        }
        None
    }
}

/// A Word on/off value: anything but "0", "false" and "off" is on.
pub(super) fn on(v: &str) -> bool {
    !matches!(v, "0" | "false" | "off")
}

/// One level of a list definition (`w:lvl`).
#[derive(Debug, Clone)]
pub(super) struct Level {
    pub start: u32,
    /// `None` for bullets, `Some(style)` for numbers; levels with `w:numFmt="none"` are absent.
    pub style: Option<NumberStyle>,
    pub text: String,
}

/// `word/numbering.xml`: abstract list definitions and the `w:num` instances using them.
#[derive(Debug, Default)]
pub(super) struct Numbering {
    pub abstracts: HashMap<String, [Option<Level>; 9]>,
    /// numId → (abstractNumId, start overrides per level).
    pub nums: HashMap<String, (String, HashMap<u8, u32>)>,
}

impl Numbering {
    /// Reads `word/numbering.xml`; broken XML ends the reading.
    pub fn parse(xml_bytes: &[u8]) -> Self {
        let mut n = Numbering::default();
        let mut r = xml::reader(xml_bytes);
        let mut abstract_id: Option<String> = None;
        let mut num_id: Option<String> = None;
        let mut override_level: Option<u8> = None;
        let mut level: Option<(usize, Level, bool)> = None; // (ilvl, level, numFmt none)
        while let Ok(ev) = r.read_event() {
            match ev {
                Event::Start(e) => {
                    let val = || xml::attr(&e, b"w:val");
                    match e.name().as_ref() {
                        b"w:abstractNum" => {
                            abstract_id = xml::attr(&e, b"w:abstractNumId");
                            if let Some(id) = &abstract_id {
                                n.abstracts.insert(id.clone(), Default::default());
                            }
                        }
                        b"w:lvl" if abstract_id.is_some() => {
                            let ilvl = xml::attr(&e, b"w:ilvl").and_then(|v| v.parse().ok());
                            level = ilvl.filter(|&i: &usize| i < 9).map(|i| {
                                let default = Level {
                                    start: 1,
                                    style: Some(NumberStyle::Decimal),
                                    text: String::new(),
                                };
                                (i, default, false)
                            });
                        }
                        b"w:start" => {
                            if let Some((_, l, _)) = level.as_mut() {
                                l.start = val().and_then(|v| v.parse().ok()).unwrap_or(1);
                            }
                        }
                        b"w:numFmt" => {
                            if let Some((_, l, none)) = level.as_mut() {
                                match val().as_deref().unwrap_or("decimal") {
                                    "none" => *none = true,
                                    fmt => l.style = number_style(fmt),
                                }
                            }
                        }
                        b"w:lvlText" => {
                            if let Some((_, l, _)) = level.as_mut() {
                                l.text = val().unwrap_or_default();
                            }
                        }
                        b"w:num" => num_id = xml::attr(&e, b"w:numId"),
                        b"w:abstractNumId" => {
                            if let (Some(id), Some(abs)) = (&num_id, val()) {
                                n.nums.insert(id.clone(), (abs, HashMap::new()));
                            }
                        }
                        b"w:lvlOverride" => {
                            override_level = xml::attr(&e, b"w:ilvl").and_then(|v| v.parse().ok())
                        }
                        b"w:startOverride" => {
                            let start = val().and_then(|v| v.parse().ok());
                            if let (Some(id), Some(l), Some(s)) = (&num_id, override_level, start) {
                                if let Some((_, overrides)) = n.nums.get_mut(id) {
                                    overrides.insert(l, s);
                                }
                            }
                        }
                        _ => {}
                    }
                }
                Event::End(e) => match e.name().as_ref() {
                    b"w:lvl" => {
                        if let (Some(abs), Some((i, l, none))) = (&abstract_id, level.take()) {
                            if let Some(levels) = n.abstracts.get_mut(abs) {
                                levels[i] = (!none).then_some(l);
                            }
                        }
                    }
                    b"w:abstractNum" => abstract_id = None,
                    b"w:num" => num_id = None,
                    _ => {}
                },
                Event::Eof => break,
                _ => {}
            }
        }
        n
    }
}

/// `w:numFmt` → counter style; `None` means a bullet.
fn number_style(fmt: &str) -> Option<NumberStyle> {
    Some(match fmt {
        "bullet" => return None,
        "decimalZero" => NumberStyle::DecimalZero,
        "lowerLetter" => NumberStyle::LowerLetter,
        "upperLetter" => NumberStyle::UpperLetter,
        "lowerRoman" => NumberStyle::LowerRoman,
        "upperRoman" => NumberStyle::UpperRoman,
        _ => NumberStyle::Decimal,
    })
}
