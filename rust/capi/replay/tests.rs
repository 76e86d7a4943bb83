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
