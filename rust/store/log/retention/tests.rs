//! Retention of the log store: copies in a log of their own, the journal's
//! records unchanged, the count bound by key, and a refused copy that stops
//! retention, never the store. Over the in-memory log of
//! `tests/support/memory_log.rs`.

use std::time::Duration;

use super::super::inspect::DumpedRecord;
use super::super::*;
use super::{read_retained_records, LogRetention};
use crate::journal::Journal;
use crate::model::Outcome;
use crate::store::key::EventIdentity;
use crate::store::log::tests::ApplyTo;
use crate::store::RetentionPolicy;

// The log tests (`../tests.rs`) include the same file: each test module has
// its own copy, which is what a shared test fixture outside the crate needs.
#[allow(clippy::duplicate_mod)]
#[path = "../../../../tests/support/memory_log.rs"]
mod memory_log;
use memory_log::{Outage, SharedLog};

const MAX_PARALLELISM: u32 = 8;
const ALL: KeyGroupRange = KeyGroupRange { first: 0, last: MAX_PARALLELISM - 1 };

fn store_over(journal: &SharedLog) -> LogStore {
    let layout = LogLayout::new([9; 16], 2, MAX_PARALLELISM).unwrap();
    let mut store = LogStore::new(journal.sink(), layout, ALL).unwrap();
    store.start_fresh(Lineage([1; 16])).unwrap();
    store
}

fn retaining(retained: &SharedLog, max_count: u64) -> LogRetention {
    let policy = RetentionPolicy { max_age: Duration::from_secs(3600), max_count };
    LogRetention::new(retained.sink(), policy, [5; 16], 0, Some("plan-v1".into())).unwrap().with_clock(|| 1_000)
}

fn key(n: u32) -> StateKey {
    StateKey::new(BusinessKey::Str(format!("user-{n}")), 0, "act", EventIdentity::Occurrence(format!("occ-{n}")))
}

/// Action `n`: two calls, then completion (and, as the operators do, the checkpoint's prune).
fn run_action(store: &mut LogStore, n: u32) {
    let k = key(n);
    store.bind_key_group(&k.business_key, n % MAX_PARALLELISM).unwrap();
    store.put(&k, &ActionState::default()).unwrap();
    let mut journal = Journal::new(store.get(&k).unwrap().unwrap());
    for id in ["llm", "tool:lookup"] {
        let value = format!("{id} for {n}").into_bytes();
        journal.record_call_completion(id, Outcome::success(Some(value)), &mut ApplyTo(store, &k)).unwrap();
    }
    journal.mark_completed(&mut ApplyTo(store, &k)).unwrap();
    store.prune_state(&k.business_key, 0).unwrap();
    store.sync().unwrap();
}

fn records(log: &SharedLog) -> Vec<DumpedRecord> {
    let log = log.0.lock().unwrap();
    let mut out = Vec::new();
    for (p, partition) in log.partitions.iter().enumerate() {
        for (offset, key, value) in &partition.records {
            out.push(DumpedRecord { partition: p as u32, offset: *offset, key: key.clone(), value: value.clone() });
        }
    }
    out
}

#[test]
fn with_retention_the_journal_log_gets_the_same_records_and_the_copies_go_to_their_own_log() {
    let (plain_log, journal_log, retained_log) = (SharedLog::new(2), SharedLog::new(2), SharedLog::new(1));
    let mut plain = store_over(&plain_log);
    let mut store = store_over(&journal_log);
    store.retain_completed(retaining(&retained_log, 10)).unwrap();
    assert!(store.retains_completed() && !plain.retains_completed());
    for n in 0..3 {
        run_action(&mut plain, n);
        run_action(&mut store, n);
    }
    assert_eq!(records(&plain_log), records(&journal_log), "the journal's records, byte for byte");
    assert_eq!(store.stats().entries, 0, "pruned: the live entries are gone");
    assert_eq!(store.retention_stats().copies, 3);

    let retained = read_retained_records(&records(&retained_log)).unwrap();
    assert_eq!(retained.iter().map(|r| r.number).collect::<Vec<_>>(), [0, 1, 2]);
    let first = &retained[0];
    assert_eq!((first.key.clone(), first.completed_at_millis, first.plan_digest.as_deref()), (key(0), 1_000, Some("plan-v1")));
    assert!(first.state.completed);
    let calls: Vec<(String, Option<Vec<u8>>)> =
        first.state.call_results.iter().map(|c| (c.call_id_for_display(), c.result_payload.clone())).collect();
    assert_eq!(calls, [("llm".to_string(), Some(b"llm for 0".to_vec())), ("tool:lookup".to_string(), Some(b"tool:lookup for 0".to_vec()))]);
    assert_eq!(store.retention_stats().bytes, records(&retained_log).iter().map(|r| (r.key.len() + r.value.as_ref().unwrap().len()) as u64).sum::<u64>());
}

