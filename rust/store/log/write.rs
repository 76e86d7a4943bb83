//! A log store's writes: each put or journal change submitted to the sink
//! as one record (behind the pending tombstones), then settled once the log
//! acknowledged it, so the caller can wait without the store's lock; and
//! the removal of entries, which queues their tombstones.

use super::{record_key, Acknowledgement, EntryLog, Lineage, LogRecord, LogStore};
use crate::error::{Error, Result};
use crate::journal::JournalChange;
use crate::model::ActionState;
use crate::store::key::{BusinessKey, EventIdentity, StateKey};
use crate::store::record;

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

impl LogStore {
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
    pub(super) fn flush(&mut self) -> Result<()> {
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

    pub(super) fn refuse_if_writing(&self, key: &StateKey) -> Result<()> {
        if self.is_writing(key) {
            return Err(Error::IllegalState(format!("a write to {key:?} is still waiting for {}", self.sink.name())));
        }
        Ok(())
    }

    /// Submits a whole-state put of `key`: step one of [`ActionStateStore::put`](super::ActionStateStore::put)
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
    /// [`ActionStateStore::apply`](super::ActionStateStore::apply) (see [`LogStore::begin_put`]).
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
    pub(super) fn keys_of(&self, business_key: &BusinessKey, select: impl Fn(i64) -> bool) -> Vec<StateKey> {
        self.entries
            .range(first_key_of(business_key)..)
            .take_while(|(key, _)| &key.business_key == business_key)
            .filter(|(key, _)| select(key.seq))
            .map(|(key, _)| key.clone())
            .collect()
    }

    /// Removes entries from memory; with `tombstones`, queues a tombstone
    /// for every record each of them has in the log.
    pub(super) fn remove(&mut self, keys: Vec<StateKey>, tombstones: bool) -> Result<()> {
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
    pub(super) fn forget(&mut self, key: &StateKey) {
        self.table.remove(key);
        self.entries.remove(key);
        let has_entries = self.entries.range(first_key_of(&key.business_key)..).next().is_some_and(|(k, _)| k.business_key == key.business_key);
        if !has_entries {
            self.key_groups.remove(&key.business_key);
        }
    }
}

/// The smallest entry address of a business key (entries sort by business
/// key, then sequence number, action and event).
fn first_key_of(business_key: &BusinessKey) -> StateKey {
    StateKey::new(business_key.clone(), i64::MIN, String::new(), EventIdentity::Occurrence(String::new()))
}
