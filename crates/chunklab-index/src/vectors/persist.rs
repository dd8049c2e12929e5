//! On-disk layout of a saved [`VectorIndex`](super::VectorIndex) and its crash-safe commit.
//!
//! A saved index is a directory holding
//!
//! * `vectors.json` — the manifest: format version, dimension, HNSW parameters, item count, and for
//!   each data file its name, byte length and BLAKE3 hash;
//! * `vectors-<generation>.usearch` — the HNSW graph with its copy of the vectors (USearch's own
//!   format; absent when the index is empty). With `graph_vectors: "f32"` (every version-1 index)
//!   that copy is exact and is the only one on disk;
//! * `vectors-<generation>.f32` — with `graph_vectors: "i8"` (version 2), the exact vectors,
//!   little-endian `f32`, one row of `dim` per key in row order;
//! * `vectors-<generation>.keys` — the keys, little-endian `u64`, in row order.
//!
//! A save writes a NEW generation of data files, fsyncs them, then replaces the manifest atomically
//! (temporary file, fsync, rename, fsync of the directory) and only then deletes the previous
//! generation. A crash at any point leaves a manifest that names complete, checksummed files: the
//! old ones before the rename, the new ones after it. Loading checks every file's length and hash
//! before USearch reads a byte, so a truncated or corrupt file is reported by name instead of being
//! handed to C++ code.

use std::fs::{self, File, OpenOptions};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::{Result, VectorError};
use super::params::GraphVectors;

/// Name of the manifest file inside an index directory.
pub(crate) const MANIFEST: &str = "vectors.json";
const MANIFEST_TMP: &str = "vectors.json.tmp";
const FORMAT: &str = "chunklab-vectors";
const VERSION: u32 = 2;
/// The oldest manifest version this build reads (version 1 has only f32 graphs).
const OLDEST_VERSION: u32 = 1;
const FILE_PREFIX: &str = "vectors-";

/// The manifest: everything needed to check and reopen the data files.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Manifest {
    pub format: String,
    pub version: u32,
    pub generation: u64,
    pub dim: usize,
    pub m: usize,
    pub ef_construction: usize,
    pub ef_search: usize,
    pub count: usize,
    /// The graph's copy of the vectors: `"f32"` or `"i8"` ([`GraphVectors::name`]).
    #[serde(default = "f32_name")]
    pub graph_vectors: String,
    /// The USearch graph file; `None` for an empty index.
    pub graph: Option<FileEntry>,
    /// The exact vectors when the graph holds only i8 copies; `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vectors: Option<FileEntry>,
    pub keys: FileEntry,
}

fn f32_name() -> String {
    GraphVectors::F32.name().to_string()
}

impl Manifest {
    /// The graph's vector kind (checked by [`read_manifest`]).
    pub(crate) fn graph_vectors(&self) -> GraphVectors {
        self.graph_vectors.parse().unwrap_or(GraphVectors::F32)
    }
}

/// One data file as the manifest records it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct FileEntry {
    pub name: String,
    pub bytes: u64,
    pub blake3: String,
}

