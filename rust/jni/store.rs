//! JNI exports of `io.durablejournal.store.StoreJni`: the Rust
//! [`crate::store`] (in-memory, file or log-backed) behind Java's
//! `ActionStateStore`. The log-backed store's own exports are in
//! `log_store.rs`; `getResuming`'s in `store/resuming.rs`.
//!
//! # Sharing one store between many journals
//!
//! The Java `ActionStateStore` owns one share of a [`SharedStore`] (see
//! `rust/store/shared.rs` for the sharing rules); every journal opened with
//! `openContext` holds its own share, so closing the Java store never frees
//! memory a journal still uses. `openContext` returns the
//! `DurableExecutionContext` itself, built here through its private
//! constructor, so no raw journal pointer ever reaches public Java code.
//!
//! # Keys across the boundary
//!
//! An entry's key crosses as one Java `EntryKey` object, read here field by
//! field with ids cached once ([`entry_key`]); a call that needs only the
//! business key takes a `BusinessKey` ([`business_key`]). A business key is
//! `(kind, number, bytes, typeName)`: `kind` is one of the `KEY_*` codes
//! shared with Java's `BusinessKey`; `number` carries `Long`/`Integer`
//! values, `bytes` a UTF-8 string or raw bytes, and `typeName` the class name
//! of a `Typed` key. The event identity is `(eventKind, event)`. Java never
//! encodes a key itself: the canonical encoding lives in
//! [`crate::store::StateKey`] only.

use jni::objects::{JByteArray, JClass, JObject, JObjectArray};
use jni::sys::{jdouble, jint, jlong};
use jni::{Env, EnvUnowned, JValue};

use super::classes::{byte_array_field, classes, int_field, long_field, object_field};
use super::handle::{self, Borrowed};
use super::journal::JournalHandle;
use super::{for_each_element, optional_bytes, required_bytes, required_utf8, utf8, BridgeError, BridgeResult, ThrowJavaException};
use crate::error::Error;
use crate::model::ActionState;
use crate::store::{
    AnyStore, BusinessKey, CompactionPolicy, Durability, EventIdentity, FileStore, FileStoreOptions, MemoryStore,
    PermissionCheck, RecoveryMarker, RetentionPolicy, SharedStore, StateKey,
};
use crate::store::file::{in_flight_to_json, retained_to_json};

mod in_flight;
mod resuming;

/// Key kinds shared with `io.durablejournal.store.BusinessKey`: the store's
/// own tags (`store::key`), one definition, checked against
/// `tests/vectors/constants.json` in Rust and Java.
const KEY_STR: jint = crate::store::key::TAG_STR as jint;
const KEY_LONG: jint = crate::store::key::TAG_LONG as jint;
const KEY_INT: jint = crate::store::key::TAG_INT as jint;
const KEY_BYTES: jint = crate::store::key::TAG_BYTES as jint;
const KEY_TYPED: jint = crate::store::key::TAG_TYPED as jint;

/// Event identity kinds shared with `io.durablejournal.store.EventIdentity`,
/// likewise the store's own tags.
const EVENT_OCCURRENCE: jint = crate::store::key::TAG_OCCURRENCE as jint;
const EVENT_ATTRIBUTES: jint = crate::store::key::TAG_ATTRIBUTES as jint;

/// `FileStoreOptions.PermissionCheck` ordinals (`file_permission_checks` in
/// `tests/vectors/constants.json`, checked in Rust and Java).
pub(crate) const PERMISSIONS_REFUSE: jint = 0;
pub(crate) const PERMISSIONS_WARN: jint = 1;
pub(crate) const PERMISSIONS_TIGHTEN: jint = 2;

/// What a Java store's handle owns (`NativeActionStateStore`'s, and
/// `LogActionStateStore`'s and each of its shares): one share of the store.
type StoreHandle = SharedStore;

/// The type behind a handle from `LogStoreJni.share`: the same as a store's.
pub(crate) type StoreHandleShare = StoreHandle;

const STORE: &str = "action state store";

pub(crate) fn store_handle<'a>(ptr: jlong) -> BridgeResult<Borrowed<'a, StoreHandle>> {
    // SAFETY: non-zero handles come from `into_raw` below; the Java owner
    // (`NativeHandle`) passes only the handle it holds.
    unsafe { handle::borrow(ptr, STORE) }
}

pub(crate) fn into_raw(store: AnyStore) -> jlong {
    handle::into_raw::<StoreHandle>(SharedStore::new(store))
}

