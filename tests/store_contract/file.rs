//! The file store under the contract, in a temporary directory; a restore
//! closes the store and opens the directory again.

use durable_journal::store::{ActionStateStore, FileStore, RecoveryMarker};
use durable_journal::Result;
use tempfile::TempDir;

use crate::memory::Memory;
use crate::Backend;

pub struct File {
    dir: TempDir,
}

impl Backend for File {
    type Store = FileStore;
    type Marker = RecoveryMarker;

    fn open_new() -> (File, FileStore) {
        let dir = tempfile::tempdir().unwrap();
        let store = FileStore::open(dir.path()).unwrap();
        (File { dir }, store)
    }

    fn marker(&mut self, store: &mut FileStore) -> Result<RecoveryMarker> {
        store.get_recovery_marker()
    }

    fn restore(&mut self, mut store: FileStore, markers: &[RecoveryMarker]) -> Result<FileStore> {
        store.close()?;
        drop(store);
        let mut reopened = FileStore::open(self.dir.path())?;
        reopened.rebuild_state(markers)?;
        Ok(reopened)
    }

    fn marker_bytes(marker: &RecoveryMarker) -> Vec<u8> {
        Memory::marker_bytes(marker)
    }

    fn marker_from_bytes(bytes: &[u8]) -> Result<RecoveryMarker> {
        Memory::marker_from_bytes(bytes)
    }

    fn ahead(marker: &RecoveryMarker) -> RecoveryMarker {
        Memory::ahead(marker)
    }
}

store_contract!(File);
