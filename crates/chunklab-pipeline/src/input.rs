//! Finding and loading input documents: files, directories (recursive, include/exclude globs) and
//! stdin; UTF-8 validation with the byte offset of the first bad byte; binary detection; optional
//! decoding from other encodings. Files are memory-mapped, so a huge file costs page cache, not heap.

use crate::spelling::{Flags, Spelling};
use anyhow::{anyhow, bail, Context, Result};
use globset::{Glob, GlobSet, GlobSetBuilder};
use rayon::prelude::*;
use std::io::Read;
use std::path::{Path, PathBuf};

/// One input to chunk, before it is read.
#[derive(Debug, Clone)]
pub enum Input {
    /// Standard input (`-`).
    Stdin,
    /// A file.
    File {
        /// Where it is.
        path: PathBuf,
        /// Document id: the path relative to the directory it was found under, or as given.
        doc_id: String,
    },
    /// Something a directory walk found but cannot read as a document (an unreadable
    /// directory, a FIFO, socket or device, a symlink loop): reading it fails with `reason`,
    /// so every face reports it like an unreadable file instead of dropping it silently.
    Unreadable {
        /// Where it is.
        path: PathBuf,
        /// Its id, as a document there would have.
        doc_id: String,
        /// Why it cannot be read.
        reason: String,
    },
}

impl Input {
    /// A file named as given (its path is its document id).
    pub fn file(path: impl Into<PathBuf>) -> Input {
        let path = path.into();
        Input::File {
            doc_id: path.to_string_lossy().into_owned(),
            path,
        }
    }

    /// The document id: the path relative to the walked directory, or as given.
    pub fn doc_id(&self) -> &str {
        match self {
            Input::Stdin => "stdin",
            Input::File { doc_id, .. } | Input::Unreadable { doc_id, .. } => doc_id,
        }
    }
    /// The file's path (`-` for stdin), for choosing a parser.
    pub fn path(&self) -> &Path {
        match self {
            Input::Stdin => Path::new("-"),
            Input::File { path, .. } | Input::Unreadable { path, .. } => path,
        }
    }
    /// The display name: the path, or `-`.
    pub fn source(&self) -> String {
        match self {
            Input::Stdin => "-".to_string(),
            // A UTF-8 path as it is (what `display` writes for it, without the formatter: this
            // runs a few times per file); another one with its invalid bytes replaced.
            Input::File { path, .. } | Input::Unreadable { path, .. } => match path.to_str() {
                Some(path) => path.to_owned(),
                None => path.display().to_string(),
            },
        }
    }
}

/// Include/exclude filters for directory walks.
pub struct Filters {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl Filters {
    /// Compile the include and exclude globs.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Self> {
        // A bad glob is a parameter error naming its key, so each face spells it
        // (`--include`, `include:`).
        let build = |globs: &[String], param: &'static str| -> Result<Option<GlobSet>> {
            if globs.is_empty() {
                return Ok(None);
            }
            let bad = |message: String| chunklab_core::Error::Param { param, message };
            let mut b = GlobSetBuilder::new();
            for g in globs {
                b.add(Glob::new(g).map_err(|e| bad(format!("`{g}` is not a glob: {}", e.kind())))?);
            }
            Ok(Some(b.build().map_err(|e| bad(e.to_string()))?))
        };
        Ok(Self {
            include: build(include, "include")?,
            exclude: build(exclude, "exclude")?,
        })
    }

    fn accepts(&self, rel: &Path) -> bool {
        let name = rel.file_name().map(Path::new).unwrap_or(rel);
        let hit = |set: &GlobSet| set.is_match(rel) || set.is_match(name);
        self.include.as_ref().is_none_or(hit) && !self.exclude.as_ref().is_some_and(hit)
    }
}

/// Expand the command-line paths into inputs, in a deterministic order: each argument in the
/// order given, files under a directory sorted by path. Hidden files and `.gitignore`d files
/// under directories are skipped (like ripgrep); files named explicitly are always taken.
/// Symlinks under a directory are followed (a loop is reported, not followed). Whatever a walk
/// finds but cannot read — an unreadable subdirectory, a FIFO, socket or device, a symlink loop
/// — becomes an [`Input::Unreadable`] that fails when read, like an unreadable file: reported,
/// never silently dropped, and the rest of the walk goes on.
pub fn collect(paths: &[String], filters: &Filters) -> Result<Vec<Input>> {
    let mut out = Vec::new();
    Walk::new(paths, filters)?.run(|input| {
        out.push(input);
        true
    });
    Ok(out)
}

