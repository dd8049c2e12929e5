//! The exclusive writer lock: one `LOCK` file per index, held with an OS file lock (`flock` /
//! `LockFileEx`) for the writer's lifetime and released by the OS when the writer exits or is
//! killed, so a crash never leaves a stale lock. The file holds the writer's pid for the error
//! message. Readers never take it: they read committed generations and are never blocked.

use crate::error::{io, Error, Result};
use fs4::fs_std::FileExt;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// Name of the lock file inside an index directory.
pub const LOCK_FILE: &str = "LOCK";

/// A held writer lock; dropping it releases the lock.
#[derive(Debug)]
pub struct WriterLock {
    file: File,
    path: PathBuf,
}

impl WriterLock {
    /// Take the writer lock of the index in `dir`, or fail at once with [`Error::Locked`] naming
    /// the pid of the process that holds it.
    pub fn acquire(dir: &Path) -> Result<WriterLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path))?;
        match FileExt::try_lock_exclusive(&file) {
            Ok(true) => {}
            Ok(false) => {
                let mut s = String::new();
                let _ = file.read_to_string(&mut s);
                return Err(Error::Locked {
                    path: dir.to_path_buf(),
                    pid: s.trim().parse().ok(),
                });
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let mut s = String::new();
                let _ = file.read_to_string(&mut s);
                return Err(Error::Locked {
                    path: dir.to_path_buf(),
                    pid: s.trim().parse().ok(),
                });
            }
            Err(e) => return Err(io(&path)(e)),
        }
        file.set_len(0).map_err(io(&path))?;
        file.seek(SeekFrom::Start(0)).map_err(io(&path))?;
        write!(file, "{}", std::process::id()).map_err(io(&path))?;
        file.flush().map_err(io(&path))?;
        Ok(WriterLock { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for WriterLock {
    fn drop(&mut self) {
        let _ = FileExt::unlock(&self.file);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_writer_is_refused_with_pid_and_lock_is_released_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let first = WriterLock::acquire(dir.path()).unwrap();
        let err = WriterLock::acquire(dir.path()).unwrap_err();
        match &err {
            Error::Locked { pid, .. } => assert_eq!(*pid, Some(std::process::id())),
            other => panic!("expected Locked, got {other:?}"),
        }
        assert!(err.to_string().contains("being written by another process"));
        drop(first);
        WriterLock::acquire(dir.path()).unwrap();
    }
}
