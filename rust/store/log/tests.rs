//! What the log-backed store does beyond the store contract (which runs it
//! too: `tests/store_contract.rs`): histories, markers of partition offsets,
//! restores at another parallelism, tombstones and compaction, failed
//! appends, writes in flight. Over the in-memory log of
//! `tests/support/memory_log.rs`, which behaves as Kafka does where it matters.

use std::sync::{Arc, Mutex};

use super::*;
use crate::error::ErrorCode;
use crate::journal::{Journal, Persister};
use crate::model::{CallResult, Outcome};
use crate::store::{AnyStore, EventIdentity, RecoveryMarker};

/// The fake log, shared with the store contract (`tests/store_contract/log.rs`).
#[path = "../../../tests/support/memory_log.rs"]
mod memory_log;
use memory_log::{load, Outage, SharedLog};

/// Journals straight into the log store under test, one record per change:
/// these tests are about the store. The bindings' path, through a
/// `SharedStore` and its pipelined writes, runs in the store contract
/// (`tests/store_contract.rs`) and in the tests of writes in flight below.
pub(super) struct ApplyTo<'a>(pub(super) &'a mut LogStore, pub(super) &'a StateKey);

impl Persister for ApplyTo<'_> {
    fn persist(&mut self, _state: &ActionState, change: JournalChange<'_>) -> Result<()> {
        self.0.apply(self.1, change)
    }
}

const PARTITIONS: u32 = 3;
const MAX_PARALLELISM: u32 = 8;
const ALL: KeyGroupRange = KeyGroupRange { first: 0, last: MAX_PARALLELISM - 1 };

fn layout() -> LogLayout {
    LogLayout::new([9; 16], PARTITIONS, MAX_PARALLELISM).unwrap()
}

fn fresh(log: &SharedLog, owned: KeyGroupRange) -> LogStore {
    let mut store = LogStore::new(log.sink(), layout(), owned).unwrap();
    store.start_fresh(Lineage([1; 16])).unwrap();
    store
}

/// A fresh store owning every key group, holding an empty entry of user `n` at seq 0.
fn holding_an_entry_of(log: &SharedLog, n: u32) -> LogStore {
    let mut store = fresh(log, ALL);
    bind(&mut store, n);
    store.put(&key(n, 0), &ActionState::default()).unwrap();
    store
}

/// A store over `log` owning `owned`, rebuilt from `markers` and loaded, as
/// a binding restores one.
fn restored(log: &SharedLog, owned: KeyGroupRange, markers: &[LogMarker]) -> LogStore {
    let mut store = LogStore::new(log.sink(), layout(), owned).unwrap();
    let markers: Vec<RecoveryMarker> = markers.iter().cloned().map(RecoveryMarker::Log).collect();
    store.rebuild_state(&markers).unwrap();
    load(&mut store, log, owned);
    store
}

/// The call ids of entry `k`, of user `n`, in a store restored from `markers`.
fn restored_ids(log: &SharedLog, markers: &[LogMarker], n: u32, k: &StateKey) -> Vec<String> {
    let mut store = restored(log, ALL, markers);
    bind(&mut store, n);
    ids(&store.get(k).unwrap().unwrap())
}

/// Test business keys "user-N" live in key group N % MAX_PARALLELISM.
fn user(n: u32) -> BusinessKey {
    BusinessKey::Str(format!("user-{n}"))
}

fn key(n: u32, seq: i64) -> StateKey {
    StateKey::new(user(n), seq, "act", EventIdentity::Occurrence(format!("occ-{n}-{seq}")))
}

fn bind(store: &mut LogStore, n: u32) -> Option<u32> {
    store.bind_key_group(&user(n), n % MAX_PARALLELISM).unwrap()
}

fn ok(id: &str) -> CallResult {
    CallResult::completed(id, Outcome::success(Some(id.as_bytes().to_vec())))
}

/// Opens the entry (the initial put) and records `calls` through a journal,
/// binding the key's key group first as the Java store does before each call.
fn run_calls(store: &mut LogStore, k: &StateKey, calls: &[&str]) -> Journal {
    let BusinessKey::Str(name) = &k.business_key else { panic!("test keys are user-N") };
    bind(store, name["user-".len()..].parse().unwrap());
    if store.get(k).unwrap().is_none() {
        store.put(k, &ActionState::default()).unwrap();
    }
    let mut journal = Journal::new(store.get(k).unwrap().unwrap());
    for id in calls {
        journal.record_call_completion(id, Outcome::success(Some(id.as_bytes().to_vec())), &mut ApplyTo(store, k)).unwrap();
    }
    journal
}

fn complete(store: &mut LogStore, k: &StateKey) {
    let mut journal = Journal::new(store.get(k).unwrap().unwrap());
    journal.mark_completed(&mut ApplyTo(store, k)).unwrap();
}

fn ids(state: &ActionState) -> Vec<String> {
    state.call_results.iter().map(CallResult::call_id_for_display).collect()
}

