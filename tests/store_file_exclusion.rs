//! One writer per directory, and no acknowledged write into a file the store
//! no longer owns: deleting `LOCK` does not let a second store in, and a
//! store whose segment was removed or replaced under it (by a writer that
//! got in anyway, or a cleaner) fails its next write instead of
//! acknowledging a record that a reopen would not load.

#[path = "support/other_process_lock.rs"]
mod other_process_lock;
#[path = "support/shared_file.rs"]
mod shared_file;

use std::fs;
use std::path::{Path, PathBuf};

use durable_journal::store::file::LOCK_FILE;
use durable_journal::store::{ActionStateStore, BusinessKey, EventIdentity, FileStore, StateKey};
use durable_journal::{ActionState, ErrorCode, Outcome};
use shared_file::{file, store_with_empty_entry};
use other_process_lock::{can_lock, HeldLock};

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Long(5), seq, "act", EventIdentity::Occurrence(format!("occ-{seq}")))
}

fn assert_locked(dir: &Path) {
    match FileStore::open(dir) {
        Err(err) => assert_eq!(err.code(), ErrorCode::StoreLocked, "{err}"),
        Ok(_) => panic!("a second store opened {}", dir.display()),
    }
}

#[test]
fn deleting_the_lock_file_does_not_let_a_second_store_of_this_process_in() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = FileStore::open(dir.path()).unwrap();
    first.put(&key(1), &ActionState::default()).unwrap();

    fs::remove_file(dir.path().join(LOCK_FILE)).unwrap();
    assert_locked(dir.path());
    assert_locked(dir.path());
    first.put(&key(2), &ActionState::default()).unwrap();

    first.close().unwrap();
    let mut second = FileStore::open(dir.path()).unwrap();
    assert!(dir.path().join(LOCK_FILE).exists(), "the lock file is recreated");
    assert!(second.get(&key(1)).unwrap().is_some() && second.get(&key(2)).unwrap().is_some());
}

#[test]
fn deleting_the_lock_file_does_not_let_another_process_in() {
    let dir = tempfile::tempdir().unwrap();
    let store = FileStore::open(dir.path()).unwrap();
    fs::remove_file(dir.path().join(LOCK_FILE)).unwrap();
    assert!(!can_lock(dir.path()), "the directory stays locked while the store is open");
    drop(store);
    assert!(can_lock(dir.path()));
}

#[test]
fn another_process_holding_the_directory_itself_refuses_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let held = HeldLock::take(dir.path());
    assert_locked(dir.path());
    held.release();
    FileStore::open(dir.path()).unwrap();
}

fn segment_name(generation: u64) -> String {
    format!("journal-{generation:016x}.log")
}