/// [`collect`] as a stream: [`Walk::new`] checks every path (a missing one fails before any
/// input is given), then [`Walk::run`] gives the inputs one by one, in the same order, as the
/// walk finds them.
pub struct Walk<'a> {
    paths: &'a [String],
    /// Each path's metadata (`None`: stdin).
    metas: Vec<Option<std::fs::Metadata>>,
    filters: &'a Filters,
}

impl<'a> Walk<'a> {
    /// Checks that every path but `-` can be read.
    pub fn new(paths: &'a [String], filters: &'a Filters) -> Result<Self> {
        let mut metas = Vec::with_capacity(paths.len());
        for p in paths {
            metas.push(if p == "-" {
                None
            } else {
                Some(std::fs::metadata(p).with_context(|| format!("{p}: cannot read"))?)
            });
        }
        Ok(Self {
            paths,
            metas,
            filters,
        })
    }

    /// Calls `each` for every input, in order; stops when it returns `false`.
    pub fn run(self, mut each: impl FnMut(Input) -> bool) {
        let mut emit = |input| if each(input) { Ok(()) } else { Err(Stopped) };
        let _ = walk_checked(self.paths, &self.metas, self.filters, &mut emit);
    }
}

/// `each` stopped the walk.
struct Stopped;

/// [`Walk::run`] of `paths` once each has its metadata (`None`: stdin).
fn walk_checked(
    paths: &[String],
    metas: &[Option<std::fs::Metadata>],
    filters: &Filters,
    out: &mut impl FnMut(Input) -> std::result::Result<(), Stopped>,
) -> std::result::Result<(), Stopped> {
    for (p, meta) in paths.iter().zip(metas) {
        let Some(meta) = meta else {
            out(Input::Stdin)?;
            continue;
        };
        let path = PathBuf::from(p);
        if !meta.is_dir() {
            out(Input::File {
                doc_id: p.clone(),
                path,
            })?;
            continue;
        }
        for entry in ignore::WalkBuilder::new(&path)
            .follow_links(true)
            // Siblings are their parent's path, a separator and their names: their paths'
            // bytes order them as their names do, without taking each path apart again at every
            // comparison (`sort_by_file_name` calls `Path::file_name`: 40 % of the walk's time
            // on the corpus).
            .sort_by_file_path(|a, b| a.as_os_str().cmp(b.as_os_str()))
            .build()
        {
            let entry = match entry {
                Ok(entry) => entry,
                Err(e) => {
                    let bad = error_path(&e).unwrap_or_else(|| path.clone());
                    out(Input::Unreadable {
                        doc_id: lossless_id(bad.strip_prefix(&path).unwrap_or(&bad)),
                        reason: format!("{}: cannot read while walking {p}: {e}", bad.display()),
                        path: bad,
                    })?;
                    continue;
                }
            };
            let Some(kind) = entry.file_type() else {
                continue; // stdin; never yielded by a directory walk
            };
            if kind.is_dir() {
                continue;
            }
            let rel = entry
                .path()
                .strip_prefix(&path)
                .unwrap_or(entry.path())
                .to_path_buf();
            if !filters.accepts(&rel) {
                continue;
            }
            let doc_id = lossless_id(&rel);
            if kind.is_file() {
                out(Input::File {
                    doc_id,
                    path: entry.into_path(),
                })?;
            } else {
                out(Input::Unreadable {
                    doc_id,
                    reason: format!(
                        "{}: not a regular file (a FIFO, socket or device); name the file itself, not its directory, to read it as a stream",
                        entry.path().display()
                    ),
                    path: entry.into_path(),
                })?;
            }
        }
    }
    Ok(())
}

/// The path an error of a directory walk is about, if it names one.
fn error_path(e: &ignore::Error) -> Option<PathBuf> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path.clone()),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child.clone()),
        _ => None,
    }
}