#[test]
fn a_restore_reads_from_the_first_record_a_live_entry_needs() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    // Users 1 and 2 are in key groups 1 and 2, both in partition 0.
    assert_eq!((layout().partition_of(1), layout().partition_of(2)), (0, 0));
    for seq in 0..20 {
        let dead = key(1, seq);
        run_calls(&mut store, &dead, &["a", "b"]);
        complete(&mut store, &dead);
        store.prune_state(&user(1), seq).unwrap();
    }
    let live = key(2, 0);
    run_calls(&mut store, &live, &["x"]);
    let ends = log.end_offsets();
    let marker = store.marker(&ends).unwrap();
    // 20 dead entries of 4 records each, and their 80 tombstones, all before the live entry's put.
    let live_put = 160;
    assert_eq!(marker.starts, vec![live_put, ends[1], ends[2]]);
    let mut again = restored(&log, ALL, &[marker]);
    assert_eq!(again.stats().records_loaded, 2, "the live entry's put and call, nothing of the dead ones");
    bind(&mut again, 2);
    assert_eq!(ids(&again.get(&live).unwrap().unwrap()), ["x"]);
    bind(&mut again, 1);
    assert_eq!(again.get(&key(1, 19)).unwrap(), None);
}

#[test]
fn a_restore_reads_from_the_smallest_start_of_its_markers() {
    let log = SharedLog::new(PARTITIONS);
    let halves = [KeyGroupRange { first: 0, last: 3 }, KeyGroupRange { first: 4, last: 7 }];
    let mut first = fresh(&log, halves[0]);
    let mut second = fresh(&log, halves[1]);
    // An old entry of the first half (user 3, key group 3, partition 1) and a later one of the second (user 4, partition 1).
    assert_eq!((layout().partition_of(3), layout().partition_of(4)), (1, 1));
    run_calls(&mut first, &key(3, 0), &["old"]);
    run_calls(&mut second, &key(4, 0), &["new"]);
    let markers = [first.marker(&log.end_offsets()).unwrap(), second.marker(&log.end_offsets()).unwrap()];
    assert_eq!((markers[0].starts[1], markers[1].starts[1]), (0, 2));
    let mut all = restored(&log, ALL, &markers);
    assert_eq!(all.read_from()[1], 0, "the smaller start of the two");
    bind(&mut all, 3);
    bind(&mut all, 4);
    assert_eq!(ids(&all.get(&key(3, 0)).unwrap().unwrap()), ["old"]);
    assert_eq!(ids(&all.get(&key(4, 0)).unwrap().unwrap()), ["new"]);
}

#[test]
fn compaction_keeps_exactly_what_a_rebuild_needs() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    bind(&mut store, 2);
    bind(&mut store, 3);
    // An entry replaced by a whole-state put, completed and pruned.
    run_calls(&mut store, &key(2, 0), &["a", "b"]);
    store.put(&key(2, 0), &ActionState { call_results: vec![ok("a")], ..Default::default() }).unwrap();
    complete(&mut store, &key(2, 0));
    store.prune_state(&user(2), 0).unwrap();
    // One re-created at the same address after a miss dropped it.
    run_calls(&mut store, &key(3, 5), &["x", "y", "z"]);
    assert_eq!(store.get(&key(3, 4)).unwrap(), None, "a miss drops the later entry 3/5");
    bind(&mut store, 3);
    run_calls(&mut store, &key(3, 5), &["only"]);
    // And one in flight whose re-run diverged after its first call.
    run_calls(&mut store, &key(2, 1), &["p", "q", "r"]);
    let mut rerun = Journal::new(store.get(&key(2, 1)).unwrap().unwrap());
    assert!(rerun.match_next_or_clear_subsequent("p").unwrap().is_some());
    assert!(rerun.match_next_or_clear_subsequent("not-q").unwrap().is_none());
    rerun.record_call_completion("s", Outcome::success(None), &mut ApplyTo(&mut store, &key(2, 1))).unwrap();
    let marker = store.marker(&log.end_offsets()).unwrap();

    let expect = |s: &mut LogStore| {
        bind(s, 2);
        bind(s, 3);
        assert_eq!(s.stats().entries, 2, "2/0 was pruned");
        assert_eq!(ids(&s.get(&key(2, 1)).unwrap().unwrap()), ["p", "s"]);
        assert_eq!(ids(&s.get(&key(3, 5)).unwrap().unwrap()), ["only"]);
    };
    expect(&mut restored(&log, ALL, std::slice::from_ref(&marker)));
    let before = log.record_count();
    log.compact(false);
    assert!(log.record_count() < before, "compaction deleted the pruned and superseded records");
    expect(&mut restored(&log, ALL, std::slice::from_ref(&marker)));
    log.compact(true);
    expect(&mut restored(&log, ALL, &[marker]));
}

#[test]
fn a_pruned_entry_leaves_nothing_but_tombstones_and_they_compact_away() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    bind(&mut store, 1);
    run_calls(&mut store, &key(1, 0), &["a", "b", "c"]);
    complete(&mut store, &key(1, 0));
    store.prune_state(&user(1), 0).unwrap();
    assert_eq!(store.stats().tombstones_pending, 5, "a tombstone per record: put, three calls, completion");
    store.sync().unwrap();
    assert_eq!(store.stats().tombstones_pending, 0);
    log.compact(true);
    assert_eq!(log.record_count(), 0, "nothing of a pruned entry is left once tombstones expire");
}

