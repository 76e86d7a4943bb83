//! JNI exports of `io.durablejournal.store.LogStoreJni` for retention
//! (`rust/store/log/retention.rs`): turning it on for a log-backed store,
//! with a second Java `LogTransport` (the retained topic) as the copies'
//! sink, and reading retained copies from a dump of that topic.

use jni::objects::{JByteArray, JClass, JObject};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned};

use super::log_store::{id16, with_log, JavaTransport};
use super::store::retention;
use super::{optional_bytes, required_bytes, required_utf8, utf8, BridgeError, BridgeResult, ThrowJavaException};
use crate::error::Error;
use crate::store::file::retained_to_json;
use crate::store::log::inspect::read_dump;
use crate::store::log::retention::{read_retained_records, LogRetention};

#[allow(clippy::too_many_arguments)]
fn retain_completed(env: &mut Env<'_>, ptr: jlong, transport: &JObject<'_>, name: &JByteArray<'_>, max_age_millis: jlong, max_count: jlong, plan_digest: &JByteArray<'_>, writer: &JByteArray<'_>, partition: jint) -> BridgeResult<()> {
    let policy = retention(max_age_millis, max_count)?
        .ok_or_else(|| BridgeError::from(Error::InvalidArgument("retention needs a positive age".into())))?;
    let partition = u32::try_from(partition).map_err(|_| Error::InvalidArgument(format!("negative partition {partition}")))?;
    let plan_digest = optional_bytes(env, plan_digest)?.map(|bytes| utf8(bytes, "planDigest")).transpose()?;
    let writer = id16(env, writer, "writer")?;
    let sink = JavaTransport::over(env, transport, required_utf8(env, name, "name")?)?;
    let retention = LogRetention::new(Box::new(sink), policy, writer, partition, plan_digest)?;
    with_log(ptr, |store| store.retain_completed(retention))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_retainCompleted<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, transport: JObject<'l>, name: JByteArray<'l>, max_age_millis: jlong, max_count: jlong, plan_digest: JByteArray<'l>, writer: JByteArray<'l>, partition: jint) {
    env.with_env(|env| retain_completed(env, ptr, &transport, &name, max_age_millis, max_count, &plan_digest, &writer, partition)).resolve::<ThrowJavaException>()
}

/// Why retention stopped (a copy the retained log refused), or null.
fn retention_error<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JObject<'l>> {
    let error = with_log(ptr, |store| Ok(store.retention_error()))?;
    super::byte_array_or_null(env, error.as_deref().map(str::as_bytes))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_retentionError<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JObject<'l> {
    env.with_env(|env| retention_error(env, ptr)).resolve::<ThrowJavaException>()
}

/// The retained copies in a dump of a retained topic (`KafkaJournalTool
/// dump` framing) as `retained_to_json` writes them.
fn read_retained_dump<'l>(env: &mut Env<'l>, dump: &JByteArray<'_>) -> BridgeResult<JByteArray<'l>> {
    let bytes = required_bytes(env, dump, "dump")?;
    let copies = read_retained_records(&read_dump(bytes.as_slice())?)?;
    Ok(env.byte_array_from_slice(retained_to_json(&copies).as_bytes())?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_readRetainedDump<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, dump: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| read_retained_dump(env, &dump)).resolve::<ThrowJavaException>()
}
