//! Opening a segment: replay every record into a fresh table, drop a torn
//! final record, and refuse anything else that is damaged. The replay
//! itself changes nothing, so inspection reads a segment the same way.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::frame::{find_intact_frame, FrameScanner, Scanned};
use crate::store::record::{self, OwnedChange, Record};
use super::segment::{SegmentHeader, HEADER_LEN};
use crate::error::{Error, Result};
use crate::store::table::StateTable;
use crate::store::StateKey;

/// The bytes dropped from the end of the log on open: a record whose write
/// was interrupted by a crash, never acknowledged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TornTail {
    pub path: PathBuf,
    pub offset: u64,
    pub bytes: u64,
    pub reason: &'static str,
}

pub struct Loaded {
    pub header: SegmentHeader,
    pub table: StateTable,
    /// Where the intact log ends (after dropping a torn tail).
    pub len: u64,
    /// The store position after the last record.
    pub position: u64,
    pub records: u64,
    pub torn_tail: Option<TornTail>,
}

fn io_error(path: &Path) -> impl Fn(std::io::Error) -> Error + '_ {
    move |source| Error::StoreIo { path: path.to_path_buf(), source }
}

fn corrupt(path: &Path, offset: u64, reason: impl Into<String>) -> Error {
    Error::StoreCorrupt { path: path.to_path_buf(), offset, reason: reason.into() }
}

/// Loads the segment at `path` for writing: replays it, and cuts a torn
/// tail off the file (durably) so that appends follow the last intact record.
pub fn load(path: &Path) -> Result<Loaded> {
    let file = OpenOptions::new().read(true).write(true).open(path).map_err(io_error(path))?;
    let loaded = read(&file, path)?;
    if let Some(tail) = &loaded.torn_tail {
        file.set_len(tail.offset).map_err(io_error(path))?;
        file.sync_all().map_err(io_error(path))?;
    }
    Ok(loaded)
}

/// Replays the segment open as `file` (found at `path`) without changing
/// it: a torn tail is reported, not cut.
pub fn read(file: &File, path: &Path) -> Result<Loaded> {
    let file_len = file.metadata().map_err(io_error(path))?.len();
    let mut head = vec![0u8; HEADER_LEN.min(file_len as usize)];
    let mut reader = file;
    reader.seek(SeekFrom::Start(0)).map_err(io_error(path))?;
    reader.read_exact(&mut head).map_err(io_error(path))?;
    let header = SegmentHeader::decode(&head).map_err(|reason| corrupt(path, 0, reason))?;

    let mut table = StateTable::default();
    let mut records = 0u64;
    let mut len = file_len;
    let mut torn_tail = None;
    let format = header.frame_format();
    let mut run = Run::default();
    let mut scanner = FrameScanner::new(file, format, HEADER_LEN as u64, file_len).map_err(io_error(path))?;
    loop {
        match scanner.next_frame().map_err(io_error(path))? {
            Scanned::End => break,
            Scanned::Frame { offset, payload } => {
                let frame_len = (format.header_len() + payload.len()) as u64;
                replay(&mut table, payload, frame_len, offset, records < header.snapshot_records, &mut run)
                    .map_err(|(offset, reason)| corrupt(path, offset, reason))?;
                records += 1;
            }
            Scanned::Misplaced { offset, written_at } => {
                return Err(corrupt(
                    path,
                    offset,
                    format!(
                        "an intact record written at offset {written_at} lies at offset {offset}: \
                         a repeated or misdirected write"
                    ),
                ));
            }
            Scanned::Bad { offset, reason } => {
                run.apply(&mut table).map_err(|(offset, reason)| corrupt(path, offset, reason))?;
                let tail = torn_tail_at(file, path, &header, records, offset, file_len, reason)?;
                len = tail.offset;
                torn_tail = Some(tail);
                break;
            }
        }
    }
    run.apply(&mut table).map_err(|(offset, reason)| corrupt(path, offset, reason))?;
    if records < header.snapshot_records {
        return Err(corrupt(
            path,
            len,
            format!("the segment ends inside its snapshot: {records} of {} records", header.snapshot_records),
        ));
    }
    let position = header.base_position + (records - header.snapshot_records);
    Ok(Loaded { header, table, len, position, records, torn_tail })
}

/// A damaged frame is a torn tail only if nothing intact follows it and the
/// snapshot (written and synced as a whole before the segment existed) is
/// complete. Anything else is corruption, reported where it starts.
fn torn_tail_at(
    file: &File,
    path: &Path,
    header: &SegmentHeader,
    records: u64,
    offset: u64,
    file_len: u64,
    reason: &'static str,
) -> Result<TornTail> {
    let format = header.frame_format();
    if let Some(next) = find_intact_frame(file, format, offset + 1, file_len).map_err(io_error(path))? {
        return Err(corrupt(path, offset, format!("{reason}, and intact records follow at offset {next}")));
    }
    if records < header.snapshot_records {
        return Err(corrupt(path, offset, format!("{reason} inside the compaction snapshot")));
    }
    Ok(TornTail { path: path.to_path_buf(), offset, bytes: file_len - offset, reason })
}

