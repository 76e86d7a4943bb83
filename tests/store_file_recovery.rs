//! The file store across reopen: what survives, what a crash may cut off,
//! what counts as corruption, compaction, and recovery markers.

#[path = "support/exact_state.rs"]
mod exact_state;

#[path = "support/shared_file.rs"]
mod shared_file;

use std::fs;
use std::path::{Path, PathBuf};

use durable_journal::store::{
    ActionStateStore, BusinessKey, CompactionPolicy, EventIdentity, FileStore, FileStoreOptions, SharedStore,
    SharedStorePersister, StateKey,
};
use durable_journal::{ActionState, CallResult, CallStep, Error, ErrorCode, Journal, Outcome};
use serde_json::json;

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Str("user-1".into()), seq, "process", EventIdentity::Occurrence(format!("occ-{seq}")))
}

fn event(text: &str) -> ActionState {
    ActionState { task_event: Some(json!({"@class": "org.example.InputEvent", "input": text}).into()), ..Default::default() }
}

fn ok(id: &str, payload: &[u8]) -> CallResult {
    CallResult::completed(id, Outcome::success(Some(payload.to_vec())))
}

/// Records `n` calls of `payload_len` bytes for the action at `k`.
fn record_calls(store: &SharedStore, k: &StateKey, n: usize, payload_len: usize) -> (Journal, SharedStorePersister) {
    let (mut journal, mut persister) = store.open_journal(k.clone(), None).unwrap();
    for i in 0..n {
        let id = format!("call-{i}");
        journal.record_call_completion(&id, Outcome::success(Some(vec![i as u8; payload_len])), &mut persister).unwrap();
    }
    (journal, persister)
}

/// A store opened in `dir` with one entry put: key 1, event "one".
fn holding_one(dir: &Path) -> SharedStore {
    let store = shared_file::share(FileStore::open(dir).unwrap());
    store.put(&key(1), &event("one")).unwrap();
    store
}

fn segment_of(store: &SharedStore) -> PathBuf {
    shared_file::file(store).segment_path().unwrap()
}

fn expect_corrupt(dir: &Path) -> (PathBuf, u64, String) {
    match FileStore::open(dir) {
        Err(Error::StoreCorrupt { path, offset, reason }) => (path, offset, reason),
        Err(other) => panic!("expected StoreCorrupt, got {other}"),
        Ok(_) => panic!("expected StoreCorrupt, the store opened"),
    }
}

#[test]
fn reopening_restores_entries_journals_hides_and_prunes() {
    let dir = tempfile::tempdir().unwrap();
    let journal = {
        let store = shared_file::share(FileStore::open(dir.path()).unwrap());
        assert!(shared_file::file(&store).recovery_report().created);
        for seq in 1..=5 {
            store.put(&key(seq), &event(&seq.to_string())).unwrap();
        }
        let (journal, _) = record_calls(&store, &key(2), 3, 10);
        store.prune_state(&BusinessKey::Str("user-1".into()), 1).unwrap();
        assert_eq!(store.get(&key(4).clone_with_action("other")).unwrap(), None);
        shared_file::file(&store).close().unwrap();
        journal
    };
    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    let report = shared_file::file(&store).recovery_report().clone();
    assert!(!report.created);
    assert_eq!(report.torn_tail, None);
    assert_eq!(store.get(&key(2)).unwrap().unwrap().call_results, journal.state().call_results);
    assert_eq!(store.get(&key(4)).unwrap().unwrap().task_event.unwrap().to_value().unwrap()["input"], "4");
    assert_eq!(store.get(&key(5)).unwrap(), None, "hidden by the miss at seq 4 before the reopen");
    assert_eq!(store.get(&key(1)).unwrap(), None, "pruned before the reopen");
}

