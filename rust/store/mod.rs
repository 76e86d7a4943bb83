//! ActionState storage (spec §4): where the journal of every action
//! execution lives between a call and the failover that replays it.
//!
//! [`ActionStateStore`] has three implementations: [`MemoryStore`] for tests
//! and for jobs that opt out of durability, [`FileStore`], the default,
//! an append-only log in a directory the user names, and [`LogStore`], the
//! same records in a replicated log (Kafka) the caller appends to. A
//! journal persists through a [`SharedStore`] (one store shared by the
//! operator and every journal it opens, [`SharedStore::open_journal`]),
//! whose [`SharedStorePersister`] turns each journal mutation into one delta
//! record, so a call costs O(its payload) bytes. The format and its
//! guarantees are written down in `docs/store.md`; what a new store backend
//! touches is its "Adding a store backend".
//!
//! This module knows nothing of JNI; the bindings wrap it.

/// Marks a persistence boundary where a test build can crash
/// (`crash_points`); expands to nothing without the `crash-points` feature.
/// `$before_abort` runs first when the point fires (a torn write).
macro_rules! crash_point {
    ($name:literal) => {
        #[cfg(feature = "crash-points")]
        crate::store::crash_points::reached($name, || {});
    };
    ($name:literal, $before_abort:expr) => {
        #[cfg(feature = "crash-points")]
        crate::store::crash_points::reached($name, $before_abort);
    };
}

mod codec;
#[cfg(feature = "crash-points")]
pub mod crash_points;
pub(crate) mod diff;
pub mod file;
pub(crate) mod key;
mod limits;
pub mod log;
mod marker;
mod memory;
pub(crate) mod record;
mod shared;
mod table;

pub use file::{
    CompactionPolicy, Durability, FileStore, FileStoreOptions, FileStoreStats, InspectedEntry, InspectedStore, PermissionCheck,
    RecoveryReport, RetainedAction, RetentionPolicy,
};
pub use key::{BusinessKey, EventIdentity, StateKey};
pub use limits::{StoreLimits, DEFAULT_MAX_ENTRY_BYTES, DEFAULT_MAX_RECORD_BYTES, MAX_LIMIT_BYTES, RECORD_LIMIT_SETTING};
pub use log::{Acknowledged, Acknowledgement, LogMarker, LogSink, LogStore, PendingWrite};
pub use marker::{MarkerBasis, PositionMarker, RecoveryMarker, StoreId, MARKER_LEN};
pub use memory::MemoryStore;
pub use shared::{AnyStore, SharedStore, SharedStorePersister};

use crate::error::Result;
use crate::journal::JournalChange;
use crate::model::ActionState;

/// The name stores report in `Error::Closed`.
pub(crate) const STORE_NAME: &str = "action state store";

/// Storage of ActionStates addressed by [`StateKey`].
///
/// Every method fails with `Error::Closed` after [`ActionStateStore::close`].
/// A mutation that returns `Ok` is recorded (for the file store: durable, see
/// [`Durability`]); one that returns `Err` changed nothing, so the caller
/// can fail the action instead of continuing with an unrecorded call. A
/// mutation over the store's [`StoreLimits`] is refused with
/// `SizeLimitExceeded` before anything is written.
pub trait ActionStateStore: Send {
    /// Stores a whole ActionState at `key`, replacing any entry there: the
    /// initial state of an action, its state after each call (Flink Agents'
    /// store contract), or its final state with memory updates and output
    /// events. Only what changed since the stored entry is written: a new
    /// state that extends the stored one (calls appended, a PENDING slot
    /// finalized, the journal cut, memory updates and outputs appended,
    /// completion) costs a record of the new parts; a state equal to the
    /// stored one costs nothing; anything else is written whole. `get`
    /// returns exactly the last state put.
    fn put(&mut self, key: &StateKey, state: &ActionState) -> Result<()>;

