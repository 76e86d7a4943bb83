//! The embedded file store: an append-only log in a directory the user
//! names, with the live entries held in memory. Layout, record format,
//! durability and recovery are described in `docs/store.md`.

mod access;
mod compact;
mod frame;
mod inspect;
mod lock;
mod options;
mod recover;
mod retention;
mod segment;
mod trait_impl;

#[cfg(test)]
mod tests;

/// What the fuzz targets (`rust/fuzzing.rs`) drive directly: the frame
/// decoders, and segments built by hand.
#[cfg(feature = "fuzzing")]
pub(crate) use frame::{FrameFormat, FrameHeader, FrameScanner, Scanned};

/// A segment header of format `version` (1 or 2), as a store writes it.
#[cfg(feature = "fuzzing")]
pub(crate) fn segment_header_bytes(version: u32, store_id: [u8; 16], generation: u64, base_position: u64, snapshot_records: u64) -> Vec<u8> {
    let header = SegmentHeader { version, ..SegmentHeader::new(StoreId(store_id), generation, base_position, snapshot_records) };
    header.encode().to_vec()
}

/// `payload` framed as format `version` writes it at `offset` of a segment.
#[cfg(feature = "fuzzing")]
pub(crate) fn frame_bytes(version: u32, payload: &[u8], offset: u64) -> Vec<u8> {
    if version == 1 {
        frame::encode_unplaced(payload)
    } else {
        frame::encode(payload, offset)
    }
}

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

pub use access::{PermissionCheck, DIR_MODE, FILE_MODE};
pub use compact::CompactionPolicy;
pub use inspect::{InspectedEntry, InspectedStore};
pub use lock::LOCK_FILE;
pub use recover::TornTail;
pub use retention::{in_flight_to_json, read_retained, retained_to_json, RetainedAction, RetentionPolicy, RETAINED_FILE};
pub(crate) use retention::{completed_copy, decode_retained, encode_retained, now_millis};
pub use options::{Durability, FileStoreOptions, FileStoreStats, RecoveryReport};
pub use segment::FORMAT_VERSION;

use super::key::StateKey;
use super::limits::{StoreLimits, RECORD_LIMIT_SETTING};
use super::marker::StoreId;
use super::table::StateTable;
use super::STORE_NAME;
use crate::error::{Error, Result};
use crate::model::ActionState;
use lock::DirLock;
use retention::Retainer;
use segment::{ActiveSegment, AppendError, SegmentHeader};

pub struct FileStore {
    dir: PathBuf,
    store_id: StoreId,
    report: RecoveryReport,
    open: Option<OpenStore>,
}

struct OpenStore {
    _lock: DirLock,
    segment: ActiveSegment,
    table: StateTable,
    /// Mutation records made so far over the store's life: what a
    /// recovery marker records.
    position: u64,
    options: FileStoreOptions,
    /// Set when a write or fsync failed in a way that leaves the file's
    /// content uncertain; every later write is refused until reopen.
    failure: Option<String>,
    stats: FileStoreStats,
    /// Copies of completed actions, when the options ask for them.
    retention: Option<Retainer>,
    /// Named in each retained copy.
    plan_digest: Option<String>,
    /// Why retention stopped (a failed write of `retained.log`); live
    /// entries are not affected.
    retention_error: Option<String>,
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> Error + '_ {
    move |source| Error::StoreIo { path: path.to_path_buf(), source }
}

impl FileStore {
    /// Opens (or creates) the store in `dir` with the default options:
    /// an fsync per put. `dir` must exist and be writable.
    pub fn open(dir: impl AsRef<Path>) -> Result<FileStore> {
        FileStore::open_with(dir, FileStoreOptions::default())
    }

