//! Reading parts of a zip container (DOCX, ODT) without trusting it: the entry count is checked
//! before the central directory is loaded, and every part is read through `take()` against one
//! shared decompressed-bytes budget, so a zip bomb stops at the limit whatever sizes it declares.

use crate::{Limits, ParseError};
use std::io::{BufReader, Cursor, Read};
use zip::read::ZipFile;
use zip::result::ZipError;
use zip::ZipArchive;

/// An opened zip container with a decompression budget.
pub(crate) struct SafeZip<'a> {
    archive: ZipArchive<Cursor<&'a [u8]>>,
    format: &'static str,
    /// Bytes still allowed to be decompressed, over all parts read.
    budget: u64,
    limit: u64,
}

impl<'a> SafeZip<'a> {
    /// Opens `bytes` as the zip container of `format`, refusing more than
    /// `limits.max_zip_entries` entries.
    pub fn open(
        bytes: &'a [u8],
        format: &'static str,
        limits: &Limits,
    ) -> Result<Self, ParseError> {
        if bytes.is_empty() {
            return Err(invalid(format, "the file is empty"));
        }
        if !bytes.starts_with(b"PK") {
            return Err(invalid(format, "not a zip container (no PK signature)"));
        }
        let max_entries = limits.max_zip_entries as u64;
        if let Some(declared) = declared_entry_count(bytes) {
            if declared > max_entries {
                return Err(too_many_entries(declared, max_entries));
            }
        }
        let archive = ZipArchive::new(Cursor::new(bytes))
            .map_err(|e| invalid(format, &format!("corrupt or truncated zip container ({e})")))?;
        if archive.len() as u64 > max_entries {
            return Err(too_many_entries(archive.len() as u64, max_entries));
        }
        Ok(Self {
            archive,
            format,
            budget: limits.max_decompressed_bytes,
            limit: limits.max_decompressed_bytes,
        })
    }

    /// Whether the container has an entry called `name`.
    pub fn contains(&self, name: &str) -> bool {
        self.archive.index_for_name(name).is_some()
    }

    /// The decompressed bytes of entry `name`, or `None` if there is no such entry.
    pub fn read(&mut self, name: &str) -> Result<Option<Vec<u8>>, ParseError> {
        let format = self.format;
        let Some(mut part) = self.stream(name)? else {
            return Ok(None);
        };
        let hint = part.get_ref().declared.min(part.get_ref().left);
        let mut out = Vec::with_capacity(hint.min(64 << 20) as usize);
        part.read_to_end(&mut out)
            .map_err(|e| io_error(format, name, &e))?;
        Ok(Some(out))
    }

    /// Entry `name` as a buffered stream, its decompressed bytes charged to the container's
    /// budget as they are read: a read past the budget fails with an error that [`io_error`]
    /// turns into [`ParseError::Limit`]. `None` if there is no such entry. The main part of a
    /// document is parsed this way, never held whole in memory.
    pub fn stream(&mut self, name: &str) -> Result<Option<PartStream<'_, 'a>>, ParseError> {
        self.open_part(name, true)
    }

    /// Entry `name` as a buffered stream bounded by what is left of the budget but not charged
    /// to it: for a first look at the head of a part that [`SafeZip::stream`] reads (and
    /// charges) whole afterwards (ODT's automatic styles, before `office:body`).
    pub fn peek(&mut self, name: &str) -> Result<Option<PartStream<'_, 'a>>, ParseError> {
        self.open_part(name, false)
    }

    fn open_part(
        &mut self,
        name: &str,
        charge: bool,
    ) -> Result<Option<PartStream<'_, 'a>>, ParseError> {
        let format = self.format;
        let file = match self.archive.by_name(name) {
            Ok(f) => f,
            Err(ZipError::FileNotFound) => return Ok(None),
            Err(ZipError::UnsupportedArchive(msg)) if msg == ZipError::PASSWORD_REQUIRED => {
                return Err(ParseError::Encrypted { format })
            }
            Err(e) => return Err(invalid(format, &format!("cannot open part {name}: {e}"))),
        };
        if file.encrypted() {
            return Err(ParseError::Encrypted { format });
        }
        if file.size() > self.budget {
            return Err(over_budget(format, self.limit));
        }
        let declared = file.size();
        let left = self.budget;
        let reader = PartReader {
            declared,
            file,
            left,
            charged: charge.then_some(&mut self.budget),
            format,
            limit: self.limit,
        };
        Ok(Some(BufReader::with_capacity(STREAM_BUFFER, reader)))
    }
}

/// The read buffer of a streamed part.
const STREAM_BUFFER: usize = 64 << 10;

/// A streamed part of a [`SafeZip`] (see [`SafeZip::stream`]).
pub(crate) type PartStream<'z, 'a> = BufReader<PartReader<'z, 'a>>;

/// The decompressing reader of one part, counting its bytes against the budget.
pub(crate) struct PartReader<'z, 'a> {
    /// The size the central directory declares (may lie; only a capacity hint).
    declared: u64,
    file: ZipFile<'z, Cursor<&'a [u8]>>,
    /// Bytes this part may still expand to.
    left: u64,
    /// The container's budget, kept equal to `left` as bytes are read ([`SafeZip::stream`]).
    charged: Option<&'z mut u64>,
    format: &'static str,
    limit: u64,
}

