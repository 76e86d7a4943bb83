//! A store that keeps everything in memory: for tests, and for jobs that opt
//! out of durability. It follows the same rules as the file store, size
//! limits included (a record is measured as the file store would write it,
//! so a job tested here is refused the same writes); it just forgets
//! everything when dropped.

use super::diff::StateDelta;
use super::record;
use super::key::{BusinessKey, EventIdentity, StateKey};
use super::limits::{StoreLimits, RECORD_LIMIT_SETTING};
use super::marker::{position_markers, verify_covered, PositionMarker, RecoveryMarker, StoreId};
use super::table::StateTable;
use super::{ActionStateStore, StoreStats, STORE_NAME};
use crate::error::{Error, Result};
use crate::journal::JournalChange;
use crate::model::ActionState;

pub struct MemoryStore {
    table: StateTable,
    store_id: StoreId,
    /// Mutations so far: the in-memory counterpart of the file store's log
    /// position, so markers behave alike.
    position: u64,
    limits: StoreLimits,
    closed: bool,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore::new()
    }
}

impl MemoryStore {
    pub fn new() -> MemoryStore {
        MemoryStore::with_limits(StoreLimits::default())
    }

    /// A store with other size limits than the defaults.
    pub fn with_limits(limits: StoreLimits) -> MemoryStore {
        MemoryStore { table: StateTable::default(), store_id: StoreId::random(), position: 0, limits, closed: false }
    }

    /// Refuses a record for `key` over the limits.
    fn check_size(&self, key: &StateKey, record: &[u8], whole: bool) -> Result<u64> {
        let bytes = record.len() as u64;
        let entry = self.table.entry_bytes_after(key, whole, bytes);
        self.limits.check(key, bytes, entry, RECORD_LIMIT_SETTING)?;
        Ok(bytes)
    }

    pub fn store_id(&self) -> StoreId {
        self.store_id
    }

    /// How many entries are live.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.len() == 0
    }

    fn open(&self) -> Result<()> {
        if self.closed {
            Err(Error::Closed(STORE_NAME))
        } else {
            Ok(())
        }
    }
}

impl ActionStateStore for MemoryStore {
    /// Applies the same delta the file store writes, so both stores hold
    /// the same state after the same puts.
    fn put(&mut self, key: &StateKey, state: &ActionState) -> Result<()> {
        self.open()?;
        let delta = StateDelta::between(self.table.get(key), state);
        let Some(record) = record::encode_delta(key, state, &delta) else { return Ok(()) };
        let bytes = self.check_size(key, &record, delta == StateDelta::Whole)?;
        self.table.put_delta(key, state, &delta, bytes).map_err(Error::IllegalState)?;
        self.position += 1;
        Ok(())
    }

    fn apply(&mut self, key: &StateKey, change: JournalChange<'_>) -> Result<()> {
        self.open()?;
        // The record is measured, not built: this store keeps no bytes.
        let bytes = record::change_len(key, change);
        let limits = self.limits;
        self.table.apply_admitted(key, change, bytes, |entry| limits.check(key, bytes, entry, RECORD_LIMIT_SETTING))?;
        self.position += 1;
        Ok(())
    }

    fn get(&mut self, key: &StateKey) -> Result<Option<ActionState>> {
        self.open()?;
        if let Some(state) = self.table.get(key) {
            return Ok(Some(state.clone()));
        }
        if self.table.discard_after(&key.business_key, key.seq) > 0 {
            self.position += 1;
        }
        Ok(None)
    }

    /// The entry lent from the table, else `get`'s answer from a copy.
    fn read_entry(&mut self, key: &StateKey, read: &mut dyn FnMut(&ActionState)) -> Result<bool> {
        self.open()?;
        if let Some(state) = self.table.get(key) {
            read(state);
            return Ok(true);
        }
        super::read_copy(self, key, read)
    }

    fn read_entries(&mut self, read: &mut dyn FnMut(&BusinessKey, i64, &str, &EventIdentity, &ActionState)) -> Result<()> {
        self.open()?;
        self.table.for_each(read);
        Ok(())
    }

    fn prune_state(&mut self, business_key: &BusinessKey, seq_up_to: i64) -> Result<()> {
        self.open()?;
        if self.table.prune(business_key, seq_up_to) > 0 {
            self.position += 1;
        }
        Ok(())
    }

    fn get_recovery_marker(&mut self) -> Result<RecoveryMarker> {
        self.open()?;
        Ok(PositionMarker { store_id: self.store_id, position: self.position }.into())
    }

    /// Checks markers of this very instance. Markers of another store are
    /// accepted without a check: a job that chose not to be durable has
    /// nothing to restore after a process restart, by its own choice.
    fn rebuild_state(&mut self, markers: &[RecoveryMarker]) -> Result<()> {
        self.open()?;
        let own: Vec<PositionMarker> = position_markers(markers)?.into_iter().filter(|m| m.store_id == self.store_id).collect();
        verify_covered(&own, self.store_id, self.position, "the in-memory store")
    }

    fn stats(&self) -> Result<StoreStats> {
        self.open()?;
        Ok(StoreStats::entries(self.len()))
    }

    fn sync(&mut self) -> Result<()> {
        self.open()
    }

    fn close(&mut self) -> Result<()> {
        self.closed = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers_of_another_instance_are_accepted_and_own_markers_checked() {
        let position = |store: &mut MemoryStore| *store.get_recovery_marker().unwrap().as_position().unwrap();
        let foreign = position(&mut MemoryStore::new());
        let mut store = MemoryStore::new();
        store.rebuild_state(&[PositionMarker { position: 99, ..foreign }.into()]).unwrap();
        let own = PositionMarker { position: 1, ..position(&mut store) };
        assert_eq!(store.rebuild_state(&[own.into()]).unwrap_err().code(), crate::error::ErrorCode::IllegalState);
    }
}
