//! Checks the Rust side of every constant shared with Java and Python
//! against `tests/vectors/constants.json`, the one table all three read.

use serde_json::Value;

use crate::error::ErrorCode;
use crate::identity::canonical::MAX_NESTING;
use crate::jni::journal as jni_journal;
use crate::store::key;

fn shared() -> Value {
    serde_json::from_str(include_str!("../tests/vectors/constants.json")).expect("constants.json parses")
}

fn number(table: &Value, name: &str) -> i64 {
    table[name].as_i64().unwrap_or_else(|| panic!("constants.json has no number for {name}"))
}

#[test]
fn error_codes_match_the_shared_table_in_both_directions() {
    let table = &shared()["error_codes"];
    for code in ErrorCode::ALL {
        assert_eq!(number(table, code.name()), i64::from(code.as_i32()), "{}", code.name());
    }
    assert_eq!(table.as_object().unwrap().len(), ErrorCode::ALL.len(), "a code Rust does not have");
}

#[test]
fn jni_and_c_abi_versions_match_the_shared_table() {
    let all = shared();
    assert_eq!(i64::from(crate::JNI_VERSION), number(&all, "jni_version"));
    assert_eq!(i64::from(crate::capi::ABI_VERSION), number(&all, "c_abi_version"));
}

#[test]
fn key_and_event_kinds_match_the_shared_table() {
    let all = shared();
    let keys = &all["business_key_kinds"];
    for (name, tag) in [
        ("STR", key::TAG_STR),
        ("LONG", key::TAG_LONG),
        ("INT", key::TAG_INT),
        ("BYTES", key::TAG_BYTES),
        ("TYPED", key::TAG_TYPED),
    ] {
        assert_eq!(number(keys, name), i64::from(tag), "key kind {name}");
    }
    let events = &all["event_identity_kinds"];
    assert_eq!(number(events, "OCCURRENCE"), i64::from(key::TAG_OCCURRENCE));
    assert_eq!(number(events, "ATTRIBUTES"), i64::from(key::TAG_ATTRIBUTES));
}

#[test]
fn jni_step_kinds_and_slot_statuses_match_the_shared_table() {
    let all = shared();
    let steps = &all["call_step_kinds"];
    assert_eq!(number(steps, "RUN"), i64::from(jni_journal::STEP_RUN));
    assert_eq!(number(steps, "RECONCILE"), i64::from(jni_journal::STEP_RECONCILE));
    assert_eq!(number(steps, "REPLAY"), i64::from(jni_journal::STEP_REPLAY));
    assert_eq!(number(steps, "INTERRUPTED"), i64::from(jni_journal::STEP_INTERRUPTED));
    let semantics = &all["call_semantics"];
    assert_eq!(number(semantics, "AT_LEAST_ONCE"), crate::journal::CallSemantics::AtLeastOnce as i64);
    assert_eq!(number(semantics, "AT_MOST_ONCE"), crate::journal::CallSemantics::AtMostOnce as i64);
    let statuses = &all["journal_slot_statuses"];
    assert_eq!(number(statuses, "PENDING"), i64::from(jni_journal::SLOT_PENDING));
    assert_eq!(number(statuses, "SUCCEEDED"), i64::from(jni_journal::SLOT_SUCCEEDED));
    assert_eq!(number(statuses, "FAILED"), i64::from(jni_journal::SLOT_FAILED));
}

#[test]
fn file_permission_checks_match_the_shared_table() {
    use crate::jni::store::{PERMISSIONS_REFUSE, PERMISSIONS_TIGHTEN, PERMISSIONS_WARN};
    let checks = &shared()["file_permission_checks"];
    assert_eq!(number(checks, "REFUSE"), i64::from(PERMISSIONS_REFUSE));
    assert_eq!(number(checks, "WARN"), i64::from(PERMISSIONS_WARN));
    assert_eq!(number(checks, "TIGHTEN"), i64::from(PERMISSIONS_TIGHTEN));
    assert_eq!(checks.as_object().unwrap().len(), 3);
}

#[test]
fn canonical_nesting_limit_matches() {
    assert_eq!(number(&shared(), "canonical_max_nesting"), MAX_NESTING as i64);
}