/// A document id for a relative path that keeps every byte: `/` separators, UTF-8 as is, and
/// each byte of a name that is not UTF-8 as `\xNN` (a literal `\` as `\\`), so two files
/// never share an id.
///
/// ```
/// # use std::path::Path;
/// use chunklab_pipeline::input::lossless_id;
/// assert_eq!(lossless_id(Path::new("besluiten/2021 raad.md")), "besluiten/2021 raad.md");
/// # #[cfg(unix)] {
/// use std::os::unix::ffi::OsStrExt;
/// let a = lossless_id(Path::new(std::ffi::OsStr::from_bytes(b"\xff.md")));
/// let b = lossless_id(Path::new(std::ffi::OsStr::from_bytes(b"\xfe.md")));
/// assert_eq!((a.as_str(), b.as_str()), ("\\xff.md", "\\xfe.md"));
/// # }
/// ```
pub fn lossless_id(rel: &Path) -> String {
    // Most paths are UTF-8 with plain components: then they are their own id (this runs once
    // per file, and taking a path apart component by component costs more than chunking a
    // small file's ids).
    if let Some(s) = rel.to_str().filter(|s| is_plain_relative(s)) {
        return s.to_owned();
    }
    lossless_id_by_components(rel)
}

/// Whether `path` is relative, has no `\\`, and its components, joined by `/`, are itself: no
/// empty component (`a//b`, a trailing `/`) and no `.` after the first.
fn is_plain_relative(path: &str) -> bool {
    !path.is_empty()
        && !path.starts_with('/')
        && !path.ends_with('/')
        && !path.ends_with("/.")
        && !path.contains('\\')
        && !path.contains("//")
        && !path.contains("/./")
}

/// [`lossless_id`] of any path: its components, each escaped.
fn lossless_id_by_components(rel: &Path) -> String {
    let mut out = String::new();
    for (i, part) in rel.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        let os = part.as_os_str();
        match os.to_str() {
            Some(s) if !s.contains('\\') => out.push_str(s),
            Some(s) => out.push_str(&s.replace('\\', "\\\\")),
            None => escape_bytes(os, &mut out),
        }
    }
    out
}

#[cfg(unix)]
fn escape_bytes(os: &std::ffi::OsStr, out: &mut String) {
    use std::os::unix::ffi::OsStrExt;
    for chunk in os.as_bytes().utf8_chunks() {
        out.push_str(&chunk.valid().replace('\\', "\\\\"));
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02x}"));
        }
    }
}

#[cfg(not(unix))]
fn escape_bytes(os: &std::ffi::OsStr, out: &mut String) {
    out.push_str(&os.to_string_lossy());
}

/// How to turn bytes into text.
#[derive(Debug, Clone)]
pub struct Decoding {
    /// An encoding label (`latin1`, `windows-1252`, `utf-16le`, ...) to decode from.
    pub encoding: Option<&'static encoding_rs::Encoding>,
    /// Replace invalid UTF-8 with U+FFFD instead of failing.
    pub lossy: bool,
}

impl Decoding {
    /// Check the encoding label.
    pub fn new(encoding: Option<&str>, lossy: bool) -> Result<Self> {
        let encoding = match encoding {
            None => None,
            Some(label) => match encoding_rs::Encoding::for_label(label.as_bytes()) {
                Some(e) if e == encoding_rs::UTF_8 => None,
                Some(e) => Some(e),
                None => bail!("unknown encoding `{label}` (try utf-8, latin1, windows-1252, utf-16le, utf-16be)"),
            },
        };
        Ok(Self { encoding, lossy })
    }
}

/// The text of one document: borrowed from a memory map when the file is valid UTF-8, owned
/// when it had to be decoded.
pub enum Text {
    /// A valid UTF-8 file map, from the byte after its BOM.
    Mapped(memmap2::Mmap, usize),
    /// Decoded text.
    Owned(String),
}

impl Text {
    /// The text.
    pub fn as_str(&self) -> &str {
        match self {
            // Validated as UTF-8 (from the BOM offset on) in `load`.
            Text::Mapped(m, bom) => unsafe { std::str::from_utf8_unchecked(&m[*bom..]) },
            Text::Owned(s) => s,
        }
    }
}

/// Why a document was not chunked.
#[derive(Debug)]
pub enum Skip {
    /// Looks binary (NUL bytes): skipped with a warning.
    Binary,
    /// A real error: reported, and the run exits non-zero.
    Error(anyhow::Error),
}

const BINARY_SNIFF: usize = 8192;

/// The undecoded bytes of one input: memory-mapped for files, read for small files and stdin.
pub enum Raw {
    /// A mapped file.
    Mapped(memmap2::Mmap),
    /// A small file, read (decoded as a mapped file is).
    Read(Vec<u8>),
    /// Read bytes (stdin, empty files).
    Owned(Vec<u8>),
}

