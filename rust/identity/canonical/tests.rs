use serde_json::json;

use super::*;
use crate::error::ErrorCode;

fn digest(tree: serde_json::Value) -> String {
    args_digest_from_tree(&tree).unwrap()
}

fn error(tree: serde_json::Value) -> Error {
    args_digest_from_tree(&tree).unwrap_err()
}

#[test]
fn digest_is_16_lowercase_hex() {
    let d = digest(json!({"args": [], "kwargs": {}}));
    assert_eq!(d.len(), 16);
    assert!(d.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')), "{d}");
}

#[test]
fn encoding_of_one_int_argument_is_byte_exact() {
    let call = CallArgs { args: vec![Value::int(-5)], kwargs: vec![] };
    let mut expected = Vec::new();
    expected.extend_from_slice(&(ARGS_DIGEST_DOMAIN.len() as u64).to_be_bytes());
    expected.extend_from_slice(ARGS_DIGEST_DOMAIN.as_bytes());
    expected.push(b'T');
    expected.extend_from_slice(&11u64.to_be_bytes());
    expected.push(b'I');
    expected.extend_from_slice(&2u64.to_be_bytes());
    expected.extend_from_slice(b"-5");
    expected.push(b'D');
    expected.extend_from_slice(&0u64.to_be_bytes());
    assert_eq!(canonical_encoding(&call).unwrap(), expected);
}

#[test]
fn keyword_order_does_not_matter() {
    let a = digest(json!({"args": [], "kwargs": {"x": {"int": "1"}, "y": {"str": "a"}}}));
    let b = digest(json!({"args": [], "kwargs": {"y": {"str": "a"}, "x": {"int": "1"}}}));
    assert_eq!(a, b);
}

#[test]
fn dict_and_set_order_does_not_matter() {
    let dict_a = json!({"dict": [[{"str": "a"}, {"int": "1"}], [{"int": "2"}, null]]});
    let dict_b = json!({"dict": [[{"int": "2"}, null], [{"str": "a"}, {"int": "1"}]]});
    assert_eq!(digest(json!({"args": [dict_a], "kwargs": {}})), digest(json!({"args": [dict_b], "kwargs": {}})));
    let set_a = json!({"set": [{"int": "3"}, {"str": "x"}, {"bytes": "AA=="}]});
    let set_b = json!({"set": [{"bytes": "AA=="}, {"int": "3"}, {"str": "x"}]});
    assert_eq!(digest(json!({"args": [set_a], "kwargs": {}})), digest(json!({"args": [set_b], "kwargs": {}})));
}

#[test]
fn object_field_order_does_not_matter_but_type_does() {
    let a = json!({"object": {"type": "m.P", "fields": {"x": {"int": "1"}, "y": {"int": "2"}}}});
    let b = json!({"object": {"type": "m.P", "fields": {"y": {"int": "2"}, "x": {"int": "1"}}}});
    let c = json!({"object": {"type": "m.Q", "fields": {"x": {"int": "1"}, "y": {"int": "2"}}}});
    let d = |v| digest(json!({"args": [v], "kwargs": {}}));
    assert_eq!(d(a.clone()), d(b));
    assert_ne!(d(a), d(c));
}

#[test]
fn kinds_that_print_alike_differ() {
    let d = |v: serde_json::Value| digest(json!({"args": [v], "kwargs": {}}));
    let all = [
        d(json!(null)),
        d(json!(false)),
        d(json!({"int": "0"})),
        d(json!({"float": "0000000000000000"})),
        d(json!({"float": "8000000000000000"})),
        d(json!({"str": ""})),
        d(json!({"str": "0"})),
        d(json!({"bytes": ""})),
        d(json!({"list": []})),
        d(json!({"tuple": []})),
        d(json!({"dict": []})),
        d(json!({"set": []})),
    ];
    let distinct: std::collections::BTreeSet<_> = all.iter().collect();
    assert_eq!(distinct.len(), all.len(), "{all:?}");
}

#[test]
fn nesting_boundaries_are_unambiguous() {
    let d = |args: serde_json::Value| digest(json!({"args": args, "kwargs": {}}));
    assert_ne!(d(json!([{"str": "ab"}, {"str": "c"}])), d(json!([{"str": "a"}, {"str": "bc"}])));
    assert_ne!(d(json!([{"list": [{"int": "1"}]}, {"int": "2"}])), d(json!([{"list": [{"int": "1"}, {"int": "2"}]}])));
    // A positional argument is not a keyword argument of the same value.
    assert_ne!(d(json!([{"int": "1"}])), digest(json!({"args": [], "kwargs": {"a": {"int": "1"}}})));
}

#[test]
fn nan_is_rejected_with_its_path() {
    let err = error(json!({"args": [], "kwargs": {"cfg": {"list": [{"float": "7ff8000000000000"}]}}}));
    assert_eq!(err.code(), ErrorCode::NonCanonicalArgument);
    let message = err.to_string();
    assert!(message.contains("kwargs['cfg'][0]"), "{message}");
    assert!(message.contains("durable_id="), "{message}");
}

#[test]
fn infinities_and_negative_zero_are_values() {
    let d = |bits: &str| digest(json!({"args": [{"float": bits}], "kwargs": {}}));
    assert_ne!(d("7ff0000000000000"), d("fff0000000000000"));
    assert_ne!(d("0000000000000000"), d("8000000000000000"));
}

#[test]
fn keys_that_encode_alike_are_rejected() {
    let err = error(json!({"args": [{"dict": [[{"int": "1"}, null], [{"int": "1"}, {"int": "2"}]]}], "kwargs": {}}));
    assert_eq!(err.code(), ErrorCode::NonCanonicalArgument);
    assert!(err.to_string().contains("args[0]"), "{err}");
    let err = error(json!({"args": [{"set": [{"str": "a"}, {"str": "a"}]}], "kwargs": {}}));
    assert_eq!(err.code(), ErrorCode::NonCanonicalArgument);
}

#[test]
fn non_canonical_tree_spellings_are_rejected() {
    for bad in [
        json!({"int": "007"}),
        json!({"int": "-0"}),
        json!({"int": "+1"}),
        json!({"int": ""}),
        json!({"int": 1}),
        json!({"float": "3FF0000000000000"}),
        json!({"float": "3ff"}),
        json!({"bytes": "AB"}),
        json!({"str": "a", "int": "1"}),
        json!({"nope": []}),
        json!(1),
        json!("text"),
        json!({"dict": [[{"int": "1"}]]}),
        json!({"object": {"type": "m.P"}}),
    ] {
        let err = error(json!({"args": [bad.clone()], "kwargs": {}}));
        assert_eq!(err.code(), ErrorCode::InvalidArgument, "{bad}: {err}");
        assert!(err.to_string().contains("args[0]"), "{bad}: {err}");
    }
    assert_eq!(error(json!({"args": []})).code(), ErrorCode::InvalidArgument);
    assert_eq!(error(json!({"args": [], "kwargs": {}, "x": 1})).code(), ErrorCode::InvalidArgument);
}

#[test]
fn big_integers_keep_every_digit() {
    let big = "123456789012345678901234567890123456789012345678901234567890";
    let bigger = "123456789012345678901234567890123456789012345678901234567891";
    let d = |n: &str| digest(json!({"args": [{"int": n}], "kwargs": {}}));
    assert_ne!(d(big), d(bigger));
    assert_ne!(d(big), d(&format!("-{big}")));
}

#[test]
fn nesting_deeper_than_the_limit_is_rejected() {
    let mut value = json!({"int": "1"});
    for _ in 0..MAX_NESTING {
        value = json!({"list": [value]});
    }
    assert!(args_digest(&CallArgs { args: vec![parse_value_tree(&value).unwrap()], kwargs: vec![] }).is_ok());
    let deeper = Value::List(vec![parse_value_tree(&value).unwrap()]);
    let err = args_digest(&CallArgs { args: vec![deeper], kwargs: vec![] }).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NonCanonicalArgument);
}

#[test]
fn error_paths_name_object_fields_and_dict_keys() {
    let tree = json!({"args": [], "kwargs": {"cfg": {"object": {"type": "app.Config", "fields": {
        "client": {"dict": [[{"str": "it's"}, {"float": "7ff8000000000001"}]]}
    }}}}});
    let message = error(tree).to_string();
    assert!(message.contains(r"kwargs['cfg'].client['it\'s']"), "{message}");
}