/// Records of several actions, in runs of one action and interleaved, and
/// a finalize, a cut and a completion among them: the reopened store holds
/// every entry exactly as written (the loader decodes a run's key once).
#[test]
fn interleaved_journals_reopen_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let written: Vec<(StateKey, ActionState)> = {
        let store = shared_file::share(FileStore::open(dir.path()).unwrap());
        let keys = [key(1), key(2), key(1).clone_with_action("other")];
        for k in &keys {
            store.put(k, &event("q")).unwrap();
        }
        let mut journals: Vec<_> = keys.iter().map(|k| store.open_journal(k.clone(), None).unwrap()).collect();
        for round in 0..4 {
            for (j, (journal, persister)) in journals.iter_mut().enumerate() {
                // Runs of one, two and three calls of each action in turn.
                for call in 0..=j {
                    let id = format!("call-{round}-{call}");
                    journal.record_call_completion(&id, Outcome::success(Some(vec![j as u8; 5])), persister).unwrap();
                }
            }
        }
        let (journal, persister) = &mut journals[1];
        journal.begin_call("pending", true, persister).unwrap();
        journal.complete_call("pending", Outcome::success(Some(b"done".to_vec())), persister).unwrap();
        let (journal, persister) = &mut journals[2];
        journal.clear_call_results_from_and_persist(2, persister).unwrap();
        let (journal, persister) = &mut journals[0];
        journal.mark_completed(persister).unwrap();
        let written = keys.iter().map(|k| (k.clone(), store.get(k).unwrap().unwrap())).collect();
        shared_file::file(&store).close().unwrap();
        written
    };
    assert_eq!(written[1].1.call_results.len(), 9);
    assert_eq!(written[2].1.call_results.len(), 2);
    assert!(written[0].1.completed);
    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    for (k, state) in &written {
        assert_eq!(store.get(k).unwrap().as_ref(), Some(state), "{k:?}");
    }
}

trait WithAction {
    fn clone_with_action(&self, action: &str) -> StateKey;
}

impl WithAction for StateKey {
    fn clone_with_action(&self, action: &str) -> StateKey {
        StateKey { action: action.into(), ..self.clone() }
    }
}

#[test]
fn a_torn_final_record_is_dropped_at_every_cut_and_everything_before_it_kept() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, before_last, full) = {
        let store = holding_one(dir.path());
        let (mut journal, mut persister) = record_calls(&store, &key(1), 2, 16);
        let before_last = shared_file::file(&store).stats().unwrap().segment_bytes;
        journal
            .record_call_completion("last", Outcome::success(Some(vec![7; 300])), &mut persister)
            .unwrap();
        let segment = segment_of(&store);
        shared_file::file(&store).close().unwrap();
        let full = fs::read(&segment).unwrap();
        (segment, before_last, full)
    };
    let last_len = full.len() as u64 - before_last;
    assert!(last_len > 300);

    for cut in before_last..full.len() as u64 {
        fs::write(&segment, &full[..cut as usize]).unwrap();
        let store = shared_file::share(FileStore::open(dir.path()).unwrap());
        let torn = shared_file::file(&store).recovery_report().torn_tail.clone();
        if cut == before_last {
            assert_eq!(torn, None, "nothing torn at a record boundary");
        } else {
            let torn = torn.unwrap_or_else(|| panic!("cut at {cut} not reported"));
            assert_eq!((torn.offset, torn.bytes), (before_last, cut - before_last), "cut at {cut}");
            assert_eq!(torn.path, segment);
        }
        let slots = store.get(&key(1)).unwrap().unwrap().call_results;
        assert_eq!(slots, vec![ok("call-0", &[0; 16]), ok("call-1", &[1; 16])], "cut at {cut}");
        assert_eq!(fs::metadata(&segment).unwrap().len(), before_last, "the torn bytes are gone from disk");
        shared_file::file(&store).close().unwrap();
    }

    // After a repair the log takes new records and keeps them.
    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    store.put(&key(2), &event("two")).unwrap();
    shared_file::file(&store).close().unwrap();
    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    assert!(store.get(&key(2)).unwrap().is_some());
    assert_eq!(store.get(&key(1)).unwrap().unwrap().call_results.len(), 2);
}

