//! One store shared by many journals and by its owner.
//!
//! An operator opens one store and runs many actions against it: each action
//! gets a journal that persists into that store, while the operator itself
//! keeps calling `get`, `put` and `prune`, possibly on other threads. So:
//!
//! - a [`SharedStore`] is an `Arc<Mutex<_>>`: the owner holds one share, and
//!   every journal opened with [`SharedStore::open_journal`] holds its own
//!   inside a [`SharedStorePersister`], so releasing the owner's share never
//!   frees memory a journal still uses. A journal that persists after the
//!   store was closed gets `Error::Closed`, never a crash;
//! - every store operation, direct or from a journal, holds the mutex, so a
//!   journal mutation is one atomic store record however many threads run
//!   actions. Pipelined writes are the exception that keeps a store whose
//!   medium acknowledges later fast (the log-backed store, which says so
//!   through [`ActionStateStore::begin_put`] and `begin_apply`):
//!   [`SharedStore::put`] and [`SharedStore::apply`] submit the record
//!   under the mutex, wait for the acknowledgement without it (so the
//!   writes of many actions share the log's requests), and take it again to
//!   account for the outcome. Meanwhile that one entry is busy: another read
//!   or write of it waits on a condition variable until the write settles;
//!   other entries are not held up;
//! - a panic inside a store operation poisons the mutex; later calls then
//!   fail with `IllegalState` rather than work on a store whose in-memory
//!   table and log may disagree.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use super::file::FileStore;
use super::key::{EventIdentity, StateKey};
use super::key::BusinessKey;
use super::log::{LogStore, PendingWrite};
use super::memory::MemoryStore;
use super::{ActionStateStore, RecoveryMarker, Submitted};
use crate::error::{Error, Result};
use crate::journal::{Journal, JournalChange, Persister};
use crate::model::ActionState;

/// Any store, so each store's extras (the file store's stats and recovery
/// report, the log store's loading and key groups) stay reachable through
/// one type.
pub enum AnyStore {
    Memory(MemoryStore),
    File(Box<FileStore>),
    Log(Box<LogStore>),
}

impl AnyStore {
    pub fn store(&mut self) -> &mut dyn ActionStateStore {
        match self {
            AnyStore::Memory(s) => s,
            AnyStore::File(s) => s.as_mut(),
            AnyStore::Log(s) => s.as_mut(),
        }
    }
}

/// A store with shared ownership and one lock around every operation.
#[derive(Clone)]
pub struct SharedStore(Arc<Shared>);

struct Shared {
    store: Mutex<AnyStore>,
    /// Signalled whenever a log write settles (see the module docs).
    settled: Condvar,
    /// Threads waiting on `settled`; changed and read with `store` locked,
    /// so a write that settles signals (a system call) only when one waits.
    waiting: AtomicUsize,
}

fn poisoned() -> Error {
    Error::IllegalState("the action state store was poisoned by a panic in an earlier call; reopen it".into())
}

impl SharedStore {
    pub fn new(store: AnyStore) -> SharedStore {
        SharedStore(Arc::new(Shared { store: Mutex::new(store), settled: Condvar::new(), waiting: AtomicUsize::new(0) }))
    }

