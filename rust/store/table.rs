//! The live entries of a store, grouped by business key and ordered by
//! sequence number, and the rules for changing them. Both stores keep one;
//! the file store rebuilds it from its log on open.

use std::collections::{BTreeMap, HashMap};

use super::diff::{StateDelta, StateExtension};
use super::key::{BusinessKey, EventIdentity, StateKey};
use super::record::OwnedChange;
use crate::journal::JournalChange;
use crate::model::ActionState;

pub(crate) struct Entry {
    pub state: ActionState,
    /// Bytes of log records this entry's current state is built from; the
    /// rest of the log is garbage that compaction reclaims.
    pub log_bytes: u64,
}

/// The entries at one sequence number, by action and then by event: nested
/// so a lookup borrows the key's parts instead of cloning them into a tuple.
type SeqEntries = HashMap<String, HashMap<EventIdentity, Entry>>;

#[derive(Default)]
pub(crate) struct StateTable {
    keys: HashMap<BusinessKey, BTreeMap<i64, SeqEntries>>,
    live_bytes: u64,
    entries: usize,
}

impl StateTable {
    pub fn get(&self, key: &StateKey) -> Option<&ActionState> {
        self.entry(key).map(|e| &e.state)
    }

    fn entry(&self, key: &StateKey) -> Option<&Entry> {
        self.keys.get(&key.business_key)?.get(&key.seq)?.get(key.action.as_str())?.get(&key.event)
    }

    fn entry_mut(&mut self, key: &StateKey) -> Option<&mut Entry> {
        self.keys.get_mut(&key.business_key)?.get_mut(&key.seq)?.get_mut(key.action.as_str())?.get_mut(&key.event)
    }

    /// The bytes the entry at `key` is built from once a record of
    /// `record_bytes` is added: a whole-state record starts it again.
    pub fn entry_bytes_after(&self, key: &StateKey, whole: bool, record_bytes: u64) -> u64 {
        match self.entry(key) {
            Some(entry) if !whole => entry.log_bytes.saturating_add(record_bytes),
            _ => record_bytes,
        }
    }

    pub fn len(&self) -> usize {
        self.entries
    }

    pub fn live_bytes(&self) -> u64 {
        self.live_bytes
    }

    /// Whether this business key has entries with a larger sequence number.
    pub fn has_later(&self, business_key: &BusinessKey, seq: i64) -> bool {
        seq < i64::MAX && self.keys.get(business_key).is_some_and(|seqs| seqs.range(seq + 1..).next().is_some())
    }

    /// Whether this business key has entries at or below `seq`.
    pub fn has_up_to(&self, business_key: &BusinessKey, seq: i64) -> bool {
        self.keys.get(business_key).is_some_and(|seqs| seqs.range(..=seq).next().is_some())
    }

    /// Drops every entry of this business key with a sequence number above
    /// `seq`; other business keys are untouched. Returns how many went.
    pub fn discard_after(&mut self, business_key: &BusinessKey, seq: i64) -> usize {
        if seq == i64::MAX {
            return 0;
        }
        let Some(seqs) = self.keys.get_mut(business_key) else { return 0 };
        let later = seqs.split_off(&(seq + 1));
        if seqs.is_empty() {
            self.keys.remove(business_key);
        }
        self.forget(later.into_values())
    }

    /// Drops every entry of this business key with a sequence number up to
    /// and including `seq_up_to`. Returns how many went.
    pub fn prune(&mut self, business_key: &BusinessKey, seq_up_to: i64) -> usize {
        let Some(seqs) = self.keys.get_mut(business_key) else { return 0 };
        let kept = if seq_up_to == i64::MAX { BTreeMap::new() } else { seqs.split_off(&(seq_up_to + 1)) };
        let pruned = std::mem::replace(seqs, kept);
        if seqs.is_empty() {
            self.keys.remove(business_key);
        }
        self.forget(pruned.into_values())
    }

    fn forget(&mut self, removed: impl Iterator<Item = SeqEntries>) -> usize {
        let mut count = 0;
        for entries in removed {
            for entry in entries.into_values().flat_map(HashMap::into_values) {
                self.live_bytes -= entry.log_bytes;
                count += 1;
            }
        }
        self.entries -= count;
        count
    }

