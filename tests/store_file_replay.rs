//! A frame that is intact but not where it was written (a write repeated or
//! misdirected by a disk, a driver or a tool) is corruption naming file and
//! offset, never replayed: replaying it would silently reset its entry. And
//! segments of the previous format, whose frames carry no offset, still load.

#[path = "support/store_v1_fixture.rs"]
mod fixture;
#[path = "support/shared_file.rs"]
mod shared_file;

use std::fs;
use std::path::{Path, PathBuf};

use durable_journal::store::file::FORMAT_VERSION;
use durable_journal::store::{
    ActionStateStore, BusinessKey, EventIdentity, FileStore, MemoryStore, PositionMarker, RecoveryMarker, StateKey, StoreId,
};
use durable_journal::{ActionState, Error, Outcome};
use serde_json::json;

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Long(3), seq, "answer", EventIdentity::Occurrence(format!("occ-{seq}")))
}

/// A store whose first entry has a journal of two calls, then a second
/// entry. Returns the segment, its bytes, and where each of the four
/// records starts: the put of entry 1, its two calls, the put of entry 2.
fn store_with_calls(dir: &Path) -> (PathBuf, Vec<u8>, Vec<u64>) {
    let store = shared_file::share(FileStore::open(dir).unwrap());
    let segment_bytes = || shared_file::file(&store).stats().unwrap().segment_bytes;
    let mut starts = vec![segment_bytes()];
    let initial = ActionState { task_event: Some(json!({"@class": "E"}).into()), ..Default::default() };
    let (mut journal, mut persister) = store.open_journal(key(1), Some(initial)).unwrap();
    for call in ["call-a", "call-b"] {
        starts.push(segment_bytes());
        let payload = Some(call.as_bytes().to_vec());
        journal.record_call_completion(call, Outcome::success(payload), &mut persister).unwrap();
    }
    starts.push(segment_bytes());
    store.put(&key(2), &ActionState::default()).unwrap();
    let segment = shared_file::file(&store).segment_path().unwrap();
    shared_file::file(&store).close().unwrap();
    let bytes = fs::read(&segment).unwrap();
    (segment, bytes, starts)
}

fn expect_corrupt(dir: &Path) -> (PathBuf, u64, String) {
    match FileStore::open(dir) {
        Err(Error::StoreCorrupt { path, offset, reason }) => (path, offset, reason),
        Err(other) => panic!("expected StoreCorrupt, got {other}"),
        Ok(store) => panic!("expected StoreCorrupt, the store opened: {:?}", store.recovery_report()),
    }
}

#[test]
fn a_copy_of_an_earlier_record_appended_to_the_log_is_corruption_not_a_reset_entry() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, bytes, starts) = store_with_calls(dir.path());
    // The put of entry 1, whose replay would wipe its two recorded calls.
    let replayed = &bytes[starts[0] as usize..starts[1] as usize];
    let mut damaged = bytes.clone();
    damaged.extend_from_slice(replayed);
    fs::write(&segment, &damaged).unwrap();

    let (path, offset, reason) = expect_corrupt(dir.path());
    assert_eq!((path, offset), (segment.clone(), bytes.len() as u64));
    assert!(reason.contains(&format!("written at offset {}", starts[0])), "{reason}");
    assert!(reason.contains("repeated or misdirected"), "{reason}");
    assert_eq!(fs::read(&segment).unwrap(), damaged, "a refused open changes nothing");
}

#[test]
fn a_copy_of_an_earlier_record_inserted_mid_file_is_corruption_where_it_lies() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, bytes, starts) = store_with_calls(dir.path());
    for (copied, at) in [(0, 3), (1, 2), (2, 1)] {
        let record = &bytes[starts[copied] as usize..starts[copied + 1] as usize];
        let mut damaged = bytes[..starts[at] as usize].to_vec();
        damaged.extend_from_slice(record);
        damaged.extend_from_slice(&bytes[starts[at] as usize..]);
        fs::write(&segment, &damaged).unwrap();

        let (path, offset, reason) = expect_corrupt(dir.path());
        assert_eq!((path, offset), (segment.clone(), starts[at]), "record {copied} inserted before record {at}");
        assert!(reason.contains(&format!("written at offset {}", starts[copied])), "{reason}");
    }
}

#[test]
fn a_copy_of_a_record_over_a_later_one_is_corruption() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, bytes, starts) = store_with_calls(dir.path());
    // The second call's record and the first's have the same length: a
    // misdirected write of the first lands exactly over the second.
    let (first, second) = (starts[1] as usize..starts[2] as usize, starts[2] as usize..starts[3] as usize);
    assert_eq!(first.len(), second.len());
    let mut damaged = bytes.clone();
    damaged.copy_within(first, second.start);
    fs::write(&segment, &damaged).unwrap();

    let (_, offset, reason) = expect_corrupt(dir.path());
    assert_eq!(offset, starts[2], "{reason}");
}

