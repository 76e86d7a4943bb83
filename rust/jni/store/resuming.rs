//! The JNI export of `StoreJni.getResuming`: a stored entry handed to a
//! reader that answers an interrupted action's recorded calls itself (Flink
//! Agents' adapter), its replayable hits apart, in one crossing.

use jni::objects::{JClass, JObject};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned, JValue};

use super::{entry_key, store_handle};
use crate::error::Error;
use crate::jni::arrays;
use crate::jni::classes::classes;
use crate::jni::journal::{slot_id, slot_status};
use crate::jni::{BridgeError, BridgeResult, ThrowJavaException};
use crate::model::ActionState;

/// The entry for a reader that answers its recorded calls itself (Flink
/// Agents' adapter, for an action on the native journal), in one crossing: a
/// `ResumingEntry(stateJsonWithoutCalls, completed, callCount, packed,
/// idLengths, resultLengths, separateResults, statuses, exceptions)`. The JSON
/// is Flink Agents' of the entry without its call results, `completed` is its
/// `completed` field (so a reader that needs nothing else of an interrupted
/// entry leaves the JSON unread), `callCount` counts every
/// slot, and the hits are the entry's [`ActionState::replayable_prefix`] (the
/// core's replay rule), each slot's fields as the journal's primitives send
/// them (see [`resuming_entry`] for how they cross). Null on a miss.
fn get_resuming<'l>(env: &mut Env<'l>, ptr: jlong, key: &JObject<'_>) -> BridgeResult<JObject<'l>> {
    let key = entry_key(env, key)?;
    let store = store_handle(ptr)?.clone();
    // Built from the entry in place (with the store locked): its payloads are copied once, into Java.
    let mut built = Ok(JObject::null());
    store.read_entry(&key, &mut |state| built = resuming_entry(env, state))?;
    built
}

/// The largest result that crosses packed with the hits' ids; a larger one
/// crosses as a `byte[]` of its own. Java copies a packed result out of the
/// packed array once more, which at this size costs about what an array of
/// its own costs in JNI (four transitions into the JVM).
pub(super) const PACKED_RESULT_MAX: usize = 2048;

/// A length in `idLengths`/`resultLengths` for a null id or result.
pub(super) const ABSENT: jint = -1;

/// The hits cross as columns, not as one object or array per slot: every
/// id, and every result up to [`PACKED_RESULT_MAX`], back to back in one
/// `byte[]` (`packed`, hit by hit, an id before its result), with each one's
/// length (`ABSENT` for none) in `idLengths` and `resultLengths`. A larger
/// result is in `separateResults` at its hit's index (null elsewhere), and an
/// exception, which only a failure has, in `exceptions`; either array is null
/// when no hit has anything in it. An array from native
/// code costs several JVM transitions and a constructor an upcall, while Java
/// slices a packed array with plain copies: at 10 hits of 100 B this is 6
/// arrays and one object instead of 20 element arrays. Java only slices at
/// the lengths given (`JournalSlot.recorded`); nothing is parsed there.
fn resuming_entry<'l>(env: &mut Env<'l>, state: &ActionState) -> BridgeResult<JObject<'l>> {
    let hits = state.replayable_prefix();
    let json = arrays::byte_array(env, &state.to_json_without_calls())?;
    let classes = classes(env)?;
    let byte_array_class = classes.byte_array.get(env);
    // Most hits are successes with small results: then neither array is made (null crosses).
    let separate_results = if hits.iter().any(|hit| hit.result_payload.as_ref().is_some_and(|r| r.len() > PACKED_RESULT_MAX)) {
        Some(arrays::byte_arrays(env, &byte_array_class, hits.len())?)
    } else {
        None
    };
    let exceptions = if hits.iter().any(|hit| hit.exception_payload.is_some()) {
        Some(arrays::byte_arrays(env, &byte_array_class, hits.len())?)
    } else {
        None
    };
    let packed_len: usize = hits
        .iter()
        .map(|hit| slot_id(hit).map_or(0, <[u8]>::len) + hit.result_payload.as_deref().filter(|r| r.len() <= PACKED_RESULT_MAX).map_or(0, <[u8]>::len))
        .sum();
    let mut packed = Vec::with_capacity(packed_len);
    let mut id_lengths = Vec::with_capacity(hits.len());
    let mut result_lengths = Vec::with_capacity(hits.len());
    for (index, hit) in hits.iter().enumerate() {
        id_lengths.push(packed_length(&mut packed, slot_id(hit))?);
        // `separate_results` exists whenever some result is larger than the packed ones.
        match (hit.result_payload.as_deref(), &separate_results) {
            (Some(result), Some(separate)) if result.len() > PACKED_RESULT_MAX => {
                arrays::set_byte_array_element(env, separate, index, Some(result))?;
                result_lengths.push(ABSENT);
            }
            (result, _) => result_lengths.push(packed_length(&mut packed, result)?),
        }
        if let Some(exceptions) = &exceptions {
            arrays::set_byte_array_element(env, exceptions, index, hit.exception_payload.as_deref())?;
        }
    }
    let packed = arrays::byte_array(env, &packed)?;
    let id_lengths = arrays::int_array(env, &id_lengths)?;
    let result_lengths = arrays::int_array(env, &result_lengths)?;
    let statuses: Vec<jint> = hits.iter().map(slot_status).collect();
    let statuses = arrays::int_array(env, &statuses)?;
    let calls = state.call_results.len();
    let call_count = jint::try_from(calls).map_err(|_| Error::InvalidArgument(format!("{calls} call slots")))?;
    let null = JObject::null();
    let separate_results: &JObject<'_> = separate_results.as_deref().unwrap_or(&null);
    let exceptions: &JObject<'_> = exceptions.as_deref().unwrap_or(&null);
    let args = [
        JValue::Object(&json).as_jni(),
        JValue::Bool(state.completed).as_jni(),
        JValue::Int(call_count).as_jni(),
        JValue::Object(&packed).as_jni(),
        JValue::Object(&id_lengths).as_jni(),
        JValue::Object(&result_lengths).as_jni(),
        JValue::Object(separate_results).as_jni(),
        JValue::Object(&statuses).as_jni(),
        JValue::Object(exceptions).as_jni(),
    ];
    Ok(classes.resuming_entry.new_object(env, &args)?)
}

/// Appends `bytes` to `packed` and returns its length, or [`ABSENT`] for none.
pub(super) fn packed_length(packed: &mut Vec<u8>, bytes: Option<&[u8]>) -> BridgeResult<jint> {
    let Some(bytes) = bytes else { return Ok(ABSENT) };
    packed.extend_from_slice(bytes);
    jint::try_from(bytes.len()).map_err(|_| BridgeError::Core(Error::InvalidArgument(format!("{} bytes do not fit a Java array", bytes.len()))))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_getResuming<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, key: JObject<'l>) -> JObject<'l> {
    env.with_env(|env| get_resuming(env, ptr, &key)).resolve::<ThrowJavaException>()
}
