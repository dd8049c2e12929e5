//! BLAKE3 of a whole file, read in small blocks: the one file checksum the store's segment files
//! and the vector snapshot's files are verified with.

use std::fs::File;
use std::io::Read;
use std::path::Path;

/// Block size of [`blake3_file`]: big enough for BLAKE3's SIMD paths, small enough to live on
/// the stack (a 1 MiB heap buffer zeroed per file was 16 % of opening a small index).
const BLOCK: usize = 64 << 10;

/// Length and BLAKE3 (hex) of the file at `path`.
pub(crate) fn blake3_file(path: &Path) -> std::io::Result<(u64, String)> {
    let mut file = File::open(path)?;
    let mut hasher = blake3::Hasher::new();
    let mut block = [0u8; BLOCK];
    let mut len = 0u64;
    loop {
        let n = match file.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        hasher.update(&block[..n]);
        len += n as u64;
    }
    Ok((len, hasher.finalize().to_hex().to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equals_the_hash_of_the_bytes_across_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        let bytes: Vec<u8> = (0..(3 * BLOCK + 17))
            .map(|i| (i * 31 % 251) as u8)
            .collect();
        std::fs::write(&path, &bytes).unwrap();
        let (len, hash) = blake3_file(&path).unwrap();
        assert_eq!(len, bytes.len() as u64);
        assert_eq!(hash, blake3::hash(&bytes).to_hex().to_string());
        assert!(blake3_file(&dir.path().join("missing")).is_err());
    }
}