impl Read for PartReader<'_, '_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        // The declared size may lie: read at most one byte past the budget to find out.
        let most = usize::try_from(self.left.saturating_add(1)).unwrap_or(usize::MAX);
        let want = buf.len().min(most);
        let n = self.file.read(&mut buf[..want])?;
        if n as u64 > self.left {
            return Err(std::io::Error::other(OverBudget {
                format: self.format,
                limit: self.limit,
            }));
        }
        self.left -= n as u64;
        if let Some(budget) = self.charged.as_deref_mut() {
            *budget = self.left;
        }
        Ok(n)
    }
}

/// The error a [`PartReader`] fails with past the budget, carried through `std::io::Error` (and
/// `quick_xml::Error::Io`) to [`io_error`].
#[derive(Debug)]
struct OverBudget {
    format: &'static str,
    limit: u64,
}

impl std::fmt::Display for OverBudget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the decompressed size of the {} container exceeds {} bytes",
            self.format, self.limit
        )
    }
}

impl std::error::Error for OverBudget {}

/// What a failed read of part `part` means: past the budget, a [`ParseError::Limit`]; else a
/// corrupt part (bad deflate data, checksum mismatch).
pub(crate) fn io_error(format: &'static str, part: &str, e: &std::io::Error) -> ParseError {
    match e
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<OverBudget>())
    {
        Some(over) => over_budget(over.format, over.limit),
        None => invalid(format, &format!("corrupt part {part}: {e}")),
    }
}

fn over_budget(format: &'static str, limit: u64) -> ParseError {
    ParseError::Limit {
        what: format!("the decompressed size of the {format} container"),
        limit,
    }
}

fn invalid(format: &'static str, message: &str) -> ParseError {
    ParseError::Invalid {
        format,
        message: message.to_string(),
    }
}

fn too_many_entries(count: u64, limit: u64) -> ParseError {
    ParseError::Limit {
        what: format!("a zip container with {count} entries"),
        limit,
    }
}

/// The total entry count the end-of-central-directory record declares (the 16-bit field; a
/// zip64 archive says 0xFFFF there, which is then checked again after opening).
fn declared_entry_count(bytes: &[u8]) -> Option<u64> {
    const EOCD: &[u8; 4] = b"PK\x05\x06";
    const MIN: usize = 22;
    if bytes.len() < MIN {
        return None;
    }
    // The record sits in the last 22 + 65535 (comment) bytes.
    let from = bytes.len().saturating_sub(MIN + 0xFFFF);
    let at = (from..=bytes.len() - MIN)
        .rev()
        .find(|&i| &bytes[i..i + 4] == EOCD)?;
    Some(u16::from_le_bytes([bytes[at + 10], bytes[at + 11]]) as u64)
}

/// The OLE compound-file signature: an encrypted OOXML package (or a legacy binary `.doc`).
pub(crate) const OLE_MAGIC: &[u8; 8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";

/// Whether an OLE compound file holds an `EncryptedPackage` stream (a password-protected
/// DOCX/XLSX/PPTX) rather than a legacy binary document.
pub(crate) fn ole_is_encrypted_package(bytes: &[u8]) -> bool {
    let needle: Vec<u8> = "EncryptedPackage"
        .encode_utf16()
        .flat_map(|u| u.to_le_bytes())
        .collect();
    bytes.windows(needle.len()).any(|w| w == needle.as_slice())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;
    use zip::write::SimpleFileOptions;

    /// A zip with the given (name, content) entries, deflated.
    pub(crate) fn make_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
        let mut w = zip::ZipWriter::new(Cursor::new(Vec::new()));
        let opts =
            SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
        for (name, content) in entries {
            w.start_file(*name, opts).unwrap();
            w.write_all(content).unwrap();
        }
        w.finish().unwrap().into_inner()
    }

    #[test]
    fn bomb_stops_at_the_budget() {
        let big = vec![b'a'; 1 << 20];
        let bytes = make_zip(&[("a.xml", &big)]);
        assert!(
            bytes.len() < 20_000,
            "deflated bomb is small: {}",
            bytes.len()
        );
        let limits = Limits {
            max_decompressed_bytes: 100_000,
            ..Limits::default()
        };
        let mut z = SafeZip::open(&bytes, "docx", &limits).unwrap();
        assert!(matches!(z.read("a.xml"), Err(ParseError::Limit { .. })));
        let mut z = SafeZip::open(&bytes, "docx", &Limits::default()).unwrap();
        assert_eq!(z.read("a.xml").unwrap().unwrap().len(), 1 << 20);
        assert!(z.read("missing").unwrap().is_none());
    }

    #[test]
    fn entry_count_is_checked_first() {
        let entries: Vec<(String, Vec<u8>)> =
            (0..20).map(|i| (format!("f{i}"), vec![b'x'; 3])).collect();
        let refs: Vec<(&str, &[u8])> = entries
            .iter()
            .map(|(n, c)| (n.as_str(), c.as_slice()))
            .collect();
        let bytes = make_zip(&refs);
        assert_eq!(declared_entry_count(&bytes), Some(20));
        let limits = Limits {
            max_zip_entries: 10,
            ..Limits::default()
        };
        assert!(matches!(
            SafeZip::open(&bytes, "odt", &limits),
            Err(ParseError::Limit { .. })
        ));
    }

    #[test]
    fn garbage_is_invalid() {
        for bytes in [&b""[..], b"PK", b"PK\x03\x04 truncated", b"hello world"] {
            assert!(matches!(
                SafeZip::open(bytes, "docx", &Limits::default()),
                Err(ParseError::Invalid { .. })
            ));
        }
    }
}