impl Raw {
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Raw::Mapped(m) => m,
            Raw::Read(v) | Raw::Owned(v) => v,
        }
    }
}

/// Files smaller than this are read instead of mapped: for a small file a map costs more (map,
/// page faults, unmap with other threads' TLBs flushed) than a copy.
pub const READ_BELOW: u64 = 256 << 10;

/// Read one input's bytes (a file is mapped, not copied, unless it is small).
pub fn read(input: &Input) -> Result<Raw, Skip> {
    let name = input.source();
    match input {
        Input::Stdin => read_stream("stdin", std::io::stdin().lock()).map(Raw::Owned),
        Input::Unreadable { reason, .. } => Err(Skip::Error(anyhow!("{reason}"))),
        Input::File { path, .. } => {
            let file =
                std::fs::File::open(path).map_err(|e| Skip::Error(anyhow!("{name}: {e}")))?;
            let meta = file
                .metadata()
                .map_err(|e| Skip::Error(anyhow!("{name}: {e}")))?;
            if meta.is_dir() {
                return Err(Skip::Error(anyhow!("{name}: is a directory")));
            }
            let len = meta.len();
            // Pipes (`<(…)`), devices and files such as /proc/cpuinfo report no length: read
            // them as streams instead of taking them for empty.
            if !meta.is_file() || len == 0 {
                return read_stream(&name, file).map(Raw::Owned);
            }
            if len > chunklab_core::sizer::MAX_DOCUMENT_BYTES as u64 {
                return Err(Skip::Error(anyhow!(
                    "{name}: {len} bytes is larger than the 4 GiB a single document may have; split the file"
                )));
            }
            if len < READ_BELOW {
                let bytes = read_small(file, len as usize)
                    .map_err(|e| Skip::Error(anyhow!("{name}: {e}")))?;
                return Ok(Raw::Read(bytes));
            }
            // SAFETY: the map is read-only; if another process truncates the file while we read
            // it the OS may signal us, which is the same contract as every mmap-based reader.
            let map = unsafe { memmap2::Mmap::map(&file) }
                .map_err(|e| Skip::Error(anyhow!("{name}: cannot map: {e}")))?;
            #[cfg(unix)]
            let _ = map.advise(memmap2::Advice::Sequential);
            Ok(Raw::Mapped(map))
        }
    }
}

