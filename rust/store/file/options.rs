//! What a file store is opened with (durability, compaction, limits,
//! retention, permissions) and what it reports back: the recovery report of
//! its open and its counters.

use std::path::PathBuf;

use super::{CompactionPolicy, PermissionCheck, RetentionPolicy, TornTail};
use crate::store::limits::StoreLimits;

/// When an acknowledged write is on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Durability {
    /// `put` and `apply` return only after their record is fsynced.
    #[default]
    SyncEachPut,
    /// `put` and `apply` return once their record is written to the OS
    /// (safe from a crash of the process, not yet from a power loss); one
    /// fsync covers every `max_batch` records, and `sync`,
    /// `get_recovery_marker`, compaction and `close` fsync whatever is left.
    GroupCommit { max_batch: usize },
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FileStoreOptions {
    pub durability: Durability,
    pub compaction: CompactionPolicy,
    /// The largest record and entry the store writes (at most
    /// [`super::MAX_LIMIT_BYTES`] each: compaction writes an entry as one frame).
    pub limits: StoreLimits,
    /// Keep a copy of each action as it completed, for replays
    /// (`docs/replay.md`); `None`, the default, keeps nothing and writes
    /// no byte more than a store without the option.
    pub retention: Option<RetentionPolicy>,
    /// What open does with a directory group or others can reach
    /// (`docs/security.md`): refuse it (the default), warn, or tighten it.
    pub permissions: PermissionCheck,
}

/// What opening the store found and repaired.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RecoveryReport {
    /// The directory held no store; a new one was created.
    pub created: bool,
    /// Records read from the live segment.
    pub records_replayed: u64,
    /// A final record cut short by a crash, which was dropped.
    pub torn_tail: Option<TornTail>,
    /// Leftovers of an interrupted compaction that were removed.
    pub removed_files: Vec<PathBuf>,
    /// The segment was in this older format and was rewritten in
    /// [`super::FORMAT_VERSION`] (a compaction).
    pub upgraded_from_version: Option<u32>,
    /// A damaged retention file, renamed to this path so that the store
    /// opens (with retention) on a new one.
    pub retained_set_aside: Option<PathBuf>,
    /// The directory's mode when it let group or others in: opened as it
    /// is under [`PermissionCheck::Warn`], made private under
    /// [`PermissionCheck::Tighten`] (then `permissions_tightened`).
    pub exposed_dir_mode: Option<u32>,
    pub permissions_tightened: bool,
}

/// Counters since the store was opened.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FileStoreStats {
    /// Bytes of mutation records appended (frames included; segment
    /// headers and compaction output excluded).
    pub bytes_appended: u64,
    pub records_appended: u64,
    pub syncs: u64,
    pub compactions: u64,
    /// Current size of the live segment.
    pub segment_bytes: u64,
    /// Bytes of the live segment that the live entries are built from.
    pub live_bytes: u64,
    pub entries: usize,
}