#[test]
fn a_writer_keeps_at_most_max_count_copies_the_oldest_overwritten_first() {
    let (journal_log, retained_log) = (SharedLog::new(2), SharedLog::new(1));
    let mut store = store_over(&journal_log);
    store.retain_completed(retaining(&retained_log, 3)).unwrap();
    for n in 0..5 {
        run_action(&mut store, n);
    }
    let listed = |log: &SharedLog| read_retained_records(&records(log)).unwrap().iter().map(|r| r.number).collect::<Vec<_>>();
    assert_eq!(records(&retained_log).len(), 5, "before compaction every copy is in the log");
    assert_eq!(listed(&retained_log), [2, 3, 4], "a reader keeps the newest of each of the 3 keys");
    retained_log.compact(true);
    assert_eq!(records(&retained_log).len(), 3, "compaction leaves one record per key");
    assert_eq!(listed(&retained_log), [2, 3, 4]);
}

#[test]
fn a_refused_copy_stops_retention_and_never_the_store() {
    let (journal_log, retained_log) = (SharedLog::new(2), SharedLog::new(1));
    let mut store = store_over(&journal_log);
    store.retain_completed(retaining(&retained_log, 10)).unwrap();
    retained_log.set_outage(Outage::Refused);
    run_action(&mut store, 0);
    assert_eq!(store.stats().entries, 0, "the action completed and was pruned");
    let error = store.retention_error().expect("retention stopped");
    assert!(error.contains("memory log") && error.contains("retention stopped"), "{error}");
    assert!(!store.retains_completed());
    retained_log.set_outage(Outage::None);
    run_action(&mut store, 1);
    assert_eq!(retained_log.record_count(), 0);
}

#[test]
fn a_reader_refuses_the_journals_records_and_a_tombstone_drops_its_copy() {
    let (journal_log, retained_log) = (SharedLog::new(2), SharedLog::new(1));
    let mut store = store_over(&journal_log);
    store.retain_completed(retaining(&retained_log, 10)).unwrap();
    run_action(&mut store, 0);
    run_action(&mut store, 1);
    let err = read_retained_records(&records(&journal_log)).unwrap_err().to_string();
    assert!(err.contains("not a retained copy's key") && err.contains("retained partition"), "{err}");
    let mut with_tombstone = records(&retained_log);
    let first = with_tombstone[0].clone();
    with_tombstone.push(DumpedRecord { offset: 9, value: None, ..first });
    assert_eq!(read_retained_records(&with_tombstone).unwrap().iter().map(|r| r.number).collect::<Vec<_>>(), [1]);
}

#[test]
fn a_retained_copy_costs_one_more_record_of_the_actions_calls() {
    let (journal_log, retained_log) = (SharedLog::new(2), SharedLog::new(1));
    let mut store = store_over(&journal_log);
    store.retain_completed(retaining(&retained_log, 10)).unwrap();
    let k = key(0);
    store.bind_key_group(&k.business_key, 0).unwrap();
    store.put(&k, &ActionState::default()).unwrap();
    let mut journal = Journal::new(store.get(&k).unwrap().unwrap());
    for i in 0..10 {
        let outcome = Outcome::success(Some(vec![b'x'; 1024]));
        journal.record_call_completion(&format!("call-{i}"), outcome, &mut ApplyTo(&mut store, &k)).unwrap();
    }
    journal.mark_completed(&mut ApplyTo(&mut store, &k)).unwrap();
    let (journal_bytes, copy) = (store.stats().bytes_appended, store.retention_stats());
    println!("journal records {journal_bytes} bytes, retained copy {} bytes in {} record", copy.bytes, copy.copies);
    assert_eq!(copy.copies, 1);
    assert!((10 * 1024..10 * 1024 + 400).contains(&copy.bytes), "{}", copy.bytes);
    assert!((10 * 1024..10 * 1024 + 1600).contains(&journal_bytes), "{journal_bytes}");
}