/// The change records of one entry read since its last other record, not
/// applied yet: an action's records mostly follow each other, and their key
/// is decoded once and the entry looked up once for all of them (the four
/// hash lookups of a record's entry were a fifth of reopening a store).
#[derive(Default)]
struct Run {
    /// The entry's key, with its encoding; none before the first keyed record.
    key: Option<(StateKey, Vec<u8>)>,
    /// Each change with its record's size.
    changes: Vec<(OwnedChange, u64)>,
    /// Each change's record offset.
    offsets: Vec<u64>,
}

impl Run {
    /// A run of the entry at `key`; the last run was applied.
    fn start(&mut self, key: StateKey) {
        debug_assert!(self.changes.is_empty(), "a run starts once the last one was applied");
        let encoding = record::key_encoding(&key);
        self.key = Some((key, encoding));
    }

    fn push(&mut self, change: OwnedChange, frame_len: u64, offset: u64) {
        self.changes.push((change, frame_len));
        self.offsets.push(offset);
    }

    /// Applies the run's changes in order; the offset of one that does not apply, and why.
    fn apply(&mut self, table: &mut StateTable) -> std::result::Result<(), (u64, String)> {
        let Some((key, _)) = &self.key else { return Ok(()) };
        if self.changes.is_empty() {
            return Ok(());
        }
        let applied = table.apply_decoded_run(key, self.changes.drain(..));
        let failed = applied.map_err(|(index, e)| (self.offsets[index], format!("record does not apply: {e}")));
        self.offsets.clear();
        failed
    }
}