#[test]
fn a_zero_filled_tail_left_by_a_crash_is_dropped() {
    let dir = tempfile::tempdir().unwrap();
    let segment = {
        let store = holding_one(dir.path());
        segment_of(&store)
    };
    let intact = fs::metadata(&segment).unwrap().len();
    let mut bytes = fs::read(&segment).unwrap();
    bytes.extend_from_slice(&[0u8; 4096]);
    fs::write(&segment, &bytes).unwrap();

    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    let torn = shared_file::file(&store).recovery_report().torn_tail.clone().unwrap();
    assert_eq!((torn.offset, torn.bytes), (intact, 4096));
    assert!(store.get(&key(1)).unwrap().is_some());
}

/// Three records; returns the segment, its bytes, and where each record starts.
fn three_records(dir: &Path) -> (PathBuf, Vec<u8>, [u64; 3]) {
    let store = shared_file::share(FileStore::open(dir).unwrap());
    let mut starts = [0; 3];
    for (i, seq) in [1, 2, 3].into_iter().enumerate() {
        starts[i] = shared_file::file(&store).stats().unwrap().segment_bytes;
        store.put(&key(seq), &event(&"x".repeat(100))).unwrap();
    }
    let segment = segment_of(&store);
    shared_file::file(&store).close().unwrap();
    let bytes = fs::read(&segment).unwrap();
    (segment, bytes, starts)
}

#[test]
fn a_damaged_record_in_the_middle_is_an_error_naming_file_and_offset_and_nothing_is_cut() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, bytes, starts) = three_records(dir.path());
    // One byte in the payload, the payload checksum, the length, the offset, the header checksum.
    for damaged_at in [starts[1] + 40, starts[1] + 5, starts[1], starts[1] + 9, starts[1] + 17] {
        let mut damaged = bytes.clone();
        damaged[damaged_at as usize] ^= 0x40;
        fs::write(&segment, &damaged).unwrap();

        let (path, offset, reason) = expect_corrupt(dir.path());
        assert_eq!(path, segment);
        assert_eq!(offset, starts[1], "damage at {damaged_at}: {reason}");
        assert!(reason.contains(&format!("intact records follow at offset {}", starts[2])), "{reason}");
        assert_eq!(fs::read(&segment).unwrap(), damaged, "a refused open changes nothing");
    }
    let message = {
        let mut damaged = bytes.clone();
        damaged[starts[1] as usize + 40] ^= 0x40;
        fs::write(&segment, &damaged).unwrap();
        FileStore::open(dir.path()).err().unwrap().to_string()
    };
    assert!(message.contains(&segment.display().to_string()) && message.contains(&starts[1].to_string()), "{message}");
}

#[test]
fn a_damaged_segment_header_is_corruption_at_offset_zero() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, bytes, _) = three_records(dir.path());
    for (at, expected) in [(0, "bad magic"), (20, "checksum"), (9, "checksum")] {
        let mut damaged = bytes.clone();
        damaged[at] ^= 1;
        fs::write(&segment, &damaged).unwrap();
        let (path, offset, reason) = expect_corrupt(dir.path());
        assert_eq!((path, offset), (segment.clone(), 0));
        assert!(reason.contains(expected), "{reason}");
    }
    fs::write(&segment, &bytes[..10]).unwrap();
    assert!(expect_corrupt(dir.path()).2.contains("shorter than a segment header"));
}

#[test]
fn an_intact_frame_that_does_not_decode_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, mut bytes, _) = three_records(dir.path());
    let end = bytes.len() as u64;
    // A frame as docs/store.md defines it (format 2), around an unknown record type.
    let payload = [0xEEu8];
    let mut header = Vec::new();
    header.extend_from_slice(&1u32.to_le_bytes());
    header.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    header.extend_from_slice(&end.to_le_bytes());
    let header_crc = crc32fast::hash(&header);
    header.extend_from_slice(&header_crc.to_le_bytes());
    bytes.extend_from_slice(&header);
    bytes.extend_from_slice(&payload);
    fs::write(&segment, &bytes).unwrap();

    let (_, offset, reason) = expect_corrupt(dir.path());
    assert_eq!(offset, end);
    assert!(reason.contains("unknown record type 238"), "{reason}");
}

