//! The `durable-journal` inspection tool, run as operators run it: `list`,
//! `show` and `verify` read a store that the test holds open (as a running
//! job would) without its lock and without changing a byte; `verify`'s exit
//! status says intact, torn tail or corrupt; `compact` takes the lock.

#[path = "support/shared_file.rs"]
mod shared_file;

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use durable_journal::store::{ActionStateStore, BusinessKey, EventIdentity, FileStore, SharedStore, StateKey};
use durable_journal::{ActionState, ErrorCode, Outcome};
use shared_file::{file, store_with_empty_entry};

const OK: i32 = 0;
const ERROR: i32 = 1;
const USAGE: i32 = 2;
const TORN_TAIL: i32 = 3;
const CORRUPT: i32 = 4;

fn tool(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_durable-journal")).args(args).output().expect("the tool runs")
}

fn run(args: &[&str], status: i32) -> (String, String) {
    let output = tool(args);
    let (stdout, stderr) = (String::from_utf8(output.stdout).unwrap(), String::from_utf8(output.stderr).unwrap());
    assert_eq!(output.status.code(), Some(status), "{args:?}\nstdout:\n{stdout}\nstderr:\n{stderr}");
    (stdout, stderr)
}

fn chat_key() -> StateKey {
    StateKey::new(BusinessKey::Str("user-1".into()), 1, "chat", EventIdentity::Occurrence("occ-1".into()))
}

fn plan_key() -> StateKey {
    StateKey::new(BusinessKey::Long(42), 7, "plan", EventIdentity::Attributes(vec![0xab, 0xcd]))
}

const FAILURE: &[u8] = br#"{"exceptionClass":"java.io.IOException","message":"timed out"}"#;

