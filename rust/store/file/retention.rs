//! Opt-in retention of completed actions (`docs/replay.md`): a copy of each
//! action as it completed (triggering event, every call with its outcome,
//! memory updates, output events, key, sequence number, action name, and
//! the agent plan's digest when the caller names one) kept after the
//! checkpoint prune drops the live entry, for a replayer to run a changed
//! agent against.
//!
//! The copies live in a file of their own, `retained.log`, beside the
//! segments: the live segment is byte for byte what it is without
//! retention, recovery and pruning of live entries never read this file,
//! and damage to it is set aside instead of failing the store's open.
//!
//! Layout: a 16-byte header (`DJRETAIN`, u32 format 1, u32 crc32 of the
//! first 12 bytes), then frames as the segments frame them (`frame.rs`:
//! checksummed, each naming its offset). A frame holds a *retained* record
//! (number, completion time in Unix milliseconds, plan digest, key, state)
//! or a *floor*: every retained record numbered below it is dropped. The
//! bounds (age, count) drop the oldest records, so a floor is enough; the
//! file is rewritten with only the kept records once the dropped bytes are
//! at least the kept ones (and [`REWRITE_MIN_BYTES`]).
//!
//! Durability: retained copies are written to the OS when the action
//! completes and fsynced with the store's own syncs (markers, close). A
//! copy lost to a machine crash costs a replay input, never a live journal.

use std::collections::{HashMap, VecDeque};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::frame::{self, find_intact_frame, FrameFormat, FrameScanner, Scanned};
use super::segment::sync_dir;
use crate::error::{Error, Result};
use crate::model::ActionState;
use crate::store::key::StateKey;

mod json;
mod record;
pub use json::{in_flight_to_json, retained_to_json};
pub(crate) use record::{decode_retained, encode_retained};
use record::{encode_floor, header, read_head, Head, HEADER_LEN};

/// The file retained actions are kept in, in the store directory.
pub const RETAINED_FILE: &str = "retained.log";
const TEMP_FILE: &str = "retained.log.tmp";
/// Dropped bytes below this never cause a rewrite of the file.
pub const REWRITE_MIN_BYTES: u64 = 1 << 20;

/// How many completed actions a store keeps, and for how long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetentionPolicy {
    /// A retained action older than this (by its completion time) is dropped.
    pub max_age: Duration,
    /// At most this many are kept; the oldest go first. At least 1.
    pub max_count: u64,
}

impl RetentionPolicy {
    pub fn check(&self) -> Result<()> {
        if self.max_count == 0 || self.max_age.is_zero() {
            return Err(Error::InvalidArgument(format!(
                "retention needs a positive age and count, not {} ms and {}",
                self.max_age.as_millis(),
                self.max_count
            )));
        }
        Ok(())
    }
}

/// One completed action as the store kept it.
#[derive(Clone, Debug, PartialEq)]
pub struct RetainedAction {
    /// Order of completion in this store (larger: later).
    pub number: u64,
    pub completed_at_millis: i64,
    /// What the caller named the agent plan that ran it, if anything.
    pub plan_digest: Option<String>,
    pub key: StateKey,
    /// Completed, with the journal it completed with (`callResults` kept).
    pub state: ActionState,
}

/// The retained actions of the store in `dir`, oldest first, read without
/// the lock and without changing any file (a running job may be writing).
/// No retention file: none. A record completed twice (re-run after a crash
/// lost the first completion) is listed once, as last completed. A torn
/// final record is skipped; damage before it is `StoreCorrupt`.
pub fn read_retained(dir: &Path) -> Result<Vec<RetainedAction>> {
    // A mistyped directory is an error, not "nothing retained".
    if !dir.is_dir() {
        let source = io::Error::new(io::ErrorKind::NotFound, "no store directory here");
        return Err(Error::StoreIo { path: dir.to_path_buf(), source });
    }
    let path = dir.join(RETAINED_FILE);
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(Error::StoreIo { path, source: err }),
    };
    let scan = scan(&file, &path)?;
    if let Some(damage) = scan.damage {
        return Err(damage);
    }
    let mut latest: HashMap<StateKey, usize> = HashMap::new();
    let mut actions: Vec<Option<RetainedAction>> = Vec::new();
    for found in scan.frames.into_iter().filter(|f| f.number >= scan.floor) {
        let action = decode_retained(&found.payload).map_err(|e| corrupt(&path, found.offset, e.0))?;
        if let Some(earlier) = latest.insert(action.key.clone(), actions.len()) {
            actions[earlier] = None;
        }
        actions.push(Some(action));
    }
    Ok(actions.into_iter().flatten().collect())
}