/// Read a file of about `len` bytes (its length a moment ago) whole: open, fstat (the
/// caller's), one read of `len` bytes, one read that finds the end, close. `File::read_to_end`
/// would ask the file for its length and position again (`statx`, `lseek`), and a read without
/// that hint starts at 8 KiB a call; for the corpus's 8,073 small files that was 8,000 syscalls
/// more. Whatever the file holds when read is read, grown or shrunk.
fn read_small(mut file: std::fs::File, len: usize) -> std::io::Result<Vec<u8>> {
    let mut bytes = vec![0u8; len];
    let mut filled = 0;
    while filled < len {
        match file.read(&mut bytes[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    bytes.truncate(filled);
    if filled == len {
        // Grown since? `Take` reads on without asking for the length again.
        file.take(u64::MAX).read_to_end(&mut bytes)?;
    }
    Ok(bytes)
}

/// The most a stream (stdin, a pipe, a device) may give; a file of any size up to 4 GiB is
/// mapped instead of read.
pub const MAX_STREAM_BYTES: usize = 1 << 30;

/// Read a stream, sniffing its start first (so `/dev/zero` is refused as binary after 8 KiB
/// instead of filling memory) and stopping with an error past
/// [`MAX_STREAM_BYTES`].
fn read_stream(name: &str, mut r: impl Read) -> Result<Vec<u8>, Skip> {
    let err = |e: std::io::Error| Skip::Error(anyhow!("{name}: {e}"));
    let mut buf = Vec::new();
    (&mut r)
        .take(BINARY_SNIFF as u64)
        .read_to_end(&mut buf)
        .map_err(err)?;
    // Only NULs (`/dev/zero`): binary whatever the decoding; anything else is judged by
    // `decode`, which knows whether an encoding such as UTF-16 was asked for.
    if !buf.is_empty() && buf.iter().all(|&b| b == 0) {
        return Err(Skip::Binary);
    }
    r.take((MAX_STREAM_BYTES + 1 - buf.len()) as u64)
        .read_to_end(&mut buf)
        .map_err(err)?;
    if buf.len() > MAX_STREAM_BYTES {
        return Err(Skip::Error(anyhow!(
            "{name}: a stream longer than {} MiB; save it to a file (files are mapped, not read into memory)",
            MAX_STREAM_BYTES >> 20
        )));
    }
    Ok(buf)
}

/// Decode an input's bytes into text: UTF-8 checked in place (a mapped file is not copied), or
/// decoded from `dec.encoding`; binary files are skipped.
pub fn decode(name: &str, raw: Raw, dec: &Decoding) -> Result<Text, Skip> {
    match raw {
        Raw::Owned(buf) => decode_owned(name, buf, dec).map(Text::Owned),
        Raw::Mapped(map) => {
            if dec.encoding.is_none() && !dec.lossy {
                check_binary(name, &map[..map.len().min(BINARY_SNIFF)])?;
                let bom = if map.starts_with(b"\xEF\xBB\xBF") {
                    3
                } else {
                    0
                };
                return match check_utf8(&map[bom..]) {
                    Ok(()) => Ok(Text::Mapped(map, bom)),
                    Err(valid_up_to) => Err(utf8_error(name, bom + valid_up_to)),
                };
            }
            decode_owned(name, map.to_vec(), dec).map(Text::Owned)
        }
        Raw::Read(bytes) => {
            if dec.encoding.is_none() && !dec.lossy {
                // As a mapped file: the same checks and messages.
                check_binary(name, &bytes[..bytes.len().min(BINARY_SNIFF)])?;
                let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
                    3
                } else {
                    0
                };
                return match string_from_utf8(bytes) {
                    Ok(mut s) => {
                        s.drain(..bom);
                        Ok(Text::Owned(s))
                    }
                    Err(e) => Err(utf8_error(name, e.utf8_error().valid_up_to())),
                };
            }
            decode_owned(name, bytes, dec).map(Text::Owned)
        }
    }
}

/// Whether `bytes` are UTF-8, as [`std::str::from_utf8`] judges (the error is its
/// `valid_up_to`). A large input is cut at char starts into one part per core, each checked on
/// its own: the parts are valid exactly when the whole is, and the first invalid part holds the
/// first error.
pub fn check_utf8(bytes: &[u8]) -> Result<(), usize> {
    const PART: usize = 1 << 20;
    let threads = rayon::current_num_threads();
    if threads < 2 || bytes.len() < 2 * PART {
        return utf8_valid(bytes);
    }
    let parts = threads.min(bytes.len() / PART);
    let mut cuts = vec![0];
    for k in 1..parts {
        // Cut before the next byte that is not a continuation byte (0b10xx_xxxx): a sequence
        // is then never split, and each part's first error is the whole's. Four continuation
        // bytes in a row are invalid anyway: no cut there.
        let at = bytes.len() * k / parts;
        if let Some(cut) = (at..at + 4).find(|&i| bytes[i] & 0xC0 != 0x80) {
            cuts.push(cut);
        }
    }
    cuts.push(bytes.len());
    let errors: Vec<Option<usize>> = cuts
        .par_windows(2)
        .map(|w| utf8_valid(&bytes[w[0]..w[1]]).err().map(|at| w[0] + at))
        .collect();
    match errors.into_iter().flatten().next() {
        None => Ok(()),
        Some(at) => Err(at),
    }
}

/// Whether `bytes` are UTF-8 (`Err`: std's `valid_up_to`), checked with SIMD (simdutf8), the
/// error position from std.
fn utf8_valid(bytes: &[u8]) -> Result<(), usize> {
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return Ok(());
    }
    std::str::from_utf8(bytes)
        .map(|_| ())
        .map_err(|e| e.valid_up_to())
}

/// [`String::from_utf8`], the check done with SIMD (simdutf8): every byte of every text file
/// goes through it.
fn string_from_utf8(bytes: Vec<u8>) -> Result<String, std::string::FromUtf8Error> {
    if simdutf8::basic::from_utf8(&bytes).is_ok() {
        // SAFETY: simdutf8 has just checked that every byte is UTF-8.
        return Ok(unsafe { String::from_utf8_unchecked(bytes) });
    }
    String::from_utf8(bytes)
}

/// Skips `head`'s input as binary when it has a NUL byte; UTF-16 (a byte order mark) is an error
/// naming the input `name` and the `--encoding` that reads it.
fn check_binary(name: &str, head: &[u8]) -> Result<(), Skip> {
    // UTF-16 text has NULs but starts with a BOM; everything else with NULs is binary.
    let utf16_bom = head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF");
    if !utf16_bom && memchr::memchr(0, head).is_some() {
        return Err(Skip::Binary);
    }
    if utf16_bom {
        return Err(undecodable(name, Problem::Utf16));
    }
    Ok(())
}

fn utf8_error(name: &str, offset: usize) -> Skip {
    undecodable(name, Problem::NotUtf8 { at: offset })
}

fn undecodable(name: &str, problem: Problem) -> Skip {
    Skip::Error(anyhow::Error::new(Undecodable {
        name: name.to_string(),
        problem,
    }))
}

/// An input whose bytes are not text in the encoding it is read with. Displayed with the
/// command line's options; [`Undecodable::spelled`] names each face's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undecodable {
    /// The input, as its errors name it.
    pub name: String,
    /// What is wrong with its bytes.
    pub problem: Problem,
}

