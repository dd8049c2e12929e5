//! Loading a damaged PDF: when lopdf cannot read the cross-reference table or trailer, or drops
//! objects the table lists (it skips unreadable objects without a word), the file is read again
//! with a rebuilt table — every `N G obj` header found by scanning the bytes, object headers
//! damaged in place repaired where the old table says which object starts there — appended as a
//! new cross-reference section, as mature PDF readers do. What was rebuilt, recovered or lost is
//! reported as warnings.

use lopdf::xref::XrefEntry;
use lopdf::{Document, ObjectId};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// Object numbers above this are not believed (a corrupt header must not size a huge table).
const MAX_OBJECT_NUMBER: u32 = 1_000_000;

/// A loaded document and what had to be repaired to read it.
pub(super) struct Loaded {
    pub doc: Document,
    pub warnings: Vec<String>,
}

/// Loads `bytes`, rebuilding the cross-reference table when the file is damaged. Returns the
/// error of the first attempt when even the rebuilt file cannot be read.
pub(super) fn load(bytes: &[u8]) -> Result<Loaded, lopdf::Error> {
    let first = Document::load_mem(bytes);
    let (missing, table) = match &first {
        Ok(doc) => {
            // An encrypted file's trailer cannot be rebuilt without its /Encrypt entry.
            let encrypted = doc.encryption_state.is_some() || doc.trailer.get(b"Encrypt").is_ok();
            let missing = if encrypted {
                BTreeMap::new()
            } else {
                missing_objects(doc)
            };
            if missing.is_empty() {
                let doc = first.expect("matched Ok");
                return Ok(Loaded {
                    doc,
                    warnings: Vec::new(),
                });
            }
            let table: BTreeMap<ObjectId, usize> = doc
                .reference_table
                .entries
                .iter()
                .filter_map(|(&n, e)| match *e {
                    XrefEntry::Normal { offset, generation } => {
                        Some(((n, generation), offset as usize))
                    }
                    _ => None,
                })
                .collect();
            (missing, Some(table))
        }
        // Encryption problems are not damage; report them as they are.
        Err(lopdf::Error::InvalidPassword | lopdf::Error::Decryption(_)) => {
            return first.map(|doc| Loaded {
                doc,
                warnings: Vec::new(),
            })
        }
        Err(_) if find(bytes, 0, b"/Encrypt").is_some() => {
            return first.map(|doc| Loaded {
                doc,
                warnings: Vec::new(),
            })
        }
        Err(_) => (BTreeMap::new(), None),
    };
    let mut buf = bytes.to_vec();
    let mut warnings = Vec::new();
    let mut offsets = scan_headers(bytes);
    // The old table knows where objects start whose header the scan cannot read ("1$0 obj").
    for (&id, &at) in &missing {
        if offsets.contains_key(&id) {
            continue;
        }
        if repair_header(&mut buf, at, id) {
            offsets.insert(id, at);
        }
    }
    // Where the old table is readable, its offsets win for the objects that loaded from them.
    if let Some(table) = &table {
        for (&id, &at) in table {
            if !missing.contains_key(&id) && at < bytes.len() {
                offsets.insert(id, at);
            }
        }
    }
    let root = match &first {
        Ok(doc) => doc
            .trailer
            .get(b"Root")
            .ok()
            .and_then(|r| r.as_reference().ok()),
        Err(_) => None,
    }
    .or_else(|| find_catalog(bytes, &offsets));
    let Some(root) = root else {
        return first.map(|doc| Loaded { doc, warnings });
    };
    let info = first
        .as_ref()
        .ok()
        .and_then(|doc| doc.trailer.get(b"Info").ok())
        .and_then(|r| r.as_reference().ok());
    append_table(&mut buf, &offsets, root, info);
    let second = match Document::load_mem(&buf) {
        Ok(doc) => doc,
        Err(e) => {
            return match first {
                Ok(doc) => {
                    warnings.extend(lost_warnings(&missing, &BTreeSet::new()));
                    Ok(Loaded { doc, warnings })
                }
                Err(first_err) => Err(match e {
                    lopdf::Error::InvalidPassword | lopdf::Error::Decryption(_) => e,
                    _ => first_err,
                }),
            };
        }
    };
    match &first {
        Err(e) => warnings.push(format!(
            "the cross-reference table or trailer is damaged ({e}); rebuilt it from {} objects \
             found by scanning the file",
            offsets.len()
        )),
        Ok(_) => {
            let loaded: BTreeSet<u32> = second.objects.keys().map(|id| id.0).collect();
            let recovered = missing.keys().filter(|id| loaded.contains(&id.0)).count();
            if recovered > 0 {
                warnings.push(format!(
                    "{recovered} damaged object(s) recovered by rebuilding the cross-reference \
                     table: {}",
                    list_ids(missing.iter().filter(|(id, _)| loaded.contains(&id.0)))
                ));
            }
            warnings.extend(lost_warnings(&missing, &loaded));
        }
    }
    Ok(Loaded {
        doc: second,
        warnings,
    })
}

