//! JNI exports of `io.durablejournal.identity.IdentityJni`: spec §3 ids
//! for Java, computed by the same core (`crate::identity`) the C ABI uses.
//! Every string crosses as UTF-8 `byte[]` both ways, so emoji and CJK ids
//! survive unchanged.

use jni::ids::JMethodID;
use jni::objects::{JByteArray, JClass, JObject};
use jni::signature::JavaType;
use jni::sys::jlong;
use jni::{Env, EnvUnowned};

use super::classes::classes;
use super::handle::{self, Borrowed};
use super::{optional_utf8, required_bytes, required_utf8, BridgeError, BridgeResult, ThrowJavaException};
use crate::identity::{self, CallDescription, ExecutionIdentity};

/// Runs an export whose answer is a string, handed to Java as a UTF-8
/// `byte[]`: `compute` reads the arguments and asks the core; its error (or
/// a panic) becomes the Java exception instead.
fn utf8_answer<'l>(mut env: EnvUnowned<'l>, compute: impl FnOnce(&mut Env<'l>) -> BridgeResult<String>) -> JByteArray<'l> {
    env.with_env(|env| {
        let answer = compute(env)?;
        Ok(env.byte_array_from_slice(answer.as_bytes())?)
    })
    .resolve::<ThrowJavaException>()
}

/// The execution identity a `IdentityJni` handle points at (the type the
/// C ABI's handle holds too). Java serializes the calls on one handle, and
/// the borrow refuses a second one, so two threads sharing one Java
/// `ExecutionIdentity` never race on its counters.
fn execution<'a>(ptr: jlong) -> BridgeResult<Borrowed<'a, ExecutionIdentity>> {
    // SAFETY: non-zero handles come from `executionCreate`; the Java owner
    // passes only the handle it holds.
    unsafe { handle::borrow(ptr, "ExecutionIdentity") }
}

/// Declares exports whose answer is a string, handed to Java as a UTF-8
/// `byte[]` by [`utf8_answer`]: `fn export(parameters) { body }` becomes
/// the `extern "system"` function of that name, which reads its parameters
/// in order and then runs `body`, a `BridgeResult<String>`. A parameter is
/// * `name: text "javaName"`: a required UTF-8 `byte[]`; the body sees a `String`;
/// * `name: optional_text "javaName"`: the same, a null array is `None`;
/// * `name: bytes "javaName"`: a required `byte[]`; the body sees a `Vec<u8>`;
/// * `name: jlong`: a number (or a handle), as it came.
macro_rules! utf8_exports {
    (@java_type jlong) => { jlong };
    (@java_type $array:ident) => { JByteArray<'l> };
    (@read text $env:ident, $param:ident, $java_name:literal) => { required_utf8($env, &$param, $java_name)? };
    (@read optional_text $env:ident, $param:ident, $java_name:literal) => { optional_utf8($env, &$param, $java_name)? };
    (@read bytes $env:ident, $param:ident, $java_name:literal) => { required_bytes($env, &$param, $java_name)? };
    (@read jlong $env:ident, $param:ident) => { $param };
    ($(
        $(#[$doc:meta])*
        fn $export:ident($($param:ident: $kind:ident $($java_name:literal)?),* $(,)?) $body:block
    )*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub extern "system" fn $export<'l>(env: EnvUnowned<'l>, _c: JClass<'l>, $($param: utf8_exports!(@java_type $kind)),*) -> JByteArray<'l> {
            utf8_answer(env, |env| {
                $(let $param = utf8_exports!(@read $kind env, $param $(, $java_name)?);)*
                $body
            })
        }
    )*};
}

utf8_exports! {
    fn Java_io_durablejournal_identity_IdentityJni_argsDigest(tree_json: bytes "callTreeJson") {
        Ok(identity::args_digest_from_json(&tree_json)?)
    }

    fn Java_io_durablejournal_identity_IdentityJni_callIdWithDigest(function_id: text "functionId", args_digest: optional_text "argsDigest") {
        Ok(identity::call_id_with_digest(&function_id, &args_digest.unwrap_or_default()))
    }

    /// The args digest of a call id ([`identity::split_call_id`]), empty when it has none.
    fn Java_io_durablejournal_identity_IdentityJni_argsDigestOfCallId(call_id: text "callId") {
        Ok(identity::split_call_id(&call_id).1.to_owned())
    }

    /// The function id of a call id ([`identity::split_call_id`]): the whole id when it has no digest.
    fn Java_io_durablejournal_identity_IdentityJni_functionIdOfCallId(call_id: text "callId") {
        Ok(identity::split_call_id(&call_id).0.to_owned())
    }

    fn Java_io_durablejournal_identity_IdentityJni_toolCallDurableId(tool_call_id: text "toolCallId") {
        Ok(identity::tool_call_durable_id(&tool_call_id)?)
    }

    fn Java_io_durablejournal_identity_IdentityJni_rootOccurrence(key: bytes "serializedBusinessKey", input_sequence: jlong) {
        Ok(identity::root_occurrence_id(&key, input_sequence)?)
    }

    fn Java_io_durablejournal_identity_IdentityJni_callIdempotencyKey(entry: bytes "entry", call_id: text "callId", occurrence: jlong) {
        Ok(identity::idempotency::call_idempotency_key(&entry, &call_id, occurrence)?)
    }

    fn Java_io_durablejournal_identity_IdentityJni_actionExecution(occurrence: text "triggeringOccurrence", action: text "actionName") {
        Ok(identity::action_execution_id(&occurrence, &action)?)
    }

    fn Java_io_durablejournal_identity_IdentityJni_emittedOccurrence(execution_id: text "producerExecution", ordinal: jlong) {
        Ok(identity::emitted_occurrence_id(&execution_id, ordinal)?)
    }

    fn Java_io_durablejournal_identity_IdentityJni_generatedCallId(namespace: text "namespace", session_id: text "sessionId", ordinal: jlong) {
        Ok(identity::generated_call_id(&namespace, &session_id, ordinal)?)
    }

    fn Java_io_durablejournal_identity_IdentityJni_executionEmit(ptr: jlong, existing_id: optional_text "existingId") {
        Ok(execution(ptr)?.emit(existing_id.as_deref())?)
    }

    fn Java_io_durablejournal_identity_IdentityJni_executionNextCallId(ptr: jlong, target: text "target", session_id: text "sessionId") {
        Ok(execution(ptr)?.next_call_id(&target, &session_id)?)
    }
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_IdentityJni_callDurableId<'l>(env: EnvUnowned<'l>, _c: JClass<'l>, durable_id: JByteArray<'l>, call: JObject<'l>) -> JByteArray<'l> {
    utf8_answer(env, |env| {
        let explicit = optional_utf8(env, &durable_id, "durableId")?;
        identity::call_durable_id(explicit.as_deref(), || describe_call(env, &call))
    })
}

/// Asks the Java `PendingCall` for its function id and call tree, only when
/// the id is derived; an exception it throws (a value with no canonical
/// form) stays pending and reaches the caller as it is.
fn describe_call(env: &mut Env<'_>, call: &JObject<'_>) -> BridgeResult<CallDescription> {
    if call.is_null() {
        return Err(BridgeError::NullArgument("call"));
    }
    let methods = classes(env)?;
    Ok(CallDescription {
        function_id: returned_array(env, call, methods.pending_call_function_id, |env, id| required_utf8(env, id, "functionId"))?,
        call_tree_json: returned_array(env, call, methods.pending_call_tree, |env, tree| required_bytes(env, tree, "callTreeJson"))?,
    })
}

/// Calls `method`, a `()[B` method of `object`'s class bound in
/// [`classes`], and reads the array it returns with `read`, freeing its
/// local reference either way.
fn returned_array<T>(
    env: &mut Env<'_>,
    object: &JObject<'_>,
    method: JMethodID,
    read: impl FnOnce(&Env<'_>, &JByteArray<'_>) -> BridgeResult<T>,
) -> BridgeResult<T> {
    // SAFETY: `method` was bound on `object`'s class (a `PendingCall`, as
    // `IdentityJni.callDurableId` declares) with the signature `()[B`.
    let array = unsafe { env.call_method_unchecked(object, method, JavaType::Array, &[]) }?.l()?;
    let array = env.cast_local::<JByteArray>(array)?;
    let value = read(env, &array);
    env.delete_local_ref(array);
    value
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_IdentityJni_executionCreate<'l>(env: EnvUnowned<'l>, _c: JClass<'l>, execution_id: JByteArray<'l>) -> jlong {
    handle::create(env, |env| Ok(ExecutionIdentity::new(&required_utf8(env, &execution_id, "executionId")?)?))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_identity_IdentityJni_executionDestroy<'l>(env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) {
    // SAFETY: `ptr` is a handle of `executionCreate`, which its Java owner
    // releases once and forgets.
    unsafe { handle::destroy::<ExecutionIdentity>(env, ptr) }
}