/// What is wrong with an [`Undecodable`] input's bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    /// UTF-16 (a byte order mark), read as UTF-8.
    Utf16,
    /// Not UTF-8 from byte `at` on.
    NotUtf8 {
        /// The offset of the first invalid byte.
        at: usize,
    },
    /// Bytes that are not valid in the encoding named.
    NotIn {
        /// The encoding's name.
        encoding: &'static str,
    },
}

impl Undecodable {
    /// The message with the options named as `spelling` does.
    ///
    /// ```
    /// use chunklab_pipeline::input::{Problem, Undecodable};
    /// use chunklab_pipeline::Flags;
    /// let e = Undecodable { name: "brief.txt".into(), problem: Problem::NotUtf8 { at: 12 } };
    /// assert_eq!(
    ///     e.spelled(&Flags),
    ///     "brief.txt: not valid UTF-8 at byte 12; pass --encoding LABEL (e.g. latin1, windows-1252) to decode it, or --lossy to replace invalid bytes with U+FFFD"
    /// );
    /// assert_eq!(e.to_string(), e.spelled(&Flags));
    /// ```
    pub fn spelled(&self, spelling: &dyn Spelling) -> String {
        let name = &self.name;
        match &self.problem {
            Problem::Utf16 => format!(
                "{name}: looks like UTF-16 (byte order mark); pass {} or {}",
                spelling.setting("encoding", &"utf-16le".into()),
                spelling.setting("encoding", &"utf-16be".into()),
            ),
            Problem::NotUtf8 { at } => format!(
                "{name}: not valid UTF-8 at byte {at}; pass {} (e.g. latin1, windows-1252) to decode it, or {} to replace invalid bytes with U+FFFD",
                spelling.setting("encoding", &"LABEL".into()),
                spelling.switch("lossy"),
            ),
            Problem::NotIn { encoding } => format!(
                "{name}: bytes that are not valid {encoding} (add {} to replace them with U+FFFD)",
                spelling.switch("lossy"),
            ),
        }
    }
}

impl std::fmt::Display for Undecodable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.spelled(&Flags))
    }
}

impl std::error::Error for Undecodable {}

/// An input its parser refused, as an error naming it: `NAME: PROBLEM`. Displayed with the
/// command line's options; [`ParseFailure::spelled`] names each face's (the OCR setting).
#[derive(Debug)]
pub struct ParseFailure {
    /// The input's name (its path, `-` for stdin).
    pub name: String,
    /// What the parser said.
    pub error: chunklab_parse::ParseError,
}

/// [`ParseFailure`] as the error of a skipped input.
pub(crate) fn parse_failure(name: &str, error: chunklab_parse::ParseError) -> Skip {
    Skip::Error(anyhow::Error::new(ParseFailure {
        name: name.to_string(),
        error,
    }))
}

impl ParseFailure {
    /// The message with the options named as `spelling` does.
    pub fn spelled(&self, spelling: &dyn Spelling) -> String {
        let never = spelling.setting("ocr", &"never".into());
        format!("{}: {}", self.name, self.error.spelled(&never))
    }
}

impl std::fmt::Display for ParseFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.spelled(&Flags))
    }
}

impl std::error::Error for ParseFailure {}

