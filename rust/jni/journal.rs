//! JNI exports of `io.durablejournal.JournalJni`: one journal handle per
//! `DurableExecutionContext`, every spec §2.1 primitive plus the
//! begin/complete pair that runs the §2.2/§2.3 decision tables in Rust.

use jni::objects::{JBooleanArray, JByteArray, JClass, JObject, JObjectArray};
use jni::signature::{JavaType, Primitive};
use jni::sys::{jboolean, jint, jlong};
use jni::{Env, EnvUnowned, JValue};

use super::classes::classes;
use super::handle::{self, Borrowed};
use super::{byte_array_or_null, for_each_element, index_arg, optional_bytes, optional_utf8, required_bytes, required_utf8, BridgeResult, ThrowJavaException};
use crate::error::{Error, Result};
use crate::journal::{CallStep, DivergencePolicy, Journal, JournalChange, Persister};
use crate::model::{ActionState, Outcome};

/// The exports of at-most-once calls and idempotency keys.
mod semantics;
/// The shapes a slot and a call's id cross in.
mod crossing;

pub(crate) use crossing::{call_id, journal_slot, slot_id, slot_status};
#[cfg(test)]
pub(crate) use crossing::{SLOT_FAILED, SLOT_PENDING, SLOT_SUCCEEDED};
use crossing::joined;
#[cfg(test)]
use crossing::split_slot_id;

/// What a Java handle points at: the journal and, when it persists into a
/// native store, that store's persister. Without one, every persisted
/// mutation is handed back to Java's `persistSnapshot(byte[])` callback.
pub struct JournalHandle {
    pub journal: Journal,
    pub native_persister: Option<Box<dyn Persister + Send>>,
}

/// The journal behind a `jlong`, held for this call; 0 means the Java owner
/// was closed, and a journal another call holds (a persister calling back
/// into its own context) is refused.
fn handle<'a>(ptr: jlong) -> BridgeResult<Borrowed<'a, JournalHandle>> {
    // SAFETY: non-zero handles come from `handle::into_raw` (in `create` and
    // the store's `openContext`); the Java owner passes only the handle it holds.
    unsafe { handle::borrow(ptr, "DurableExecutionContext") }
}

/// Persists by calling the context's `persistSnapshot(byte[] actionStateJson)`
/// (a cached method id); a null callback persists nothing.
struct JavaPersister<'e, 'l> {
    env: &'e mut Env<'l>,
    callback: &'e JObject<'l>,
}

impl Persister for JavaPersister<'_, '_> {
    fn persist(&mut self, state: &ActionState, _change: JournalChange<'_>) -> Result<()> {
        if self.callback.is_null() {
            return Ok(());
        }
        let failed = |e: jni::errors::Error| Error::PersistFailed(format!("the Java persister failed: {e}"));
        let persist_snapshot = classes(self.env).map_err(failed)?.persist_snapshot;
        let json = self.env.byte_array_from_slice(&state.to_json()).map_err(failed)?;
        // SAFETY: the callback is a DurableExecutionContext (`JournalJni`
        // declares it so) and `persistSnapshot` takes one byte[].
        let outcome = unsafe {
            self.env.call_method_unchecked(self.callback, persist_snapshot, JavaType::Primitive(Primitive::Void), &[JValue::Object(&json).as_jni()])
        }
        .map(|_| ())
        .map_err(failed);
        self.env.delete_local_ref(json);
        outcome
    }
}

