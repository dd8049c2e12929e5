//! Writes one document in Markdown, HTML or plain text from the same calls (title, headings,
//! paragraphs, lists, key/value fields, tables), counts the words written and records the byte
//! offsets of passages as they are written, so gold spans are exact by construction.

/// The file format of a generated document.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Format {
    Markdown,
    Html,
    Text,
}

impl Format {
    /// The file extension.
    pub fn extension(self) -> &'static str {
        match self {
            Format::Markdown => "md",
            Format::Html => "html",
            Format::Text => "txt",
        }
    }
}

/// A document being written.
pub struct Writer {
    format: Format,
    text: String,
    words: usize,
}

impl Writer {
    /// Start a document with its title (`# title`, `<h1>`, or the first line).
    pub fn new(format: Format, title: &str, capacity: usize) -> Self {
        let mut w = Writer {
            format,
            text: String::with_capacity(capacity),
            words: 0,
        };
        match format {
            Format::Markdown => {
                w.text.push_str("# ");
                w.text.push_str(title);
                w.text.push_str("\n\n");
            }
            Format::Html => {
                w.text.push_str("<!DOCTYPE html>\n<html lang=\"nl\">\n<head>\n<meta charset=\"utf-8\">\n<title>");
                escape_into(&mut w.text, title);
                w.text.push_str("</title>\n</head>\n<body>\n<h1>");
                escape_into(&mut w.text, title);
                w.text.push_str("</h1>\n");
            }
            Format::Text => {
                w.text.push_str(title);
                w.text.push_str("\n\n");
            }
        }
        w.words += count_words(title);
        w
    }

    /// Words of content written so far (markup not counted).
    pub fn words(&self) -> usize {
        self.words
    }

    /// The current byte offset; passages are recorded as ranges of these.
    pub fn pos(&self) -> usize {
        self.text.len()
    }

    /// The byte offset where the content of the last block ends (before the separating newlines).
    pub fn content_end(&self) -> usize {
        self.text.trim_end_matches('\n').len()
    }

    /// A section heading; level 1 is the highest below the title. Returns the byte offset where
    /// the heading's own text starts (after `## ` in Markdown).
    pub fn heading(&mut self, level: u8, text: &str) -> usize {
        self.words += count_words(text);
        match self.format {
            Format::Markdown => {
                for _ in 0..=level.min(5) {
                    self.text.push('#');
                }
                self.text.push(' ');
                let at = self.pos();
                self.text.push_str(text);
                self.text.push_str("\n\n");
                at
            }
            Format::Html => {
                let tag = if level <= 1 { "h2" } else { "h3" };
                self.text.push('<');
                self.text.push_str(tag);
                self.text.push('>');
                let at = self.pos();
                escape_into(&mut self.text, text);
                self.text.push_str("</");
                self.text.push_str(tag);
                self.text.push_str(">\n");
                at
            }
            Format::Text => {
                let at = self.pos();
                if level <= 1 && !is_keyword_heading(text) {
                    self.text.push_str(&text.to_uppercase());
                } else {
                    self.text.push_str(text);
                }
                self.text.push_str("\n\n");
                at
            }
        }
    }

    /// A paragraph.
    pub fn para(&mut self, text: &str) {
        self.words += count_words(text);
        match self.format {
            Format::Html => {
                self.text.push_str("<p>");
                escape_into(&mut self.text, text);
                self.text.push_str("</p>\n");
            }
            _ => {
                self.text.push_str(text);
                self.text.push_str("\n\n");
            }
        }
    }

    /// A list; `marker` is `-` for bullets, `1` for numbers, `a` for letters.
    pub fn list(&mut self, marker: char, items: &[String]) {
        if items.is_empty() {
            return;
        }
        for item in items {
            self.words += count_words(item);
        }
        match self.format {
            Format::Html => {
                let tag = if marker == '-' { "ul" } else { "ol" };
                self.text.push('<');
                self.text.push_str(tag);
                self.text.push_str(">\n");
                for item in items {
                    self.text.push_str("<li>");
                    escape_into(&mut self.text, item);
                    self.text.push_str("</li>\n");
                }
                self.text.push_str("</");
                self.text.push_str(tag);
                self.text.push_str(">\n");
            }
            _ => {
                for (i, item) in items.iter().enumerate() {
                    match marker {
                        '-' => self.text.push_str("- "),
                        'a' => {
                            self.text.push((b'a' + (i % 26) as u8) as char);
                            self.text.push_str(". ");
                        }
                        _ => {
                            self.text.push_str(&(i + 1).to_string());
                            self.text.push_str(". ");
                        }
                    }
                    self.text.push_str(item);
                    self.text.push('\n');
                }
                self.text.push('\n');
            }
        }
    }

