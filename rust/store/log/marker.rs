//! Recovery markers of a log-backed store: what the Flink operator
//! checkpoints for each subtask, so that a restore (at any parallelism) can
//! tell which history to continue and whether the log still holds
//! everything the checkpoint saw.

use crate::error::{Error, Result};
use crate::store::codec::{DecodeError, DecodeResult, Reader, Writer};
use crate::store::marker::{of_kind, RecoveryMarker};

use super::layout::{Lineage, LogLayout};

/// What a log marker's bytes start with (`RecoveryMarker::from_bytes` tells the kinds apart by it).
pub(crate) const MAGIC: &[u8; 4] = b"DJLM";
/// Version 1 had positions only (a restore read from offset 0).
const VERSION_POSITIONS: u8 = 1;
const VERSION: u8 = 2;

/// A store's lineage, the log's shape, and per partition the offset after
/// the last record this store had appended (and the log acknowledged), and
/// the offset a restore may start reading at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogMarker {
    pub lineage: Lineage,
    pub layout: LogLayout,
    /// One per partition.
    pub positions: Vec<u64>,
    /// One per partition: no entry the store held when the marker was
    /// taken has a record before it, and every record written after the
    /// marker lands at or after it. A restore reads from the smallest start
    /// of all the checkpoint's markers, so its time is bounded by the live
    /// journals, not by the topic's age. 0 in markers of version 1.
    pub starts: Vec<u64>,
}

impl LogMarker {
    /// `DJLM`, version, lineage, log id, partitions, max parallelism, then
    /// per partition its position and its start.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut w = Writer::new();
        w.raw(MAGIC);
        w.u8(VERSION);
        w.raw(&self.lineage.0);
        w.raw(&self.layout.log_id);
        w.u32(self.layout.partitions);
        w.u32(self.layout.max_parallelism);
        for (position, start) in self.positions.iter().zip(&self.starts) {
            w.u64(*position);
            w.u64(*start);
        }
        w.into_bytes()
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<LogMarker> {
        let refuse = |why: String| Error::InvalidArgument(format!("not a recovery marker of a log-backed store: {why}"));
        if bytes.len() < 5 || &bytes[..4] != MAGIC {
            return Err(refuse(format!("{} bytes not starting with DJLM", bytes.len())));
        }
        if bytes[4] != VERSION && bytes[4] != VERSION_POSITIONS {
            return Err(refuse(format!("unsupported version {}", bytes[4])));
        }
        read_body(&mut Reader::new(&bytes[5..]), bytes[4] == VERSION).map_err(|e| refuse(e.0))
    }
}

/// The log markers among `markers`: a log store refuses a store position,
/// as it refuses any other bytes.
pub(super) fn log_markers(markers: &[RecoveryMarker]) -> Result<Vec<LogMarker>> {
    of_kind(markers, |m| m.as_log().cloned(), "a store position (DJRM), not a log-backed store's marker (DJLM)")
}

fn read_body(r: &mut Reader<'_>, with_starts: bool) -> DecodeResult<LogMarker> {
    let lineage = Lineage(r.raw(16)?.try_into().expect("16 bytes"));
    let log_id = r.raw(16)?.try_into().expect("16 bytes");
    let partitions = r.u32()?;
    let max_parallelism = r.u32()?;
    let mut positions = Vec::new();
    let mut starts = Vec::new();
    while !r.is_at_end() {
        positions.push(r.u64()?);
        starts.push(if with_starts { r.u64()? } else { 0 });
    }
    if positions.len() != partitions as usize {
        return Err(DecodeError(format!("{} positions for {partitions} partitions", positions.len())));
    }
    Ok(LogMarker { lineage, layout: LogLayout { log_id, partitions, max_parallelism }, positions, starts })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_marker_round_trips_and_garbage_is_refused() {
        let marker = LogMarker {
            lineage: Lineage([1; 16]),
            layout: LogLayout { log_id: [2; 16], partitions: 3, max_parallelism: 128 },
            positions: vec![0, 7, u64::MAX],
            starts: vec![0, 5, 9],
        };
        let bytes = marker.to_bytes();
        assert_eq!(LogMarker::from_bytes(&bytes).unwrap(), marker);
        assert!(LogMarker::from_bytes(&bytes[..bytes.len() - 1]).is_err());
        assert!(LogMarker::from_bytes(b"DJRM\x01").is_err(), "a file store marker is not a log marker");
        let mut version = bytes.clone();
        version[4] = 9;
        assert!(LogMarker::from_bytes(&version).is_err());
        let mut extra = bytes;
        extra.extend_from_slice(&[0; 8]);
        assert!(LogMarker::from_bytes(&extra).is_err());
    }

    #[test]
    fn a_version_1_marker_restores_from_offset_0() {
        let mut w = Writer::new();
        w.raw(MAGIC);
        w.u8(VERSION_POSITIONS);
        w.raw(&[1; 16]);
        w.raw(&[2; 16]);
        w.u32(2);
        w.u32(128);
        w.u64(4);
        w.u64(6);
        let marker = LogMarker::from_bytes(&w.into_bytes()).unwrap();
        assert_eq!((marker.positions, marker.starts), (vec![4, 6], vec![0, 0]));
    }
}
