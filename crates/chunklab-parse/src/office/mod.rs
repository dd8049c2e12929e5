//! What the two office formats (DOCX and ODT) share: the block walker that turns a streamed
//! main part into paragraphs and tables ([`walk`]) and the one table of localized paragraph-style
//! names that mark titles, headings, captions and code ([`roles`]). Each format keeps only its
//! container handling, its style and numbering readers and the hooks of [`walk::Format`].

pub(crate) mod roles;
pub(crate) mod walk;
