//! JNI exports of `io.durablejournal.store.LogStoreJni`: the Rust
//! [`LogStore`] with a Java [`LogTransport`](JavaTransport) as its sink.
//!
//! The store lives in the same handle type as the other native stores
//! (`AnyStore::Log` in a `SharedStore`), so `StoreJni`'s put, get, openContext, prune,
//! sync and close work on it unchanged (and journals persist into it through
//! the same shared persister), and so do its markers and restore
//! (`StoreJni.recoveryMarker` and `rebuildState`: the end offsets they
//! need come from the transport, `LogTransport.endOffsets`). The exports
//! here are what only a log-backed store has: its history (start or
//! continue without a checkpoint), loading records read from the log, key
//! groups and exact prunes.
//!
//! Java owns the transport (Kafka's client); Rust owns the records. Each
//! call back into Java runs on the thread of the store operation (inside a
//! JNI call already). A marker or restore calls `LogTransport.endOffsets`
//! once, with the store locked. A write calls back twice:
//! `LogTransport.submit` under the store's lock, then
//! `LogTransport.Appending.await` for the log's acknowledgement with the
//! lock released (`rust/store/shared.rs`), so the writes of many actions
//! share the log's requests. A Java exception from any of them becomes a
//! `STORE_IO` error naming the log, and the operation is undone.

use jni::objects::{Global, JByteArray, JClass, JIntArray, JLongArray, JObject, JObjectArray, JString};
use jni::signature::JavaType;
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned, JValue, JavaVM};

use super::classes::classes;
use super::store::{business_key, into_raw, store_handle};
use super::{for_each_element, optional_bytes, required_bytes, required_utf8, BridgeError, BridgeResult, ThrowJavaException};
use crate::error::{Error, Result};
use crate::store::log::{Acknowledgement, KeyGroupRange, Lineage, LogLayout, LogRecord, LogSink, LogStore};
use crate::store::{AnyStore, MAX_LIMIT_BYTES};

/// A Java `io.durablejournal.store.LogTransport` as the store's sink.
pub(super) struct JavaTransport {
    vm: JavaVM,
    transport: Global<JObject<'static>>,
    name: String,
}

/// Runs `call` on this thread (attached already: a store operation runs
/// inside a JNI call); a Java exception it raised, or a call that could not
/// be made, becomes a `STORE_IO` error naming the log `name`.
fn through_java<T>(vm: &JavaVM, name: &str, call: impl FnOnce(&mut Env<'_>) -> jni::errors::Result<T>) -> Result<T> {
    let outcome = vm.attach_current_thread(|env| -> jni::errors::Result<std::result::Result<T, String>> {
        match call(env) {
            Ok(value) => Ok(Ok(value)),
            Err(jni::errors::Error::JavaException) => Ok(Err(take_java_exception(env)?)),
            Err(other) => Err(other),
        }
    });
    outcome.unwrap_or_else(|e| Err(format!("calling the transport failed: {e}"))).map_err(|cause| store_io(name, cause))
}

impl JavaTransport {
    /// `transport` (a `LogTransport`, checked non-null here) as a sink named `name`.
    pub(super) fn over(env: &mut Env<'_>, transport: &JObject<'_>, name: String) -> BridgeResult<JavaTransport> {
        if transport.is_null() {
            return Err(BridgeError::NullArgument("transport"));
        }
        Ok(JavaTransport { vm: env.get_java_vm()?, transport: env.new_global_ref(transport)?, name })
    }
}

fn store_io(name: &str, cause: String) -> Error {
    Error::StoreIo { path: name.into(), source: std::io::Error::other(cause) }
}

/// One `submit` call: a handful of local references (each record's key and
/// value are freed as soon as they are in their array), whatever the batch size.
fn submit_through(env: &mut Env<'_>, transport: &JObject<'_>, records: &[LogRecord]) -> jni::errors::Result<Global<JObject<'static>>> {
    let partitions: Vec<jint> = records.iter().map(|r| r.partition as jint).collect();
    let partition_array = env.new_int_array(records.len())?;
    partition_array.set_region(env, 0, &partitions)?;
    let keys = JObjectArray::<JByteArray>::new(env, records.len(), JByteArray::null())?;
    let values = JObjectArray::<JByteArray>::new(env, records.len(), JByteArray::null())?;
    for (i, record) in records.iter().enumerate() {
        let key = env.byte_array_from_slice(&record.key)?;
        keys.set_element(env, i, &key)?;
        env.delete_local_ref(key);
        if let Some(value) = &record.value {
            let value = env.byte_array_from_slice(value)?;
            values.set_element(env, i, &value)?;
            env.delete_local_ref(value);
        }
    }
    let submit = classes(env)?.transport_submit;
    let args = [JValue::Object(&partition_array).as_jni(), JValue::Object(&keys).as_jni(), JValue::Object(&values).as_jni()];
    // SAFETY: `transport` is the LogTransport the store was opened with (checked
    // non-null there), `submit` its interface method, `args` its three arrays.
    let appending = unsafe { env.call_method_unchecked(transport, submit, JavaType::Object, &args) }?.l()?;
    if appending.is_null() {
        return Err(jni::errors::Error::NullPtr("LogTransport.submit returned null"));
    }
    let global = env.new_global_ref(&appending)?;
    env.delete_local_ref(appending);
    env.delete_local_ref(keys);
    env.delete_local_ref(values);
    env.delete_local_ref(partition_array);
    Ok(global)
}

