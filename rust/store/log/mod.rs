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

pub mod inspect;
mod layout;
mod marker;
mod record_key;
pub mod retention;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

pub use layout::{KeyGroupRange, Lineage, LogLayout, MAX_KEY_GROUPS};
pub use marker::LogMarker;

use super::record::{self, Record};
use super::key::{BusinessKey, EventIdentity, StateKey};
use super::limits::{StoreLimits, RECORD_LIMIT_SETTING};
use super::marker::RecoveryMarker;
use super::table::StateTable;
use super::{ActionStateStore, STORE_NAME};
use crate::error::{Error, Result};
use crate::journal::JournalChange;
use crate::model::ActionState;

/// One record to append: a value, or `None` for a tombstone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    pub partition: u32,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

/// Where a [`LogStore`] appends.
///
/// Appending is split in two so that the store need not be locked while
/// the log replicates: [`LogSink::submit`] hands the records over (in
/// order: order matters within a partition) and returns at once;
/// [`Acknowledgement::wait`] then blocks until the log has acknowledged
/// them. Records submitted later land after earlier ones in each
/// partition, so writes from many threads share the log's requests while
/// each waits only for its own.
pub trait LogSink: Send {
    /// Hands `records` to the log without waiting for them to be stored.
    /// An error here means none of them was sent.
    fn submit(&mut self, records: &[LogRecord]) -> Result<Box<dyn Acknowledgement>>;

    /// Submits and waits: the offset each record got.
    fn append(&mut self, records: &[LogRecord]) -> Result<Vec<u64>> {
        self.submit(records)?.wait()
    }

    /// The log, for people (e.g. "Kafka topic 'journal'"), used in errors.
    fn name(&self) -> &str;
}

/// What a closed store holds instead of its sink: the log's name, for errors.
struct ClosedSink(String);

impl LogSink for ClosedSink {
    fn submit(&mut self, _records: &[LogRecord]) -> Result<Box<dyn Acknowledgement>> {
        Err(Error::Closed(STORE_NAME))
    }

    fn name(&self) -> &str {
        &self.0
    }
}

/// The outcome of a [`LogSink::submit`], to wait for without the store's lock.
pub trait Acknowledgement: Send {
    /// Returns, once the log has acknowledged every record submitted, the
    /// offset each got. An error means some of them may or may not be in
    /// the log; the store never reuses the key of a record that may be there.
    fn wait(self: Box<Self>) -> Result<Vec<u64>>;
}

/// An outcome known at submission (a log that appends synchronously).
pub struct Acknowledged(pub Result<Vec<u64>>);

impl Acknowledgement for Acknowledged {
    fn wait(self: Box<Self>) -> Result<Vec<u64>> {
        self.0
    }
}

