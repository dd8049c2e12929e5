//! Finding and loading input documents: files, directories (recursive, include/exclude globs) and
//! stdin; UTF-8 validation with the byte offset of the first bad byte; binary detection; optional
//! decoding from other encodings. Files are memory-mapped, so a huge file costs page cache, not heap.

use anyhow::{anyhow, bail, Context, Result};
use globset::{Glob, GlobSet, GlobSetBuilder};
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
            Input::File { doc_id, .. } => doc_id,
        }
    }
    /// The file's path (`-` for stdin), for choosing a parser.
    pub fn path(&self) -> &Path {
        match self {
            Input::Stdin => Path::new("-"),
            Input::File { path, .. } => path,
        }
    }
    /// The display name: the path, or `-`.
    pub fn source(&self) -> String {
        match self {
            Input::Stdin => "-".to_string(),
            Input::File { path, .. } => path.display().to_string(),
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
        let build = |globs: &[String]| -> Result<Option<GlobSet>> {
            if globs.is_empty() {
                return Ok(None);
            }
            let mut b = GlobSetBuilder::new();
            for g in globs {
                b.add(Glob::new(g).with_context(|| format!("invalid glob `{g}`"))?);
            }
            Ok(Some(b.build()?))
        };
        Ok(Self {
            include: build(include)?,
            exclude: build(exclude)?,
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
pub fn collect(paths: &[String], filters: &Filters) -> Result<Vec<Input>> {
    let mut out = Vec::new();
    for p in paths {
        if p == "-" {
            out.push(Input::Stdin);
            continue;
        }
        let path = PathBuf::from(p);
        let meta = std::fs::metadata(&path).with_context(|| format!("{p}: cannot read"))?;
        if meta.is_dir() {
            let mut found = Vec::new();
            for entry in ignore::WalkBuilder::new(&path)
                .sort_by_file_path(|a, b| a.cmp(b))
                .build()
            {
                let entry = entry.with_context(|| format!("{p}: cannot walk"))?;
                if !entry.file_type().is_some_and(|t| t.is_file()) {
                    continue;
                }
                let rel = entry
                    .path()
                    .strip_prefix(&path)
                    .unwrap_or(entry.path())
                    .to_path_buf();
                if filters.accepts(&rel) {
                    found.push(Input::File {
                        doc_id: rel.to_string_lossy().replace('\\', "/"),
                        path: entry.into_path(),
                    });
                }
            }
            out.extend(found);
        } else {
            out.push(Input::File {
                doc_id: p.clone(),
                path,
            });
        }
    }
    Ok(out)
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

/// The undecoded bytes of one input: memory-mapped for files, read for stdin.
pub enum Raw {
    /// A mapped file.
    Mapped(memmap2::Mmap),
    /// Read bytes (stdin, empty files).
    Owned(Vec<u8>),
}

impl Raw {
    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        match self {
            Raw::Mapped(m) => m,
            Raw::Owned(v) => v,
        }
    }
}

/// Read one input's bytes (a file is mapped, not copied).
pub fn read(input: &Input) -> Result<Raw, Skip> {
    let name = input.source();
    match input {
        Input::Stdin => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| Skip::Error(anyhow!("stdin: {e}")))?;
            Ok(Raw::Owned(buf))
        }
        Input::File { path, .. } => {
            let file =
                std::fs::File::open(path).map_err(|e| Skip::Error(anyhow!("{name}: {e}")))?;
            let len = file.metadata().map(|m| m.len()).unwrap_or(0);
            if len == 0 {
                return Ok(Raw::Owned(Vec::new()));
            }
            if len > chunklab_core::sizer::MAX_DOCUMENT_BYTES as u64 {
                return Err(Skip::Error(anyhow!(
                    "{name}: {len} bytes is larger than the 4 GiB a single document may have; split the file"
                )));
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

/// Decode an input's bytes into text: UTF-8 checked in place (a mapped file is not copied), or
/// decoded from `dec.encoding`; binary files are skipped.
pub fn decode(name: &str, raw: Raw, dec: &Decoding) -> Result<Text, Skip> {
    match raw {
        Raw::Owned(buf) => decode_owned(name, buf, dec).map(Text::Owned),
        Raw::Mapped(map) => {
            if dec.encoding.is_none() && !dec.lossy {
                check_binary(&map[..map.len().min(BINARY_SNIFF)])?;
                let bom = if map.starts_with(b"\xEF\xBB\xBF") {
                    3
                } else {
                    0
                };
                return match std::str::from_utf8(&map[bom..]) {
                    Ok(_) => Ok(Text::Mapped(map, bom)),
                    Err(e) => Err(Skip::Error(utf8_error(name, bom + e.valid_up_to()))),
                };
            }
            decode_owned(name, map.to_vec(), dec).map(Text::Owned)
        }
    }
}

fn check_binary(head: &[u8]) -> Result<(), Skip> {
    // UTF-16 text has NULs but starts with a BOM; everything else with NULs is binary.
    let utf16_bom = head.starts_with(b"\xFF\xFE") || head.starts_with(b"\xFE\xFF");
    if !utf16_bom && memchr::memchr(0, head).is_some() {
        return Err(Skip::Binary);
    }
    if utf16_bom {
        return Err(Skip::Error(anyhow!(
            "looks like UTF-16 (byte order mark); pass --encoding utf-16le or utf-16be"
        )));
    }
    Ok(())
}

fn utf8_error(name: &str, offset: usize) -> anyhow::Error {
    anyhow!(
        "{name}: not valid UTF-8 at byte {offset}; pass --encoding LABEL (e.g. latin1, windows-1252) to decode it, or --lossy to replace invalid bytes with U+FFFD"
    )
}

fn decode_owned(name: &str, bytes: Vec<u8>, dec: &Decoding) -> Result<String, Skip> {
    if let Some(enc) = dec.encoding {
        let (text, _, had_errors) = enc.decode(&bytes);
        if had_errors && !dec.lossy {
            return Err(Skip::Error(anyhow!(
                "{name}: bytes that are not valid {} (add --lossy to replace them with U+FFFD)",
                enc.name()
            )));
        }
        return Ok(text.into_owned());
    }
    if !dec.lossy {
        check_binary(&bytes[..bytes.len().min(BINARY_SNIFF)]).map_err(|e| match e {
            Skip::Error(err) => Skip::Error(anyhow!("{name}: {err}")),
            other => other,
        })?;
    }
    let bom = if bytes.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            s.drain(..bom);
            Ok(s)
        }
        Err(e) if dec.lossy => Ok(String::from_utf8_lossy(&e.into_bytes()[bom..]).into_owned()),
        Err(e) => Err(Skip::Error(utf8_error(name, e.utf8_error().valid_up_to()))),
    }
}