#[test]
fn tombstones_go_out_ahead_of_the_next_record_and_are_retried_after_a_failure() {
    let log = SharedLog::new(1);
    let mut store = LogStore::new(log.sink(), LogLayout::new([9; 16], 1, MAX_PARALLELISM).unwrap(), ALL).unwrap();
    store.start_fresh(Lineage([1; 16])).unwrap();
    bind(&mut store, 1);
    run_calls(&mut store, &key(1, 0), &["a"]);
    store.prune_state(&user(1), 0).unwrap();
    bind(&mut store, 1);
    let appended = store.stats().records_appended;
    log.set_outage(Outage::Refused);
    assert!(store.put(&key(1, 1), &ActionState::default()).is_err());
    assert_eq!(store.stats().tombstones_pending, 2, "kept for the next append");
    log.set_outage(Outage::None);
    store.put(&key(1, 1), &ActionState::default()).unwrap();
    let stats = store.stats();
    assert_eq!((stats.tombstones_pending, stats.records_appended - appended, stats.tombstones_appended), (0, 3, 2));
    let log = log.0.lock().unwrap();
    let values: Vec<bool> = log.partitions[0].records.iter().map(|(_, _, v)| v.is_some()).collect();
    assert_eq!(values, [true, true, false, false, true], "put, call, two tombstones, then the new put");
}

#[test]
fn a_failed_append_leaves_the_journal_and_the_store_unchanged() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    bind(&mut store, 0);
    let k = key(0, 0);
    let mut journal = run_calls(&mut store, &k, &["a"]);
    for outage in [Outage::Refused, Outage::AckLost] {
        log.set_outage(outage);
        let err = journal.record_call_completion("b", Outcome::success(None), &mut ApplyTo(&mut store, &k)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::StoreIo, "{err}");
        assert_eq!(journal.len(), 1, "the journal undid the call");
        assert_eq!(ids(&store.get(&k).unwrap().unwrap()), ["a"], "the store did not apply it");
    }
    log.set_outage(Outage::None);
    journal.record_call_completion("c", Outcome::success(None), &mut ApplyTo(&mut store, &k)).unwrap();
    assert_eq!(ids(&store.get(&k).unwrap().unwrap()), ["a", "c"]);
    // The record whose acknowledgement was lost is in the log, at index 1,
    // where "c" was put after it: the rebuild ends as the store did.
    let marker = store.marker(&log.end_offsets()).unwrap();
    assert_eq!(restored_ids(&log, std::slice::from_ref(&marker), 0, &k), ["a", "c"]);
    log.compact(true);
    assert_eq!(restored_ids(&log, &[marker], 0, &k), ["a", "c"], "no two records of the entry share a key");
}

#[test]
fn after_a_rescale_each_store_loads_the_key_groups_it_owns_now() {
    let log = SharedLog::new(PARTITIONS);
    let halves = [KeyGroupRange { first: 0, last: 3 }, KeyGroupRange { first: 4, last: 7 }];
    let mut markers = Vec::new();
    for half in halves {
        let mut store = fresh(&log, half);
        for n in (0..MAX_PARALLELISM).filter(|n| half.contains(*n)) {
            bind(&mut store, n);
            run_calls(&mut store, &key(n, 0), &["call"]);
        }
        markers.push(store.marker(&log.end_offsets()).unwrap());
    }
    let thirds = [KeyGroupRange { first: 0, last: 2 }, KeyGroupRange { first: 3, last: 5 }, KeyGroupRange { first: 6, last: 7 }];
    for third in thirds {
        let mut store = restored(&log, third, &markers);
        assert_eq!(store.stats().entries as u32, third.last - third.first + 1, "{third}");
        for n in (0..MAX_PARALLELISM).filter(|n| third.contains(*n)) {
            assert_eq!(bind(&mut store, n), None);
            assert_eq!(ids(&store.get(&key(n, 0)).unwrap().unwrap()), ["call"]);
        }
    }
    let mut one = restored(&log, ALL, &markers);
    assert_eq!(one.stats().entries as u32, MAX_PARALLELISM);
    assert_eq!(one.marker(&log.end_offsets()).unwrap().positions, log.end_offsets(), "the restored marker covers both stores' records");
}

#[test]
fn a_key_group_of_another_subtask_is_loaded_on_demand_and_its_history_left_to_its_owner() {
    let log = SharedLog::new(PARTITIONS);
    let mut writer = fresh(&log, ALL);
    for seq in 0..3 {
        bind(&mut writer, 6);
        run_calls(&mut writer, &key(6, seq), &["call"]);
    }
    let marker = writer.marker(&log.end_offsets()).unwrap();

    let mine = KeyGroupRange { first: 0, last: 3 };
    let mut store = restored(&log, mine, &[marker]);
    let partition = bind(&mut store, 6).expect("key group 6 is another subtask's");
    assert_eq!(partition, layout().partition_of(6));
    let err = store.put(&key(6, 9), &ActionState::default()).unwrap_err();
    assert!(err.to_string().contains("not loaded"), "{err}");
    assert!(store.get(&key(6, 0)).is_err(), "no answer from a key group not loaded");
    load(&mut store, &log, KeyGroupRange::single(6));
    assert_eq!(bind(&mut store, 6), None);
    assert_eq!(ids(&store.get(&key(6, 1)).unwrap().unwrap()), ["call"]);
    assert_eq!(store.get(&key(6, 0)).unwrap().map(|s| ids(&s)), Some(vec!["call".to_string()]));
    // A miss on another subtask's key forgets its later entries here only.
    let before = log.record_count();
    assert_eq!(store.get(&StateKey::new(user(6), 0, "other", EventIdentity::Occurrence("x".into()))).unwrap(), None);
    store.sync().unwrap();
    assert_eq!(log.record_count(), before, "no tombstone for the owner's entries");
    // An exact prune of the entry this store ran does append its tombstones.
    store.prune_entries_at(&user(6), 0).unwrap();
    store.sync().unwrap();
    assert_eq!(log.record_count(), before + 2);
}