/// A Flink Agents Python action's state as its operator records it: the
/// input event, the calls (`function id::args digest`, cloudpickle payloads
/// in base64), the output events.
pub(crate) fn flink_agents_state(input: &str, calls: &[(&str, &str)], outputs: &[&str], completed: bool) -> ActionState {
    let calls: Vec<String> = calls
        .iter()
        .map(|(id, payload)| format!(r#"{{"functionId":"{id}","argsDigest":"","status":"SUCCEEDED","resultPayload":"{payload}","exceptionPayload":null}}"#))
        .collect();
    let outputs: Vec<String> = outputs
        .iter()
        .map(|o| format!(r#"{{"@class":"org.apache.flink.agents.api.OutputEvent","type":"_output_event","attributes":{{"output":"{o}"}}}}"#))
        .collect();
    let json = format!(
        r#"{{"taskEvent":{{"@class":"org.apache.flink.agents.api.InputEvent","id":"00000000-0000-4000-8000-{id:0>12}","type":"_input_event","attributes":{{"input":"{input}"}}}},"sensoryMemoryUpdates":[],"shortTermMemoryUpdates":[],"outputEvents":[{}],"callResults":[{}],"completed":{completed}}}"#,
        outputs.join(","),
        calls.join(","),
        id = input.trim_start_matches("user-"),
    );
    ActionState::from_json(json.as_bytes()).unwrap()
}

/// The calls of `python/tests/restore_agent.py` (ids as `durable_journal.flink_agents` makes them) and their
/// recorded answers (`cloudpickle.dumps` of "profile of user-1" and "model says hi").
pub(crate) const LOOK_UP_USER_1: (&str, &str) = ("restore_agent.look_up::03895c9c6bcc7f49", "gAWVFQAAAAAAAACMEXByb2ZpbGUgb2YgdXNlci0xlC4=");
pub(crate) const ASK_MODEL_USER_1: (&str, &str) = ("restore_agent.ask_model::7eccc64fc9de07b4", "gAWVEQAAAAAAAACMDW1vZGVsIHNheXMgaGmULg==");
pub(crate) const OTHER_CALL: (&str, &str) = ("llm", "gAWVEQAAAAAAAACMDW1vZGVsIHNheXMgaGmULg==");

/// Compares `bytes` with the checked-in vector at `path` under the repository, or, with
/// `DURABLE_JOURNAL_WRITE_VECTORS=1`, writes it there.
pub(crate) fn check_vector(path: &str, bytes: &[u8]) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    if std::env::var("DURABLE_JOURNAL_WRITE_VECTORS").as_deref() == Ok("1") {
        std::fs::write(&path, bytes).unwrap();
    }
    assert!(std::fs::read(&path).unwrap() == bytes, "{} differs from what the store writes now (DURABLE_JOURNAL_WRITE_VECTORS=1 rewrites it)", path.display());
}

/// `tests/vectors/replay/retained_topic.dump`, the dump `python/tests/test_plan_restore.py` replays: a
/// retained topic's records (`KafkaJournalTool dump` framing) after two Flink Agents Python actions
/// completed, one with the calls `restore_agent.py` makes, one with a call it does not make.
#[test]
fn the_retained_topic_dump_vector_is_what_a_retaining_store_writes() {
    let (journal_log, retained_log) = (SharedLog::new(2), SharedLog::new(1));
    let mut store = store_over(&journal_log);
    store.retain_completed(retaining(&retained_log, 10)).unwrap();
    let actions = [
        (1, flink_agents_state("user-1", &[LOOK_UP_USER_1, ASK_MODEL_USER_1], &["model says hi"], false)),
        (2, flink_agents_state("user-2", &[OTHER_CALL], &["model says hi"], false)),
    ];
    for (n, state) in actions {
        let k = key(n);
        store.bind_key_group(&k.business_key, n % MAX_PARALLELISM).unwrap();
        store.put(&k, &state).unwrap();
        Journal::new(state).mark_completed(&mut ApplyTo(&mut store, &k)).unwrap();
        store.prune_state(&k.business_key, 0).unwrap();
    }
    store.sync().unwrap();
    let dump = super::super::inspect::encode_dump(&records(&retained_log));
    check_vector("tests/vectors/replay/retained_topic.dump", &dump);
    let copies = read_retained_records(&super::super::inspect::read_dump(dump.as_slice()).unwrap()).unwrap();
    assert_eq!(copies.iter().map(|c| (c.key.business_key.describe(), c.state.call_results.len())).collect::<Vec<_>>(),
               [("str:user-1".to_string(), 2), ("str:user-2".to_string(), 1)]);
}
