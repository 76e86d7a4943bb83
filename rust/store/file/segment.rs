//! Segment files: `journal-<generation as 16 hex digits>.log`, each a
//! header followed by frames. A store has one live segment; compaction
//! writes the next generation beside it and then removes it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use super::access;
use super::frame::{self, FrameFormat};
use crate::store::marker::StoreId;

const MAGIC: &[u8; 8] = b"DJSTORE\0";
/// The format new segments are written in: 2, frames that carry their own
/// offset. Format 1 (frames without it) is still read; opening a store for
/// writing rewrites a format-1 segment as format 2.
pub const FORMAT_VERSION: u32 = 2;
const OLDEST_READABLE_VERSION: u32 = 1;
/// Magic, version, store id, generation, base position, snapshot records, crc.
pub const HEADER_LEN: usize = 8 + 4 + 16 + 8 + 8 + 8 + 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SegmentHeader {
    /// The format the segment's frames are written in.
    pub version: u32,
    pub store_id: StoreId,
    pub generation: u64,
    /// The store position (mutation records made before this segment) at
    /// which the segment starts; positions survive compaction this way.
    pub base_position: u64,
    /// How many leading records are the snapshot compaction wrote: they
    /// restate live entries and do not advance the position.
    pub snapshot_records: u64,
}

impl SegmentHeader {
    /// The header of a new segment, in the format written now.
    pub fn new(store_id: StoreId, generation: u64, base_position: u64, snapshot_records: u64) -> SegmentHeader {
        SegmentHeader { version: FORMAT_VERSION, store_id, generation, base_position, snapshot_records }
    }

    pub fn frame_format(&self) -> FrameFormat {
        if self.version == 1 {
            FrameFormat::Unplaced
        } else {
            FrameFormat::Placed
        }
    }

    pub fn encode(&self) -> [u8; HEADER_LEN] {
        let mut out = [0u8; HEADER_LEN];
        out[..8].copy_from_slice(MAGIC);
        out[8..12].copy_from_slice(&self.version.to_le_bytes());
        out[12..28].copy_from_slice(&self.store_id.0);
        out[28..36].copy_from_slice(&self.generation.to_le_bytes());
        out[36..44].copy_from_slice(&self.base_position.to_le_bytes());
        out[44..52].copy_from_slice(&self.snapshot_records.to_le_bytes());
        let crc = crc32fast::hash(&out[..52]);
        out[52..].copy_from_slice(&crc.to_le_bytes());
        out
    }

    pub fn decode(bytes: &[u8]) -> Result<SegmentHeader, String> {
        if bytes.len() < HEADER_LEN {
            return Err(format!("the {}-byte file is shorter than a segment header", bytes.len()));
        }
        if &bytes[..8] != MAGIC {
            return Err("not a durable-journal store segment (bad magic)".into());
        }
        let u64_at = |i: usize| u64::from_le_bytes(bytes[i..i + 8].try_into().expect("8 bytes"));
        let crc = u32::from_le_bytes(bytes[52..56].try_into().expect("4 bytes"));
        if crc32fast::hash(&bytes[..52]) != crc {
            return Err("segment header checksum mismatch".into());
        }
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4 bytes"));
        if !(OLDEST_READABLE_VERSION..=FORMAT_VERSION).contains(&version) {
            let readable = format!("{OLDEST_READABLE_VERSION} to {FORMAT_VERSION}");
            return Err(format!("unsupported store format version {version} (this library reads {readable})"));
        }
        Ok(SegmentHeader {
            version,
            store_id: StoreId(bytes[12..28].try_into().expect("16 bytes")),
            generation: u64_at(28),
            base_position: u64_at(36),
            snapshot_records: u64_at(44),
        })
    }
}

pub fn segment_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("journal-{generation:016x}.log"))
}

fn temp_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("journal-{generation:016x}.log.tmp"))
}

fn parse_generation(name: &str) -> Option<u64> {
    let hex = name.strip_prefix("journal-")?.strip_suffix(".log")?;
    if hex.len() != 16 {
        return None;
    }
    u64::from_str_radix(hex, 16).ok()
}

/// What the directory holds: segments by generation (ascending), and
/// leftovers of an interrupted compaction.
pub struct Listing {
    pub segments: Vec<(u64, PathBuf)>,
    pub temp_files: Vec<PathBuf>,
}

pub fn list(dir: &Path) -> io::Result<Listing> {
    let mut listing = Listing { segments: Vec::new(), temp_files: Vec::new() };
    for entry in fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(generation) = parse_generation(name) {
            listing.segments.push((generation, entry.path()));
        } else if name.starts_with("journal-") && name.ends_with(".log.tmp") {
            listing.temp_files.push(entry.path());
        }
    }
    listing.segments.sort();
    Ok(listing)
}

/// Makes renames and removals in `dir` durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Writes a complete segment under a temporary name, makes it durable and
/// renames it into place, so a segment is never seen half-written. `body`
/// writes the frames that follow the header. Returns the segment's path.
pub fn write_new(
    dir: &Path,
    header: &SegmentHeader,
    body: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<PathBuf> {
    let temp = temp_path(dir, header.generation);
    let result = (|| {
        let file = access::open_private(OpenOptions::new().write(true).create_new(true), &temp)?;
        let mut out = BufWriter::with_capacity(256 * 1024, file);
        out.write_all(&header.encode())?;
        body(&mut out)?;
        let file = out.into_inner().map_err(|e| e.into_error())?;
        crash_point!("file.segment.before_temp_fsync");
        file.sync_all()?;
        crash_point!("file.segment.before_rename");
        let path = segment_path(dir, header.generation);
        fs::rename(&temp, &path)?;
        crash_point!("file.segment.after_rename");
        sync_dir(dir)?;
        crash_point!("file.segment.after_dir_fsync");
        Ok(path)
    })();
    if result.is_err() {
        // Best effort: a leftover temp file is also removed on the next open.
        let _ = fs::remove_file(&temp);
    }
    result
}

/// Which file an open handle refers to: device and inode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileIdentity {
    dev: u64,
    ino: u64,
}

