//! Bad conditions get clear errors and lose nothing: unusable directories,
//! a second writer, a full disk; and what each durability mode syncs.
//!
//! These tests run as root in CI, where permission bits do not stop writes,
//! so the unwritable directory is `/sys`, where sysfs refuses to create
//! files for root too.

#[path = "support/other_process_lock.rs"]
mod other_process_lock;
#[path = "support/shared_file.rs"]
mod shared_file;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use durable_journal::store::{
    ActionStateStore, BusinessKey, Durability, EventIdentity, FileStore, FileStoreOptions, StateKey,
};
use durable_journal::{ActionState, Error, ErrorCode, Outcome};
use shared_file::{file, store_with_empty_entry};
use other_process_lock::{can_lock, HeldLock};

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Long(1), seq, "process", EventIdentity::Occurrence(format!("occ-{seq}")))
}

fn open_error(dir: &Path) -> Error {
    match FileStore::open(dir) {
        Err(err) => err,
        Ok(_) => panic!("{} opened", dir.display()),
    }
}

fn assert_io_error_naming(err: &Error, path: &Path) {
    assert_eq!(err.code(), ErrorCode::StoreIo, "{err}");
    assert!(err.to_string().contains(&path.display().to_string()), "{err} should name {}", path.display());
}

#[test]
fn a_missing_directory_fails_at_open_with_its_path() {
    let parent = tempfile::tempdir().unwrap();
    let missing = parent.path().join("no-such-dir");
    let err = open_error(&missing);
    assert_io_error_naming(&err, &missing);
    assert!(err.to_string().contains("No such file or directory"), "{err}");
    assert!(!missing.exists(), "open does not create the directory");
}

#[test]
fn a_path_that_is_a_file_or_lies_under_one_fails_at_open_with_its_path() {
    let parent = tempfile::tempdir().unwrap();
    let file = parent.path().join("regular-file");
    fs::write(&file, b"not a directory").unwrap();
    let err = open_error(&file);
    assert_io_error_naming(&err, &file);
    assert!(err.to_string().contains("not a directory"), "{err}");

    let under_file = file.join("store");
    let err = open_error(&under_file);
    assert_io_error_naming(&err, &under_file);
}

#[test]
fn a_directory_that_is_not_writable_fails_at_open_with_its_path() {
    // sysfs refuses new files even to root; a chmod-ed directory would not.
    let unwritable = Path::new("/sys");
    let err = open_error(unwritable);
    assert_io_error_naming(&err, unwritable);
}

#[test]
fn a_second_open_of_the_same_directory_is_refused_until_the_first_closes() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = FileStore::open(dir.path()).unwrap();
    first.put(&key(1), &ActionState::default()).unwrap();

    let err = open_error(dir.path());
    assert_eq!(err.code(), ErrorCode::StoreLocked, "{err}");
    assert!(err.to_string().contains(&dir.path().display().to_string()), "{err}");
    first.put(&key(2), &ActionState::default()).unwrap();

    first.close().unwrap();
    let mut second = FileStore::open(dir.path()).unwrap();
    assert!(second.get(&key(2)).unwrap().is_some());
}

#[test]
fn another_process_holding_the_lock_file_refuses_the_store_and_vice_versa() {
    let dir = tempfile::tempdir().unwrap();
    let lock = dir.path().join("LOCK");
    let held = HeldLock::take(&lock);
    assert_eq!(open_error(dir.path()).code(), ErrorCode::StoreLocked);
    held.release();

    let store = FileStore::open(dir.path()).unwrap();
    assert!(!can_lock(&lock), "another process cannot take the lock of an open store");
    drop(store);
    assert!(can_lock(&lock));
}

#[test]
fn group_commit_needs_a_batch_of_at_least_one() {
    let dir = tempfile::tempdir().unwrap();
    let options = FileStoreOptions { durability: Durability::GroupCommit { max_batch: 0 }, ..Default::default() };
    assert_eq!(FileStore::open_with(dir.path(), options).err().unwrap().code(), ErrorCode::InvalidArgument);
}

