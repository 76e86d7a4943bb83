use super::*;
use crate::capi::tests::call;

const STATE: &str = r#"{"taskEvent":null,"sensoryMemoryUpdates":[],"shortTermMemoryUpdates":[],"outputEvents":[],"callResults":[{"functionId":"agent.look_up::0123456789abcdef","argsDigest":"","status":"SUCCEEDED","resultPayload":"Mg==","exceptionPayload":null},{"functionId":"patched:v2","argsDigest":"","status":"SUCCEEDED","resultPayload":null,"exceptionPayload":null}],"completed":true}"#;

struct Handle(*mut Journal);

impl Drop for Handle {
    fn drop(&mut self) {
        assert_eq!(unsafe { durable_journal_replay_journal_free(self.0) }, OK);
    }
}

fn open(state: &str) -> Handle {
    let mut handle: *mut Journal = ptr::null_mut();
    let (status, text) = call(|d, l| unsafe { durable_journal_replay_journal_new(state.as_ptr(), state.len(), &mut handle, d, l) });
    assert_eq!((status, text.as_str()), (OK, ""));
    Handle(handle)
}

fn match_next(handle: &Handle, function_id: &str, digest: &str) -> String {
    let (status, text) = call(|d, l| unsafe {
        durable_journal_replay_journal_match_next(handle.0, function_id.as_ptr(), function_id.len(), digest.as_ptr(), digest.len(), d, l)
    });
    assert_eq!(status, OK, "{text}");
    text
}

fn position(handle: &Handle) -> String {
    let (status, text) = call(|d, l| unsafe { durable_journal_replay_journal_position(handle.0, d, l) });
    assert_eq!(status, OK, "{text}");
    text
}

fn patched(handle: &Handle, change: &str) -> String {
    call(|d, l| unsafe { durable_journal_replay_journal_patched(handle.0, change.as_ptr(), change.len(), d, l) }).1
}

