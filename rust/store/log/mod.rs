//! A store whose durability is a replicated, partitioned log (Kafka) instead
//! of a local directory: the journals survive the loss of the machine that
//! wrote them, and a job restored at another parallelism finds them.
//!
//! Every mutation is one record in the core's delta format (the records the
//! file store writes, `store::record`), appended through a [`LogSink`] that
//! returns once the log has acknowledged it; the live entries are kept in
//! memory in the same [`StateTable`] as the other stores. After a restore,
//! the caller reads the log and hands its records to [`LogStore::ingest`],
//! which rebuilds the entries of the key groups the store owns.
//!
//! What the log needs to know lives here too:
//! - record keys ([`record_key`]): one per delta, so a compacted topic
//!   keeps every record an entry needs; pruning an entry appends a tombstone
//!   per record, which lets compaction delete them;
//! - partitions: a business key's records all go to the partition of its
//!   Flink key group ([`LogLayout::partition_of`]), so they stay in order;
//! - lineage ([`Lineage`]): each record names the job history it belongs
//!   to, and a store reads back only its own;
//! - recovery markers ([`LogMarker`]): the lineage, the log's shape and the
//!   offsets the store had reached, checked on restore.
//!
//! The transport (Kafka's Java client) is the caller's: this module knows
//! nothing of Kafka's API, or of JNI.
//!
//! This file holds the store itself and its [`ActionStateStore`] impl; the
//! rest is one job per file: `sink` (what the store appends to), `history`
//! (fresh, continued or restored, and markers), `load` (reading entries
//! back, key-group binding), `write` (the pipelined write and tombstones).

mod history;
pub mod inspect;
mod layout;
mod load;
mod marker;
mod record_key;
pub mod retention;
mod sink;
mod write;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};

pub use layout::{KeyGroupRange, Lineage, LogLayout, MAX_KEY_GROUPS};
pub use marker::LogMarker;
pub(crate) use marker::MAGIC as LOG_MARKER_MAGIC;
pub use sink::{Acknowledged, Acknowledgement, LogRecord, LogSink};
pub use write::PendingWrite;

use super::key::{BusinessKey, EventIdentity, StateKey};
use super::limits::{StoreLimits, RECORD_LIMIT_SETTING};
use super::marker::{MarkerBasis, RecoveryMarker};
use super::table::StateTable;
use super::{ActionStateStore, StoreStats, Submitted, STORE_NAME};
use crate::error::{Error, Result};
use crate::journal::JournalChange;
use crate::model::ActionState;

/// Counters since the store was created.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LogStats {
    pub entries: usize,
    /// Records appended and acknowledged, tombstones included.
    pub records_appended: u64,
    /// Their keys and values.
    pub bytes_appended: u64,
    pub tombstones_appended: u64,
    /// Tombstones waiting for the next append (see [`LogStore::sync`]).
    pub tombstones_pending: usize,
    /// Records of this store's lineage and key groups applied while loading.
    pub records_loaded: u64,
}

/// What the store knows of an entry's records in the log.
#[derive(Clone, Copy, Debug)]
struct EntryLog {
    key_group: u32,
    /// Ordinals used so far: the next record of the entry gets this one.
    records: u64,
    /// The smallest offset of a record of the entry: a restore must read
    /// from here (or earlier) to rebuild it.
    first_offset: u64,
}

/// An [`ActionStateStore`] over a [`LogSink`]. See the module docs.
///
/// Lifecycle: [`LogStore::new`], then exactly one of
/// [`LogStore::start_fresh`] (a new history), [`LogStore::continue_history`]
/// or [`ActionStateStore::rebuild_state`] from a checkpoint's markers (both
/// followed by loading the owned key groups: [`LogStore::begin_load`],
/// [`LogStore::ingest`], [`LogStore::finish_load`]).
/// Keyed operations need the business key's key group bound first
/// ([`LogStore::bind_key_group`]) and loaded.
pub struct LogStore {
    sink: Box<dyn LogSink>,
    layout: LogLayout,
    owned: KeyGroupRange,
    lineage: Option<Lineage>,
    /// Key group ranges whose entries are in memory: the owned range once
    /// loaded, and single key groups of other subtasks loaded on demand.
    loaded: Vec<KeyGroupRange>,
    table: StateTable,
    entries: BTreeMap<StateKey, EntryLog>,
    key_groups: HashMap<BusinessKey, u32>,
    /// Tombstones of removed entries; they go out ahead of the next record.
    pending: Vec<LogRecord>,
    /// Per partition, the offset after the last record this store appended.
    positions: Vec<u64>,
    limits: StoreLimits,
    /// Names the record limit in errors: the log's own setting when
    /// [`LogStore::limit_records`] set it.
    record_limit_setting: String,
    /// Entries with a write submitted and not acknowledged yet: the write's
    /// sequence number, and whether the entry was removed meanwhile (its
    /// tombstones then follow the write's record, and the entry stays gone).
    writing: HashMap<StateKey, (u64, bool)>,
    /// Sequence number of the next write submitted.
    next_write: u64,
    /// Per partition, where loading reads from: the smallest start of the
    /// markers restored from (0 without markers).
    read_from: Vec<u64>,
    stats: LogStats,
    /// The address of the last record loaded, decoded once per run of its records.
    last_loaded: record_key::LastEntry,
    /// Copies of completed actions, when asked for (`retention.rs`).
    retained: retention::Retaining,
    closed: bool,
}

