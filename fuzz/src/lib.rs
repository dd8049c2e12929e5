//! Shared by the fuzz targets in `fuzz_targets/`: the panic policy and small helpers.
//!
//! **What counts as a crash.** A panic whose location is in chunklab's own code (a file under
//! `crates/chunklab-*`) is a bug even where the project catches it (the PDF parser and the BM25
//! reader guard third-party code with `catch_unwind`, which would hide our own panics too), so it
//! aborts at once. A panic inside a third-party crate is tolerated only when chunklab catches it
//! and turns it into an error (lopdf in the PDF parser, tantivy in the BM25 reader, by design);
//! one that escapes the public call aborts. Every abort is a crash libFuzzer records.

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;
use std::sync::Once;

thread_local! {
    static LAST_PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// Whether a panic location is in chunklab's own source: the crates (non-member path
/// dependencies, so rustc names them by absolute path) or this fuzz crate (relative paths).
/// Registry crates and std have absolute paths elsewhere.
fn ours(file: &str) -> bool {
    file.contains("/crates/chunklab-") || !file.starts_with('/')
}

/// Install the panic policy (once per process; call from each target's `init`).
pub fn init() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // libfuzzer-sys has installed a hook that prints and aborts; keep it for our panics.
        let abort_hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if info.location().is_some_and(|l| ours(l.file())) {
                abort_hook(info);
                std::process::abort();
            }
            let trace = std::backtrace::Backtrace::force_capture();
            LAST_PANIC.with(|p| *p.borrow_mut() = Some(format!("{info}\n{trace}")));
        }));
    });
}

/// Run `f`; a panic that escapes it is a crash (printed, then abort).
pub fn guard<R>(f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(_) => {
            let msg = LAST_PANIC.with(|p| p.borrow_mut().take());
            eprintln!(
                "panic escaped the public API: {}",
                msg.as_deref().unwrap_or("?")
            );
            std::process::abort();
        }
    }
}

/// Parse `bytes` with the parser named `format` (forced, as `chunklab chunk --parser NAME`) at
/// the default limits, and check the result's own invariants: every element is a span of the
/// text on char boundaries. Returns the document when parsing succeeded.
pub fn parse_forced(
    format: &str,
    file_name: &str,
    bytes: &[u8],
) -> Option<chunklab_parse::ParsedDocument> {
    let parser = chunklab_parse::parser_by_name(format).expect("known parser name");
    let limits = chunklab_parse::Limits::default();
    let doc = guard(|| parser.parse(bytes, Path::new(file_name), &limits)).ok()?;
    check_document(&doc);
    Some(doc)
}

/// Elements of a parsed document must be spans of its text (what every chunker relies on).
pub fn check_document(doc: &chunklab_parse::ParsedDocument) {
    for (i, e) in doc.elements.iter().enumerate() {
        assert!(
            e.start <= e.end && e.end <= doc.text.len(),
            "element {i} {:?} {}..{} outside the text ({} bytes)",
            e.kind,
            e.start,
            e.end,
            doc.text.len()
        );
        assert!(
            doc.text.is_char_boundary(e.start) && doc.text.is_char_boundary(e.end),
            "element {i} {}..{} not on char boundaries",
            e.start,
            e.end
        );
    }
}

/// The parts of a zip container (name, uncompressed bytes), in order.
pub fn zip_entries(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    use std::io::Read;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("template zip");
    (0..archive.len())
        .map(|i| {
            let mut f = archive.by_index(i).expect("template entry");
            let mut content = Vec::new();
            f.read_to_end(&mut content).expect("template entry reads");
            (f.name().to_string(), content)
        })
        .collect()
}

/// A zip (stored, uncompressed) of `entries` with the part at `replace` given `content`: how
/// the DOCX/ODT targets put fuzzed XML behind a valid container.
pub fn zip_with(entries: &[(String, Vec<u8>)], replace: usize, content: &[u8]) -> Vec<u8> {
    use std::io::Write;
    let mut w = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (i, (name, bytes)) in entries.iter().enumerate() {
        w.start_file(name.as_str(), opts).expect("zip entry");
        w.write_all(if i == replace { content } else { bytes })
            .expect("zip write");
    }
    w.finish().expect("zip finish").into_inner()
}

/// The DOCX/ODT input modes, by the first byte: 0 the bytes are the container; 1 they are the
/// main XML part (`main`) of `template`; 2 the second byte picks another part and the rest is
/// its XML. Returns the container to parse.
pub fn office_input(
    entries: &[(String, Vec<u8>)],
    main: &str,
    data: &[u8],
) -> Option<std::borrow::Cow<'static, [u8]>> {
    let (&mode, rest) = data.split_first()?;
    Some(match mode % 3 {
        0 => std::borrow::Cow::Owned(rest.to_vec()),
        1 => {
            let at = entries.iter().position(|(n, _)| n == main)?;
            std::borrow::Cow::Owned(zip_with(entries, at, rest))
        }
        _ => {
            let (&which, xml) = rest.split_first()?;
            std::borrow::Cow::Owned(zip_with(entries, which as usize % entries.len(), xml))
        }
    })
}
