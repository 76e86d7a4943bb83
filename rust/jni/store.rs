//! JNI exports of `io.durablejournal.store.NativeStore`: the Rust
//! [`crate::store`] (in-memory or file) behind Java's `ActionStateStore`.
//!
//! # Sharing one store between many journals
//!
//! One operator opens one store and runs many actions against it: each
//! action gets a `DurableExecutionContext` whose journal persists into that
//! store, while the operator itself keeps calling `get`, `put` and `prune`.
//! The store therefore lives in an `Arc<Mutex<_>>`:
//!
//! - the Java `ActionStateStore` handle is a `Box<StoreHandle>` holding one
//!   `Arc`; closing it closes the store (syncs it, releases the directory
//!   lock) and drops that `Arc`;
//! - every journal opened with `openContext` holds its own `Arc` inside a
//!   [`SharedStorePersister`], so freeing the Java store handle never frees
//!   memory a journal still points at; a journal that persists after the
//!   store was closed gets `Error::Closed` (a `JournalException` with code
//!   `CLOSED`), never a crash;
//! - every store operation, direct or from a journal, takes the mutex for
//!   its whole duration, so a journal mutation is one atomic store record
//!   however many threads run actions.
//!
//! A panic inside a store operation poisons the mutex; later calls then fail
//! with `IllegalState` rather than work on a store whose in-memory table and
//! log may disagree.
//!
//! # Keys across the boundary
//!
//! A business key crosses as `(kind, number, bytes, typeName)`: `kind` is
//! one of the `KEY_*` codes shared with Java's `BusinessKeys`; `number` carries
//! `Long`/`Integer` values, `bytes` a UTF-8 string or raw bytes, and
//! `typeName` the class name of a `Typed` key. The event identity crosses as
//! `(kind, bytes)`. Java never encodes a key itself: the canonical encoding
//! lives in [`crate::store::StateKey`] only.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, MutexGuard};

use jni::objects::{JByteArray, JClass, JLongArray, JObjectArray};
use jni::sys::{jboolean, jdouble, jint, jlong};
use jni::{Env, EnvUnowned};

use super::journal::JournalHandle;
use super::{optional_bytes, required_bytes, required_utf8, BridgeError, BridgeResult, ThrowJavaException};
use crate::error::{Error, Result};
use crate::journal::{Journal, JournalChange, Persister};
use crate::model::ActionState;
use crate::store::{
    ActionStateStore, BusinessKey, CompactionPolicy, Durability, EventIdentity, FileStore, FileStoreOptions,
    LogStore, MemoryStore, RecoveryMarker, StateKey, StorePersister,
};

/// Key kinds shared with `io.durablejournal.store.BusinessKeys`.
const KEY_STR: jint = 1;
const KEY_LONG: jint = 2;
const KEY_INT: jint = 3;
const KEY_BYTES: jint = 4;
const KEY_TYPED: jint = 5;

/// Event identity kinds shared with `io.durablejournal.store.EventIdentity`.
const EVENT_OCCURRENCE: jint = 1;
const EVENT_ATTRIBUTES: jint = 2;

/// Any store, so each store's extras (the file store's directory, stats and
/// recovery report; the log store's loading and markers, in `log_store.rs`)
/// stay reachable through one handle type.
pub(crate) enum AnyStore {
    Memory(MemoryStore),
    File(Box<FileStore>),
    Log(Box<LogStore>),
}

impl AnyStore {
    fn store(&mut self) -> &mut dyn ActionStateStore {
        match self {
            AnyStore::Memory(s) => s,
            AnyStore::File(s) => s.as_mut(),
            AnyStore::Log(s) => s.as_mut(),
        }
    }
}

pub(crate) type SharedStore = Arc<Mutex<AnyStore>>;

pub(crate) fn lock(store: &SharedStore) -> Result<MutexGuard<'_, AnyStore>> {
    store.lock().map_err(|_| {
        Error::IllegalState("the action state store was poisoned by a panic in an earlier call; reopen it".into())
    })
}

