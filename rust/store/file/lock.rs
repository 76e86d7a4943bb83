//! One writer per store directory: an exclusive advisory lock on `LOCK`.
//!
//! The lock belongs to the open file description, so a second open of the
//! same directory is refused even from the same process, and the lock goes
//! away with the process however it ends (no stale lock files to clean).

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

pub const LOCK_FILE: &str = "LOCK";

pub struct DirLock {
    file: File,
}

impl DirLock {
    pub fn acquire(dir: &Path) -> Result<DirLock> {
        let path: PathBuf = dir.join(LOCK_FILE);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| Error::StoreIo { path: path.clone(), source })?;
        match file.try_lock() {
            Ok(()) => Ok(DirLock { file }),
            Err(TryLockError::WouldBlock) => Err(Error::StoreLocked { path: dir.to_path_buf() }),
            Err(TryLockError::Error(source)) => Err(Error::StoreIo { path, source }),
        }
    }
}

impl Drop for DirLock {
    /// Unlocks explicitly instead of relying on the close of our descriptor:
    /// a process forked by another thread of this process (a JVM spawning a
    /// helper, a test harness) holds a copy of the descriptor until it execs,
    /// and the lock lives as long as any copy does. Unlocking releases it for
    /// every copy at once, so a reopen right after close is not refused.
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}
