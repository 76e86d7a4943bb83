//! JNI exports of `io.durablejournal.JournalJni` for call semantics
//! (at least once, at most once) and idempotency keys; the decisions are
//! `Journal::begin_call_with_semantics`, `begin_batch_with_semantics` and
//! `idempotency_key_at` (rust/journal/semantics.rs).

use jni::objects::{JByteArray, JClass, JIntArray, JObject, JObjectArray, JString};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned};

use super::{call_id, handle, mutate, step_object};
use crate::jni::classes::classes;
use crate::jni::{arrays, for_each_element, index_arg, required_utf8, BridgeResult, ThrowJavaException};
use crate::journal::{BatchStep, CallSemantics};

/// `BatchStep` codes of `beginBatchWithSemantics`: `CallStep.java`'s kinds.
const BATCH_RUN: jint = super::STEP_RUN;
const BATCH_REPLAY: jint = super::STEP_REPLAY;
const BATCH_INTERRUPTED: jint = super::STEP_INTERRUPTED;

fn begin_call<'l>(
    env: &mut Env<'l>,
    ptr: jlong,
    cb: &JObject<'l>,
    id: String,
    reconcilable: jboolean,
    declared: jint,
    job_default: jint,
) -> BridgeResult<JObject<'l>> {
    let declared = CallSemantics::from_i32(declared)?;
    let job_default = CallSemantics::from_i32(job_default)?;
    let step = mutate(env, ptr, cb, |j, p| {
        let step = j.begin_call_with_semantics(&id, reconcilable, declared, job_default, p)?;
        Ok((step, j.take_unreported_divergence()))
    })?;
    step_object(env, step)
}

/// `beginCall` for a call that declares its semantics (0: not declared) under
/// a job default (0: none, at least once). The call's id is `id` joined with
/// `digest` (null: `id` is the whole id). An interrupted at-most-once call
/// throws `CallInterruptedException`.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_beginCallWithSemantics<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    ptr: jlong,
    cb: JObject<'l>,
    id: JByteArray<'l>,
    digest: JByteArray<'l>,
    reconcilable: jboolean,
    declared: jint,
    job_default: jint,
) -> JObject<'l> {
    env.with_env(|env| {
        let id = call_id(env, &id, &digest)?;
        begin_call(env, ptr, &cb, id, reconcilable, declared, job_default)
    })
    .resolve::<ThrowJavaException>()
}

fn begin_batch<'l>(
    env: &mut Env<'l>,
    ptr: jlong,
    cb: &JObject<'l>,
    ids: &JObjectArray<'l, JByteArray<'l>>,
    declared: &JIntArray<'l>,
    job_default: jint,
) -> BridgeResult<JIntArray<'l>> {
    let decoded = for_each_element(env, ids, "functionIds", |env, element| required_utf8(env, element, "functionIds element"))?;
    let refs: Vec<&str> = decoded.iter().map(String::as_str).collect();
    if declared.is_null() {
        return Err(crate::jni::BridgeError::NullArgument("semantics"));
    }
    let mut numbers = vec![0; declared.len(env)?];
    declared.get_region(env, 0, &mut numbers)?;
    let declared = numbers.into_iter().map(CallSemantics::from_i32).collect::<crate::Result<Vec<_>>>()?;
    let job_default = CallSemantics::from_i32(job_default)?;
    let steps = mutate(env, ptr, cb, |j, p| j.begin_batch_with_semantics(&refs, &declared, job_default, p))?;
    let codes: Vec<jint> = steps
        .into_iter()
        .map(|step| match step {
            BatchStep::Run => BATCH_RUN,
            BatchStep::Replay => BATCH_REPLAY,
            BatchStep::Interrupted => BATCH_INTERRUPTED,
        })
        .collect();
    let array = env.new_int_array(codes.len())?;
    array.set_region(env, 0, &codes)?;
    Ok(array)
}

/// `beginBatch` with one declared semantics per call: per call, run (0),
/// replay (2) or interrupted (3, see `throwInterruption`).
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_beginBatchWithSemantics<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    ptr: jlong,
    cb: JObject<'l>,
    ids: JObjectArray<'l, JByteArray<'l>>,
    declared: JIntArray<'l>,
    job_default: jint,
) -> JIntArray<'l> {
    env.with_env(|env| begin_batch(env, ptr, &cb, &ids, &declared, job_default)).resolve::<ThrowJavaException>()
}

/// Throws the `CallInterruptedException` of the call `id` at `position`
/// (a batch call `beginBatchWithSemantics` answered as interrupted).
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_throwInterruption<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, position: jint, id: JByteArray<'l>) {
    env.with_env(|env| -> BridgeResult<()> {
        let id = required_utf8(env, &id, "functionId")?;
        let position = index_arg(position, "call result index")?;
        Err(handle(ptr)?.journal.interruption_at(position, &id).into())
    })
    .resolve::<ThrowJavaException>()
}

/// The idempotency key of the call `id` at absolute `position`.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_idempotencyKey<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, position: jint, id: JByteArray<'l>) -> JString<'l> {
    env.with_env(|env| -> BridgeResult<JString<'l>> {
        let id = required_utf8(env, &id, "functionId")?;
        let position = index_arg(position, "call result index")?;
        let key = handle(ptr)?.journal.idempotency_key_at(position, &id)?;
        Ok(env.new_string(key)?)
    })
    .resolve::<ThrowJavaException>()
}

/// The call `id` joined with `digest` (null: `id` is the whole id) and its
/// idempotency key at absolute `position`, as `byte[][] {callId, key}` (each
/// UTF-8): what a bridge that names calls by two parts hands the call's
/// body, in one crossing.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_callIdAndIdempotencyKey<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, position: jint, id: JByteArray<'l>, digest: JByteArray<'l>) -> JObjectArray<'l, JByteArray<'l>> {
    env.with_env(|env| -> BridgeResult<JObjectArray<'l, JByteArray<'l>>> {
        let id = call_id(env, &id, &digest)?;
        let position = index_arg(position, "call result index")?;
        let key = handle(ptr)?.journal.idempotency_key_at(position, &id)?;
        let byte_array_class = classes(env)?.byte_array.get(env);
        let answer = arrays::byte_arrays(env, &byte_array_class, 2)?;
        arrays::set_byte_array_element(env, &answer, 0, Some(id.as_bytes()))?;
        arrays::set_byte_array_element(env, &answer, 1, Some(key.as_bytes()))?;
        Ok(answer)
    })
    .resolve::<ThrowJavaException>()
}