/// What the Java `NativeActionStateStore` handle points at.
pub struct StoreHandle {
    pub(crate) store: SharedStore,
}

pub(crate) fn store_handle<'a>(ptr: jlong) -> BridgeResult<&'a StoreHandle> {
    if ptr == 0 {
        return Err(Error::Closed("action state store").into());
    }
    // SAFETY: non-zero handles come from `Box::into_raw` in `open_*`; the
    // Java owner serializes calls with close and zeroes its copy first.
    Ok(unsafe { &*(ptr as *const StoreHandle) })
}

pub(crate) fn into_raw(store: AnyStore) -> jlong {
    Box::into_raw(Box::new(StoreHandle { store: Arc::new(Mutex::new(store)) })) as jlong
}

/// A [`Persister`] that owns its share of the store: what a journal handle
/// needs to outlive any borrow. Each persist locks the store and writes the
/// change as one delta record through [`StorePersister`].
struct SharedStorePersister {
    store: SharedStore,
    key: StateKey,
}

impl Persister for SharedStorePersister {
    fn persist(&mut self, state: &ActionState, change: JournalChange<'_>) -> Result<()> {
        let mut guard = lock(&self.store)?;
        StorePersister::new(guard.store(), &self.key).persist(state, change)
    }
}

/// The business key from its boundary form.
pub(crate) fn business_key(env: &Env<'_>, kind: jint, number: jlong, bytes: &JByteArray<'_>, type_name: &JByteArray<'_>) -> BridgeResult<BusinessKey> {
    Ok(match kind {
        KEY_STR => BusinessKey::Str(required_utf8(env, bytes, "key")?),
        KEY_LONG => BusinessKey::Long(number),
        KEY_INT => BusinessKey::Int(i32::try_from(number).map_err(|_| {
            Error::InvalidArgument(format!("an Integer key must fit in 32 bits: {number}"))
        })?),
        KEY_BYTES => BusinessKey::Bytes(required_bytes(env, bytes, "key")?),
        KEY_TYPED => BusinessKey::Typed {
            type_name: required_utf8(env, type_name, "key type name")?,
            bytes: required_bytes(env, bytes, "key")?,
        },
        other => return Err(Error::InvalidArgument(format!("unknown business key kind {other}")).into()),
    })
}

fn event_identity(env: &Env<'_>, kind: jint, bytes: &JByteArray<'_>) -> BridgeResult<EventIdentity> {
    Ok(match kind {
        EVENT_OCCURRENCE => EventIdentity::Occurrence(required_utf8(env, bytes, "event occurrence id")?),
        EVENT_ATTRIBUTES => EventIdentity::Attributes(required_bytes(env, bytes, "event attribute digest")?),
        other => return Err(Error::InvalidArgument(format!("unknown event identity kind {other}")).into()),
    })
}

/// The boundary form of a whole [`StateKey`], as every keyed export takes it.
struct KeyArgs<'a, 'l> {
    kind: jint,
    number: jlong,
    bytes: &'a JByteArray<'l>,
    type_name: &'a JByteArray<'l>,
    seq: jlong,
    action: &'a JByteArray<'l>,
    event_kind: jint,
    event: &'a JByteArray<'l>,
}

impl KeyArgs<'_, '_> {
    fn decode(&self, env: &Env<'_>) -> BridgeResult<StateKey> {
        Ok(StateKey::new(
            business_key(env, self.kind, self.number, self.bytes, self.type_name)?,
            self.seq,
            required_utf8(env, self.action, "actionName")?,
            event_identity(env, self.event_kind, self.event)?,
        ))
    }
}

fn open_file(env: &Env<'_>, dir: &JByteArray<'_>, group_commit: jint, min_garbage: jlong, garbage_ratio: jdouble) -> BridgeResult<jlong> {
    let dir = required_utf8(env, dir, "dir")?;
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
    let store = FileStore::open_with(&dir, FileStoreOptions { durability, compaction })?;
    Ok(into_raw(AnyStore::File(Box::new(store))))
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_openMemory<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>) -> jlong {
    env.with_env(|_| -> BridgeResult<jlong> { Ok(into_raw(AnyStore::Memory(MemoryStore::new()))) }).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_openFile<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, dir: JByteArray<'l>, group_commit: jint, min_garbage: jlong, garbage_ratio: jdouble) -> jlong {
    env.with_env(|env| open_file(env, &dir, group_commit, min_garbage, garbage_ratio)).resolve::<ThrowJavaException>()
}

