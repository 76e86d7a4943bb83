//! Round trips and refusals of the store codec.

use super::*;
use crate::model::Outcome;

fn body(text: &str) -> OpaqueJson {
    OpaqueJson::parse(text).unwrap()
}

fn round_trip(state: &ActionState) -> ActionState {
    let mut w = Writer::new();
    write_action_state(&mut w, state);
    let bytes = w.into_bytes();
    let mut r = Reader::new(&bytes);
    let read = read_action_state(&mut r).unwrap();
    r.finish("state").unwrap();
    read
}

/// A slot whose id is flagged as holding lone surrogates but is not
/// WTF-8 (found by the log store fuzz target: the record decoded, and
/// naming the slot in an error message then panicked).
#[test]
fn a_slot_id_flagged_as_lone_surrogates_that_is_not_wtf8_is_refused() {
    for id in [&[0xFF][..], &[0xED, 0xA0], &[0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80]] {
        let mut w = Writer::new();
        w.bytes(id);
        w.u8(2 | ID_LONE_SURROGATES);
        w.opt_bytes(None);
        w.opt_bytes(None);
        let bytes = w.into_bytes();
        let err = read_call_result(&mut Reader::new(&bytes)).unwrap_err();
        assert!(err.0.contains("not WTF-8"), "{id:?}: {}", err.0);
    }
}

#[test]
fn action_state_round_trips_with_payload_absence_preserved() {
    let state = ActionState {
        task_event: Some(body(r#"{"@class":"org.example.InputEvent","input":"héllo 🌍"}"#)),
        sensory_memory_updates: vec![body(r#"{"path":"a","value":1}"#)],
        short_term_memory_updates: vec![],
        output_events: vec![body(r#"{"@class":"org.example.OutputEvent"}"#), body("null")],
        call_results: vec![
            CallResult::completed("a", Outcome::success(Some(vec![]))),
            CallResult::completed("b", Outcome::success(None)),
            CallResult::completed("c", Outcome::failure(b"boom".to_vec())),
            CallResult::pending("d"),
            CallResult { status: None, ..CallResult::pending("legacy") },
        ],
        completed: false,
        other_fields: vec![("subagentResultEvents".into(), body(r#"[{"@class":"X"}]"#))],
    };
    assert_eq!(round_trip(&state), state);
}

#[test]
fn bodies_keep_exact_numbers_lone_surrogates_and_any_depth() {
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let state = ActionState {
        task_event: Some(body(r#"{"n":[0.12073605139050847,18446744073709551616,123456789012345678901234567890,1e400,-0.0]}"#)),
        output_events: vec![body(r#""cut \uD83D""#)],
        // Deeper than from_json accepts: what the store wrote, it reads.
        sensory_memory_updates: vec![OpaqueJson::from_raw(serde_json::from_str::<&RawValue>(&deep).unwrap(), usize::MAX).unwrap()],
        other_fields: vec![(serde_json::from_str(r#""\uDE00""#).unwrap(), body("123456789012345678901234567890"))],
        ..Default::default()
    };
    assert_eq!(round_trip(&state), state);
}

#[test]
fn null_and_lone_surrogate_ids_and_every_kind_of_digest_round_trip() {
    let lone: JsonString = serde_json::from_str(r#""tool-call:\uD83D""#).unwrap();
    let state = ActionState {
        call_results: vec![
            CallResult { call_id: None, ..CallResult::completed("x", Outcome::success(Some(b"1".to_vec()))) },
            CallResult { call_id: Some(lone.clone()), ..CallResult::pending("x") },
            CallResult { args_digest: None, ..CallResult::pending("null digest") },
            CallResult { args_digest: Some("3f2a9c".into()), ..CallResult::pending("digest") },
            CallResult { args_digest: Some(lone), ..CallResult::pending("odd digest") },
            CallResult { call_id: Some("".into()), ..CallResult::pending("x") },
        ],
        ..Default::default()
    };
    assert_eq!(round_trip(&state), state);
}

#[test]
fn records_written_before_digests_and_null_ids_still_decode() {
    // A state as the encoder before this format extension wrote it.
    let bytes = decode_hex(OLD_STATE_HEX);
    let state = read_action_state(&mut Reader::new(&bytes)).unwrap();
    assert_eq!(
        state,
        ActionState {
            task_event: Some(body(r#"{"@class":"E","n":1.5}"#)),
            sensory_memory_updates: vec![body(r#"{"path":"a","value":1}"#)],
            output_events: vec![body(r#""out""#)],
            call_results: vec![
                CallResult::completed("a", Outcome::success(Some(vec![1, 2]))),
                CallResult::completed("c", Outcome::failure(b"boom".to_vec())),
                CallResult::pending("d"),
                CallResult { status: None, ..CallResult::pending("legacy") },
            ],
            other_fields: vec![("subagentResultEvents".into(), body(r#"[{"@class":"X"}]"#))],
            ..Default::default()
        }
    );
}

#[test]
fn a_slot_with_undefined_flags_is_refused() {
    let mut w = Writer::new();
    w.str("f");
    w.u8(0x80);
    w.opt_bytes(None);
    w.opt_bytes(None);
    let err = read_call_result(&mut Reader::new(&w.into_bytes())).unwrap_err();
    assert!(err.0.contains("unknown call status code 128"), "{err}");
}

/// `write_action_state` of the state below, by the encoder of commit 197b2a1.
const OLD_STATE_HEX: &str = concat!(
    "00160000007b2240636c617373223a2245222c226e223a312e357d01000000160000007b2270617468223a2261222c22",
    "76616c7565223a317d000000000100000005000000226f75742204000000010000006102010200000001020001000000",
    "6303000104000000626f6f6d0100000064010000060000006c6567616379000000290000007b227375626167656e7452",
    "6573756c744576656e7473223a5b7b2240636c617373223a2258227d5d7d",
);

fn decode_hex(hex: &str) -> Vec<u8> {
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

#[test]
fn truncated_input_is_an_error_not_a_panic() {
    let mut w = Writer::new();
    write_action_state(&mut w, &ActionState { call_results: vec![CallResult::pending("x")], ..Default::default() });
    let bytes = w.into_bytes();
    for cut in 0..bytes.len() {
        assert!(read_action_state(&mut Reader::new(&bytes[..cut])).is_err(), "cut at {cut}");
    }
}

#[test]
fn absurd_counts_are_refused_before_allocating() {
    let mut w = Writer::new();
    w.u32(u32::MAX);
    let bytes = w.into_bytes();
    let err = read_call_results(&mut Reader::new(&bytes)).unwrap_err();
    assert!(err.0.contains("exceeds"), "{err}");
}