/// The data file paths of one generation being written.
pub(crate) struct Generation {
    pub number: u64,
    pub graph: PathBuf,
    pub vectors: PathBuf,
    pub keys: PathBuf,
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> VectorError + '_ {
    move |source| VectorError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn corrupt(path: &Path, reason: impl Into<String>) -> VectorError {
    VectorError::Corrupt {
        path: path.to_path_buf(),
        reason: reason.into(),
    }
}

/// Creates `dir` if needed and picks a generation number above every one present in it, so a new
/// save never overwrites a file that the current manifest may name.
pub(crate) fn begin(dir: &Path) -> Result<Generation> {
    fs::create_dir_all(dir).map_err(io_error(dir))?;
    let mut highest = 0u64;
    for entry in fs::read_dir(dir).map_err(io_error(dir))? {
        let entry = entry.map_err(io_error(dir))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(number) = generation_of(name) {
            highest = highest.max(number);
        }
    }
    if let Ok(manifest) = read_manifest(dir) {
        highest = highest.max(manifest.generation);
    }
    let number = highest + 1;
    Ok(Generation {
        number,
        graph: dir.join(format!("{FILE_PREFIX}{number}.usearch")),
        vectors: dir.join(format!("{FILE_PREFIX}{number}.f32")),
        keys: dir.join(format!("{FILE_PREFIX}{number}.keys")),
    })
}

/// The generation number in a data file name `vectors-<n>.usearch` / `.f32` / `.keys`.
fn generation_of(name: &str) -> Option<u64> {
    let rest = name.strip_prefix(FILE_PREFIX)?;
    let number = rest
        .strip_suffix(".usearch")
        .or_else(|| rest.strip_suffix(".f32"))
        .or_else(|| rest.strip_suffix(".keys"))?;
    number.parse().ok()
}

/// Writes `keys` as little-endian u64 to `path`.
pub(crate) fn write_keys(path: &Path, keys: &[u64]) -> Result<()> {
    let file = File::create(path).map_err(io_error(path))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    for key in keys {
        out.write_all(&key.to_le_bytes()).map_err(io_error(path))?;
    }
    out.flush().map_err(io_error(path))?;
    Ok(())
}

/// Writes `blocks` (the flat store's vectors in row order) as little-endian f32 to `path`.
pub(crate) fn write_rows(path: &Path, blocks: &[&[f32]]) -> Result<()> {
    let file = File::create(path).map_err(io_error(path))?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    for value in blocks.iter().flat_map(|block| block.iter()) {
        out.write_all(&value.to_le_bytes())
            .map_err(io_error(path))?;
    }
    out.flush().map_err(io_error(path))?;
    Ok(())
}

/// Whether the exact vectors of a loaded index are memory-mapped rather than read onto the heap:
/// the file's bytes are the rows as they lie in memory only on little-endian targets, and only on
/// Unix may a mapped file be deleted (by the next save's clean-up) while the map lives.
pub(crate) const MAP_VECTORS: bool = cfg!(all(unix, target_endian = "little"));

/// The exact vectors of a loaded index.
pub(crate) enum ExactRows {
    /// The vectors file mapped copy-on-write (see [`MAP_VECTORS`]).
    Mapped(memmap2::MmapMut),
    /// The rows read onto the heap.
    Read(Vec<f32>),
}

/// Opens the vectors file `entry` names, holding `count` rows of `dim` components: checks its
/// length, BLAKE3 hash and that every value is finite in one streaming pass of `read` calls (the
/// page cache holds the file afterwards, this process none of it), then maps it when `map` is
/// set, otherwise returns the rows read during the pass. Every failure names the file.
pub(crate) fn open_rows(
    dir: &Path,
    entry: &FileEntry,
    count: usize,
    dim: usize,
    map: bool,
) -> Result<ExactRows> {
    use std::io::Read;
    let path = dir.join(&entry.name);
    let values = count
        .checked_mul(dim)
        .filter(|values| values.checked_mul(4).is_some())
        .ok_or_else(|| corrupt(&path, "row count times dimension overflows"))?;
    let mut file = File::open(&path).map_err(io_error(&path))?;
    // The length of the opened file (the one hashed and mapped), not of whatever the path names.
    let length = file.metadata().map_err(io_error(&path))?.len();
    check_length(&path, length, entry)?;
    if length != values as u64 * 4 {
        return Err(corrupt(
            &path,
            format!("vectors file is {length} bytes, expected {count} rows of {dim} f32"),
        ));
    }
    let mut hasher = blake3::Hasher::new();
    let mut rows = Vec::with_capacity(if map { 0 } else { values });
    let mut not_finite = None;
    let mut block = vec![0u8; 1 << 16];
    let mut done = 0usize;
    while done < values {
        let want = ((values - done) * 4).min(block.len());
        file.read_exact(&mut block[..want])
            .map_err(io_error(&path))?;
        hasher.update(&block[..want]);
        for (i, chunk) in block[..want].chunks_exact(4).enumerate() {
            let value = f32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
            if !value.is_finite() && not_finite.is_none() {
                not_finite = Some((done + i) / dim);
            }
            if !map {
                rows.push(value);
            }
        }
        done += want / 4;
    }
    if hasher.finalize().to_hex().as_str() != entry.blake3 {
        return Err(corrupt(
            &path,
            "BLAKE3 checksum does not match the manifest (file is corrupt)",
        ));
    }
    if let Some(row) = not_finite {
        return Err(corrupt(
            &path,
            format!("row {row} holds a value that is not finite"),
        ));
    }
    if !map || values == 0 {
        return Ok(ExactRows::Read(rows));
    }
    // SAFETY: the map is private (copy-on-write), so this process's writes never reach the file.
    // The file is a data file of a committed generation, which chunklab never writes again: a
    // save writes a new generation's files and then deletes the old ones, and on Unix a deleted
    // file's pages stay valid while mapped. What memory mapping cannot guard against is another
    // program truncating or rewriting the file in place while the index is open: reads of the
    // lost pages then fault (SIGBUS), and rewritten bytes are seen unchecked.
    let mapped = unsafe {
        memmap2::MmapOptions::new()
            .len(values * 4)
            .map_copy(&file)
            .map_err(io_error(&path))?
    };
    if mapped.len() != values * 4 || mapped.as_ptr().align_offset(std::mem::align_of::<f32>()) != 0
    {
        return Err(corrupt(
            &path,
            "the vectors file could not be mapped as f32 rows",
        ));
    }
    Ok(ExactRows::Mapped(mapped))
}

/// Fsyncs a finished data file and records its length and hash.
pub(crate) fn seal(path: &Path) -> Result<FileEntry> {
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)
        .map_err(io_error(path))?;
    file.sync_all().map_err(io_error(path))?;
    let (bytes, hash) = hash_file(path)?;
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .ok_or_else(|| corrupt(path, "data file name is not UTF-8"))?
        .to_string();
    Ok(FileEntry {
        name,
        bytes,
        blake3: hash,
    })
}