/// Objects the table lists as in use that lopdf could not read, with their table offsets.
fn missing_objects(doc: &Document) -> BTreeMap<ObjectId, usize> {
    let numbers: BTreeSet<u32> = doc.objects.keys().map(|id| id.0).collect();
    doc.reference_table
        .entries
        .iter()
        .filter_map(|(&n, e)| match *e {
            XrefEntry::Normal { offset, generation } if n > 0 => Some(((n, generation), offset)),
            _ => None,
        })
        .filter(|(id, _)| !numbers.contains(&id.0))
        .map(|(id, offset)| (id, offset as usize))
        .collect()
}

fn list_ids<'a>(ids: impl Iterator<Item = (&'a ObjectId, &'a usize)>) -> String {
    let all: Vec<String> = ids
        .map(|((n, g), at)| format!("{n} {g} (byte {at})"))
        .collect();
    let shown = all.len().min(10);
    let mut s = all[..shown].join(", ");
    if all.len() > shown {
        let _ = write!(s, " and {} more", all.len() - shown);
    }
    s
}

fn lost_warnings(missing: &BTreeMap<ObjectId, usize>, loaded: &BTreeSet<u32>) -> Option<String> {
    let lost: Vec<(&ObjectId, &usize)> = missing
        .iter()
        .filter(|(id, _)| !loaded.contains(&id.0))
        .collect();
    (!lost.is_empty()).then(|| {
        format!(
            "{} object(s) are damaged and could not be read: {}",
            lost.len(),
            list_ids(lost.into_iter())
        )
    })
}

/// Every `N G obj` header at the start of a line or after a delimiter, by object id (a later
/// definition wins, as in an incrementally updated file).
fn scan_headers(bytes: &[u8]) -> BTreeMap<ObjectId, usize> {
    let mut out = BTreeMap::new();
    let mut i = 0;
    while let Some(pos) = find(bytes, i, b"obj") {
        i = pos + 3;
        // "obj" must end the keyword (not "objects", not "endobj").
        if bytes
            .get(pos + 3)
            .is_some_and(|b| b.is_ascii_alphanumeric())
        {
            continue;
        }
        if let Some((start, id)) = header_before(bytes, pos) {
            out.insert(id, start);
        }
    }
    out
}

/// Reads `N G ` backwards from the `obj` keyword at `pos`: its start and the id.
fn header_before(bytes: &[u8], pos: usize) -> Option<(usize, ObjectId)> {
    let mut j = pos;
    let skip_white = |j: &mut usize| {
        let start = *j;
        while *j > 0 && is_white(bytes[*j - 1]) {
            *j -= 1;
        }
        *j < start
    };
    let digits = |j: &mut usize| {
        let end = *j;
        while *j > 0 && bytes[*j - 1].is_ascii_digit() && end - *j < 10 {
            *j -= 1;
        }
        std::str::from_utf8(&bytes[*j..end])
            .ok()?
            .parse::<u64>()
            .ok()
    };
    if !skip_white(&mut j) {
        return None;
    }
    let generation = digits(&mut j)?;
    if !skip_white(&mut j) {
        return None;
    }
    let number = digits(&mut j)?;
    if j > 0 && !is_white(bytes[j - 1]) && !b"<>[]()/%".contains(&bytes[j - 1]) {
        return None;
    }
    let number = u32::try_from(number)
        .ok()
        .filter(|&n| n > 0 && n <= MAX_OBJECT_NUMBER)?;
    let generation = u16::try_from(generation).ok()?;
    Some((j, (number, generation)))
}

