use super::*;
use crate::error::ErrorCode;

fn round_trip(json: &str) -> String {
    String::from_utf8(ActionState::from_json(json.as_bytes()).unwrap().to_json()).unwrap()
}

fn malformed(json: &[u8]) -> String {
    let err = ActionState::from_json(json).unwrap_err();
    assert_eq!(err.code(), ErrorCode::MalformedJson, "{err}");
    err.to_string()
}

/// `depth` nested arrays around a number.
fn nested(depth: usize) -> String {
    format!("{}7{}", "[".repeat(depth), "]".repeat(depth))
}

#[test]
fn legacy_record_without_status_infers_it_from_payloads() {
    let json = br#"{"callResults":[
        {"functionId":"a","argsDigest":"x","resultPayload":"AQI=","exceptionPayload":null},
        {"functionId":"b","argsDigest":"","resultPayload":null,"exceptionPayload":"ZXJy"},
        {"functionId":"c","resultPayload":null,"exceptionPayload":null}
    ],"completed":false}"#;
    let state = ActionState::from_json(json).unwrap();
    let statuses: Vec<_> = state.call_results.iter().map(|c| c.effective_status()).collect();
    assert_eq!(statuses, vec![CallStatus::Succeeded, CallStatus::Failed, CallStatus::Succeeded]);
    assert_eq!(state.call_results[0].result_payload.as_deref(), Some(&[1u8, 2][..]));
    assert_eq!(state.call_results[2].result_payload, None);
}

