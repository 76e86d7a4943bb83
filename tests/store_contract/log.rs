//! The log-backed store under the contract, over the in-memory log its own
//! tests use. The store owns every key group, and each keyed call first
//! binds its business key's key group, as the Java store does before every
//! call; its markers are every store's (the log's end offsets come from its
//! sink); a restore closes the store, rebuilds a new one over the same log
//! from the markers and loads what it owns, as the Kafka store does.

use std::hash::{DefaultHasher, Hash, Hasher};

use durable_journal::store::log::{KeyGroupRange, Lineage, LogLayout, LogRecord};
use durable_journal::store::{
    Acknowledged, Acknowledgement, ActionStateStore, AnyStore, BusinessKey, LogMarker, LogSink, LogStore, RecoveryMarker,
    SharedStore,
};
use durable_journal::{Error, Result};

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

/// The log store in `store`.
fn log_store(store: &mut AnyStore) -> &mut LogStore {
    match store {
        AnyStore::Log(log) => log,
        _ => unreachable!("the log backend opens log stores"),
    }
}

impl Backend for Log {
    fn open_new() -> (Log, SharedStore) {
        let backend = Log { log: SharedLog::new(3), layout: LogLayout::new([9; 16], 3, MAX_PARALLELISM).unwrap() };
        let mut store = LogStore::new(backend.log.sink(), backend.layout, ALL).unwrap();
        store.start_fresh(Lineage([1; 16])).unwrap();
        (backend, SharedStore::new(AnyStore::Log(Box::new(store))))
    }

    /// Stands in for Flink's key group assignment (a hash of the key, modulo
    /// the max parallelism): any fixed function of the business key will do.
    fn before(store: &SharedStore, business_key: &BusinessKey) -> Result<()> {
        let mut hash = DefaultHasher::new();
        business_key.hash(&mut hash);
        let key_group = (hash.finish() % MAX_PARALLELISM as u64) as u32;
        let loaded_elsewhere = log_store(&mut *store.lock()?).bind_key_group(business_key, key_group)?;
        assert_eq!(loaded_elsewhere, None, "the store owns every key group");
        Ok(())
    }

    fn restore(&mut self, store: SharedStore, markers: &[RecoveryMarker]) -> Result<SharedStore> {
        store.lock()?.store().close()?;
        let mut restored = LogStore::new(self.log.sink(), self.layout, ALL)?;
        restored.rebuild_state(markers)?;
        load(&mut restored, &self.log, ALL);
        Ok(SharedStore::new(AnyStore::Log(Box::new(restored))))
    }

    fn ahead(marker: &RecoveryMarker) -> RecoveryMarker {
        let marker = marker.as_log().expect("the log store's markers are log markers");
        LogMarker { positions: marker.positions.iter().map(|p| p + 1).collect(), ..marker.clone() }.into()
    }
}

store_contract!(Log);
