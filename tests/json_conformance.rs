//! The ActionState reader against the JSONTestSuite cases
//! (`support/json_suite.rs`): every `y_` document is read, in every place
//! the reader takes JSON from (a whole record, a body, a string it
//! decodes itself), with its value unchanged; every `n_` document is
//! `MALFORMED_JSON` in each of those places, without a panic; every `i_`
//! document gets the decision `docs/json.md` lists.

#[path = "support/json_suite.rs"]
mod json_suite;

use durable_journal::model::{JsonString, OpaqueJson};
use durable_journal::{ActionState, ErrorCode};
use json_suite::{Decision, ACCEPT, IMPLEMENTATION_DEFINED, REFUSE};
use serde_json::Value;

/// The places a JSON value can take in a record, with the record around it.
fn as_values(case: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let wrap = |before: &str, after: &str| [before.as_bytes(), case, after.as_bytes()].concat();
    vec![
        ("an unknown field", wrap(r#"{"x":"#, "}")),
        ("the task event", wrap(r#"{"taskEvent":"#, "}")),
        // After another element: an empty case must not leave a valid empty list.
        ("an output event", wrap(r#"{"outputEvents":[null,"#, "]}")),
        ("an unknown field of a call", wrap(r#"{"callResults":[{"functionId":"f","x":"#, "}]}")),
    ]
}

/// The case's string, when it is one string in an array (`["…"]`).
fn sole_string(case: &[u8]) -> Option<&[u8]> {
    let trimmed = case.trim_ascii();
    let inner = trimmed.strip_prefix(b"[")?.strip_suffix(b"]")?.trim_ascii();
    (inner.len() >= 2 && inner.starts_with(b"\"") && inner.ends_with(b"\"")).then_some(inner)
}

/// The places a string can take where the reader decodes it itself.
fn as_strings(string: &[u8]) -> Vec<(&'static str, Vec<u8>)> {
    let wrap = |before: &str, after: &str| [before.as_bytes(), string, after.as_bytes()].concat();
    vec![
        ("a field name", wrap("{", ":1}")),
        ("a call id", wrap(r#"{"callResults":[{"functionId":"#, r#","status":"PENDING"}]}"#)),
        ("a call's digest", wrap(r#"{"callResults":[{"functionId":"f","argsDigest":"#, "}]}")),
        ("a call's field name", wrap(r#"{"callResults":[{"functionId":"f","#, ":1}]}")),
    ]
}

fn show(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(80)]).into_owned()
}

fn refused(name: &str, place: &str, record: &[u8]) {
    match ActionState::from_json(record) {
        Ok(state) => panic!("{name} in {place} was read: {state:?}"),
        Err(e) => assert_eq!(e.code(), ErrorCode::MalformedJson, "{name} in {place}: {e}"),
    }
}

fn read(name: &str, place: &str, record: &[u8]) -> ActionState {
    let state = ActionState::from_json(record).unwrap_or_else(|e| panic!("{name} in {place} ({}): {e}", show(record)));
    // What is read is written back the same: the record reads again as itself.
    assert_eq!(ActionState::from_json(&state.to_json()).unwrap(), state, "{name} in {place}: round trip");
    state
}

/// The value the record kept for the case, by the place it was put in.
fn kept_value(state: &ActionState, place: &str) -> Option<Value> {
    // A null task event is no task event (Flink Agents' meaning): nothing kept.
    if place == "the task event" && state.task_event.is_none() {
        return Some(Value::Null);
    }
    let body = match place {
        "an unknown field" => state.other_field("x"),
        "the task event" => state.task_event.as_ref(),
        "an output event" => state.output_events.get(1),
        _ => return None,
    };
    Some(body.expect("the body is kept").to_value().expect("a kept body parses"))
}

#[test]
fn every_y_document_is_read_in_every_place_with_its_value() {
    let mut checks = 0;
    for (name, case) in ACCEPT {
        let expected: Value = serde_json::from_slice(case).unwrap_or_else(|e| panic!("{name}: {e}"));
        if expected.is_object() {
            read(name, "a whole record", case);
            checks += 1;
        } else {
            refused(name, "a whole record (not an object: no ActionState)", case);
        }
        for (place, record) in as_values(case) {
            let state = read(name, place, &record);
            if let Some(kept) = kept_value(&state, place) {
                assert_eq!(kept, expected, "{name} in {place}");
            }
            checks += 1;
        }
        let text = std::str::from_utf8(case).unwrap();
        assert_eq!(OpaqueJson::parse(text).unwrap().to_value().unwrap(), expected, "{name} as a body");
        if let Some(string) = sole_string(case) {
            let expected_text = expected[0].as_str().unwrap();
            for (place, record) in as_strings(string) {
                let state = read(name, place, &record);
                match place {
                    "a field name" => assert_eq!(state.other_fields[0].0, JsonString::from(expected_text), "{name}"),
                    "a call id" => assert!(state.call_results[0].is_for(expected_text), "{name}"),
                    "a call's digest" => {
                        assert_eq!(state.call_results[0].args_digest, Some(JsonString::from(expected_text)), "{name}")
                    }
                    _ => {}
                }
                checks += 1;
            }
        }
    }
    println!("{} y_ documents, {checks} records read", ACCEPT.len());
}

#[test]
fn every_n_document_is_malformed_json_in_every_place() {
    let generated = json_suite::generated_refusals();
    let all = REFUSE.iter().map(|(name, case)| (*name, case.to_vec())).chain(generated);
    let mut checks = 0;
    for (name, case) in all {
        refused(name, "a whole record", &case);
        for (place, record) in as_values(&case) {
            refused(name, place, &record);
            checks += 1;
        }
        if let Ok(text) = std::str::from_utf8(&case) {
            assert!(OpaqueJson::parse(text).is_err(), "{name} as a body");
        }
        if name.starts_with("n_string") {
            if let Some(string) = sole_string(&case) {
                for (place, record) in as_strings(string) {
                    refused(name, place, &record);
                    checks += 1;
                }
            }
        }
    }
    println!("{} n_ documents, {checks} records refused", REFUSE.len() + 2);
}

#[test]
fn a_raw_control_character_in_any_string_is_refused_naming_its_offset() {
    for raw in (0u8..0x20).map(char::from) {
        for (place, record) in as_strings(format!("\"a{raw}b\"").as_bytes()) {
            let offset = record.iter().position(|&b| b == raw as u8).unwrap();
            let message = ActionState::from_json(&record).unwrap_err().to_string();
            let expected = format!("raw control character U+{:04X} inside a string at byte {offset}", raw as u32);
            assert!(message.contains(&expected), "{place}: {message}");
        }
    }
}

#[test]
fn every_i_document_gets_its_documented_decision() {
    let nested = json_suite::nested_500();
    let all = IMPLEMENTATION_DEFINED
        .iter()
        .map(|(name, case, decision)| (*name, case.to_vec(), *decision))
        .chain([("i_structure_500_nested_arrays", nested, Decision::Keep)]);
    for (name, case, decision) in all {
        let mut places = as_values(&case);
        if let Some(string) = sole_string(&case) {
            places.extend(as_strings(string));
        }
        if case.trim_ascii().starts_with(b"{") || name.contains("BOM") {
            places.push(("a whole record", case.clone()));
        }
        for (place, record) in places {
            match decision {
                Decision::Keep => {
                    let state = read(name, place, &record);
                    if place == "an unknown field" {
                        let kept = state.other_field("x").unwrap().get();
                        let compact: String = std::str::from_utf8(&case).unwrap().split_ascii_whitespace().collect();
                        assert_eq!(kept, compact, "{name}: kept with its text");
                    }
                }
                Decision::Refuse => refused(name, place, &record),
            }
        }
    }
}