#[test]
fn prune_compacts_the_log_and_everything_live_survives_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let options = FileStoreOptions { compaction: CompactionPolicy::eager(), ..Default::default() };
    let (old_segment, marker) = {
        let store = shared_file::share(FileStore::open_with(dir.path(), options).unwrap());
        for seq in 1..=20 {
            store.put(&key(seq), &event(&"p".repeat(1000))).unwrap();
        }
        let _ = record_calls(&store, &key(20), 3, 500);
        let marker = shared_file::file(&store).get_recovery_marker().unwrap();
        let old_segment = segment_of(&store);
        let before = shared_file::file(&store).stats().unwrap();

        store.prune_state(&BusinessKey::Str("user-1".into()), 15).unwrap();

        let after = shared_file::file(&store).stats().unwrap();
        assert_eq!(after.compactions, 1);
        assert!(after.segment_bytes * 3 < before.segment_bytes, "{} -> {}", before.segment_bytes, after.segment_bytes);
        assert_ne!(segment_of(&store), old_segment);
        assert!(!old_segment.exists(), "the old generation is removed");
        assert_eq!(after.entries, 5);
        let later = shared_file::file(&store).get_recovery_marker().unwrap();
        assert!(later.as_position().unwrap().position > marker.as_position().unwrap().position, "positions keep counting across compaction");
        store.put(&key(21), &event("after compaction")).unwrap();
        shared_file::file(&store).close().unwrap();
        (old_segment, marker)
    };
    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    assert_eq!(shared_file::file(&store).recovery_report().records_replayed, 6, "5 snapshot records and one put");
    shared_file::file(&store).rebuild_state(&[marker]).unwrap();
    assert!(!old_segment.exists());
    assert_eq!(store.get(&key(20)).unwrap().unwrap().call_results.len(), 3);
    assert!(store.get(&key(21)).unwrap().is_some());
    assert!(store.get(&key(16)).unwrap().is_some());
    assert_eq!(store.get(&key(15)).unwrap(), None);
}

#[test]
fn the_default_policy_leaves_small_logs_alone() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = FileStore::open(dir.path()).unwrap();
    for seq in 1..=3 {
        store.put(&key(seq), &event("small")).unwrap();
    }
    store.prune_state(&BusinessKey::Str("user-1".into()), 2).unwrap();
    assert_eq!(store.stats().unwrap().compactions, 0);
    store.compact().unwrap();
    assert_eq!(store.stats().unwrap().compactions, 1);
    assert_eq!(store.stats().unwrap().entries, 1);
}

#[test]
fn leftovers_of_an_interrupted_compaction_are_removed_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let segment = {
        let store = holding_one(dir.path());
        shared_file::file(&store).compact().unwrap();
        store.put(&key(2), &event("two")).unwrap();
        segment_of(&store)
    };
    assert!(segment.ends_with("journal-0000000000000002.log"));
    // A crash after the rename but before the old generation was removed,
    // and one during the write of a later snapshot.
    let older = dir.path().join("journal-0000000000000001.log");
    fs::write(&older, b"stale generation").unwrap();
    let temp = dir.path().join("journal-0000000000000003.log.tmp");
    fs::write(&temp, b"half a snapshot").unwrap();

    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    let mut removed = shared_file::file(&store).recovery_report().removed_files.clone();
    removed.sort();
    assert_eq!(removed, vec![older.clone(), temp.clone()]);
    assert!(!older.exists() && !temp.exists());
    assert!(store.get(&key(1)).unwrap().is_some() && store.get(&key(2)).unwrap().is_some());
}