#[test]
fn an_exact_prune_keeps_the_other_sequence_numbers() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    bind(&mut store, 5);
    for seq in 0..3 {
        run_calls(&mut store, &key(5, seq), &["call"]);
    }
    store.prune_entries_at(&user(5), 1).unwrap();
    assert!(store.get(&key(5, 0)).unwrap().is_some());
    assert!(store.get(&key(5, 2)).unwrap().is_some());
    assert_eq!(store.stats().entries, 2);
}

#[test]
fn records_of_another_lineage_are_never_read() {
    let log = SharedLog::new(PARTITIONS);
    let mut earlier = LogStore::new(log.sink(), layout(), ALL).unwrap();
    earlier.start_fresh(Lineage([7; 16])).unwrap();
    bind(&mut earlier, 0);
    run_calls(&mut earlier, &key(0, 0), &["stale"]);
    let mut ours = fresh(&log, ALL);
    bind(&mut ours, 0);
    assert_eq!(ours.get(&key(0, 0)).unwrap(), None);
    run_calls(&mut ours, &key(0, 0), &["fresh"]);
    let marker = ours.marker(&log.end_offsets()).unwrap();
    assert_eq!(restored_ids(&log, &[marker], 0, &key(0, 0)), ["fresh"]);

    let mut continued = LogStore::new(log.sink(), layout(), ALL).unwrap();
    continued.continue_history(Lineage([7; 16])).unwrap();
    load(&mut continued, &log, ALL);
    bind(&mut continued, 0);
    assert_eq!(ids(&continued.get(&key(0, 0)).unwrap().unwrap()), ["stale"], "a lineage continues without a marker");
}

#[test]
fn restores_that_would_lose_journals_are_refused() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    bind(&mut store, 4);
    run_calls(&mut store, &key(4, 0), &["call"]);
    let marker = store.marker(&log.end_offsets()).unwrap();
    let attempt = |layout: LogLayout, markers: &[LogMarker], ends: &[u64]| {
        let mut s = LogStore::new(log.sink(), layout, ALL).unwrap();
        let err = s.restore(markers, ends).unwrap_err();
        assert_eq!(err.code(), ErrorCode::IllegalState, "{err}");
        err.to_string()
    };
    let ends = log.end_offsets();
    assert!(attempt(layout(), &[], &ends).contains("no recovery marker"));
    let recreated = LogLayout::new([8; 16], PARTITIONS, MAX_PARALLELISM).unwrap();
    assert!(attempt(recreated, std::slice::from_ref(&marker), &ends).contains("topic id differs"));
    let more = LogLayout::new([9; 16], PARTITIONS + 1, MAX_PARALLELISM).unwrap();
    assert!(attempt(more, std::slice::from_ref(&marker), &[0, 0, 0, 0]).contains("partitions"));
    let regrouped = LogLayout::new([9; 16], PARTITIONS, MAX_PARALLELISM * 2).unwrap();
    let err = LogStore::new(log.sink(), regrouped, KeyGroupRange { first: 0, last: 15 }).unwrap().restore(std::slice::from_ref(&marker), &ends);
    assert!(err.unwrap_err().to_string().contains("max parallelism"));
    let truncated: Vec<u64> = ends.iter().map(|e| e.saturating_sub(1)).collect();
    assert!(attempt(layout(), std::slice::from_ref(&marker), &truncated).contains("acknowledged journal records are gone"));
    let other = LogMarker { lineage: Lineage([2; 16]), ..marker.clone() };
    assert!(attempt(layout(), &[marker, other], &ends).contains("two histories"));
}

#[test]
fn a_business_key_that_changes_key_group_is_refused() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = holding_an_entry_of(&log, 3);
    let err = store.bind_key_group(&user(3), 4).unwrap_err();
    assert!(err.to_string().contains("hashCode or the max parallelism changed"), "{err}");
    assert!(store.bind_key_group(&user(3), MAX_PARALLELISM).is_err(), "outside the key groups");
    let unbound = store.put(&key(1, 0), &ActionState::default()).unwrap_err();
    assert!(unbound.to_string().contains("no key group bound"), "{unbound}");
}

/// A caller that names a key's key group (Java's `GroupedKey`) after an
/// earlier build put the key's entries in the key group of its hash: the new
/// entries go to the named one, the earlier entry stays in its own, is found
/// and written there, and a restore reads the key in both.
#[test]
fn a_named_key_group_takes_the_keys_new_entries_and_its_earlier_entries_stay_found() {
    let log = SharedLog::new(PARTITIONS);
    let mut earlier = fresh(&log, ALL);
    run_calls(&mut earlier, &key(6, 0), &["old"]);
    let marker = earlier.marker(&log.end_offsets()).unwrap();
    let (named, hashed) = (1, 6);
    assert_eq!((layout().partition_of(named), layout().partition_of(hashed)), (0, 2));

    let mut store = restored(&log, ALL, &[marker]);
    assert_eq!(store.bind_named_key_group(&user(6), named).unwrap(), None);
    assert_eq!(ids(&store.get(&key(6, 0)).unwrap().unwrap()), ["old"], "the earlier entry, in key group 6, is found");
    let before = log.end_offsets();
    store.put(&key(6, 1), &ActionState::default()).unwrap();
    assert_eq!(log.end_offsets(), [before[0] + 1, before[1], before[2]], "the new entry is in the named key group's partition");
    complete(&mut store, &key(6, 0));
    assert_eq!(log.end_offsets(), [before[0] + 1, before[1], before[2] + 1], "the earlier entry is written in its own");
    let marker = store.marker(&log.end_offsets()).unwrap();

    // Partition 0 (the new entry) is read before partition 2 (the earlier one).
    let mut both = restored(&log, ALL, std::slice::from_ref(&marker));
    assert_eq!(both.stats().entries, 2);
    assert_eq!(both.bind_named_key_group(&user(6), named).unwrap(), None);
    assert!(both.get(&key(6, 0)).unwrap().unwrap().completed);
    assert!(both.get(&key(6, 1)).unwrap().is_some());

    // The named key group's owner alone holds the new entry only.
    let mut owner = restored(&log, KeyGroupRange::single(named), &[marker]);
    assert_eq!(owner.stats().entries, 1);
    assert_eq!(owner.bind_named_key_group(&user(6), named).unwrap(), None);
    assert!(owner.get(&key(6, 1)).unwrap().is_some());

    both.prune_state(&user(6), 1).unwrap();
    let marker = both.marker(&log.end_offsets()).unwrap();
    assert_eq!(restored(&log, ALL, &[marker]).stats().entries, 0, "tombstones in both key groups");
    assert!(both.bind_named_key_group(&user(6), MAX_PARALLELISM).is_err(), "outside the key groups");
}