    /// The store, locked for one operation.
    pub fn lock(&self) -> Result<MutexGuard<'_, AnyStore>> {
        self.0.store.lock().map_err(|_| poisoned())
    }

    /// The store, locked, once no pipelined write to `key` is in flight.
    fn lock_settled(&self, key: &StateKey) -> Result<MutexGuard<'_, AnyStore>> {
        let mut guard = self.lock()?;
        while guard.store().is_writing(key) {
            guard = self.wait_for_a_write(guard)?;
        }
        Ok(guard)
    }

    /// Waits (the lock released meanwhile) until some pipelined write settles.
    fn wait_for_a_write<'g>(&'g self, guard: MutexGuard<'g, AnyStore>) -> Result<MutexGuard<'g, AnyStore>> {
        self.0.waiting.fetch_add(1, Ordering::Relaxed);
        let woken = self.0.settled.wait(guard);
        self.0.waiting.fetch_sub(1, Ordering::Relaxed);
        woken.map_err(|_| poisoned())
    }

    /// Runs `begin` under `guard`; when the store submitted a write that the
    /// medium acknowledges later, waits for it without holding the lock,
    /// then runs `finish` under the lock again.
    fn write(
        &self,
        mut guard: MutexGuard<'_, AnyStore>,
        begin: impl FnOnce(&mut dyn ActionStateStore) -> Result<Option<Submitted>>,
        finish: impl FnOnce(&mut dyn ActionStateStore, PendingWrite, Result<Vec<u64>>) -> Result<()>,
    ) -> Result<()> {
        let Some((ack, write)) = begin(guard.store())? else {
            return Ok(());
        };
        drop(guard);
        let acked = ack.wait();
        let mut guard = self.lock()?;
        let done = finish(guard.store(), write, acked);
        let anyone_waiting = self.0.waiting.load(Ordering::Relaxed) > 0;
        drop(guard);
        if anyone_waiting {
            self.0.settled.notify_all();
        }
        done
    }

    /// [`ActionStateStore::put`], holding the lock only to submit and to
    /// account when the store pipelines its writes.
    pub fn put(&self, key: &StateKey, state: &ActionState) -> Result<()> {
        let guard = self.lock_settled(key)?;
        self.write(guard, |store| store.begin_put(key, state), |store, write, acked| store.finish_put(write, acked, state))
    }

    /// [`ActionStateStore::apply`], as [`SharedStore::put`].
    pub fn apply(&self, key: &StateKey, change: JournalChange<'_>) -> Result<()> {
        let guard = self.lock_settled(key)?;
        self.write(guard, |store| store.begin_apply(key, change), |store, write, acked| {
            store.finish_apply(write, acked, change)
        })
    }

    /// The store's recovery marker, the same way for every store: the store
    /// reads what the marker needs of its medium
    /// ([`ActionStateStore::begin_marker`]: the log store's end offsets);
    /// every pipelined write submitted before that read then settles (the
    /// lock held from the read to counting the writes, so none slips in
    /// between; writes submitted later may still be in flight, as they land
    /// after the read); then the store takes the marker
    /// ([`ActionStateStore::finish_marker`]).
    pub fn recovery_marker(&self) -> Result<RecoveryMarker> {
        let mut guard = self.lock()?;
        let basis = guard.store().begin_marker()?;
        let submitted = guard.store().writes_submitted();
        while !guard.store().settled_before(submitted) {
            guard = self.wait_for_a_write(guard)?;
        }
        guard.store().finish_marker(basis)
    }

    /// [`ActionStateStore::get`], after any write to `key` in flight.
    pub fn get(&self, key: &StateKey) -> Result<Option<ActionState>> {
        self.lock_settled(key)?.store().get(key)
    }

    /// [`ActionStateStore::read_entry`], after any write to `key` in flight;
    /// `read` runs with the store locked.
    pub fn read_entry(&self, key: &StateKey, read: &mut dyn FnMut(&ActionState)) -> Result<bool> {
        self.lock_settled(key)?.store().read_entry(key, read)
    }

    /// [`ActionStateStore::read_entries`], once every pipelined write
    /// submitted before has settled; `read` runs with the store locked.
    pub fn read_entries(&self, read: &mut dyn FnMut(&BusinessKey, i64, &str, &EventIdentity, &ActionState)) -> Result<()> {
        let mut guard = self.lock()?;
        let submitted = guard.store().writes_submitted();
        while !guard.store().settled_before(submitted) {
            guard = self.wait_for_a_write(guard)?;
        }
        guard.store().read_entries(read)
    }

    /// [`ActionStateStore::prune_state`]. Entries with a write in flight
    /// need no waiting: their tombstones follow that write's record.
    pub fn prune_state(&self, business_key: &BusinessKey, seq_up_to: i64) -> Result<()> {
        self.lock()?.store().prune_state(business_key, seq_up_to)
    }

    /// A journal over the stored entry at `key`, or over `initial` (put
    /// first, so the entry exists for the journal's deltas; the empty state
    /// when `None`) when there is none, with the persister that writes its
    /// every mutation here. Lookup and put happen with the entry held: no
    /// other journal can slip in between.
    pub fn open_journal(&self, key: StateKey, initial: Option<ActionState>) -> Result<(Journal, SharedStorePersister)> {
        let state = {
            let mut guard = self.lock_settled(&key)?;
            match guard.store().get(&key)? {
                Some(stored) => stored,
                None => {
                    let initial = initial.unwrap_or_default();
                    self.write(guard, |store| store.begin_put(&key, &initial), |store, write, acked| {
                        store.finish_put(write, acked, &initial)
                    })?;
                    initial
                }
            }
        };
        let mut journal = Journal::new(state);
        journal.set_entry(key.address());
        journal.set_call_key_scope(key.encode());
        Ok((journal, SharedStorePersister { store: self.clone(), key }))
    }
}

