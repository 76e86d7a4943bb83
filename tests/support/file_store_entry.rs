//! The usual start of a file store test: a store with one empty entry and the
//! journal that records calls into it.

use std::path::Path;

use durable_journal::store::{ActionStateStore, FileStore, StateKey};
use durable_journal::{ActionState, Journal};

/// Opens the file store in `dir`, puts an empty entry under `key` (the put
/// every action starts with) and returns the store with an empty journal
/// for that entry.
pub fn store_with_empty_entry(dir: &Path, key: &StateKey) -> (FileStore, Journal) {
    let mut store = FileStore::open(dir).unwrap();
    store.put(key, &ActionState::default()).unwrap();
    (store, Journal::default())
}
