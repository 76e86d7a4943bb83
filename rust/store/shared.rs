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
//! - every store operation, direct or from a journal, holds the mutex for its
//!   whole duration, so a journal mutation is one atomic store record however
//!   many threads run actions;
//! - a panic inside a store operation poisons the mutex; later calls then
//!   fail with `IllegalState` rather than work on a store whose in-memory
//!   table and log may disagree.

use std::sync::{Arc, Mutex, MutexGuard};

use super::file::FileStore;
use super::key::StateKey;
use super::log::LogStore;
use super::memory::MemoryStore;
use super::{ActionStateStore, StorePersister};
use crate::error::{Error, Result};
use crate::journal::{Journal, JournalChange, Persister};
use crate::model::ActionState;

/// Any store, so each store's extras (the file store's stats and recovery
/// report, the log store's loading and markers) stay reachable through one
/// type.
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
pub struct SharedStore(Arc<Mutex<AnyStore>>);

impl SharedStore {
    pub fn new(store: AnyStore) -> SharedStore {
        SharedStore(Arc::new(Mutex::new(store)))
    }

    /// The store, locked for one operation.
    pub fn lock(&self) -> Result<MutexGuard<'_, AnyStore>> {
        self.0.lock().map_err(|_| {
            Error::IllegalState("the action state store was poisoned by a panic in an earlier call; reopen it".into())
        })
    }

    /// A journal over the stored entry at `key`, or over `initial` (put
    /// first, so the entry exists for the journal's deltas; the empty state
    /// when `None`) when there is none, with the persister that writes its
    /// every mutation here. Lookup and put happen under one lock: no other
    /// journal can slip in between.
    pub fn open_journal(&self, key: StateKey, initial: Option<ActionState>) -> Result<(Journal, SharedStorePersister)> {
        let state = {
            let mut guard = self.lock()?;
            let store = guard.store();
            match store.get(&key)? {
                Some(stored) => stored,
                None => {
                    let initial = initial.unwrap_or_default();
                    store.put(&key, &initial)?;
                    initial
                }
            }
        };
        let mut journal = Journal::new(state);
        journal.set_entry(key.address());
        Ok((journal, SharedStorePersister { store: self.clone(), key }))
    }
}

/// A [`Persister`] that owns its share of the store: what a journal needs to
/// outlive its opener. Each persist locks the store and writes the change as
/// one delta record through [`StorePersister`].
pub struct SharedStorePersister {
    store: SharedStore,
    key: StateKey,
}

impl Persister for SharedStorePersister {
    fn persist(&mut self, state: &ActionState, change: JournalChange<'_>) -> Result<()> {
        let mut guard = self.store.lock()?;
        StorePersister::new(guard.store(), &self.key).persist(state, change)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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

        journal.record_call_completion("chat", Some(b"1".to_vec()), None, &mut persister).unwrap();
        let stored = store.lock().unwrap().store().get(&key()).unwrap().unwrap();
        assert_eq!(stored.call_results.len(), 1, "the call reached the store");

        store.lock().unwrap().store().close().unwrap();
        let err = journal.record_call_completion("tool-call:t", None, None, &mut persister).unwrap_err();
        assert_eq!(err.code(), ErrorCode::Closed, "{err}");
        assert_eq!(journal.len(), 1, "the refused write was undone in memory");
    }

    #[test]
    fn opening_an_existing_entry_resumes_its_journal() {
        let store = SharedStore::new(AnyStore::Memory(MemoryStore::new()));
        let (mut first, mut persister) = store.open_journal(key(), None).unwrap();
        first.record_call_completion("chat", Some(b"1".to_vec()), None, &mut persister).unwrap();
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
            let _guard = poisoner.0.lock().unwrap();
            panic!("poison the store mutex");
        })
        .join();
        let err = store.lock().err().expect("poisoned");
        assert_eq!(err.code(), ErrorCode::IllegalState);
    }
}
