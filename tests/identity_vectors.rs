//! Checks every case of tests/vectors/identity.json against the Rust core.
//! JUnit (IdentityVectorsTest) and pytest (python/tests/test_vectors.py)
//! check the same file through JNI and the C ABI, so a change on any side
//! that breaks parity fails all three.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use durable_journal::identity::{self, canonical, ExecutionIdentity};
use durable_journal::{Error, ErrorCode};
use serde_json::Value as Json;

fn vectors() -> Json {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors/identity.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("read vectors")).expect("parse vectors")
}

fn cases() -> Vec<Json> {
    vectors()["cases"].as_array().expect("cases").clone()
}

fn text<'a>(case: &'a Json, field: &str) -> &'a str {
    case[field].as_str().unwrap_or_else(|| panic!("{}: missing string {field}", case["name"]))
}

/// The vectors name errors as Java and Python do: `NON_CANONICAL_ARGUMENT`.
fn error_name(code: ErrorCode) -> String {
    let camel = format!("{code:?}");
    let mut name = String::new();
    for (i, c) in camel.chars().enumerate() {
        if c.is_uppercase() && i > 0 {
            name.push('_');
        }
        name.push(c.to_ascii_uppercase());
    }
    name
}

/// Compares an outcome with the case's `expected`/`digest` or `error`, and
/// says what the code produced so a new case is easy to fill in.
fn check(case: &Json, expected_field: &str, outcome: Result<String, Error>) -> Option<String> {
    let name = &case["name"];
    match (case.get("error"), outcome) {
        (None, Ok(actual)) => {
            let expected = case[expected_field].as_str();
            (expected != Some(actual.as_str())).then(|| format!("{name}: expected {expected:?}, got {actual:?}"))
        }
        (Some(error), Err(e)) => {
            if error.as_str() != Some(error_name(e.code()).as_str()) {
                return Some(format!("{name}: expected error {error}, got {e}"));
            }
            let path = case.get("path").and_then(Json::as_str);
            path.filter(|path| !e.to_string().contains(&format!("argument {path} has")))
                .map(|path| format!("{name}: error should name {path}: {e}"))
        }
        (None, Err(e)) => Some(format!("{name}: unexpected error {e}")),
        (Some(error), Ok(actual)) => Some(format!("{name}: expected error {error}, got {actual:?}")),
    }
}

fn call_tree(case: &Json) -> Json {
    serde_json::json!({"args": case["args"], "kwargs": case["kwargs"]})
}

fn run_case(case: &Json) -> Vec<String> {
    let kind = text(case, "kind");
    let mut failures = Vec::new();
    let mut push = |failure: Option<String>| failures.extend(failure);
    match kind {
        "args_digest" => {
            let tree = call_tree(case);
            push(check(case, "digest", identity::args_digest_from_tree(&tree)));
            if let Some(hex) = case.get("canonical_hex").and_then(Json::as_str) {
                let encoding = canonical::canonical_encoding(&identity::parse_call_tree(&tree).unwrap()).unwrap();
                let actual: String = encoding.iter().map(|b| format!("{b:02x}")).collect();
                push((actual != hex).then(|| format!("{}: canonical encoding differs:\n  {actual}", case["name"])));
            }
        }
        "call_id" => {
            let outcome = match case.get("durable_id").and_then(Json::as_str) {
                Some(explicit) => identity::explicit_call_id(explicit),
                None => identity::parse_call_tree(&call_tree(case))
                    .and_then(|args| identity::derived_call_id(text(case, "function_id"), &args)),
            };
            push(check(case, "expected", outcome));
        }
        "tool_call_id" => push(check(case, "expected", identity::tool_call_durable_id(text(case, "tool_call_id")))),
        "chat" => push(check(case, "expected", Ok(identity::CHAT_DURABLE_ID.to_string()))),
        "root_occurrence" => {
            let key = BASE64.decode(text(case, "business_key")).expect("base64 key");
            let sequence = case["input_sequence"].as_i64().expect("input_sequence");
            push(check(case, "expected", identity::root_occurrence_id(&key, sequence)));
        }
        "action_execution" => push(check(
            case,
            "expected",
            identity::action_execution_id(text(case, "triggering_occurrence"), text(case, "action_name")),
        )),
        "emitted_occurrence" => push(check(
            case,
            "expected",
            identity::emitted_occurrence_id(text(case, "producer_execution"), case["emission_ordinal"].as_i64().unwrap()),
        )),
        "generated_call_id" => push(check(
            case,
            "expected",
            identity::generated_call_id(
                text(case, "namespace"),
                text(case, "session_id"),
                case["call_ordinal"].as_i64().unwrap(),
            ),
        )),
        "execution_identity" => failures.extend(run_execution_identity(case)),
        other => failures.push(format!("{}: unknown kind {other}", case["name"])),
    }
    failures
}

