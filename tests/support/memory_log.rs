//! An in-memory partitioned log that behaves as Kafka does where the
//! log-backed store cares: offsets per partition that never repeat,
//! compaction by record key (with and without the tombstones still there),
//! and appends that fail, before or after reaching the log.
//!
//! Shared by the log store's own tests (`rust/store/log/tests.rs`, inside the
//! crate) and the store contract (`tests/store_contract/log.rs`, outside it):
//! each includer imports the log API this file names from `super`, through
//! `crate::` or `durable_journal::` as it can.
#![allow(dead_code)] // each includer uses a part

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use super::{Acknowledged, Acknowledgement, Error, KeyGroupRange, LogRecord, LogSink, LogStore, Result};

#[derive(Clone, Copy, PartialEq)]
pub enum Outage {
    None,
    /// Nothing reaches the log.
    Refused,
    /// Everything reaches the log, but the acknowledgement is lost.
    AckLost,
}

/// A record in the log: offset, key, and value (`None`: a tombstone).
pub type Stored = (u64, Vec<u8>, Option<Vec<u8>>);

#[derive(Default)]
pub struct Partition {
    pub next_offset: u64,
    pub records: Vec<Stored>,
}

pub struct MemLog {
    pub partitions: Vec<Partition>,
    outage: Outage,
}

/// The log, shared by every store (and sink) over it.
#[derive(Clone)]
pub struct SharedLog(pub Arc<Mutex<MemLog>>);

impl SharedLog {
    pub fn new(partitions: u32) -> SharedLog {
        let partitions = (0..partitions).map(|_| Partition::default()).collect();
        SharedLog(Arc::new(Mutex::new(MemLog { partitions, outage: Outage::None })))
    }

    pub fn set_outage(&self, outage: Outage) {
        self.0.lock().unwrap().outage = outage;
    }

    pub fn end_offsets(&self) -> Vec<u64> {
        self.0.lock().unwrap().partitions.iter().map(|p| p.next_offset).collect()
    }

    pub fn record_count(&self) -> usize {
        self.0.lock().unwrap().partitions.iter().map(|p| p.records.len()).sum()
    }

    /// Kafka's log compaction: only the newest record of each key is kept;
    /// with `drop_tombstones`, the tombstones too are gone (as once
    /// `delete.retention.ms` has passed). Offsets do not change.
    pub fn compact(&self, drop_tombstones: bool) {
        let mut log = self.0.lock().unwrap();
        for partition in &mut log.partitions {
            let mut newest = HashSet::new();
            let mut kept = Vec::new();
            for (offset, key, value) in partition.records.iter().rev() {
                if newest.insert(key.clone()) && !(drop_tombstones && value.is_none()) {
                    kept.push((*offset, key.clone(), value.clone()));
                }
            }
            kept.reverse();
            partition.records = kept;
        }
    }

    pub fn sink(&self) -> Box<dyn LogSink> {
        Box::new(self.clone())
    }

    /// Appends `records` at once; with the acknowledgement lost, they are in
    /// the log all the same and the caller hears of a failure.
    pub fn store_now(&mut self, records: &[LogRecord]) -> Result<Vec<u64>> {
        let mut log = self.0.lock().unwrap();
        let offsets = records
            .iter()
            .map(|r| {
                let partition = &mut log.partitions[r.partition as usize];
                let offset = partition.next_offset;
                partition.next_offset += 1;
                partition.records.push((offset, r.key.clone(), r.value.clone()));
                offset
            })
            .collect();
        if log.outage == Outage::AckLost {
            return Err(Error::StoreIo { path: "memory log".into(), source: std::io::Error::other("ack lost") });
        }
        Ok(offsets)
    }
}

impl LogSink for SharedLog {
    fn submit(&mut self, records: &[LogRecord]) -> Result<Box<dyn Acknowledgement>> {
        if self.0.lock().unwrap().outage == Outage::Refused {
            return Err(Error::StoreIo { path: "memory log".into(), source: std::io::Error::other("unreachable") });
        }
        Ok(Box::new(Acknowledged(self.store_now(records))))
    }

    fn end_offsets(&mut self) -> Result<Vec<u64>> {
        Ok(SharedLog::end_offsets(self))
    }

    fn name(&self) -> &str {
        "memory log"
    }
}

/// Reads every partition holding `range` from where the store says (its
/// start, or its markers' smallest start) and hands the records to the
/// store, as the Kafka transport's consumer does.
pub fn load(store: &mut LogStore, log: &SharedLog, range: KeyGroupRange) {
    let partitions = store.begin_load(range).unwrap();
    let from = store.read_from().to_vec();
    let records: Vec<(u32, Stored)> = {
        let log = log.0.lock().unwrap();
        partitions
            .iter()
            .flat_map(|p| log.partitions[*p as usize].records.iter().map(move |record| (*p, record.clone())))
            .filter(|(p, (offset, _, _))| *offset >= from[*p as usize])
            .collect()
    };
    for (partition, (offset, key, value)) in records {
        store.ingest(range, partition, offset, &key, value.as_deref()).unwrap();
    }
    store.finish_load(range).unwrap();
}
