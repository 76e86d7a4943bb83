//! Opt-in retention of completed actions (`docs/replay.md`): with it, each
//! action that completes is kept, with its journal, after the checkpoint
//! prune drops the live entry, bounded by count and age; without it the
//! store writes exactly what it writes today. Retained copies never get in
//! the way of live entries: recovery and pruning ignore them, and a damaged
//! retention file is set aside instead of failing the open.

#[path = "support/shared_file.rs"]
mod shared_file;

use std::fs;
use std::path::Path;
use std::time::Duration;

use durable_journal::store::{
    ActionStateStore, BusinessKey, EventIdentity, FileStore, FileStoreOptions, RetentionPolicy, SharedStore, StateKey,
};
use durable_journal::store::file::RETAINED_FILE;
use durable_journal::model::OpaqueJson;
use durable_journal::{ActionState, CallResult, Outcome};

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Str("user-1".into()), seq, "answer", EventIdentity::Occurrence(format!("occ-{seq}")))
}

fn body(json: &str) -> OpaqueJson {
    OpaqueJson::parse(json).unwrap()
}

fn retaining(max_count: u64) -> FileStoreOptions {
    FileStoreOptions {
        retention: Some(RetentionPolicy { max_age: Duration::from_secs(3600), max_count }),
        ..FileStoreOptions::default()
    }
}