/// `appending.await()`: the offsets the log gave the batch.
fn await_through(env: &mut Env<'_>, appending: &JObject<'_>) -> jni::errors::Result<Vec<u64>> {
    let await_offsets = classes(env)?.appending_await;
    // SAFETY: `appending` is what `LogTransport.submit` returned: an
    // Appending, never null (`submit_through` refuses null).
    let offsets = unsafe { env.call_method_unchecked(appending, await_offsets, JavaType::Array, &[]) }?.l()?;
    let offsets = long_array(env, offsets, "LogTransport.Appending.await returned null")?;
    Ok(offsets.into_iter().map(|o| o as u64).collect())
}

/// `transport.endOffsets()`: per partition, the offset of the log's next record.
fn end_offsets_through(env: &mut Env<'_>, transport: &JObject<'_>) -> jni::errors::Result<Vec<i64>> {
    let end_offsets = classes(env)?.transport_end_offsets;
    // SAFETY: `transport` is the LogTransport the store was opened with
    // (checked non-null there), `end_offsets` its method taking nothing.
    let offsets = unsafe { env.call_method_unchecked(transport, end_offsets, JavaType::Array, &[]) }?.l()?;
    long_array(env, offsets, "LogTransport.endOffsets returned null")
}

/// The `long[]` a transport method returned (its local reference freed),
/// or `NullPtr(when_null)`.
fn long_array(env: &mut Env<'_>, array: JObject<'_>, when_null: &'static str) -> jni::errors::Result<Vec<i64>> {
    if array.is_null() {
        return Err(jni::errors::Error::NullPtr(when_null));
    }
    let array = env.cast_local::<JLongArray>(array)?;
    let mut out = vec![0i64; array.len(env)?];
    array.get_region(env, 0, &mut out)?;
    env.delete_local_ref(array);
    Ok(out)
}

/// Takes (and clears) the pending Java exception and describes it as its
/// `toString()` does, `class: message`, in a local frame of a few references.
/// Not jni's own catch: that one walks the whole stack trace, two local
/// references per frame in one frame, which `-Xcheck:jni` reports for any
/// stack deeper than about 30 frames (a Kafka client failing under a Flink task).
fn take_java_exception(env: &mut Env<'_>) -> jni::errors::Result<String> {
    env.with_local_frame(TAKE_EXCEPTION_FRAME_CAPACITY, |env| -> jni::errors::Result<String> {
        let Some(throwable) = env.exception_occurred() else {
            return Ok("the transport failed without a Java exception".to_owned());
        };
        env.exception_clear();
        let to_string = classes(env)?.throwable_to_string;
        // SAFETY: a Throwable and Throwable.toString(), which takes nothing.
        let text = unsafe { env.call_method_unchecked(&throwable, to_string, JavaType::Object, &[]) }?.l()?;
        env.cast_local::<JString>(text)?.try_to_string(env)
    })
}

/// The throwable, its description and the cast of it.
const TAKE_EXCEPTION_FRAME_CAPACITY: usize = 4;

