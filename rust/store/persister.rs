//! The bridge from the journal state machine to a store: each journal
//! mutation becomes one delta record at the action's key.

use super::key::StateKey;
use super::ActionStateStore;
use crate::error::Result;
use crate::journal::{JournalChange, Persister};
use crate::model::ActionState;

/// A [`Persister`] bound to one store entry. The entry must have been put
/// (with the action's initial state) before the first journal mutation.
///
/// Only the change is written, never the whole state, so recording call `n`
/// costs the size of call `n` rather than of all `n` calls. For
/// `JournalChange::Complete` the store marks its own entry completed and
/// keeps its memory updates and output events: a caller that has new ones
/// puts the final state with [`ActionStateStore::put`].
pub struct StorePersister<'a, S: ActionStateStore + ?Sized> {
    store: &'a mut S,
    key: &'a StateKey,
}

impl<'a, S: ActionStateStore + ?Sized> StorePersister<'a, S> {
    pub fn new(store: &'a mut S, key: &'a StateKey) -> StorePersister<'a, S> {
        StorePersister { store, key }
    }
}

impl<S: ActionStateStore + ?Sized> Persister for StorePersister<'_, S> {
    fn persist(&mut self, _state: &ActionState, change: JournalChange<'_>) -> Result<()> {
        self.store.apply(self.key, change)
    }
}
