//! Opt-in retention of completed actions for the log store (`docs/replay.md`,
//! "Retention on Kafka"): a copy of each action as it completes, with its
//! journal, for a replayer to run a changed agent against after the
//! checkpoint prune removed the live entry.
//!
//! The copies go to a log of their own (a second Kafka topic, the *retained
//! topic*), never to the journal's: the journal topic holds exactly the
//! records it holds without retention, a restore never reads a copy, and
//! pruning a live entry never waits for one.
//!
//! A copy's value is the file store's retained record (`encode_retained`:
//! number, completion time, plan digest, key, state): one codec for both
//! stores. Its key is `[format u8][lineage 16 B][writer 16 B][slot u64]`,
//! where the writer names one store instance and the slot is the copy's
//! number modulo the count bound. A compacted topic keeps the newest record
//! of each key, so a writer never has more than `max_count` copies kept,
//! the oldest overwritten first; the topic's `retention.ms` (the age bound)
//! deletes what is older. Readers apply the same rule to whatever
//! compaction has not removed yet ([`read_retained_records`]), so the count
//! bound holds exactly for what they list, before compaction too.
//!
//! Copies are handed to the log when the action's completing write is
//! acknowledged and waited for at the store's syncs (markers, close): a
//! lost copy costs a replay input, never a live journal. A copy that is
//! refused stops retention (the reason is kept), never the store.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;

use super::inspect::DumpedRecord;
use super::{Acknowledgement, Lineage, LogRecord, LogSink, LogStore};
use crate::error::{Error, Result};
use crate::journal::JournalChange;
use crate::model::ActionState;
use crate::store::file::{completed_copy, decode_retained, encode_retained, now_millis, RetainedAction, RetentionPolicy};
use crate::store::key::StateKey;

const FORMAT: u8 = 1;
const KEY_LEN: usize = 1 + 16 + 16 + 8;
/// Copies handed over and not yet waited for, at most: past this the oldest
/// is waited for (it is long acknowledged by then).
const MAX_UNSETTLED: usize = 1024;

/// The key of a retained copy (see the module docs).
pub fn copy_key(lineage: &Lineage, writer: &[u8; 16], slot: u64) -> Vec<u8> {
    let mut key = Vec::with_capacity(KEY_LEN);
    key.push(FORMAT);
    key.extend_from_slice(&lineage.0);
    key.extend_from_slice(writer);
    key.extend_from_slice(&slot.to_be_bytes());
    key
}

/// Counters of the copies a store handed to its retained log.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RetentionStats {
    pub copies: u64,
    /// Keys and values of the copies.
    pub bytes: u64,
}

/// Where and how a log store keeps its completed actions.
pub struct LogRetention {
    sink: Box<dyn LogSink>,
    policy: RetentionPolicy,
    writer: [u8; 16],
    partition: u32,
    plan_digest: Option<String>,
    next_number: u64,
    last_millis: i64,
    unsettled: VecDeque<Box<dyn Acknowledgement>>,
    clock: fn() -> i64,
    stats: RetentionStats,
}

impl LogRetention {
    /// Copies go to `sink`, partition `partition`, under keys of `writer`
    /// (16 bytes naming this store instance: two stores never share one).
    pub fn new(sink: Box<dyn LogSink>, policy: RetentionPolicy, writer: [u8; 16], partition: u32, plan_digest: Option<String>) -> Result<LogRetention> {
        policy.check()?;
        Ok(LogRetention {
            sink,
            policy,
            writer,
            partition,
            plan_digest,
            next_number: 0,
            last_millis: i64::MIN,
            unsettled: VecDeque::new(),
            clock: now_millis,
            stats: RetentionStats::default(),
        })
    }

    #[cfg(test)]
    pub fn with_clock(mut self, clock: fn() -> i64) -> LogRetention {
        self.clock = clock;
        self
    }

    fn send(&mut self, lineage: &Lineage, key: &StateKey, completed: &ActionState) -> Result<()> {
        // Completion times never go backwards within a writer.
        let millis = (self.clock)().max(self.last_millis);
        let number = self.next_number;
        let record = LogRecord {
            partition: self.partition,
            key: copy_key(lineage, &self.writer, number % self.policy.max_count),
            value: Some(encode_retained(number, millis, self.plan_digest.as_deref(), key, completed)),
        };
        let bytes = (record.key.len() + record.value.as_ref().map_or(0, Vec::len)) as u64;
        let ack = self.sink.submit(std::slice::from_ref(&record))?;
        self.next_number += 1;
        self.last_millis = millis;
        self.stats.copies += 1;
        self.stats.bytes += bytes;
        self.unsettled.push_back(ack);
        if self.unsettled.len() > MAX_UNSETTLED {
            self.unsettled.pop_front().expect("more than one").wait()?;
        }
        Ok(())
    }