impl LogSink for JavaTransport {
    fn submit(&mut self, records: &[LogRecord]) -> Result<Box<dyn Acknowledgement>> {
        let appending = through_java(&self.vm, &self.name, |env| submit_through(env, self.transport.as_obj(), records))?;
        Ok(Box::new(JavaAppending { vm: self.vm.clone(), appending, name: self.name.clone() }))
    }

    /// `LogTransport.endOffsets()`, on the thread taking the marker or
    /// restoring (its Java caller holds the transport's reader for it).
    fn end_offsets(&mut self) -> Result<Vec<u64>> {
        let ends = through_java(&self.vm, &self.name, |env| end_offsets_through(env, self.transport.as_obj()))?;
        ends.into_iter()
            .map(|end| {
                u64::try_from(end)
                    .map_err(|_| store_io(&self.name, format!("LogTransport.endOffsets returned a negative offset {end}")))
            })
            .collect()
    }

    fn name(&self) -> &str {
        &self.name
    }
}

/// A submitted batch: `LogTransport.Appending.await()` blocks until the log
/// acknowledged it, on the thread that waits, without the store's lock.
struct JavaAppending {
    vm: JavaVM,
    appending: Global<JObject<'static>>,
    name: String,
}

impl Acknowledgement for JavaAppending {
    fn wait(self: Box<Self>) -> Result<Vec<u64>> {
        through_java(&self.vm, &self.name, |env| await_through(env, self.appending.as_obj()))
    }
}

pub(super) fn id16(env: &Env<'_>, array: &JByteArray<'_>, name: &'static str) -> BridgeResult<[u8; 16]> {
    let bytes = required_bytes(env, array, name)?;
    bytes
        .try_into()
        .map_err(|b: Vec<u8>| Error::InvalidArgument(format!("{name} must be 16 bytes, not {}", b.len())).into())
}

fn key_groups(first: jint, last: jint) -> BridgeResult<KeyGroupRange> {
    let non_negative = |v: jint| {
        u32::try_from(v).map_err(|_| BridgeError::from(Error::InvalidArgument(format!("negative key group {v}"))))
    };
    Ok(KeyGroupRange { first: non_negative(first)?, last: non_negative(last)? })
}

#[allow(clippy::too_many_arguments)]
fn open(env: &mut Env<'_>, transport: &JObject<'_>, name: &JByteArray<'_>, log_id: &JByteArray<'_>, partitions: jint, max_parallelism: jint, first: jint, last: jint) -> BridgeResult<jlong> {
    let name = required_utf8(env, name, "name")?;
    let positive = |v: jint, what: &str| {
        u32::try_from(v).map_err(|_| BridgeError::from(Error::InvalidArgument(format!("{what} must not be negative: {v}"))))
    };
    let layout = LogLayout::new(id16(env, log_id, "logId")?, positive(partitions, "partitions")?, positive(max_parallelism, "maxParallelism")?)?;
    let sink = JavaTransport::over(env, transport, name)?;
    let store = LogStore::new(Box::new(sink), layout, key_groups(first, last)?)?;
    Ok(into_raw(AnyStore::Log(Box::new(store))))
}

/// Runs `op` on the log store behind `ptr` under the store's lock.
pub(super) fn with_log<T>(ptr: jlong, op: impl FnOnce(&mut LogStore) -> Result<T>) -> BridgeResult<T> {
    let handle = store_handle(ptr)?;
    let mut guard = handle.lock()?;
    Ok(op(as_log(&mut guard)?)?)
}

/// The log store `store` is, else `InvalidArgument`.
fn as_log(store: &mut AnyStore) -> Result<&mut LogStore> {
    match store {
        AnyStore::Log(store) => Ok(store),
        _ => Err(Error::InvalidArgument("not a log-backed store".into())),
    }
}

/// The elements of a `byte[][]`, null elements as None.
fn byte_arrays<'l>(env: &mut Env<'l>, array: &JObjectArray<'l, JByteArray<'l>>, name: &'static str) -> BridgeResult<Vec<Option<Vec<u8>>>> {
    for_each_element(env, array, name, |env, element| optional_bytes(env, element))
}

