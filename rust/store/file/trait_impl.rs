//! The file store as an `ActionStateStore`: each trait method over the open
//! store's segment and table (`mod.rs` holds opening, appending and syncing).

use super::FileStore;
use crate::error::{Error, Result};
use crate::journal::JournalChange;
use crate::model::ActionState;
use crate::store::diff::StateDelta;
use crate::store::record;
use crate::store::key::{BusinessKey, EventIdentity, StateKey};
use crate::store::marker::{position_markers, verify_covered, PositionMarker, RecoveryMarker};
use crate::store::{ActionStateStore, StoreStats};

impl ActionStateStore for FileStore {
    fn put(&mut self, key: &StateKey, state: &ActionState) -> Result<()> {
        let open = self.opened_mut()?;
        let delta = StateDelta::between(open.table.get(key), state);
        // `None`: already recorded; a store that refuses writes still says so.
        let Some(payload) = record::encode_delta(key, state, &delta) else { return open.check_writable() };
        open.check_size(key, &payload, delta == StateDelta::Whole)?;
        let completing = open.completing(key, state);
        let bytes = open.append(&payload, true)?;
        open.table.put_delta(key, state, &delta, bytes).map_err(Error::IllegalState)?;
        if let Some(completed) = completing {
            open.retain(key, &completed);
        }
        Ok(())
    }

    fn apply(&mut self, key: &StateKey, change: JournalChange<'_>) -> Result<()> {
        let open = self.opened_mut()?;
        open.table.check(key, change).map_err(Error::IllegalState)?;
        let payload = record::encode_change(key, change);
        open.check_size(key, &payload, false)?;
        let completing = match change {
            JournalChange::Complete => open.table.get(key).and_then(|stored| {
                open.completing(key, &ActionState { completed: true, ..stored.clone() })
            }),
            _ => None,
        };
        let bytes = open.append(&payload, true)?;
        open.table.apply(key, change, bytes).map_err(Error::IllegalState)?;
        if let Some(completed) = completing {
            open.retain(key, &completed);
        }
        Ok(())
    }

    fn get(&mut self, key: &StateKey) -> Result<Option<ActionState>> {
        let open = self.opened_mut()?;
        if let Some(state) = open.table.get(key) {
            return Ok(Some(state.clone()));
        }
        if open.table.has_later(&key.business_key, key.seq) {
            open.append(&record::encode_discard(&key.business_key, key.seq), false)?;
            open.table.discard_after(&key.business_key, key.seq);
        }
        Ok(None)
    }

    /// The entry lent from the table, else `get`'s answer from a copy.
    fn read_entry(&mut self, key: &StateKey, read: &mut dyn FnMut(&ActionState)) -> Result<bool> {
        if let Some(state) = self.opened_mut()?.table.get(key) {
            read(state);
            return Ok(true);
        }
        crate::store::read_copy(self, key, read)
    }

    fn read_entries(&mut self, read: &mut dyn FnMut(&BusinessKey, i64, &str, &EventIdentity, &ActionState)) -> Result<()> {
        self.opened_mut()?.table.for_each(read);
        Ok(())
    }

    fn prune_state(&mut self, business_key: &BusinessKey, seq_up_to: i64) -> Result<()> {
        let dir = self.dir.clone();
        let open = self.opened_mut()?;
        if !open.table.has_up_to(business_key, seq_up_to) {
            return Ok(());
        }
        open.append(&record::encode_prune(business_key, seq_up_to), false)?;
        open.table.prune(business_key, seq_up_to);
        open.expire_retained();
        if open.options.compaction.is_due(open.segment.len(), open.table.live_bytes()) {
            open.compact(&dir)?;
        }
        Ok(())
    }

    fn get_recovery_marker(&mut self) -> Result<RecoveryMarker> {
        let store_id = self.store_id;
        let open = self.opened_mut()?;
        crash_point!("file.marker.before_sync");
        open.sync()?;
        crash_point!("file.marker.after_sync");
        Ok(PositionMarker { store_id, position: open.position }.into())
    }

    fn rebuild_state(&mut self, markers: &[RecoveryMarker]) -> Result<()> {
        let name = format!("the store in {}", self.dir.display());
        let position = self.opened()?.position;
        verify_covered(&position_markers(markers)?, self.store_id, position, &name)
    }

    fn sync(&mut self) -> Result<()> {
        self.opened_mut()?.sync()
    }

    /// [`FileStore::stats`] and what opening the store found.
    fn stats(&self) -> Result<StoreStats> {
        let counted = FileStore::stats(self)?;
        let report = self.recovery_report();
        Ok(StoreStats {
            entries: counted.entries as u64,
            records_appended: Some(counted.records_appended),
            bytes_appended: Some(counted.bytes_appended),
            syncs: Some(counted.syncs),
            compactions: Some(counted.compactions),
            segment_bytes: Some(counted.segment_bytes),
            live_bytes: Some(counted.live_bytes),
            recovered_records: Some(report.records_replayed),
            torn_tail_bytes: report.torn_tail.as_ref().map(|tail| tail.bytes),
            created_on_open: Some(report.created),
        })
    }

    fn close(&mut self) -> Result<()> {
        match self.open.take() {
            Some(mut open) if open.failure.is_none() => open.sync(),
            _ => Ok(()),
        }
    }
}

impl Drop for FileStore {
    /// Dropping without `close` still syncs what it can; errors have no one
    /// to go to here, and unsynced records are already with the OS.
    fn drop(&mut self) {
        let _ = self.close();
    }
}