/// The action as it completes with `state` over `stored` (the entry before
/// this write), with its journal: `None` unless this write is the one that
/// completes it. A completed record may carry no `callResults` (spec §1.2),
/// so the stored entry's calls are taken then. Both stores retain this.
pub(crate) fn completed_copy(stored: Option<&ActionState>, state: &ActionState) -> Option<ActionState> {
    if !state.completed || stored.is_some_and(|s| s.completed) {
        return None;
    }
    let mut completed = state.clone();
    if completed.call_results.is_empty() {
        completed.call_results = stored.map(|s| s.call_results.clone()).unwrap_or_default();
    }
    Some(completed)
}

/// Where a kept record lies in the file.
#[derive(Clone, Copy, Debug)]
struct Kept {
    number: u64,
    completed_at_millis: i64,
    offset: u64,
    frame_len: u64,
}

/// The writer's side: appends copies and enforces the bounds.
pub(super) struct Retainer {
    dir: PathBuf,
    path: PathBuf,
    file: File,
    len: u64,
    policy: RetentionPolicy,
    kept: VecDeque<Kept>,
    kept_bytes: u64,
    dropped_bytes: u64,
    next_number: u64,
    last_millis: i64,
    unsynced: bool,
    clock: fn() -> i64,
    rewrite_min_bytes: u64,
}

pub(crate) fn now_millis() -> i64 {
    let since = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_millis()).unwrap_or(i64::MAX)
}

impl Retainer {
    /// Opens (or creates) the retention file of `dir`. A torn final record
    /// is cut off; a damaged file is renamed aside (its path returned) and
    /// a new one started, so that it never stops the store from opening.
    pub fn open(dir: &Path, policy: RetentionPolicy, clock: fn() -> i64) -> Result<(Retainer, Option<PathBuf>)> {
        policy.check()?;
        let path = dir.join(RETAINED_FILE);
        let _ = fs::remove_file(dir.join(TEMP_FILE));
        let mut set_aside = None;
        if path.exists() {
            let file = OpenOptions::new().read(true).write(true).open(&path).map_err(io_error(&path))?;
            let scan = scan(&file, &path)?;
            if scan.damage.is_none() {
                if scan.intact_len < file.metadata().map_err(io_error(&path))?.len() {
                    file.set_len(scan.intact_len).map_err(io_error(&path))?;
                }
                let mut retainer = Retainer::over(dir, path, file, scan.intact_len, policy, clock);
                retainer.next_number = scan.floor;
                for found in scan.frames {
                    retainer.next_number = retainer.next_number.max(found.number + 1);
                    if found.number >= scan.floor {
                        retainer.kept_bytes += found.frame_len;
                        retainer.kept.push_back(found.kept());
                    } else {
                        retainer.dropped_bytes += found.frame_len;
                    }
                }
                retainer.dropped_bytes += scan.floor_bytes;
                return Ok((retainer, None));
            }
            let aside = dir.join(format!("{RETAINED_FILE}.damaged-{}", now_millis()));
            fs::rename(&path, &aside).map_err(io_error(&path))?;
            set_aside = Some(aside);
        }
        let file = write_new(dir, &path, |_| Ok(0)).map_err(io_error(&path))?;
        Ok((Retainer::over(dir, path, file, HEADER_LEN, policy, clock), set_aside))
    }

