//! Checks every case of tests/vectors/idempotency.json against the Rust core:
//! the entry's canonical encoding (`StateKey::encode`, docs/store.md) and the
//! idempotency key derived from it (docs/identity.md). JUnit
//! (IdempotencyVectorsTest) and pytest (python/tests/test_idempotency.py)
//! check the keys of the same file through JNI and the C ABI.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use durable_journal::identity::idempotency::call_idempotency_key;
use durable_journal::store::{BusinessKey, EventIdentity, StateKey};
use durable_journal::ErrorCode;
use serde_json::Value as Json;

fn cases() -> Vec<Json> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/idempotency.json");
    let vectors: Json = serde_json::from_str(&std::fs::read_to_string(path).expect("read vectors")).expect("parse vectors");
    vectors["cases"].as_array().expect("cases").clone()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Vec<u8> {
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("hex")).collect()
}

fn business_key(key: &Json) -> BusinessKey {
    let value = &key["value"];
    match key["kind"].as_str().expect("key kind") {
        "STR" => BusinessKey::Str(value.as_str().expect("str").to_owned()),
        "LONG" => BusinessKey::Long(value.as_str().expect("long as text").parse().expect("long")),
        "INT" => BusinessKey::Int(value.as_str().expect("int as text").parse().expect("int")),
        "BYTES" => BusinessKey::Bytes(BASE64.decode(value.as_str().expect("base64")).expect("base64")),
        "TYPED" => BusinessKey::Typed {
            type_name: key["type"].as_str().expect("type").to_owned(),
            bytes: BASE64.decode(value.as_str().expect("base64")).expect("base64"),
        },
        other => panic!("unknown key kind {other}"),
    }
}

fn event(event: &Json) -> EventIdentity {
    let value = event["value"].as_str().expect("event value");
    match event["kind"].as_str().expect("event kind") {
        "OCCURRENCE" => EventIdentity::Occurrence(value.to_owned()),
        "ATTRIBUTES" => EventIdentity::Attributes(BASE64.decode(value).expect("base64")),
        other => panic!("unknown event kind {other}"),
    }
}

fn run_case(case: &Json) -> Option<String> {
    let name = &case["name"];
    let entry_hex = case["entry_hex"].as_str().expect("entry_hex");
    if let Some(entry) = case.get("entry") {
        let key = StateKey::new(
            business_key(&entry["key"]),
            entry["seq"].as_i64().expect("seq"),
            entry["action"].as_str().expect("action"),
            event(&entry["event"]),
        );
        let encoded = hex(&key.encode());
        if encoded != entry_hex {
            return Some(format!("{name}: entry encodes as {encoded}"));
        }
    }
    let outcome = call_idempotency_key(
        &unhex(entry_hex),
        case["call_id"].as_str().expect("call_id"),
        case["occurrence"].as_i64().expect("occurrence"),
    );
    match (case.get("error").and_then(Json::as_str), outcome) {
        (None, Ok(key)) => (case["key"].as_str() != Some(key.as_str())).then(|| format!("{name}: computed {key}")),
        (Some(expected), Err(e)) => (e.code().name() != expected).then(|| format!("{name}: expected {expected}, got {e}")),
        (None, Err(e)) => Some(format!("{name}: unexpected error {e}")),
        (Some(expected), Ok(key)) => Some(format!("{name}: expected {expected}, got {key}")),
    }
}

#[test]
fn every_idempotency_vector_holds() {
    let failures: Vec<String> = cases().iter().filter_map(run_case).collect();
    assert!(failures.is_empty(), "{} failing vectors:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn the_vectors_cover_every_refusal() {
    let errors: Vec<String> = cases().iter().filter_map(|c| c.get("error").and_then(Json::as_str).map(str::to_owned)).collect();
    assert!(errors.len() >= 3 && errors.iter().all(|e| e == ErrorCode::InvalidArgument.name()), "{errors:?}");
}
