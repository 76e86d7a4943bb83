//! How a journal slot and a call's id cross JNI: a slot as a `JournalSlot`
//! (its id whole, or split into function id and args digest by the core),
//! and a call named by its two parts joined by the core, so neither Java nor
//! Python restates the id's `::` + digest rule.

use jni::objects::{JByteArray, JObject};
use jni::sys::jint;
use jni::{Env, JValue};

use crate::identity;
use crate::jni::classes::classes;
use crate::jni::{byte_array_or_null, optional_utf8, required_utf8, BridgeResult};
use crate::model::{CallResult, CallStatus, JsonString};

/// `JournalSlot` status codes: the order of Java's `CallResult.Status`
/// (`journal_slot_statuses` in tests/vectors/constants.json).
pub(crate) const SLOT_PENDING: jint = 0;
pub(crate) const SLOT_SUCCEEDED: jint = 1;
pub(crate) const SLOT_FAILED: jint = 2;

/// A slot's call id as it crosses: UTF-8 (WTF-8 for an id holding a lone surrogate), None for null.
pub(crate) fn slot_id(slot: &CallResult) -> Option<&[u8]> {
    slot.call_id.as_ref().map(JsonString::as_wtf8)
}

/// A slot's status as it crosses (`JournalSlot`'s index into `CallResult.Status`).
pub(crate) fn slot_status(slot: &CallResult) -> jint {
    match slot.effective_status() {
        CallStatus::Pending => SLOT_PENDING,
        CallStatus::Succeeded => SLOT_SUCCEEDED,
        CallStatus::Failed => SLOT_FAILED,
    }
}

/// A slot as a new `JournalSlot(functionId, argsDigest, status, result,
/// exception)` (each `byte[]` UTF-8 or null), or null; Java turns the id
/// bytes into its String. Read `split`, the id crosses as the core's split
/// of it ([`split_slot_id`]): its function id part, and its args digest part
/// (empty when it has none); read whole, the id is the function id and the
/// digest is null.
pub(crate) fn journal_slot<'l>(env: &mut Env<'l>, slot: Option<&CallResult>, split: bool) -> BridgeResult<JObject<'l>> {
    let Some(slot) = slot else { return Ok(JObject::null()) };
    // A null id stays null; one holding a lone surrogate crosses as WTF-8.
    let (function_id, args_digest) = match (slot_id(slot), split) {
        (Some(id), true) => {
            let (function_id, args_digest) = split_slot_id(id);
            (Some(function_id), Some(args_digest))
        }
        (None, true) => (None, Some(&b""[..])),
        (id, false) => (id, None),
    };
    let id = byte_array_or_null(env, function_id)?;
    let digest = byte_array_or_null(env, args_digest)?;
    let status = slot_status(slot);
    let result = byte_array_or_null(env, slot.result_payload.as_deref())?;
    let exception = byte_array_or_null(env, slot.exception_payload.as_deref())?;
    let args = [
        JValue::Object(&id).as_jni(),
        JValue::Object(&digest).as_jni(),
        JValue::Int(status).as_jni(),
        JValue::Object(&result).as_jni(),
        JValue::Object(&exception).as_jni(),
    ];
    Ok(classes(env)?.journal_slot.new_object(env, &args)?)
}

/// A slot's id (UTF-8, or WTF-8) as its function id and args digest parts,
/// by [`identity::split_call_id`]; an id holding a lone surrogate is not
/// Unicode, so it has no digest and stays whole (as
/// `DurableIds.functionIdOfCallId` has it).
pub(super) fn split_slot_id(id: &[u8]) -> (&[u8], &[u8]) {
    match std::str::from_utf8(id) {
        Ok(id) => {
            let (function_id, args_digest) = identity::split_call_id(id);
            (function_id.as_bytes(), args_digest.as_bytes())
        }
        Err(_) => (id, b""),
    }
}

/// The id of a call its caller names by two parts, joined by the core
/// ([`identity::call_id_with_digest`]): the function id alone when the args
/// digest is null or empty. A caller that has the whole id passes it as the
/// function id with a null digest, so every primitive takes one shape.
pub(crate) fn call_id(env: &Env<'_>, function_id: &JByteArray<'_>, args_digest: &JByteArray<'_>) -> BridgeResult<String> {
    let function_id = required_utf8(env, function_id, "functionId")?;
    Ok(joined(function_id, optional_utf8(env, args_digest, "argsDigest")?))
}

/// [`call_id`] of decoded parts.
pub(super) fn joined(function_id: String, args_digest: Option<String>) -> String {
    match args_digest {
        Some(digest) if !digest.is_empty() => identity::call_id_with_digest(&function_id, &digest),
        _ => function_id,
    }
}