fn hash_file(path: &Path) -> Result<(u64, String)> {
    crate::checksum::blake3_file(path).map_err(io_error(path))
}

/// Atomically makes `manifest` the current version of `dir`, then deletes data files of other
/// generations (best effort: a leftover file is harmless).
pub(crate) fn commit(dir: &Path, manifest: &Manifest) -> Result<()> {
    let tmp = dir.join(MANIFEST_TMP);
    let path = dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(manifest)
        .map_err(|error| corrupt(&path, format!("cannot serialize the manifest: {error}")))?;
    {
        let mut file = File::create(&tmp).map_err(io_error(&tmp))?;
        file.write_all(text.as_bytes()).map_err(io_error(&tmp))?;
        file.write_all(b"\n").map_err(io_error(&tmp))?;
        file.sync_all().map_err(io_error(&tmp))?;
    }
    fs::rename(&tmp, &path).map_err(io_error(&path))?;
    sync_dir(dir)?;
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(name) = name.to_str() else { continue };
            if generation_of(name).is_some_and(|number| number != manifest.generation) {
                let _ = fs::remove_file(entry.path());
            }
        }
    }
    Ok(())
}

#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<()> {
    File::open(dir)
        .and_then(|handle| handle.sync_all())
        .map_err(io_error(dir))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<()> {
    Ok(())
}