    /// Waits for every copy handed over so far.
    fn settle(&mut self) -> Result<()> {
        while let Some(ack) = self.unsettled.pop_front() {
            ack.wait()?;
        }
        Ok(())
    }
}

/// A log store's retention state: on, off, or stopped by a failure.
#[derive(Default)]
pub(super) struct Retaining {
    on: Option<LogRetention>,
    /// Why retention stopped; the store went on.
    error: Option<String>,
}

impl LogStore {
    /// Keeps a copy of each action that completes from now on (see the
    /// module docs). Without this call nothing is retained and nothing is
    /// written but the journal's records.
    pub fn retain_completed(&mut self, retention: LogRetention) -> Result<()> {
        self.open()?;
        self.retained.on = Some(retention);
        Ok(())
    }

    pub fn retains_completed(&self) -> bool {
        self.retained.on.is_some()
    }

    /// Why retention stopped, if a copy was refused.
    pub fn retention_error(&self) -> Option<String> {
        self.retained.error.clone()
    }

    pub fn retention_stats(&self) -> RetentionStats {
        self.retained.on.as_ref().map(|r| r.stats).unwrap_or_default()
    }

    /// The copy to retain when a put of `state` at `key` completes the action.
    pub(super) fn completing_put(&self, key: &StateKey, state: &ActionState) -> Option<ActionState> {
        self.retained.on.as_ref()?;
        completed_copy(self.table.get(key), state)
    }

    /// The copy to retain when `change` completes the action at `key`.
    pub(super) fn completing_change(&self, key: &StateKey, change: JournalChange<'_>) -> Option<ActionState> {
        self.retained.on.as_ref()?;
        let JournalChange::Complete = change else { return None };
        let stored = self.table.get(key)?;
        completed_copy(Some(stored), &ActionState { completed: true, ..stored.clone() })
    }

    /// Hands the copy of an action whose completing write was just
    /// acknowledged to the retained log.
    pub(super) fn retain(&mut self, key: &StateKey, completed: Option<ActionState>) {
        let (Some(completed), Some(lineage)) = (completed, self.lineage) else { return };
        let Some(retention) = self.retained.on.as_mut() else { return };
        if let Err(err) = retention.send(&lineage, key, &completed) {
            self.stop_retaining(err);
        }
    }

    /// Waits for the copies handed over (at syncs, markers and close).
    pub(super) fn settle_retained(&mut self) {
        if let Some(Err(err)) = self.retained.on.as_mut().map(LogRetention::settle) {
            self.stop_retaining(err);
        }
    }

    /// Settles the copies and lets the retained log go (with the store's close).
    pub(super) fn close_retained(&mut self) {
        self.settle_retained();
        self.retained.on = None;
    }

    fn stop_retaining(&mut self, err: Error) {
        if let Some(retention) = self.retained.on.take() {
            self.retained.error = Some(format!("a retained copy was not written to {}: {err}; retention stopped", retention.sink.name()));
        }
    }
}

/// The retained actions in the records of a retained log (a dump of the
/// retained topic, in the order read: partition by partition, by offset),
/// oldest first. Per record key only the newest record counts, as
/// compaction keeps it, and a tombstone drops its key; an action copied
/// twice (re-run after a crash lost the first completion) is listed once,
/// as last completed. A record that is not a retained copy is
/// `StoreCorrupt`, naming its partition and offset.
pub fn read_retained_records(records: &[DumpedRecord]) -> Result<Vec<RetainedAction>> {
    let mut newest: HashMap<&[u8], &DumpedRecord> = HashMap::new();
    for record in records {
        if record.key.len() != KEY_LEN || record.key[0] != FORMAT {
            return Err(corrupt(record, "not a retained copy's key: is this the retained topic (not the journal's)?".into()));
        }
        newest.insert(&record.key, record);
    }
    let mut copies = Vec::new();
    for record in newest.into_values() {
        let Some(value) = &record.value else { continue };
        copies.push(decode_retained(value).map_err(|e| corrupt(record, format!("retained copy: {}", e.0)))?);
    }
    copies.sort_by_key(|a| (a.completed_at_millis, a.number));
    let mut last: HashMap<StateKey, usize> = HashMap::new();
    for (i, copy) in copies.iter().enumerate() {
        last.insert(copy.key.clone(), i);
    }
    Ok(copies.into_iter().enumerate().filter(|(i, c)| last.get(&c.key) == Some(i)).map(|(_, c)| c).collect())
}

fn corrupt(record: &DumpedRecord, reason: String) -> Error {
    Error::StoreCorrupt { path: PathBuf::from(format!("retained partition {}", record.partition)), offset: record.offset, reason }
}

#[cfg(test)]
pub(crate) mod tests;