impl LogStore {
    /// A store over `sink`, whose log has `layout`, owning the key groups in
    /// `owned`. It holds nothing and refuses writes until its history is
    /// set (see the type's docs).
    pub fn new(sink: Box<dyn LogSink>, layout: LogLayout, owned: KeyGroupRange) -> Result<LogStore> {
        let layout = LogLayout::new(layout.log_id, layout.partitions, layout.max_parallelism)?;
        let owned = KeyGroupRange::new(owned.first, owned.last, &layout)?;
        Ok(LogStore {
            sink,
            layout,
            owned,
            lineage: None,
            loaded: Vec::new(),
            table: StateTable::default(),
            entries: BTreeMap::new(),
            key_groups: HashMap::new(),
            pending: Vec::new(),
            positions: vec![0; layout.partitions as usize],
            limits: StoreLimits::default(),
            record_limit_setting: RECORD_LIMIT_SETTING.to_string(),
            writing: HashMap::new(),
            next_write: 0,
            read_from: vec![0; layout.partitions as usize],
            stats: LogStats::default(),
            last_loaded: record_key::LastEntry::default(),
            retained: retention::Retaining::default(),
            closed: false,
        })
    }

    /// Sets the largest record (key and value bytes) the store appends to
    /// what the log accepts, and names the setting that says so (e.g.
    /// Kafka's `max.request.size`): a record the log would refuse is
    /// refused here first, with `SizeLimitExceeded`, before anything is
    /// sent. At most [`super::MAX_LIMIT_BYTES`].
    pub fn limit_records(&mut self, max_record_bytes: u64, setting: impl Into<String>) -> Result<()> {
        self.limits = StoreLimits::new(max_record_bytes, self.limits.max_entry_bytes)?;
        self.record_limit_setting = setting.into();
        Ok(())
    }

    pub fn limits(&self) -> StoreLimits {
        self.limits
    }

    /// Refuses `record` for `key` over the limits.
    fn check_size(&self, key: &StateKey, record: &LogRecord, whole: bool) -> Result<u64> {
        let bytes = record_bytes(record);
        let entry = self.table.entry_bytes_after(key, whole, bytes);
        self.limits.check(key, bytes, entry, &self.record_limit_setting)?;
        Ok(bytes)
    }

    pub fn layout(&self) -> &LogLayout {
        &self.layout
    }

    pub fn owned(&self) -> KeyGroupRange {
        self.owned
    }

    pub fn lineage(&self) -> Option<Lineage> {
        self.lineage
    }

    pub fn stats(&self) -> LogStats {
        LogStats { entries: self.table.len(), tombstones_pending: self.pending.len(), ..self.stats }
    }

    fn open(&self) -> Result<()> {
        if self.closed {
            Err(Error::Closed(STORE_NAME))
        } else {
            Ok(())
        }
    }

    fn require_lineage(&self) -> Result<Lineage> {
        self.lineage.ok_or_else(|| {
            Error::IllegalState("the log-backed store has no history yet: start it fresh or restore it first".into())
        })
    }

    /// Drops the entries of `business_key` at exactly `seq` (every action
    /// and event). What an operator whose records of one key may run in
    /// several subtasks prunes with, so it never drops another subtask's.
    pub fn prune_entries_at(&mut self, business_key: &BusinessKey, seq: i64) -> Result<()> {
        self.open()?;
        let keys = self.keys_of(business_key, |s| s == seq);
        self.remove(keys, true)
    }
}


fn record_bytes(record: &LogRecord) -> u64 {
    (record.key.len() + record.value.as_ref().map_or(0, Vec::len)) as u64
}


impl ActionStateStore for LogStore {
    fn put(&mut self, key: &StateKey, state: &ActionState) -> Result<()> {
        let (ack, write) = self.begin_put(key, state)?;
        let acked = ack.wait();
        self.finish_put(write, acked, state)
    }

    fn apply(&mut self, key: &StateKey, change: JournalChange<'_>) -> Result<()> {
        let (ack, write) = self.begin_apply(key, change)?;
        let acked = ack.wait();
        self.finish_apply(write, acked, change)
    }

    /// A miss drops the business key's later entries. Their tombstones are
    /// appended only for key groups this store owns: a key of another
    /// subtask's range (here only for an async operator's in-flight record
    /// after a rescale) is that subtask's to decide about.
    fn get(&mut self, key: &StateKey) -> Result<Option<ActionState>> {
        self.open()?;
        self.refuse_if_writing(key)?;
        if let Some(state) = self.table.get(key) {
            return Ok(Some(state.clone()));
        }
        let key_group = self.key_groups.get(&key.business_key).copied();
        if let Some(key_group) = key_group.filter(|kg| !self.is_loaded(*kg)) {
            return Err(Error::IllegalState(format!("key group {key_group} is not loaded; load it before using it")));
        }
        let later = self.keys_of(&key.business_key, |seq| seq > key.seq);
        let owned = key_group.is_some_and(|kg| self.owned.contains(kg));
        self.remove(later, owned)?;
        Ok(None)
    }