#[test]
fn a_matching_call_replays_its_slot_and_one_past_the_recording_would_run() {
    let journal = open(STATE);
    assert_eq!(
        position(&journal),
        r#"{"position":0,"length":2,"slot":{"id":"agent.look_up::0123456789abcdef","functionId":"agent.look_up","argsDigest":"0123456789abcdef","status":"SUCCEEDED"}}"#
    );
    assert_eq!(match_next(&journal, "agent.look_up", "0123456789abcdef"), r#"{"step":"hit","position":0,"callId":"agent.look_up::0123456789abcdef"}"#);
    assert_eq!(patched(&journal, "v2"), "true", "the recorded marker replays");
    assert_eq!(position(&journal), r#"{"position":2,"length":2,"slot":null}"#);
    assert_eq!(match_next(&journal, "agent.mail", "fedcba9876543210"), r#"{"step":"run","position":2,"callId":"agent.mail::fedcba9876543210"}"#);
    let (id, digest) = ("agent.mail", "fedcba9876543210");
    let (status, _) = call(|d, l| unsafe {
        durable_journal_replay_journal_record(journal.0, id.as_ptr(), id.len(), digest.as_ptr(), digest.len(), d, l)
    });
    assert_eq!(status, OK);
    assert_eq!(position(&journal), r#"{"position":3,"length":3,"slot":null}"#, "a stubbed call moves the index on");
}

#[test]
fn another_call_at_a_recorded_position_is_the_journals_divergence_and_changes_nothing() {
    let journal = open(STATE);
    let answer = match_next(&journal, "agent.search", "0123456789abcdef");
    assert!(answer.starts_with(r#"{"step":"diverged","divergence":{"key":null,"sequenceNumber":null,"action":null,"position":0,"recorded":{"functionId":"agent.look_up::0123456789abcdef""#), "{answer}");
    assert!(answer.contains(r#""newCall":{"functionId":"agent.search::0123456789abcdef","argsDigest":"0123456789abcdef"}"#), "{answer}");
    assert_eq!(match_next(&journal, "agent.look_up", "0123456789abcdef"), r#"{"step":"hit","position":0,"callId":"agent.look_up::0123456789abcdef"}"#, "kept");
    assert_eq!(patched(&journal, "v3"), "false", "the old path: another marker was recorded there");
}

#[test]
fn bad_input_is_a_clear_error() {
    let mut handle: *mut Journal = ptr::null_mut();
    let (status, message) = call(|d, l| unsafe { durable_journal_replay_journal_new(b"[".as_ptr(), 1, &mut handle, d, l) });
    assert_eq!(status, ErrorCode::MalformedJson.as_i32(), "{message}");
    assert!(handle.is_null());
    let (status, message) = call(|d, l| unsafe { durable_journal_replay_journal_position(ptr::null_mut(), d, l) });
    assert_eq!((status, message.as_str()), (ErrorCode::InvalidArgument.as_i32(), "invalid argument: replay journal handle is null"));
    let dir = "/nonexistent/durable-journal-replay";
    let (status, message) = call(|d, l| unsafe { durable_journal_read_retained(dir.as_ptr(), dir.len(), d, l) });
    assert_eq!(status, ErrorCode::StoreIo.as_i32(), "{message}");
}

#[test]
fn a_store_directory_without_retention_has_no_retained_actions() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_str().unwrap();
    assert_eq!(call(|d, l| unsafe { durable_journal_read_retained(path.as_ptr(), path.len(), d, l) }), (OK, "[]".to_string()));
}

/// `tests/vectors/replay/in_flight_store`, the file store `python/tests/test_plan_restore.py` plans a
/// restore of: what Flink Agents' operator leaves in flight for `restore_agent.py`'s action `act`
/// (one entry with its first call recorded, one with a call the agent does not make), an entry
/// that completed, and one of another action. `DURABLE_JOURNAL_WRITE_VECTORS=1` rewrites it.
fn in_flight_entries() -> Vec<(crate::store::StateKey, ActionState)> {
    use crate::store::log::retention::tests::{flink_agents_state, LOOK_UP_USER_1, OTHER_CALL};
    use crate::store::{BusinessKey, EventIdentity, StateKey};
    let key = |user: &str, action: &str| StateKey::new(BusinessKey::Str(user.into()), 0, action, EventIdentity::Occurrence(format!("{user}-event")));
    vec![
        (key("user-1", "act"), flink_agents_state("user-1", &[LOOK_UP_USER_1], &[], false)),
        (key("user-2", "act"), flink_agents_state("user-2", &[OTHER_CALL], &[], false)),
        (key("user-3", "act"), flink_agents_state("user-3", &[], &[], true)),
        (key("user-4", "other"), flink_agents_state("user-4", &[], &[], false)),
    ]
}

#[test]
fn the_in_flight_store_vector_lists_its_entries_not_completed_read_only() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/replay/in_flight_store");
    if std::env::var("DURABLE_JOURNAL_WRITE_VECTORS").as_deref() == Ok("1") {
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut store = FileStore::open(&dir).unwrap();
        for (key, state) in in_flight_entries() {
            crate::store::ActionStateStore::put(&mut store, &key, &state).unwrap();
        }
    }
    let before = directory_bytes(&dir);
    let path = dir.to_str().unwrap();
    let (status, json) = call(|d, l| unsafe { durable_journal_read_in_flight(path.as_ptr(), path.len(), d, l) });
    assert_eq!(status, OK, "{json}");
    let rows: serde_json::Value = serde_json::from_str(&json).unwrap();
    let listed: Vec<(String, String, String)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["key"].as_str().unwrap().to_owned(), r["action"].as_str().unwrap().to_owned(), r["state"].as_str().unwrap().to_owned()))
        .collect();
    let expected: Vec<(String, String, String)> = in_flight_entries()
        .into_iter()
        .filter(|(_, state)| !state.completed)
        .map(|(key, state)| (key.business_key.describe(), key.action, String::from_utf8(state.to_json()).unwrap()))
        .collect();
    assert_eq!(listed, expected);
    assert_eq!(directory_bytes(&dir), before, "read without changing a file");
}

#[test]
fn a_retained_topic_dump_reads_as_the_jni_reads_it_and_a_bad_one_is_refused() {
    let dump = std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/replay/retained_topic.dump")).unwrap();
    let (status, json) = call(|d, l| unsafe { durable_journal_read_retained_dump(dump.as_ptr(), dump.len(), d, l) });
    assert_eq!(status, OK, "{json}");
    let expected = retained_to_json(&read_retained_records(&read_dump(dump.as_slice()).unwrap()).unwrap());
    assert_eq!(json, expected);
    assert!(json.contains(r#""key":"str:user-1""#) && json.contains(r#""key":"str:user-2""#), "{json}");
    let (status, message) = call(|d, l| unsafe { durable_journal_read_retained_dump(b"DJKX".as_ptr(), 4, d, l) });
    assert_eq!((status, message.as_str()), (ErrorCode::InvalidArgument.as_i32(), "invalid argument: not a Kafka journal dump (KafkaJournalTool dump): it does not start with DJKD"));
}

#[test]
fn a_restore_plan_is_the_journals_rule_and_bad_words_are_refused() {
    let plan = |policy: i32, kind: &str, recorded: Option<&str>, candidate: Option<&str>| {
        let text = |t: Option<&str>| t.map_or((ptr::null(), 0), |t| (t.as_ptr(), t.len()));
        let ((r, rl), (c, cl)) = (text(recorded), text(candidate));
        call(|d, l| unsafe { durable_journal_plan_restore(policy, 2, kind.as_ptr(), kind.len(), 2, r, rl, c, cl, ptr::null(), 0, d, l) })
    };
    assert_eq!(
        plan(2, "diverged", Some("llm"), Some("tool:x")),
        (OK, r#"{"replayed":2,"consequence":"fails-the-task","text":"a restore replays 2 recorded calls, then fails the task at 2 (recorded llm, new code tool:x): NON_DETERMINISTIC_REPLAY"}"#.to_string())
    );
    assert_eq!(plan(0, "would-run", None, Some("tool:x")).1, r#"{"replayed":2,"consequence":"runs","text":"a restore replays 2 recorded calls, then runs tool:x at 2 and what follows"}"#);
    assert_eq!(plan(7, "", None, None), (ErrorCode::InvalidArgument.as_i32(), "invalid argument: no divergence policy numbered 7".to_string()));
    assert_eq!(plan(1, "diverged", None, None).0, ErrorCode::InvalidArgument.as_i32());
}

/// Every file of `dir` (names and bytes), to show a read changed none.
fn directory_bytes(dir: &std::path::Path) -> Vec<(std::ffi::OsString, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap()).map(|e| (e.file_name(), std::fs::read(e.path()).unwrap())).collect();
    files.sort();
    files
}
