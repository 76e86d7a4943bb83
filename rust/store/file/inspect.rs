//! Reading a store directory without opening it as a store: no lock, no
//! repair, no format upgrade, no file created or removed. The inspection
//! tool (`durable-journal list`, `show`, `verify`) is built on this, so it is
//! safe beside the job that holds the store.
//!
//! What it sees is the newest segment as far as it was written when read:
//! a record being appended at that moment may show up as a torn tail, which
//! the writer has not left behind.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

use super::recover::{self, TornTail};
use super::{io_error, segment};
use crate::error::{Error, Result};
use crate::model::ActionState;
use crate::store::key::StateKey;
use crate::store::marker::StoreId;

/// A store directory as read, entries in key order.
#[derive(Debug)]
pub struct InspectedStore {
    /// The newest segment, the one read.
    pub segment: PathBuf,
    pub format_version: u32,
    pub store_id: StoreId,
    pub generation: u64,
    /// Mutation records over the store's life: what a marker taken now says.
    pub position: u64,
    /// Records read from the segment (compaction snapshot included).
    pub records: u64,
    /// Where the intact records end.
    pub intact_bytes: u64,
    /// Bytes after the last intact record that do not form a record: a
    /// write cut short by a crash, or one in progress.
    pub torn_tail: Option<TornTail>,
    /// Older generations and compaction leftovers, which the next open of
    /// the store removes.
    pub leftovers: Vec<PathBuf>,
    pub entries: Vec<InspectedEntry>,
}

#[derive(Debug)]
pub struct InspectedEntry {
    pub key: StateKey,
    pub state: ActionState,
    /// Bytes of log records the entry is built from.
    pub log_bytes: u64,
}

/// How often the newest segment may vanish between listing the directory
/// and opening it (a compaction of the running store) before giving up.
const ATTEMPTS: usize = 5;

/// Reads the store in `dir` as it stands. Damage that open would report as
/// corruption is `StoreCorrupt`; a torn tail is in the result.
pub fn inspect(dir: &Path) -> Result<InspectedStore> {
    for attempt in 1..=ATTEMPTS {
        let listing = segment::list(dir).map_err(io_error(dir))?;
        let Some((_, path)) = listing.segments.last() else {
            let source = io::Error::new(io::ErrorKind::NotFound, "no store segment (journal-*.log) in this directory");
            return Err(Error::StoreIo { path: dir.to_path_buf(), source });
        };
        let file = match File::open(path) {
            Ok(file) => file,
            Err(err) if err.kind() == io::ErrorKind::NotFound && attempt < ATTEMPTS => continue,
            Err(err) => return Err(io_error(path)(err)),
        };
        // The open handle keeps the segment readable even if a compaction
        // removes it now: what is read is one consistent generation.
        let loaded = recover::read(&file, path)?;
        let older = listing.segments.len() - 1;
        let mut leftovers: Vec<PathBuf> = listing.segments[..older].iter().map(|(_, p)| p.clone()).collect();
        leftovers.extend(listing.temp_files);
        let entries = loaded
            .table
            .sorted_entries()
            .into_iter()
            .map(|(key, entry)| InspectedEntry { key, state: entry.state.clone(), log_bytes: entry.log_bytes })
            .collect();
        return Ok(InspectedStore {
            segment: path.clone(),
            format_version: loaded.header.version,
            store_id: loaded.header.store_id,
            generation: loaded.header.generation,
            position: loaded.position,
            records: loaded.records,
            intact_bytes: loaded.len,
            torn_tail: loaded.torn_tail,
            leftovers,
            entries,
        });
    }
    unreachable!("the last attempt returns")
}
