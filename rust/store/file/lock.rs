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
    // Held for its lock; dropping it unlocks.
    _file: File,
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
            Ok(()) => Ok(DirLock { _file: file }),
            Err(TryLockError::WouldBlock) => Err(Error::StoreLocked { path: dir.to_path_buf() }),
            Err(TryLockError::Error(source)) => Err(Error::StoreIo { path, source }),
        }
    }
}