    /// Key/value fields (a document's metadata block).
    pub fn fields(&mut self, fields: &[(&str, String)]) {
        for (k, v) in fields {
            self.words += count_words(k) + count_words(v);
        }
        match self.format {
            Format::Markdown => {
                for (k, v) in fields {
                    self.text.push_str("- **");
                    self.text.push_str(k);
                    self.text.push_str(":** ");
                    self.text.push_str(v);
                    self.text.push('\n');
                }
                self.text.push('\n');
            }
            Format::Html => {
                self.text.push_str("<ul class=\"metadata\">\n");
                for (k, v) in fields {
                    self.text.push_str("<li><strong>");
                    escape_into(&mut self.text, k);
                    self.text.push_str(":</strong> ");
                    escape_into(&mut self.text, v);
                    self.text.push_str("</li>\n");
                }
                self.text.push_str("</ul>\n");
            }
            Format::Text => {
                for (k, v) in fields {
                    self.text.push_str(k);
                    self.text.push_str(": ");
                    self.text.push_str(v);
                    self.text.push('\n');
                }
                self.text.push('\n');
            }
        }
    }

    /// A table with a header row.
    pub fn table(&mut self, header: &[&str], rows: &[Vec<String>]) {
        for h in header {
            self.words += count_words(h);
        }
        for row in rows {
            for cell in row {
                self.words += count_words(cell);
            }
        }
        match self.format {
            Format::Markdown => {
                self.text.push('|');
                for h in header {
                    self.text.push(' ');
                    self.text.push_str(h);
                    self.text.push_str(" |");
                }
                self.text.push_str("\n|");
                for _ in header {
                    self.text.push_str(" --- |");
                }
                self.text.push('\n');
                for row in rows {
                    self.text.push('|');
                    for cell in row {
                        self.text.push(' ');
                        self.text.push_str(cell);
                        self.text.push_str(" |");
                    }
                    self.text.push('\n');
                }
                self.text.push('\n');
            }
            Format::Html => {
                self.text.push_str("<table>\n<thead>\n<tr>");
                for h in header {
                    self.text.push_str("<th>");
                    escape_into(&mut self.text, h);
                    self.text.push_str("</th>");
                }
                self.text.push_str("</tr>\n</thead>\n<tbody>\n");
                for row in rows {
                    self.text.push_str("<tr>");
                    for cell in row {
                        self.text.push_str("<td>");
                        escape_into(&mut self.text, cell);
                        self.text.push_str("</td>");
                    }
                    self.text.push_str("</tr>\n");
                }
                self.text.push_str("</tbody>\n</table>\n");
            }
            Format::Text => {
                let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
                for row in rows {
                    for (w, cell) in widths.iter_mut().zip(row) {
                        *w = (*w).max(cell.chars().count());
                    }
                }
                let line = |text: &mut String, cells: &mut dyn Iterator<Item = &str>| {
                    let start = text.len();
                    for (cell, w) in cells.zip(&widths) {
                        text.push_str(cell);
                        for _ in cell.chars().count()..w + 2 {
                            text.push(' ');
                        }
                    }
                    let trimmed = text[start..].trim_end().len();
                    text.truncate(start + trimmed);
                    text.push('\n');
                };
                line(&mut self.text, &mut header.iter().copied());
                for row in rows {
                    line(&mut self.text, &mut row.iter().map(String::as_str));
                }
                self.text.push('\n');
            }
        }
    }

    /// Finish the document and return its text (Markdown and text end with one newline).
    pub fn finish(mut self) -> String {
        match self.format {
            Format::Html => self.text.push_str("</body>\n</html>\n"),
            _ => {
                let end = self.content_end();
                self.text.truncate(end);
                self.text.push('\n');
            }
        }
        self.text
    }
}

/// Headings the plain-text parser recognises by their keyword.
fn is_keyword_heading(text: &str) -> bool {
    ["Hoofdstuk ", "Artikel ", "Paragraaf ", "Bijlage "]
        .iter()
        .any(|k| text.starts_with(k))
}

/// Words as `split_whitespace` counts them.
pub fn count_words(text: &str) -> usize {
    text.split_ascii_whitespace().count()
}

/// Append `text` with `&`, `<`, `>` and `"` escaped.
pub fn escape_into(out: &mut String, text: &str) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
}