/// What a second writer that got into `dir` would leave behind after a
/// compaction: the next generation, holding what it loaded, renamed into
/// place, and the generation the first store appends to removed. It works
/// on a copy (the real second writer cannot open the directory any more)
/// and puts the result in place the way compaction does.
fn compact_behind_the_back_of(dir: &Path, segment: &Path) -> PathBuf {
    let copy = tempfile::tempdir().unwrap();
    fs::set_permissions(copy.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    fs::copy(segment, copy.path().join(segment.file_name().unwrap())).unwrap();
    let mut second = FileStore::open(copy.path()).unwrap();
    second.compact().unwrap();
    let compacted = second.segment_path().unwrap();
    second.close().unwrap();
    let target = dir.join(compacted.file_name().unwrap());
    let temp = dir.join("second-writer.tmp");
    fs::copy(&compacted, &temp).unwrap();
    fs::rename(&temp, &target).unwrap();
    fs::remove_file(segment).unwrap();
    target
}

#[test]
fn a_store_whose_segment_was_compacted_away_fails_its_next_write_and_loses_nothing_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(1);
    let (store, mut journal, mut persister) = store_with_empty_entry(dir.path(), &k);
    journal.record_call_completion("a", Outcome::success(Some(b"1".to_vec())), &mut persister).unwrap();
    let segment = file(&store).segment_path().unwrap();
    assert!(segment.ends_with(segment_name(1)));

    let compacted = compact_behind_the_back_of(dir.path(), &segment);

    let err = journal
        .record_call_completion("b", Outcome::success(Some(b"2".to_vec())), &mut persister)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::StoreIo, "{err}");
    let message = err.to_string();
    assert!(message.contains(&segment.display().to_string()), "{message} names the segment");
    assert!(message.contains("removed or renamed"), "{message}");
    assert_eq!(journal.len(), 1, "the journal undid the call the store refused");

    // Read-only from now on, with the same explanation.
    let refused = store.put(&key(2), &ActionState::default()).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::StoreIo);
    assert!(refused.to_string().contains("refuses writes until it is reopened"), "{refused}");
    assert!(refused.to_string().contains("removed or renamed"), "{refused}");
    assert_eq!(file(&store).compact().unwrap_err().code(), ErrorCode::StoreIo, "a snapshot of a stale table is refused");
    assert_eq!(store.get(&k).unwrap().unwrap().call_results.len(), 1, "reads still work");
    drop((store, persister)); // the last shares of the store: it is dropped, its lock released

    let mut reopened = FileStore::open(dir.path()).unwrap();
    assert_eq!(reopened.segment_path().unwrap(), compacted);
    let calls = reopened.get(&k).unwrap().unwrap().call_results;
    assert_eq!(calls, journal.state().call_results, "everything acknowledged is there, nothing else");
    assert_eq!(reopened.get(&key(2)).unwrap(), None);
}

/// Puts another file at `segment`'s path the way tools do: write it
/// beside, then rename it over.
fn replace_with_another_file(segment: &Path) {
    let temp = segment.with_extension("new");
    fs::write(&temp, b"someone else's file").unwrap();
    fs::rename(&temp, segment).unwrap();
}

#[test]
fn a_store_whose_segment_was_replaced_removed_or_renamed_refuses_to_write() {
    type Case = (&'static str, fn(&Path));
    let cases: [Case; 3] = [
        ("replaced by another file", replace_with_another_file),
        ("removed or renamed", |segment| fs::remove_file(segment).unwrap()),
        ("removed or renamed", |segment| fs::rename(segment, segment.with_extension("old")).unwrap()),
    ];
    for (what, change) in cases {
        let dir = tempfile::tempdir().unwrap();
        let mut store = FileStore::open(dir.path()).unwrap();
        store.put(&key(1), &ActionState::default()).unwrap();
        let segment = store.segment_path().unwrap();
        change(&segment);

        let err = store.put(&key(2), &ActionState::default()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::StoreIo, "{err}");
        assert!(err.to_string().contains(what), "{err}");
        assert!(err.to_string().contains(&segment.display().to_string()), "{err}");
        assert!(store.put(&key(3), &ActionState::default()).is_err());
        assert!(store.get(&key(1)).unwrap().is_some(), "reads still work");
    }
}

#[test]
fn under_group_commit_a_removed_segment_fails_the_next_sync_and_no_marker_covers_it() {
    use durable_journal::store::{Durability, FileStoreOptions};
    let dir = tempfile::tempdir().unwrap();
    let options = FileStoreOptions { durability: Durability::GroupCommit { max_batch: 100 }, ..Default::default() };
    let mut store = FileStore::open_with(dir.path(), options).unwrap();
    store.put(&key(1), &ActionState::default()).unwrap();
    let marker = store.get_recovery_marker().unwrap();
    fs::remove_file(store.segment_path().unwrap()).unwrap();

    // Group commit acknowledges on the write to the OS and checks where it
    // makes records durable: at the batch's fsync, a sync, or a marker.
    store.put(&key(2), &ActionState::default()).unwrap();
    let err = store.get_recovery_marker().unwrap_err();
    assert_eq!(err.code(), ErrorCode::StoreIo, "{err}");
    assert!(err.to_string().contains("removed or renamed"), "{err}");
    assert!(store.sync().is_err() && store.put(&key(3), &ActionState::default()).is_err());
    assert_eq!(marker.as_position().unwrap().position, 1, "the last marker handed out covers only the record written before");
}