/// The business key a Java `BusinessKey` holds (kind, number, bytes, typeName).
pub(crate) fn business_key(env: &mut Env<'_>, key: &JObject<'_>) -> BridgeResult<BusinessKey> {
    if key.is_null() {
        return Err(BridgeError::NullArgument("key"));
    }
    let fields = &classes(env)?.business_key;
    let bytes = |env: &Env<'_>| byte_array_field(env, key, fields.bytes).ok_or(BridgeError::NullArgument("key"));
    Ok(match int_field(env, key, fields.kind) {
        KEY_STR => BusinessKey::Str(utf8(bytes(env)?, "key")?),
        KEY_LONG => BusinessKey::Long(long_field(env, key, fields.number)),
        KEY_INT => {
            let number = long_field(env, key, fields.number);
            BusinessKey::Int(i32::try_from(number).map_err(|_| {
                Error::InvalidArgument(format!("an Integer key must fit in 32 bits: {number}"))
            })?)
        }
        KEY_BYTES => BusinessKey::Bytes(bytes(env)?),
        KEY_TYPED => BusinessKey::Typed {
            type_name: utf8(byte_array_field(env, key, fields.type_name).ok_or(BridgeError::NullArgument("key type name"))?, "key type name")?,
            bytes: bytes(env)?,
        },
        other => return Err(Error::InvalidArgument(format!("unknown business key kind {other}")).into()),
    })
}

/// The [`StateKey`] a Java `EntryKey` holds: its business key, sequence
/// number, action name and event identity.
pub(crate) fn entry_key(env: &mut Env<'_>, key: &JObject<'_>) -> BridgeResult<StateKey> {
    if key.is_null() {
        return Err(BridgeError::NullArgument("key"));
    }
    let fields = &classes(env)?.entry_key;
    let business_key = business_key(env, &object_field(env, key, fields.business));
    let action = byte_array_field(env, key, fields.action).ok_or(BridgeError::NullArgument("actionName"))?;
    let event = match int_field(env, key, fields.event_kind) {
        EVENT_OCCURRENCE => EventIdentity::Occurrence(utf8(
            byte_array_field(env, key, fields.event).ok_or(BridgeError::NullArgument("event occurrence id"))?,
            "event occurrence id",
        )?),
        EVENT_ATTRIBUTES => EventIdentity::Attributes(
            byte_array_field(env, key, fields.event).ok_or(BridgeError::NullArgument("event attribute digest"))?,
        ),
        other => return Err(Error::InvalidArgument(format!("unknown event identity kind {other}")).into()),
    };
    Ok(StateKey::new(business_key?, long_field(env, key, fields.seq), utf8(action, "actionName")?, event))
}

/// The retention of a Java `FileStoreOptions`: `max_age_millis` 0 is off.
pub(super) fn retention(max_age_millis: jlong, max_count: jlong) -> BridgeResult<Option<RetentionPolicy>> {
    if max_age_millis == 0 {
        return Ok(None);
    }
    if max_age_millis < 0 || max_count < 1 {
        return Err(Error::InvalidArgument(format!(
            "retention needs a positive age and count, not {max_age_millis} ms and {max_count}"
        ))
        .into());
    }
    let max_age = std::time::Duration::from_millis(max_age_millis as u64);
    Ok(Some(RetentionPolicy { max_age, max_count: max_count as u64 }))
}

#[allow(clippy::too_many_arguments)]
fn open_file(
    env: &Env<'_>,
    dir: &JByteArray<'_>,
    group_commit: jint,
    min_garbage: jlong,
    garbage_ratio: jdouble,
    permissions: jint,
    retain_millis: jlong,
    retain_count: jlong,
    plan_digest: &JByteArray<'_>,
) -> BridgeResult<jlong> {
    let dir = required_utf8(env, dir, "dir")?;
    let retention = retention(retain_millis, retain_count)?;
    let plan_digest = match optional_bytes(env, plan_digest)? {
        Some(bytes) => Some(utf8(bytes, "planDigest")?),
        None => None,
    };
    let permissions = match permissions {
        PERMISSIONS_REFUSE => PermissionCheck::Refuse,
        PERMISSIONS_WARN => PermissionCheck::Warn,
        PERMISSIONS_TIGHTEN => PermissionCheck::Tighten,
        other => return Err(Error::InvalidArgument(format!("unknown permission check {other}")).into()),
    };
    let durability = match group_commit {
        0 => Durability::SyncEachPut,
        n if n > 0 => Durability::GroupCommit { max_batch: n as usize },
        n => return Err(Error::InvalidArgument(format!("group commit batch must not be negative: {n}")).into()),
    };
    let compaction = if min_garbage < 0 {
        CompactionPolicy::default()
    } else {
        if !(garbage_ratio.is_finite() && garbage_ratio >= 0.0) {
            return Err(Error::InvalidArgument(format!("compaction garbage ratio must be >= 0: {garbage_ratio}")).into());
        }
        CompactionPolicy { min_garbage_bytes: min_garbage as u64, garbage_ratio }
    };
    let options = FileStoreOptions { durability, compaction, permissions, retention, ..Default::default() };
    let mut store = FileStore::open_with(&dir, options)?;
    store.set_plan_digest(plan_digest)?;
    Ok(into_raw(AnyStore::File(Box::new(store))))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_openMemory<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>) -> jlong {
    env.with_env(|_| -> BridgeResult<jlong> { Ok(into_raw(AnyStore::Memory(MemoryStore::new()))) }).resolve::<ThrowJavaException>()
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_openFile<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, dir: JByteArray<'l>, group_commit: jint, min_garbage: jlong, garbage_ratio: jdouble, permissions: jint, retain_millis: jlong, retain_count: jlong, plan_digest: JByteArray<'l>) -> jlong {
    env.with_env(|env| open_file(env, &dir, group_commit, min_garbage, garbage_ratio, permissions, retain_millis, retain_count, &plan_digest)).resolve::<ThrowJavaException>()
}