#[test]
fn writes_and_markers_need_a_history_and_a_store_has_one() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = LogStore::new(log.sink(), layout(), ALL).unwrap();
    bind(&mut store, 0);
    assert!(store.put(&key(0, 0), &ActionState::default()).unwrap_err().to_string().contains("no history"));
    assert!(store.get_recovery_marker().unwrap_err().to_string().contains("no history"));
    store.start_fresh(Lineage([1; 16])).unwrap();
    assert!(store.start_fresh(Lineage([1; 16])).is_err(), "one history per store");
    let marker = store.get_recovery_marker().unwrap();
    let err = store.rebuild_state(&[marker]).unwrap_err();
    assert!(err.to_string().contains("already continues history"), "{err}");
}

/// The trait's markers are the log markers of `LogStore::marker`, at the
/// end offsets the sink reports, and restore from the sink's end as
/// `LogStore::restore` does.
#[test]
fn the_trait_takes_and_restores_log_markers_at_the_sinks_end() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = holding_an_entry_of(&log, 1);
    let marker = store.get_recovery_marker().unwrap();
    assert_eq!(marker, RecoveryMarker::Log(store.marker(&log.end_offsets()).unwrap()));
    let mut restored = LogStore::new(log.sink(), layout(), ALL).unwrap();
    restored.rebuild_state(std::slice::from_ref(&marker)).unwrap();
    load(&mut restored, &log, ALL);
    bind(&mut restored, 1);
    assert_eq!(restored.get(&key(1, 0)).unwrap(), Some(ActionState::default()));

    let err = LogStore::new(log.sink(), layout(), ALL).unwrap().rebuild_state(&[]).unwrap_err();
    assert!(err.to_string().contains("no recovery marker"), "{err}");
    log.0.lock().unwrap().partitions[layout().partition_of(1) as usize].next_offset = 0;
    let err = LogStore::new(log.sink(), layout(), ALL).unwrap().rebuild_state(&[marker]).unwrap_err();
    assert!(err.to_string().contains("acknowledged journal records are gone"), "the sink's end is checked: {err}");
}

#[test]
fn a_record_that_does_not_decode_is_reported_with_its_partition_and_offset() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = holding_an_entry_of(&log, 0);
    let marker = store.marker(&log.end_offsets()).unwrap();
    {
        let mut inner = log.0.lock().unwrap();
        let record = &mut inner.partitions[0].records[0];
        record.2.as_mut().unwrap().truncate(3);
    }
    let mut reader = LogStore::new(log.sink(), layout(), ALL).unwrap();
    reader.restore(&[marker], &log.end_offsets()).unwrap();
    reader.begin_load(ALL).unwrap();
    let (offset, k, v) = log.0.lock().unwrap().partitions[0].records[0].clone();
    let err = reader.ingest(ALL, 0, offset, &k, v.as_deref()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::StoreCorrupt);
    assert!(err.to_string().contains("memory log partition 0") && err.to_string().contains("offset 0"), "{err}");
    let garbage = reader.ingest(ALL, 0, 1, b"not ours", Some(b"x")).unwrap_err();
    assert_eq!(garbage.code(), ErrorCode::StoreCorrupt);
}

/// The record (partition, offset, key, value) holding entry `k`'s record number `ordinal`.
fn record_of(log: &SharedLog, k: &StateKey, ordinal: u64) -> (u32, u64, Vec<u8>, Vec<u8>) {
    let inner = log.0.lock().unwrap();
    for (partition, records) in inner.partitions.iter().enumerate() {
        for (offset, key, value) in &records.records {
            if record_key::entry(key).ok() == Some((k.clone(), ordinal)) {
                return (partition as u32, *offset, key.clone(), value.clone().expect("not a tombstone"));
            }
        }
    }
    panic!("no record {ordinal} of {k:?}");
}