impl FileIdentity {
    fn of(metadata: &fs::Metadata) -> FileIdentity {
        FileIdentity { dev: metadata.dev(), ino: metadata.ino() }
    }
}

const BY_WHOM: &str = " (by another writer or a cleaner of the store directory)";

/// The live segment, open for appending.
pub struct ActiveSegment {
    pub path: PathBuf,
    pub header: SegmentHeader,
    file: File,
    /// The file `file` is, to check that `path` still names it.
    identity: FileIdentity,
    /// End of the last complete frame: where the next one goes, and where a
    /// failed write is cut back to.
    len: u64,
    /// Frames written since the last fsync.
    unsynced: usize,
}

impl ActiveSegment {
    /// Opens an existing segment whose valid content ends at `len`.
    pub fn open(path: PathBuf, header: SegmentHeader, len: u64) -> io::Result<ActiveSegment> {
        let file = OpenOptions::new().append(true).open(&path)?;
        let identity = FileIdentity::of(&file.metadata()?);
        Ok(ActiveSegment { path, header, file, identity, len, unsynced: 0 })
    }

    pub fn len(&self) -> u64 {
        self.len
    }

    pub fn unsynced(&self) -> usize {
        self.unsynced
    }

    /// Appends one record, framed with the offset it lands at, and returns
    /// the frame's length. On failure the file is cut back to where it was,
    /// so a short write never leaves a partial frame before later ones; if
    /// even that fails the error says so and the caller must stop writing.
    pub fn append(&mut self, payload: &[u8]) -> Result<u64, AppendError> {
        debug_assert_eq!(self.header.version, FORMAT_VERSION, "older segments are rewritten, never appended to");
        let frame = frame::encode(payload, self.len);
        crash_point!("file.append.before_write");
        crash_point!("file.append.torn_write", || {
            let _ = (&self.file).write_all(&frame[..frame.len() / 2]);
        });
        if let Err(write) = self.file.write_all(&frame) {
            return match self.file.set_len(self.len) {
                Ok(()) => Err(AppendError::RolledBack(write)),
                Err(cut) => Err(AppendError::Stuck { write, cut }),
            };
        }
        crash_point!("file.append.after_write");
        self.len += frame.len() as u64;
        self.unsynced += 1;
        Ok(frame.len() as u64)
    }

    /// Checks, with one `stat`, that the segment's path still names the
    /// open file. Records in a file that was removed, renamed or replaced
    /// are not what a reopen loads; the error says which happened.
    pub fn check_linked(&self) -> Result<(), String> {
        match fs::metadata(&self.path) {
            Ok(metadata) if FileIdentity::of(&metadata) == self.identity => Ok(()),
            Ok(_) => {
                Err(format!("the segment file was replaced by another file while this store had it open{BY_WHOM}"))
            }
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                Err(format!("the segment file was removed or renamed while this store had it open{BY_WHOM}"))
            }
            Err(err) => Err(format!("checking that the segment file is still in place failed: {err}")),
        }
    }

    pub fn sync(&mut self) -> io::Result<()> {
        if self.unsynced > 0 {
            crash_point!("file.sync.before_fsync");
            self.file.sync_data()?;
            crash_point!("file.sync.after_fsync");
            self.unsynced = 0;
        }
        Ok(())
    }

    #[cfg(test)]
    pub fn replace_file_for_test(&mut self, file: File) {
        self.file = file;
    }
}

pub enum AppendError {
    /// Nothing of the frame remains in the file.
    RolledBack(io::Error),
    /// Part of the frame may remain: the segment must not be appended to.
    Stuck { write: io::Error, cut: io::Error },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trips_and_detects_damage() {
        let header = SegmentHeader::new(StoreId::random(), 3, 99, 4);
        let bytes = header.encode();
        assert_eq!(SegmentHeader::decode(&bytes).unwrap(), header);
        let old = SegmentHeader { version: 1, ..header };
        assert_eq!(SegmentHeader::decode(&old.encode()).unwrap().frame_format(), FrameFormat::Unplaced);
        let future = SegmentHeader { version: FORMAT_VERSION + 1, ..header };
        assert!(SegmentHeader::decode(&future.encode()).unwrap_err().contains("unsupported store format version 3"));
        let mut damaged = bytes;
        damaged[30] ^= 1;
        assert!(SegmentHeader::decode(&damaged).unwrap_err().contains("checksum"));
        assert!(SegmentHeader::decode(&bytes[..10]).unwrap_err().contains("shorter"));
    }

    #[test]
    fn only_well_formed_segment_names_count() {
        assert_eq!(parse_generation("journal-000000000000000a.log"), Some(10));
        assert_eq!(parse_generation("journal-a.log"), None);
        assert_eq!(parse_generation("journal-000000000000000a.log.tmp"), None);
        assert_eq!(parse_generation("LOCK"), None);
    }
}
