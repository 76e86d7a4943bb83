//! Writing an ActionState as the JSON Flink Agents' `ActionStateSerde`
//! reads. Written by hand: bodies are copied as the text they are, and names
//! holding lone surrogates are written with their escapes, which serde's
//! `Serializer` has no way to express for a map key.

use base64::engine::general_purpose::STANDARD;
use base64::Engine;

use super::opaque::OpaqueJson;
use super::text::{write_json_str, JsonString};
use super::{ActionState, CallResult};

/// The state's JSON with `calls` as its call results (its own, or none for
/// a reader that takes the slots apart).
pub(super) fn write_state(state: &ActionState, calls: &[CallResult]) -> String {
    let mut out = String::with_capacity(estimated_len(state, calls));
    out.push('{');
    if let Some(event) = &state.task_event {
        out.push_str("\"taskEvent\":");
        out.push_str(event.get());
        out.push(',');
    }
    write_bodies("sensoryMemoryUpdates", &state.sensory_memory_updates, &mut out);
    write_bodies("shortTermMemoryUpdates", &state.short_term_memory_updates, &mut out);
    write_bodies("outputEvents", &state.output_events, &mut out);
    out.push_str("\"callResults\":[");
    for (i, slot) in calls.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_call_result(slot, &mut out);
    }
    out.push_str("],\"completed\":");
    out.push_str(if state.completed { "true" } else { "false" });
    for (name, value) in &state.other_fields {
        out.push(',');
        write_member(name, value, &mut out);
    }
    out.push('}');
    out
}

/// Unknown top-level fields as one JSON object (how the store keeps them).
pub(crate) fn other_fields_to_json(fields: &[(JsonString, OpaqueJson)]) -> String {
    let mut out = String::from("{");
    for (i, (name, value)) in fields.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write_member(name, value, &mut out);
    }
    out.push('}');
    out
}

fn write_member(name: &JsonString, value: &OpaqueJson, out: &mut String) {
    name.write_json(out);
    out.push(':');
    out.push_str(value.get());
}

fn write_bodies(name: &str, bodies: &[OpaqueJson], out: &mut String) {
    out.push('"');
    out.push_str(name);
    out.push_str("\":[");
    for (i, body) in bodies.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(body.get());
    }
    out.push_str("],");
}

/// The fields of Flink Agents' `CallResult`, and nothing else: its reader
/// fails on a property it does not know.
fn write_call_result(slot: &CallResult, out: &mut String) {
    out.push_str("{\"functionId\":");
    write_optional_string(slot.call_id.as_ref(), out);
    out.push_str(",\"argsDigest\":");
    write_optional_string(slot.args_digest.as_ref(), out);
    out.push_str(",\"status\":");
    match slot.status {
        Some(status) => write_json_str(status.as_str(), out),
        None => out.push_str("null"),
    }
    out.push_str(",\"resultPayload\":");
    write_base64(slot.result_payload.as_deref(), out);
    out.push_str(",\"exceptionPayload\":");
    write_base64(slot.exception_payload.as_deref(), out);
    out.push('}');
}

fn write_optional_string(value: Option<&JsonString>, out: &mut String) {
    match value {
        Some(text) => text.write_json(out),
        None => out.push_str("null"),
    }
}

fn write_base64(bytes: Option<&[u8]>, out: &mut String) {
    match bytes {
        Some(bytes) => {
            out.push('"');
            STANDARD.encode_string(bytes, out);
            out.push('"');
        }
        None => out.push_str("null"),
    }
}

/// Enough for the whole document with `calls` as its call results in the
/// common case, so it is built without reallocating (and one written without
/// them allocates for none).
fn estimated_len(state: &ActionState, calls: &[CallResult]) -> usize {
    let bodies: usize = state
        .task_event
        .iter()
        .chain(&state.sensory_memory_updates)
        .chain(&state.short_term_memory_updates)
        .chain(&state.output_events)
        .chain(state.other_fields.iter().map(|(_, value)| value))
        .map(|body| body.get().len() + 1)
        .sum();
    let slots: usize = calls
        .iter()
        .map(|slot| {
            let payloads = slot.result_payload.as_ref().map_or(0, Vec::len) + slot.exception_payload.as_ref().map_or(0, Vec::len);
            let id = slot.call_id.as_ref().map_or(0, |id| id.as_wtf8().len());
            120 + id + payloads.div_ceil(3) * 4
        })
        .sum();
    160 + bodies + slots + state.other_fields.iter().map(|(name, _)| name.as_wtf8().len() + 4).sum::<usize>()
}