#[test]
fn a_change_record_is_applied_only_to_the_entry_its_body_names_and_only_whole() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    run_calls(&mut store, &key(0, 0), &["a"]);
    run_calls(&mut store, &key(1, 0), &["b"]);
    let marker = store.marker(&log.end_offsets()).unwrap();
    let (put_partition, put_offset, put_key, put_value) = record_of(&log, &key(0, 0), 0);
    let (partition, offset, change_key, change_value) = record_of(&log, &key(0, 0), 1);
    let (_, _, _, other_change) = record_of(&log, &key(1, 0), 1);
    let reader = || {
        let mut reader = LogStore::new(log.sink(), layout(), ALL).unwrap();
        reader.restore(std::slice::from_ref(&marker), &log.end_offsets()).unwrap();
        reader.begin_load(ALL).unwrap();
        reader.ingest(ALL, put_partition, put_offset, &put_key, Some(&put_value)).unwrap();
        reader
    };

    let mut other = reader();
    let err = other.ingest(ALL, partition, offset, &change_key, Some(&other_change)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::StoreCorrupt);
    assert!(err.to_string().contains("unexpected record"), "{err}");

    let mut cut = reader();
    let err = cut.ingest(ALL, partition, offset, &change_key, Some(&change_value[..change_value.len() - 1])).unwrap_err();
    assert_eq!(err.code(), ErrorCode::StoreCorrupt);
    let mut padded = change_value.clone();
    padded.push(0);
    assert_eq!(cut.ingest(ALL, partition, offset, &change_key, Some(&padded)).unwrap_err().code(), ErrorCode::StoreCorrupt);

    let mut whole = reader();
    whole.ingest(ALL, partition, offset, &change_key, Some(&change_value)).unwrap();
    whole.finish_load(ALL).unwrap();
    bind(&mut whole, 0);
    assert_eq!(ids(&whole.get(&key(0, 0)).unwrap().unwrap()), ["a"]);
}

#[test]
fn a_record_over_the_logs_limit_is_refused_before_it_is_sent_and_the_store_goes_on() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    store.limit_records(400, "max.message.bytes=483 of topic 'j'").unwrap();
    let k = key(1, 0);
    let mut journal = run_calls(&mut store, &k, &["small"]);
    let sent = log.record_count();

    let big = vec![b'x'; 400];
    let err = journal
        .record_call_completion("big", Outcome::success(Some(big)), &mut ApplyTo(&mut store, &k))
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::SizeLimitExceeded, "{err}");
    let message = err.to_string();
    assert!(message.contains("over the limit of 400 bytes (max.message.bytes=483 of topic 'j')"), "{message}");
    assert_eq!(log.record_count(), sent, "nothing reached the log");
    assert_eq!(ids(journal.state()), ["small"], "the journal is unchanged");

    journal.record_call_completion("next", Outcome::success(Some(b"ok".to_vec())), &mut ApplyTo(&mut store, &k)).unwrap();
    let marker = store.marker(&log.end_offsets()).unwrap();
    assert_eq!(restored_ids(&log, &[marker], 1, &k), ["small", "next"], "the refused call left no record behind");
}

#[test]
fn an_entry_over_the_limit_is_refused_and_a_whole_put_starts_it_again() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    store.limits = StoreLimits::new(1000, 2000).unwrap();
    let k = key(2, 0);
    let mut journal = run_calls(&mut store, &k, &[]);
    let mut recorded = 0;
    let refused = loop {
        let id = format!("call-{recorded}");
        match journal.record_call_completion(&id, Outcome::success(Some(vec![b'y'; 300])), &mut ApplyTo(&mut store, &k)) {
            Ok(()) => recorded += 1,
            Err(e) => break e,
        }
        assert!(recorded < 10, "the entry limit never applied");
    };
    assert_eq!(refused.code(), ErrorCode::SizeLimitExceeded);
    assert!(refused.to_string().contains("over the limit of 2000 bytes (the store's limit per entry"), "{refused}");
    assert_eq!(store.get(&k).unwrap().unwrap().call_results.len(), recorded);
    store.put(&k, &ActionState::default()).unwrap();
    assert!(store.get(&k).unwrap().unwrap().call_results.is_empty(), "a whole put replaces the entry and its size");
}

/// A log whose acknowledgements the test hands out: records reach the log
/// at submission, and each batch's `wait` blocks until the test releases
/// it (acknowledged, or failed).
#[derive(Clone)]
struct GatedLog {
    log: SharedLog,
    gates: Arc<(Mutex<Vec<std::sync::mpsc::Sender<bool>>>, std::sync::Condvar)>,
    /// How often the store read the log's end.
    ends_read: Arc<(Mutex<usize>, std::sync::Condvar)>,
}

struct GatedAck {
    offsets: Result<Vec<u64>>,
    gate: std::sync::mpsc::Receiver<bool>,
}

impl Acknowledgement for GatedAck {
    fn wait(self: Box<Self>) -> Result<Vec<u64>> {
        match self.gate.recv() {
            Ok(true) => self.offsets,
            _ => Err(Error::StoreIo { path: "memory log".into(), source: std::io::Error::other("not acknowledged") }),
        }
    }
}

impl LogSink for GatedLog {
    fn submit(&mut self, records: &[LogRecord]) -> Result<Box<dyn Acknowledgement>> {
        let offsets = self.log.store_now(records);
        let (release, gate) = std::sync::mpsc::channel();
        let (gates, submitted) = &*self.gates;
        gates.lock().unwrap().push(release);
        submitted.notify_all();
        Ok(Box::new(GatedAck { offsets, gate }))
    }

    fn end_offsets(&mut self) -> Result<Vec<u64>> {
        let (count, read) = &*self.ends_read;
        *count.lock().unwrap() += 1;
        read.notify_all();
        Ok(self.log.end_offsets())
    }

    fn name(&self) -> &str {
        "gated log"
    }
}

