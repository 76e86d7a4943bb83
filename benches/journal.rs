//! Criterion benchmarks of the journal primitives the runtime calls on every
//! durable call: record an outcome (alone, and persisted into a shared
//! in-memory store as the Flink Agents adapter does), replay a hit, read the
//! 4-tuple.
//! Run: `cargo bench --bench journal`.

use criterion::measurement::WallTime;
use criterion::{black_box, criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion};
use durable_journal::store::{AnyStore, BusinessKey, EventIdentity, MemoryStore, SharedStore, StateKey};
use durable_journal::{ActionState, CallResult, Journal, NoPersist, Outcome};

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

/// Ten 100 B calls recorded by a journal over a shared in-memory store, each
/// applied to the stored entry: the per-call store work of the adapter's
/// record path (every iteration on a fresh entry, so the entry stays small).
fn record_into_shared_store(c: &mut Criterion) {
    const CALLS_PER_ACTION: usize = 10;
    let store = SharedStore::new(AnyStore::Memory(MemoryStore::new()));
    let ids: Vec<String> = (0..CALLS_PER_ACTION).map(|i| format!("tool-call:{i}")).collect();
    let mut seq = 0;
    c.bench_function("record_10_calls_into_shared_memory_store", |b| {
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
                black_box((slot.function_id.as_ref().map(|id| id.as_wtf8().to_vec()), slot.effective_status().as_str(), slot.result_payload.clone(), slot.exception_payload.clone()))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, record, record_into_shared_store, replay, read_fields);
criterion_main!(benches);