    /// Drops the one entry at `key`, if it is there. Returns whether it was.
    pub fn remove(&mut self, key: &StateKey) -> bool {
        let Some(seqs) = self.keys.get_mut(&key.business_key) else { return false };
        let Some(entries) = seqs.get_mut(&key.seq) else { return false };
        let Some(by_event) = entries.get_mut(key.action.as_str()) else { return false };
        let Some(entry) = by_event.remove(&key.event) else { return false };
        if by_event.is_empty() {
            entries.remove(key.action.as_str());
        }
        if entries.is_empty() {
            seqs.remove(&key.seq);
        }
        if seqs.is_empty() {
            self.keys.remove(&key.business_key);
        }
        self.live_bytes -= entry.log_bytes;
        self.entries -= 1;
        true
    }

    /// Stores a whole state, replacing any entry at this key.
    pub fn put(&mut self, key: &StateKey, state: ActionState, log_bytes: u64) {
        let seqs = self.keys.entry(key.business_key.clone()).or_default();
        let by_action = seqs.entry(key.seq).or_default();
        let by_event = match by_action.get_mut(key.action.as_str()) {
            Some(by_event) => by_event,
            None => by_action.entry(key.action.clone()).or_default(),
        };
        let previous = by_event.insert(key.event.clone(), Entry { state, log_bytes });
        match previous {
            Some(old) => self.live_bytes -= old.log_bytes,
            None => self.entries += 1,
        }
        self.live_bytes += log_bytes;
    }

    /// Whether `change` applies to the stored entry. Checked before a record
    /// is written, so the log never holds a change that cannot be replayed.
    pub fn check(&self, key: &StateKey, change: JournalChange<'_>) -> Result<(), String> {
        check_change(&self.entry(key).ok_or_else(|| missing(key))?.state, change)
    }

    /// Applies a journal delta to the stored entry, exactly as the journal
    /// applied it in memory. `log_bytes` is the size of the record written.
    pub fn apply(&mut self, key: &StateKey, change: JournalChange<'_>, log_bytes: u64) -> Result<(), String> {
        let entry = self.entry_mut(key).ok_or_else(|| missing(key))?;
        check_change(&entry.state, change)?;
        apply_change(entry, OwnedChange::copied(change), log_bytes);
        self.live_bytes += log_bytes;
        Ok(())
    }

    /// [`StateTable::apply`] of a change decoded from a record (a store
    /// loading its log): its slots move into the entry instead of being
    /// copied, which was a third of the allocations of reopening a store.
    pub fn apply_decoded(&mut self, key: &StateKey, change: OwnedChange, log_bytes: u64) -> Result<(), String> {
        let entry = self.entry_mut(key).ok_or_else(|| missing(key))?;
        check_change(&entry.state, change.as_change())?;
        apply_change(entry, change, log_bytes);
        self.live_bytes += log_bytes;
        Ok(())
    }

    /// [`StateTable::apply_decoded`] of one entry's changes in order, with one
    /// lookup of the entry: a store loading its log reads an action's records
    /// one after another. The changes before one that does not apply stay
    /// applied; its index in `changes`, and why.
    pub fn apply_decoded_run(
        &mut self,
        key: &StateKey,
        changes: impl ExactSizeIterator<Item = (OwnedChange, u64)>,
    ) -> Result<(), (usize, String)> {
        let entry = self
            .keys
            .get_mut(&key.business_key)
            .and_then(|seqs| seqs.get_mut(&key.seq))
            .and_then(|entries| entries.get_mut(key.action.as_str()))
            .and_then(|by_event| by_event.get_mut(&key.event))
            .ok_or_else(|| (0, missing(key)))?;
        // Most runs append a slot each: grow the journal once for all of them.
        entry.state.call_results.reserve(changes.len());
        for (index, (change, log_bytes)) in changes.enumerate() {
            check_change(&entry.state, change.as_change()).map_err(|e| (index, e))?;
            apply_change(entry, change, log_bytes);
            self.live_bytes += log_bytes;
        }
        Ok(())
    }