fn replay(
    table: &mut StateTable,
    payload: &[u8],
    frame_len: u64,
    offset: u64,
    in_snapshot: bool,
    run: &mut Run,
) -> std::result::Result<(), (u64, String)> {
    let undecodable = |e| (offset, format!("undecodable record: {e}"));
    if let (Some((_, encoding)), false) = (run.key.as_ref(), in_snapshot) {
        if let Some(change) = record::decode_change_at(payload, encoding).map_err(undecodable)? {
            run.push(change, frame_len, offset);
            return Ok(());
        }
    }
    let record = record::decode(payload).map_err(undecodable)?;
    if in_snapshot && !matches!(record, Record::Put { .. }) {
        return Err((offset, "the compaction snapshot holds a record that is not a whole state".into()));
    }
    // Every other record applies after the run, in log order.
    run.apply(table)?;
    match record {
        Record::Put { key, state } => {
            table.put(&key, state, frame_len);
            run.start(key);
        }
        Record::Change { key, change } => {
            run.start(key);
            run.push(change, frame_len, offset);
        }
        Record::Extend { key, extension } => {
            table.extend(&key, &extension, frame_len).map_err(|e| (offset, format!("record does not apply: {e}")))?
        }
        Record::Discard { business_key, after_seq } => {
            table.discard_after(&business_key, after_seq);
        }
        Record::Prune { business_key, seq_up_to } => {
            table.prune(&business_key, seq_up_to);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::JournalChange;
    use crate::model::{ActionState, CallResult, Outcome};
    use crate::store::file::frame;
    use crate::store::key::{BusinessKey, EventIdentity};
    use crate::store::marker::StoreId;

    fn key(user: &str, seq: i64) -> StateKey {
        StateKey::new(BusinessKey::Str(user.into()), seq, "act", EventIdentity::Occurrence(format!("{user}-{seq}")))
    }

    fn slot(id: &str) -> CallResult {
        CallResult::completed(id, Outcome::success(Some(id.as_bytes().to_vec())))
    }

    fn put_slot(key: &StateKey, index: usize, id: &str) -> Vec<u8> {
        record::encode_change(key, JournalChange::Put { index, slot: &slot(id) })
    }

    /// A segment of `records`, framed where each lands; each record's offset.
    fn segment(records: &[Vec<u8>]) -> (tempfile::TempDir, PathBuf, Vec<u64>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("journal-0000000000000001.log");
        let mut bytes = SegmentHeader::new(StoreId::random(), 1, 0, 0).encode().to_vec();
        let mut offsets = Vec::new();
        for payload in records {
            offsets.push(bytes.len() as u64);
            bytes.extend(frame::encode(payload, bytes.len() as u64));
        }
        std::fs::write(&path, bytes).unwrap();
        (dir, path, offsets)
    }

    fn read_segment(path: &Path) -> Result<Loaded> {
        read(&File::open(path).unwrap(), path)
    }

    fn ids(loaded: &Loaded, key: &StateKey) -> Vec<String> {
        let state = loaded.table.get(key).expect("the entry");
        state.call_results.iter().map(|slot| slot.call_id_for_display().to_string()).collect()
    }

    #[test]
    fn interleaved_entries_get_their_own_changes_in_log_order() {
        let (a, b, c) = (key("a", 1), key("b", 1), key("c", 1));
        let (_dir, path, _) = segment(&[
            record::encode_put(&a, &ActionState::default()),
            put_slot(&a, 0, "a0"),
            record::encode_put(&b, &ActionState::default()),
            put_slot(&b, 0, "b0"),
            put_slot(&a, 1, "a1"),
            put_slot(&a, 2, "a2"),
            put_slot(&b, 1, "b1"),
            // A put at index 1 cuts a's journal there, as the journal does.
            put_slot(&a, 1, "a1'"),
            record::encode_put(&c, &ActionState::default()),
            put_slot(&c, 0, "c0"),
            record::encode_change(&c, JournalChange::Complete),
        ]);
        let loaded = read_segment(&path).unwrap();
        assert_eq!(ids(&loaded, &a), ["a0", "a1'"]);
        assert_eq!(ids(&loaded, &b), ["b0", "b1"]);
        let completed = loaded.table.get(&c).unwrap();
        assert!(completed.completed && completed.call_results.is_empty(), "completing drops the calls");
        assert_eq!(loaded.records, 11);
    }

    #[test]
    fn a_put_replaces_the_entry_of_its_key_and_its_bytes() {
        let (a, b) = (key("a", 1), key("b", 1));
        let (_dir, path, offsets) = segment(&[
            record::encode_put(&a, &ActionState::default()),
            put_slot(&a, 0, "a0"),
            record::encode_put(&b, &ActionState::default()),
            record::encode_put(&a, &ActionState::default()),
            put_slot(&a, 0, "a0'"),
            put_slot(&a, 1, "a1'"),
        ]);
        let loaded = read_segment(&path).unwrap();
        assert_eq!(ids(&loaded, &a), ["a0'", "a1'"]);
        assert_eq!(loaded.table.len(), 2);
        // Live: b's put, and a's second put with the two changes after it.
        let frame = |i: usize| offsets.get(i + 1).copied().unwrap_or(loaded.len) - offsets[i];
        assert_eq!(loaded.table.live_bytes(), frame(2) + frame(3) + frame(4) + frame(5));
    }

    #[test]
    fn a_discard_or_prune_applies_after_the_changes_before_it() {
        let a = key("a", 1);
        let (_dir, path, _) = segment(&[
            record::encode_put(&a, &ActionState::default()),
            put_slot(&a, 0, "a0"),
            record::encode_discard(&a.business_key, 0),
        ]);
        let loaded = read_segment(&path).unwrap();
        assert!(loaded.table.get(&a).is_none(), "the discard dropped the entry its changes had built");

        let (_dir, path, offsets) = segment(&[
            record::encode_put(&a, &ActionState::default()),
            put_slot(&a, 0, "a0"),
            record::encode_prune(&a.business_key, 1),
            put_slot(&a, 1, "a1"),
        ]);
        let err = read_segment(&path).err().expect("a change of a pruned entry");
        assert!(matches!(&err, Error::StoreCorrupt { offset, .. } if *offset == offsets[3]), "{err}");
        assert!(err.to_string().contains("put the ActionState first"), "{err}");
    }

    #[test]
    fn a_change_that_does_not_apply_is_reported_at_its_own_offset() {
        let a = key("a", 1);
        let (_dir, path, offsets) = segment(&[
            record::encode_put(&a, &ActionState::default()),
            put_slot(&a, 0, "a0"),
            put_slot(&a, 1, "a1"),
            // Slot 5 of a journal of 2.
            put_slot(&a, 5, "a5"),
            put_slot(&a, 2, "a2"),
        ]);
        let err = read_segment(&path).err().expect("a put past the journal's end");
        assert!(matches!(&err, Error::StoreCorrupt { offset, .. } if *offset == offsets[3]), "{err}");
        assert!(err.to_string().contains("put at slot 5 but the stored journal has 2 slots"), "{err}");
    }

    #[test]
    fn a_change_of_an_entry_never_put_is_reported_at_its_offset() {
        let (a, b) = (key("a", 1), key("b", 1));
        let (_dir, path, offsets) =
            segment(&[record::encode_put(&a, &ActionState::default()), put_slot(&a, 0, "a0"), put_slot(&b, 0, "b0")]);
        let err = read_segment(&path).err().expect("no entry for b");
        assert!(matches!(&err, Error::StoreCorrupt { offset, .. } if *offset == offsets[2]), "{err}");
    }

    #[test]
    fn the_changes_before_a_torn_tail_are_kept() {
        let a = key("a", 1);
        let (_dir, path, offsets) = segment(&[
            record::encode_put(&a, &ActionState::default()),
            put_slot(&a, 0, "a0"),
            put_slot(&a, 1, "a1"),
        ]);
        let full = std::fs::metadata(&path).unwrap().len();
        // The last record's write was cut short.
        std::fs::OpenOptions::new().write(true).open(&path).unwrap().set_len(full - 3).unwrap();
        let loaded = read_segment(&path).unwrap();
        assert_eq!(ids(&loaded, &a), ["a0"]);
        assert_eq!(loaded.torn_tail.map(|tail| tail.offset), Some(offsets[2]));
    }
}