#[test]
fn a_copied_record_after_a_torn_one_makes_the_damage_corruption_not_a_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, bytes, starts) = store_with_calls(dir.path());
    let mut damaged = bytes[..bytes.len() - 3].to_vec();
    damaged.extend_from_slice(&bytes[starts[0] as usize..starts[1] as usize]);
    fs::write(&segment, &damaged).unwrap();

    let (_, offset, reason) = expect_corrupt(dir.path());
    assert_eq!(offset, starts[3]);
    assert!(reason.contains(&format!("intact records follow at offset {}", bytes.len() - 3)), "{reason}");
}

/// Copies the format-1 fixture into a fresh directory (opening it for
/// writing rewrites it, so the fixture itself is never opened).
fn fixture_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    // Private, as the store requires of a directory holding a segment (docs/security.md).
    fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
    let name = "journal-0000000000000002.log";
    fs::copy(Path::new(fixture::FIXTURE_DIR).join(name), dir.path().join(name)).unwrap();
    let segment = dir.path().join(name);
    (dir, segment)
}

fn expected_fixture_content() -> MemoryStore {
    let mut expected = MemoryStore::new();
    fixture::before_compaction(&mut expected);
    fixture::after_compaction(&mut expected);
    expected
}

fn assert_holds_fixture_content(store: &mut FileStore) {
    let mut expected = expected_fixture_content();
    for k in fixture::keys() {
        assert_eq!(store.get(&k).unwrap(), expected.get(&k).unwrap(), "{k:?}");
    }
}

fn fixture_marker(position: u64) -> RecoveryMarker {
    let hex = fixture::STORE_ID_HEX.trim();
    let id: Vec<u8> = (0..16).map(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap()).collect();
    PositionMarker { store_id: StoreId(id.try_into().unwrap()), position }.into()
}

#[test]
fn a_store_written_in_format_1_loads_every_entry_and_is_rewritten_in_the_current_format() {
    let (dir, old_segment) = fixture_copy();
    assert_eq!(fs::read(&old_segment).unwrap()[8..12], 1u32.to_le_bytes(), "the fixture is format 1");

    let mut store = FileStore::open(dir.path()).unwrap();
    assert_eq!(store.recovery_report().upgraded_from_version, Some(1));
    assert_eq!(store.recovery_report().torn_tail, None);
    let segment = store.segment_path().unwrap();
    assert!(segment.ends_with("journal-0000000000000003.log"), "{segment:?}");
    assert!(!old_segment.exists(), "the format-1 generation is replaced");
    assert_eq!(fs::read(&segment).unwrap()[8..12], FORMAT_VERSION.to_le_bytes());
    assert_holds_fixture_content(&mut store);
    // Positions and the store id survive the rewrite, so checkpoints taken
    // before the upgrade still restore.
    store.rebuild_state(&[fixture_marker(fixture::POSITION)]).unwrap();
    assert!(store.rebuild_state(&[fixture_marker(fixture::POSITION + 1)]).is_err());

    store.put(&key(9), &ActionState::default()).unwrap();
    store.close().unwrap();
    let mut reopened = FileStore::open(dir.path()).unwrap();
    assert_eq!(reopened.recovery_report().upgraded_from_version, None);
    assert_holds_fixture_content(&mut reopened);
    assert!(reopened.get(&key(9)).unwrap().is_some());
    assert_eq!(reopened.get_recovery_marker().unwrap(), fixture_marker(fixture::POSITION + 1));
}

#[test]
fn inspecting_a_format_1_store_reads_it_without_rewriting_it() {
    let (dir, segment) = fixture_copy();
    let inspected = FileStore::inspect(dir.path()).unwrap();
    assert_eq!((inspected.format_version, inspected.position), (1, fixture::POSITION));
    let mut expected = expected_fixture_content();
    let live: Vec<StateKey> = fixture::keys().into_iter().filter(|k| expected.get(k).unwrap().is_some()).collect();
    assert_eq!(inspected.entries.iter().map(|e| e.key.clone()).collect::<Vec<_>>(), live);
    assert_eq!(
        fs::read(&segment).unwrap(),
        fs::read(Path::new(fixture::FIXTURE_DIR).join(segment.file_name().unwrap())).unwrap()
    );
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "no lock file, no new generation");
}

#[test]
fn a_torn_tail_of_a_format_1_segment_is_dropped_before_the_rewrite() {
    let (dir, segment) = fixture_copy();
    let bytes = fs::read(&segment).unwrap();
    fs::write(&segment, &bytes[..bytes.len() - 5]).unwrap();

    let mut store = FileStore::open(dir.path()).unwrap();
    let report = store.recovery_report().clone();
    assert_eq!(report.upgraded_from_version, Some(1));
    let torn = report.torn_tail.expect("the cut record is reported");
    assert_eq!(torn.path, segment);
    // The last record put the second slot of alice's seq 2: only it is gone.
    let mut expected = expected_fixture_content();
    for k in fixture::keys() {
        let mut want = expected.get(&k).unwrap();
        if k == fixture::key("alice", 2, "chat") {
            want.as_mut().unwrap().call_results.truncate(1);
        }
        assert_eq!(store.get(&k).unwrap(), want, "{k:?}");
    }
    assert_eq!(store.get_recovery_marker().unwrap(), fixture_marker(fixture::POSITION - 1));
}
