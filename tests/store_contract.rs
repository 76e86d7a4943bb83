//! Behaviour both stores share (spec §4), run against the in-memory store
//! and the file store alike.

#[path = "support/exact_state.rs"]
mod exact_state;

use durable_journal::store::{
    ActionStateStore, BusinessKey, EventIdentity, FileStore, MemoryStore, RecoveryMarker, StateKey, StorePersister,
};
use durable_journal::{ActionState, CallResult, CallStep, ErrorCode, Journal};
use serde_json::json;

/// Runs `test` once with a memory store and once with a file store.
fn with_each_store(test: impl Fn(&mut dyn ActionStateStore)) {
    test(&mut MemoryStore::new());
    let dir = tempfile::tempdir().unwrap();
    let mut file = FileStore::open(dir.path()).unwrap();
    test(&mut file);
}

fn key(business_key: BusinessKey, seq: i64) -> StateKey {
    StateKey::new(business_key, seq, "process", EventIdentity::Occurrence(format!("occ-{seq}")))
}

fn user(seq: i64) -> StateKey {
    key(BusinessKey::Str("user-1".into()), seq)
}

fn state_with_event(text: &str) -> ActionState {
    ActionState { task_event: Some(json!({"@class": "org.example.InputEvent", "input": text}).into()), ..Default::default() }
}

fn ok(id: &str, payload: &[u8]) -> CallResult {
    CallResult::completed(id, Some(payload.to_vec()), None)
}

#[test]
fn put_then_get_returns_the_state() {
    with_each_store(|store| {
        let state =
            ActionState { call_results: vec![ok("a", b"1"), CallResult::pending("b")], ..state_with_event("hi") };
        store.put(&user(1), &state).unwrap();
        assert_eq!(store.get(&user(1)).unwrap(), Some(state));
        let replaced = state_with_event("again");
        store.put(&user(1), &replaced).unwrap();
        assert_eq!(store.get(&user(1)).unwrap(), Some(replaced));
    });
}

#[test]
fn every_journal_mutation_reaches_the_store_through_the_persister() {
    with_each_store(|store| {
        let k = user(1);
        let initial = state_with_event("go");
        store.put(&k, &initial).unwrap();
        let mut journal = Journal::new(initial);
        let check = |store: &mut dyn ActionStateStore, journal: &Journal| {
            assert_eq!(store.get(&k).unwrap().unwrap().call_results, journal.state().call_results);
        };

        journal.record_call_completion("a", Some(b"1".to_vec()), None, &mut StorePersister::new(store, &k)).unwrap();
        check(store, &journal);
        journal.append_pending_call("b", &mut StorePersister::new(store, &k)).unwrap();
        check(store, &journal);
        journal.finalize_current_call("b", None, Some(b"boom".to_vec()), &mut StorePersister::new(store, &k)).unwrap();
        check(store, &journal);
        journal.reserve_pending_batch(&["c", "d", "e"], &mut StorePersister::new(store, &k)).unwrap();
        journal.finalize_call_at(3, "d", Some(vec![]), None, &mut StorePersister::new(store, &k)).unwrap();
        check(store, &journal);
        journal.clear_call_results_from_and_persist(3, &mut StorePersister::new(store, &k)).unwrap();
        check(store, &journal);
        assert_eq!(journal.len(), 3);

        let with_outputs = ActionState { output_events: vec![json!({"out": 1}).into()], ..journal.state().clone() };
        store.put(&k, &with_outputs).unwrap();
        journal.mark_completed(&mut StorePersister::new(store, &k)).unwrap();
        let stored = store.get(&k).unwrap().unwrap();
        assert!(stored.completed);
        assert!(stored.call_results.is_empty());
        assert_eq!(stored.output_events, vec![json!({"out": 1}).into()], "completion keeps what was put");
    });
}

#[test]
fn a_journal_mutation_without_a_stored_entry_is_refused_and_undone() {
    with_each_store(|store| {
        let k = user(1);
        let mut journal = Journal::default();
        let err = journal.record_call_completion("a", None, None, &mut StorePersister::new(store, &k)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::PersistFailed, "{err}");
        assert!(err.to_string().contains("put the ActionState first"), "{err}");
        assert!(journal.is_empty());
        assert_eq!(store.get(&k).unwrap(), None);
    });
}

#[test]
fn a_change_that_does_not_fit_the_stored_journal_is_refused() {
    with_each_store(|store| {
        let k = user(1);
        store.put(&k, &ActionState::default()).unwrap();
        let slot = CallResult::pending("a");
        let err = store.apply(&k, durable_journal::JournalChange::Put { index: 3, slot: &slot }).unwrap_err();
        assert_eq!(err.code(), ErrorCode::IllegalState, "{err}");
        assert!(store.get(&k).unwrap().unwrap().call_results.is_empty());
    });
}