/// A store with a chat action of three calls (succeeded, failed, pending)
/// and a completed plan action, left open.
fn busy_store(dir: &Path) -> SharedStore {
    let k = chat_key();
    let (store, mut journal, mut persister) = store_with_empty_entry(dir, &k);
    journal.record_call_completion("llm", Outcome::success(Some(br#"{"text":"hello"}"#.to_vec())), &mut persister).unwrap();
    journal.record_call_completion("tool:search", Outcome::failure(FAILURE.to_vec()), &mut persister).unwrap();
    journal.append_pending_call("tool:mail", &mut persister).unwrap();
    let (mut plan, mut persister) = store.open_journal(plan_key(), None).unwrap();
    plan.mark_completed(&mut persister).unwrap();
    store
}

/// Every file of the directory with its bytes.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).map(|p| (p.clone(), fs::read(&p).unwrap())).collect()
}

fn dir_arg(dir: &tempfile::TempDir) -> &str {
    dir.path().to_str().unwrap()
}

#[test]
fn list_show_and_verify_read_a_store_a_job_holds_without_changing_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = busy_store(dir.path());
    let before = files(dir.path());

    let (listed, _) = run(&["list", dir_arg(&dir)], OK);
    let lines: Vec<&str> = listed.lines().collect();
    assert!(lines[0].contains("2 entries") && lines[0].contains("format 2"), "{listed}");
    let columns: Vec<Vec<&str>> = lines[1..].iter().map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(columns[0], ["#", "key", "seq", "action", "event", "calls", "completed", "bytes"]);
    let inspected = FileStore::inspect(dir.path()).unwrap();
    // Entries in key order: the Str key sorts before the Long one.
    let bytes: Vec<String> = inspected.entries.iter().map(|e| e.log_bytes.to_string()).collect();
    assert_eq!(columns[1], ["1", "str:user-1", "1", "chat", "occ:occ-1", "3", "no", &bytes[0]]);
    assert_eq!(columns[2], ["2", "long:42", "7", "plan", "attrs:abcd", "0", "yes", &bytes[1]]);

    let (shown, _) = run(&["show", dir_arg(&dir), "1"], OK);
    assert_eq!(run(&["show", dir_arg(&dir), "str:user-1"], OK).0, shown, "by # or by key");
    let calls: Vec<Vec<&str>> = shown.lines().skip(2).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(calls[0], ["#", "id", "status", "payload", "preview", "exception"]);
    assert_eq!(calls[1], ["0", "llm", "SUCCEEDED", "16", "B", r#"{"text":"hello"}"#]);
    assert_eq!(calls[2], ["1", "tool:search", "FAILED", "null", "java.io.IOException"]);
    assert_eq!(calls[3], ["2", "tool:mail", "PENDING", "null"]);

    let (verified, _) = run(&["verify", dir_arg(&dir)], OK);
    assert!(verified.starts_with("ok: ") && verified.contains(&file(&store).segment_path().unwrap().display().to_string()));
    assert!(verified.contains("6 records"), "{verified}");

    assert_eq!(files(dir.path()), before, "the tool changed nothing");
    match FileStore::open(dir.path()) {
        Err(err) => assert_eq!(err.code(), ErrorCode::StoreLocked, "the job still holds the store: {err}"),
        Ok(_) => panic!("the store was not locked any more"),
    }
    // The job writes on, and the tool sees it.
    store
        .put(
            &StateKey::new(BusinessKey::Int(3), 1, "late", EventIdentity::Occurrence("o".into())),
            &ActionState::default(),
        )
        .unwrap();
    assert!(run(&["list", dir_arg(&dir)], OK).0.contains("int:3"));
}

#[test]
fn show_names_what_it_cannot_find_and_bad_arguments_get_the_usage() {
    let dir = tempfile::tempdir().unwrap();
    let _store = busy_store(dir.path());
    let (_, err) = run(&["show", dir_arg(&dir), "3"], ERROR);
    assert!(err.contains("no entry \"3\"") && err.contains("2 entries"), "{err}");
    run(&["show", dir_arg(&dir), "str:nobody"], ERROR);
    let (_, usage) = run(&["list"], USAGE);
    assert!(usage.contains("usage: durable-journal"), "{usage}");
    run(&["frobnicate", dir_arg(&dir)], USAGE);

    let empty = tempfile::tempdir().unwrap();
    let (_, err) = run(&["list", dir_arg(&empty)], ERROR);
    assert!(err.contains("no store segment") && err.contains(dir_arg(&empty)), "{err}");
    assert_eq!(fs::read_dir(empty.path()).unwrap().count(), 0, "nothing created, not even LOCK");
}

/// A closed store of two entries; returns its segment and where the second
/// entry's record starts.
fn closed_store(dir: &Path) -> (PathBuf, u64) {
    let mut store = FileStore::open(dir).unwrap();
    store.put(&chat_key(), &ActionState::default()).unwrap();
    let second = store.stats().unwrap().segment_bytes;
    store.put(&plan_key(), &ActionState::default()).unwrap();
    let segment = store.segment_path().unwrap();
    store.close().unwrap();
    (segment, second)
}

#[test]
fn verify_reports_a_torn_tail_with_file_and_offset_and_leaves_it() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, second) = closed_store(dir.path());
    let bytes = fs::read(&segment).unwrap();
    fs::write(&segment, &bytes[..bytes.len() - 4]).unwrap();

    let (out, _) = run(&["verify", dir_arg(&dir)], TORN_TAIL);
    assert!(out.starts_with(&format!("torn tail: {} at offset {second}: ", segment.display())), "{out}");
    assert_eq!(fs::read(&segment).unwrap().len(), bytes.len() - 4, "verify does not repair");
    // list still shows what is intact, with a note.
    let (listed, note) = run(&["list", dir_arg(&dir)], OK);
    assert!(listed.contains("1 entry ") && note.contains("torn"), "{listed}{note}");
}

#[test]
fn verify_reports_corruption_with_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let (segment, second) = closed_store(dir.path());
    let mut bytes = fs::read(&segment).unwrap();
    bytes[second as usize - 10] ^= 0x10; // inside the first entry's record
    fs::write(&segment, &bytes).unwrap();

    let (out, _) = run(&["verify", dir_arg(&dir)], CORRUPT);
    assert!(out.starts_with(&format!("corrupt: {} at offset 56: ", segment.display())), "{out}");
    let (_, err) = run(&["list", dir_arg(&dir)], CORRUPT);
    assert!(err.contains("corrupt") && err.contains(&segment.display().to_string()), "{err}");
}

#[test]
fn verify_names_leftovers_and_leaves_them_for_the_store_to_remove() {
    let dir = tempfile::tempdir().unwrap();
    closed_store(dir.path());
    let leftover = dir.path().join("journal-0000000000000002.log.tmp");
    fs::write(&leftover, b"half a compaction").unwrap();
    let (out, _) = run(&["verify", dir_arg(&dir)], OK);
    assert!(out.contains(&format!("leftover: {}", leftover.display())), "{out}");
    assert!(leftover.exists());
}

#[test]
fn compact_takes_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let store = busy_store(dir.path());
    let (_, err) = run(&["compact", dir_arg(&dir)], ERROR);
    assert!(err.contains("locked"), "{err}");
    let expected = store.get(&chat_key()).unwrap();
    file(&store).close().unwrap();

    let (out, _) = run(&["compact", dir_arg(&dir)], OK);
    assert!(out.contains("2 entries") && out.contains("journal-0000000000000002.log"), "{out}");
    let mut reopened = FileStore::open(dir.path()).unwrap();
    assert_eq!(reopened.get(&chat_key()).unwrap(), expected);
    assert_eq!(reopened.recovery_report().removed_files, Vec::<PathBuf>::new(), "compact cleaned up after itself");
}