    pub fn open_with(dir: impl AsRef<Path>, options: FileStoreOptions) -> Result<FileStore> {
        let dir = dir.as_ref().to_path_buf();
        if let Durability::GroupCommit { max_batch: 0 } = options.durability {
            return Err(Error::InvalidArgument("group commit needs a batch of at least one record".into()));
        }
        StoreLimits::new(options.limits.max_record_bytes, options.limits.max_entry_bytes)?;
        if let Some(policy) = options.retention {
            policy.check()?;
        }
        check_is_dir(&dir)?;
        let access = access::check_dir(&dir, options.permissions)?;
        let lock = DirLock::acquire(&dir)?;
        let listing = segment::list(&dir).map_err(io_error(&dir))?;
        let mut report = RecoveryReport {
            exposed_dir_mode: access.exposed_mode,
            permissions_tightened: access.tightened,
            ..RecoveryReport::default()
        };
        for temp in listing.temp_files {
            fs::remove_file(&temp).map_err(io_error(&temp))?;
            report.removed_files.push(temp);
        }
        let path = match listing.segments.last() {
            Some((_, path)) => path.clone(),
            None => {
                report.created = true;
                let header = SegmentHeader::new(StoreId::random(), 1, 0, 0);
                segment::write_new(&dir, &header, |_| Ok(())).map_err(io_error(&dir))?
            }
        };
        let loaded = recover::load(&path)?;
        // Older generations are what a finished compaction had yet to
        // remove: the newest segment was complete before it got its name.
        let older = listing.segments.len().saturating_sub(1);
        for (_, old) in &listing.segments[..older] {
            fs::remove_file(old).map_err(io_error(old))?;
            report.removed_files.push(old.clone());
        }
        if !report.removed_files.is_empty() {
            segment::sync_dir(&dir).map_err(io_error(&dir))?;
        }
        report.records_replayed = loaded.records;
        report.torn_tail = loaded.torn_tail;
        let segment = ActiveSegment::open(path.clone(), loaded.header, loaded.len).map_err(io_error(&path))?;
        let retention = match options.retention {
            Some(policy) => {
                let (retainer, set_aside) = Retainer::open(&dir, policy, retention::now_millis)?;
                report.retained_set_aside = set_aside;
                Some(retainer)
            }
            None => None,
        };
        let mut open = OpenStore {
            _lock: lock,
            segment,
            table: loaded.table,
            position: loaded.position,
            options,
            failure: None,
            stats: FileStoreStats::default(),
            retention,
            plan_digest: None,
            retention_error: None,
        };
        if loaded.header.version != FORMAT_VERSION {
            // Appending frames without offsets would leave the store open to
            // silently replayed records; the rewrite is one compaction, and
            // the old segment stays the live one until it is complete.
            open.compact(&dir)?;
            report.upgraded_from_version = Some(loaded.header.version);
        }
        Ok(FileStore { dir, store_id: loaded.header.store_id, report, open: Some(open) })
    }

    /// Reads the store in `dir` without opening it: no lock (a running job
    /// may hold the store), no repair and no change to any file. See
    /// [`InspectedStore`]; corruption is `StoreCorrupt`, as for open.
    pub fn inspect(dir: impl AsRef<Path>) -> Result<InspectedStore> {
        inspect::inspect(dir.as_ref())
    }

    /// The retained actions of the store in `dir` (see [`read_retained`]):
    /// no lock, no change to any file.
    pub fn inspect_retained(dir: impl AsRef<Path>) -> Result<Vec<RetainedAction>> {
        read_retained(dir.as_ref())
    }

    /// The digest of the agent plan that runs the actions of this store,
    /// kept with each retained action so a replay can tell which plan
    /// recorded it. Only meaningful with retention on.
    pub fn set_plan_digest(&mut self, digest: Option<String>) -> Result<()> {
        self.opened_mut()?.plan_digest = digest;
        Ok(())
    }

    /// How many completed actions are retained now (0 without retention).
    pub fn retained_count(&self) -> Result<usize> {
        Ok(self.opened()?.retention.as_ref().map_or(0, Retainer::kept))
    }

    /// Why retention stopped, if a write of the retention file failed.
    pub fn retention_error(&self) -> Result<Option<String>> {
        Ok(self.opened()?.retention_error.clone())
    }

    pub fn store_id(&self) -> StoreId {
        self.store_id
    }

    pub fn recovery_report(&self) -> &RecoveryReport {
        &self.report
    }

