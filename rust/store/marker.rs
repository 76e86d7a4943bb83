//! Recovery markers: what the Flink operator checkpoints so that a restore
//! can tell whether the store still holds everything the checkpoint saw.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

use super::log::{LogMarker, LOG_MARKER_MAGIC};
use crate::error::{Error, Result};

/// Identifies one store (one directory's log, or one in-memory instance).
/// Random at creation, kept for the store's life, including across
/// compactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StoreId(pub [u8; 16]);

impl StoreId {
    /// 128 bits from std's per-process random hasher keys, the clock and
    /// the process id: unique across stores, not meant to be secret.
    pub fn random() -> StoreId {
        let nanos = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or(0);
        let mut out = [0u8; 16];
        for (i, half) in out.chunks_mut(8).enumerate() {
            let mut h = RandomState::new().build_hasher();
            h.write_u128(nanos);
            h.write_u32(std::process::id());
            h.write_usize(i);
            half.copy_from_slice(&h.finish().to_le_bytes());
        }
        StoreId(out)
    }
}

impl std::fmt::Display for StoreId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.iter().try_for_each(|b| write!(f, "{b:02x}"))
    }
}

/// What a store checkpoints for Flink, whichever store it is: every store
/// answers [`crate::store::ActionStateStore::get_recovery_marker`] with one
/// and takes them back in `rebuild_state`, and the bytes say which kind
/// it is (`DJRM` or `DJLM`), so a caller moves markers without knowing the
/// store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RecoveryMarker {
    /// The file and in-memory stores': a store id and a position.
    Position(PositionMarker),
    /// The log-backed store's: its lineage, the log's shape and offsets.
    Log(LogMarker),
}

impl RecoveryMarker {
    /// The checkpointed form: a [`PositionMarker`]'s 29 bytes or a
    /// [`LogMarker`]'s, unchanged from when each had a type of its own.
    pub fn to_bytes(&self) -> Vec<u8> {
        match self {
            RecoveryMarker::Position(marker) => marker.to_bytes(),
            RecoveryMarker::Log(marker) => marker.to_bytes(),
        }
    }

    /// Either kind, told apart by its magic; anything else is refused as
    /// [`PositionMarker::from_bytes`] refuses it.
    pub fn from_bytes(bytes: &[u8]) -> Result<RecoveryMarker> {
        if bytes.starts_with(LOG_MARKER_MAGIC) {
            LogMarker::from_bytes(bytes).map(RecoveryMarker::Log)
        } else {
            PositionMarker::from_bytes(bytes).map(RecoveryMarker::Position)
        }
    }

    /// The position marker this is, else `None`.
    pub fn as_position(&self) -> Option<&PositionMarker> {
        match self {
            RecoveryMarker::Position(marker) => Some(marker),
            RecoveryMarker::Log(_) => None,
        }
    }

    /// The log marker this is, else `None`.
    pub fn as_log(&self) -> Option<&LogMarker> {
        match self {
            RecoveryMarker::Log(marker) => Some(marker),
            RecoveryMarker::Position(_) => None,
        }
    }
}

impl From<PositionMarker> for RecoveryMarker {
    fn from(marker: PositionMarker) -> RecoveryMarker {
        RecoveryMarker::Position(marker)
    }
}

impl From<LogMarker> for RecoveryMarker {
    fn from(marker: LogMarker) -> RecoveryMarker {
        RecoveryMarker::Log(marker)
    }
}

/// What a store read of its medium as a marker began
/// ([`crate::store::ActionStateStore::begin_marker`]): the log store's end
/// offsets, one per partition; empty for a store that reads nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MarkerBasis {
    pub end_offsets: Vec<u64>,
}

/// A position in a store's history: the store, and how many mutation
/// records it had made durable when the marker was taken. Positions are
/// logical (they survive compaction), so a marker stays comparable forever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PositionMarker {
    pub store_id: StoreId,
    pub position: u64,
}

const MARKER_MAGIC: &[u8; 4] = b"DJRM";
const MARKER_VERSION: u8 = 1;
/// Magic, version, store id, position.
pub const MARKER_LEN: usize = 4 + 1 + 16 + 8;

impl PositionMarker {
    /// A fixed 29-byte form for Flink's checkpointed state.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(MARKER_LEN);
        out.extend_from_slice(MARKER_MAGIC);
        out.push(MARKER_VERSION);
        out.extend_from_slice(&self.store_id.0);
        out.extend_from_slice(&self.position.to_le_bytes());
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<PositionMarker> {
        if bytes.len() != MARKER_LEN || &bytes[..4] != MARKER_MAGIC {
            return Err(Error::InvalidArgument(format!(
                "not a recovery marker of this store ({} bytes; expected {MARKER_LEN} starting with DJRM)",
                bytes.len()
            )));
        }
        if bytes[4] != MARKER_VERSION {
            return Err(Error::InvalidArgument(format!("unsupported recovery marker version {}", bytes[4])));
        }
        let store_id = StoreId(bytes[5..21].try_into().expect("16 bytes"));
        let position = u64::from_le_bytes(bytes[21..29].try_into().expect("8 bytes"));
        Ok(PositionMarker { store_id, position })
    }
}

