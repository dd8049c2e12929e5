//! The deterministic `header` context: the document title and the chunk's heading path, no
//! language model.

/// `title > heading > subheading`; a first heading equal to the title is not repeated.
///
/// ```
/// use chunklab_llm::header::header_context;
/// let path = vec!["Jaarverslag 2023".to_string(), "Financiën".to_string()];
/// assert_eq!(header_context("Jaarverslag 2023", &path), "Jaarverslag 2023 > Financiën");
/// assert_eq!(header_context("verslag.md", &[]), "verslag.md");
/// ```
pub fn header_context(title: &str, headings: &[String]) -> String {
    header_parts(title, headings).join(" > ")
}

/// The components of [`header_context`]: the trimmed title (when not empty), then the
/// non-empty headings, a first heading equal to the title left out.
pub fn header_parts<'a>(title: &'a str, headings: &'a [String]) -> Vec<&'a str> {
    let title = title.trim();
    let mut parts: Vec<&str> = Vec::new();
    if !title.is_empty() {
        parts.push(title);
    }
    for (i, h) in headings.iter().enumerate() {
        let h = h.trim();
        if h.is_empty() || (i == 0 && h == title) {
            continue;
        }
        parts.push(h);
    }
    parts
}