#[test]
fn a_miss_hides_every_later_sequence_number_of_that_key_only() {
    with_each_store(|store| {
        let other = |seq| key(BusinessKey::Str("user-2".into()), seq);
        for seq in [1, 2, 3, 5] {
            store.put(&user(seq), &state_with_event("u1")).unwrap();
            store.put(&other(seq), &state_with_event("u2")).unwrap();
        }
        assert_eq!(store.get(&user(4)).unwrap(), None);
        assert!(store.get(&user(5)).unwrap().is_none(), "later than the miss: hidden");
        assert!(store.get(&user(3)).unwrap().is_some(), "earlier than the miss: kept");
        for seq in [1, 2, 3, 5] {
            assert!(store.get(&other(seq)).unwrap().is_some(), "another key is untouched (seq {seq})");
        }
        // A miss on a different action at an existing sequence number is a
        // miss too: the re-run left the recorded history there.
        let other_action =
            StateKey::new(BusinessKey::Str("user-1".into()), 2, "other", EventIdentity::Occurrence("occ-2".into()));
        assert_eq!(store.get(&other_action).unwrap(), None);
        assert!(store.get(&user(3)).unwrap().is_none());
        assert!(store.get(&user(2)).unwrap().is_some());
    });
}

#[test]
fn a_hit_hides_nothing() {
    with_each_store(|store| {
        for seq in 1..=3 {
            store.put(&user(seq), &ActionState::default()).unwrap();
        }
        assert!(store.get(&user(1)).unwrap().is_some());
        assert!(store.get(&user(3)).unwrap().is_some());
    });
}

#[test]
fn business_keys_of_different_types_never_collide() {
    with_each_store(|store| {
        let keys = [
            BusinessKey::Long(1),
            BusinessKey::Str("1".into()),
            BusinessKey::Int(1),
            BusinessKey::Bytes(vec![1]),
            BusinessKey::Bytes(b"1".to_vec()),
            BusinessKey::Typed { type_name: "java.lang.Short".into(), bytes: vec![0, 1] },
            BusinessKey::Typed { type_name: "java.lang.Byte".into(), bytes: vec![1] },
        ];
        for (i, business_key) in keys.iter().enumerate() {
            store.put(&key(business_key.clone(), 1), &state_with_event(&i.to_string())).unwrap();
        }
        for (i, business_key) in keys.iter().enumerate() {
            let got = store.get(&key(business_key.clone(), 1)).unwrap().unwrap();
            assert_eq!(got.task_event.unwrap().to_value().unwrap()["input"], i.to_string(), "{business_key:?}");
        }
    });
}

#[test]
fn underscores_in_keys_and_action_names_are_harmless() {
    with_each_store(|store| {
        // Joined with `_`, both are "a_1_2_x": one entry in Flink Agents.
        let event = EventIdentity::Occurrence("e".into());
        let first = StateKey::new(BusinessKey::Str("a_1".into()), 2, "x", event.clone());
        let second = StateKey::new(BusinessKey::Str("a".into()), 1, "2_x", event);
        store.put(&first, &state_with_event("first")).unwrap();
        store.put(&second, &state_with_event("second")).unwrap();
        assert_eq!(store.get(&first).unwrap().unwrap().task_event.unwrap().to_value().unwrap()["input"], "first");
        assert_eq!(store.get(&second).unwrap().unwrap().task_event.unwrap().to_value().unwrap()["input"], "second");
    });
}

#[test]
fn equal_attribute_events_with_different_occurrence_ids_are_distinct() {
    with_each_store(|store| {
        let at = |event| StateKey::new(BusinessKey::Long(7), 1, "process", event);
        let first = at(EventIdentity::Occurrence("occ-a".into()));
        let second = at(EventIdentity::Occurrence("occ-b".into()));
        let by_attributes = at(EventIdentity::Attributes(b"occ-a".to_vec()));
        store.put(&first, &state_with_event("same payload")).unwrap();
        store
            .put(&second, &ActionState { call_results: vec![ok("f", b"2")], ..state_with_event("same payload") })
            .unwrap();
        assert!(store.get(&first).unwrap().unwrap().call_results.is_empty());
        assert_eq!(store.get(&second).unwrap().unwrap().call_results.len(), 1);
        assert_eq!(store.get(&by_attributes).unwrap(), None, "a digest never equals an occurrence id");
    });
}

#[test]
fn prune_drops_entries_up_to_the_sequence_number_for_that_key_only() {
    with_each_store(|store| {
        let other = |seq| key(BusinessKey::Str("user-2".into()), seq);
        for seq in 1..=4 {
            store.put(&user(seq), &ActionState::default()).unwrap();
            store.put(&other(seq), &ActionState::default()).unwrap();
        }
        store.prune_state(&BusinessKey::Str("user-1".into()), 2).unwrap();
        store.prune_state(&BusinessKey::Str("nobody".into()), 9).unwrap();
        // Later sequence numbers first: a miss would hide them.
        assert!(store.get(&user(4)).unwrap().is_some());
        assert!(store.get(&user(3)).unwrap().is_some());
        assert!(store.get(&other(1)).unwrap().is_some());
        assert_eq!(store.get(&user(2)).unwrap(), None);
        assert_eq!(store.get(&user(1)).unwrap(), None);
    });
}

