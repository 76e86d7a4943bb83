//! Loading a log store's entries from the log (its owned key groups after a
//! restore, or one key group of another subtask on demand) and binding
//! business keys to their key groups.

use std::path::PathBuf;

use super::{record_key, EntryLog, KeyGroupRange, LogStore};
use crate::error::{Error, Result};
use crate::store::key::BusinessKey;
use crate::store::record::{self, Record};

impl LogStore {
    /// Per partition, the offset loading reads from: 0, or after a restore
    /// the smallest start of its markers.
    pub fn read_from(&self) -> &[u64] {
        &self.read_from
    }

    /// Starts loading `range`: returns the partitions to read from their
    /// start to the end offsets the caller fetched first, handing every
    /// record to [`LogStore::ingest`], then [`LogStore::finish_load`].
    pub fn begin_load(&mut self, range: KeyGroupRange) -> Result<Vec<u32>> {
        self.open()?;
        self.require_lineage()?;
        let range = KeyGroupRange::new(range.first, range.last, &self.layout)?;
        if let Some(loaded) = self.loaded.iter().find(|loaded| loaded.overlaps(&range)) {
            return Err(Error::IllegalState(format!("key groups {range} overlap {loaded}, which is loaded already")));
        }
        Ok(self.layout.partitions_of(range))
    }

    /// Applies one record read from the log while loading `range`: records
    /// of other lineages and key groups are skipped; a tombstone removes
    /// its entry. A record that does not decode, or a delta without its
    /// entry, is `StoreCorrupt` naming the partition and offset.
    pub fn ingest(&mut self, range: KeyGroupRange, partition: u32, offset: u64, key: &[u8], value: Option<&[u8]>) -> Result<()> {
        self.open()?;
        let lineage = self.require_lineage()?;
        if partition >= self.layout.partitions {
            return Err(Error::InvalidArgument(format!("partition {partition} of a {}-partition log", self.layout.partitions)));
        }
        let corrupt = |reason: String| Error::StoreCorrupt {
            path: PathBuf::from(format!("{} partition {partition}", self.sink.name())),
            offset,
            reason,
        };
        let (record_lineage, key_group) = record_key::prefix(key).map_err(|e| corrupt(format!("record key: {e}")))?;
        if record_lineage != lineage || !range.contains(key_group) {
            return Ok(());
        }
        if key_group >= self.layout.max_parallelism || self.layout.partition_of(key_group) != partition {
            return Err(corrupt(format!("key group {key_group} does not belong in this partition")));
        }
        let (state_key, ordinal) = self.last_loaded.entry(key).map_err(|e| corrupt(format!("record key: {e}")))?;
        // A business key may have entries in two key groups: the one a caller
        // names (`bind_named_key_group`) and the one of its hash, where an
        // earlier build put them. Each entry keeps its own key group.
        if !self.key_groups.contains_key(&state_key.business_key) {
            self.key_groups.insert(state_key.business_key.clone(), key_group);
        }
        let Some(value) = value else {
            let state_key = state_key.clone();
            self.forget(&state_key);
            self.stats.records_loaded += 1;
            return Ok(());
        };
        let bytes = (key.len() + value.len()) as u64;
        // A change record's body repeats the key its record key holds: when its bytes are the
        // record key's, the key is not decoded a second time (the encoding is self-delimiting).
        let shortcut = match record_key::state_key_bytes(key) {
            Some(key_bytes) => record::decode_change_at(value, key_bytes).map_err(|e| corrupt(format!("record: {e}")))?,
            None => None,
        };
        match shortcut {
            Some(change) => self.table.apply_decoded(state_key, change, bytes).map_err(&corrupt)?,
            None => match record::decode(value).map_err(|e| corrupt(format!("record: {e}")))? {
                Record::Put { key: stored, state } if stored == *state_key => self.table.put(state_key, state, bytes),
                Record::Change { key: stored, change } if stored == *state_key => {
                    self.table.apply_decoded(state_key, change, bytes).map_err(&corrupt)?;
                }
                other => return Err(corrupt(format!("unexpected record for {state_key:?}: {other:?}"))),
            },
        }
        match self.entries.get_mut(state_key) {
            Some(entry) => {
                entry.records = entry.records.max(ordinal + 1);
                entry.first_offset = entry.first_offset.min(offset);
            }
            None => {
                self.entries.insert(state_key.clone(), EntryLog { key_group, records: ordinal + 1, first_offset: offset });
            }
        }
        self.stats.records_loaded += 1;
        Ok(())
    }

    /// Ends loading `range`: its entries are served from now on.
    pub fn finish_load(&mut self, range: KeyGroupRange) -> Result<()> {
        self.open()?;
        self.require_lineage()?;
        self.loaded.push(KeyGroupRange::new(range.first, range.last, &self.layout)?);
        Ok(())
    }

    /// Names the key group of a business key (Flink's, from the Java key's
    /// hash and the max parallelism) before an operation on it. Returns the
    /// partition to load it from when the key group is not loaded yet (a
    /// key of another subtask's range, which Flink hands over after a
    /// rescale with an async operator's in-flight records). A business key
    /// whose entries are in another key group is refused: the key's hash or
    /// the max parallelism changed, and its journals would be lost.
    pub fn bind_key_group(&mut self, business_key: &BusinessKey, key_group: u32) -> Result<Option<u32>> {
        self.open()?;
        self.layout.check_key_group(key_group)?;
        match self.key_groups.get(business_key) {
            Some(bound) if *bound != key_group => {
                return Err(Error::IllegalState(format!(
                    "business key {business_key:?} has entries in key group {bound} but is now in key group \
                     {key_group}: its hashCode or the max parallelism changed"
                )));
            }
            Some(_) => {}
            None => {
                self.key_groups.insert(business_key.clone(), key_group);
            }
        }
        Ok(self.partition_to_load(key_group))
    }

    /// [`LogStore::bind_key_group`] for a key group the caller names instead
    /// of one from the business key's hash (Java's `GroupedKey`: Flink
    /// Agents' adapter files a Flink key's entries under the key's text, in
    /// the Flink key's key group). The key's new entries go to it. Entries
    /// of the key this store holds in another key group (an earlier build
    /// put a text's entries in the text's key group) stay there and are
    /// still found, until pruned.
    pub fn bind_named_key_group(&mut self, business_key: &BusinessKey, key_group: u32) -> Result<Option<u32>> {
        self.open()?;
        self.layout.check_key_group(key_group)?;
        self.key_groups.insert(business_key.clone(), key_group);
        Ok(self.partition_to_load(key_group))
    }

    /// None when `key_group` is loaded, else the partition to load it from.
    fn partition_to_load(&self, key_group: u32) -> Option<u32> {
        if self.is_loaded(key_group) {
            None
        } else {
            Some(self.layout.partition_of(key_group))
        }
    }

    pub(super) fn is_loaded(&self, key_group: u32) -> bool {
        self.loaded.iter().any(|range| range.contains(key_group))
    }
}