    /// [`StateTable::check`], then [`StateTable::apply`] once `admit` accepts
    /// the size the entry reaches with a record of `log_bytes` (a store's
    /// limits): one lookup of the entry for all three steps.
    pub fn apply_admitted(
        &mut self,
        key: &StateKey,
        change: JournalChange<'_>,
        log_bytes: u64,
        admit: impl FnOnce(u64) -> crate::error::Result<()>,
    ) -> crate::error::Result<()> {
        let entry = self.entry_mut(key).ok_or_else(|| crate::error::Error::IllegalState(missing(key)))?;
        check_change(&entry.state, change).map_err(crate::error::Error::IllegalState)?;
        admit(entry.log_bytes.saturating_add(log_bytes))?;
        apply_change(entry, OwnedChange::copied(change), log_bytes);
        self.live_bytes += log_bytes;
        Ok(())
    }

    /// Applies an extension record to the stored entry. `log_bytes` is the
    /// size of the record written.
    pub fn extend(&mut self, key: &StateKey, extension: &StateExtension<'_>, log_bytes: u64) -> Result<(), String> {
        let entry = self.entry_mut(key).ok_or_else(|| format!("no entry at {key:?} to extend"))?;
        let len = entry.state.call_results.len();
        if extension.calls_from > len {
            return Err(format!("extension cuts the journal at slot {} but it has {len} slots", extension.calls_from));
        }
        extension.apply_to(&mut entry.state);
        entry.log_bytes += log_bytes;
        self.live_bytes += log_bytes;
        Ok(())
    }

    /// Makes the entry at `key` equal to `state` by applying `delta`, which
    /// [`StateDelta::between`] computed from this entry to `state`: the same
    /// step a reopen replays from the record written for it.
    pub fn put_delta(&mut self, key: &StateKey, state: &ActionState, delta: &StateDelta<'_>, log_bytes: u64) -> Result<(), String> {
        match delta {
            StateDelta::Unchanged => {}
            StateDelta::Whole => self.put(key, state.clone(), log_bytes),
            StateDelta::Journal(change) => self.apply(key, *change, log_bytes)?,
            StateDelta::Extend(extension) => self.extend(key, extension, log_bytes)?,
        }
        debug_assert!(self.get(key) == Some(state), "the delta {delta:?} did not rebuild the put state");
        Ok(())
    }

    /// Lends every live entry to `visit`, in no particular order: its
    /// business key, sequence number, action and event, and its state.
    pub fn for_each(&self, visit: &mut dyn FnMut(&BusinessKey, i64, &str, &EventIdentity, &ActionState)) {
        for (business_key, seqs) in &self.keys {
            for (seq, entries) in seqs {
                for (action, by_event) in entries {
                    for (event, entry) in by_event {
                        visit(business_key, *seq, action, event, &entry.state);
                    }
                }
            }
        }
    }

    /// Every live entry, in key order (so compaction output is deterministic).
    pub fn sorted_entries(&self) -> Vec<(StateKey, &Entry)> {
        let mut out = Vec::with_capacity(self.entries);
        for (business_key, seqs) in &self.keys {
            for (seq, entries) in seqs {
                for (action, by_event) in entries {
                    for (event, entry) in by_event {
                        let key = StateKey::new(business_key.clone(), *seq, action.clone(), event.clone());
                        out.push((key, entry));
                    }
                }
            }
        }
        out.sort_by(|a, b| a.0.cmp(&b.0));
        out
    }

    /// After compaction each entry is one snapshot record of this size.
    pub fn set_log_bytes(&mut self, key: &StateKey, log_bytes: u64) {
        let entry = self.entry_mut(key).expect("compaction rewrites existing entries only");
        let old = std::mem::replace(&mut entry.log_bytes, log_bytes);
        self.live_bytes = self.live_bytes - old + log_bytes;
    }
}

fn missing(key: &StateKey) -> String {
    format!("no entry at {key:?}; put the ActionState first")
}

