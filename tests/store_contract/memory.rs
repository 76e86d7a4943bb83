//! The in-memory store under the contract. It persists nothing, so a
//! restore checks the markers on the store itself.

use durable_journal::store::{AnyStore, MemoryStore, PositionMarker, RecoveryMarker, SharedStore};
use durable_journal::Result;

use crate::Backend;

pub struct Memory;

impl Backend for Memory {
    fn open_new() -> (Memory, SharedStore) {
        (Memory, SharedStore::new(AnyStore::Memory(MemoryStore::new())))
    }

    fn restore(&mut self, store: SharedStore, markers: &[RecoveryMarker]) -> Result<SharedStore> {
        store.lock()?.store().rebuild_state(markers)?;
        Ok(store)
    }

    fn ahead(marker: &RecoveryMarker) -> RecoveryMarker {
        let position = marker.as_position().expect("the in-memory store counts positions");
        PositionMarker { position: position.position + 1, ..*position }.into()
    }
}

store_contract!(Memory);