/// Rewrites a damaged object header at `at` ("1$0 obj") to `id`'s, in place and at the same
/// length, when an `obj` keyword follows within a few bytes. Returns whether it did.
fn repair_header(buf: &mut [u8], at: usize, id: ObjectId) -> bool {
    let Some(window) = buf.get(at..(at + 32).min(buf.len())) else {
        return false;
    };
    let Some(obj) = find(window, 0, b"obj") else {
        return false;
    };
    let header = format!("{} {} ", id.0, id.1);
    if header.len() > obj || window[..obj].contains(&b'\n') {
        return false;
    }
    buf[at..at + obj].fill(b' ');
    buf[at..at + header.len()].copy_from_slice(header.as_bytes());
    true
}

/// The last object whose dictionary starts with a `/Type /Catalog` entry.
fn find_catalog(bytes: &[u8], offsets: &BTreeMap<ObjectId, usize>) -> Option<ObjectId> {
    let mut found: Option<(usize, ObjectId)> = None;
    for (&id, &at) in offsets {
        let head = &bytes[at..(at + 400).min(bytes.len())];
        let compact: Vec<u8> = head.iter().copied().filter(|b| !is_white(*b)).collect();
        if find(&compact, 0, b"/Type/Catalog").is_some() && found.is_none_or(|(f, _)| at > f) {
            found = Some((at, id));
        }
    }
    found.map(|(_, id)| id)
}

/// Appends a classic cross-reference section for `offsets` and a trailer naming `root`.
fn append_table(
    buf: &mut Vec<u8>,
    offsets: &BTreeMap<ObjectId, usize>,
    root: ObjectId,
    info: Option<ObjectId>,
) {
    let mut by_number: BTreeMap<u32, (u16, usize)> = BTreeMap::new();
    for (&(n, g), &at) in offsets {
        by_number.insert(n, (g, at));
    }
    let size = by_number.keys().next_back().map_or(1, |n| n + 1);
    buf.extend_from_slice(b"\n");
    let start = buf.len();
    let mut s = String::with_capacity(size as usize * 20 + 200);
    let _ = write!(s, "xref\n0 {size}\n0000000000 65535 f\r\n");
    for n in 1..size {
        match by_number.get(&n) {
            Some(&(g, at)) => {
                let _ = write!(s, "{at:010} {g:05} n\r\n");
            }
            None => s.push_str("0000000000 00000 f\r\n"),
        }
    }
    let _ = write!(s, "trailer\n<< /Size {size} /Root {} {} R", root.0, root.1);
    if let Some((n, g)) = info.filter(|id| offsets.contains_key(id)) {
        let _ = write!(s, " /Info {n} {g} R");
    }
    let _ = write!(s, " >>\nstartxref\n{start}\n%%EOF\n");
    buf.extend_from_slice(s.as_bytes());
}

fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' | b'\0')
}

fn find(hay: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_found_and_repaired() {
        let bytes = b"%PDF-1.4\n1 0 obj\n<<>>\nendobj\n12 3 obj<<>>endobj\nxobj 5 obj";
        let found = scan_headers(bytes);
        assert_eq!(found.get(&(1, 0)), Some(&9));
        assert_eq!(found.get(&(12, 3)), Some(&29));
        assert_eq!(found.len(), 2);
        let mut damaged = b"x\n1$0 obj <<>> endobj".to_vec();
        assert!(repair_header(&mut damaged, 2, (1, 0)));
        assert_eq!(&damaged[2..9], b"1 0 obj");
        let mut short = b"1obj".to_vec();
        assert!(!repair_header(&mut short, 0, (1, 0)));
    }
}
