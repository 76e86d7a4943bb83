//! One writer per store directory: an exclusive advisory lock (`flock`) on
//! the directory itself, and one on the `LOCK` file inside it.
//!
//! The directory lock is what excludes: a directory cannot be deleted and
//! recreated under an open handle the way a file can (removing it needs it
//! empty, and a new directory at the same path is a different inode, whose
//! segment paths then no longer name the files this store writes, which the
//! store notices on its next write). The `LOCK` file is what an operator
//! sees, and what versions that locked only the file check; deleting it no
//! longer lets a second store in.
//!
//! Both locks belong to their open file description, so a second open of the
//! same directory is refused even from the same process, and they go away
//! with the process however it ends (no stale lock files to clean).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::Path;

use super::access;
use crate::error::{Error, Result};

pub const LOCK_FILE: &str = "LOCK";

pub struct DirLock {
    dir: File,
    file: File,
}

impl DirLock {
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let dir_handle = File::open(dir).map_err(|source| Error::StoreIo { path: dir.to_path_buf(), source })?;
        lock_exclusive(&dir_handle, dir, dir)?;
        let path = dir.join(LOCK_FILE);
        let file = access::open_private(OpenOptions::new().create(true).truncate(false).write(true), &path)
            .map_err(|source| Error::StoreIo { path: path.clone(), source })?;
        lock_exclusive(&file, &path, dir)?;
        Ok(DirLock { dir: dir_handle, file })
    }
}

/// Locks `file` (found at `path`) or reports the store directory `dir` as
/// held by someone else.
fn lock_exclusive(file: &File, path: &Path, dir: &Path) -> Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(TryLockError::WouldBlock) => Err(Error::StoreLocked { path: dir.to_path_buf() }),
        Err(TryLockError::Error(source)) => Err(Error::StoreIo { path: path.to_path_buf(), source }),
    }
}

impl Drop for DirLock {
    /// Unlocks explicitly instead of relying on the close of our descriptors:
    /// a process forked by another thread of this process (a JVM spawning a
    /// helper, a test harness) holds a copy of each descriptor until it execs,
    /// and a lock lives as long as any copy does. Unlocking releases it for
    /// every copy at once, so a reopen right after close is not refused.
    fn drop(&mut self) {
        let _ = self.file.unlock();
        let _ = self.dir.unlock();
    }
}