/// A write submitted to the log and not yet acknowledged: what
/// [`LogStore::finish_put`] or [`LogStore::finish_apply`] needs to account
/// for it once [`Acknowledgement::wait`] returned. While it is pending, the
/// entry takes no other write ([`LogStore::is_writing`]).
#[must_use = "a pending write must be finished, or its entry stays busy"]
pub struct PendingWrite {
    key: StateKey,
    key_group: u32,
    ordinal: u64,
    /// The tombstones that went out ahead of the write's record, then the record.
    batch: Vec<LogRecord>,
    /// The size of the write's own record.
    bytes: u64,
}

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
/// or [`LogStore::restore`] (both followed by loading the owned key groups:
/// [`LogStore::begin_load`], [`LogStore::ingest`], [`LogStore::finish_load`]).
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

    /// Begins a new history: nothing of `lineage` is in the log yet, so the
    /// owned key groups are loaded (empty) at once.
    pub fn start_fresh(&mut self, lineage: Lineage) -> Result<()> {
        self.set_lineage(lineage)?;
        self.loaded.push(self.owned);
        Ok(())
    }

    /// Continues `lineage` without a checkpoint (a job that failed before
    /// its first checkpoint completed): load the owned key groups next.
    pub fn continue_history(&mut self, lineage: Lineage) -> Result<()> {
        self.set_lineage(lineage)
    }

    /// Continues the history of a checkpoint, given the markers every
    /// subtask checkpointed (any number of them: the job may have had
    /// another parallelism) and the log's current end offset per partition.
    /// Refuses markers of different lineages, a log of another shape (or a
    /// topic created again), and a log that ends before an offset a marker
    /// saw (acknowledged records lost). Load the owned key groups next.
    pub fn restore(&mut self, markers: &[LogMarker], end_offsets: &[u64]) -> Result<()> {
        let name = self.sink.name().to_string();
        let first = markers.first().ok_or_else(|| {
            Error::IllegalState(format!("the checkpoint holds no recovery marker of {name}: nothing to restore from"))
        })?;
        for marker in markers {
            if marker.lineage != first.lineage {
                return Err(Error::IllegalState(format!(
                    "the checkpoint's recovery markers belong to two histories in {name} ({} and {}): they were \
                     not taken by one job",
                    first.lineage, marker.lineage
                )));
            }
            self.check_layout(&marker.layout, &name)?;
        }
        if end_offsets.len() != self.positions.len() {
            return Err(Error::InvalidArgument(format!(
                "{} end offsets for the {} partitions of {name}",
                end_offsets.len(),
                self.positions.len()
            )));
        }
        let mut seen = vec![0u64; self.positions.len()];
        for marker in markers {
            for (max, position) in seen.iter_mut().zip(&marker.positions) {
                *max = (*max).max(*position);
            }
        }
        for (partition, (end, saw)) in end_offsets.iter().zip(&seen).enumerate() {
            if end < saw {
                return Err(Error::IllegalState(format!(
                    "{name} partition {partition} ends at offset {end} but the checkpoint saw records up to offset \
                     {saw}: acknowledged journal records are gone (the topic was truncated or lost data); \
                     restoring would run journaled calls again"
                )));
            }
        }
        self.set_lineage(first.lineage)?;
        self.positions = seen;
        self.read_from = (0..self.positions.len())
            .map(|p| markers.iter().map(|m| m.starts.get(p).copied().unwrap_or(0)).min().unwrap_or(0))
            .collect();
        Ok(())
    }

    fn check_layout(&self, theirs: &LogLayout, name: &str) -> Result<()> {
        let ours = &self.layout;
        if theirs.log_id != ours.log_id {
            return Err(Error::IllegalState(format!(
                "the checkpoint was taken against another log than {name} (its topic id differs: the topic was \
                 deleted and created again, or it is another topic); its journals are not there"
            )));
        }
        if theirs.partitions != ours.partitions {
            return Err(Error::IllegalState(format!(
                "{name} had {} partitions when the checkpoint was taken and has {} now: a business key's records \
                 would no longer be in one partition; keep the partition count of the topic",
                theirs.partitions, ours.partitions
            )));
        }
        if theirs.max_parallelism != ours.max_parallelism {
            return Err(Error::IllegalState(format!(
                "the checkpoint was taken with max parallelism {} and the job now has {}: key groups moved; \
                 Flink needs the same max parallelism to restore keyed state too",
                theirs.max_parallelism, ours.max_parallelism
            )));
        }
        Ok(())
    }

    fn set_lineage(&mut self, lineage: Lineage) -> Result<()> {
        self.open()?;
        if let Some(current) = self.lineage {
            return Err(Error::IllegalState(format!(
                "the store already continues history {current}; open a new store for another"
            )));
        }
        self.lineage = Some(lineage);
        Ok(())
    }

    /// The marker to checkpoint: appends pending tombstones first, so that
    /// everything up to it is acknowledged. `end_offsets` are the log's end
    /// offsets fetched before this call, with no write of this store in
    /// flight that was submitted before they were fetched (see
    /// [`LogStore::writes_submitted`]): a partition's start is then the
    /// smallest of its end offset and the first offsets of the entries held
    /// here, since every record written later lands at or after that end.
    pub fn marker(&mut self, end_offsets: &[u64]) -> Result<LogMarker> {
        self.open()?;
        let lineage = self.require_lineage()?;
        if end_offsets.len() != self.positions.len() {
            return Err(Error::InvalidArgument(format!(
                "{} end offsets for the {} partitions of {}",
                end_offsets.len(),
                self.positions.len(),
                self.sink.name()
            )));
        }
        self.flush()?;
        let mut starts = end_offsets.to_vec();
        for entry in self.entries.values() {
            let start = &mut starts[self.layout.partition_of(entry.key_group) as usize];
            *start = (*start).min(entry.first_offset);
        }
        Ok(LogMarker { lineage, layout: self.layout, positions: self.positions.clone(), starts })
    }

    /// Writes submitted so far (a sequence number): a marker waits until
    /// none submitted before its end offsets were fetched is in flight
    /// ([`LogStore::settled_before`]).
    pub fn writes_submitted(&self) -> u64 {
        self.next_write
    }

    /// Whether every write with a sequence number below `write` settled.
    pub fn settled_before(&self, write: u64) -> bool {
        self.writing.values().all(|(seq, _)| *seq >= write)
    }

    /// Per partition, the offset loading reads from: 0, or after a restore
    /// the smallest start of its markers.
    pub fn read_from(&self) -> &[u64] {
        &self.read_from
    }

    /// Starts loading `range`: returns the partitions to read from their
    /// start to the end offsets the caller fetched first, handing every
    /// record to [`LogStore::ingest`], then [`LogStore::finish_load`].
    pub fn begin_load(&mut self, range: KeyGroupRange) -> Result<Vec<u32>> {
        self.open()?;
        self.require_lineage()?;
        let range = KeyGroupRange::new(range.first, range.last, &self.layout)?;
        if let Some(loaded) = self.loaded.iter().find(|loaded| loaded.overlaps(&range)) {
            return Err(Error::IllegalState(format!("key groups {range} overlap {loaded}, which is loaded already")));
        }
        Ok(self.layout.partitions_of(range))
    }

    /// Applies one record read from the log while loading `range`: records
    /// of other lineages and key groups are skipped; a tombstone removes
    /// its entry. A record that does not decode, or a delta without its
    /// entry, is `StoreCorrupt` naming the partition and offset.
    pub fn ingest(&mut self, range: KeyGroupRange, partition: u32, offset: u64, key: &[u8], value: Option<&[u8]>) -> Result<()> {
        self.open()?;
        let lineage = self.require_lineage()?;
        if partition >= self.layout.partitions {
            return Err(Error::InvalidArgument(format!("partition {partition} of a {}-partition log", self.layout.partitions)));
        }
        let corrupt = |reason: String| Error::StoreCorrupt {
            path: PathBuf::from(format!("{} partition {partition}", self.sink.name())),
            offset,
            reason,
        };
        let (record_lineage, key_group) = record_key::prefix(key).map_err(|e| corrupt(format!("record key: {e}")))?;
        if record_lineage != lineage || !range.contains(key_group) {
            return Ok(());
        }
        if key_group >= self.layout.max_parallelism || self.layout.partition_of(key_group) != partition {
            return Err(corrupt(format!("key group {key_group} does not belong in this partition")));
        }
        let (state_key, ordinal) = record_key::entry(key).map_err(|e| corrupt(format!("record key: {e}")))?;
        // A business key may have entries in two key groups: the one a caller
        // names (`bind_named_key_group`) and the one of its hash, where an
        // earlier build put them. Each entry keeps its own key group.
        self.key_groups.entry(state_key.business_key.clone()).or_insert(key_group);
        let Some(value) = value else {
            self.forget(&state_key);
            self.stats.records_loaded += 1;
            return Ok(());
        };
        let bytes = (key.len() + value.len()) as u64;
        match record::decode(value).map_err(|e| corrupt(format!("record: {e}")))? {
            Record::Put { key: stored, state } if stored == state_key => self.table.put(&state_key, state, bytes),
            Record::Change { key: stored, change } if stored == state_key => {
                self.table.apply(&state_key, change.as_change(), bytes).map_err(&corrupt)?;
            }
            other => return Err(corrupt(format!("unexpected record for {state_key:?}: {other:?}"))),
        }
        let entry = self.entries.entry(state_key).or_insert(EntryLog { key_group, records: 0, first_offset: offset });
        entry.records = entry.records.max(ordinal + 1);
        entry.first_offset = entry.first_offset.min(offset);
        self.stats.records_loaded += 1;
        Ok(())
    }

    /// Ends loading `range`: its entries are served from now on.
    pub fn finish_load(&mut self, range: KeyGroupRange) -> Result<()> {
        self.open()?;
        self.require_lineage()?;
        self.loaded.push(KeyGroupRange::new(range.first, range.last, &self.layout)?);
        Ok(())
    }

    /// Names the key group of a business key (Flink's, from the Java key's
    /// hash and the max parallelism) before an operation on it. Returns the
    /// partition to load it from when the key group is not loaded yet (a
    /// key of another subtask's range, which Flink hands over after a
    /// rescale with an async operator's in-flight records). A business key
    /// whose entries are in another key group is refused: the key's hash or
    /// the max parallelism changed, and its journals would be lost.
    pub fn bind_key_group(&mut self, business_key: &BusinessKey, key_group: u32) -> Result<Option<u32>> {
        self.open()?;
        self.layout.check_key_group(key_group)?;
        match self.key_groups.get(business_key) {
            Some(bound) if *bound != key_group => {
                return Err(Error::IllegalState(format!(
                    "business key {business_key:?} has entries in key group {bound} but is now in key group \
                     {key_group}: its hashCode or the max parallelism changed"
                )));
            }
            Some(_) => {}
            None => {
                self.key_groups.insert(business_key.clone(), key_group);
            }
        }
        Ok(self.partition_to_load(key_group))
    }

    /// [`LogStore::bind_key_group`] for a key group the caller names instead
    /// of one from the business key's hash (Java's `GroupedKey`: Flink
    /// Agents' adapter files a Flink key's entries under the key's text, in
    /// the Flink key's key group). The key's new entries go to it. Entries
    /// of the key this store holds in another key group (an earlier build
    /// put a text's entries in the text's key group) stay there and are
    /// still found, until pruned.
    pub fn bind_named_key_group(&mut self, business_key: &BusinessKey, key_group: u32) -> Result<Option<u32>> {
        self.open()?;
        self.layout.check_key_group(key_group)?;
        self.key_groups.insert(business_key.clone(), key_group);
        Ok(self.partition_to_load(key_group))
    }

    /// None when `key_group` is loaded, else the partition to load it from.
    fn partition_to_load(&self, key_group: u32) -> Option<u32> {
        if self.is_loaded(key_group) {
            None
        } else {
            Some(self.layout.partition_of(key_group))
        }
    }

    fn is_loaded(&self, key_group: u32) -> bool {
        self.loaded.iter().any(|range| range.contains(key_group))
    }

    /// Drops the entries of `business_key` at exactly `seq` (every action
    /// and event). What an operator whose records of one key may run in
    /// several subtasks prunes with, so it never drops another subtask's.
    pub fn prune_entries_at(&mut self, business_key: &BusinessKey, seq: i64) -> Result<()> {
        self.open()?;
        let keys = self.keys_of(business_key, |s| s == seq);
        self.remove(keys, true)
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

    /// The key group a write to `key` goes to: its entry's, else the bound one.
    fn key_group_for_write(&self, key: &StateKey) -> Result<u32> {
        let key_group = match self.entries.get(key) {
            Some(entry) => entry.key_group,
            None => *self.key_groups.get(&key.business_key).ok_or_else(|| {
                Error::IllegalState(format!("no key group bound for business key {:?}", key.business_key))
            })?,
        };
        if !self.is_loaded(key_group) {
            return Err(Error::IllegalState(format!("key group {key_group} is not loaded; load it before using it")));
        }
        Ok(key_group)
    }

    fn record(&self, lineage: &Lineage, key_group: u32, key: &StateKey, ordinal: u64, value: Option<Vec<u8>>) -> LogRecord {
        LogRecord {
            partition: self.layout.partition_of(key_group),
            key: record_key::encode(lineage, key_group, key, ordinal),
            value,
        }
    }

    /// Submits the pending tombstones and `record` as one batch. When the
    /// submission itself fails, the tombstones stay pending (appending one
    /// twice is harmless).
    fn submit(&mut self, record: Option<LogRecord>) -> Result<(Box<dyn Acknowledgement>, Vec<LogRecord>)> {
        let mut batch = std::mem::take(&mut self.pending);
        batch.extend(record);
        crash_point!("log.append.before_send");
        match self.sink.submit(&batch) {
            Ok(ack) => Ok((ack, batch)),
            Err(e) => {
                self.requeue_tombstones(batch);
                Err(e)
            }
        }
    }

    /// Accounts for an acknowledged batch, or puts its tombstones back in
    /// the queue when it was not acknowledged.
    /// Returns the offset of the batch's last record (the write's own).
    fn settle(&mut self, batch: Vec<LogRecord>, acked: Result<Vec<u64>>) -> Result<u64> {
        match acked {
            Ok(offsets) if offsets.len() == batch.len() => {
                crash_point!("log.append.after_ack");
                let last = offsets.last().copied().unwrap_or(0);
                for (record, offset) in batch.iter().zip(offsets) {
                    let position = &mut self.positions[record.partition as usize];
                    *position = (*position).max(offset + 1);
                    self.stats.bytes_appended += (record.key.len() + record.value.as_ref().map_or(0, Vec::len)) as u64;
                    if record.value.is_none() {
                        self.stats.tombstones_appended += 1;
                    }
                }
                self.stats.records_appended += batch.len() as u64;
                Ok(last)
            }
            outcome => {
                let sent = batch.len();
                self.requeue_tombstones(batch);
                match outcome {
                    Err(e) => Err(e),
                    Ok(offsets) => Err(Error::IllegalState(format!(
                        "{} acknowledged {} of {sent} records",
                        self.sink.name(),
                        offsets.len(),
                    ))),
                }
            }
        }
    }

    /// Puts the tombstones of a batch that did not go out back in front of the queue.
    fn requeue_tombstones(&mut self, mut batch: Vec<LogRecord>) {
        batch.retain(|record| record.value.is_none());
        batch.append(&mut self.pending);
        self.pending = batch;
    }

    /// Appends the pending tombstones, waiting for the log (under the
    /// caller's lock: markers, syncs and closes are rare).
    fn flush(&mut self) -> Result<()> {
        self.settle_retained();
        if self.pending.is_empty() {
            return Ok(());
        }
        let (ack, batch) = self.submit(None)?;
        let acked = ack.wait();
        self.settle(batch, acked).map(|_| ())
    }

    /// Whether a write to `key` is submitted and not finished: another
    /// write or read of that entry waits for it.
    pub fn is_writing(&self, key: &StateKey) -> bool {
        self.writing.contains_key(key)
    }

    /// Writes in flight, all entries together.
    pub fn writes_in_flight(&self) -> usize {
        self.writing.len()
    }

    fn refuse_if_writing(&self, key: &StateKey) -> Result<()> {
        if self.is_writing(key) {
            return Err(Error::IllegalState(format!("a write to {key:?} is still waiting for {}", self.sink.name())));
        }
        Ok(())
    }

    /// Submits a whole-state put of `key`: step one of [`ActionStateStore::put`]
    /// without waiting for the log. Wait for the acknowledgement without
    /// the store's lock, then call [`LogStore::finish_put`].
    pub fn begin_put(&mut self, key: &StateKey, state: &ActionState) -> Result<(Box<dyn Acknowledgement>, PendingWrite)> {
        self.open()?;
        let lineage = self.require_lineage()?;
        self.refuse_if_writing(key)?;
        let key_group = self.key_group_for_write(key)?;
        let ordinal = self.entries.get(key).map_or(0, |e| e.records);
        let value = record::encode_put(key, state);
        let record = self.record(&lineage, key_group, key, ordinal, Some(value));
        let bytes = self.check_size(key, &record, true)?;
        // A failed put of an existing entry may still be in the log: its
        // ordinal is used up. A new entry's first put may reuse 0, since a
        // whole-state record supersedes whatever the failed one was.
        if let Some(entry) = self.entries.get_mut(key) {
            entry.records = ordinal + 1;
        }
        let (ack, batch) = self.submit(Some(record))?;
        self.writing.insert(key.clone(), (self.next_write, false));
        self.next_write += 1;
        Ok((ack, PendingWrite { key: key.clone(), key_group, ordinal, batch, bytes }))
    }

    /// Step two of a put: `acked` is what the acknowledgement's wait
    /// returned, `state` the state [`LogStore::begin_put`] was given.
    pub fn finish_put(&mut self, write: PendingWrite, acked: Result<Vec<u64>>, state: &ActionState) -> Result<()> {
        let PendingWrite { key, key_group, ordinal, batch, bytes } = write;
        let removed = self.writing.remove(&key).is_some_and(|(_, removed)| removed);
        let offset = self.settle(batch, acked)?;
        if !removed {
            let completing = self.completing_put(&key, state);
            self.table.put(&key, state.clone(), bytes);
            self.retain(&key, completing);
            self.key_groups.entry(key.business_key.clone()).or_insert(key_group);
            let first_offset = self.entries.get(&key).map_or(offset, |e| e.first_offset.min(offset));
            self.entries.insert(key, EntryLog { key_group, records: ordinal + 1, first_offset });
        }
        Ok(())
    }

    /// Submits one journal mutation of `key`: step one of
    /// [`ActionStateStore::apply`] (see [`LogStore::begin_put`]).
    pub fn begin_apply(&mut self, key: &StateKey, change: JournalChange<'_>) -> Result<(Box<dyn Acknowledgement>, PendingWrite)> {
        self.open()?;
        let lineage = self.require_lineage()?;
        self.refuse_if_writing(key)?;
        self.table.check(key, change).map_err(Error::IllegalState)?;
        let key_group = self.key_group_for_write(key)?;
        let ordinal = self.entries.get(key).expect("check found the entry, so it has a log").records;
        let record = self.record(&lineage, key_group, key, ordinal, Some(record::encode_change(key, change)));
        let bytes = self.check_size(key, &record, false)?;
        // Used up from here: a failed append may still be in the log.
        self.entries.get_mut(key).expect("checked above").records += 1;
        let (ack, batch) = self.submit(Some(record))?;
        self.writing.insert(key.clone(), (self.next_write, false));
        self.next_write += 1;
        Ok((ack, PendingWrite { key: key.clone(), key_group, ordinal, batch, bytes }))
    }

    /// Step two of an apply, with the change [`LogStore::begin_apply`] was given.
    pub fn finish_apply(&mut self, write: PendingWrite, acked: Result<Vec<u64>>, change: JournalChange<'_>) -> Result<()> {
        let PendingWrite { key, batch, bytes, .. } = write;
        let removed = self.writing.remove(&key).is_some_and(|(_, removed)| removed);
        self.settle(batch, acked)?;
        if removed {
            return Ok(());
        }
        let completing = self.completing_change(&key, change);
        self.table.apply(&key, change, bytes).map_err(Error::IllegalState)?;
        self.retain(&key, completing);
        Ok(())
    }

    /// Entries of `business_key` whose sequence number passes `select`.
    fn keys_of(&self, business_key: &BusinessKey, select: impl Fn(i64) -> bool) -> Vec<StateKey> {
        self.entries
            .range(first_key_of(business_key)..)
            .take_while(|(key, _)| &key.business_key == business_key)
            .filter(|(key, _)| select(key.seq))
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// Removes entries from memory; with `tombstones`, queues a tombstone
    /// for every record each of them has in the log.
    fn remove(&mut self, keys: Vec<StateKey>, tombstones: bool) -> Result<()> {
        if keys.is_empty() {
            return Ok(());
        }
        let lineage = self.require_lineage()?;
        for key in keys {
            if let Some((_, removed)) = self.writing.get_mut(&key) {
                *removed = true;
            }
            if let Some(entry) = self.entries.get(&key).copied() {
                if tombstones {
                    for ordinal in 0..entry.records {
                        let tombstone = self.record(&lineage, entry.key_group, &key, ordinal, None);
                        self.pending.push(tombstone);
                    }
                }
            }
            self.forget(&key);
        }
        Ok(())
    }

    /// Drops an entry from memory (and its business key's binding once it
    /// has no entries left).
    fn forget(&mut self, key: &StateKey) {
        self.table.remove(key);
        self.entries.remove(key);
        let has_entries = self.entries.range(first_key_of(&key.business_key)..).next().is_some_and(|(k, _)| k.business_key == key.business_key);
        if !has_entries {
            self.key_groups.remove(&key.business_key);
        }
    }
}

fn record_bytes(record: &LogRecord) -> u64 {
    (record.key.len() + record.value.as_ref().map_or(0, Vec::len)) as u64
}

/// The smallest entry address of a business key (entries sort by business
/// key, then sequence number, action and event).
fn first_key_of(business_key: &BusinessKey) -> StateKey {
    StateKey::new(business_key.clone(), i64::MIN, String::new(), EventIdentity::Occurrence(String::new()))
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

    fn prune_state(&mut self, business_key: &BusinessKey, seq_up_to: i64) -> Result<()> {
        self.open()?;
        let keys = self.keys_of(business_key, |seq| seq <= seq_up_to);
        self.remove(keys, true)
    }

    /// A log-backed store's position is a [`LogMarker`] (per-partition
    /// offsets), not a single counter: see [`LogStore::marker`]. Closed
    /// first, as every method of a closed store is.
    fn get_recovery_marker(&mut self) -> Result<RecoveryMarker> {
        self.open()?;
        Err(Error::IllegalState("a log-backed store checkpoints log markers (LogStore::marker), not store positions".into()))
    }

    /// See [`LogStore::restore`], which takes log markers.
    fn rebuild_state(&mut self, _markers: &[RecoveryMarker]) -> Result<()> {
        self.open()?;
        Err(Error::IllegalState("a log-backed store restores from log markers (LogStore::restore)".into()))
    }

    /// Appends the pending tombstones. Every other record is acknowledged
    /// by the log before the call that wrote it returns.
    fn sync(&mut self) -> Result<()> {
        self.open()?;
        self.flush()
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
        self.sink = Box::new(ClosedSink(name));
        flushed
    }
}