/// Whether `change` applies to an entry holding `state`.
fn check_change(state: &ActionState, change: JournalChange<'_>) -> Result<(), String> {
    let len = state.call_results.len();
    let within = |at: usize, what: &str| {
        if at <= len {
            Ok(())
        } else {
            Err(format!("{what} at slot {at} but the stored journal has {len} slots"))
        }
    };
    match change {
        JournalChange::Put { index, .. } => within(index, "put"),
        JournalChange::PutBatch { from, .. } => within(from, "batch"),
        JournalChange::Truncate { from } => within(from, "truncate"),
        JournalChange::Replace { index, slot } => match state.call_results.get(index) {
            Some(stored) if stored.is_pending() && stored.call_id == slot.call_id => Ok(()),
            Some(stored) => Err(format!(
                "finalize of '{}' at slot {index}, but the stored slot is '{}' ({})",
                slot.call_id_for_display(),
                stored.call_id_for_display(),
                stored.effective_status().as_str()
            )),
            None => Err(format!("finalize at slot {index} but the stored journal has {len} slots")),
        },
        JournalChange::Complete => Ok(()),
    }
}

/// Applies a checked `change` to `entry`, which grows by a record of `log_bytes`.
fn apply_change(entry: &mut Entry, change: OwnedChange, log_bytes: u64) {
    let slots = &mut entry.state.call_results;
    match change {
        OwnedChange::Put { index, slot } => {
            slots.truncate(index);
            slots.push(slot);
        }
        OwnedChange::Replace { index, slot } => slots[index] = slot,
        OwnedChange::PutBatch { from, slots: batch } => {
            slots.truncate(from);
            slots.extend(batch);
        }
        OwnedChange::Truncate { from } => slots.truncate(from),
        OwnedChange::Complete => entry.state.mark_completed(),
    }
    entry.log_bytes += log_bytes;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CallResult, Outcome};

    fn key(bk: &str, seq: i64) -> StateKey {
        StateKey::new(BusinessKey::Str(bk.into()), seq, "act", EventIdentity::Occurrence(format!("{bk}-{seq}")))
    }

    #[test]
    fn live_bytes_follow_puts_deltas_and_removals() {
        let mut t = StateTable::default();
        t.put(&key("a", 1), ActionState::default(), 10);
        t.put(&key("a", 2), ActionState::default(), 20);
        t.apply(&key("a", 2), JournalChange::Put { index: 0, slot: &CallResult::pending("f") }, 5).unwrap();
        assert_eq!((t.len(), t.live_bytes()), (2, 35));
        t.put(&key("a", 1), ActionState::default(), 7);
        assert_eq!(t.live_bytes(), 32);
        assert_eq!(t.discard_after(&BusinessKey::Str("a".into()), 1), 1);
        assert_eq!((t.len(), t.live_bytes()), (1, 7));
        assert_eq!(t.prune(&BusinessKey::Str("a".into()), 1), 1);
        assert_eq!((t.len(), t.live_bytes()), (0, 0));
    }

    #[test]
    fn extreme_sequence_numbers_do_not_overflow() {
        let mut t = StateTable::default();
        t.put(&key("a", i64::MAX), ActionState::default(), 1);
        assert!(!t.has_later(&BusinessKey::Str("a".into()), i64::MAX));
        assert_eq!(t.discard_after(&BusinessKey::Str("a".into()), i64::MAX), 0);
        assert_eq!(t.prune(&BusinessKey::Str("a".into()), i64::MAX), 1);
    }

    #[test]
    fn a_delta_that_does_not_fit_the_stored_journal_is_refused() {
        let mut t = StateTable::default();
        let missing = t.check(&key("a", 1), JournalChange::Complete).unwrap_err();
        assert!(missing.contains("put the ActionState first"), "{missing}");
        t.put(&key("a", 1), ActionState::default(), 1);
        assert!(t.check(&key("a", 1), JournalChange::Put { index: 1, slot: &CallResult::pending("f") }).is_err());
        assert!(t.check(&key("a", 1), JournalChange::Truncate { from: 1 }).is_err());
        let done = CallResult::completed("f", Outcome::success(None));
        assert!(t.check(&key("a", 1), JournalChange::Replace { index: 0, slot: &done }).is_err());
    }
}
