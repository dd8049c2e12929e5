//! Small helpers over `quick-xml` for the office formats (DOCX, ODT): a reader that reports every
//! element as a start/end pair, lossy text and attribute decoding, and error mapping.
//!
//! Elements are matched by their qualified names (`w:p`, `text:h`) as the producers write them;
//! no DTD or custom entity is ever expanded.

use crate::{zip_limits, ParseError};
use quick_xml::events::{BytesRef, BytesStart, BytesText};
use quick_xml::Reader;
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io::BufRead;

/// A reader over `xml` that expands `<a/>` into a start and an end event.
pub(crate) fn reader(xml: &[u8]) -> Reader<&[u8]> {
    stream_reader(xml)
}

/// [`reader`] over a buffered stream (a part decompressed as it is read, never held whole):
/// read it with `read_event_into`.
pub(crate) fn stream_reader<R: BufRead>(xml: R) -> Reader<R> {
    let mut r = Reader::from_reader(xml);
    r.config_mut().expand_empty_elements = true;
    r
}

/// The value of attribute `key` (qualified name), with entity references resolved.
pub(crate) fn attr(e: &BytesStart, key: &[u8]) -> Option<String> {
    e.attributes()
        .flatten()
        .find(|a| a.key.as_ref() == key)
        .map(|a| {
            a.normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map(|v| v.into_owned())
                .unwrap_or_else(|_| String::from_utf8_lossy(&a.value).into_owned())
        })
}

/// A text event as text (invalid UTF-8 replaced).
pub(crate) fn text<'a>(t: &'a BytesText) -> Cow<'a, str> {
    match std::str::from_utf8(t) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(t),
    }
}

/// Appends a text event (invalid UTF-8 replaced).
pub(crate) fn push_text(out: &mut String, t: &BytesText) {
    out.push_str(&text(t));
}

/// Appends what an entity reference stands for (`&amp;`, `&#233;`); unknown ones are dropped.
pub(crate) fn push_ref(out: &mut String, r: &BytesRef) {
    if let Ok(Some(c)) = r.resolve_char_ref() {
        out.push(c);
        return;
    }
    let name: &[u8] = r;
    let c = match name {
        b"amp" => '&',
        b"lt" => '<',
        b"gt" => '>',
        b"quot" => '"',
        b"apos" => '\'',
        _ => return,
    };
    out.push(c);
}

/// A broken XML part as a [`ParseError`]; a failed read of a streamed part is a corrupt part, or
/// the decompression limit ([`zip_limits::io_error`]).
pub(crate) fn error<R>(
    format: &'static str,
    part: &str,
    reader: &Reader<R>,
    e: quick_xml::Error,
) -> ParseError {
    if let quick_xml::Error::Io(io) = &e {
        return zip_limits::io_error(format, part, io);
    }
    ParseError::Invalid {
        format,
        message: format!(
            "malformed XML in {part} near byte {}: {e}",
            reader.error_position()
        ),
    }
}

/// Collects the text of simple `<name>value</name>` fields (document properties), keyed by the
/// metadata names in `fields`. Empty values are left out; repeated fields are joined with ", ".
/// Broken XML just ends the collection: metadata is never worth failing a document for.
pub(crate) fn simple_fields(xml: &[u8], fields: &[(&[u8], &str)]) -> BTreeMap<String, String> {
    use quick_xml::events::Event;
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    let mut r = reader(xml);
    let mut current: Option<&str> = None;
    let mut value = String::new();
    loop {
        match r.read_event() {
            Ok(Event::Start(e)) => {
                current = fields
                    .iter()
                    .find(|(name, _)| e.name().as_ref() == *name)
                    .map(|(_, key)| *key);
                value.clear();
            }
            Ok(Event::Text(t)) if current.is_some() => push_text(&mut value, &t),
            Ok(Event::GeneralRef(g)) if current.is_some() => push_ref(&mut value, &g),
            Ok(Event::End(_)) => {
                if let Some(key) = current.take() {
                    let v = crate::blocks::one_line(&value);
                    if !v.is_empty() {
                        out.entry(key.to_string())
                            .and_modify(|old| {
                                old.push_str(", ");
                                old.push_str(&v);
                            })
                            .or_insert(v);
                    }
                }
            }
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => {}
        }
    }
    out
}
