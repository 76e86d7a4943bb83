//! Recovery markers: what the Flink operator checkpoints so that a restore
//! can tell whether the store still holds everything the checkpoint saw.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

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

/// A position in a store's history: the store, and how many mutation
/// records it had made durable when the marker was taken. Positions are
/// logical (they survive compaction), so a marker stays comparable forever.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecoveryMarker {
    pub store_id: StoreId,
    pub position: u64,
}

const MARKER_MAGIC: &[u8; 4] = b"DJRM";
const MARKER_VERSION: u8 = 1;
/// Magic, version, store id, position.
pub const MARKER_LEN: usize = 4 + 1 + 16 + 8;

impl RecoveryMarker {
    /// A fixed 29-byte form for Flink's checkpointed state.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(MARKER_LEN);
        out.extend_from_slice(MARKER_MAGIC);
        out.push(MARKER_VERSION);
        out.extend_from_slice(&self.store_id.0);
        out.extend_from_slice(&self.position.to_le_bytes());
        out
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<RecoveryMarker> {
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
        Ok(RecoveryMarker { store_id, position })
    }
}

/// The check both stores make in `rebuild_state`: every marker must be this
/// store's, at a position it has reached. A marker the store has not reached
/// means records the checkpoint relied on are gone (an older copy of the
/// directory, or a lost disk): recovering anyway would silently re-run
/// calls that were journaled, so it is refused.
pub(crate) fn verify_covered(
    markers: &[RecoveryMarker],
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
        let marker = RecoveryMarker { store_id: StoreId::random(), position: 42 };
        assert_eq!(RecoveryMarker::from_bytes(&marker.to_bytes()).unwrap(), marker);
        assert!(RecoveryMarker::from_bytes(b"nope").is_err());
        let mut wrong_version = marker.to_bytes();
        wrong_version[4] = 9;
        assert!(RecoveryMarker::from_bytes(&wrong_version).is_err());
    }

    #[test]
    fn store_ids_differ() {
        assert_ne!(StoreId::random(), StoreId::random());
    }
}