/// `e` as `{e:#}` writes it (its causes joined by `: `), with the options of an undecodable
/// input ([`Undecodable`]) or a refused one ([`ParseFailure`]) and the way to install a missing
/// model named as `spelling` does.
pub fn spelled_chain(e: &anyhow::Error, spelling: &dyn Spelling) -> String {
    let parts: Vec<String> = e
        .chain()
        .map(|cause| {
            if let Some(u) = cause.downcast_ref::<Undecodable>() {
                return u.spelled(spelling);
            }
            if let Some(u) = cause.downcast_ref::<ParseFailure>() {
                return u.spelled(spelling);
            }
            match cause.downcast_ref::<chunklab_embed::Error>() {
                Some(chunklab_embed::Error::ModelMissing { name, detail }) => {
                    chunklab_embed::Error::missing_model(name, detail, &spelling.fetch_model(name))
                }
                _ => cause.to_string(),
            }
        })
        .collect();
    parts.join(": ")
}

fn decode_owned(name: &str, bytes: Vec<u8>, dec: &Decoding) -> Result<String, Skip> {
    if let Some(enc) = dec.encoding {
        let (text, _, had_errors) = enc.decode(&bytes);
        if had_errors && !dec.lossy {
            return Err(undecodable(
                name,
                Problem::NotIn {
                    encoding: enc.name(),
                },
            ));
        }
        return Ok(text.into_owned());
    }
    if !dec.lossy {
        check_binary(name, &bytes[..bytes.len().min(BINARY_SNIFF)])?;
    }
    let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    match string_from_utf8(bytes) {
        Ok(mut s) => {
            s.drain(..bom);
            Ok(s)
        }
        Err(e) if dec.lossy => Ok(String::from_utf8_lossy(&e.into_bytes()[bom..]).into_owned()),
        Err(e) => Err(utf8_error(name, e.utf8_error().valid_up_to())),
    }
}

#[cfg(test)]
mod tests {
    use super::{
        check_utf8, collect, lossless_id, lossless_id_by_components, Filters, Input, Walk,
    };
    use proptest::prelude::*;
    use std::path::Path;

    proptest! {
        /// The SIMD checks judge as std does, the position of the first error included.
        #[test]
        fn utf8_checks_are_std_s(
            text in "[a-zé€😀\\n ]{0,200}",
            bad in prop::collection::vec((any::<usize>(), any::<u8>()), 0..3),
        ) {
            let mut bytes = text.into_bytes();
            for (at, byte) in bad {
                if !bytes.is_empty() {
                    let at = at % bytes.len();
                    bytes[at] = byte;
                }
            }
            let std = std::str::from_utf8(&bytes).map(|_| ()).map_err(|e| e.valid_up_to());
            prop_assert_eq!(super::utf8_valid(&bytes), std);
            let ours = super::string_from_utf8(bytes.clone()).map_err(|e| e.utf8_error());
            prop_assert_eq!(ours, String::from_utf8(bytes).map_err(|e| e.utf8_error()));
        }

        /// A plain path is its own id exactly when taking it apart would give it back.
        #[test]
        fn plain_paths_are_their_own_ids(
            parts in prop::collection::vec(
                prop::sample::select(vec!["a", "b.md", ".", "..", "", "x\\y", "é", " "]),
                1..6,
            ),
            lead in prop::sample::select(vec!["", "/", "./"]),
            trail in prop::sample::select(vec!["", "/", "/."]),
        ) {
            let path = format!("{lead}{}{trail}", parts.join("/"));
            let path = Path::new(&path);
            prop_assert_eq!(lossless_id(path), lossless_id_by_components(path), "{:?}", path);
        }
    }