fn calls(seq: i64) -> Vec<CallResult> {
    vec![
        CallResult::completed("llm", Outcome::success(Some(format!("\"answer {seq}\"").into_bytes()))),
        CallResult::completed("tool:search", Outcome::failure(br#"{"exceptionClass":"java.io.IOException"}"#.to_vec())),
        CallResult::completed("tool:mail", Outcome::success(None)),
    ]
}

/// What the project's operators do for one record: put the initial state,
/// journal each call, then put the final state with its output and memory
/// update, completed (which drops the journal from the live entry).
fn run_action(store: &SharedStore, seq: i64) {
    let k = key(seq);
    let initial = ActionState { task_event: Some(body(&format!(r#"{{"input":{seq}}}"#))), ..ActionState::default() };
    let (mut journal, mut persister) = store.open_journal(k.clone(), Some(initial)).unwrap();
    for call in calls(seq) {
        let outcome = Outcome { result: call.result_payload.clone(), exception: call.exception_payload.clone() };
        journal.record_call_completion(call.call_id.as_ref().unwrap().as_str().unwrap(), outcome, &mut persister).unwrap();
    }
    let mut finished = journal.state().clone();
    finished.output_events.push(body(&format!(r#"{{"output":{seq}}}"#)));
    finished.short_term_memory_updates.push(body(r#"{"path":"count","value":1}"#));
    finished.mark_completed();
    store.put(&k, &finished).unwrap();
}

/// The workload every test runs: three actions, one left in flight, a prune of the completed ones.
fn workload(store: &SharedStore) {
    for seq in 0..3 {
        run_action(store, seq);
    }
    store.put(&key(3), &ActionState::default()).unwrap();
    store.prune_state(&BusinessKey::Str("user-1".into()), 2).unwrap();
}

fn retained_seqs(dir: &Path) -> Vec<i64> {
    FileStore::inspect_retained(dir).unwrap().iter().map(|r| r.key.seq).collect()
}

/// A directory whose retaining store ran [`workload`] and was closed.
fn closed_store_after_workload() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let store = shared_file::share(FileStore::open_with(dir.path(), retaining(10)).unwrap());
    workload(&store);
    shared_file::file(&store).close().unwrap();
    dir
}

/// The segment's bytes with the random store id blanked out of its header.
fn segment_without_store_id(store: &SharedStore) -> Vec<u8> {
    let mut bytes = fs::read(shared_file::file(store).segment_path().unwrap()).unwrap();
    bytes[12..28].fill(0);
    bytes[52..56].fill(0); // the header's checksum covers the id
    bytes
}

#[test]
fn without_retention_the_store_writes_todays_bytes_and_with_it_the_segment_is_the_same() {
    let (off_dir, on_dir) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let off = shared_file::share(FileStore::open(off_dir.path()).unwrap());
    let on = shared_file::share(FileStore::open_with(on_dir.path(), retaining(10)).unwrap());
    workload(&off);
    workload(&on);
    assert_eq!(segment_without_store_id(&off), segment_without_store_id(&on), "retention never touches the segment");
    let bytes_appended = |store| shared_file::file(store).stats().unwrap().bytes_appended;
    assert_eq!(bytes_appended(&off), bytes_appended(&on));
    assert!(!off_dir.path().join(RETAINED_FILE).exists(), "off: no retention file");
    let mode = std::os::unix::fs::PermissionsExt::mode(&fs::metadata(on_dir.path().join(RETAINED_FILE)).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600, "retained copies are as private as the segments");
    assert_eq!(shared_file::file(&off).retained_count().unwrap(), 0);
    assert_eq!(shared_file::file(&on).retained_count().unwrap(), 3);
}

#[test]
fn a_completed_action_is_kept_with_its_journal_after_the_prune() {
    let dir = tempfile::tempdir().unwrap();
    let store = shared_file::share(FileStore::open_with(dir.path(), retaining(10)).unwrap());
    shared_file::file(&store).set_plan_digest(Some("plan-sha-1".into())).unwrap();
    workload(&store);
    assert_eq!(shared_file::file(&store).stats().unwrap().entries, 1, "only the action in flight is live");
    assert_eq!(store.get(&key(1)).unwrap(), None, "the live entry is pruned");

    let retained = FileStore::inspect_retained(dir.path()).unwrap();
    assert_eq!(retained.iter().map(|r| r.key.clone()).collect::<Vec<_>>(), [key(0), key(1), key(2)]);
    let first = &retained[0];
    assert_eq!(first.plan_digest.as_deref(), Some("plan-sha-1"));
    assert!(first.state.completed);
    assert_eq!(first.state.call_results, calls(0), "every call with its outcome: value, failure, null");
    assert_eq!(first.state.task_event, Some(body(r#"{"input":0}"#)));
    assert_eq!(first.state.output_events, [body(r#"{"output":0}"#)]);
    assert_eq!(first.state.short_term_memory_updates, [body(r#"{"path":"count","value":1}"#)]);
    assert!(retained.windows(2).all(|w| w[0].number < w[1].number && w[0].completed_at_millis <= w[1].completed_at_millis));
}

#[test]
fn completion_through_the_journal_is_retained_too() {
    let dir = tempfile::tempdir().unwrap();
    let store = shared_file::share(FileStore::open_with(dir.path(), retaining(10)).unwrap());
    let k = key(7);
    let (mut journal, mut persister) = store.open_journal(k.clone(), None).unwrap();
    journal.record_call_completion("llm", Outcome::success(Some(b"1".to_vec())), &mut persister).unwrap();
    journal.mark_completed(&mut persister).unwrap();
    // Putting the completed state again changes nothing and keeps no second copy.
    let completed = store.get(&k).unwrap().unwrap();
    store.put(&k, &completed).unwrap();
    let retained = FileStore::inspect_retained(dir.path()).unwrap();
    assert_eq!(retained.len(), 1);
    assert_eq!(retained[0].state.call_results, [CallResult::completed("llm", Outcome::success(Some(b"1".to_vec())))]);
    assert_eq!(retained[0].plan_digest, None);
}

#[test]
fn the_count_bound_keeps_the_newest_across_reopens() {
    let dir = tempfile::tempdir().unwrap();
    {
        let store = shared_file::share(FileStore::open_with(dir.path(), retaining(2)).unwrap());
        for seq in 0..5 {
            run_action(&store, seq);
        }
        assert_eq!(shared_file::file(&store).retained_count().unwrap(), 2);
        shared_file::file(&store).close().unwrap();
    }
    assert_eq!(retained_seqs(dir.path()), [3, 4]);
    let store = shared_file::share(FileStore::open_with(dir.path(), retaining(2)).unwrap());
    assert_eq!(shared_file::file(&store).retained_count().unwrap(), 2);
    run_action(&store, 5);
    assert_eq!(retained_seqs(dir.path()), [4, 5]);
    shared_file::file(&store).close().unwrap();
    // Without the option the file is left alone: no bound is applied, nothing removed.
    let before = fs::read(dir.path().join(RETAINED_FILE)).unwrap();
    let store = shared_file::share(FileStore::open(dir.path()).unwrap());
    run_action(&store, 6);
    shared_file::file(&store).close().unwrap();
    assert_eq!(fs::read(dir.path().join(RETAINED_FILE)).unwrap(), before);
}

#[test]
fn a_torn_retained_record_is_skipped_by_readers_and_cut_by_the_next_open() {
    let dir = closed_store_after_workload();
    let path = dir.path().join(RETAINED_FILE);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() - 5]).unwrap();
    assert_eq!(retained_seqs(dir.path()), [0, 1], "the torn last copy is not listed");
    assert_eq!(fs::read(&path).unwrap().len(), bytes.len() - 5, "reading changed nothing");
    let store = shared_file::share(FileStore::open_with(dir.path(), retaining(10)).unwrap());
    assert_eq!(shared_file::file(&store).recovery_report().retained_set_aside, None);
    assert_eq!(shared_file::file(&store).retained_count().unwrap(), 2);
    assert!(store.get(&key(3)).unwrap().is_some(), "the live entry in flight is recovered");
    run_action(&store, 4);
    assert_eq!(retained_seqs(dir.path()), [0, 1, 4]);
}

#[test]
fn a_damaged_retention_file_is_set_aside_and_never_stops_the_store() {
    let dir = closed_store_after_workload();
    let path = dir.path().join(RETAINED_FILE);
    let mut bytes = fs::read(&path).unwrap();
    bytes[40] ^= 0x01; // inside the first copy, with intact copies after it
    fs::write(&path, &bytes).unwrap();
    let err = FileStore::inspect_retained(dir.path()).unwrap_err();
    assert!(err.to_string().contains("retained.log"), "{err}");

    let store = shared_file::share(FileStore::open_with(dir.path(), retaining(10)).unwrap());
    let aside = shared_file::file(&store).recovery_report().retained_set_aside.clone().expect("set aside");
    assert_eq!(fs::read(&aside).unwrap(), bytes, "kept as it was, for a person to look at");
    assert_eq!(store.get(&key(3)).unwrap(), Some(ActionState::default()), "live entries are untouched");
    assert_eq!(shared_file::file(&store).retained_count().unwrap(), 0);
    run_action(&store, 4);
    assert_eq!(FileStore::inspect_retained(dir.path()).unwrap().len(), 1);
}

#[test]
fn reading_a_directory_that_is_not_there_is_an_error_not_an_empty_list() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-store");
    let err = FileStore::inspect_retained(&missing).unwrap_err();
    assert!(err.to_string().contains("no-such-store"), "{err}");
    assert!(FileStore::inspect_retained(dir.path()).unwrap().is_empty(), "a directory without retention: none");
}

#[test]
fn a_bound_of_zero_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let err = FileStore::open_with(dir.path(), retaining(0)).err().expect("refused");
    assert!(err.to_string().contains("positive age and count"), "{err}");
}

/// The cost docs/replay.md quotes: an action of 10 calls of 1 KB each adds
/// its completed state once more, plus a fixed overhead, to `retained.log`;
/// the segment pays what it pays without retention.
#[test]
fn a_retained_action_costs_one_more_copy_of_its_calls() {
    let dir = tempfile::tempdir().unwrap();
    let store = shared_file::share(FileStore::open_with(dir.path(), retaining(100)).unwrap());
    let retained_len = || fs::metadata(dir.path().join(RETAINED_FILE)).unwrap().len();
    let (segment_before, retained_before) = (shared_file::file(&store).stats().unwrap().bytes_appended, retained_len());
    let k = key(0);
    let (mut journal, mut persister) = store.open_journal(k.clone(), None).unwrap();
    for i in 0..10 {
        journal.record_call_completion(&format!("call-{i}"), Outcome::success(Some(vec![b'x'; 1024])), &mut persister).unwrap();
    }
    journal.mark_completed(&mut persister).unwrap();
    let segment = shared_file::file(&store).stats().unwrap().bytes_appended - segment_before;
    let retained = retained_len() - retained_before;
    println!("segment {segment} bytes, retained copy {retained} bytes");
    assert!((10 * 1024..10 * 1024 + 400).contains(&retained), "{retained}");
    assert!((10 * 1024..10 * 1024 + 1200).contains(&segment), "{segment}");
}