impl GatedLog {
    fn new() -> GatedLog {
        GatedLog {
            log: SharedLog::new(PARTITIONS),
            gates: Arc::new((Mutex::new(Vec::new()), std::sync::Condvar::new())),
            ends_read: Arc::new((Mutex::new(0), std::sync::Condvar::new())),
        }
    }

    /// A shared store over this log, history started, every test key bound.
    fn store(&self) -> crate::store::SharedStore {
        let mut store = LogStore::new(Box::new(self.clone()), layout(), ALL).unwrap();
        store.start_fresh(Lineage([1; 16])).unwrap();
        for n in 0..4 {
            bind(&mut store, n);
        }
        crate::store::SharedStore::new(crate::store::AnyStore::Log(Box::new(store)))
    }

    /// The journal of test key 0 opened (its initial put, the first batch,
    /// acknowledged) and its call "a" recorded on another thread, submitted
    /// and waiting for the test to release batch 1. The thread returns the
    /// call's outcome and the journal's length after it.
    fn call_in_flight(&self) -> (crate::store::SharedStore, StateKey, std::thread::JoinHandle<(Result<()>, usize)>) {
        let store = self.store();
        let k = key(0, 0);
        let opener = {
            let store = store.clone();
            let k = k.clone();
            std::thread::spawn(move || store.open_journal(k, None))
        };
        self.await_submitted(1);
        self.release(0, true);
        let (mut journal, mut persister) = opener.join().unwrap().unwrap();
        let caller = std::thread::spawn(move || {
            let outcome = journal.record_call_completion("a", Outcome::success(Some(b"1".to_vec())), &mut persister);
            (outcome, journal.len())
        });
        self.await_submitted(2);
        (store, k, caller)
    }

    /// Waits until `n` batches were submitted in all.
    fn await_submitted(&self, n: usize) {
        let (gates, submitted) = &*self.gates;
        let mut gates = gates.lock().unwrap();
        while gates.len() < n {
            gates = submitted.wait(gates).unwrap();
        }
    }

    /// The partition test key 0 lives in.
    fn log_partition(&self) -> usize {
        layout().partition_of(0) as usize
    }

    /// Waits until the store read the log's end `n` times in all.
    fn await_ends_read(&self, n: usize) {
        let (count, read) = &*self.ends_read;
        let mut count = count.lock().unwrap();
        while *count < n {
            count = read.wait(count).unwrap();
        }
    }

    /// Releases batch `i` (0-based, in submission order).
    fn release(&self, i: usize, acknowledged: bool) {
        self.gates.0.lock().unwrap()[i].send(acknowledged).unwrap();
    }
}

#[test]
fn writes_of_different_entries_wait_for_the_log_together() {
    let gated = GatedLog::new();
    let store = gated.store();
    let writers: Vec<_> = (0..3)
        .map(|n| {
            let store = store.clone();
            std::thread::spawn(move || store.put(&key(n, 0), &ActionState::default()))
        })
        .collect();
    // All three were submitted while none was acknowledged: no write held
    // the store while it waited.
    gated.await_submitted(3);
    for i in 0..3 {
        gated.release(i, true);
    }
    for writer in writers {
        writer.join().unwrap().unwrap();
    }
    for n in 0..3 {
        assert_eq!(store.get(&key(n, 0)).unwrap(), Some(ActionState::default()));
    }
    let AnyStore::Log(log) = &mut *store.lock().unwrap() else { unreachable!() };
    assert_eq!((log.stats().records_appended, log.writes_in_flight()), (3, 0));
}

#[test]
fn a_read_of_an_entry_waits_for_its_write_and_sees_it() {
    let gated = GatedLog::new();
    let (store, k, caller) = gated.call_in_flight();
    let (read, was_read) = std::sync::mpsc::channel();
    let reader = {
        let store = store.clone();
        let k = k.clone();
        std::thread::spawn(move || {
            let found = store.get(&k);
            read.send(()).unwrap();
            found
        })
    };
    assert!(
        was_read.recv_timeout(std::time::Duration::from_millis(200)).is_err(),
        "the read did not wait for the entry's write in flight"
    );
    gated.release(1, true);
    let (outcome, len) = caller.join().unwrap();
    outcome.unwrap();
    assert_eq!(len, 1);
    assert_eq!(ids(&reader.join().unwrap().unwrap().unwrap()), ["a"], "the read saw the acknowledged call");
}

/// The rule a marker's starts rest on: it is taken once every write
/// submitted before it read the log's end has settled (so that write's
/// record is accounted for), and a write submitted after that read does
/// not hold it up.
#[test]
fn a_marker_waits_for_the_writes_submitted_before_it_read_the_logs_end_only() {
    let gated = GatedLog::new();
    let (store, _, caller) = gated.call_in_flight();
    let (taken, marker_taken) = std::sync::mpsc::channel();
    let marker = {
        let store = store.clone();
        std::thread::spawn(move || taken.send(store.recovery_marker()).unwrap())
    };
    gated.await_ends_read(1);
    let later = {
        let store = store.clone();
        std::thread::spawn(move || store.put(&key(1, 0), &ActionState::default()))
    };
    gated.await_submitted(3);
    gated.release(1, true);
    let marker_result = marker_taken.recv_timeout(std::time::Duration::from_secs(30));
    let Ok(Ok(RecoveryMarker::Log(marker_result))) = marker_result else {
        panic!("no marker while the write submitted after its read was in flight: {marker_result:?}");
    };
    let partition = gated.log_partition();
    assert_eq!(marker_result.positions[partition], 2, "the entry's put and the call in flight before the read");
    gated.release(2, true);
    later.join().unwrap().unwrap();
    caller.join().unwrap().0.unwrap();
    marker.join().unwrap();
}

