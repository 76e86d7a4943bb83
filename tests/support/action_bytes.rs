//! One action of n calls of 1 KB, and the bytes each way of persisting it
//! writes: shared by the byte-count tests (`tests/store_bytes.rs`,
//! `tests/store_whole_state_puts.rs`) and the store benchmark
//! (`benches/store.rs`), so they measure the same thing.
#![allow(dead_code)] // each includer uses a part

use durable_journal::store::{
    ActionStateStore, AnyStore, BusinessKey, Durability, EventIdentity, FileStore, FileStoreOptions, SharedStore, StateKey,
};
use durable_journal::{ActionState, CallResult, Outcome};
use serde_json::json;

pub const PAYLOAD: usize = 1024;

pub fn initial_state() -> ActionState {
    ActionState { task_event: Some(json!({"@class": "org.example.InputEvent", "input": "question"}).into()), ..Default::default() }
}

pub fn action_key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Long(42), seq, "process", EventIdentity::Occurrence(format!("occ-{seq}")))
}

/// Call `i`'s id. Fixed width: every call's record has the same size.
pub fn slot_id(i: usize) -> String {
    format!("call-{i:05}")
}

/// Call `i`'s terminal slot.
pub fn slot(i: usize) -> CallResult {
    CallResult::completed(slot_id(i), Outcome::success(Some(vec![b'x'; PAYLOAD])))
}

/// Bytes the file store appends for one action with `n` calls: the initial
/// put, one record per call (two with a reconciler: pending, then
/// finalize), and the completion, journaled as the bindings journal (through
/// `SharedStore::open_journal`). The count does not depend on `durability`.
pub fn file_store_bytes(n: usize, reconcilable: bool, durability: Durability) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open_with(dir.path(), FileStoreOptions { durability, ..Default::default() }).unwrap();
    let store = SharedStore::new(AnyStore::File(Box::new(store)));
    let (mut journal, mut persister) = store.open_journal(action_key(1), Some(initial_state())).unwrap();
    for i in 0..n {
        journal.begin_call(&slot_id(i), reconcilable, &mut persister).unwrap();
        journal.complete_call(&slot_id(i), Outcome::success(slot(i).result_payload), &mut persister).unwrap();
    }
    journal.mark_completed(&mut persister).unwrap();
    let bytes = store.lock().unwrap().store().stats().unwrap().bytes_appended;
    bytes.expect("the file store counts its bytes")
}

/// What Flink Agents writes: the whole ActionState as JSON after every call,
/// the initial and the completed state included.
pub fn whole_state_rewrite_bytes(n: usize) -> u64 {
    let mut state = initial_state();
    let mut total = state.to_json().len() as u64;
    for i in 0..n {
        state.call_results.push(slot(i));
        total += state.to_json().len() as u64;
    }
    state.mark_completed();
    total + state.to_json().len() as u64
}

/// The final state's additions: what the action's context collected.
pub fn final_additions(state: &mut ActionState) {
    state.short_term_memory_updates.push(json!({"path": "answers", "value": 1}).into());
    state.output_events.push(json!({"@class": "org.example.OutputEvent", "output": "answer"}).into());
}

/// Hands `put` every state Flink Agents 0.3.1's operator hands its store for
/// one action of `n` calls, in order: the initial state (no calls), the
/// state after each call (two puts per call with a reconciler: the pending
/// slot, then its outcome), and the final state (memory updates and output
/// events added, completed, its journal dropped). n + 2 puts without a
/// reconciler.
pub fn whole_state_puts(n: usize, reconcilable: bool, mut put: impl FnMut(&ActionState)) {
    let mut state = initial_state();
    put(&state);
    for i in 0..n {
        let s = slot(i);
        if reconcilable {
            state.call_results.push(CallResult::pending(slot_id(i)));
            put(&state);
            *state.call_results.last_mut().unwrap() = s;
        } else {
            state.call_results.push(s);
        }
        put(&state);
    }
    final_additions(&mut state);
    state.mark_completed();
    put(&state);
}

/// Bytes the file store appends when Flink Agents' whole-state puts of one
/// action of `n` calls drive it.
pub fn whole_state_put_bytes(n: usize, reconcilable: bool, durability: Durability) -> u64 {
    let dir = tempfile::tempdir().unwrap();
    let mut store = FileStore::open_with(dir.path(), FileStoreOptions { durability, ..Default::default() }).unwrap();
    let k = action_key(1);
    whole_state_puts(n, reconcilable, |state| store.put(&k, state).unwrap());
    store.stats().unwrap().bytes_appended
}

/// What Flink Agents' own store writes for the same puts: each state as JSON.
pub fn whole_state_put_json_bytes(n: usize, reconcilable: bool) -> u64 {
    let mut total = 0;
    whole_state_puts(n, reconcilable, |state| total += state.to_json().len() as u64);
    total
}