/// Closes the store and frees the handle; the handle is gone even when
/// closing reports an error (which is then thrown).
fn close(ptr: jlong) -> BridgeResult<()> {
    if ptr == 0 {
        return Ok(());
    }
    // SAFETY: the Java owner calls this once, after zeroing its handle.
    let handle = unsafe { Box::from_raw(ptr as *mut StoreHandle) };
    let mut guard = lock(&handle.store)?;
    Ok(guard.store().close()?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_close<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) {
    env.with_env(|_| close(ptr)).resolve::<ThrowJavaException>()
}

fn put(env: &Env<'_>, ptr: jlong, key: KeyArgs<'_, '_>, state_json: &JByteArray<'_>) -> BridgeResult<()> {
    let key = key.decode(env)?;
    let state = ActionState::from_json(&required_bytes(env, state_json, "state")?)?;
    let handle = store_handle(ptr)?;
    Ok(lock(&handle.store)?.store().put(&key, &state)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_put<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, kind: jint, number: jlong, bytes: JByteArray<'l>, type_name: JByteArray<'l>, seq: jlong, action: JByteArray<'l>, event_kind: jint, event: JByteArray<'l>, state_json: JByteArray<'l>) {
    env.with_env(|env| put(env, ptr, KeyArgs { kind, number, bytes: &bytes, type_name: &type_name, seq, action: &action, event_kind, event: &event }, &state_json))
        .resolve::<ThrowJavaException>()
}

fn get<'l>(env: &mut Env<'l>, ptr: jlong, key: KeyArgs<'_, '_>) -> BridgeResult<JByteArray<'l>> {
    let key = key.decode(env)?;
    let handle = store_handle(ptr)?;
    let found = lock(&handle.store)?.store().get(&key)?;
    Ok(match found {
        Some(state) => env.byte_array_from_slice(&state.to_json())?,
        None => JByteArray::null(),
    })
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_get<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, kind: jint, number: jlong, bytes: JByteArray<'l>, type_name: JByteArray<'l>, seq: jlong, action: JByteArray<'l>, event_kind: jint, event: JByteArray<'l>) -> JByteArray<'l> {
    env.with_env(|env| get(env, ptr, KeyArgs { kind, number, bytes: &bytes, type_name: &type_name, seq, action: &action, event_kind, event: &event }))
        .resolve::<ThrowJavaException>()
}

/// A journal over the stored entry, or over `initial` (put first, so the
/// entry exists for the journal's deltas) when there is none. Lookup and
/// put happen under one lock: no other journal can slip in between.
fn open_context(env: &Env<'_>, ptr: jlong, key: KeyArgs<'_, '_>, initial_json: &JByteArray<'_>) -> BridgeResult<jlong> {
    let key = key.decode(env)?;
    let initial = optional_bytes(env, initial_json)?;
    let handle = store_handle(ptr)?;
    let state = {
        let mut guard = lock(&handle.store)?;
        let store = guard.store();
        match store.get(&key)? {
            Some(stored) => stored,
            None => {
                let initial = match initial {
                    Some(json) => ActionState::from_json(&json)?,
                    None => ActionState::default(),
                };
                store.put(&key, &initial)?;
                initial
            }
        }
    };
    let persister = SharedStorePersister { store: Arc::clone(&handle.store), key };
    let journal = JournalHandle { journal: Journal::new(state), native_persister: Some(Box::new(persister)) }.into_raw();
    issued_journals()?.get_or_insert_with(HashSet::new).insert(journal);
    Ok(journal)
}

