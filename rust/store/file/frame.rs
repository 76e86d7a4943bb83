//! Record framing, all little-endian. Format 2 (written now):
//! `[u32 length][u32 payload crc32][u64 offset][u32 header crc32][payload]`;
//! format 1 (read only): the same without the offset.
//!
//! The header carries its own checksum so that a damaged length is detected
//! before it is trusted, and so that recovery can look for intact records
//! after a damaged one cheaply (one checksum of the header per candidate
//! offset). That search is what tells a torn final write, which is dropped,
//! from corruption in the middle of the log, which is an error.
//!
//! The offset is where the frame was written in its segment. A frame found
//! anywhere else (a write repeated or misdirected by a buggy disk, driver or
//! tool, or bytes copied in by hand) is intact but out of place, which the
//! checksums alone cannot see: replaying it would silently reset its entry.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};

/// How frames are laid out, given by the segment header's format version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameFormat {
    /// Format 1: no offset; a copied frame cannot be told from the original.
    Unplaced,
    /// Format 2: every frame names its own offset.
    Placed,
}

impl FrameFormat {
    pub fn header_len(self) -> usize {
        match self {
            FrameFormat::Unplaced => 12,
            FrameFormat::Placed => 20,
        }
    }
}

/// The longest frame header of any format.
const MAX_HEADER_LEN: usize = 20;

/// The length of the frame [`encode`] makes of a payload of `payload_len`.
pub fn encoded_len(payload_len: usize) -> u64 {
    (FrameFormat::Placed.header_len() + payload_len) as u64
}

/// Frames the payload of one record that will start at `offset` of its
/// segment, in the format written now.
pub fn encode(payload: &[u8], offset: u64) -> Vec<u8> {
    assert!(!payload.is_empty(), "a record payload starts with its type tag");
    // Never more: the store limits (at most 1 GiB, `store::limits`) refuse
    // larger records before they get here.
    let len = u32::try_from(payload.len()).expect("a record is smaller than 4 GiB");
    let header_len = FrameFormat::Placed.header_len();
    let mut frame = Vec::with_capacity(header_len + payload.len());
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    frame.extend_from_slice(&offset.to_le_bytes());
    let header_crc = crc32fast::hash(&frame);
    frame.extend_from_slice(&header_crc.to_le_bytes());
    frame.extend_from_slice(payload);
    frame
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    pub header_len: u8,
    pub len: u32,
    pub payload_crc: u32,
    /// Where the frame was written; `None` in format 1.
    pub written_at: Option<u64>,
}

impl FrameHeader {
    /// `None` unless the header's own checksum holds and the length is not
    /// zero (every payload has at least its tag byte).
    pub fn parse(bytes: &[u8], format: FrameFormat) -> Option<FrameHeader> {
        let header_len = format.header_len();
        if bytes.len() < header_len {
            return None;
        }
        let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let checked = header_len - 4;
        if crc32fast::hash(&bytes[..checked]) != word(checked) || word(0) == 0 {
            return None;
        }
        let written_at = match format {
            FrameFormat::Unplaced => None,
            FrameFormat::Placed => Some(u64::from_le_bytes(bytes[8..16].try_into().expect("8 bytes"))),
        };
        Some(FrameHeader { header_len: header_len as u8, len: word(0), payload_crc: word(4), written_at })
    }

    pub fn frame_len(&self) -> u64 {
        u64::from(self.header_len) + u64::from(self.len)
    }

    /// Where the frame was written, if that is not `at`, where it lies.
    pub fn written_elsewhere(&self, at: u64) -> Option<u64> {
        self.written_at.filter(|&written_at| written_at != at)
    }
}

/// What the scanner found at its position.
pub enum Scanned<'s> {
    /// An intact frame; its payload is the scanner's buffer, valid until the
    /// next call (one buffer for every frame: reopening a store reads
    /// thousands of small records, and a buffer each was a quarter of its
    /// allocations).
    Frame {
        offset: u64,
        payload: &'s [u8],
    },
    /// The position is exactly the end of the file.
    End,
    /// No intact frame starts here.
    Bad {
        offset: u64,
        reason: &'static str,
    },
    /// An intact frame starts here, but it was written at `written_at`: a
    /// repeated or misdirected write. Never a torn tail, since a torn write
    /// does not leave a complete frame with valid checksums.
    Misplaced {
        offset: u64,
        written_at: u64,
    },
}

/// Reads frames one after another from a segment file.
pub struct FrameScanner<'f> {
    reader: BufReader<&'f File>,
    /// The last frame's payload.
    payload: Vec<u8>,
    format: FrameFormat,
    pos: u64,
    file_len: u64,
}

