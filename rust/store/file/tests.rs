//! Failure paths that need the store's insides: the segment file swapped
//! for `/dev/full`, where every write fails with ENOSPC.

use std::fs::OpenOptions;

use super::*;
use crate::error::ErrorCode;
use crate::model::{CallResult, Outcome};
use crate::store::key::EventIdentity;
use crate::store::{AnyStore, SharedStore};

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Str("user-1".into()), seq, "act", EventIdentity::Occurrence(format!("occ-{seq}")))
}

/// Runs `op` on the file store inside `store`.
fn on_file<T>(store: &SharedStore, op: impl FnOnce(&mut FileStore) -> T) -> T {
    match &mut *store.lock().unwrap() {
        AnyStore::File(file) => op(file),
        _ => unreachable!("a file store"),
    }
}

fn dev_full() -> fs::File {
    OpenOptions::new().append(true).open("/dev/full").expect("/dev/full exists on Linux")
}

#[test]
fn a_write_that_hits_a_full_disk_fails_the_put_and_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = SharedStore::new(AnyStore::File(Box::new(FileStore::open(dir.path()).unwrap())));
    let k = key(1);
    let (mut journal, mut persister) = store.open_journal(k.clone(), None).unwrap();
    journal.record_call_completion("a", Outcome::success(Some(b"1".to_vec())), &mut persister).unwrap();
    let before = on_file(&store, |file| file.stats().unwrap());

    on_file(&store, |file| file.replace_segment_file_for_test(dev_full()));
    let err = journal.record_call_completion("b", Outcome::success(Some(b"2".to_vec())), &mut persister).unwrap_err();

    assert_eq!(err.code(), ErrorCode::StoreIo, "{err}");
    assert!(err.to_string().contains("No space left on device"), "{err}");
    assert_eq!(journal.len(), 1, "the journal undid the unrecorded call");
    assert_eq!(
        store.get(&k).unwrap().unwrap().call_results,
        vec![CallResult::completed("a", Outcome::success(Some(b"1".to_vec())))]
    );
    let after = on_file(&store, |file| file.stats().unwrap());
    assert_eq!((after.records_appended, after.segment_bytes), (before.records_appended, before.segment_bytes));
    drop((store, persister));

    let mut reopened = FileStore::open(dir.path()).unwrap();
    assert_eq!(reopened.recovery_report().torn_tail, None);
    assert_eq!(reopened.get(&k).unwrap().unwrap().call_results.len(), 1);
}

#[test]
fn a_write_that_cannot_be_cut_back_stops_all_later_writes() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = FileStore::open(dir.path()).unwrap();
    store.put(&key(1), &ActionState::default()).unwrap();
    // /dev/full refuses the write, and truncating a character device fails
    // too: the store cannot prove the file is clean, so it stops writing.
    store.replace_segment_file_for_test(dev_full());
    assert_eq!(store.put(&key(2), &ActionState::default()).unwrap_err().code(), ErrorCode::StoreIo);

    let refused = store.put(&key(3), &ActionState::default()).unwrap_err();
    assert_eq!(refused.code(), ErrorCode::StoreIo);
    assert!(refused.to_string().contains("until it is reopened"), "{refused}");
    assert!(store.sync().is_err());
    let unchanged = store.put(&key(1), &ActionState::default()).unwrap_err();
    assert!(unchanged.to_string().contains("until it is reopened"), "a put that writes nothing says so too: {unchanged}");
    assert!(store.get(&key(1)).unwrap().is_some(), "reads still work");
    store.close().unwrap();
    let mut reopened = FileStore::open(dir.path()).unwrap();
    assert!(reopened.get(&key(1)).unwrap().is_some());
}
