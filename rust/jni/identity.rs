//! JNI exports of `io.durablejournal.identity.NativeIdentity`: spec §3 ids
//! for Java, computed by the same core (`crate::identity`) the C ABI uses.
//! Every string crosses as UTF-8 `byte[]` both ways, so emoji and CJK ids
//! survive unchanged.

use jni::objects::{JByteArray, JClass, JObject};
use jni::sys::jlong;
use jni::strings::JNIStr;
use jni::{jni_sig, jni_str, Env, EnvUnowned};

use super::handle::{self, Borrowed};
use super::{required_bytes, required_utf8, BridgeError, BridgeResult, ThrowJavaException};
use crate::error::Result;
use crate::identity::{self, CallDescription, ExecutionIdentity};

fn utf8_result<'l>(env: &mut Env<'l>, value: Result<String>) -> BridgeResult<JByteArray<'l>> {
    Ok(env.byte_array_from_slice(value?.as_bytes())?)
}

fn optional_utf8(env: &Env<'_>, array: &JByteArray<'_>, name: &'static str) -> BridgeResult<Option<String>> {
    if array.is_null() {
        Ok(None)
    } else {
        required_utf8(env, array, name).map(Some)
    }
}

/// The execution identity a `NativeIdentity` handle points at (the type the
/// C ABI's handle holds too). Java serializes the calls on one handle, and
/// the borrow refuses a second one, so two threads sharing one Java
/// `ExecutionIdentity` never race on its counters.
fn execution<'a>(ptr: jlong) -> BridgeResult<Borrowed<'a, ExecutionIdentity>> {
    // SAFETY: non-zero handles come from `execution_create`; the Java owner
    // passes only the handle it holds.
    unsafe { handle::borrow(ptr, "ExecutionIdentity") }
}

fn args_digest<'l>(env: &mut Env<'l>, tree_json: &JByteArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let json = required_bytes(env, tree_json, "callTreeJson")?;
    utf8_result(env, identity::args_digest_from_json(&json))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_argsDigest<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, tree_json: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| args_digest(env, &tree_json)).resolve::<ThrowJavaException>()
}

fn call_durable_id<'l>(env: &mut Env<'l>, durable_id: &JByteArray<'l>, call: &JObject<'l>) -> BridgeResult<JByteArray<'l>> {
    let explicit = optional_utf8(env, durable_id, "durableId")?;
    let id = identity::call_durable_id(explicit.as_deref(), || describe_call(env, call))?;
    utf8_result(env, Ok(id))
}

/// Asks the Java `PendingCall` for its function id and call tree, only when
/// the id is derived; an exception it throws (a value with no canonical
/// form) stays pending and reaches the caller as it is.
fn describe_call(env: &mut Env<'_>, call: &JObject<'_>) -> BridgeResult<CallDescription> {
    if call.is_null() {
        return Err(BridgeError::NullArgument("call"));
    }
    Ok(CallDescription {
        function_id: returned_array(env, call, jni_str!("functionIdUtf8"), |env, id| required_utf8(env, id, "functionId"))?,
        call_tree_json: returned_array(env, call, jni_str!("callTreeJson"), |env, tree| required_bytes(env, tree, "callTreeJson"))?,
    })
}

/// Calls the `()[B` method `method` of `object` and reads the array it
/// returns with `read`, freeing its local reference either way.
fn returned_array<T>(
    env: &mut Env<'_>,
    object: &JObject<'_>,
    method: &JNIStr,
    read: impl FnOnce(&Env<'_>, &JByteArray<'_>) -> BridgeResult<T>,
) -> BridgeResult<T> {
    let array = env.call_method(object, method, jni_sig!("()[B"), &[])?.l()?;
    let array = env.cast_local::<JByteArray>(array)?;
    let value = read(env, &array);
    env.delete_local_ref(array);
    value
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_callDurableId<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, durable_id: JByteArray<'l>, call: JObject<'l>) -> JByteArray<'l> {
    env.with_env(|env| call_durable_id(env, &durable_id, &call)).resolve::<ThrowJavaException>()
}

fn call_id_with_digest<'l>(env: &mut Env<'l>, function_id: &JByteArray<'l>, args_digest: &JByteArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let function_id = required_utf8(env, function_id, "functionId")?;
    let digest = optional_utf8(env, args_digest, "argsDigest")?.unwrap_or_default();
    utf8_result(env, Ok(identity::call_id_with_digest(&function_id, &digest)))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_callIdWithDigest<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, function_id: JByteArray<'l>, args_digest: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| call_id_with_digest(env, &function_id, &args_digest)).resolve::<ThrowJavaException>()
}

/// The args digest of a call id ([`identity::split_call_id`]), empty when it has none.
fn args_digest_of_call_id<'l>(env: &mut Env<'l>, call_id: &JByteArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let call_id = required_utf8(env, call_id, "callId")?;
    let (_, digest) = identity::split_call_id(&call_id);
    utf8_result(env, Ok(digest.to_owned()))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_argsDigestOfCallId<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, call_id: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| args_digest_of_call_id(env, &call_id)).resolve::<ThrowJavaException>()
}