impl<'f> FrameScanner<'f> {
    pub fn new(file: &'f File, format: FrameFormat, start: u64, file_len: u64) -> io::Result<FrameScanner<'f>> {
        let mut reader = BufReader::with_capacity(256 * 1024, file);
        reader.seek(SeekFrom::Start(start))?;
        Ok(FrameScanner { reader, payload: Vec::new(), format, pos: start, file_len })
    }

    /// The next frame; after `Bad` or `Misplaced` the scanner must not be
    /// used again.
    pub fn next_frame(&mut self) -> io::Result<Scanned<'_>> {
        let offset = self.pos;
        let remaining = self.file_len - offset;
        let header_len = self.format.header_len();
        if remaining == 0 {
            return Ok(Scanned::End);
        }
        if remaining < header_len as u64 {
            return Ok(Scanned::Bad { offset, reason: "incomplete frame header" });
        }
        let mut header = [0u8; MAX_HEADER_LEN];
        self.reader.read_exact(&mut header[..header_len])?;
        let Some(header) = FrameHeader::parse(&header[..header_len], self.format) else {
            return Ok(Scanned::Bad { offset, reason: "frame header checksum mismatch" });
        };
        if header.frame_len() > remaining {
            return Ok(Scanned::Bad { offset, reason: "frame runs past the end of the file" });
        }
        self.payload.resize(header.len as usize, 0);
        self.reader.read_exact(&mut self.payload)?;
        if crc32fast::hash(&self.payload) != header.payload_crc {
            return Ok(Scanned::Bad { offset, reason: "record checksum mismatch" });
        }
        if let Some(written_at) = header.written_elsewhere(offset) {
            return Ok(Scanned::Misplaced { offset, written_at });
        }
        self.pos += header.frame_len();
        Ok(Scanned::Frame { offset, payload: &self.payload })
    }
}

/// The offset of the first intact frame (both checksums hold, wherever it
/// says it was written) that starts at or after `from`, if any. Only offsets
/// whose header matches its checksum have their payload read, so the search
/// is linear in the bytes it passes.
pub fn find_intact_frame(mut file: &File, format: FrameFormat, from: u64, file_len: u64) -> io::Result<Option<u64>> {
    const CHUNK: u64 = 64 * 1024;
    let header_len = format.header_len() as u64;
    let overlap = header_len - 1;
    let mut start = from;
    let mut window = Vec::new();
    while start + header_len <= file_len {
        let want = (CHUNK + overlap).min(file_len - start);
        window.resize(want as usize, 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut window)?;
        let candidates = want - overlap;
        for i in 0..candidates as usize {
            let Some(header) = FrameHeader::parse(&window[i..i + header_len as usize], format) else { continue };
            let at = start + i as u64;
            if at + header.frame_len() <= file_len && payload_intact(file, at, header)? {
                return Ok(Some(at));
            }
        }
        start += candidates;
    }
    Ok(None)
}

fn payload_intact(mut file: &File, at: u64, header: FrameHeader) -> io::Result<bool> {
    let mut payload = vec![0u8; header.len as usize];
    file.seek(SeekFrom::Start(at + u64::from(header.header_len)))?;
    file.read_exact(&mut payload)?;
    Ok(crc32fast::hash(&payload) == header.payload_crc)
}

/// Frames in format 1, for tests (and fuzz inputs) that write old segments.
#[cfg(any(test, feature = "fuzzing"))]
pub fn encode_unplaced(payload: &[u8]) -> Vec<u8> {
    let mut frame = Vec::new();
    frame.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    frame.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    let header_crc = crc32fast::hash(&frame);
    frame.extend_from_slice(&header_crc.to_le_bytes());
    frame.extend_from_slice(payload);
    frame
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_checksum_catches_any_damaged_header_bit() {
        let frames = [(encode(b"hello", 56), FrameFormat::Placed), (encode_unplaced(b"hello"), FrameFormat::Unplaced)];
        for (frame, format) in frames {
            let header = FrameHeader::parse(&frame, format).unwrap();
            assert_eq!((header.len, header.frame_len()), (5, 5 + format.header_len() as u64));
            for bit in 0..(format.header_len() - 4) * 8 {
                let mut damaged = frame.clone();
                damaged[bit / 8] ^= 1 << (bit % 8);
                assert_eq!(FrameHeader::parse(&damaged, format), None, "bit {bit} of {format:?}");
            }
        }
    }

    #[test]
    fn a_placed_frame_knows_where_it_belongs() {
        let header = FrameHeader::parse(&encode(b"x", 1 << 40), FrameFormat::Placed).unwrap();
        assert_eq!(header.written_at, Some(1 << 40));
        assert_eq!(header.written_elsewhere(1 << 40), None);
        assert_eq!(header.written_elsewhere(56), Some(1 << 40));
        let old = FrameHeader::parse(&encode_unplaced(b"x"), FrameFormat::Unplaced).unwrap();
        assert_eq!(old.written_elsewhere(56), None, "format 1 frames carry no offset to compare");
    }

    #[test]
    fn zeroed_header_is_not_a_frame() {
        assert_eq!(FrameHeader::parse(&[0u8; MAX_HEADER_LEN], FrameFormat::Placed), None);
        assert_eq!(FrameHeader::parse(&[0u8; MAX_HEADER_LEN], FrameFormat::Unplaced), None);
    }
}