#[test]
fn every_put_and_journal_change_is_fsynced_before_it_returns_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let k = key(1);
    let (store, mut journal, mut persister) = store_with_empty_entry(dir.path(), &k);
    journal.append_pending_call("a", &mut persister).unwrap();
    journal.finalize_current_call("a", Outcome::success(None), &mut persister).unwrap();
    assert_eq!(file(&store).stats().unwrap().syncs, 3);

    // Dropping entries may be lost in a crash without harm, so they wait
    // for the next fsync instead of paying for their own.
    store.put(&key(3), &ActionState::default()).unwrap();
    store.get(&key(2)).unwrap();
    store.prune_state(&BusinessKey::Long(1), 1).unwrap();
    assert_eq!(file(&store).stats().unwrap().syncs, 4);
    file(&store).get_recovery_marker().unwrap();
    assert_eq!(file(&store).stats().unwrap().syncs, 5);
    file(&store).sync().unwrap();
    assert_eq!(file(&store).stats().unwrap().syncs, 5, "nothing left to sync");
}

#[test]
fn group_commit_syncs_once_per_batch_and_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let options = FileStoreOptions { durability: Durability::GroupCommit { max_batch: 4 }, ..Default::default() };
    let mut store = FileStore::open_with(dir.path(), options).unwrap();
    for seq in 1..=10 {
        store.put(&key(seq), &ActionState::default()).unwrap();
    }
    assert_eq!(store.stats().unwrap().syncs, 2);
    let marker = store.get_recovery_marker().unwrap();
    assert_eq!(store.stats().unwrap().syncs, 3, "a marker never points past what is durable");
    assert_eq!(marker.as_position().unwrap().position, 10);
    store.put(&key(11), &ActionState::default()).unwrap();
    store.close().unwrap();

    let mut reopened = FileStore::open(dir.path()).unwrap();
    assert!(reopened.get(&key(11)).unwrap().is_some(), "close syncs the open batch");
}

/// A 64 KiB tmpfs, mounted for one test and unmounted when dropped.
struct SmallDisk {
    mount_point: PathBuf,
    _parent: tempfile::TempDir,
}

impl SmallDisk {
    /// `None` where this process may not mount (not root, or no CAP_SYS_ADMIN).
    fn mount() -> Option<SmallDisk> {
        let parent = tempfile::tempdir().unwrap();
        let mount_point = parent.path().join("disk");
        fs::create_dir(&mount_point).unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", "size=64k", "tmpfs", mount_point.to_str().unwrap()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(SmallDisk { mount_point, _parent: parent })
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.mount_point).status();
    }
}

#[test]
fn a_full_disk_fails_the_put_and_loses_nothing() {
    let Some(disk) = SmallDisk::mount() else {
        eprintln!("SKIPPED: cannot mount a tmpfs here; the /dev/full unit test covers write failures");
        return;
    };
    let k = key(1);
    let (store, mut journal, mut persister) = store_with_empty_entry(&disk.mount_point, &k);
    journal
        .record_call_completion("small", Outcome::success(Some(vec![1; 100])), &mut persister)
        .unwrap();
    let before = file(&store).stats().unwrap().segment_bytes;

    let err = journal
        .record_call_completion("huge", Outcome::success(Some(vec![2; 128 * 1024])), &mut persister)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::StoreIo, "{err}");
    assert!(err.to_string().contains("No space left on device"), "{err}");
    assert_eq!(journal.len(), 1, "the action sees the failure; the journal does not run ahead");
    assert_eq!(fs::metadata(file(&store).segment_path().unwrap()).unwrap().len(), before, "the partial record is cut off");

    // The store stays usable once a write fits again.
    journal.record_call_completion("next", Outcome::success(Some(vec![3; 100])), &mut persister).unwrap();
    file(&store).close().unwrap();
    let mut reopened = FileStore::open(&disk.mount_point).unwrap();
    assert_eq!(reopened.recovery_report().torn_tail, None);
    let ids: Vec<_> = reopened.get(&k).unwrap().unwrap().call_results.into_iter().map(|c| c.call_id_for_display()).collect();
    assert_eq!(ids, ["small", "next"]);
    reopened.close().unwrap();
}
