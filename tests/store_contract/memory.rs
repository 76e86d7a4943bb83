//! The in-memory store under the contract. It persists nothing, so a
//! restore checks the markers on the store itself.

use durable_journal::store::{ActionStateStore, MemoryStore, RecoveryMarker};
use durable_journal::Result;

use crate::Backend;

pub struct Memory;

impl Backend for Memory {
    type Store = MemoryStore;
    type Marker = RecoveryMarker;

    fn open_new() -> (Memory, MemoryStore) {
        (Memory, MemoryStore::new())
    }

    fn marker(&mut self, store: &mut MemoryStore) -> Result<RecoveryMarker> {
        store.get_recovery_marker()
    }

    fn restore(&mut self, mut store: MemoryStore, markers: &[RecoveryMarker]) -> Result<MemoryStore> {
        store.rebuild_state(markers)?;
        Ok(store)
    }

    fn marker_bytes(marker: &RecoveryMarker) -> Vec<u8> {
        marker.to_bytes()
    }

    fn marker_from_bytes(bytes: &[u8]) -> Result<RecoveryMarker> {
        RecoveryMarker::from_bytes(bytes)
    }

    fn ahead(marker: &RecoveryMarker) -> RecoveryMarker {
        RecoveryMarker { position: marker.position + 1, ..*marker }
    }
}

store_contract!(Memory);