#[test]
fn unknown_fields_are_kept_and_opaque_bodies_round_trip() {
    let json = br#"{"taskEvent":{"@class":"org.example.InputEvent","input":{"k":[1,2]}},
        "sensoryMemoryUpdates":[{"path":"a","value":1}],"shortTermMemoryUpdates":null,
        "outputEvents":[{"@class":"org.example.OutputEvent","output":"x"}],
        "callResults":[{"functionId":"f","status":"PENDING","futureField":42}],
        "completed":false,"someNewField":{"x":1}}"#;
    let state = ActionState::from_json(json).unwrap();
    assert_eq!(state.task_event.as_ref().unwrap().get(), r#"{"@class":"org.example.InputEvent","input":{"k":[1,2]}}"#);
    assert!(state.short_term_memory_updates.is_empty());
    assert!(state.call_results[0].is_pending());
    assert_eq!(state.other_field("someNewField").unwrap().get(), r#"{"x":1}"#);
    let again = ActionState::from_json(&state.to_json()).unwrap();
    assert_eq!(again, state);
}

#[test]
fn numbers_in_bodies_come_back_exactly() {
    let numbers = "[0.12073605139050847,18446744073709551616,123456789012345678901234567890,1e400,-0.0,\
                   -1E-400,1.0,100,4.9e-324,-9223372036854775809]";
    let json = format!(
        r#"{{"taskEvent":{{"@class":"E","n":{numbers}}},"sensoryMemoryUpdates":[{numbers}],"shortTermMemoryUpdates":[{numbers}],"outputEvents":[{numbers}],"callResults":[],"completed":true,"extra":{numbers}}}"#
    );
    assert_eq!(round_trip(&json), json);
}

#[test]
fn random_doubles_come_back_bit_for_bit() {
    // xorshift64*: deterministic, no dependency.
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        seed ^= seed >> 12;
        seed ^= seed << 25;
        seed ^= seed >> 27;
        seed.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut altered_by_a_tree = 0;
    let mut texts = Vec::new();
    while texts.len() < 20_000 {
        let value = f64::from_bits(next());
        if !value.is_finite() {
            continue;
        }
        // Shortest round-trip form (as Java 19+ and ryu write it) and 17 digits (as %.17g does).
        texts.push(format!("{value:?}"));
        texts.push(format!("{value:.16e}"));
    }
    let json = format!(r#"{{"outputEvents":[[{}]],"callResults":[],"completed":false}}"#, texts.join(","));
    let state = ActionState::from_json(json.as_bytes()).unwrap();
    let written = String::from_utf8(state.to_json()).unwrap();
    let body = state.output_events[0].get();
    for (text, again) in texts.iter().zip(body[1..body.len() - 1].split(',')) {
        assert_eq!(again, text);
        let tree: serde_json::Value = serde_json::from_str(text).unwrap();
        if tree.as_f64().unwrap().to_bits() != text.parse::<f64>().unwrap().to_bits() {
            altered_by_a_tree += 1;
        }
    }
    assert!(written.contains(&texts.join(",")));
    // What a parsed tree (the model before bodies were kept as text) does to
    // the same values: serde_json without `float_roundtrip` is not correctly
    // rounded, so some come back as a neighbouring double.
    eprintln!("{altered_by_a_tree} of {} doubles altered by a serde_json::Value tree", texts.len());
}

#[test]
fn lone_surrogates_load_everywhere_and_come_back() {
    let json = r#"{"taskEvent":{"@class":"E","text":"cut \uD83D"},"sensoryMemoryUpdates":["\uDE00"],"shortTermMemoryUpdates":[],"outputEvents":[{"\uD83D":1}],"callResults":[{"functionId":"tool-call:\uD83D","argsDigest":"\uDBFF","status":"SUCCEEDED","resultPayload":"AQ==","exceptionPayload":null}],"completed":false,"\uD83Dfield":"\uD83D"}"#;
    let state = ActionState::from_json(json.as_bytes()).unwrap();
    let slot = &state.call_results[0];
    assert!(matches!(slot.call_id, Some(JsonString::LoneSurrogates(_))));
    assert_eq!(slot.call_id_for_display(), r"tool-call:\uD83D");
    assert!(!slot.is_for("tool-call:\u{FFFD}"), "an id that is no Unicode text matches no call");
    assert_eq!(round_trip(json), json);
}

#[test]
fn a_pretty_printed_record_is_compacted_with_the_same_meaning() {
    let json = "{ \"taskEvent\" : { \"a b\" : [ 1 , 2.50 ] } ,\n \"callResults\" : [ ] }";
    let expected = r#"{"taskEvent":{"a b":[1,2.50]},"sensoryMemoryUpdates":[],"shortTermMemoryUpdates":[],"outputEvents":[],"callResults":[],"completed":false}"#;
    assert_eq!(round_trip(json), expected);
}

#[test]
fn key_order_in_bodies_and_of_unknown_fields_is_kept() {
    let json = r#"{"taskEvent":{"z":1,"a":2,"m":{"y":1,"b":2}},"sensoryMemoryUpdates":[],"shortTermMemoryUpdates":[],"outputEvents":[],"callResults":[],"completed":false,"zz":1,"aa":2}"#;
    assert_eq!(round_trip(json), json);
}

#[test]
fn nesting_up_to_jacksons_limit_loads_and_deeper_is_refused() {
    // The record is level 1, a list under it level 2: a document of exactly
    // MAX_NESTING_DEPTH levels loads wherever the deepest body sits.
    let at_limit = [
        format!(r#"{{"taskEvent":{}}}"#, nested(MAX_NESTING_DEPTH - 1)),
        format!(r#"{{"outputEvents":[{}]}}"#, nested(MAX_NESTING_DEPTH - 2)),
        format!(r#"{{"futureField":{}}}"#, nested(MAX_NESTING_DEPTH - 1)),
    ];
    for json in &at_limit {
        let state = ActionState::from_json(json.as_bytes()).unwrap();
        assert_eq!(ActionState::from_json(&state.to_json()).unwrap(), state);
    }
    let too_deep = [
        format!(r#"{{"taskEvent":{}}}"#, nested(MAX_NESTING_DEPTH)),
        format!(r#"{{"sensoryMemoryUpdates":[{}]}}"#, nested(MAX_NESTING_DEPTH - 1)),
        format!(r#"{{"futureField":{}}}"#, nested(MAX_NESTING_DEPTH)),
    ];
    for json in &too_deep {
        let message = malformed(json.as_bytes());
        assert!(message.contains("nests deeper than") && message.contains("1000"), "{message}");
    }
}

#[test]
fn absurdly_deep_input_is_refused_without_exhausting_the_stack() {
    for depth in [100_000, 2_000_000] {
        malformed(format!(r#"{{"taskEvent":{}}}"#, nested(depth)).as_bytes());
        malformed(format!(r#"{{"callResults":[{{"functionId":"f","x":{}}}]}}"#, "[".repeat(depth)).as_bytes());
    }
}

#[test]
fn invalid_utf8_is_refused_clearly() {
    let message = malformed(b"{\"taskEvent\":\"caf\xe9\"}");
    assert!(message.contains("not valid UTF-8 at byte 17"), "{message}");
    // A surrogate encoded directly as UTF-8 bytes is not UTF-8 either.
    malformed(b"{\"taskEvent\":\"\xed\xa0\xbd\"}");
}

#[test]
fn malformed_json_is_a_clear_error() {
    for bad in [
        &b"{"[..],
        b"[]",
        b"\xff\xfe",
        br#"{"callResults":[{"functionId":1}]}"#,
        br#"{"callResults":[{"functionId":"f","status":"DONE"}]}"#,
        br#"{"taskEvent":{"a":}}"#,
        br#"{"completed":false} x"#,
    ] {
        malformed(bad);
    }
}

#[test]
fn invalid_base64_payload_is_rejected() {
    let message = malformed(br#"{"callResults":[{"functionId":"f","resultPayload":"!!"}]}"#);
    assert!(message.contains("malformed"), "{message}");
}

#[test]
fn a_null_function_id_loads_matches_no_call_and_is_written_back_as_null() {
    for json in [
        br#"{"callResults":[{"functionId":null,"argsDigest":"","status":"SUCCEEDED","resultPayload":"MQ==","exceptionPayload":null}]}"#.as_slice(),
        br#"{"callResults":[{"status":"PENDING"}]}"#,
    ] {
        let state = ActionState::from_json(json).unwrap();
        let slot = &state.call_results[0];
        assert_eq!(slot.call_id, None);
        assert!(!slot.is_for("") && !slot.is_for("null"));
        assert_eq!(slot.call_id_for_display(), "null");
        let written = String::from_utf8(state.to_json()).unwrap();
        assert!(written.contains(r#"{"functionId":null,"#), "{written}");
        assert_eq!(ActionState::from_json(written.as_bytes()).unwrap(), state);
    }
}

#[test]
fn args_digest_is_kept_as_read_and_empty_where_there_was_none() {
    let json = br#"{"callResults":[
        {"functionId":"a","argsDigest":"3f2a9c","status":"SUCCEEDED","resultPayload":null,"exceptionPayload":null},
        {"functionId":"b","argsDigest":null,"status":"SUCCEEDED","resultPayload":null,"exceptionPayload":null},
        {"functionId":"c","status":"SUCCEEDED","resultPayload":null,"exceptionPayload":null}]}"#;
    let mut state = ActionState::from_json(json).unwrap();
    state.call_results.push(CallResult::completed("d", Outcome::success(None)));
    let written = String::from_utf8(state.to_json()).unwrap();
    for expected in [
        r#"{"functionId":"a","argsDigest":"3f2a9c","#,
        r#"{"functionId":"b","argsDigest":null,"#,
        r#"{"functionId":"c","argsDigest":"","#,
        r#"{"functionId":"d","argsDigest":"","#,
    ] {
        assert!(written.contains(expected), "{expected} in {written}");
    }
}

#[test]
fn slots_are_written_with_exactly_the_fields_flink_agents_knows() {
    let state = ActionState { call_results: vec![CallResult::completed("f", Outcome::success(Some(vec![1, 2])))], ..Default::default() };
    assert_eq!(
        String::from_utf8(state.to_json()).unwrap(),
        r#"{"sensoryMemoryUpdates":[],"shortTermMemoryUpdates":[],"outputEvents":[],"callResults":[{"functionId":"f","argsDigest":"","status":"SUCCEEDED","resultPayload":"AQI=","exceptionPayload":null}],"completed":false}"#
    );
}

#[test]
fn a_repeated_field_keeps_the_last_value_as_jackson_does() {
    let state = ActionState::from_json(br#"{"completed":true,"x":1,"y":2,"completed":false,"x":3}"#).unwrap();
    assert!(!state.completed);
    assert_eq!(state.other_fields.len(), 2);
    assert_eq!(state.other_fields[0].0, JsonString::from("x"));
    assert_eq!(state.other_fields[0].1.get(), "3");
}

#[test]
fn null_lists_and_null_completed_read_as_empty_and_false() {
    let state = ActionState::from_json(
        br#"{"taskEvent":null,"sensoryMemoryUpdates":null,"outputEvents":[null],"callResults":null,"completed":null}"#,
    )
    .unwrap();
    assert_eq!(state.task_event, None);
    assert!(state.sensory_memory_updates.is_empty() && state.call_results.is_empty() && !state.completed);
    assert_eq!(state.output_events[0].get(), "null");
}

#[test]
fn marking_completed_drops_the_journal() {
    let mut state = ActionState::default();
    state.call_results.push(CallResult::pending("x"));
    state.mark_completed();
    assert!(state.completed);
    assert!(state.call_results.is_empty());
}

/// The ids of a record's replayable prefix, for a record of `slots` (JSON objects).
fn replayable_ids(slots: &[&str], completed: bool) -> Vec<String> {
    let json = format!(r#"{{"callResults":[{}],"completed":{completed}}}"#, slots.join(","));
    let state = ActionState::from_json(json.as_bytes()).unwrap();
    state.replayable_prefix().iter().map(CallResult::call_id_for_display).collect()
}

#[test]
fn the_replayable_prefix_is_the_leading_terminal_slots_under_plain_ids() {
    let success = r#"{"functionId":"a","argsDigest":"","status":"SUCCEEDED","resultPayload":"ImEi","exceptionPayload":null}"#;
    let null_result = r#"{"functionId":"b","status":"SUCCEEDED","resultPayload":null,"exceptionPayload":null}"#;
    let failure = r#"{"functionId":"c","status":"FAILED","resultPayload":null,"exceptionPayload":"ZXJy"}"#;
    let legacy_failure = r#"{"functionId":"d","resultPayload":null,"exceptionPayload":"ZXJy"}"#;
    assert_eq!(replayable_ids(&[success, null_result, failure, legacy_failure], false), ["a", "b", "c", "d"]);

    // Each of these ends the prefix, wherever it stands: the journal decides it and what follows.
    let enders = [
        r#"{"functionId":"p","status":"PENDING","resultPayload":null,"exceptionPayload":null}"#,
        r#"{"functionId":"f","status":"FAILED","resultPayload":null,"exceptionPayload":null}"#,
        r#"{"functionId":"g","argsDigest":"0123456789abcdef","status":"SUCCEEDED","resultPayload":null,"exceptionPayload":null}"#,
        r#"{"functionId":null,"status":"SUCCEEDED","resultPayload":null,"exceptionPayload":null}"#,
        r#"{"functionId":"\ud800","status":"SUCCEEDED","resultPayload":null,"exceptionPayload":null}"#,
    ];
    for ender in enders {
        assert_eq!(replayable_ids(&[success, ender, null_result], false), ["a"], "{ender}");
        assert!(replayable_ids(&[ender, success], false).is_empty(), "{ender}");
    }
    assert!(replayable_ids(&[success], true).is_empty(), "a completed record replays nothing");
    assert!(replayable_ids(&[], false).is_empty());
}
