//! The file store under the contract, in a temporary directory; a restore
//! closes the store and opens the directory again.

use durable_journal::store::{ActionStateStore, AnyStore, FileStore, RecoveryMarker, SharedStore};
use durable_journal::Result;
use tempfile::TempDir;

use crate::memory::Memory;
use crate::Backend;

pub struct File {
    dir: TempDir,
}

impl Backend for File {
    fn open_new() -> (File, SharedStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::open(dir.path()).unwrap();
        (File { dir }, SharedStore::new(AnyStore::File(Box::new(store))))
    }

    fn restore(&mut self, store: SharedStore, markers: &[RecoveryMarker]) -> Result<SharedStore> {
        store.lock()?.store().close()?;
        drop(store);
        let mut reopened = FileStore::open(self.dir.path())?;
        reopened.rebuild_state(markers)?;
        Ok(SharedStore::new(AnyStore::File(Box::new(reopened))))
    }

    fn ahead(marker: &RecoveryMarker) -> RecoveryMarker {
        Memory::ahead(marker)
    }
}

store_contract!(File);
