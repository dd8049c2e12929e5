//! Paragraph roles from style names: one table of English and localized style names ("Heading 2",
//! "Kop 2", "Überschrift 2", "Titel", "Bijschrift") shared by the DOCX and ODT readers.

/// What a paragraph style makes of a paragraph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    Title,
    Subtitle,
    /// A heading at this level (1 is the highest).
    Heading(u8),
    Caption,
    Code,
    /// Table-of-contents entries and the like.
    Other,
    Body,
}

/// Heading style names, before the level number ("Heading 1", "Kop 2", "Überschrift 3").
const HEADING: &[&str] = &[
    "heading",
    "kop",
    "überschrift",
    "titre",
    "título",
    "titulo",
    "titolo",
    "rubrik",
    "overskrift",
    "otsikko",
    "nagłówek",
    "nadpis",
    "заголовок",
];
const TITLE: &[&str] = &[
    "title", "titel", "titre", "título", "titulo", "titolo", "tytuł",
];
const SUBTITLE: &[&str] = &[
    "subtitle",
    "ondertitel",
    "untertitel",
    "sous-titre",
    "subtítulo",
    "sottotitolo",
];
const CAPTION: &[&str] = &[
    "caption",
    "bijschrift",
    "beschriftung",
    "légende",
    "didascalia",
];
/// Code styles, matched anywhere in the name ("Preformatted Text", "HTML Code").
const CODE: &[&str] = &[
    "preformatted",
    "code",
    "programlisting",
    "verbatim",
    "source text",
    "macro text",
    "listing",
];

/// The role a lowercase style name implies, or `None` for a name that says nothing. Heading
/// levels go from 1 to `max_level` (9 in Word, 10 in OpenDocument); "toc 1" is [`Role::Other`].
pub(crate) fn role_from_name(name: &str, max_level: u8) -> Option<Role> {
    let name = name.trim();
    let base = name.trim_end_matches(|c: char| c.is_ascii_digit());
    if base.len() < name.len() {
        let level: u8 = name[base.len()..].parse().unwrap_or(0);
        if (1..=max_level).contains(&level) && HEADING.contains(&base.trim_end()) {
            return Some(Role::Heading(level));
        }
        if base.trim_end() == "toc" {
            return Some(Role::Other);
        }
    }
    if TITLE.contains(&name) {
        return Some(Role::Title);
    }
    if SUBTITLE.contains(&name) {
        return Some(Role::Subtitle);
    }
    if CAPTION.contains(&name) {
        return Some(Role::Caption);
    }
    if CODE.iter().any(|c| name.contains(c)) {
        return Some(Role::Code);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn style_names() {
        let role = |n| role_from_name(n, 9);
        assert_eq!(role("heading 2"), Some(Role::Heading(2)));
        assert_eq!(role("kop 3"), Some(Role::Heading(3)));
        assert_eq!(role("heading1"), Some(Role::Heading(1)));
        assert_eq!(role("überschrift 1"), Some(Role::Heading(1)));
        assert_eq!(role("nagłówek 2"), Some(Role::Heading(2)));
        assert_eq!(role("titel"), Some(Role::Title));
        assert_eq!(role("tytuł"), Some(Role::Title));
        assert_eq!(role("sottotitolo"), Some(Role::Subtitle));
        assert_eq!(role("didascalia"), Some(Role::Caption));
        assert_eq!(role("heading"), None);
        assert_eq!(role("heading 12"), None);
        assert_eq!(role("heading 10"), None);
        assert_eq!(role_from_name("heading 10", 10), Some(Role::Heading(10)));
        assert_eq!(role("toc 1"), Some(Role::Other));
        assert_eq!(role("preformatted text.programlisting"), Some(Role::Code));
        assert_eq!(role("macro text"), Some(Role::Code));
        assert_eq!(role("body text"), None);
        assert_eq!(role("text body"), None);
    }
}
