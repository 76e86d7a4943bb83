use super::*;
use crate::error::ErrorCode;

fn occurrence() -> String {
    root_occurrence_id(b"user-42", 0).unwrap()
}

fn execution() -> String {
    action_execution_id(&occurrence(), "reply").unwrap()
}

#[test]
fn ids_have_their_prefix_and_32_hex_digits() {
    for (id, prefix) in [
        (occurrence(), OCCURRENCE_PREFIX),
        (execution(), EXECUTION_PREFIX),
        (emitted_occurrence_id(&execution(), 0).unwrap(), OCCURRENCE_PREFIX),
        (generated_call_id("ns", "s", 0).unwrap(), CALL_PREFIX),
    ] {
        let hex = id.strip_prefix(prefix).unwrap_or_else(|| panic!("{id} lacks {prefix}"));
        assert_eq!(hex.len(), 32, "{id}");
    }
}

#[test]
fn every_component_changes_the_id() {
    let base = root_occurrence_id(b"k", 1).unwrap();
    assert_ne!(base, root_occurrence_id(b"k", 2).unwrap());
    assert_ne!(base, root_occurrence_id(b"k2", 1).unwrap());
    let exec = execution();
    assert_ne!(exec, action_execution_id(&occurrence(), "other").unwrap());
    assert_ne!(
        generated_call_id("ns", "s", 0).unwrap(),
        generated_call_id("ns", "s", 1).unwrap()
    );
    assert_ne!(
        generated_call_id("ns", "s", 0).unwrap(),
        generated_call_id("ns", "t", 0).unwrap()
    );
}

#[test]
fn length_prefixes_keep_component_boundaries() {
    assert_ne!(generated_call_id("ab", "c", 0).unwrap(), generated_call_id("a", "bc", 0).unwrap());
}

#[test]
fn root_and_emitted_occurrences_never_share_a_domain() {
    // Same ordinal, and a key whose bytes equal the execution id: the
    // domain tag alone keeps the two derivations apart.
    let exec = execution();
    assert_ne!(root_occurrence_id(exec.as_bytes(), 3).unwrap(), emitted_occurrence_id(&exec, 3).unwrap());
}

#[test]
fn negative_ordinals_are_rejected() {
    for err in [
        root_occurrence_id(b"k", -1).unwrap_err(),
        emitted_occurrence_id(&execution(), -1).unwrap_err(),
        generated_call_id("ns", "s", -1).unwrap_err(),
    ] {
        assert_eq!(err.code(), ErrorCode::InvalidArgument);
        assert!(err.to_string().contains("must not be negative"), "{err}");
    }
}

#[test]
fn missing_components_are_rejected() {
    assert!(root_occurrence_id(b"", 0).unwrap_err().to_string().contains("business key is missing"));
    assert!(action_execution_id("", "a").unwrap_err().to_string().contains("triggering occurrence is missing"));
    assert!(action_execution_id(&occurrence(), "").unwrap_err().to_string().contains("action name is missing"));
    assert!(generated_call_id("", "s", 0).unwrap_err().to_string().contains("namespace is missing"));
    assert!(generated_call_id("ns", "", 0).unwrap_err().to_string().contains("session id is missing"));
}

#[test]
fn ids_of_the_wrong_kind_are_rejected() {
    let err = action_execution_id(&execution(), "a").unwrap_err();
    assert!(err.to_string().contains("occ:<32 hex digits>"), "{err}");
    assert!(emitted_occurrence_id(&occurrence(), 0).is_err());
    assert!(ExecutionIdentity::new(&occurrence()).is_err());
    assert!(ExecutionIdentity::new("exec:ABCDEF").is_err());
}

#[test]
fn equal_payload_emissions_get_distinct_ids_and_replay_reproduces_them() {
    let run = || {
        let mut ids = ExecutionIdentity::new(&execution()).unwrap();
        let emitted = [ids.emit(None).unwrap(), ids.emit(None).unwrap()];
        let calls = [
            ids.next_call_id("chat", "session-1").unwrap(),
            ids.next_call_id("search", "session-1").unwrap(),
            ids.next_call_id("chat", "session-1").unwrap(),
        ];
        (emitted, calls)
    };
    let (emitted, calls) = run();
    assert_ne!(emitted[0], emitted[1]);
    assert_eq!(emitted[0], emitted_occurrence_id(&execution(), 0).unwrap());
    assert_eq!(emitted[1], emitted_occurrence_id(&execution(), 1).unwrap());
    assert_ne!(calls[0], calls[2]);
    assert_eq!(calls[1], generated_call_id(&format!("{}/search", execution()), "session-1", 0).unwrap());
    assert_eq!(calls[2], generated_call_id(&format!("{}/chat", execution()), "session-1", 1).unwrap());
    assert_eq!(run(), (emitted, calls));
}

#[test]
fn re_emitting_an_event_with_an_id_fails_without_using_an_ordinal() {
    let mut ids = ExecutionIdentity::new(&execution()).unwrap();
    let first = ids.emit(None).unwrap();
    let err = ids.emit(Some(&first)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::IllegalState);
    assert!(err.to_string().contains(&first), "{err}");
    assert_eq!(ids.emitted_count(), 1);
    assert_eq!(ids.emit(None).unwrap(), emitted_occurrence_id(&execution(), 1).unwrap());
}

#[test]
fn failed_call_id_requests_do_not_use_an_ordinal() {
    let mut ids = ExecutionIdentity::new(&execution()).unwrap();
    assert!(ids.next_call_id("chat", "").is_err());
    assert!(ids.next_call_id("", "s").is_err());
    assert_eq!(ids.call_count("chat"), 0);
}