    /// What to tell an operator about the directory's permissions, if
    /// anything: it was opened as it is though others can reach it
    /// ([`PermissionCheck::Warn`]), or it was made private.
    pub fn permission_warning(&self) -> Option<String> {
        let mode = self.report.exposed_dir_mode?;
        Some(if self.report.permissions_tightened {
            format!(
                "the store directory {} had mode {mode:04o}; it was made {DIR_MODE:04o} and its files {FILE_MODE:04o} \
                 (permission check: tighten)",
                self.dir.display()
            )
        } else {
            access::exposure_warning(&self.dir, mode)
        })
    }

    /// The mode of `dir` if group or others can reach it, for a reader that
    /// does not open the store (the inspection tool notes it).
    pub fn exposed_mode(dir: impl AsRef<Path>) -> Result<Option<u32>> {
        let dir = dir.as_ref();
        access::exposed_mode(dir).map_err(io_error(dir))
    }

    /// [`FileStore::exposed_mode`]'s note: who can get in and the fix.
    pub fn exposure_warning(dir: impl AsRef<Path>, mode: u32) -> String {
        access::exposure_warning(dir.as_ref(), mode)
    }

    pub fn stats(&self) -> Result<FileStoreStats> {
        let open = self.opened()?;
        Ok(FileStoreStats {
            segment_bytes: open.segment.len(),
            live_bytes: open.table.live_bytes(),
            entries: open.table.len(),
            ..open.stats
        })
    }

    /// The segment file records are appended to now.
    pub fn segment_path(&self) -> Result<PathBuf> {
        Ok(self.opened()?.segment.path.clone())
    }

    /// Rewrites the live entries into a new segment and removes the old
    /// one. Prune does this by itself when its [`CompactionPolicy`] says so.
    pub fn compact(&mut self) -> Result<()> {
        let dir = self.dir.clone();
        self.opened_mut()?.compact(&dir)
    }

    fn opened(&self) -> Result<&OpenStore> {
        self.open.as_ref().ok_or(Error::Closed(STORE_NAME))
    }

    fn opened_mut(&mut self) -> Result<&mut OpenStore> {
        self.open.as_mut().ok_or(Error::Closed(STORE_NAME))
    }

    #[cfg(test)]
    fn replace_segment_file_for_test(&mut self, file: fs::File) {
        self.open.as_mut().unwrap().segment.replace_file_for_test(file);
    }
}

fn check_is_dir(dir: &Path) -> Result<()> {
    let metadata = fs::metadata(dir).map_err(io_error(dir))?;
    if !metadata.is_dir() {
        let source = io::Error::new(io::ErrorKind::NotADirectory, "the store path is not a directory");
        return Err(Error::StoreIo { path: dir.to_path_buf(), source });
    }
    Ok(())
}

impl OpenStore {
    /// Refuses a record for `key` over the limits, before it is written.
    fn check_size(&self, key: &StateKey, payload: &[u8], whole: bool) -> Result<()> {
        let frame = frame::encoded_len(payload.len());
        let entry = self.table.entry_bytes_after(key, whole, frame);
        self.options.limits.check(key, payload.len() as u64, entry, RECORD_LIMIT_SETTING)
    }

    fn check_writable(&self) -> Result<()> {
        match &self.failure {
            None => Ok(()),
            Some(cause) => Err(Error::StoreIo {
                path: self.segment.path.clone(),
                source: io::Error::other(format!(
                    "an earlier write failed ({cause}); the store refuses writes until it is reopened"
                )),
            }),
        }
    }

    /// Appends one record. `durable` records are fsynced before this returns
    /// under [`Durability::SyncEachPut`]; the others (discards and prunes,
    /// which are safe to lose) ride along with the next fsync.
    fn append(&mut self, payload: &[u8], durable: bool) -> Result<u64> {
        self.check_writable()?;
        self.options.limits.check_record("a record", payload.len() as u64, RECORD_LIMIT_SETTING)?;
        let frame_len = match self.segment.append(payload) {
            Ok(frame_len) => frame_len,
            Err(AppendError::RolledBack(source)) => {
                return Err(Error::StoreIo { path: self.segment.path.clone(), source });
            }
            Err(AppendError::Stuck { write, cut }) => {
                self.failure = Some(format!("{write}, and cutting the partial record off failed: {cut}"));
                return Err(Error::StoreIo { path: self.segment.path.clone(), source: write });
            }
        };
        self.position += 1;
        self.stats.bytes_appended += frame_len;
        self.stats.records_appended += 1;
        let sync_due = match self.options.durability {
            Durability::SyncEachPut => durable,
            Durability::GroupCommit { max_batch } => self.segment.unsynced() >= max_batch,
        };
        if sync_due {
            self.sync()?;
        }
        Ok(frame_len)
    }