/// A [`Persister`] that owns its share of the store: what a journal needs to
/// outlive its opener. Each persist locks the store and writes the change as
/// one delta record through [`SharedStore::apply`].
pub struct SharedStorePersister {
    store: SharedStore,
    key: StateKey,
}

impl Persister for SharedStorePersister {
    fn persist(&mut self, _state: &ActionState, change: JournalChange<'_>) -> Result<()> {
        self.store.apply(&self.key, change)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Outcome;
    use crate::error::ErrorCode;
    use crate::store::{BusinessKey, EventIdentity};

    fn key() -> StateKey {
        StateKey::new(BusinessKey::Str("user".into()), 0, "act", EventIdentity::Occurrence("occ".into()))
    }

    #[test]
    fn a_journal_persists_through_the_shared_store_until_it_is_closed() {
        let store = SharedStore::new(AnyStore::Memory(MemoryStore::new()));
        let (mut journal, mut persister) = store.open_journal(key(), None).unwrap();
        assert!(store.lock().unwrap().store().get(&key()).unwrap().is_some(), "opening put the initial state");

        journal.record_call_completion("chat", Outcome::success(Some(b"1".to_vec())), &mut persister).unwrap();
        let stored = store.lock().unwrap().store().get(&key()).unwrap().unwrap();
        assert_eq!(stored.call_results.len(), 1, "the call reached the store");

        store.lock().unwrap().store().close().unwrap();
        let err = journal.record_call_completion("tool-call:t", Outcome::success(None), &mut persister).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Closed, "{err}");
        assert_eq!(journal.len(), 1, "the refused write was undone in memory");
    }

    #[test]
    fn opening_an_existing_entry_resumes_its_journal() {
        let store = SharedStore::new(AnyStore::Memory(MemoryStore::new()));
        let (mut first, mut persister) = store.open_journal(key(), None).unwrap();
        first.record_call_completion("chat", Outcome::success(Some(b"1".to_vec())), &mut persister).unwrap();
        let (again, _) = store.open_journal(key(), Some(ActionState::default())).unwrap();
        assert_eq!(again.len(), 1, "the stored entry wins over the initial state");
    }

    #[test]
    fn a_journal_opened_on_an_entry_names_it_in_divergence_reports() {
        let store = SharedStore::new(AnyStore::Memory(MemoryStore::new()));
        let typed = StateKey::new(BusinessKey::Typed { type_name: "org.Row".into(), bytes: vec![1, 255] }, 7, "reply",
            EventIdentity::Occurrence("occ".into()));
        for (key, text) in [(key(), "str:user"), (typed, "org.Row:01ff")] {
            let (journal, _) = store.open_journal(key.clone(), None).unwrap();
            let expected = crate::journal::EntryAddress { key: text.into(), sequence_number: key.seq, action: key.action.clone() };
            assert_eq!(journal.entry(), Some(&expected));
        }
    }

    #[test]
    fn a_poisoned_store_refuses_work_instead_of_guessing() {
        let store = SharedStore::new(AnyStore::Memory(MemoryStore::new()));
        let poisoner = store.clone();
        let _ = std::thread::spawn(move || {
            let _guard = poisoner.0.store.lock().unwrap();
            panic!("poison the store mutex");
        })
        .join();
        let err = store.lock().err().expect("poisoned");
        assert_eq!(err.code(), ErrorCode::IllegalState);
    }
}