    /// A walk gives what `collect` gives, in order, and stops where `each` says so.
    #[test]
    fn walk_streams_collect_and_stops_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["b/2.txt", "b/1.txt", "a-b.txt", "a/z.txt", "c.md"] {
            let path = dir.path().join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, name).unwrap();
        }
        let paths = [dir.path().to_str().unwrap().to_string(), "-".to_string()];
        let filters = Filters::new(&[], &[]).unwrap();
        let ids = |inputs: &[Input]| -> Vec<String> {
            let id = |input: &Input| match input {
                Input::Stdin => "stdin".to_string(),
                Input::File { doc_id, .. } | Input::Unreadable { doc_id, .. } => doc_id.clone(),
            };
            inputs.iter().map(id).collect()
        };
        let all = collect(&paths, &filters).unwrap();
        // Path order: `a/z.txt` before `a-b.txt` (a component sorts before a longer name).
        let want = ["a/z.txt", "a-b.txt", "b/1.txt", "b/2.txt", "c.md", "stdin"];
        assert_eq!(ids(&all), want);
        for stop_after in 1..=want.len() {
            let mut got = Vec::new();
            Walk::new(&paths, &filters).unwrap().run(|input| {
                got.push(input);
                got.len() < stop_after
            });
            assert_eq!(ids(&got), want[..stop_after]);
        }
        let missing = [paths[0].clone(), "/nonexistent/x".to_string()];
        let err = Walk::new(&missing, &filters).err().unwrap();
        assert!(
            err.to_string().contains("/nonexistent/x: cannot read"),
            "{err}"
        );
    }

    /// `check_utf8` is `from_utf8`: valid text, and one bad byte placed at, before and after
    /// every place a part may be cut, with multi-byte chars around it.
    #[test]
    fn parallel_utf8_check_is_from_utf8() {
        let unit = "abc é€😀\n";
        let text = unit.repeat((5 << 20) / unit.len());
        let bytes = text.as_bytes();
        assert_eq!(check_utf8(bytes), Ok(()));
        let threads = rayon::current_num_threads().max(2);
        let mut places = vec![0, 1, bytes.len() - 1];
        for parts in 2..=threads.max(4) {
            for k in 1..parts {
                let at = bytes.len() * k / parts;
                places.extend(at.saturating_sub(5)..at + 5);
            }
        }
        for &p in &places {
            for bad in [0x80u8, 0xC3, 0xE2, 0xF0, 0xFF] {
                let mut b = bytes.to_vec();
                b[p] = bad;
                let want = std::str::from_utf8(&b)
                    .map(|_| ())
                    .map_err(|e| e.valid_up_to());
                assert_eq!(check_utf8(&b), want, "byte {bad:#x} at {p}");
            }
        }
        // A run of continuation bytes across a cut.
        let mut b = bytes.to_vec();
        let at = b.len() / 2;
        b[at - 3..at + 5].fill(0x80);
        let want = std::str::from_utf8(&b)
            .map(|_| ())
            .map_err(|e| e.valid_up_to());
        assert_eq!(check_utf8(&b), want);
    }

    /// `read_small` reads what the file holds whatever length it was told: exactly, a file that
    /// grew since (told less) and one that shrank (told more), around the sizes of its reads.
    #[test]
    fn small_reads_take_what_the_file_holds() {
        let dir = tempfile::tempdir().expect("temp dir");
        for size in [1usize, 31, 32, 33, 8191, 8192, 8193, 100_000] {
            let want: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
            let path = dir.path().join(format!("f{size}"));
            std::fs::write(&path, &want).expect("write");
            for told in [size, size - 1, size / 2, size + 1, size * 2] {
                let file = std::fs::File::open(&path).expect("open");
                let got = super::read_small(file, told).expect("read");
                assert_eq!(got, want, "size {size}, told {told}");
            }
        }
    }

    /// A UTF-16 file is refused naming the file, however it was read (mapped, read, or owned).
    #[test]
    fn utf16_is_an_error_that_names_the_file() {
        use super::{decode, Decoding, Raw, Skip};
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("brief.txt");
        let bytes: Vec<u8> = b"\xFF\xFEh\0i\0".to_vec();
        std::fs::write(&path, &bytes).expect("write");
        let file = std::fs::File::open(&path).expect("open");
        // SAFETY: a private temporary file nothing else writes.
        let map = unsafe { memmap2::Mmap::map(&file) }.expect("map");
        let plain = Decoding {
            encoding: None,
            lossy: false,
        };
        for raw in [
            Raw::Mapped(map),
            Raw::Read(bytes.clone()),
            Raw::Owned(bytes.clone()),
        ] {
            match decode("brief.txt", raw, &plain) {
                Err(Skip::Error(e)) => {
                    let e = e.to_string();
                    assert!(e.starts_with("brief.txt: looks like UTF-16"), "{e}");
                    assert!(e.contains("--encoding utf-16le"), "{e}");
                }
                Err(Skip::Binary) => panic!("skipped as binary"),
                Ok(_) => panic!("decoded"),
            }
        }
    }
}
