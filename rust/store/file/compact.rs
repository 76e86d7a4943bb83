//! Compaction: the live entries rewritten as one whole-state record each
//! into the next segment generation, which replaces the current one.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::frame;
use crate::store::record;
use super::segment::{self, SegmentHeader, HEADER_LEN};
use crate::store::key::StateKey;
use crate::store::table::StateTable;

/// When a prune makes the store compact itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CompactionPolicy {
    /// Never compact for less garbage than this many bytes.
    pub min_garbage_bytes: u64,
    /// Compact once garbage exceeds this multiple of the live bytes.
    pub garbage_ratio: f64,
}

impl Default for CompactionPolicy {
    /// Compact when at least 4 MiB and at least as much as is live are
    /// garbage: the log stays within about twice the live state, and each
    /// rewrite is paid for by at least as many bytes of appends.
    fn default() -> Self {
        CompactionPolicy { min_garbage_bytes: 4 << 20, garbage_ratio: 1.0 }
    }
}

impl CompactionPolicy {
    /// Compaction on every prune that leaves any garbage.
    pub fn eager() -> CompactionPolicy {
        CompactionPolicy { min_garbage_bytes: 1, garbage_ratio: 0.0 }
    }

    pub fn is_due(&self, segment_len: u64, live_bytes: u64) -> bool {
        let garbage = segment_len.saturating_sub(HEADER_LEN as u64 + live_bytes);
        garbage >= self.min_garbage_bytes && garbage as f64 >= live_bytes as f64 * self.garbage_ratio
    }
}

/// The new segment, durable and in place but not yet in use.
pub struct Snapshot {
    pub path: PathBuf,
    pub header: SegmentHeader,
    pub len: u64,
    /// Each entry's new size in the log.
    pub entry_bytes: Vec<(StateKey, u64)>,
}

/// Writes the next generation holding the live entries of `table`, starting
/// at store position `position`.
pub fn write_snapshot(dir: &Path, current: &SegmentHeader, position: u64, table: &StateTable) -> io::Result<Snapshot> {
    let entries = table.sorted_entries();
    let header = SegmentHeader::new(current.store_id, current.generation + 1, position, entries.len() as u64);
    let mut entry_bytes = Vec::with_capacity(entries.len());
    let mut len = HEADER_LEN as u64;
    let path = segment::write_new(dir, &header, |out| {
        for (key, entry) in entries {
            let frame = frame::encode(&record::encode_put(&key, &entry.state), len);
            out.write_all(&frame)?;
            len += frame.len() as u64;
            entry_bytes.push((key, frame.len() as u64));
        }
        Ok(())
    })?;
    Ok(Snapshot { path, header, len, entry_bytes })
}
