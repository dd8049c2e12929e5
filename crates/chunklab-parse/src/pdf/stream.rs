//! Stream contents with a size cap: a small compressed stream must not expand without bound.

use flate2::read::{DeflateDecoder, ZlibDecoder};
use lopdf::{Object, Stream};
use std::io::Read;

/// Why a stream gave no bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum StreamError {
    /// It decodes to more than the limit.
    TooLarge,
    /// Unknown filter or corrupt data.
    Undecodable,
}

/// The decoded bytes of `stream`, at most `limit` of them. FlateDecode without a predictor is
/// inflated here with the cap; other filter chains go through lopdf and are checked afterwards.
/// Damaged compressed data yields what could be decoded (see [`stream_bytes_checked`]).
pub(super) fn stream_bytes(stream: &Stream, limit: usize) -> Result<Vec<u8>, StreamError> {
    stream_bytes_checked(stream, limit).map(|(bytes, _)| bytes)
}

/// [`stream_bytes`], and what was wrong when the compressed data is damaged (the bytes are then
/// those decoded before the damage).
pub(super) fn stream_bytes_checked(
    stream: &Stream,
    limit: usize,
) -> Result<(Vec<u8>, Option<String>), StreamError> {
    let filters: Vec<&[u8]> = match stream.dict.get(b"Filter") {
        Err(_) => Vec::new(),
        Ok(Object::Name(n)) => vec![n.as_slice()],
        Ok(Object::Array(a)) => a.iter().filter_map(|o| o.as_name().ok()).collect(),
        Ok(_) => return Err(StreamError::Undecodable),
    };
    let has_params = stream.dict.get(b"DecodeParms").is_ok();
    let (out, damage) = match filters.as_slice() {
        [] => (stream.content.clone(), None),
        [b"FlateDecode"] | [b"Fl"] if !has_params => inflate(&stream.content, limit)?,
        _ => (
            stream
                .decompressed_content()
                .map_err(|_| StreamError::Undecodable)?,
            None,
        ),
    };
    if out.len() > limit {
        return Err(StreamError::TooLarge);
    }
    Ok((out, damage))
}

/// zlib-inflates `data` (raw deflate when the zlib header is broken), stopping past `limit`.
/// A damaged or truncated stream yields what could be inflated, with the reason.
fn inflate(data: &[u8], limit: usize) -> Result<(Vec<u8>, Option<String>), StreamError> {
    let cap = limit as u64 + 1;
    let mut out = Vec::new();
    let mut result = ZlibDecoder::new(data).take(cap).read_to_end(&mut out);
    if result.is_err() && out.is_empty() {
        out.clear();
        result = DeflateDecoder::new(data).take(cap).read_to_end(&mut out);
    }
    if out.len() > limit {
        return Err(StreamError::TooLarge);
    }
    if out.is_empty() && !data.is_empty() {
        return Err(StreamError::Undecodable);
    }
    let damage = result.err().map(|e| {
        format!(
            "its compressed data is damaged ({e}); kept the {} bytes decoded before the damage",
            out.len()
        )
    });
    Ok((out, damage))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::write::ZlibEncoder;
    use flate2::Compression;
    use std::io::Write;

    #[test]
    fn inflate_respects_the_cap() {
        let mut enc = ZlibEncoder::new(Vec::new(), Compression::best());
        enc.write_all(&vec![b'a'; 1 << 20]).unwrap();
        let bomb = enc.finish().unwrap();
        assert!(bomb.len() < 4096);
        assert_eq!(inflate(&bomb, 2 << 20).map(|v| v.0.len()), Ok(1 << 20));
        assert_eq!(inflate(&bomb, 1000), Err(StreamError::TooLarge));
        assert_eq!(
            inflate(b"not zlib at all", 1000),
            Err(StreamError::Undecodable)
        );
    }

    #[test]
    fn damaged_data_is_reported() {
        let mut enc = ZlibEncoder::new(Vec::new(), Compression::default());
        for i in 0..4000 {
            writeln!(enc, "BT /F1 12 Tf ({i}) Tj ET").unwrap();
        }
        let mut data = enc.finish().unwrap();
        let (whole, damage) = inflate(&data, 1 << 20).unwrap();
        assert!(damage.is_none());
        data.truncate(data.len() / 2);
        let (part, damage) = inflate(&data, 1 << 20).unwrap();
        assert!(part.len() < whole.len());
        assert!(
            damage.is_some_and(|d| d.contains("damaged")),
            "truncation reported"
        );
    }
}
