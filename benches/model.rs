//! Criterion benchmarks of reading and writing an ActionState whose opaque
//! bodies (task event, output events) are large: what every recovery
//! (`new DurableExecutionContext(state, ...)`, a store `get`) and every
//! persisted snapshot pays.
//! Run: `cargo bench --bench model`.
//!
//! `from_json` / `to_json` are this library's (bodies kept as JSON text);
//! `value_tree` parses and writes the same document as a `serde_json::Value`
//! tree, the representation the model used before, as the baseline of the
//! same run.

use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use durable_journal::ActionState;

/// Approximate size of the opaque bodies of one record.
const BODY_SIZES: [usize; 3] = [1024, 64 * 1024, 1024 * 1024];
const CALLS: usize = 16;

/// A body like an agent's event: records of numbers and text.
fn body(bytes: usize, seed: usize) -> String {
    let mut items = Vec::new();
    let mut len = 0;
    let mut i = seed;
    while len < bytes {
        let item = format!(
            r#"{{"id":{i},"score":0.{:017},"big":1844674407370955{:04},"text":"document {i}: \uD83D\uDE00 and \u00e9 ok","tags":["a","b",{}]}}"#,
            (i * 7_919) % 100_000_000_000_000_000,
            i % 10_000,
            i.is_multiple_of(3)
        );
        len += item.len() + 1;
        items.push(item);
        i += 1;
    }
    format!(r#"{{"@class":"org.example.InputEvent","items":[{}]}}"#, items.join(","))
}

fn document(body_bytes: usize) -> Vec<u8> {
    let outputs: Vec<String> = (0..4).map(|k| body(body_bytes / 8, 1_000 * (k + 1))).collect();
    let slots: Vec<String> = (0..CALLS)
        .map(|i| format!(r#"{{"functionId":"tool-call:{i}","argsDigest":"","status":"SUCCEEDED","resultPayload":"{}","exceptionPayload":null}}"#, "QUJD".repeat(64)))
        .collect();
    format!(
        r#"{{"taskEvent":{},"sensoryMemoryUpdates":[],"shortTermMemoryUpdates":[],"outputEvents":[{}],"callResults":[{}],"completed":false}}"#,
        body(body_bytes / 2, 0),
        outputs.join(","),
        slots.join(",")
    )
    .into_bytes()
}

fn parse(c: &mut Criterion) {
    let mut group = c.benchmark_group("parse_action_state");
    for size in BODY_SIZES {
        let json = document(size);
        group.throughput(Throughput::Bytes(json.len() as u64));
        group.bench_with_input(BenchmarkId::new("from_json", size), &json, |b, json| {
            b.iter(|| ActionState::from_json(black_box(json)).unwrap())
        });
        group.bench_with_input(BenchmarkId::new("value_tree", size), &json, |b, json| {
            b.iter(|| serde_json::from_slice::<serde_json::Value>(black_box(json)).unwrap())
        });
    }
    group.finish();
}

/// [`document`] of `size`, as our ActionState and as serde_json's value tree.
fn parsed_document(size: usize) -> (Vec<u8>, ActionState, serde_json::Value) {
    let json = document(size);
    let state = ActionState::from_json(&json).unwrap();
    let tree = serde_json::from_slice(&json).unwrap();
    (json, state, tree)
}

fn serialize(c: &mut Criterion) {
    let mut group = c.benchmark_group("serialize_action_state");
    for size in BODY_SIZES {
        let (json, state, tree) = parsed_document(size);
        group.throughput(Throughput::Bytes(json.len() as u64));
        group.bench_with_input(BenchmarkId::new("to_json", size), &state, |b, state| b.iter(|| black_box(state).to_json()));
        group.bench_with_input(BenchmarkId::new("value_tree", size), &tree, |b, tree| {
            b.iter(|| serde_json::to_vec(black_box(tree)).unwrap())
        });
    }
    group.finish();
}

fn copy(c: &mut Criterion) {
    // What a journal snapshot and a store get/put pay besides the codec.
    let mut group = c.benchmark_group("clone_action_state");
    for size in BODY_SIZES {
        let (_, state, tree) = parsed_document(size);
        group.bench_with_input(BenchmarkId::new("state", size), &state, |b, state| b.iter(|| black_box(state).clone()));
        group.bench_with_input(BenchmarkId::new("value_tree", size), &tree, |b, tree| b.iter(|| black_box(tree).clone()));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(30).measurement_time(std::time::Duration::from_secs(3));
    targets = parse, serialize, copy
}
criterion_main!(benches);