/// Journal handles `openContext` returned that no `DurableExecutionContext`
/// has adopted yet. Adoption goes through a public Java factory, so it
/// checks here first: a value that is not such a handle, or one adopted
/// already, is refused instead of being dereferenced.
static ISSUED_JOURNALS: Mutex<Option<HashSet<jlong>>> = Mutex::new(None);

fn issued_journals() -> Result<std::sync::MutexGuard<'static, Option<HashSet<jlong>>>> {
    ISSUED_JOURNALS.lock().map_err(|_| Error::IllegalState("the journal handle registry was poisoned by a panic".into()))
}

fn claim_issued(ptr: jlong) -> BridgeResult<bool> {
    let mut issued = issued_journals()?;
    Ok(issued.get_or_insert_with(HashSet::new).remove(&ptr))
}

/// `NativeJournal.claimIssued(long)`: true exactly once for each handle
/// `openContext` returned.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_NativeJournal_claimIssued<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> jboolean {
    env.with_env(|_| claim_issued(ptr)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_openContext<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, kind: jint, number: jlong, bytes: JByteArray<'l>, type_name: JByteArray<'l>, seq: jlong, action: JByteArray<'l>, event_kind: jint, event: JByteArray<'l>, initial_json: JByteArray<'l>) -> jlong {
    env.with_env(|env| open_context(env, ptr, KeyArgs { kind, number, bytes: &bytes, type_name: &type_name, seq, action: &action, event_kind, event: &event }, &initial_json))
        .resolve::<ThrowJavaException>()
}

fn prune(env: &Env<'_>, ptr: jlong, kind: jint, number: jlong, bytes: &JByteArray<'_>, type_name: &JByteArray<'_>, seq_up_to: jlong) -> BridgeResult<()> {
    let business_key = business_key(env, kind, number, bytes, type_name)?;
    let handle = store_handle(ptr)?;
    Ok(lock(&handle.store)?.store().prune_state(&business_key, seq_up_to)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_prune<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, kind: jint, number: jlong, bytes: JByteArray<'l>, type_name: JByteArray<'l>, seq_up_to: jlong) {
    env.with_env(|env| prune(env, ptr, kind, number, &bytes, &type_name, seq_up_to)).resolve::<ThrowJavaException>()
}

fn recovery_marker<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JByteArray<'l>> {
    let handle = store_handle(ptr)?;
    let marker = lock(&handle.store)?.store().get_recovery_marker()?;
    Ok(env.byte_array_from_slice(&marker.to_bytes())?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_recoveryMarker<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JByteArray<'l> {
    env.with_env(|env| recovery_marker(env, ptr)).resolve::<ThrowJavaException>()
}

fn rebuild_state<'l>(env: &mut Env<'l>, ptr: jlong, markers: &JObjectArray<'l, JByteArray<'l>>) -> BridgeResult<()> {
    if markers.is_null() {
        return Err(BridgeError::NullArgument("recoveryMarkers"));
    }
    let count = markers.len(env)?;
    let mut decoded = Vec::with_capacity(count);
    for i in 0..count {
        let element = markers.get_element(env, i)?;
        decoded.push(RecoveryMarker::from_bytes(&required_bytes(env, &element, "recoveryMarkers element")?)?);
    }
    let handle = store_handle(ptr)?;
    Ok(lock(&handle.store)?.store().rebuild_state(&decoded)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_rebuildState<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, markers: JObjectArray<'l, JByteArray<'l>>) {
    env.with_env(|env| rebuild_state(env, ptr, &markers)).resolve::<ThrowJavaException>()
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_sync<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) {
    env.with_env(|_| -> BridgeResult<()> { Ok(lock(&store_handle(ptr)?.store)?.store().sync()?) }).resolve::<ThrowJavaException>()
}

fn root_occurrence<'l>(env: &mut Env<'l>, kind: jint, number: jlong, bytes: &JByteArray<'l>, type_name: &JByteArray<'l>, seq: jlong) -> BridgeResult<JByteArray<'l>> {
    let business_key = business_key(env, kind, number, bytes, type_name)?;
    match EventIdentity::root_occurrence(&business_key, seq)? {
        EventIdentity::Occurrence(id) => Ok(env.byte_array_from_slice(id.as_bytes())?),
        EventIdentity::Attributes(_) => Err(Error::IllegalState("a root occurrence is always an occurrence id".into()).into()),
    }
}

