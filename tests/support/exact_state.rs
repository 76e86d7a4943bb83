//! The exact record of tests/vectors/exact_record.json (also read by JUnit's
//! ExactRecords): an ActionState a store must give back byte for byte.
//! Shared by the store tests.
#![allow(dead_code)] // each includer uses a part

use durable_journal::ActionState;
use serde_json::Value as Json;

/// The record's canonical JSON, its placeholders expanded as the vector file says.
pub fn exact_json() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/exact_record.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let vector: Json = serde_json::from_str(&text).unwrap();
    let field = |name: &str| vector[name].as_str().unwrap_or_else(|| panic!("{path}: no text field {name}")).to_owned();
    let levels = vector["deep_levels"].as_u64().expect("deep_levels") as usize;
    let deep = format!("{}\"bottom\"{}", "[".repeat(levels), "]".repeat(levels));
    field("record").replace("${numbers}", &field("numbers")).replace("${deep}", &deep)
}

pub fn exact_state() -> ActionState {
    ActionState::from_json(exact_json().as_bytes()).unwrap()
}
