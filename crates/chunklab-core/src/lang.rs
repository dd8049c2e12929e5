//! Document language, as far as chunking cares: which sentence rules and abbreviations apply.

use std::str::FromStr;

/// A language chunklab has sentence rules for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Lang {
    English,
    Dutch,
    /// Decide per document from its most frequent function words.
    #[default]
    Auto,
}

impl Lang {
    /// Resolve `Auto` for a given text: counts frequent English and Dutch function words in the
    /// first 64 KiB and picks the language with more hits (English on a tie).
    pub fn resolve(self, text: &str) -> Lang {
        if self != Lang::Auto {
            return self;
        }
        Lang::detect(text).unwrap_or(Lang::English)
    }

    /// The language with more frequent function words in the first 64 KiB of `text`, `None` on
    /// a tie (no evidence either way, e.g. a short title).
    pub fn detect(text: &str) -> Option<Lang> {
        const EN: &[&str] = &[
            "the", "and", "of", "to", "is", "that", "for", "with", "are", "this", "be", "on",
        ];
        const NL: &[&str] = &[
            "de", "het", "een", "en", "van", "is", "dat", "voor", "met", "zijn", "niet", "op",
            "wordt", "bij",
        ];
        let head = &text[..crate::text::floor_char_boundary(text, 64 * 1024)];
        let (mut en, mut nl) = (0usize, 0usize);
        for w in head.split(|c: char| !c.is_alphabetic()) {
            if w.is_empty() || w.len() > 6 {
                continue;
            }
            let lw = w.to_lowercase();
            en += EN.contains(&lw.as_str()) as usize;
            nl += NL.contains(&lw.as_str()) as usize;
        }
        match nl.cmp(&en) {
            std::cmp::Ordering::Greater => Some(Lang::Dutch),
            std::cmp::Ordering::Less => Some(Lang::English),
            std::cmp::Ordering::Equal => None,
        }
    }

    pub fn code(self) -> &'static str {
        match self {
            Lang::English => "en",
            Lang::Dutch => "nl",
            Lang::Auto => "auto",
        }
    }
}

impl FromStr for Lang {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "en" | "english" => Ok(Lang::English),
            "nl" | "dutch" | "nederlands" => Ok(Lang::Dutch),
            "auto" => Ok(Lang::Auto),
            _ => Err(format!("unknown language `{s}` (en, nl, auto)")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_dutch_and_english() {
        assert_eq!(
            Lang::Auto.resolve("De gemeenteraad heeft het voorstel van het college aangenomen."),
            Lang::Dutch
        );
        assert_eq!(
            Lang::Auto.resolve("The council adopted the motion on wind energy."),
            Lang::English
        );
        assert_eq!(Lang::Dutch.resolve("The council"), Lang::Dutch);
        assert_eq!(Lang::detect("Jaarverslag 2023"), None);
        assert_eq!(Lang::Auto.resolve("Jaarverslag 2023"), Lang::English);
    }
}
