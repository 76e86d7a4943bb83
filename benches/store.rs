//! Benchmarks of the file store.
//! Run: `cargo bench --bench store`.
//!
//! First prints the bytes written per action with n = 1, 10, 100, 1000
//! calls of 1 KB, for the file store (one delta record per call) and for
//! the Flink Agents approach (the whole ActionState as JSON after every
//! call). Then measures appends per second of a 1 KB call record with an
//! fsync per put and with group commit.

use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput};
use durable_journal::store::{ActionStateStore, Durability, FileStore, FileStoreOptions};
use durable_journal::JournalChange;

#[path = "../tests/support/action_bytes.rs"]
mod action_bytes;

use action_bytes::{action_key as key, initial_state, slot, PAYLOAD};

const CALL_COUNTS: [usize; 4] = [1, 10, 100, 1000];

fn file_store_bytes(n: usize) -> u64 {
    action_bytes::file_store_bytes(n, false, Durability::GroupCommit { max_batch: 1024 })
}

fn full_rewrite_bytes(n: usize) -> u64 {
    action_bytes::whole_state_rewrite_bytes(n)
}

fn print_bytes_table() {
    let base = file_store_bytes(0);
    println!(
        "bytes written per action with n calls of {PAYLOAD} B (file store: {base} B for the put and the completion)"
    );
    println!("{:>6} | {:>12} | {:>13} | {:>16} | {:>8}", "n", "file store", "per extra call", "full rewrite", "ratio");
    for n in CALL_COUNTS {
        let (ours, theirs) = (file_store_bytes(n), full_rewrite_bytes(n));
        println!(
            "{n:>6} | {ours:>12} | {:>14} | {theirs:>16} | {:>7.1}x",
            (ours - base) / n as u64,
            theirs as f64 / ours as f64
        );
    }
    println!();
}

/// Appends of one 1 KB call record (the pending slot at index 0 replaced
/// each time, so memory stays flat while the log grows). Each sample gets a
/// fresh store; opening it is not timed.
fn append_throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("append_1KB_call");
    group.throughput(Throughput::Elements(1));
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    let modes = [
        ("fsync_per_put", Durability::SyncEachPut),
        ("group_commit_64", Durability::GroupCommit { max_batch: 64 }),
        ("group_commit_512", Durability::GroupCommit { max_batch: 512 }),
    ];
    for (name, durability) in modes {
        group.bench_function(BenchmarkId::from_parameter(name), |b| {
            b.iter_custom(|iters| {
                let dir = tempfile::tempdir().unwrap();
                let options = FileStoreOptions { durability, ..Default::default() };
                let mut store = FileStore::open_with(dir.path(), options).unwrap();
                let k = key(1);
                store.put(&k, &initial_state()).unwrap();
                let call = slot(0);
                let started = Instant::now();
                for _ in 0..iters {
                    store.apply(&k, JournalChange::Put { index: 0, slot: &call }).unwrap();
                }
                store.sync().unwrap();
                started.elapsed()
            })
        });
    }
    group.finish();
}

fn main() {
    print_bytes_table();
    let mut criterion = Criterion::default().configure_from_args();
    append_throughput(&mut criterion);
    criterion.final_summary();
}
