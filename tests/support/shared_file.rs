//! A file store held as the bindings hold it, in a [`SharedStore`], for the
//! file store's own tests: their journals persist through
//! [`SharedStore::open_journal`] as a Java or Python action's do, and the
//! test looks at the file store itself between calls ([`file`]).
#![allow(dead_code)] // each includer uses a part

use std::ops::{Deref, DerefMut};
use std::path::Path;
use std::sync::MutexGuard;

use durable_journal::store::{AnyStore, FileStore, SharedStore, SharedStorePersister, StateKey};
use durable_journal::Journal;

pub fn share(store: FileStore) -> SharedStore {
    SharedStore::new(AnyStore::File(Box::new(store)))
}

/// The file store in `shared`, locked while the guard lives.
pub fn file(shared: &SharedStore) -> FileGuard<'_> {
    FileGuard(shared.lock().unwrap())
}

pub struct FileGuard<'a>(MutexGuard<'a, AnyStore>);

impl Deref for FileGuard<'_> {
    type Target = FileStore;

    fn deref(&self) -> &FileStore {
        match &*self.0 {
            AnyStore::File(store) => store,
            _ => unreachable!("shared by share()"),
        }
    }
}

impl DerefMut for FileGuard<'_> {
    fn deref_mut(&mut self) -> &mut FileStore {
        match &mut *self.0 {
            AnyStore::File(store) => store,
            _ => unreachable!("shared by share()"),
        }
    }
}

/// The usual start of a file store test: the file store in `dir`, shared,
/// with an empty entry under `key` (the put every action starts with) and
/// the journal that records calls into it, as a binding opens it.
pub fn store_with_empty_entry(dir: &Path, key: &StateKey) -> (SharedStore, Journal, SharedStorePersister) {
    let store = share(FileStore::open(dir).unwrap());
    let (journal, persister) = store.open_journal(key.clone(), None).unwrap();
    (store, journal, persister)
}