/// The position markers among `markers`: a store that counts positions
/// refuses a log store's marker, as it refuses any other bytes.
pub(crate) fn position_markers(markers: &[RecoveryMarker]) -> Result<Vec<PositionMarker>> {
    of_kind(markers, |m| m.as_position().copied(), "a log-backed store's (DJLM), not a store position (DJRM)")
}

/// The markers `pick` takes, all of them, else `InvalidArgument`: not a
/// marker of this store, `other_kind`.
pub(crate) fn of_kind<T>(
    markers: &[RecoveryMarker],
    pick: impl Fn(&RecoveryMarker) -> Option<T>,
    other_kind: &str,
) -> Result<Vec<T>> {
    markers
        .iter()
        .map(|marker| pick(marker).ok_or_else(|| Error::InvalidArgument(format!("not a recovery marker of this store: {other_kind}"))))
        .collect()
}

/// The check both stores make in `rebuild_state`: every marker must be this
/// store's, at a position it has reached. A marker the store has not reached
/// means records the checkpoint relied on are gone (an older copy of the
/// directory, or a lost disk): recovering anyway would silently re-run
/// calls that were journaled, so it is refused.
pub(crate) fn verify_covered(
    markers: &[PositionMarker],
    store_id: StoreId,
    position: u64,
    store_name: &str,
) -> Result<()> {
    for marker in markers {
        if marker.store_id != store_id {
            return Err(Error::IllegalState(format!(
                "recovery marker belongs to store {} but {store_name} is store {store_id}: the checkpoint was \
                 taken against a different store directory (replaced, wiped, or another subtask's); \
                 restoring would lose its journal",
                marker.store_id
            )));
        }
        if marker.position > position {
            return Err(Error::IllegalState(format!(
                "{store_name} is behind the checkpoint: the checkpoint saw {} records but the store holds \
                 only {position}; it was restored from an older copy or lost acknowledged writes",
                marker.position
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marker_bytes_round_trip_and_reject_garbage() {
        let marker = PositionMarker { store_id: StoreId::random(), position: 42 };
        assert_eq!(PositionMarker::from_bytes(&marker.to_bytes()).unwrap(), marker);
        assert!(PositionMarker::from_bytes(b"nope").is_err());
        let mut wrong_version = marker.to_bytes();
        wrong_version[4] = 9;
        assert!(PositionMarker::from_bytes(&wrong_version).is_err());
    }

    #[test]
    fn either_kind_of_marker_reads_back_as_its_kind_with_its_bytes_unchanged() {
        let position = PositionMarker { store_id: StoreId([7; 16]), position: 3 };
        let mut djrm = b"DJRM\x01".to_vec();
        djrm.extend_from_slice(&[7; 16]);
        djrm.extend_from_slice(&3u64.to_le_bytes());
        assert_eq!(RecoveryMarker::from_bytes(&djrm).unwrap(), RecoveryMarker::Position(position));
        assert_eq!(RecoveryMarker::from(position).to_bytes(), djrm, "a position marker's bytes are its own");

        let log = LogMarker {
            lineage: crate::store::log::Lineage([1; 16]),
            layout: crate::store::log::LogLayout { log_id: [2; 16], partitions: 1, max_parallelism: 8 },
            positions: vec![5],
            starts: vec![4],
        };
        let djlm = log.to_bytes();
        assert_eq!(RecoveryMarker::from_bytes(&djlm).unwrap(), RecoveryMarker::Log(log.clone()));
        assert_eq!(RecoveryMarker::from(log).to_bytes(), djlm, "a log marker's bytes are its own");

        assert!(RecoveryMarker::from_bytes(b"DJLM\x02").is_err(), "a log marker cut short");
        assert!(RecoveryMarker::from_bytes(b"nope").is_err());
    }

    #[test]
    fn a_store_that_counts_positions_refuses_a_log_marker() {
        let log = RecoveryMarker::from_bytes(&LogMarker {
            lineage: crate::store::log::Lineage([1; 16]),
            layout: crate::store::log::LogLayout { log_id: [2; 16], partitions: 1, max_parallelism: 8 },
            positions: vec![0],
            starts: vec![0],
        }
        .to_bytes())
        .unwrap();
        let err = position_markers(&[log]).unwrap_err();
        assert_eq!(err.code(), crate::error::ErrorCode::InvalidArgument);
        assert!(err.to_string().contains("log-backed store"), "{err}");
    }

    #[test]
    fn store_ids_differ() {
        assert_ne!(StoreId::random(), StoreId::random());
    }
}
