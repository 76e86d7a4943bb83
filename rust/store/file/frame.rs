//! Record framing: `[u32 length][u32 payload crc32][u32 header crc32][payload]`,
//! all little-endian.
//!
//! The header carries its own checksum so that a damaged length is detected
//! before it is trusted, and so that recovery can look for intact records
//! after a damaged one cheaply (one 8-byte checksum per candidate offset).
//! That search is what tells a torn final write, which is dropped, from
//! corruption in the middle of the log, which is an error.

use std::fs::File;
use std::io::{self, BufReader, Read, Seek, SeekFrom};

pub const FRAME_HEADER_LEN: usize = 12;

/// Frames the payload of one record.
pub fn encode(payload: &[u8]) -> Vec<u8> {
    assert!(!payload.is_empty(), "a record payload starts with its type tag");
    let len = u32::try_from(payload.len()).expect("a record is smaller than 4 GiB");
    let mut frame = Vec::with_capacity(FRAME_HEADER_LEN + payload.len());
    frame.extend_from_slice(&len.to_le_bytes());
    frame.extend_from_slice(&crc32fast::hash(payload).to_le_bytes());
    let header_crc = crc32fast::hash(&frame[..8]);
    frame.extend_from_slice(&header_crc.to_le_bytes());
    frame.extend_from_slice(payload);
    frame
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameHeader {
    pub len: u32,
    pub payload_crc: u32,
}

impl FrameHeader {
    /// `None` unless the header's own checksum holds and the length is not
    /// zero (every payload has at least its tag byte).
    pub fn parse(bytes: &[u8]) -> Option<FrameHeader> {
        let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        if bytes.len() < FRAME_HEADER_LEN || crc32fast::hash(&bytes[..8]) != word(8) || word(0) == 0 {
            return None;
        }
        Some(FrameHeader { len: word(0), payload_crc: word(4) })
    }

    pub fn frame_len(&self) -> u64 {
        FRAME_HEADER_LEN as u64 + u64::from(self.len)
    }
}

/// What the scanner found at its position.
pub enum Scanned {
    Frame {
        offset: u64,
        payload: Vec<u8>,
    },
    /// The position is exactly the end of the file.
    End,
    /// No intact frame starts here.
    Bad {
        offset: u64,
        reason: &'static str,
    },
}

/// Reads frames one after another from a segment file.
pub struct FrameScanner<'f> {
    reader: BufReader<&'f File>,
    pos: u64,
    file_len: u64,
}

impl<'f> FrameScanner<'f> {
    pub fn new(file: &'f File, start: u64, file_len: u64) -> io::Result<FrameScanner<'f>> {
        let mut reader = BufReader::with_capacity(256 * 1024, file);
        reader.seek(SeekFrom::Start(start))?;
        Ok(FrameScanner { reader, pos: start, file_len })
    }

    /// The next frame; after `Bad` the scanner must not be used again.
    pub fn next_frame(&mut self) -> io::Result<Scanned> {
        let offset = self.pos;
        let remaining = self.file_len - offset;
        if remaining == 0 {
            return Ok(Scanned::End);
        }
        if remaining < FRAME_HEADER_LEN as u64 {
            return Ok(Scanned::Bad { offset, reason: "incomplete frame header" });
        }
        let mut header = [0u8; FRAME_HEADER_LEN];
        self.reader.read_exact(&mut header)?;
        let Some(header) = FrameHeader::parse(&header) else {
            return Ok(Scanned::Bad { offset, reason: "frame header checksum mismatch" });
        };
        if header.frame_len() > remaining {
            return Ok(Scanned::Bad { offset, reason: "frame runs past the end of the file" });
        }
        let mut payload = vec![0u8; header.len as usize];
        self.reader.read_exact(&mut payload)?;
        if crc32fast::hash(&payload) != header.payload_crc {
            return Ok(Scanned::Bad { offset, reason: "record checksum mismatch" });
        }
        self.pos += header.frame_len();
        Ok(Scanned::Frame { offset, payload })
    }
}

/// The offset of the first intact frame that starts at or after `from`, if
/// any. Only offsets whose 8 header bytes match their checksum have their
/// payload read, so the search is linear in the bytes it passes.
pub fn find_intact_frame(mut file: &File, from: u64, file_len: u64) -> io::Result<Option<u64>> {
    const CHUNK: u64 = 64 * 1024;
    let overlap = FRAME_HEADER_LEN as u64 - 1;
    let mut start = from;
    let mut window = Vec::new();
    while start + FRAME_HEADER_LEN as u64 <= file_len {
        let want = (CHUNK + overlap).min(file_len - start);
        window.resize(want as usize, 0);
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(&mut window)?;
        let candidates = want - overlap;
        for i in 0..candidates as usize {
            let Some(header) = FrameHeader::parse(&window[i..i + FRAME_HEADER_LEN]) else { continue };
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
    file.seek(SeekFrom::Start(at + FRAME_HEADER_LEN as u64))?;
    file.read_exact(&mut payload)?;
    Ok(crc32fast::hash(&payload) == header.payload_crc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_checksum_catches_a_damaged_length() {
        let frame = encode(b"hello");
        assert_eq!(FrameHeader::parse(&frame).unwrap().len, 5);
        for bit in 0..32 {
            let mut damaged = frame.clone();
            damaged[bit / 8] ^= 1 << (bit % 8);
            assert_eq!(FrameHeader::parse(&damaged), None, "bit {bit}");
        }
    }

    #[test]
    fn zeroed_header_is_not_a_frame() {
        assert_eq!(FrameHeader::parse(&[0u8; FRAME_HEADER_LEN]), None);
    }
}