/// Runs a mutating primitive with the handle's persister.
fn mutate<'l, R>(
    env: &mut Env<'l>,
    ptr: jlong,
    callback: &JObject<'l>,
    op: impl FnOnce(&mut Journal, &mut dyn Persister) -> Result<R>,
) -> BridgeResult<R> {
    let mut held = handle(ptr)?;
    let JournalHandle { journal, native_persister } = &mut *held;
    let outcome = match native_persister.as_mut() {
        Some(persister) => op(journal, persister.as_mut()),
        None => op(journal, &mut JavaPersister { env, callback }),
    };
    Ok(outcome?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_create<'l>(env: EnvUnowned<'l>, _c: JClass<'l>, state_json: JByteArray<'l>) -> jlong {
    handle::create(env, |env| {
        let state = ActionState::from_json(&required_bytes(env, &state_json, "actionState")?)?;
        Ok(JournalHandle { journal: Journal::new(state), native_persister: None })
    })
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_destroy<'l>(env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) {
    // SAFETY: `ptr` is a journal handle (from `create` or the store's
    // `openContext`), which its Java owner releases once and forgets.
    unsafe { handle::destroy::<JournalHandle>(env, ptr) }
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_currentCallIndex<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> jint {
    env.with_env(|_| Ok(handle(ptr)?.journal.current_call_index() as jint)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_size<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> jint {
    env.with_env(|_| Ok(handle(ptr)?.journal.len() as jint)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_currentSlot<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, split: jboolean) -> JObject<'l> {
    env.with_env(|env| {
        let h = handle(ptr)?;
        journal_slot(env, h.journal.current_call_result(), split)
    })
    .resolve::<ThrowJavaException>()
}

fn slot_at<'l>(env: &mut Env<'l>, ptr: jlong, index: jint, split: jboolean) -> BridgeResult<JObject<'l>> {
    let h = handle(ptr)?;
    let index = index_arg(index, "call result index")?;
    journal_slot(env, h.journal.call_result_at(index), split)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_slotAt<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, index: jint, split: jboolean) -> JObject<'l> {
    env.with_env(|env| slot_at(env, ptr, index, split)).resolve::<ThrowJavaException>()
}

fn match_next<'l>(env: &mut Env<'l>, ptr: jlong, function_id: &JByteArray<'l>, digest: &JByteArray<'l>, digest_in_id: jboolean) -> BridgeResult<JObject<'l>> {
    // The digest is either a part of the call's id, or only reported.
    let (id, reported) = if digest_in_id {
        (call_id(env, function_id, digest)?, None)
    } else {
        (required_utf8(env, function_id, "functionId")?, optional_utf8(env, digest, "argsDigest")?)
    };
    let step = {
        let mut held = handle(ptr)?;
        match held.journal.match_next_or_clear_subsequent_with_digest(&id, reported.as_deref())? {
            Some(hit) => (CallStep::Replay(hit), None),
            None => (CallStep::Execute, held.journal.take_unreported_divergence()),
        }
    };
    step_object(env, step)
}

/// The hit as a `CallStep` (`REPLAY` with its outcome); a miss is null, or
/// `RUN` with the divergence it cut under the Warn policy, so reporting it
/// takes no second crossing. `digestInId`: the call's id is `functionId`
/// joined with `argsDigest` ([`call_id`]); else it is `functionId`, and
/// `argsDigest` (null allowed) goes into a divergence report only.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_matchNextOrClearSubsequentCallResult<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, id: JByteArray<'l>, digest: JByteArray<'l>, digest_in_id: jboolean) -> JObject<'l> {
    env.with_env(|env| match_next(env, ptr, &id, &digest, digest_in_id)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_setDivergencePolicy<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, policy: jint) {
    env.with_env(|_| -> BridgeResult<()> {
        let policy = DivergencePolicy::from_i32(policy)
            .ok_or_else(|| Error::InvalidArgument(format!("no divergence policy numbered {policy}")))?;
        handle(ptr)?.journal.set_divergence_policy(policy);
        Ok(())
    })
    .resolve::<ThrowJavaException>()
}

/// The divergence the journal found and cut under the Warn policy since
/// the last call of this, as its JSON diff (UTF-8), or null.
fn take_divergence<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JByteArray<'l>> {
    let divergence = handle(ptr)?.journal.take_unreported_divergence();
    Ok(match divergence {
        Some(divergence) => env.byte_array_from_slice(divergence.to_json().as_bytes())?,
        None => JByteArray::null(),
    })
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_takeUnreportedDivergence<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JByteArray<'l> {
    env.with_env(|env| take_divergence(env, ptr)).resolve::<ThrowJavaException>()
}

/// Decodes the payloads every "record an outcome" primitive takes (its
/// result and exception, each byte[] or null) and applies `record` to them
/// and the call's `id` with the handle's persister.
fn record_outcome<'l, R>(
    env: &mut Env<'l>,
    ptr: jlong,
    cb: &JObject<'l>,
    id: String,
    result: &JByteArray<'_>,
    exception: &JByteArray<'_>,
    record: impl FnOnce(&mut Journal, &str, Outcome, &mut dyn Persister) -> Result<R>,
) -> BridgeResult<R> {
    let outcome = Outcome { result: optional_bytes(env, result)?, exception: optional_bytes(env, exception)? };
    mutate(env, ptr, cb, |j, p| record(j, &id, outcome, p))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_recordCallCompletion<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, id: JByteArray<'l>, digest: JByteArray<'l>, result: JByteArray<'l>, exception: JByteArray<'l>) {
    env.with_env(|env| {
        let id = call_id(env, &id, &digest)?;
        record_outcome(env, ptr, &cb, id, &result, &exception, Journal::record_call_completion)
    })
        .resolve::<ThrowJavaException>()
}

