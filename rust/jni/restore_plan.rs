//! JNI exports of `io.durablejournal.RestorePlans`: what a restore does to a
//! journal in flight, and where a replay stopped, in words
//! (`rust/journal/restore_plan.rs`), for the Java replayers.

use jni::objects::{JByteArray, JClass};
use jni::sys::jint;
use jni::EnvUnowned;

use super::{optional_utf8, required_utf8, BridgeResult, ThrowJavaException};
use crate::error::Error;
use crate::journal::{describe_stop, plan_restore, DivergencePolicy, ReplayEnd};

#[allow(clippy::too_many_arguments)]
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_RestorePlans_describeNative<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    policy: jint,
    replayed: jint,
    stop_kind: JByteArray<'l>,
    position: jint,
    recorded_id: JByteArray<'l>,
    candidate_id: JByteArray<'l>,
    failure: JByteArray<'l>,
) -> JByteArray<'l> {
    env.with_env(|env| -> BridgeResult<JByteArray<'l>> {
        let policy = DivergencePolicy::from_i32(policy).ok_or_else(|| Error::InvalidArgument(format!("no divergence policy numbered {policy}")))?;
        let replayed = usize::try_from(replayed).map_err(|_| Error::InvalidArgument(format!("negative replayed count {replayed}")))?;
        let kind = required_utf8(env, &stop_kind, "stopKind")?;
        let recorded_id = optional_utf8(env, &recorded_id, "recordedId")?;
        let candidate_id = optional_utf8(env, &candidate_id, "candidateId")?;
        let failure = optional_utf8(env, &failure, "failure")?;
        let end = ReplayEnd::from_parts(&kind, i64::from(position), recorded_id.as_deref(), candidate_id.as_deref(), failure.as_deref())?;
        Ok(env.byte_array_from_slice(plan_restore(policy, replayed, &end).text.as_bytes())?)
    })
    .resolve::<ThrowJavaException>()
}

/// A replay's stop in words ([`describe_stop`]); `stopKind` is `"would-run"`
/// (needs `candidateId`) or `"diverged"` (needs `recordedId`).
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_RestorePlans_describeStopNative<'l>(
    mut env: EnvUnowned<'l>,
    _c: JClass<'l>,
    stop_kind: JByteArray<'l>,
    position: jint,
    recorded_id: JByteArray<'l>,
    recorded_status: JByteArray<'l>,
    candidate_id: JByteArray<'l>,
) -> JByteArray<'l> {
    env.with_env(|env| -> BridgeResult<JByteArray<'l>> {
        let kind = required_utf8(env, &stop_kind, "stopKind")?;
        let recorded_id = optional_utf8(env, &recorded_id, "recordedId")?;
        let recorded_status = optional_utf8(env, &recorded_status, "recordedStatus")?;
        let candidate_id = optional_utf8(env, &candidate_id, "candidateId")?;
        let end = ReplayEnd::from_parts(&kind, i64::from(position), recorded_id.as_deref(), candidate_id.as_deref(), None)?;
        let described = describe_stop(&end, recorded_status.as_deref().unwrap_or(""))
            .ok_or_else(|| Error::InvalidArgument(format!("a {kind:?} stop is no stop at a call")))?;
        Ok(env.byte_array_from_slice(described.as_bytes())?)
    })
    .resolve::<ThrowJavaException>()
}