/// Reads and checks the manifest of `dir`.
pub(crate) fn read_manifest(dir: &Path) -> Result<Manifest> {
    let path = dir.join(MANIFEST);
    let text = fs::read(&path).map_err(io_error(&path))?;
    let manifest: Manifest = serde_json::from_slice(&text)
        .map_err(|error| corrupt(&path, format!("not a valid vector index manifest: {error}")))?;
    if manifest.format != FORMAT {
        return Err(corrupt(
            &path,
            format!("format is {:?}, expected {FORMAT:?}", manifest.format),
        ));
    }
    if !(OLDEST_VERSION..=VERSION).contains(&manifest.version) {
        return Err(corrupt(
            &path,
            format!(
                "format version {} is not supported (this build reads versions {OLDEST_VERSION} to {VERSION})",
                manifest.version
            ),
        ));
    }
    let graph_vectors: GraphVectors = manifest
        .graph_vectors
        .parse()
        .map_err(|error: String| corrupt(&path, error))?;
    if manifest.version < 2 && graph_vectors != GraphVectors::F32 {
        return Err(corrupt(&path, "version 1 indexes hold only f32 graphs"));
    }
    let needs_vectors = graph_vectors == GraphVectors::I8 && manifest.count > 0;
    if manifest.vectors.is_some() != needs_vectors {
        return Err(corrupt(
            &path,
            "vectors file entry does not match the graph's vector kind and item count",
        ));
    }
    if manifest.dim == 0 || manifest.m < 2 || manifest.ef_construction == 0 {
        return Err(corrupt(&path, "dimension or HNSW parameters out of range"));
    }
    if manifest.ef_search == 0 || manifest.graph.is_none() != (manifest.count == 0) {
        return Err(corrupt(&path, "inconsistent item count and graph entry"));
    }
    if manifest.keys.bytes != manifest.count as u64 * 8 {
        return Err(corrupt(
            &path,
            "keys file length does not match the item count",
        ));
    }
    for entry in manifest
        .graph
        .iter()
        .chain(manifest.vectors.iter())
        .chain([&manifest.keys])
    {
        if generation_of(&entry.name) != Some(manifest.generation) {
            return Err(corrupt(
                &path,
                format!("data file name {:?} is not of this generation", entry.name),
            ));
        }
    }
    Ok(manifest)
}

/// A new manifest for the given sealed files.
pub(crate) fn manifest(
    generation: &Generation,
    dim: usize,
    params: &super::params::HnswParams,
    count: usize,
    graph: Option<FileEntry>,
    vectors: Option<FileEntry>,
    keys: FileEntry,
) -> Manifest {
    Manifest {
        format: FORMAT.to_string(),
        version: VERSION,
        generation: generation.number,
        dim,
        m: params.m,
        ef_construction: params.ef_construction,
        ef_search: params.ef_search,
        count,
        graph_vectors: params.graph.name().to_string(),
        graph,
        vectors,
        keys,
    }
}

/// Fails, naming `path`, when its `length` is not the one the manifest records.
fn check_length(path: &Path, length: u64, entry: &FileEntry) -> Result<()> {
    if length != entry.bytes {
        return Err(corrupt(
            path,
            format!(
                "file is {length} bytes, the manifest records {} (truncated or overwritten)",
                entry.bytes
            ),
        ));
    }
    Ok(())
}

/// Checks that the file `entry` names exists with the recorded length and hash; returns its path.
pub(crate) fn verify(dir: &Path, entry: &FileEntry) -> Result<PathBuf> {
    let path = dir.join(&entry.name);
    let length = fs::metadata(&path).map_err(io_error(&path))?.len();
    check_length(&path, length, entry)?;
    let (_, hash) = hash_file(&path)?;
    if hash != entry.blake3 {
        return Err(corrupt(
            &path,
            "BLAKE3 checksum does not match the manifest (file is corrupt)",
        ));
    }
    Ok(path)
}

/// Reads a verified keys file.
pub(crate) fn read_keys(path: &Path) -> Result<Vec<u64>> {
    let bytes = fs::read(path).map_err(io_error(path))?;
    if bytes.len() % 8 != 0 {
        return Err(corrupt(path, "keys file length is not a multiple of 8"));
    }
    Ok(bytes
        .chunks_exact(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::generation_of;

    #[test]
    fn generation_numbers_come_only_from_data_file_names() {
        assert_eq!(generation_of("vectors-12.usearch"), Some(12));
        assert_eq!(generation_of("vectors-3.keys"), Some(3));
        assert_eq!(generation_of("vectors-4.f32"), Some(4));
        assert_eq!(generation_of("vectors.json"), None);
        assert_eq!(generation_of("vectors-x.keys"), None);
        assert_eq!(generation_of("other-1.keys"), None);
    }
}