/// Records a call's outcome; returns whether the next call without a
/// reconciler just runs ([`Journal::next_call_just_runs`]), so Java can
/// answer its `beginCall` without crossing.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_completeCall<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, id: JByteArray<'l>, result: JByteArray<'l>, exception: JByteArray<'l>) -> jboolean {
    env.with_env(|env| {
        let id = required_utf8(env, &id, "functionId")?;
        record_outcome(env, ptr, &cb, id, &result, &exception, |j, id, outcome, p| {
            j.complete_call(id, outcome, p)?;
            Ok(j.next_call_just_runs())
        })
    })
    .resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_finalizeCurrentCall<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, id: JByteArray<'l>, digest: JByteArray<'l>, result: JByteArray<'l>, exception: JByteArray<'l>) {
    env.with_env(|env| {
        let id = call_id(env, &id, &digest)?;
        record_outcome(env, ptr, &cb, id, &result, &exception, Journal::finalize_current_call)
    })
        .resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_finalizeCallAt<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, index: jint, id: JByteArray<'l>, digest: JByteArray<'l>, result: JByteArray<'l>, exception: JByteArray<'l>) {
    env.with_env(|env| {
        let index = index_arg(index, "call result index")?;
        let id = call_id(env, &id, &digest)?;
        record_outcome(env, ptr, &cb, id, &result, &exception, |j, id, outcome, p| j.finalize_call_at(index, id, outcome, p))
    })
    .resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_appendPendingCall<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, id: JByteArray<'l>, digest: JByteArray<'l>) {
    env.with_env(|env| {
        let id = call_id(env, &id, &digest)?;
        mutate(env, ptr, &cb, |j, p| j.append_pending_call(&id, p))
    })
    .resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_clearCallResultsFromCurrentIndexAndPersist<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>) {
    env.with_env(|env| mutate(env, ptr, &cb, |j, p| j.clear_call_results_from_current_index_and_persist(p)))
        .resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_clearCallResultsFromAndPersist<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, index: jint) {
    env.with_env(|env| {
        let index = index_arg(index, "call result index")?;
        mutate(env, ptr, &cb, |j, p| j.clear_call_results_from_and_persist(index, p))
    })
    .resolve::<ThrowJavaException>()
}

/// `digests` null: each of `ids` is a whole call id; else call `i` is
/// `ids[i]` joined with `digests[i]` ([`call_id`]), the arrays of one length.
fn reserve_batch<'l>(env: &mut Env<'l>, ptr: jlong, cb: &JObject<'l>, ids: &JObjectArray<'l, JByteArray<'l>>, digests: &JObjectArray<'l, JByteArray<'l>>) -> BridgeResult<()> {
    let mut decoded = for_each_element(env, ids, "functionIds", |env, element| required_utf8(env, element, "functionIds element"))?;
    if !digests.is_null() {
        let digests = for_each_element(env, digests, "argsDigests", |env, element| optional_utf8(env, element, "argsDigests element"))?;
        if digests.len() != decoded.len() {
            return Err(Error::InvalidArgument(format!("{} function ids but {} args digests", decoded.len(), digests.len())).into());
        }
        decoded = decoded.into_iter().zip(digests).map(|(id, digest)| joined(id, digest)).collect();
    }
    let refs: Vec<&str> = decoded.iter().map(String::as_str).collect();
    mutate(env, ptr, cb, |j, p| j.reserve_pending_batch(&refs, p))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_reservePendingBatch<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, ids: JObjectArray<'l, JByteArray<'l>>, digests: JObjectArray<'l, JByteArray<'l>>) {
    env.with_env(|env| reserve_batch(env, ptr, &cb, &ids, &digests)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_advanceCallIndexBy<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, n: jint) {
    env.with_env(|_| {
        let n = index_arg(n, "advance count")?;
        Ok(handle(ptr)?.journal.advance_call_index_by(n)?)
    })
    .resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_markCompleted<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>) {
    env.with_env(|env| mutate(env, ptr, &cb, |j, p| j.mark_completed(p))).resolve::<ThrowJavaException>()
}

/// `CallStep` kinds, shared with `CallStep.java` (`call_step_kinds` in
/// tests/vectors/constants.json).
pub(crate) const STEP_RUN: jint = 0;
pub(crate) const STEP_RECONCILE: jint = 1;
pub(crate) const STEP_REPLAY: jint = 2;
/// Of a batch call only (`beginBatchWithSemantics`).
pub(crate) const STEP_INTERRUPTED: jint = 3;

fn begin_call<'l>(env: &mut Env<'l>, ptr: jlong, cb: &JObject<'l>, id: &JByteArray<'l>, reconcilable: jboolean) -> BridgeResult<JObject<'l>> {
    let id = required_utf8(env, id, "functionId")?;
    let step = mutate(env, ptr, cb, |j, p| {
        let step = j.begin_call(&id, reconcilable, p)?;
        Ok((step, j.take_unreported_divergence()))
    })?;
    step_object(env, step)
}

