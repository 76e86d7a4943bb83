//! Benchmark of the log-backed store's load: what a restarted task with the
//! Kafka store pays in Rust before its in-flight actions replay, every
//! record of its key groups read back from the log and applied to the
//! table. The log is the tests' in-memory one, so only the store's own work
//! is timed, not Kafka's consumer.
//! Run: `cargo bench --bench log_store`.

use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput};
use durable_journal::store::log::{KeyGroupRange, Lineage, LogLayout, LogRecord};
use durable_journal::store::{
    Acknowledged, Acknowledgement, ActionStateStore, BusinessKey, EventIdentity, LogSink, LogStore, RecoveryMarker, StateKey,
};
use durable_journal::{CallResult, Error, JournalChange, Outcome, Result};

#[path = "../tests/support/action_bytes.rs"]
mod action_bytes;
#[path = "../tests/support/memory_log.rs"]
mod memory_log;

use action_bytes::initial_state;
use memory_log::SharedLog;

const PARTITIONS: u32 = 3;
const MAX_PARALLELISM: u32 = 8;
const ALL: KeyGroupRange = KeyGroupRange { first: 0, last: MAX_PARALLELISM - 1 };

fn layout() -> LogLayout {
    LogLayout::new([9; 16], PARTITIONS, MAX_PARALLELISM).unwrap()
}

/// A log holding `actions` in-flight actions of 10 calls of `payload` bytes
/// each (the Flink Agents recovery benchmark's shape), and the marker a
/// checkpoint took after them.
fn log_in_flight(actions: usize, payload: usize) -> (SharedLog, RecoveryMarker) {
    let log = SharedLog::new(PARTITIONS);
    let mut store = LogStore::new(log.sink(), layout(), ALL).unwrap();
    store.start_fresh(Lineage([1; 16])).unwrap();
    for action in 0..actions {
        let business_key = BusinessKey::Str(format!("user-{action}"));
        store.bind_key_group(&business_key, action as u32 % MAX_PARALLELISM).unwrap();
        let key = StateKey::new(business_key, 1, "process", EventIdentity::Occurrence(format!("occ-{action}")));
        store.put(&key, &initial_state()).unwrap();
        for call in 0..10 {
            let slot = CallResult::completed(action_bytes::slot_id(call), Outcome::success(Some(vec![b'x'; payload])));
            store.apply(&key, JournalChange::Put { index: call, slot: &slot }).unwrap();
        }
    }
    let marker = store.get_recovery_marker().unwrap();
    (log, marker)
}

/// A store restored from `marker` and loaded with every record of `log`.
fn restore_and_load(log: &SharedLog, marker: &RecoveryMarker) -> LogStore {
    let mut store = LogStore::new(log.sink(), layout(), ALL).unwrap();
    store.rebuild_state(std::slice::from_ref(marker)).unwrap();
    let partitions = store.begin_load(ALL).unwrap();
    let from = store.read_from().to_vec();
    let inner = log.0.lock().unwrap();
    for partition in partitions {
        for (offset, key, value) in &inner.partitions[partition as usize].records {
            if *offset >= from[partition as usize] {
                store.ingest(ALL, partition, *offset, key, value.as_deref()).unwrap();
            }
        }
    }
    store.finish_load(ALL).unwrap();
    store
}

fn load_in_flight(c: &mut Criterion) {
    let mut group = c.benchmark_group("log_load_in_flight");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    for (actions, payload) in [(1000usize, 100usize), (1000, 10240)] {
        let (log, marker) = log_in_flight(actions, payload);
        group.throughput(Throughput::Elements(actions as u64));
        group.bench_function(BenchmarkId::new(format!("{actions}_actions"), format!("{payload}B")), |b| {
            b.iter(|| restore_and_load(&log, &marker))
        });
    }
    group.finish();
}

fn main() {
    let mut criterion = Criterion::default().configure_from_args();
    load_in_flight(&mut criterion);
    criterion.final_summary();
}
