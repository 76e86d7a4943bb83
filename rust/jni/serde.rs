//! JNI export of `io.durablejournal.SerdeJni`: the core parses every
//! ActionState Java reads, so legacy-status inference and validation live once.

use jni::objects::{JByteArray, JClass, JIntArray};
use jni::sys::{jboolean, jint};
use jni::{Env, EnvUnowned};

use super::{required_bytes, BridgeError, BridgeResult, ThrowJavaException};
use crate::model::{is_plain_json_string, ActionState};

fn normalize<'l>(env: &mut Env<'l>, json: &JByteArray<'l>, hit_count: &JIntArray<'l>) -> BridgeResult<JByteArray<'l>> {
    let state = ActionState::from_json(&required_bytes(env, json, "json")?)?;
    if hit_count.is_null() {
        return Err(BridgeError::NullArgument("hitCount"));
    }
    let prefix = jint::try_from(state.replayable_prefix().len()).unwrap_or(jint::MAX);
    hit_count.set_region(env, 0, &[prefix])?;
    Ok(env.byte_array_from_slice(&state.to_json())?)
}

/// Parses an ActionState as Flink Agents or this library wrote it and
/// returns it in canonical form (every slot with an explicit status); the
/// length of its [`ActionState::replayable_prefix`] goes to `hitCount[0]`,
/// so a context resuming the state answers those calls by the core's rule
/// with no second parse.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_SerdeJni_normalizeCountingHits<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, json: JByteArray<'l>, hit_count: JIntArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| normalize(env, &json, &hit_count)).resolve::<ThrowJavaException>()
}

fn plain_json_string(env: &mut Env<'_>, payload: &JByteArray<'_>) -> BridgeResult<jboolean> {
    // A copy (one GetByteArrayRegion) costs less here than a critical section, whose release
    // in this binding takes a local frame of its own.
    Ok(!payload.is_null() && is_plain_json_string(&env.convert_byte_array(payload)?))
}

/// Whether a recorded result is a JSON string with nothing to unescape
/// (see [`is_plain_json_string`]): a replay of a long one skips the JSON
/// parser.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_SerdeJni_isPlainJsonString<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, payload: JByteArray<'l>) -> jboolean {
    env.with_env(|env| plain_json_string(env, &payload)).resolve::<ThrowJavaException>()
}
