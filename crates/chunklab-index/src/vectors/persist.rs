//! On-disk layout of a saved [`VectorIndex`](super::VectorIndex) and its crash-safe commit.
//!
//! A saved index is a directory holding
//!
//! * `vectors.json` — the manifest: format version, dimension, HNSW parameters, item count, and for
//!   each data file its name, byte length and BLAKE3 hash;
//! * `vectors-<generation>.usearch` — the HNSW graph with the f32 vectors (USearch's own format;
//!   absent when the index is empty);
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

/// Name of the manifest file inside an index directory.
pub(crate) const MANIFEST: &str = "vectors.json";
const MANIFEST_TMP: &str = "vectors.json.tmp";
const FORMAT: &str = "chunklab-vectors";
const VERSION: u32 = 1;
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
    /// The USearch graph file; `None` for an empty index.
    pub graph: Option<FileEntry>,
    pub keys: FileEntry,
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
        keys: dir.join(format!("{FILE_PREFIX}{number}.keys")),
    })
}

/// The generation number in a data file name `vectors-<n>.usearch` / `vectors-<n>.keys`.
fn generation_of(name: &str) -> Option<u64> {
    let rest = name.strip_prefix(FILE_PREFIX)?;
    let number = rest
        .strip_suffix(".usearch")
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
    if manifest.version != VERSION {
        return Err(corrupt(
            &path,
            format!(
                "format version {} is not supported (this build reads version {VERSION})",
                manifest.version
            ),
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
    for entry in manifest.graph.iter().chain([&manifest.keys]) {
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
        graph,
        keys,
    }
}

/// Checks that the file `entry` names exists with the recorded length and hash; returns its path.
pub(crate) fn verify(dir: &Path, entry: &FileEntry) -> Result<PathBuf> {
    let path = dir.join(&entry.name);
    let length = fs::metadata(&path).map_err(io_error(&path))?.len();
    if length != entry.bytes {
        return Err(corrupt(
            &path,
            format!(
                "file is {length} bytes, the manifest records {} (truncated or overwritten)",
                entry.bytes
            ),
        ));
    }
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
        assert_eq!(generation_of("vectors.json"), None);
        assert_eq!(generation_of("vectors-x.keys"), None);
        assert_eq!(generation_of("other-1.keys"), None);
    }
}