fn longs(env: &Env<'_>, array: &JLongArray<'_>, name: &'static str) -> BridgeResult<Vec<u64>> {
    if array.is_null() {
        return Err(BridgeError::NullArgument(name));
    }
    let mut out = vec![0i64; array.len(env)?];
    array.get_region(env, 0, &mut out)?;
    out.into_iter()
        .map(|v| u64::try_from(v).map_err(|_| Error::InvalidArgument(format!("{name} holds a negative offset {v}")).into()))
        .collect()
}

fn begin_load<'l>(env: &mut Env<'l>, ptr: jlong, first: jint, last: jint) -> BridgeResult<JIntArray<'l>> {
    let partitions = with_log(ptr, |store| store.begin_load(KeyGroupRange { first: first as u32, last: last as u32 }))?;
    let partitions: Vec<jint> = partitions.into_iter().map(|p| p as jint).collect();
    let array = env.new_int_array(partitions.len())?;
    array.set_region(env, 0, &partitions)?;
    Ok(array)
}

#[allow(clippy::too_many_arguments)]
fn ingest<'l>(env: &mut Env<'l>, ptr: jlong, first: jint, last: jint, partition: jint, offsets: &JLongArray<'l>, keys: &JObjectArray<'l, JByteArray<'l>>, values: &JObjectArray<'l, JByteArray<'l>>) -> BridgeResult<()> {
    let range = key_groups(first, last)?;
    let partition = u32::try_from(partition).map_err(|_| Error::InvalidArgument(format!("negative partition {partition}")))?;
    let offsets = longs(env, offsets, "offsets")?;
    let keys = byte_arrays(env, keys, "keys")?;
    let values = byte_arrays(env, values, "values")?;
    if keys.len() != offsets.len() || values.len() != offsets.len() {
        return Err(Error::InvalidArgument(format!("{} offsets, {} keys and {} values", offsets.len(), keys.len(), values.len())).into());
    }
    with_log(ptr, |store| {
        for ((offset, key), value) in offsets.iter().zip(&keys).zip(&values) {
            let key = key.as_deref().ok_or_else(|| Error::InvalidArgument(format!("a record without a key at offset {offset}")))?;
            store.ingest(range, partition, *offset, key, value.as_deref())?;
        }
        Ok(())
    })
}

fn lineage(env: &Env<'_>, bytes: &JByteArray<'_>) -> BridgeResult<Lineage> {
    Ok(Lineage(id16(env, bytes, "lineage")?))
}

/// `-1` when the key group is loaded, else the partition to load it from.
fn bind_key_group(env: &mut Env<'_>, ptr: jlong, key: &JObject<'_>, key_group: jint) -> BridgeResult<jint> {
    let business_key = business_key(env, key)?;
    let key_group = key_groups(key_group, key_group)?.first;
    let to_load = with_log(ptr, |store| store.bind_key_group(&business_key, key_group))?;
    Ok(to_load.map_or(-1, |partition| partition as jint))
}

/// [`bind_key_group`] for a key group the Java key names (`GroupedKey`).
fn bind_named_key_group(env: &mut Env<'_>, ptr: jlong, key: &JObject<'_>, key_group: jint) -> BridgeResult<jint> {
    let business_key = business_key(env, key)?;
    let key_group = key_groups(key_group, key_group)?.first;
    let to_load = with_log(ptr, |store| store.bind_named_key_group(&business_key, key_group))?;
    Ok(to_load.map_or(-1, |partition| partition as jint))
}

fn prune_at(env: &mut Env<'_>, ptr: jlong, key: &JObject<'_>, seq: jlong) -> BridgeResult<()> {
    let business_key = business_key(env, key)?;
    with_log(ptr, |store| store.prune_entries_at(&business_key, seq))
}

/// Sets the record limit to the log's own (`LogTransport.maxRecordBytes`),
/// named by `setting`; a log that accepts more than the stores' cap gets
/// the cap, named as such.
fn limit_records(env: &Env<'_>, ptr: jlong, max_record_bytes: jlong, setting: &JByteArray<'_>) -> BridgeResult<()> {
    let setting = required_utf8(env, setting, "setting")?;
    let max = u64::try_from(max_record_bytes)
        .ok()
        .filter(|&max| max > 0)
        .ok_or_else(|| Error::InvalidArgument(format!("maxRecordBytes must be positive: {max_record_bytes}")))?;
    let (max, setting) = if max > MAX_LIMIT_BYTES {
        (MAX_LIMIT_BYTES, format!("the stores' cap of 1 GiB per record; {setting} allows more"))
    } else {
        (max, setting)
    };
    with_log(ptr, |store| store.limit_records(max, setting))
}