fn run_execution_identity(case: &Json) -> Vec<String> {
    let mut ids = match ExecutionIdentity::new(text(case, "execution_id")) {
        Ok(ids) => ids,
        Err(e) => return check(case, "", Err(e)).into_iter().collect(),
    };
    if let Some(error) = case.get("error") {
        return vec![format!("{}: expected error {error}", case["name"])];
    }
    let mut produced: Vec<Option<String>> = Vec::new();
    let mut failures = Vec::new();
    for (i, step) in case["steps"].as_array().unwrap().iter().enumerate() {
        let outcome = if let Some(emit) = step.get("emit") {
            let existing = emit.as_str().map(|s| match s.strip_prefix('$') {
                Some(n) => produced[n.parse::<usize>().unwrap()].clone().expect("referenced step produced an id"),
                None => s.to_string(),
            });
            ids.emit(existing.as_deref())
        } else {
            let call = &step["next_call_id"];
            ids.next_call_id(text(call, "target"), text(call, "session_id"))
        };
        produced.push(outcome.as_ref().ok().cloned());
        let mut labelled = step.clone();
        labelled["name"] = format!("{} step {i}", case["name"]).into();
        failures.extend(check(&labelled, "expected", outcome));
    }
    failures
}

#[test]
fn every_vector_matches_the_rust_core() {
    let failures: Vec<String> = cases().iter().flat_map(run_case).collect();
    assert!(failures.is_empty(), "{} vector(s) failed:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn vectors_cover_every_kind_and_enough_cases() {
    let cases = cases();
    assert!(cases.len() >= 60, "only {} cases", cases.len());
    let kinds: std::collections::BTreeSet<&str> = cases.iter().map(|c| text(c, "kind")).collect();
    for kind in [
        "args_digest",
        "call_id",
        "tool_call_id",
        "chat",
        "root_occurrence",
        "action_execution",
        "emitted_occurrence",
        "generated_call_id",
        "execution_identity",
    ] {
        assert!(kinds.contains(kind), "no case of kind {kind}");
    }
    let tags: std::collections::BTreeSet<String> = cases
        .iter()
        .filter(|c| c["kind"] == "args_digest")
        .flat_map(|c| tags_in(&call_tree(c)))
        .collect();
    for tag in ["null", "bool", "int", "float", "str", "bytes", "list", "tuple", "dict", "set", "object"] {
        assert!(tags.contains(tag), "no args_digest case uses {tag}");
    }
}

#[test]
fn equal_digest_cases_agree_and_distinct_kinds_differ() {
    let cases = cases();
    let digest_of = |name: &str| {
        let case = cases.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("no case {name}"));
        text(case, "digest").to_string()
    };
    assert_eq!(digest_of("dict b,a"), digest_of("dict a,b (same digest as b,a)"));
    assert_eq!(digest_of("set 3,1,2"), digest_of("set 1,2,3 (same digest as 3,1,2)"));
    assert_eq!(digest_of("kwargs only"), digest_of("kwargs in other order (same digest)"));
    assert_eq!(digest_of("dataclass Address"), digest_of("dataclass Address, fields in other order"));
    assert_ne!(digest_of("list of mixed"), digest_of("tuple of mixed"));
    assert_ne!(digest_of("float zero"), digest_of("float negative zero"));
    assert_ne!(digest_of("kwargs only"), digest_of("positional vs keyword differ"));
}

fn tags_in(tree: &Json) -> Vec<String> {
    match tree {
        Json::Null => vec!["null".into()],
        Json::Bool(_) => vec!["bool".into()],
        Json::Array(items) => items.iter().flat_map(tags_in).collect(),
        Json::Object(map) => map
            .iter()
            .flat_map(|(k, v)| {
                let mut tags = tags_in(v);
                if matches!(k.as_str(), "int" | "float" | "str" | "bytes" | "list" | "tuple" | "dict" | "set" | "object") {
                    tags.push(k.clone());
                }
                tags
            })
            .collect(),
        _ => vec![],
    }
}