/// The function id of a call id ([`identity::split_call_id`]): the whole id when it has no digest.
fn function_id_of_call_id<'l>(env: &mut Env<'l>, call_id: &JByteArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let call_id = required_utf8(env, call_id, "callId")?;
    let (function_id, _) = identity::split_call_id(&call_id);
    utf8_result(env, Ok(function_id.to_owned()))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_functionIdOfCallId<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, call_id: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| function_id_of_call_id(env, &call_id)).resolve::<ThrowJavaException>()
}

fn tool_call_durable_id<'l>(env: &mut Env<'l>, tool_call_id: &JByteArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let id = required_utf8(env, tool_call_id, "toolCallId")?;
    utf8_result(env, identity::tool_call_durable_id(&id))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_toolCallDurableId<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, tool_call_id: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| tool_call_durable_id(env, &tool_call_id)).resolve::<ThrowJavaException>()
}

fn root_occurrence<'l>(env: &mut Env<'l>, key: &JByteArray<'l>, input_sequence: jlong) -> BridgeResult<JByteArray<'l>> {
    let key = required_bytes(env, key, "serializedBusinessKey")?;
    utf8_result(env, identity::root_occurrence_id(&key, input_sequence))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_rootOccurrence<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, key: JByteArray<'l>, input_sequence: jlong) -> JByteArray<'l> {
    env.with_env(|env| root_occurrence(env, &key, input_sequence)).resolve::<ThrowJavaException>()
}

fn action_execution<'l>(env: &mut Env<'l>, occurrence: &JByteArray<'l>, action: &JByteArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let occurrence = required_utf8(env, occurrence, "triggeringOccurrence")?;
    let action = required_utf8(env, action, "actionName")?;
    utf8_result(env, identity::action_execution_id(&occurrence, &action))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_actionExecution<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, occurrence: JByteArray<'l>, action: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| action_execution(env, &occurrence, &action)).resolve::<ThrowJavaException>()
}

fn emitted_occurrence<'l>(env: &mut Env<'l>, execution_id: &JByteArray<'l>, ordinal: jlong) -> BridgeResult<JByteArray<'l>> {
    let execution_id = required_utf8(env, execution_id, "producerExecution")?;
    utf8_result(env, identity::emitted_occurrence_id(&execution_id, ordinal))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_emittedOccurrence<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, execution_id: JByteArray<'l>, ordinal: jlong) -> JByteArray<'l> {
    env.with_env(|env| emitted_occurrence(env, &execution_id, ordinal)).resolve::<ThrowJavaException>()
}

fn generated_call_id<'l>(env: &mut Env<'l>, namespace: &JByteArray<'l>, session_id: &JByteArray<'l>, ordinal: jlong) -> BridgeResult<JByteArray<'l>> {
    let namespace = required_utf8(env, namespace, "namespace")?;
    let session_id = required_utf8(env, session_id, "sessionId")?;
    utf8_result(env, identity::generated_call_id(&namespace, &session_id, ordinal))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_generatedCallId<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, namespace: JByteArray<'l>, session_id: JByteArray<'l>, ordinal: jlong) -> JByteArray<'l> {
    env.with_env(|env| generated_call_id(env, &namespace, &session_id, ordinal)).resolve::<ThrowJavaException>()
}

fn execution_create(env: &mut Env<'_>, execution_id: &JByteArray<'_>) -> BridgeResult<jlong> {
    let execution_id = required_utf8(env, execution_id, "executionId")?;
    Ok(handle::into_raw::<ExecutionIdentity>(ExecutionIdentity::new(&execution_id)?))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_executionCreate<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, execution_id: JByteArray<'l>) -> jlong {
    env.with_env(|env| execution_create(env, &execution_id)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_executionDestroy<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) {
    // SAFETY: the Java owner releases its handle once and forgets it.
    env.with_env(|_| -> BridgeResult<()> { Ok(drop(unsafe { handle::release::<ExecutionIdentity>(ptr) })) })
        .resolve::<ThrowJavaException>()
}

fn execution_emit<'l>(env: &mut Env<'l>, ptr: jlong, existing_id: &JByteArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let existing = optional_utf8(env, existing_id, "existingId")?;
    let id = execution(ptr)?.emit(existing.as_deref());
    utf8_result(env, id)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_executionEmit<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, existing_id: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| execution_emit(env, ptr, &existing_id)).resolve::<ThrowJavaException>()
}

fn execution_next_call_id<'l>(env: &mut Env<'l>, ptr: jlong, target: &JByteArray<'l>, session_id: &JByteArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let target = required_utf8(env, target, "target")?;
    let session_id = required_utf8(env, session_id, "sessionId")?;
    let id = execution(ptr)?.next_call_id(&target, &session_id);
    utf8_result(env, id)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_NativeIdentity_executionNextCallId<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, target: JByteArray<'l>, session_id: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| execution_next_call_id(env, ptr, &target, &session_id)).resolve::<ThrowJavaException>()
}
