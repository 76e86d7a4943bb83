//! Benchmarks of the file store.
//! Run: `cargo bench --bench store`.
//!
//! First prints the bytes written per action with n = 1, 10, 100, 1000
//! calls of 1 KB: the file store on the journal path (one delta record per
//! call), the file store driven by Flink Agents 0.3.1's whole-state puts
//! (n + 2 puts, each with the whole ActionState so far), and what Flink
//! Agents' own store writes for those puts (each state whole, as JSON).
//! Then measures appends per second of a 1 KB call record with an fsync per
//! put and with group commit, and the cost of a whole-state put in memory
//! against parsing that state's JSON, which every such put pays first.
//! Last, the reopening of a store holding in-flight actions (what a
//! restarted task's `rebuildState` pays before it replays them).

use std::time::{Duration, Instant};

use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use durable_journal::store::{
    ActionStateStore, BusinessKey, Durability, EventIdentity, FileStore, FileStoreOptions, MemoryStore, StateKey,
};
use durable_journal::{ActionState, JournalChange};

#[path = "../tests/support/action_bytes.rs"]
mod action_bytes;

use action_bytes::{action_key as key, initial_state, slot, PAYLOAD};

const CALL_COUNTS: [usize; 4] = [1, 10, 100, 1000];
const BATCH: Durability = Durability::GroupCommit { max_batch: 1024 };

fn journal_path_bytes(n: usize) -> u64 {
    action_bytes::file_store_bytes(n, false, BATCH)
}

fn whole_state_put_bytes(n: usize) -> u64 {
    action_bytes::whole_state_put_bytes(n, false, BATCH)
}

fn print_bytes_table() {
    let (journal_base, puts_base) = (journal_path_bytes(0), whole_state_put_bytes(0));
    println!("bytes written per action with n calls of {PAYLOAD} B");
    println!("  journal path: initial put, one record per call, completion ({journal_base} B without calls)");
    println!("  whole-state puts: Flink Agents 0.3.1's n + 2 puts, the last with a memory update and an output ({puts_base} B without calls)");
    println!("  Flink Agents: the same n + 2 states, each serialized whole (what its store sends)");
    println!(
        "{:>6} | {:>12} | {:>16} | {:>14} | {:>14} | {:>8}",
        "n", "journal path", "whole-state puts", "per extra call", "Flink Agents", "ratio"
    );
    for n in CALL_COUNTS {
        let (journal, puts) = (journal_path_bytes(n), whole_state_put_bytes(n));
        let theirs = action_bytes::whole_state_put_json_bytes(n, false);
        println!(
            "{n:>6} | {journal:>12} | {puts:>16} | {:>14} | {theirs:>14} | {:>7.1}x",
            (puts - puts_base) / n as u64,
            theirs as f64 / puts as f64
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
        // Java's FileStoreOptions.osOnly(): no batch is ever full, only markers fsync.
        ("os_only", Durability::GroupCommit { max_batch: usize::MAX }),
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

/// The state after `n` calls.
fn state_with_calls(n: usize) -> ActionState {
    let mut state = initial_state();
    state.call_results.extend((0..n).map(slot));
    state
}

/// One whole-state put that appends call n to a stored entry of n - 1
/// calls, in memory (so no I/O is timed): the comparison with the stored
/// entry and the delta's application. Against parsing the put state's JSON,
/// which the JNI `put` does before it, measured in the same run.
fn whole_state_put_cost(c: &mut Criterion) {
    let mut group = c.benchmark_group("whole_state_put");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(3));
    for n in [10, 100, 1000] {
        let (before, after) = (state_with_calls(n - 1), state_with_calls(n));
        let k = key(1);
        group.bench_function(BenchmarkId::new("diff_and_apply", n), |b| {
            b.iter_batched_ref(
                || {
                    let mut store = MemoryStore::new();
                    store.put(&k, &before).unwrap();
                    store
                },
                |store| store.put(&k, &after).unwrap(),
                BatchSize::LargeInput,
            )
        });
        let json = after.to_json();
        group.bench_function(BenchmarkId::new("parse_json_baseline", n), |b| {
            b.iter(|| ActionState::from_json(&json).unwrap())
        });
    }
    group.finish();
}

/// Reopening a store of `actions` in-flight actions, each of one key and
/// 10 calls of `payload` bytes (the Flink Agents recovery benchmark's shape):
/// the segments read back and every record applied to the table.
fn reopen_in_flight(c: &mut Criterion) {
    let mut group = c.benchmark_group("reopen_in_flight");
    group.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(5));
    for (actions, payload) in [(1000usize, 100usize), (1000, 10240)] {
        let dir = tempfile::tempdir().unwrap();
        let options = FileStoreOptions { durability: Durability::GroupCommit { max_batch: usize::MAX }, ..Default::default() };
        {
            let mut store = FileStore::open_with(dir.path(), options).unwrap();
            for action in 0..actions {
                let key = StateKey::new(BusinessKey::Str(format!("user-{action}")), 1, "process", EventIdentity::Occurrence(format!("occ-{action}")));
                store.put(&key, &initial_state()).unwrap();
                for call in 0..10 {
                    let slot = durable_journal::CallResult::completed(action_bytes::slot_id(call), durable_journal::Outcome::success(Some(vec![b'x'; payload])));
                    store.apply(&key, JournalChange::Put { index: call, slot: &slot }).unwrap();
                }
            }
            store.sync().unwrap();
        }
        group.throughput(Throughput::Elements(actions as u64));
        group.bench_function(BenchmarkId::new(format!("{actions}_actions"), format!("{payload}B")), |b| {
            b.iter(|| FileStore::open_with(dir.path(), options).unwrap())
        });
    }
    group.finish();
}

fn main() {
    print_bytes_table();
    let mut criterion = Criterion::default().configure_from_args();
    append_throughput(&mut criterion);
    whole_state_put_cost(&mut criterion);
    reopen_in_flight(&mut criterion);
    criterion.final_summary();
}