#[test]
fn inspect_sees_every_entry_as_the_store_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let store = busy_store(dir.path());
    let inspected = FileStore::inspect(dir.path()).unwrap();
    assert_eq!(inspected.store_id, file(&store).store_id());
    assert_eq!(inspected.position, file(&store).get_recovery_marker().unwrap().as_position().unwrap().position);
    assert_eq!(inspected.torn_tail, None);
    let keys: Vec<StateKey> = inspected.entries.iter().map(|e| e.key.clone()).collect();
    assert_eq!(keys, [chat_key(), plan_key()]);
    for entry in &inspected.entries {
        assert_eq!(Some(&entry.state), store.get(&entry.key).unwrap().as_ref());
    }
    let log_bytes: u64 = inspected.entries.iter().map(|e| e.log_bytes).sum();
    assert_eq!(log_bytes, file(&store).stats().unwrap().live_bytes);
}

#[test]
fn retained_lists_the_completed_actions_a_retaining_store_keeps() {
    use durable_journal::store::{FileStoreOptions, RetentionPolicy};
    let dir = tempfile::tempdir().unwrap();
    let options = FileStoreOptions {
        retention: Some(RetentionPolicy { max_age: std::time::Duration::from_secs(60), max_count: 10 }),
        ..FileStoreOptions::default()
    };
    let mut store = FileStore::open_with(dir.path(), options).unwrap();
    store.set_plan_digest(Some("plan-1".into())).unwrap();
    let store = shared_file::share(store);
    let k = chat_key();
    let (mut journal, mut persister) = store.open_journal(k.clone(), None).unwrap();
    journal.record_call_completion("llm", Outcome::success(None), &mut persister).unwrap();
    journal.mark_completed(&mut persister).unwrap();
    store.prune_state(&k.business_key, 1).unwrap();
    let before = files(dir.path());

    let (out, _) = run(&["retained", dir_arg(&dir)], OK);
    let lines: Vec<Vec<&str>> = out.lines().skip(1).map(|l| l.split_whitespace().collect()).collect();
    assert!(out.starts_with("1 completed action retained in "), "{out}");
    assert_eq!(lines[0], ["#", "key", "seq", "action", "event", "calls", "outputs", "completed-at-ms", "plan"]);
    let at = FileStore::inspect_retained(dir.path()).unwrap()[0].completed_at_millis.to_string();
    assert_eq!(lines[1], ["0", "str:user-1", "1", "chat", "occ:occ-1", "1", "0", &at, "plan-1"]);
    assert_eq!(files(dir.path()), before, "the tool changed nothing");

    let plain = tempfile::tempdir().unwrap();
    closed_store(plain.path());
    assert!(run(&["retained", dir_arg(&plain)], OK).0.starts_with("0 completed actions retained"));
}

#[test]
fn show_redact_prints_sizes_and_digests_instead_of_payloads() {
    let dir = tempfile::tempdir().unwrap();
    let _store = busy_store(dir.path());
    let (shown, _) = run(&["show", "--redact", dir_arg(&dir), "1"], OK);
    assert!(!shown.contains("hello"), "{shown}");
    let calls: Vec<Vec<&str>> = shown.lines().skip(2).map(|l| l.split_whitespace().collect()).collect();
    assert_eq!(calls[0], ["#", "id", "status", "payload", "digest", "exception"]);
    // The first 8 bytes of SHA-256 of {"text":"hello"}.
    assert_eq!(calls[1], ["0", "llm", "SUCCEEDED", "16", "B", "sha256:cbbbdcd27692344d…"]);
    assert_eq!(calls[2], ["1", "tool:search", "FAILED", "null", "java.io.IOException"]);
}

/// As a build that left modes to the umask wrote a store: 0755, files 0644.
fn expose(dir: &Path) {
    use std::os::unix::fs::PermissionsExt;
    for file in files(dir).keys() {
        fs::set_permissions(file, fs::Permissions::from_mode(0o644)).unwrap();
    }
    fs::set_permissions(dir, fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn reading_notes_a_store_others_can_reach_and_compact_refuses_it_unless_told() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempfile::tempdir().unwrap();
    file(&busy_store(dir.path())).close().unwrap();
    expose(dir.path());

    let (_, note) = run(&["list", dir_arg(&dir)], OK);
    assert!(note.contains("has mode 0755") && note.contains("chmod 700"), "{note}");
    let (_, err) = run(&["compact", dir_arg(&dir)], ERROR);
    assert!(err.contains("mode 0755") && err.contains(dir_arg(&dir)), "{err}");
    run(&["compact", "--permissions", "loose", dir_arg(&dir)], USAGE);

    let (_, warned) = run(&["compact", "--permissions", "warn", dir_arg(&dir)], OK);
    assert!(warned.contains("has mode 0755"), "{warned}");
    assert_eq!(fs::metadata(dir.path()).unwrap().mode() & 0o777, 0o755, "warn changes no mode");

    let (_, tightened) = run(&["compact", "--permissions", "tighten", dir_arg(&dir)], OK);
    assert!(tightened.contains("made 0700"), "{tightened}");
    assert_eq!(fs::metadata(dir.path()).unwrap().mode() & 0o777, 0o700);
    let (_, quiet) = run(&["list", dir_arg(&dir)], OK);
    assert!(!quiet.contains("mode"), "{quiet}");
}
