//! The operations that wrote `tests/fixtures/store-v1/`: a store written by
//! the format-1 code (before frames carried their offset), kept as bytes so
//! that every later version proves it still loads it. The test replays the
//! same operations into a `MemoryStore` for the expected content.
//!
//! Every record type appears: puts, a compaction snapshot (the fixture's
//! segment is generation 2), slot, finalize, batch, truncate, complete,
//! discard and prune records. Never change these operations: the fixture
//! bytes were produced by them and cannot be regenerated with the old code.
#![allow(dead_code)] // each includer uses a part

use durable_journal::store::{ActionStateStore, BusinessKey, EventIdentity, StateKey};
use durable_journal::{ActionState, CallResult, JournalChange, Outcome};

pub const FIXTURE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/store-v1");

/// The fixture's store id and final position, as its recovery marker said.
pub const STORE_ID_HEX: &str = include_str!("../fixtures/store-v1/store-id.txt");
pub const POSITION: u64 = 17;

pub fn key(business: &str, seq: i64, action: &str) -> StateKey {
    let event = EventIdentity::Occurrence(format!("{business}-{seq}"));
    StateKey::new(BusinessKey::Str(business.into()), seq, action, event)
}

fn state(input: &str) -> ActionState {
    let json = format!(r#"{{"taskEvent":{{"@class":"org.example.InputEvent","input":"{input}"}}}}"#);
    ActionState::from_json(json.as_bytes()).expect("a valid ActionState")
}

fn ok(id: &str, payload: &[u8]) -> CallResult {
    CallResult::completed(id, Outcome::success(Some(payload.to_vec())))
}

/// Every key the operations touch, those left without an entry included.
pub fn keys() -> Vec<StateKey> {
    vec![
        key("alice", 1, "chat"),
        key("alice", 2, "chat"),
        key("bob", 1, "plan"),
        key("bob", 2, "plan"),
        key("bob", 3, "plan"),
        key("carol", 1, "tool"),
        key("carol", 2, "tool"),
    ]
}

/// Before the compaction: what ends up in the snapshot.
pub fn before_compaction(store: &mut dyn ActionStateStore) {
    let k = key("alice", 1, "chat");
    store.put(&k, &state("hello")).unwrap();
    store.apply(&k, JournalChange::Put { index: 0, slot: &ok("llm", b"{\"text\":\"hi\"}") }).unwrap();
    store.apply(&k, JournalChange::Put { index: 1, slot: &CallResult::pending("tool:search") }).unwrap();
    let failed = CallResult::completed("tool:search", Outcome::failure(b"{\"class\":\"java.io.IOException\"}".to_vec()));
    store.apply(&k, JournalChange::Replace { index: 1, slot: &failed }).unwrap();
    store.apply(&k, JournalChange::Complete).unwrap();
    store.put(&key("carol", 1, "tool"), &state("pruned before the snapshot")).unwrap();
    store.prune_state(&BusinessKey::Str("carol".into()), 1).unwrap();
}

/// After the compaction: records appended to the compacted segment.
pub fn after_compaction(store: &mut dyn ActionStateStore) {
    let k = key("bob", 1, "plan");
    store.put(&k, &state("plan a trip")).unwrap();
    let batch = [CallResult::pending("a"), CallResult::pending("b"), CallResult::pending("c")];
    store.apply(&k, JournalChange::PutBatch { from: 0, slots: &batch }).unwrap();
    store.apply(&k, JournalChange::Replace { index: 0, slot: &ok("a", b"1") }).unwrap();
    store.apply(&k, JournalChange::Truncate { from: 2 }).unwrap();
    store.put(&key("bob", 2, "plan"), &state("second")).unwrap();
    store.put(&key("bob", 3, "plan"), &state("third, dropped by the miss below")).unwrap();
    // A miss at seq 2 under another action drops seq 3 (a discard record).
    assert!(store.get(&key("bob", 2, "other-action")).unwrap().is_none());
    let k2 = key("alice", 2, "chat");
    store.put(&k2, &state("empty payload and no payload")).unwrap();
    store.apply(&k2, JournalChange::Put { index: 0, slot: &ok("empty", b"") }).unwrap();
    store.apply(&k2, JournalChange::Put { index: 1, slot: &CallResult::completed("none", Outcome::success(None)) }).unwrap();
}