/// The spec §3 root occurrence id of input `seq` of a business key, as
/// UTF-8: what an operator uses as the event identity of its input records.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_rootOccurrence<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, kind: jint, number: jlong, bytes: JByteArray<'l>, type_name: JByteArray<'l>, seq: jlong) -> JByteArray<'l> {
    env.with_env(|env| root_occurrence(env, kind, number, &bytes, &type_name, seq)).resolve::<ThrowJavaException>()
}

/// Indexes into the `long[]` of `stats`, shared with `StoreStats.java`.
const STATS_LEN: usize = 10;

/// `[entries, recordsAppended, bytesAppended, syncs, compactions,
/// segmentBytes, liveBytes, recoveredRecords, tornTailBytes (-1: none),
/// createdOnOpen (0/1)]`; the file-only fields are -1 for the memory store.
fn stats<'l>(env: &mut Env<'l>, ptr: jlong) -> BridgeResult<JLongArray<'l>> {
    let handle = store_handle(ptr)?;
    let values: [jlong; STATS_LEN] = match &mut *lock(&handle.store)? {
        AnyStore::Memory(s) => [s.len() as jlong, -1, -1, -1, -1, -1, -1, -1, -1, -1],
        AnyStore::Log(s) => [s.stats().entries as jlong, -1, -1, -1, -1, -1, -1, -1, -1, -1],
        AnyStore::File(s) => {
            let st = s.stats()?;
            let report = s.recovery_report();
            [
                st.entries as jlong,
                st.records_appended as jlong,
                st.bytes_appended as jlong,
                st.syncs as jlong,
                st.compactions as jlong,
                st.segment_bytes as jlong,
                st.live_bytes as jlong,
                report.records_replayed as jlong,
                report.torn_tail.as_ref().map_or(-1, |t| t.bytes as jlong),
                report.created as jlong,
            ]
        }
    };
    let array = env.new_long_array(STATS_LEN)?;
    array.set_region(env, 0, &values)?;
    Ok(array)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_NativeStore_stats<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong) -> JLongArray<'l> {
    env.with_env(|env| stats(env, ptr)).resolve::<ThrowJavaException>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn key() -> StateKey {
        StateKey::new(BusinessKey::Str("user".into()), 0, "act", EventIdentity::Occurrence("occ".into()))
    }

    #[test]
    fn a_journal_persists_through_the_shared_store_until_it_is_closed() {
        let store: SharedStore = Arc::new(Mutex::new(AnyStore::Memory(MemoryStore::new())));
        lock(&store).unwrap().store().put(&key(), &ActionState::default()).unwrap();
        let mut persister = SharedStorePersister { store: Arc::clone(&store), key: key() };
        let mut journal = Journal::new(ActionState::default());

        journal.record_call_completion("chat", Some(b"1".to_vec()), None, &mut persister).unwrap();
        let stored = lock(&store).unwrap().store().get(&key()).unwrap().unwrap();
        assert_eq!(stored.call_results.len(), 1, "the call reached the store");

        lock(&store).unwrap().store().close().unwrap();
        let err = journal.record_call_completion("tool-call:t", None, None, &mut persister).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Closed, "{err}");
        assert_eq!(journal.len(), 1, "the refused write was undone in memory");
    }

    #[test]
    fn a_poisoned_store_refuses_work_instead_of_guessing() {
        let store: SharedStore = Arc::new(Mutex::new(AnyStore::Memory(MemoryStore::new())));
        let poisoner = Arc::clone(&store);
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.lock().unwrap();
            panic!("poison the store mutex");
        })
        .join();
        let err = lock(&store).err().expect("poisoned");
        assert_eq!(err.code(), ErrorCode::IllegalState);
    }
}
