//! Criterion benchmarks of the journal primitives the runtime calls on every
//! durable call: record an outcome (alone, and persisted through a
//! `SharedStore` into each of the three stores as the bindings do), replay a
//! hit, read the 4-tuple.
//! Run: `cargo bench --bench journal`.

use criterion::measurement::WallTime;
use criterion::{black_box, criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion};
use durable_journal::store::log::{KeyGroupRange, Lineage, LogLayout, LogRecord};
use durable_journal::store::{
    Acknowledged, Acknowledgement, AnyStore, BusinessKey, Durability, EventIdentity, FileStore, FileStoreOptions, LogSink,
    LogStore, MemoryStore, SharedStore, StateKey,
};
use durable_journal::{ActionState, CallResult, Error, Journal, NoPersist, Outcome, Result};

#[path = "../tests/support/memory_log.rs"]
mod memory_log;

const PAYLOAD_SIZES: [usize; 2] = [100, 10 * 1024];
/// Calls per action in the replay benchmark: a realistic agent turn.
const CALLS: usize = 16;

fn recorded_state(payload: usize) -> ActionState {
    let mut state = ActionState::default();
    for i in 0..CALLS {
        state.call_results.push(CallResult::completed(format!("tool-call:{i}"), Outcome::success(Some(vec![7u8; payload]))));
    }
    state
}

/// Times `routine` for one payload `size`, each iteration on a fresh input from `setup` (not timed).
fn bench_on_fresh_input<I, O>(group: &mut BenchmarkGroup<'_, WallTime>, size: usize, setup: impl Fn() -> I, routine: impl Fn(I) -> O) {
    group.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, _| b.iter_batched(&setup, &routine, BatchSize::SmallInput));
}

fn record(c: &mut Criterion) {
    let mut group = c.benchmark_group("record_call_completion");
    for size in PAYLOAD_SIZES {
        bench_on_fresh_input(
            &mut group,
            size,
            || (Journal::default(), vec![7u8; size]),
            |(mut journal, payload)| {
                journal.record_call_completion("tool-call:a", Outcome::success(Some(payload)), &mut NoPersist).unwrap();
                journal
            },
        );
    }
    group.finish();
}

/// Ten 100 B calls recorded by a journal over a shared store, each applied
/// to the stored entry: the per-call store work of the bindings' record
/// path (every iteration on a fresh entry, so the entry stays small). The
/// file store syncs only when asked (Java's `FileStoreOptions.osOnly()`), so
/// the disk's fsync does not drown the store's own cost; the log store
/// appends to an in-memory log that acknowledges at once, so what is timed
/// is its pipelined write (submit, wait, settle) through the shared store.
fn record_into_shared_store(c: &mut Criterion) {
    const CALLS_PER_ACTION: usize = 10;
    let dir = tempfile::tempdir().unwrap();
    let file = FileStore::open_with(dir.path(), FileStoreOptions {
        durability: Durability::GroupCommit { max_batch: usize::MAX },
        ..Default::default()
    })
    .unwrap();
    let mut log = LogStore::new(memory_log::SharedLog::new(4).sink(), LogLayout::new([7; 16], 4, 128).unwrap(), KeyGroupRange {
        first: 0,
        last: 127,
    })
    .unwrap();
    log.start_fresh(Lineage([1; 16])).unwrap();
    log.bind_key_group(&BusinessKey::Long(1), 5).unwrap();
    let stores = [
        ("record_10_calls_into_shared_memory_store", AnyStore::Memory(MemoryStore::new())),
        ("record_10_calls_into_shared_file_store", AnyStore::File(Box::new(file))),
        ("record_10_calls_into_shared_log_store", AnyStore::Log(Box::new(log))),
    ];
    let ids: Vec<String> = (0..CALLS_PER_ACTION).map(|i| format!("tool-call:{i}")).collect();
    for (name, store) in stores {
        let store = SharedStore::new(store);
        let mut seq = 0;
        c.bench_function(name, |b| {
            b.iter_batched(
                || {
                    seq += 1;
                    let key = StateKey::new(BusinessKey::Long(1), seq, "act", EventIdentity::Occurrence("occ".into()));
                    store.open_journal(key, None).unwrap()
                },
                |(mut journal, mut persister)| {
                    for id in &ids {
                        journal.record_call_completion(id, Outcome::success(Some(vec![7u8; 100])), &mut persister).unwrap();
                    }
                    journal
                },
                BatchSize::SmallInput,
            )
        });
    }
}

fn replay(c: &mut Criterion) {
    let mut group = c.benchmark_group("replay_hit");
    for size in PAYLOAD_SIZES {
        let state = recorded_state(size);
        bench_on_fresh_input(
            &mut group,
            size,
            || Journal::new(state.clone()),
            |mut journal| {
                for i in 0..CALLS {
                    black_box(journal.match_next_or_clear_subsequent(&format!("tool-call:{i}")).unwrap());
                }
                journal
            },
        );
    }
    group.finish();
}

fn read_fields(c: &mut Criterion) {
    let mut group = c.benchmark_group("read_call_result_fields");
    for size in PAYLOAD_SIZES {
        let journal = Journal::new(recorded_state(size));
        group.bench_with_input(BenchmarkId::from_parameter(size), &size, |b, _| {
            b.iter(|| {
                let slot = journal.call_result_at(black_box(CALLS / 2)).unwrap();
                // What the bridge hands to Java: the id, the status and copies of the payloads.
                black_box((slot.call_id.as_ref().map(|id| id.as_wtf8().to_vec()), slot.effective_status().as_str(), slot.result_payload.clone(), slot.exception_payload.clone()))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, record, record_into_shared_store, replay, read_fields);
criterion_main!(benches);