/// A new `LogStoreStats(entries, recordsAppended, bytesAppended,
/// tombstonesAppended, tombstonesPending, recordsLoaded)`.
fn stats<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JObject<'l>> {
    let s = with_log(ptr, |store| Ok(store.stats()))?;
    let values = [
        s.entries as jlong,
        s.records_appended as jlong,
        s.bytes_appended as jlong,
        s.tombstones_appended as jlong,
        s.tombstones_pending as jlong,
        s.records_loaded as jlong,
    ];
    let args = values.map(|v| JValue::Long(v).as_jni());
    Ok(classes(env)?.log_store_stats.new_object(env, &args)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_open<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, transport: JObject<'l>, name: JByteArray<'l>, log_id: JByteArray<'l>, partitions: jint, max_parallelism: jint, first: jint, last: jint) -> jlong {
    env.with_env(|env| open(env, &transport, &name, &log_id, partitions, max_parallelism, first, last)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_limitRecords<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, max_record_bytes: jlong, setting: JByteArray<'l>) {
    env.with_env(|env| limit_records(env, ptr, max_record_bytes, &setting)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_startFresh<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, lineage_id: JByteArray<'l>) {
    env.with_env(|env| { let lineage = lineage(env, &lineage_id)?; with_log(ptr, |s| s.start_fresh(lineage)) }).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_continueHistory<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, lineage_id: JByteArray<'l>) {
    env.with_env(|env| { let lineage = lineage(env, &lineage_id)?; with_log(ptr, |s| s.continue_history(lineage)) }).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_beginLoad<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, first: jint, last: jint) -> JIntArray<'l> {
    env.with_env(|env| begin_load(env, ptr, first, last)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_ingest<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, first: jint, last: jint, partition: jint, offsets: JLongArray<'l>, keys: JObjectArray<'l, JByteArray<'l>>, values: JObjectArray<'l, JByteArray<'l>>) {
    env.with_env(|env| ingest(env, ptr, first, last, partition, &offsets, &keys, &values)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_finishLoad<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, first: jint, last: jint) {
    env.with_env(|_| { let range = key_groups(first, last)?; with_log(ptr, |s| s.finish_load(range)) }).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_bindKeyGroup<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, key: JObject<'l>, key_group: jint) -> jint {
    env.with_env(|env| bind_key_group(env, ptr, &key, key_group)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_bindNamedKeyGroup<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, key: JObject<'l>, key_group: jint) -> jint {
    env.with_env(|env| bind_named_key_group(env, ptr, &key, key_group)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_pruneAt<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, key: JObject<'l>, seq: jlong) {
    env.with_env(|env| prune_at(env, ptr, &key, seq)).resolve::<ThrowJavaException>()
}

/// Per partition, the offset loading reads from.
fn read_from<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JLongArray<'l>> {
    let from: Vec<jlong> = with_log(ptr, |s| Ok(s.read_from().iter().map(|o| *o as jlong).collect()))?;
    let array = env.new_long_array(from.len())?;
    array.set_region(env, 0, &from)?;
    Ok(array)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_readFrom<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JLongArray<'l> {
    env.with_env(|env| read_from(env, ptr)).resolve::<ThrowJavaException>()
}

/// Another handle on the same store: the Java store hands one to each
/// thread in a call, since a handle serves one call at a time and a log
/// write waits for the log inside its call.
fn share(ptr: jlong) -> BridgeResult<jlong> {
    let store = store_handle(ptr)?.clone();
    Ok(super::handle::into_raw(store))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_share<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> jlong {
    env.with_env(|_| share(ptr)).resolve::<ThrowJavaException>()
}

/// Frees a handle from `share` without closing the store (its owner does).
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_releaseShare<'l>(env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) {
    // SAFETY: `ptr` is a store share handle, which its Java owner releases
    // once and forgets.
    unsafe { super::handle::destroy::<super::store::StoreHandleShare>(env, ptr) }
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_LogStoreJni_stats<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JObject<'l> {
    env.with_env(|env| stats(env, ptr)).resolve::<ThrowJavaException>()
}