/// The `CallStep` of a decision: null for a plain run (see `beginCall`).
pub(crate) fn step_object<'l>(env: &mut Env<'l>, step: (CallStep, Option<crate::journal::Divergence>)) -> BridgeResult<JObject<'l>> {
    match step {
        (CallStep::Execute, None) => Ok(JObject::null()),
        (CallStep::Execute, Some(divergence)) => {
            let diff = env.byte_array_from_slice(divergence.to_json().as_bytes())?;
            call_step(env, STEP_RUN, None, None, Some(&diff))
        }
        (CallStep::Reconcile, _) => call_step(env, STEP_RECONCILE, None, None, None),
        (CallStep::Replay(recorded), _) => {
            let result = byte_array_or_null(env, recorded.result_payload.as_deref())?;
            let exception = byte_array_or_null(env, recorded.exception_payload.as_deref())?;
            call_step(env, STEP_REPLAY, Some(&result), Some(&exception), None)
        }
    }
}

/// A new `CallStep(kind, result, exception, divergence)`; None is null.
fn call_step<'l>(env: &mut Env<'l>, kind: jint, result: Option<&JObject<'_>>, exception: Option<&JObject<'_>>, divergence: Option<&JObject<'_>>) -> BridgeResult<JObject<'l>> {
    let null = JObject::null();
    let args = [
        JValue::Int(kind).as_jni(),
        JValue::Object(result.unwrap_or(&null)).as_jni(),
        JValue::Object(exception.unwrap_or(&null)).as_jni(),
        JValue::Object(divergence.unwrap_or(&null)).as_jni(),
    ];
    Ok(classes(env)?.call_step.new_object(env, &args)?)
}

/// Starts a durable call in one crossing: null means run it; otherwise a
/// `CallStep` says to run the reconciler, to replay the recorded outcome, or
/// to run the call after the journal was cut at a divergence under the Warn
/// policy (its JSON report in `divergence`).
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_beginCall<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, id: JByteArray<'l>, reconcilable: jboolean) -> JObject<'l> {
    env.with_env(|env| begin_call(env, ptr, &cb, &id, reconcilable)).resolve::<ThrowJavaException>()
}

fn begin_batch<'l>(env: &mut Env<'l>, ptr: jlong, cb: &JObject<'l>, ids: &JObjectArray<'l, JByteArray<'l>>) -> BridgeResult<JBooleanArray<'l>> {
    let decoded = for_each_element(env, ids, "functionIds", |env, element| required_utf8(env, element, "functionIds element"))?;
    let refs: Vec<&str> = decoded.iter().map(String::as_str).collect();
    let runs = mutate(env, ptr, cb, |j, p| j.begin_batch(&refs, p))?;
    let flags: Vec<jboolean> = runs.into_iter().collect();
    let array = env.new_boolean_array(flags.len())?;
    array.set_region(env, 0, &flags)?;
    Ok(array)
}

/// Starts a `durableExecuteAll` batch: per call, whether it runs (its slot
/// reserved or left PENDING) or replays its recorded slot.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_beginBatch<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, ids: JObjectArray<'l, JByteArray<'l>>) -> JBooleanArray<'l> {
    env.with_env(|env| begin_batch(env, ptr, &cb, &ids)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_snapshot<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JByteArray<'l> {
    env.with_env(|env| -> BridgeResult<JByteArray<'l>> {
        let json = handle(ptr)?.journal.state().to_json();
        Ok(env.byte_array_from_slice(&json)?)
    })
    .resolve::<ThrowJavaException>()
}

/// `patched(changeId)` ([`Journal::patched`]): the answer, with the marker
/// recorded (and persisted) when the execution is new at this point.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_JournalJni_patched<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, cb: JObject<'l>, change_id: JByteArray<'l>) -> jboolean {
    env.with_env(|env| {
        let change_id = required_utf8(env, &change_id, "changeId")?;
        mutate(env, ptr, &cb, |j, p| j.patched(&change_id, p))
    })
    .resolve::<ThrowJavaException>()
}

#[cfg(test)]
mod tests;