#[test]
fn journal_writes_after_the_marker_are_kept_and_replayed_after_failover() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(1);
    let marker = {
        let store = shared_file::share(FileStore::open(dir.path()).unwrap());
        let (mut journal, mut persister) = store.open_journal(k.clone(), Some(event("go"))).unwrap();
        journal
            .record_call_completion("before", Outcome::success(Some(b"1".to_vec())), &mut persister)
            .unwrap();
        let marker = shared_file::file(&store).get_recovery_marker().unwrap();
        journal
            .record_call_completion("after", Outcome::success(Some(b"2".to_vec())), &mut persister)
            .unwrap();
        journal.begin_call("pending", true, &mut persister).unwrap();
        // The process dies here. Every acknowledged write is already
        // fsynced, so dropping the store leaves the disk as a crash would.
        drop((store, persister));
        marker
    };

    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    shared_file::file(&store).rebuild_state(&[durable_journal::store::RecoveryMarker::from_bytes(&marker.to_bytes()).unwrap()]).unwrap();
    let (mut replay, mut persister) = store.open_journal(k.clone(), None).unwrap();
    assert_eq!(replay.begin_call("before", false, &mut persister).unwrap(), CallStep::Replay(ok("before", b"1")));
    assert_eq!(replay.begin_call("after", false, &mut persister).unwrap(), CallStep::Replay(ok("after", b"2")));
    assert_eq!(replay.begin_call("pending", true, &mut persister).unwrap(), CallStep::Reconcile);
}

#[test]
fn a_store_behind_the_checkpoint_is_refused_on_rebuild() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, older_copy, marker) = {
        let store = holding_one(dir.path());
        let segment = segment_of(&store);
        let older_copy = fs::read(&segment).unwrap();
        store.put(&key(2), &event("two")).unwrap();
        let marker = shared_file::file(&store).get_recovery_marker().unwrap();
        shared_file::file(&store).close().unwrap();
        (segment, older_copy, marker)
    };
    fs::write(&segment, older_copy).unwrap();

    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    let err = shared_file::file(&store).rebuild_state(&[marker]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::IllegalState);
    assert!(err.to_string().contains("behind the checkpoint"), "{err}");
    assert!(err.to_string().contains(&dir.path().display().to_string()), "{err}");
}

#[test]
fn markers_of_another_store_directory_are_refused_on_rebuild() {
    let first = tempfile::tempdir().unwrap();
    let marker = FileStore::open(first.path()).unwrap().get_recovery_marker().unwrap();
    let second = tempfile::tempdir().unwrap();
    let mut store = FileStore::open(second.path()).unwrap();
    let err = store.rebuild_state(&[marker]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::IllegalState);
    assert!(err.to_string().contains("different store directory"), "{err}");
    store.rebuild_state(&[]).unwrap();
}

#[test]
fn exact_data_survives_reopen_and_compaction() {
    let dir = tempfile::tempdir().unwrap();
    let state = exact_state::exact_state();
    {
        let store = shared_file::share(FileStore::open(dir.path()).unwrap());
        let (mut journal, mut persister) = store.open_journal(key(1), Some(state.clone())).unwrap();
        journal.advance_call_index_by(3).unwrap();
        journal.complete_call("py.search::0123456789abcdef", Outcome::success(Some(b"r".to_vec())), &mut persister).unwrap();
        shared_file::file(&store).close().unwrap();
    }
    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    let reopened = store.get(&key(1)).unwrap().unwrap();
    let mut expected = state;
    expected.call_results[3] = CallResult {
        args_digest: Some("9f86d081884c7d65".into()),
        ..ok("py.search::0123456789abcdef", b"r")
    };
    assert!(reopened == expected, "the reopened state differs from what was written");
    shared_file::file(&store).compact().unwrap();
    shared_file::file(&store).close().unwrap();
    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    assert!(store.get(&key(1)).unwrap().unwrap() == reopened, "compaction changed the state");
}
