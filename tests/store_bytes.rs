//! The cost of a call is O(its payload): the bytes the file store writes
//! for an action grow linearly with its number of calls, where rewriting
//! the whole ActionState per call (Flink Agents) grows quadratically.

#[path = "support/action_bytes.rs"]
mod action_bytes;

use action_bytes::{initial_state, slot, whole_state_rewrite_bytes, PAYLOAD};
use durable_journal::store::Durability;
use durable_journal::ActionState;

fn file_store_bytes(n: usize, reconcilable: bool) -> u64 {
    action_bytes::file_store_bytes(n, reconcilable, Durability::SyncEachPut)
}

/// What Flink Agents writes: the whole ActionState as JSON after every
/// call. The size of the state with `i` slots is the size of the empty
/// state plus each slot's JSON plus the commas between them, which avoids
/// serializing a gigabyte of JSON to count it (checked against the real
/// serialization for small `n`).
fn full_rewrite_bytes(n: usize) -> u64 {
    let empty = initial_state().to_json().len() as u64;
    let mut slots = 0u64;
    let mut total = empty;
    for i in 0..n {
        slots += (ActionState { call_results: vec![slot(i)], ..initial_state() }.to_json().len() as u64) - empty;
        total += empty + slots + i as u64;
    }
    let mut completed = initial_state();
    completed.mark_completed();
    total + completed.to_json().len() as u64
}

#[test]
fn file_store_bytes_per_action_are_exactly_linear_in_the_number_of_calls() {
    for reconcilable in [false, true] {
        let base = file_store_bytes(0, reconcilable);
        let per_call = file_store_bytes(1, reconcilable) - base;
        for n in [10, 100, 1000] {
            assert_eq!(
                file_store_bytes(n, reconcilable),
                base + n as u64 * per_call,
                "n = {n}, reconcilable = {reconcilable}"
            );
        }
        let records_per_call = if reconcilable { 2 } else { 1 };
        let overhead = per_call - PAYLOAD as u64;
        assert!(overhead <= 88 * records_per_call, "{overhead} bytes of overhead per call");
    }
}

#[test]
fn rewriting_the_whole_state_per_call_is_quadratic() {
    for n in [0, 1, 2, 5] {
        assert_eq!(full_rewrite_bytes(n), whole_state_rewrite_bytes(n), "n = {n}");
    }
    let (at_100, at_1000) = (full_rewrite_bytes(100), full_rewrite_bytes(1000));
    assert!(at_1000 > 90 * at_100, "{at_100} -> {at_1000}");
    assert!(full_rewrite_bytes(1000) > 400 * file_store_bytes(1000, false));
}
