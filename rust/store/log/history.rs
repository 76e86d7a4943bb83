//! A log store's history: which lineage it continues (fresh, continued or
//! restored from checkpointed markers, checked against the log's shape and
//! end) and the marker it checkpoints. Both read the log's end from the
//! sink through the store's `ActionStateStore` impl (`mod.rs`).

use super::{Lineage, LogLayout, LogMarker, LogStore};
use crate::error::{Error, Result};

impl LogStore {
    /// Begins a new history: nothing of `lineage` is in the log yet, so the
    /// owned key groups are loaded (empty) at once.
    pub fn start_fresh(&mut self, lineage: Lineage) -> Result<()> {
        self.set_lineage(lineage)?;
        self.loaded.push(self.owned);
        Ok(())
    }

    /// Continues `lineage` without a checkpoint (a job that failed before
    /// its first checkpoint completed): load the owned key groups next.
    pub fn continue_history(&mut self, lineage: Lineage) -> Result<()> {
        self.set_lineage(lineage)
    }

    /// Continues the history of a checkpoint, given the markers every
    /// subtask checkpointed (any number of them: the job may have had
    /// another parallelism) and the log's current end offset per partition.
    /// Refuses markers of different lineages, a log of another shape (or a
    /// topic created again), and a log that ends before an offset a marker
    /// saw (acknowledged records lost). Load the owned key groups next.
    /// `ActionStateStore::rebuild_state` reads `end_offsets` from the sink.
    pub(crate) fn restore(&mut self, markers: &[LogMarker], end_offsets: &[u64]) -> Result<()> {
        let name = self.sink.name().to_string();
        let first = markers.first().ok_or_else(|| {
            Error::IllegalState(format!("the checkpoint holds no recovery marker of {name}: nothing to restore from"))
        })?;
        for marker in markers {
            if marker.lineage != first.lineage {
                return Err(Error::IllegalState(format!(
                    "the checkpoint's recovery markers belong to two histories in {name} ({} and {}): they were \
                     not taken by one job",
                    first.lineage, marker.lineage
                )));
            }
            self.check_layout(&marker.layout, &name)?;
        }
        if end_offsets.len() != self.positions.len() {
            return Err(Error::InvalidArgument(format!(
                "{} end offsets for the {} partitions of {name}",
                end_offsets.len(),
                self.positions.len()
            )));
        }
        let mut seen = vec![0u64; self.positions.len()];
        for marker in markers {
            for (max, position) in seen.iter_mut().zip(&marker.positions) {
                *max = (*max).max(*position);
            }
        }
        for (partition, (end, saw)) in end_offsets.iter().zip(&seen).enumerate() {
            if end < saw {
                return Err(Error::IllegalState(format!(
                    "{name} partition {partition} ends at offset {end} but the checkpoint saw records up to offset \
                     {saw}: acknowledged journal records are gone (the topic was truncated or lost data); \
                     restoring would run journaled calls again"
                )));
            }
        }
        self.set_lineage(first.lineage)?;
        self.positions = seen;
        self.read_from = (0..self.positions.len())
            .map(|p| markers.iter().map(|m| m.starts.get(p).copied().unwrap_or(0)).min().unwrap_or(0))
            .collect();
        Ok(())
    }

    fn check_layout(&self, theirs: &LogLayout, name: &str) -> Result<()> {
        let ours = &self.layout;
        if theirs.log_id != ours.log_id {
            return Err(Error::IllegalState(format!(
                "the checkpoint was taken against another log than {name} (its topic id differs: the topic was \
                 deleted and created again, or it is another topic); its journals are not there"
            )));
        }
        if theirs.partitions != ours.partitions {
            return Err(Error::IllegalState(format!(
                "{name} had {} partitions when the checkpoint was taken and has {} now: a business key's records \
                 would no longer be in one partition; keep the partition count of the topic",
                theirs.partitions, ours.partitions
            )));
        }
        if theirs.max_parallelism != ours.max_parallelism {
            return Err(Error::IllegalState(format!(
                "the checkpoint was taken with max parallelism {} and the job now has {}: key groups moved; \
                 Flink needs the same max parallelism to restore keyed state too",
                theirs.max_parallelism, ours.max_parallelism
            )));
        }
        Ok(())
    }

    fn set_lineage(&mut self, lineage: Lineage) -> Result<()> {
        self.open()?;
        if let Some(current) = self.lineage {
            return Err(Error::IllegalState(format!(
                "the store already continues history {current}; open a new store for another"
            )));
        }
        self.lineage = Some(lineage);
        Ok(())
    }

    /// The marker to checkpoint: appends pending tombstones first, so that
    /// everything up to it is acknowledged. `end_offsets` are the log's end
    /// offsets read before this call (`begin_marker`), with no write of
    /// this store in flight that was submitted before they were read
    /// ([`crate::store::SharedStore::recovery_marker`] waits for those): a
    /// partition's start is then the smallest of its end offset and the
    /// first offsets of the entries held here, since every record written
    /// later lands at or after that end.
    pub(crate) fn marker(&mut self, end_offsets: &[u64]) -> Result<LogMarker> {
        self.open()?;
        let lineage = self.require_lineage()?;
        if end_offsets.len() != self.positions.len() {
            return Err(Error::InvalidArgument(format!(
                "{} end offsets for the {} partitions of {}",
                end_offsets.len(),
                self.positions.len(),
                self.sink.name()
            )));
        }
        self.flush()?;
        let mut starts = end_offsets.to_vec();
        for entry in self.entries.values() {
            let start = &mut starts[self.layout.partition_of(entry.key_group) as usize];
            *start = (*start).min(entry.first_offset);
        }
        Ok(LogMarker { lineage, layout: self.layout, positions: self.positions.clone(), starts })
    }

    /// Writes submitted so far (a sequence number): a marker waits until
    /// none submitted before its end offsets were fetched is in flight
    /// ([`LogStore::settled_before`]).
    pub fn writes_submitted(&self) -> u64 {
        self.next_write
    }

    /// Whether every write with a sequence number below `write` settled.
    pub fn settled_before(&self, write: u64) -> bool {
        self.writing.values().all(|(seq, _)| *seq >= write)
    }
}