#[test]
fn markers_of_the_store_itself_are_covered_and_advance_with_writes() {
    with_each_store(|store| {
        store.rebuild_state(&[]).unwrap();
        let before = store.get_recovery_marker().unwrap();
        store.put(&user(1), &ActionState::default()).unwrap();
        let after = store.get_recovery_marker().unwrap();
        assert_eq!(after.store_id, before.store_id);
        assert!(after.position > before.position);
        store.rebuild_state(&[before, after]).unwrap();
        let ahead = RecoveryMarker { position: after.position + 1, ..after };
        let err = store.rebuild_state(&[ahead]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::IllegalState);
        assert!(err.to_string().contains("behind the checkpoint"), "{err}");
        assert_eq!(RecoveryMarker::from_bytes(&after.to_bytes()).unwrap(), after);
    });
}

#[test]
fn an_action_in_flight_replays_its_journal_from_the_store() {
    with_each_store(|store| {
        let k = user(1);
        store.put(&k, &state_with_event("go")).unwrap();
        let mut journal = Journal::new(store.get(&k).unwrap().unwrap());
        for (id, reconcilable) in [("a", false), ("b", true)] {
            let mut persister = StorePersister::new(store, &k);
            assert_eq!(journal.begin_call(id, reconcilable, &mut persister).unwrap(), CallStep::Execute);
            journal.complete_call(id, Some(id.as_bytes().to_vec()), None, &mut persister).unwrap();
        }

        // The action restarts from the top over what the store holds.
        let mut replay = Journal::new(store.get(&k).unwrap().unwrap());
        let mut persister = StorePersister::new(store, &k);
        assert_eq!(replay.begin_call("a", false, &mut persister).unwrap(), CallStep::Replay(ok("a", b"a")));
        assert_eq!(replay.begin_call("b", true, &mut persister).unwrap(), CallStep::Replay(ok("b", b"b")));
        assert_eq!(replay.begin_call("c", false, &mut persister).unwrap(), CallStep::Execute);
    });
}

#[test]
fn close_is_idempotent_and_every_later_call_fails_with_closed() {
    with_each_store(|store| {
        store.put(&user(1), &ActionState::default()).unwrap();
        store.close().unwrap();
        store.close().unwrap();
        let closed = [
            store.put(&user(1), &ActionState::default()).unwrap_err(),
            store.apply(&user(1), durable_journal::JournalChange::Complete).unwrap_err(),
            store.get(&user(1)).unwrap_err(),
            store.prune_state(&BusinessKey::Long(1), 1).unwrap_err(),
            store.get_recovery_marker().unwrap_err(),
            store.rebuild_state(&[]).unwrap_err(),
            store.sync().unwrap_err(),
        ];
        for err in closed {
            assert_eq!(err.code(), ErrorCode::Closed, "{err}");
        }
    });
}

#[test]
fn exact_data_comes_back_whole_and_through_journal_deltas() {
    with_each_store(|store| {
        let k = user(1);
        let state = exact_state::exact_state();
        assert_eq!(String::from_utf8(state.to_json()).unwrap(), exact_state::exact_json());
        store.put(&k, &state).unwrap();
        assert_eq!(store.get(&k).unwrap(), Some(state.clone()));

        // Re-run: the first call replays, the pending one (with Flink Agents'
        // digest) is reconciled, and a new call lands after it.
        let mut journal = Journal::new(state);
        assert!(matches!(journal.begin_call("tool-call:a", false, &mut StorePersister::new(store, &k)).unwrap(), CallStep::Replay(_)));
        journal.advance_call_index_by(2).unwrap();
        assert_eq!(journal.begin_call("py.search::0123456789abcdef", true, &mut StorePersister::new(store, &k)).unwrap(), CallStep::Reconcile);
        journal.complete_call("py.search::0123456789abcdef", Some(b"r".to_vec()), None, &mut StorePersister::new(store, &k)).unwrap();
        journal.record_call_completion("next", None, None, &mut StorePersister::new(store, &k)).unwrap();
        let stored = store.get(&k).unwrap().unwrap();
        assert_eq!(stored, *journal.state());
        let json = String::from_utf8(stored.to_json()).unwrap();
        assert!(json.contains(r#"{"functionId":null,"argsDigest":"","status":"SUCCEEDED""#), "{json}");
        assert!(json.contains(r#"{"functionId":"tool-call:\uD83D","argsDigest":null,"#), "{json}");
        assert!(json.contains(r#"{"functionId":"py.search::0123456789abcdef","argsDigest":"9f86d081884c7d65","status":"SUCCEEDED""#), "{json}");
    });
}