    /// The entry lent from the table, else `get`'s answer from a copy.
    fn read_entry(&mut self, key: &StateKey, read: &mut dyn FnMut(&ActionState)) -> Result<bool> {
        self.open()?;
        self.refuse_if_writing(key)?;
        if let Some(state) = self.table.get(key) {
            read(state);
            return Ok(true);
        }
        crate::store::read_copy(self, key, read)
    }

    /// The entries of the key groups loaded here (a key group never loaded lends none).
    fn read_entries(&mut self, read: &mut dyn FnMut(&BusinessKey, i64, &str, &EventIdentity, &ActionState)) -> Result<()> {
        self.open()?;
        self.table.for_each(read);
        Ok(())
    }

    fn prune_state(&mut self, business_key: &BusinessKey, seq_up_to: i64) -> Result<()> {
        self.open()?;
        let keys = self.keys_of(business_key, |seq| seq <= seq_up_to);
        self.remove(keys, true)
    }

    /// The marker of a store with no write in flight (a write begun and
    /// not finished is refused: [`crate::store::SharedStore::recovery_marker`]
    /// waits for it instead).
    fn get_recovery_marker(&mut self) -> Result<RecoveryMarker> {
        let basis = self.begin_marker()?;
        if !self.settled_before(self.next_write) {
            return Err(Error::IllegalState(
                "a write to the log-backed store is in flight: take the marker through the shared store, which waits for it"
                    .into(),
            ));
        }
        self.finish_marker(basis)
    }

    /// Continues the checkpoint's history (`LogStore::restore`), checked
    /// against where the log ends now, read from the sink; load the owned
    /// key groups next.
    fn rebuild_state(&mut self, markers: &[RecoveryMarker]) -> Result<()> {
        self.open()?;
        let markers = marker::log_markers(markers)?;
        let ends = self.sink.end_offsets()?;
        self.restore(&markers, &ends)
    }

    /// Where the log ends, from the sink, read with the store locked: the
    /// writes submitted before it are then those numbered below
    /// [`LogStore::writes_submitted`].
    fn begin_marker(&mut self) -> Result<MarkerBasis> {
        self.open()?;
        self.require_lineage()?;
        Ok(MarkerBasis { end_offsets: self.sink.end_offsets()? })
    }

    fn finish_marker(&mut self, basis: MarkerBasis) -> Result<RecoveryMarker> {
        self.marker(&basis.end_offsets).map(RecoveryMarker::Log)
    }

    /// Appends the pending tombstones. Every other record is acknowledged
    /// by the log before the call that wrote it returns.
    fn sync(&mut self) -> Result<()> {
        self.open()?;
        self.flush()
    }

    /// Its entries and what it appended ([`LogStore::stats`] has the rest).
    fn stats(&self) -> Result<StoreStats> {
        self.open()?;
        let counted = LogStore::stats(self);
        Ok(StoreStats {
            records_appended: Some(counted.records_appended),
            bytes_appended: Some(counted.bytes_appended),
            ..StoreStats::entries(counted.entries)
        })
    }

    fn begin_put(&mut self, key: &StateKey, state: &ActionState) -> Result<Option<Submitted>> {
        LogStore::begin_put(self, key, state).map(Some)
    }

    fn finish_put(&mut self, write: PendingWrite, acked: Result<Vec<u64>>, state: &ActionState) -> Result<()> {
        LogStore::finish_put(self, write, acked, state)
    }

    fn begin_apply(&mut self, key: &StateKey, change: JournalChange<'_>) -> Result<Option<Submitted>> {
        LogStore::begin_apply(self, key, change).map(Some)
    }

    fn finish_apply(&mut self, write: PendingWrite, acked: Result<Vec<u64>>, change: JournalChange<'_>) -> Result<()> {
        LogStore::finish_apply(self, write, acked, change)
    }

    fn is_writing(&self, key: &StateKey) -> bool {
        LogStore::is_writing(self, key)
    }

    fn writes_submitted(&self) -> u64 {
        LogStore::writes_submitted(self)
    }

    fn settled_before(&self, write: u64) -> bool {
        LogStore::settled_before(self, write)
    }

    fn close(&mut self) -> Result<()> {
        if self.closed {
            return Ok(());
        }
        let flushed = if self.lineage.is_some() { self.flush() } else { Ok(()) };
        self.close_retained();
        self.closed = true;
        // The sink goes now, not with the last share of the store (a journal
        // may outlive its store): a Java transport is held by a JNI global
        // reference, which keeps its class loader alive while it is held.
        let name = self.sink.name().to_string();
        self.sink = Box::new(sink::ClosedSink(name));
        flushed
    }
}
