//! A store driven the way Flink Agents 0.3.1 drives its `ActionStateStore`:
//! `put` with the whole ActionState after every durable call. The store
//! writes only what changed, so the bytes per action grow linearly with the
//! calls (as on the journal path), and `get` returns exactly the last state
//! put, before and after a reopen.

#[path = "support/action_bytes.rs"]
mod action_bytes;

use std::fs;

use action_bytes::{action_key, initial_state, slot, whole_state_put_bytes, whole_state_put_json_bytes, PAYLOAD};
use durable_journal::store::{ActionStateStore, Durability, FileStore, MemoryStore, StateKey};
use durable_journal::model::JsonString;
use durable_journal::{ActionState, CallResult, Outcome};
use serde_json::json;

fn put_bytes(n: usize, reconcilable: bool) -> u64 {
    whole_state_put_bytes(n, reconcilable, Durability::SyncEachPut)
}

fn journal_path_bytes(n: usize, reconcilable: bool) -> u64 {
    action_bytes::file_store_bytes(n, reconcilable, Durability::SyncEachPut)
}

#[test]
fn whole_state_puts_write_bytes_linear_in_the_calls_as_the_journal_path_does() {
    for reconcilable in [false, true] {
        let base = put_bytes(0, reconcilable);
        let per_call = put_bytes(1, reconcilable) - base;
        for n in [10, 100] {
            assert_eq!(put_bytes(n, reconcilable), base + n as u64 * per_call, "n = {n}, reconcilable = {reconcilable}");
        }
        let journal_per_call = journal_path_bytes(1, reconcilable) - journal_path_bytes(0, reconcilable);
        assert_eq!(per_call, journal_per_call, "a call costs what the journal path writes for it");
    }
    // Flink Agents' own store sends every one of those states whole.
    let (ours, theirs) = (put_bytes(100, false), whole_state_put_json_bytes(100, false));
    assert!(theirs > 50 * ours, "{ours} vs {theirs}");
}

/// Runs `test` with a memory store and with a file store.
fn with_each_store(test: impl Fn(&mut dyn ActionStateStore)) {
    test(&mut MemoryStore::new());
    let dir = tempfile::tempdir().unwrap();
    test(&mut FileStore::open(dir.path()).unwrap());
}

fn ok(id: &str, payload: &[u8]) -> CallResult {
    CallResult::completed(id, Outcome::success(Some(payload.to_vec())))
}

/// Every kind of step a whole-state caller takes, from the initial state
/// to completion, including a re-run that diverges and cuts the journal.
fn state_sequence() -> Vec<ActionState> {
    let mut states = vec![initial_state()];
    let mut next = |change: &dyn Fn(&mut ActionState)| {
        let mut state = states.last().unwrap().clone();
        change(&mut state);
        states.push(state);
    };
    next(&|s| s.call_results.push(ok("chat", b"{\"text\":\"hi\"}")));
    next(&|s| s.call_results.push(CallResult::pending("tool-call:search")));
    next(&|s| s.call_results[1] = ok("tool-call:search", b"[1,2]"));
    next(&|s| s.call_results.push(CallResult::completed("tool-call:mail", Outcome::failure(b"{\"boom\":1}".to_vec()))));
    next(&|s| s.call_results.push(ok("null-result", b"")));
    next(&|s| s.call_results.push(CallResult::completed("none", Outcome::success(None))));
    // A re-run diverges at slot 1: the tail is cut, then a new call recorded.
    next(&|s| s.call_results.truncate(1));
    next(&|s| s.call_results.push(ok("tool-call:other", &[0xff, 0, 0x80])));
    // Cut and re-append in one put (Flink Agents cuts in memory only).
    next(&|s| {
        s.call_results.truncate(1);
        s.call_results.push(ok("tool-call:third", b"3"));
        s.call_results.push(CallResult::pending("tool-call:fourth"));
    });
    next(&|s| s.sensory_memory_updates.push(json!({"path": "seen", "value": [1.5, "é", null]}).into()));
    next(&|s| {
        s.short_term_memory_updates.push(json!({"path": "a.b", "value": {"nested": {"deep": true}}}).into());
        s.output_events.push(json!({"@class": "org.example.OutputEvent", "output": "answer 🌍"}).into());
        s.mark_completed();
    });
    next(&|s| s.output_events.push(json!({"@class": "org.example.OutputEvent", "output": "late"}).into()));
    states
}

#[test]
fn get_returns_exactly_the_last_state_put_at_every_step() {
    with_each_store(|store| {
        let k = action_key(1);
        for (step, state) in state_sequence().iter().enumerate() {
            store.put(&k, state).unwrap();
            assert_eq!(store.get(&k).unwrap().as_ref(), Some(state), "after put {step}");
            store.put(&k, state).unwrap();
            assert_eq!(store.get(&k).unwrap().as_ref(), Some(state), "after put {step} again");
        }
    });
}

