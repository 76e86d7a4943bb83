//! Opening a segment: replay every record into a fresh table, drop a torn
//! final record, and refuse anything else that is damaged. The replay
//! itself changes nothing, so inspection reads a segment the same way.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::frame::{find_intact_frame, FrameScanner, Scanned};
use crate::store::record::{self, Record};
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
    let mut last_key = None;
    let mut scanner = FrameScanner::new(file, format, HEADER_LEN as u64, file_len).map_err(io_error(path))?;
    loop {
        match scanner.next_frame().map_err(io_error(path))? {
            Scanned::End => break,
            Scanned::Frame { offset, payload } => {
                let frame_len = (format.header_len() + payload.len()) as u64;
                replay(&mut table, &payload, frame_len, records < header.snapshot_records, &mut last_key)
                    .map_err(|reason| corrupt(path, offset, reason))?;
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
                let tail = torn_tail_at(file, path, &header, records, offset, file_len, reason)?;
                len = tail.offset;
                torn_tail = Some(tail);
                break;
            }
        }
    }
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

/// The key of the last record that had one, with its encoding: an action's
/// records mostly follow each other, and their key is decoded once.
struct LastKey {
    key: StateKey,
    encoding: Vec<u8>,
}

fn replay(
    table: &mut StateTable,
    payload: &[u8],
    frame_len: u64,
    in_snapshot: bool,
    last_key: &mut Option<LastKey>,
) -> std::result::Result<(), String> {
    if let (Some(last), false) = (last_key.as_ref(), in_snapshot) {
        if let Some(change) = record::decode_change_at(payload, &last.encoding).map_err(|e| format!("undecodable record: {e}"))? {
            return table.apply_decoded(&last.key, change, frame_len).map_err(|e| format!("record does not apply: {e}"));
        }
    }
    let record = record::decode(payload).map_err(|e| format!("undecodable record: {e}"))?;
    if in_snapshot && !matches!(record, Record::Put { .. }) {
        return Err("the compaction snapshot holds a record that is not a whole state".into());
    }
    match record {
        Record::Put { key, state } => {
            table.put(&key, state, frame_len);
            *last_key = Some(LastKey { encoding: record::key_encoding(&key), key });
        }
        Record::Change { key, change } => {
            table.apply_decoded(&key, change, frame_len).map_err(|e| format!("record does not apply: {e}"))?;
            *last_key = Some(LastKey { encoding: record::key_encoding(&key), key });
        }
        Record::Extend { key, extension } => {
            table.extend(&key, &extension, frame_len).map_err(|e| format!("record does not apply: {e}"))?
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