    /// Makes what was written durable, and checks that it was written to
    /// the file a reopen loads. This is where an acknowledgment becomes a
    /// promise (each durable put under [`Durability::SyncEachPut`], each
    /// batch under group commit, markers, compaction, close), so the `stat`
    /// the check costs is paid there, not on every group-commit append.
    ///
    /// After a failed fsync the kernel may have dropped the unwritten pages
    /// and will not report it again, and a segment that its path no longer
    /// names is not the store's any more: either way the store stops
    /// writing for good.
    fn sync(&mut self) -> Result<()> {
        self.check_writable()?;
        if let Some(Err(err)) = self.retention.as_mut().map(Retainer::sync) {
            self.stop_retaining(err);
        }
        if self.segment.unsynced() > 0 {
            if let Err(source) = self.segment.sync() {
                self.failure = Some(format!("fsync failed: {source}"));
                return Err(Error::StoreIo { path: self.segment.path.clone(), source });
            }
            self.stats.syncs += 1;
        }
        let linked = self.segment.check_linked();
        linked.map_err(|reason| {
            let source = io::Error::other(format!(
                "{reason}; what this store wrote there since may not survive a reopen, so it refuses writes \
                 until it is reopened"
            ));
            self.failure = Some(reason);
            Error::StoreIo { path: self.segment.path.clone(), source }
        })
    }

    /// Keeps a copy of the action that just completed at `key` (a no-op
    /// without retention). A failure stops retention, never the store.
    fn retain(&mut self, key: &StateKey, completed: &ActionState) {
        let Some(retainer) = self.retention.as_mut() else { return };
        if let Err(err) = retainer.retain(key, completed, self.plan_digest.as_deref()) {
            self.stop_retaining(err);
        }
    }

    /// Drops retained copies past their age (a prune is when time is checked without a completion).
    fn expire_retained(&mut self) {
        if let Some(Err(err)) = self.retention.as_mut().map(Retainer::expire) {
            self.stop_retaining(err);
        }
    }

    fn stop_retaining(&mut self, err: io::Error) {
        if let Some(retainer) = self.retention.take() {
            self.retention_error = Some(format!("writing {} failed: {err}; retention stopped", retainer.path().display()));
        }
    }

    /// The action as it completes at `key` with `state`, with its journal,
    /// when this is the put that completes it and copies are retained.
    fn completing(&self, key: &StateKey, state: &ActionState) -> Option<ActionState> {
        self.retention.as_ref()?;
        retention::completed_copy(self.table.get(key), state)
    }

    fn compact(&mut self, dir: &Path) -> Result<()> {
        // Also checks that the segment is still in place: entries written
        // by whoever replaced it are not in the table, and a snapshot of the
        // table must not become the next generation.
        self.sync()?;
        let snapshot =
            compact::write_snapshot(dir, &self.segment.header, self.position, &self.table).map_err(io_error(dir))?;
        // The new generation is what a reopen loads from now on: writing on
        // into the old one would lose those writes, so failing to switch
        // stops all writes.
        let old = self.segment.path.clone();
        match ActiveSegment::open(snapshot.path.clone(), snapshot.header, snapshot.len) {
            Ok(segment) => {
                self.segment = segment;
                crash_point!("file.compact.after_switch");
            }
            Err(source) => {
                self.failure = Some(format!("switching to the compacted segment failed: {source}"));
                return Err(Error::StoreIo { path: snapshot.path, source });
            }
        }
        for (key, bytes) in &snapshot.entry_bytes {
            self.table.set_log_bytes(key, *bytes);
        }
        self.stats.compactions += 1;
        // Housekeeping only: an old generation left behind is removed by
        // the next open.
        if fs::remove_file(&old).is_ok() {
            let _ = segment::sync_dir(dir);
        }
        crash_point!("file.compact.after_old_removed");
        Ok(())
    }
}