#[test]
fn a_state_that_is_not_an_extension_replaces_the_entry_whole() {
    with_each_store(|store| {
        let k = action_key(1);
        let mut stored = initial_state();
        stored.call_results.push(ok("a", b"1"));
        stored.output_events.push(json!("first").into());
        store.put(&k, &stored).unwrap();
        let mut other_event = stored.clone();
        other_event.task_event = Some(json!({"@class": "org.example.InputEvent", "input": "other"}).into());
        let mut changed_output = stored.clone();
        changed_output.output_events = vec![json!("changed").into()];
        let mut extra_field = stored.clone();
        extra_field.other_fields.push((JsonString::Text("subagentResultEvents".into()), json!([{"@class": "X"}]).into()));
        for state in [other_event, changed_output, extra_field] {
            store.put(&k, &state).unwrap();
            assert_eq!(store.get(&k).unwrap(), Some(state));
        }
    });
}

/// Bytes a record costs beyond the new data it carries, at most: its frame,
/// the key and the record's own fields.
const RECORD_OVERHEAD: u64 = 128;

fn put_cost(store: &mut FileStore, k: &StateKey, state: &ActionState) -> u64 {
    let before = store.stats().unwrap().bytes_appended;
    store.put(k, state).unwrap();
    store.stats().unwrap().bytes_appended - before
}

#[test]
fn each_step_costs_its_new_bytes_and_an_equal_state_costs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = FileStore::open(dir.path()).unwrap();
    let k = action_key(1);
    let mut state = initial_state();
    store.put(&k, &state).unwrap();
    for i in 0..20 {
        state.call_results.push(slot(i));
        assert!(put_cost(&mut store, &k, &state) < PAYLOAD as u64 + RECORD_OVERHEAD, "call {i}");
    }
    assert_eq!(put_cost(&mut store, &k, &state), 0);
    let records = store.stats().unwrap().records_appended;
    state.call_results.truncate(3);
    assert!(put_cost(&mut store, &k, &state) < RECORD_OVERHEAD, "a cut");
    state.call_results.push(slot(99));
    assert!(put_cost(&mut store, &k, &state) < PAYLOAD as u64 + RECORD_OVERHEAD, "a re-append after the cut");
    action_bytes::final_additions(&mut state);
    state.mark_completed();
    assert!(put_cost(&mut store, &k, &state) < 2 * RECORD_OVERHEAD, "the completion with its outputs");
    assert_eq!(store.stats().unwrap().records_appended, records + 3, "one record per put");
}

#[test]
fn a_reopen_replays_the_deltas_to_the_last_state_put() {
    let dir = tempfile::tempdir().unwrap();
    let k = action_key(1);
    let states = state_sequence();
    {
        let mut store = FileStore::open(dir.path()).unwrap();
        for state in &states {
            store.put(&k, state).unwrap();
        }
        // The process dies: every acknowledged put is already fsynced, so
        // dropping the store leaves the disk as a crash would.
        drop(store);
    }
    let mut store = FileStore::open(dir.path()).unwrap();
    assert_eq!(store.recovery_report().records_replayed, states.len() as u64, "one record per put");
    assert_eq!(store.get(&k).unwrap().as_ref(), states.last());
}

#[test]
fn a_put_torn_by_a_crash_leaves_the_state_of_the_put_before() {
    let dir = tempfile::tempdir().unwrap();
    let k = action_key(1);
    let states = state_sequence();
    let (last, before_last) = (&states[states.len() - 1], &states[states.len() - 2]);
    let (segment, intact, full) = {
        let mut store = FileStore::open(dir.path()).unwrap();
        for state in &states[..states.len() - 1] {
            store.put(&k, state).unwrap();
        }
        let intact = store.stats().unwrap().segment_bytes;
        store.put(&k, last).unwrap();
        let segment = store.segment_path().unwrap();
        store.close().unwrap();
        (segment.clone(), intact, fs::read(&segment).unwrap())
    };
    for cut in intact..full.len() as u64 {
        fs::write(&segment, &full[..cut as usize]).unwrap();
        let mut store = FileStore::open(dir.path()).unwrap();
        assert_eq!(store.get(&k).unwrap().as_ref(), Some(before_last), "cut at {cut}");
        store.close().unwrap();
    }
    fs::write(&segment, &full).unwrap();
    let mut store = FileStore::open(dir.path()).unwrap();
    assert_eq!(store.get(&k).unwrap().as_ref(), Some(last));
    // After a reopen the puts go on as deltas of the recovered entry.
    let mut more = last.clone();
    more.output_events.push(json!("after reopen").into());
    assert!(put_cost(&mut store, &k, &more) < RECORD_OVERHEAD);
    drop(store);
    assert_eq!(FileStore::open(dir.path()).unwrap().get(&k).unwrap(), Some(more));
}

#[test]
fn bodies_are_compared_as_written_so_a_respelled_body_is_stored_as_put() {
    with_each_store(|store| {
        let k = action_key(1);
        let body = |text: &str| durable_journal::model::OpaqueJson::parse(text).unwrap();
        let mut stored = initial_state();
        stored.output_events.push(body(r#"{"a":1,"b":2.0}"#));
        store.put(&k, &stored).unwrap();
        for respelled in [r#"{"b":2.0,"a":1}"#, r#"{"a":1,"b":2}"#, r#"{"a":1,"b":2.0,"c":1e400}"#] {
            let mut new = stored.clone();
            new.output_events[0] = body(respelled);
            store.put(&k, &new).unwrap();
            let got = store.get(&k).unwrap().unwrap();
            assert_eq!(got.output_events[0].get(), respelled);
        }
    });
}
