//! Paragraph and list styles of an ODT (`styles.xml` and the automatic styles of `content.xml`):
//! paragraph styles resolved through their parents to a [`Role`] via the shared table of
//! localized style names, and list styles giving each level its marker format.

use crate::blocks::NumberStyle;
use crate::office::roles::{role_from_name, Role};
use crate::xml;
use quick_xml::events::{BytesStart, Event};
use std::collections::HashMap;
use std::io::BufRead;

/// OpenDocument's outline levels: headings 1 to 10.
const MAX_LEVEL: u8 = 10;

#[derive(Debug, Default)]
struct StyleDef {
    display: String,
    parent: Option<String>,
    outline: Option<u8>,
    list_style: Option<String>,
}

/// One level of a list style.
#[derive(Debug, Clone)]
pub(super) enum ListLevel {
    Bullet,
    Number {
        style: Option<NumberStyle>,
        prefix: String,
        suffix: String,
        display_levels: usize,
        start: u32,
    },
}

/// Paragraph and list styles from `styles.xml` and the automatic styles of `content.xml`.
#[derive(Debug, Default)]
pub(super) struct Styles {
    paragraph: HashMap<String, StyleDef>,
    pub lists: HashMap<String, Vec<Option<ListLevel>>>,
}

impl Styles {
    /// Reads the styles of one part (`automatic` styles of content.xml win over same-named ones
    /// of styles.xml, which only serve headers and footers).
    pub fn add<R: BufRead>(&mut self, xml_source: R, automatic: bool) {
        let mut r = xml::stream_reader(xml_source);
        let mut buf = Vec::new();
        let mut in_automatic = false;
        let mut list: Option<String> = None;
        loop {
            buf.clear();
            match r.read_event_into(&mut buf) {
                Ok(Event::Start(e)) => match e.name().as_ref() {
                    b"office:automatic-styles" => in_automatic = true,
                    b"office:body" | b"office:master-styles" => break,
                    b"style:style" if automatic || !in_automatic => {
                        if xml::attr(&e, b"style:family").as_deref() != Some("paragraph") {
                            continue;
                        }
                        let Some(name) = xml::attr(&e, b"style:name") else {
                            continue;
                        };
                        let display = xml::attr(&e, b"style:display-name")
                            .unwrap_or_else(|| decode_style_name(&name));
                        let def = StyleDef {
                            display: display.to_lowercase(),
                            parent: xml::attr(&e, b"style:parent-style-name"),
                            outline: xml::attr(&e, b"style:default-outline-level")
                                .and_then(|v| v.parse().ok()),
                            list_style: xml::attr(&e, b"style:list-style-name")
                                .filter(|s| !s.is_empty()),
                        };
                        self.paragraph.insert(name, def);
                    }
                    b"text:list-style" if automatic || !in_automatic => {
                        list = xml::attr(&e, b"style:name");
                        if let Some(name) = &list {
                            self.lists.insert(name.clone(), vec![None; 10]);
                        }
                    }
                    b"text:list-level-style-number"
                    | b"text:list-level-style-bullet"
                    | b"text:list-level-style-image" => {
                        let Some(levels) = list.as_ref().and_then(|l| self.lists.get_mut(l)) else {
                            continue;
                        };
                        let level: usize = xml::attr(&e, b"text:level")
                            .and_then(|v| v.parse().ok())
                            .unwrap_or(1);
                        if !(1..=10).contains(&level) {
                            continue;
                        }
                        levels[level - 1] = Some(list_level(&e));
                    }
                    _ => {}
                },
                Ok(Event::End(e)) => match e.name().as_ref() {
                    b"office:automatic-styles" => in_automatic = false,
                    b"text:list-style" => list = None,
                    _ => {}
                },
                Ok(Event::Eof) | Err(_) => break,
                Ok(_) => {}
            }
        }
    }

    /// The role of paragraph style `name`, following parent styles.
    pub fn role(&self, name: &str) -> Role {
        let mut name = name;
        for _ in 0..16 {
            let Some(def) = self.paragraph.get(name) else {
                return role_from_name(&decode_style_name(name).to_lowercase(), MAX_LEVEL)
                    .unwrap_or(Role::Body);
            };
            if let Some(role) = role_from_name(&def.display, MAX_LEVEL) {
                return role;
            }
            if let Some(level) = def.outline.filter(|l| (1..=10).contains(l)) {
                return Role::Heading(level);
            }
            match &def.parent {
                Some(parent) => name = parent,
                None => break,
            }
        }
        Role::Body
    }

    /// The list style a paragraph style applies (for list items whose `text:list` names none).
    pub fn list_style_of(&self, name: &str) -> Option<&str> {
        let mut name = name;
        for _ in 0..16 {
            let def = self.paragraph.get(name)?;
            if let Some(l) = &def.list_style {
                return Some(l);
            }
            name = def.parent.as_deref()?;
        }
        None
    }
}

fn list_level(e: &BytesStart) -> ListLevel {
    if e.name().as_ref() != b"text:list-level-style-number" {
        return ListLevel::Bullet;
    }
    let style = match xml::attr(e, b"style:num-format").as_deref() {
        Some("") => None,
        Some("a") => Some(NumberStyle::LowerLetter),
        Some("A") => Some(NumberStyle::UpperLetter),
        Some("i") => Some(NumberStyle::LowerRoman),
        Some("I") => Some(NumberStyle::UpperRoman),
        _ => Some(NumberStyle::Decimal),
    };
    ListLevel::Number {
        style,
        prefix: xml::attr(e, b"style:num-prefix").unwrap_or_default(),
        suffix: xml::attr(e, b"style:num-suffix").unwrap_or_default(),
        display_levels: xml::attr(e, b"text:display-levels")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1),
        start: xml::attr(e, b"text:start-value")
            .and_then(|v| v.parse().ok())
            .unwrap_or(1),
    }
}

/// `Heading_20_1` → `Heading 1` (ODF escapes characters of style names as `_XX_` hex).
fn decode_style_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut rest = name;
    while let Some(i) = rest.find('_') {
        out.push_str(&rest[..i]);
        let tail = &rest[i + 1..];
        let hex_end = tail.find('_');
        let decoded = hex_end
            .filter(|&j| (2..=4).contains(&j))
            .and_then(|j| u32::from_str_radix(&tail[..j], 16).ok())
            .and_then(char::from_u32)
            .filter(|c| !c.is_alphanumeric() && *c != '_');
        match (decoded, hex_end) {
            (Some(c), Some(j)) => {
                out.push(c);
                rest = &tail[j + 1..];
            }
            _ => {
                out.push('_');
                rest = tail;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_names() {
        assert_eq!(decode_style_name("Heading_20_1"), "Heading 1");
        assert_eq!(decode_style_name("a_b_c"), "a_b_c");
        let styles = Styles::default();
        assert_eq!(styles.role("Heading_20_3"), Role::Heading(3));
        assert_eq!(styles.role("Kop_20_10"), Role::Heading(10));
        assert_eq!(styles.role("Text_20_body"), Role::Body);
    }
}
