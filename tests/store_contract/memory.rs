//! The in-memory store under the contract. It persists nothing, so a
//! restore checks the markers on the store itself.

use durable_journal::store::{AnyStore, MemoryStore, RecoveryMarker, SharedStore};
use durable_journal::Result;

use crate::Backend;

pub struct Memory;

impl Backend for Memory {
    type Marker = RecoveryMarker;

    fn open_new() -> (Memory, SharedStore) {
        (Memory, SharedStore::new(AnyStore::Memory(MemoryStore::new())))
    }

    fn marker(&mut self, store: &SharedStore) -> Result<RecoveryMarker> {
        store.lock()?.store().get_recovery_marker()
    }

    fn restore(&mut self, store: SharedStore, markers: &[RecoveryMarker]) -> Result<SharedStore> {
        store.lock()?.store().rebuild_state(markers)?;
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