    fn over(dir: &Path, path: PathBuf, file: File, len: u64, policy: RetentionPolicy, clock: fn() -> i64) -> Retainer {
        Retainer {
            dir: dir.to_path_buf(),
            path,
            file,
            len,
            policy,
            kept: VecDeque::new(),
            kept_bytes: 0,
            dropped_bytes: 0,
            next_number: 0,
            last_millis: i64::MIN,
            unsynced: false,
            clock,
            rewrite_min_bytes: REWRITE_MIN_BYTES,
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub fn kept(&self) -> usize {
        self.kept.len()
    }

    #[cfg(test)]
    pub fn set_rewrite_min_bytes(&mut self, bytes: u64) {
        self.rewrite_min_bytes = bytes;
    }

    #[cfg(test)]
    pub fn set_clock(&mut self, clock: fn() -> i64) {
        self.clock = clock;
    }

    /// Keeps a copy of `state`, which just completed at `key`, then drops
    /// what the bounds no longer allow.
    pub fn retain(&mut self, key: &StateKey, state: &ActionState, plan_digest: Option<&str>) -> io::Result<()> {
        // Completion times never go backwards, so the oldest record is always first.
        let millis = (self.clock)().max(self.last_millis);
        let number = self.next_number;
        let payload = encode_retained(number, millis, plan_digest, key, state);
        let (offset, frame_len) = self.append(&payload)?;
        self.next_number += 1;
        self.last_millis = millis;
        self.kept.push_back(Kept { number, completed_at_millis: millis, offset, frame_len });
        self.kept_bytes += frame_len;
        self.expire()
    }

    /// Drops the records over the count or past the age, with one floor record.
    pub fn expire(&mut self) -> io::Result<()> {
        let oldest_allowed = (self.clock)().saturating_sub(i64::try_from(self.policy.max_age.as_millis()).unwrap_or(i64::MAX));
        let mut dropped = 0u64;
        while let Some(front) = self.kept.front() {
            if (self.kept.len() as u64) <= self.policy.max_count && front.completed_at_millis >= oldest_allowed {
                break;
            }
            dropped += front.frame_len;
            self.kept.pop_front();
        }
        if dropped == 0 {
            return Ok(());
        }
        let floor = self.kept.front().map_or(self.next_number, |k| k.number);
        let (_, floor_len) = self.append(&encode_floor(floor))?;
        self.kept_bytes -= dropped;
        self.dropped_bytes += dropped + floor_len;
        if self.dropped_bytes >= self.rewrite_min_bytes.max(self.kept_bytes) {
            self.rewrite()?;
        }
        Ok(())
    }

    pub fn sync(&mut self) -> io::Result<()> {
        if self.unsynced {
            self.file.sync_data()?;
            self.unsynced = false;
        }
        Ok(())
    }

    fn append(&mut self, payload: &[u8]) -> io::Result<(u64, u64)> {
        let offset = self.len;
        let framed = frame::encode(payload, offset);
        if let Err(err) = self.file.write_all_at(&framed, offset) {
            let _ = self.file.set_len(offset);
            return Err(err);
        }
        self.len += framed.len() as u64;
        self.unsynced = true;
        Ok((offset, framed.len() as u64))
    }

    /// Writes the kept records into a new file that replaces this one.
    fn rewrite(&mut self) -> io::Result<()> {
        let old = &self.file;
        let kept: Vec<Kept> = self.kept.iter().copied().collect();
        let floor = kept.first().map_or(self.next_number, |k| k.number);
        let mut moved = Vec::with_capacity(kept.len());
        let file = write_new(&self.dir, &self.path, |out| {
            let mut len = HEADER_LEN;
            let floor_frame = frame::encode(&encode_floor(floor), len);
            out.write_all(&floor_frame)?;
            len += floor_frame.len() as u64;
            for record in &kept {
                let mut framed = vec![0u8; record.frame_len as usize];
                old.read_exact_at(&mut framed, record.offset)?;
                let payload = &framed[FrameFormat::Placed.header_len()..];
                let reframed = frame::encode(payload, len);
                out.write_all(&reframed)?;
                moved.push(Kept { offset: len, ..*record });
                len += reframed.len() as u64;
            }
            Ok(len - HEADER_LEN)
        })?;
        self.len = file.metadata()?.len();
        self.file = file;
        self.kept = moved.into();
        self.dropped_bytes = 0;
        self.unsynced = false;
        Ok(())
    }
}

/// Writes a whole retention file under a temporary name, fsyncs it and
/// renames it to `path`; returns it open for reading and writing.
fn write_new(dir: &Path, path: &Path, body: impl FnOnce(&mut io::BufWriter<&File>) -> io::Result<u64>) -> io::Result<File> {
    let temp = dir.join(TEMP_FILE);
    let result = (|| {
        // Retained copies hold what the journal holds: private like the segments.
        let file = super::access::open_private(OpenOptions::new().read(true).write(true).create(true).truncate(true), &temp)?;
        {
            let mut out = io::BufWriter::new(&file);
            out.write_all(&header())?;
            body(&mut out)?;
            out.flush()?;
        }
        file.sync_all()?;
        fs::rename(&temp, path)?;
        sync_dir(dir)?;
        Ok(file)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// A retained record as a scan found it: where, and its number and time
/// (the rest is decoded only by readers that want it).
struct Found {
    offset: u64,
    frame_len: u64,
    number: u64,
    completed_at_millis: i64,
    payload: Vec<u8>,
}

impl Found {
    fn kept(&self) -> Kept {
        Kept { number: self.number, completed_at_millis: self.completed_at_millis, offset: self.offset, frame_len: self.frame_len }
    }
}

struct Scan {
    frames: Vec<Found>,
    floor: u64,
    /// Bytes of floor records (all superseded but the last, which is tiny).
    floor_bytes: u64,
    /// Where the intact records end: a torn tail after it is not counted.
    intact_len: u64,
    /// Damage before the end (or a bad header): what readers report.
    damage: Option<Error>,
}

fn scan(file: &File, path: &Path) -> Result<Scan> {
    let file_len = file.metadata().map_err(io_error(path))?.len();
    let mut scan = Scan { frames: Vec::new(), floor: 0, floor_bytes: 0, intact_len: HEADER_LEN, damage: None };
    let mut head = [0u8; HEADER_LEN as usize];
    if file_len < HEADER_LEN || file.read_exact_at(&mut head, 0).is_err() || head != header() {
        scan.damage = Some(corrupt(path, 0, "not a retention file of format 1 (bad header)"));
        return Ok(scan);
    }
    let mut scanner = FrameScanner::new(file, FrameFormat::Placed, HEADER_LEN, file_len).map_err(io_error(path))?;
    loop {
        match scanner.next_frame().map_err(io_error(path))? {
            Scanned::End => break,
            Scanned::Frame { offset, payload } => {
                let frame_len = frame::encoded_len(payload.len());
                scan.intact_len = offset + frame_len;
                match read_head(payload) {
                    Ok(Head::Retained { number, completed_at_millis }) => {
                        scan.frames.push(Found { offset, frame_len, number, completed_at_millis, payload: payload.to_vec() })
                    }
                    Ok(Head::Floor(floor)) => {
                        scan.floor = scan.floor.max(floor);
                        scan.floor_bytes += frame_len;
                    }
                    Err(err) => {
                        scan.damage = Some(corrupt(path, offset, err.0));
                        break;
                    }
                }
            }
            Scanned::Bad { offset, reason } => {
                // A torn final write leaves no intact frame after it.
                if find_intact_frame(file, FrameFormat::Placed, offset + 1, file_len).map_err(io_error(path))?.is_some() {
                    scan.damage = Some(corrupt(path, offset, reason));
                }
                break;
            }
            Scanned::Misplaced { offset, written_at } => {
                scan.damage = Some(corrupt(path, offset, format!("a record written at offset {written_at}")));
                break;
            }
        }
    }
    Ok(scan)
}

fn io_error(path: &Path) -> impl Fn(io::Error) -> Error + '_ {
    move |source| Error::StoreIo { path: path.to_path_buf(), source }
}

fn corrupt(path: &Path, offset: u64, reason: impl Into<String>) -> Error {
    Error::StoreCorrupt { path: path.to_path_buf(), offset, reason: reason.into() }
}

#[cfg(test)]
mod tests;
