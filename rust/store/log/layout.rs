//! Where a log-backed store's records live: the log (a Kafka topic) and its
//! partitions, the Flink key groups that decide which partition a business
//! key's records go to, and the history (lineage) a record belongs to.

use crate::error::{Error, Result};

/// Flink's upper bound for the max parallelism (`KeyGroupRangeAssignment`):
/// key groups are numbered below it.
pub const MAX_KEY_GROUPS: u32 = 1 << 15;

/// One job's history in the log: every record carries it, and a store reads
/// back only the records of its own lineage. A fresh job starts a lineage
/// (Flink's job id); a job restored from a checkpoint continues the lineage
/// of the checkpoint's markers. Jobs that share a topic never see each
/// other's journals, and a fresh run never mistakes an abandoned run's
/// entries for its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Lineage(pub [u8; 16]);

impl std::fmt::Display for Lineage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// The shape of the log, fixed for a lineage's life: a restore into a log
/// of another shape is refused, since records would no longer be where the
/// markers and the key groups say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LogLayout {
    /// Identifies the log itself (Kafka's topic id): a topic deleted and
    /// created again under the same name has another one.
    pub log_id: [u8; 16],
    pub partitions: u32,
    /// Flink's max parallelism: the number of key groups.
    pub max_parallelism: u32,
}

impl LogLayout {
    pub fn new(log_id: [u8; 16], partitions: u32, max_parallelism: u32) -> Result<LogLayout> {
        if partitions == 0 {
            return Err(Error::InvalidArgument("a log needs at least one partition".into()));
        }
        if max_parallelism == 0 || max_parallelism > MAX_KEY_GROUPS {
            return Err(Error::InvalidArgument(format!(
                "max parallelism must be within 1..={MAX_KEY_GROUPS}: {max_parallelism}"
            )));
        }
        Ok(LogLayout { log_id, partitions, max_parallelism })
    }

    /// The partition holding a key group's records. Contiguous key groups
    /// map to contiguous partitions (as Flink maps them to subtasks), so a
    /// subtask's range is read from a contiguous run of partitions.
    pub fn partition_of(&self, key_group: u32) -> u32 {
        (u64::from(key_group) * u64::from(self.partitions) / u64::from(self.max_parallelism)) as u32
    }

    /// The partitions that hold the records of `range`.
    pub fn partitions_of(&self, range: KeyGroupRange) -> Vec<u32> {
        (self.partition_of(range.first)..=self.partition_of(range.last)).collect()
    }

    pub fn check_key_group(&self, key_group: u32) -> Result<()> {
        if key_group < self.max_parallelism {
            Ok(())
        } else {
            Err(Error::InvalidArgument(format!(
                "key group {key_group} is outside 0..{} (the max parallelism)",
                self.max_parallelism
            )))
        }
    }
}

/// An inclusive range of key groups: what a Flink subtask owns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyGroupRange {
    pub first: u32,
    pub last: u32,
}

impl KeyGroupRange {
    pub fn new(first: u32, last: u32, layout: &LogLayout) -> Result<KeyGroupRange> {
        if first > last {
            return Err(Error::InvalidArgument(format!("empty key group range {first}..={last}")));
        }
        layout.check_key_group(last)?;
        Ok(KeyGroupRange { first, last })
    }

    pub fn single(key_group: u32) -> KeyGroupRange {
        KeyGroupRange { first: key_group, last: key_group }
    }

    pub fn contains(&self, key_group: u32) -> bool {
        (self.first..=self.last).contains(&key_group)
    }

    pub fn overlaps(&self, other: &KeyGroupRange) -> bool {
        self.first <= other.last && other.first <= self.last
    }
}

impl std::fmt::Display for KeyGroupRange {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}..={}", self.first, self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_groups_map_to_contiguous_partitions_covering_all() {
        let layout = LogLayout::new([0; 16], 3, 128).unwrap();
        let mut seen = Vec::new();
        let mut previous = 0;
        for kg in 0..128 {
            let p = layout.partition_of(kg);
            assert!(p >= previous && p < 3);
            previous = p;
            seen.push(p);
        }
        seen.dedup();
        assert_eq!(seen, vec![0, 1, 2]);
        let half = KeyGroupRange::new(0, 63, &layout).unwrap();
        assert_eq!(layout.partitions_of(half), vec![0, 1]);
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert!(LogLayout::new([0; 16], 0, 128).is_err());
        assert!(LogLayout::new([0; 16], 1, 0).is_err());
        assert!(LogLayout::new([0; 16], 1, MAX_KEY_GROUPS + 1).is_err());
        let layout = LogLayout::new([0; 16], 1, 4).unwrap();
        assert!(KeyGroupRange::new(2, 1, &layout).is_err());
        assert!(KeyGroupRange::new(0, 4, &layout).is_err());
    }
}