#[test]
fn a_write_the_log_refuses_after_waiting_changes_nothing() {
    let gated = GatedLog::new();
    let (store, k, caller) = gated.call_in_flight();
    gated.release(1, false);
    let (outcome, len) = caller.join().unwrap();
    assert_eq!(outcome.unwrap_err().code(), ErrorCode::StoreIo);
    assert_eq!(len, 0, "the journal undid the call");
    assert!(store.get(&k).unwrap().unwrap().call_results.is_empty(), "the store did not apply it");
}

#[test]
fn an_entry_pruned_while_its_write_is_in_flight_stays_pruned() {
    let gated = GatedLog::new();
    let (store, k, caller) = gated.call_in_flight();
    // The prune does not wait for the write: it returns while the write is in flight.
    store.prune_state(&user(0), 0).unwrap();
    gated.release(1, true);
    caller.join().unwrap().0.unwrap();
    assert_eq!(store.get(&k).unwrap(), None, "the acknowledged write did not bring the entry back");
    let mut guard = store.lock().unwrap();
    let AnyStore::Log(log) = &mut *guard else { unreachable!() };
    assert_eq!(log.stats().tombstones_pending, 2, "one tombstone per record, the one in flight included");
    let flusher = std::thread::spawn({
        let gated = gated.clone();
        move || {
            gated.await_submitted(3);
            gated.release(2, true);
        }
    });
    log.sync().unwrap();
    flusher.join().unwrap();
    let records = &gated.log.0.lock().unwrap().partitions[gated.log_partition()].records;
    let values: Vec<bool> = records.iter().map(|(_, _, v)| v.is_some()).collect();
    assert_eq!(values, [true, true, false, false], "put, call, then their tombstones");
}

/// The log's records as `KafkaJournalTool dump` hands them to the inspector.
fn dumped(log: &SharedLog) -> Vec<inspect::DumpedRecord> {
    let log = log.0.lock().unwrap();
    let mut out = Vec::new();
    for (p, partition) in log.partitions.iter().enumerate() {
        for (offset, key, value) in &partition.records {
            out.push(inspect::DumpedRecord { partition: p as u32, offset: *offset, key: key.clone(), value: value.clone() });
        }
    }
    out
}

#[test]
fn the_inspector_rebuilds_every_lineage_as_a_restore_would_and_names_records_it_cannot_use() {
    let log = SharedLog::new(PARTITIONS);
    let mut store = fresh(&log, ALL);
    run_calls(&mut store, &key(0, 0), &["a", "b"]);
    run_calls(&mut store, &key(1, 0), &["c"]);
    complete(&mut store, &key(1, 0));
    store.prune_state(&user(1), 0).unwrap();
    store.sync().unwrap();
    let mut other = LogStore::new(log.sink(), layout(), ALL).unwrap();
    other.start_fresh(Lineage([2; 16])).unwrap();
    run_calls(&mut other, &key(2, 0), &["d"]);

    let bytes = inspect::encode_dump(&dumped(&log));
    let records = inspect::read_dump(bytes.as_slice()).unwrap();
    let inspected = inspect::inspect_records(&records);
    assert!(inspected.problems.is_empty(), "{:?}", inspected.problems);
    let lineages: Vec<(Lineage, Vec<StateKey>)> =
        inspected.lineages.iter().map(|l| (l.lineage, l.entries.iter().map(|e| e.key.clone()).collect())).collect();
    assert_eq!(lineages, [(Lineage([1; 16]), vec![key(0, 0)]), (Lineage([2; 16]), vec![key(2, 0)])]);
    assert_eq!(ids(&inspected.lineages[0].entries[0].state), ["a", "b"]);
    assert_eq!(inspected.lineages[0].tombstones, 3, "the pruned entry's put, call and completion");

    // A foreign record, and a delta whose entry's put is gone (no tombstone follows it).
    let mut broken = records.clone();
    broken.push(inspect::DumpedRecord { partition: 0, offset: 99, key: b"foreign".to_vec(), value: Some(vec![1]) });
    broken.retain(|r| r.key != records[0].key);
    let problems = inspect::inspect_records(&broken).problems;
    assert_eq!(problems.len(), 3, "user-0's two calls and the foreign record: {problems:?}");
    assert!(problems.iter().any(|p| p.offset == 99 && p.reason.contains("not a journal record key")), "{problems:?}");
    assert_eq!(problems.iter().filter(|p| p.reason.contains("without its entry")).count(), 2, "{problems:?}");
    assert!(inspect::read_dump(&bytes[..bytes.len() - 1]).is_err(), "a dump cut short is refused");
}

#[test]
fn closing_the_store_lets_go_of_its_sink_while_shares_of_it_live_on() {
    let log = SharedLog::new(PARTITIONS);
    let store = crate::store::SharedStore::new(AnyStore::Log(Box::new(holding_an_entry_of(&log, 1))));
    let share = store.clone();
    let held_by_the_sink = Arc::strong_count(&log.0);
    store.lock().unwrap().store().close().unwrap();
    assert_eq!(Arc::strong_count(&log.0), held_by_the_sink - 1, "the sink was dropped at close");
    let after = share.put(&key(1, 1), &ActionState::default()).expect_err("closed");
    assert_eq!(after.code(), ErrorCode::Closed);
}
