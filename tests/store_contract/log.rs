//! The log-backed store under the contract, over the in-memory log its own
//! tests use. The store owns every key group, and each keyed call first
//! binds its business key's key group, as the Java store does before every
//! call; a restore closes the store, restores a new one over the same log
//! from the markers and loads what it owns, as the Kafka store does.

use std::hash::{DefaultHasher, Hash, Hasher};

use durable_journal::store::log::{KeyGroupRange, Lineage, LogLayout, LogRecord};
use durable_journal::store::{
    Acknowledged, Acknowledgement, ActionStateStore, BusinessKey, LogMarker, LogSink, LogStore, RecoveryMarker, StateKey,
};
use durable_journal::{ActionState, Error, JournalChange, Result};

use crate::Backend;

#[path = "../support/memory_log.rs"]
mod memory_log;
use memory_log::{load, SharedLog};

const MAX_PARALLELISM: u32 = 8;
const ALL: KeyGroupRange = KeyGroupRange { first: 0, last: MAX_PARALLELISM - 1 };

pub struct Log {
    log: SharedLog,
    layout: LogLayout,
}

/// A log store whose keyed calls bind their key group first.
pub struct BoundLogStore(LogStore);

impl BoundLogStore {
    /// Stands in for Flink's key group assignment (a hash of the key, modulo
    /// the max parallelism): any fixed function of the business key will do.
    fn bind(&mut self, business_key: &BusinessKey) -> Result<()> {
        let mut hash = DefaultHasher::new();
        business_key.hash(&mut hash);
        let loaded_elsewhere = self.0.bind_key_group(business_key, (hash.finish() % MAX_PARALLELISM as u64) as u32)?;
        assert_eq!(loaded_elsewhere, None, "the store owns every key group");
        Ok(())
    }
}

impl ActionStateStore for BoundLogStore {
    fn put(&mut self, key: &StateKey, state: &ActionState) -> Result<()> {
        self.bind(&key.business_key)?;
        self.0.put(key, state)
    }

    fn apply(&mut self, key: &StateKey, change: JournalChange<'_>) -> Result<()> {
        self.bind(&key.business_key)?;
        self.0.apply(key, change)
    }

    fn get(&mut self, key: &StateKey) -> Result<Option<ActionState>> {
        self.bind(&key.business_key)?;
        self.0.get(key)
    }

    fn prune_state(&mut self, business_key: &BusinessKey, seq_up_to: i64) -> Result<()> {
        self.bind(business_key)?;
        self.0.prune_state(business_key, seq_up_to)
    }

    fn get_recovery_marker(&mut self) -> Result<RecoveryMarker> {
        self.0.get_recovery_marker()
    }

    fn rebuild_state(&mut self, markers: &[RecoveryMarker]) -> Result<()> {
        self.0.rebuild_state(markers)
    }

    fn sync(&mut self) -> Result<()> {
        self.0.sync()
    }

    fn close(&mut self) -> Result<()> {
        self.0.close()
    }
}

impl Backend for Log {
    type Store = BoundLogStore;
    type Marker = LogMarker;

    fn open_new() -> (Log, BoundLogStore) {
        let backend = Log { log: SharedLog::new(3), layout: LogLayout::new([9; 16], 3, MAX_PARALLELISM).unwrap() };
        let mut store = LogStore::new(backend.log.sink(), backend.layout, ALL).unwrap();
        store.start_fresh(Lineage([1; 16])).unwrap();
        (backend, BoundLogStore(store))
    }

    fn marker(&mut self, store: &mut BoundLogStore) -> Result<LogMarker> {
        store.0.marker(&self.log.end_offsets())
    }

    fn restore(&mut self, mut store: BoundLogStore, markers: &[LogMarker]) -> Result<BoundLogStore> {
        store.close()?;
        let mut restored = LogStore::new(self.log.sink(), self.layout, ALL)?;
        restored.restore(markers, &self.log.end_offsets())?;
        load(&mut restored, &self.log, ALL);
        Ok(BoundLogStore(restored))
    }

    fn marker_bytes(marker: &LogMarker) -> Vec<u8> {
        marker.to_bytes()
    }

    fn marker_from_bytes(bytes: &[u8]) -> Result<LogMarker> {
        LogMarker::from_bytes(bytes)
    }

    fn ahead(marker: &LogMarker) -> LogMarker {
        LogMarker { positions: marker.positions.iter().map(|p| p + 1).collect(), ..marker.clone() }
    }
}

store_contract!(Log);