/// What opening a file store found about its directory's permissions
/// (`FileStore::permission_warning`), as UTF-8; null when there is nothing
/// to say, and for the other stores.
fn permission_warning<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JByteArray<'l>> {
    let handle = store_handle(ptr)?;
    let warning = match &mut *handle.lock()? {
        AnyStore::File(s) => s.permission_warning(),
        _ => None,
    };
    match warning {
        Some(text) => Ok(env.byte_array_from_slice(text.as_bytes())?),
        None => Ok(JByteArray::null()),
    }
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_permissionWarning<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JByteArray<'l> {
    env.with_env(|env| permission_warning(env, ptr)).resolve::<ThrowJavaException>()
}

/// The retained actions of the store directory `dir` as JSON
/// (`retained_to_json`), read without the lock and without changing a file.
fn read_retained<'l>(env: &mut Env<'l>, dir: &JByteArray<'_>) -> BridgeResult<JByteArray<'l>> {
    let dir = required_utf8(env, dir, "dir")?;
    let actions = FileStore::inspect_retained(&dir)?;
    Ok(env.byte_array_from_slice(retained_to_json(&actions).as_bytes())?)
}

/// The live entries of the store directory `dir` that are not completed,
/// as JSON (`in_flight_to_json`), read as `FileStore::inspect` reads: no
/// lock, no change to any file.
fn read_in_flight<'l>(env: &mut Env<'l>, dir: &JByteArray<'_>) -> BridgeResult<JByteArray<'l>> {
    let dir = required_utf8(env, dir, "dir")?;
    let store = FileStore::inspect(&dir)?;
    Ok(env.byte_array_from_slice(in_flight_to_json(&store.entries).as_bytes())?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_readInFlight<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, dir: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| read_in_flight(env, &dir)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_readRetained<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, dir: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| read_retained(env, &dir)).resolve::<ThrowJavaException>()
}

/// Closes the store and frees the handle; the handle is gone even when
/// closing reports an error (which is then thrown).
fn close(ptr: jlong) -> BridgeResult<()> {
    // SAFETY: the Java owner releases its handle once and forgets it.
    match unsafe { handle::release::<StoreHandle>(ptr) } {
        Some(store) => Ok(store.lock()?.store().close()?),
        None => Ok(()),
    }
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_close<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) {
    env.with_env(|_| close(ptr)).resolve::<ThrowJavaException>()
}

fn put(env: &mut Env<'_>, ptr: jlong, key: &JObject<'_>, state_json: &JByteArray<'_>) -> BridgeResult<()> {
    let key = entry_key(env, key)?;
    let state = ActionState::from_json(&required_bytes(env, state_json, "state")?)?;
    // A share of the store, so a log-backed store's wait for the log holds
    // neither this handle nor the store's lock (see SharedStore::put).
    let store = store_handle(ptr)?.clone();
    Ok(store.put(&key, &state)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_put<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, key: JObject<'l>, state_json: JByteArray<'l>) {
    env.with_env(|env| put(env, ptr, &key, &state_json)).resolve::<ThrowJavaException>()
}

fn get<'l>(env: &mut Env<'l>, ptr: jlong, key: &JObject<'_>) -> BridgeResult<JByteArray<'l>> {
    let key = entry_key(env, key)?;
    let store = store_handle(ptr)?.clone();
    let found = store.get(&key)?;
    Ok(match found {
        Some(state) => env.byte_array_from_slice(&state.to_json())?,
        None => JByteArray::null(),
    })
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_get<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, key: JObject<'l>) -> JByteArray<'l> {
    env.with_env(|env| get(env, ptr, &key)).resolve::<ThrowJavaException>()
}

/// A `DurableExecutionContext` over the stored entry (or over `initial`,
/// put first), whose journal persists into this store. The context is built
/// here through its private `(long)` constructor: the journal handle goes
/// straight to its owner.
fn open_context<'l>(env: &mut Env<'l>, ptr: jlong, key: &JObject<'_>, initial_json: &JByteArray<'_>) -> BridgeResult<JObject<'l>> {
    let key = entry_key(env, key)?;
    let initial = match optional_bytes(env, initial_json)? {
        Some(json) => Some(ActionState::from_json(&json)?),
        None => None,
    };
    let store = store_handle(ptr)?.clone();
    let (journal, persister) = store.open_journal(key, initial)?;
    let journal = handle::into_raw(JournalHandle { journal, native_persister: Some(Box::new(persister)) });
    let context = classes(env).and_then(|c| c.execution_context.new_object(env, &[JValue::Long(journal).as_jni()]));
    if context.is_err() {
        // No Java object owns the journal: free it here.
        // SAFETY: `journal` was created above and reached no Java code.
        drop(unsafe { handle::release::<JournalHandle>(journal) });
    }
    Ok(context?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_openContext<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, key: JObject<'l>, initial_json: JByteArray<'l>) -> JObject<'l> {
    env.with_env(|env| open_context(env, ptr, &key, &initial_json)).resolve::<ThrowJavaException>()
}