    /// Applies one journal mutation to the entry at `key`, as
    /// [`crate::Journal`] applied it in memory. The entry must exist (put it
    /// first) and the change must fit its journal, else `IllegalState`.
    fn apply(&mut self, key: &StateKey, change: JournalChange<'_>) -> Result<()>;

    /// The entry at `key`, or `None`. A miss means the re-run has left the
    /// recorded history at this sequence number, so every entry of the same
    /// business key with a larger sequence number is dropped too (other
    /// business keys are untouched): they belong to a history that will not
    /// be replayed.
    fn get(&mut self, key: &StateKey) -> Result<Option<ActionState>>;

    /// [`ActionStateStore::get`] for a reader that copies only what it
    /// needs: `read` gets the entry in place (a store that keeps its entries
    /// in memory lends it; this default reads a copy). Returns whether there
    /// was one; a miss drops later entries exactly as `get` does.
    fn read_entry(&mut self, key: &StateKey, read: &mut dyn FnMut(&ActionState)) -> Result<bool> {
        read_copy(self, key, read)
    }

    /// Lends every entry the store holds in memory to `read` (its business
    /// key, sequence number, action, event and state; in no particular
    /// order), so that a reader can take the answers of many `get`s in one
    /// pass (Flink Agents' adapter, after a restore). Reading changes
    /// nothing. A store that does not keep its entries in memory lends none
    /// (this default): its readers ask per key.
    fn read_entries(&mut self, read: &mut dyn FnMut(&BusinessKey, i64, &str, &EventIdentity, &ActionState)) -> Result<()> {
        let _ = read;
        Ok(())
    }

    /// Drops every entry of `business_key` with a sequence number up to and
    /// including `seq_up_to`; called when a checkpoint that covers them
    /// completes.
    fn prune_state(&mut self, business_key: &BusinessKey, seq_up_to: i64) -> Result<()>;

    /// The store's current position, for Flink to checkpoint. Everything
    /// before it is durable when this returns. While pipelined writes may
    /// be in flight, take it through [`SharedStore::recovery_marker`], which
    /// waits for the ones the marker must see.
    fn get_recovery_marker(&mut self) -> Result<RecoveryMarker>;

    /// After a Flink restore: checks that the store still holds everything
    /// the checkpoint's markers saw, and fails with `IllegalState` if it is
    /// behind or is a different store (`InvalidArgument` for a marker of
    /// another kind of store). Entries written after the markers are kept:
    /// they are the journals of actions in flight across the checkpoint,
    /// which the restored job replays. (The log store then loads them: see
    /// [`LogStore`].)
    fn rebuild_state(&mut self, markers: &[RecoveryMarker]) -> Result<()>;

    /// Step one of a marker taken while pipelined writes may be in flight
    /// ([`SharedStore::recovery_marker`]): what the store reads of its
    /// medium first (the log store: where the log ends, from its
    /// [`LogSink`]). Nothing, by default.
    fn begin_marker(&mut self) -> Result<MarkerBasis> {
        Ok(MarkerBasis::default())
    }

    /// Step two, once every pipelined write submitted before step one has
    /// settled: the marker. By default [`ActionStateStore::get_recovery_marker`].
    fn finish_marker(&mut self, basis: MarkerBasis) -> Result<RecoveryMarker> {
        let _ = basis;
        self.get_recovery_marker()
    }

    /// Makes every record written so far durable.
    fn sync(&mut self) -> Result<()>;

    /// What the store counts, for metrics: its entries always, and the
    /// counters it keeps (`None` for the others).
    fn stats(&self) -> Result<StoreStats>;

    /// Step one of a pipelined [`ActionStateStore::put`]: a store whose
    /// medium acknowledges later (the log store) hands the write over and
    /// returns what to wait for, so that [`SharedStore`] waits without its
    /// lock and then calls [`ActionStateStore::finish_put`]. The default
    /// puts at once and returns `None`: nothing to wait for.
    fn begin_put(&mut self, key: &StateKey, state: &ActionState) -> Result<Option<Submitted>> {
        self.put(key, state).map(|()| None)
    }

    /// Step two of a pipelined put: `acked` is what the acknowledgement's
    /// wait returned, `state` the state `begin_put` was given. Only a store
    /// whose `begin_put` returns a write is ever asked.
    fn finish_put(&mut self, write: PendingWrite, acked: Result<Vec<u64>>, state: &ActionState) -> Result<()> {
        let _ = (write, acked, state);
        Err(not_pipelined())
    }

    /// [`ActionStateStore::begin_put`] for [`ActionStateStore::apply`].
    fn begin_apply(&mut self, key: &StateKey, change: JournalChange<'_>) -> Result<Option<Submitted>> {
        self.apply(key, change).map(|()| None)
    }

    /// [`ActionStateStore::finish_put`] for [`ActionStateStore::apply`].
    fn finish_apply(&mut self, write: PendingWrite, acked: Result<Vec<u64>>, change: JournalChange<'_>) -> Result<()> {
        let _ = (write, acked, change);
        Err(not_pipelined())
    }

    /// Whether a pipelined write to `key` is submitted and not finished:
    /// another read or write of that entry waits for it. Never, by default.
    fn is_writing(&self, key: &StateKey) -> bool {
        let _ = key;
        false
    }

    /// Pipelined writes submitted so far (a sequence number), so that a
    /// marker can wait for the ones before it ([`ActionStateStore::settled_before`]).
    fn writes_submitted(&self) -> u64 {
        0
    }

    /// Whether every pipelined write numbered below `write` has finished.
    fn settled_before(&self, write: u64) -> bool {
        let _ = write;
        true
    }

    /// Syncs and releases the store. Idempotent.
    fn close(&mut self) -> Result<()>;
}

/// A write a store submitted in [`ActionStateStore::begin_put`] or
/// [`ActionStateStore::begin_apply`]: what to wait for, and what to finish.
pub type Submitted = (Box<dyn Acknowledgement>, PendingWrite);

fn not_pipelined() -> crate::error::Error {
    crate::error::Error::IllegalState("this store finishes every write when it is made; there is none to finish".into())
}

/// What every store counts (Java's `StoreStats`): the entries it holds, and
/// what only some stores count, `None` where a store does not.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StoreStats {
    pub entries: u64,
    pub records_appended: Option<u64>,
    pub bytes_appended: Option<u64>,
    pub syncs: Option<u64>,
    pub compactions: Option<u64>,
    pub segment_bytes: Option<u64>,
    pub live_bytes: Option<u64>,
    /// Records read back when the store was opened.
    pub recovered_records: Option<u64>,
    /// The final record a crash cut short, dropped when the store was opened.
    pub torn_tail_bytes: Option<u64>,
    /// Whether opening the store created it.
    pub created_on_open: Option<bool>,
}

impl StoreStats {
    /// A store that counts only its entries.
    pub fn entries(entries: usize) -> StoreStats {
        StoreStats { entries: entries as u64, ..StoreStats::default() }
    }
}

/// [`ActionStateStore::read_entry`] from a copy: `get`'s answer (and its
/// dropping of later entries on a miss), handed to `read`. The default, and
/// what a store that lends entries from memory does when it has none to lend.
pub(crate) fn read_copy<S: ActionStateStore + ?Sized>(
    store: &mut S,
    key: &StateKey,
    read: &mut dyn FnMut(&ActionState),
) -> Result<bool> {
    match store.get(key)? {
        Some(state) => {
            read(&state);
            Ok(true)
        }
        None => Ok(false),
    }
}