fn prune(env: &mut Env<'_>, ptr: jlong, key: &JObject<'_>, seq_up_to: jlong) -> BridgeResult<()> {
    let business_key = business_key(env, key)?;
    let store = store_handle(ptr)?.clone();
    Ok(store.prune_state(&business_key, seq_up_to)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_prune<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, key: JObject<'l>, seq_up_to: jlong) {
    env.with_env(|env| prune(env, ptr, &key, seq_up_to)).resolve::<ThrowJavaException>()
}

fn recovery_marker<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JByteArray<'l>> {
    let store = store_handle(ptr)?.clone();
    let marker = store.recovery_marker()?;
    Ok(env.byte_array_from_slice(&marker.to_bytes())?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_recoveryMarker<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JByteArray<'l> {
    env.with_env(|env| recovery_marker(env, ptr)).resolve::<ThrowJavaException>()
}

fn rebuild_state<'l>(env: &mut Env<'l>, ptr: jlong, markers: &JObjectArray<'l, JByteArray<'l>>) -> BridgeResult<()> {
    let decoded = for_each_element(env, markers, "recoveryMarkers", |env, element| {
        Ok(RecoveryMarker::from_bytes(&required_bytes(env, element, "recoveryMarkers element")?)?)
    })?;
    Ok(store_handle(ptr)?.lock()?.store().rebuild_state(&decoded)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_rebuildState<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, markers: JObjectArray<'l, JByteArray<'l>>) {
    env.with_env(|env| rebuild_state(env, ptr, &markers)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_sync<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) {
    env.with_env(|_| -> BridgeResult<()> { Ok(store_handle(ptr)?.lock()?.store().sync()?) }).resolve::<ThrowJavaException>()
}

fn root_occurrence<'l>(env: &mut Env<'l>, key: &JObject<'l>, seq: jlong) -> BridgeResult<JByteArray<'l>> {
    let business_key = business_key(env, key)?;
    match EventIdentity::root_occurrence(&business_key, seq)? {
        EventIdentity::Occurrence(id) => Ok(env.byte_array_from_slice(id.as_bytes())?),
        EventIdentity::Attributes(_) => Err(Error::IllegalState("a root occurrence is always an occurrence id".into()).into()),
    }
}

/// The spec §3 root occurrence id of input `seq` of a business key, as
/// UTF-8: what an operator uses as the event identity of its input records.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_rootOccurrence<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, key: JObject<'l>, seq: jlong) -> JByteArray<'l> {
    env.with_env(|env| root_occurrence(env, &key, seq)).resolve::<ThrowJavaException>()
}

/// A new `StoreStats`: `entries, recordsAppended, bytesAppended, syncs,
/// compactions, segmentBytes, liveBytes, recoveredRecords, tornTailBytes (-1:
/// none), createdOnOpen (0/1)`, the constructor's order: the store's
/// `ActionStateStore::stats`, -1 for what it does not count.
fn stats<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JObject<'l>> {
    let handle = store_handle(ptr)?;
    let s = handle.lock()?.store().stats()?;
    let count = |counter: Option<u64>| counter.map_or(-1, |v| v as jlong);
    let values: [jlong; 10] = [
        s.entries as jlong,
        count(s.records_appended),
        count(s.bytes_appended),
        count(s.syncs),
        count(s.compactions),
        count(s.segment_bytes),
        count(s.live_bytes),
        count(s.recovered_records),
        count(s.torn_tail_bytes),
        s.created_on_open.map_or(-1, jlong::from),
    ];
    let args = values.map(|v| JValue::Long(v).as_jni());
    Ok(classes(env)?.store_stats.new_object(env, &args)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_stats<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JObject<'l> {
    env.with_env(|env| stats(env, ptr)).resolve::<ThrowJavaException>()
}
