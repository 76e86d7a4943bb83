//! The key of every record a log-backed store appends.
//!
//! `[format u8][lineage 16 B][key group u32][StateKey][ordinal u64]`
//! (integers little-endian, the StateKey in the store's canonical encoding).
//!
//! Kafka compacts a topic by record key, keeping the newest record of each.
//! An entry's delta records must all survive until the entry is pruned, so
//! each gets a key of its own: the entry's address plus its ordinal, the
//! number of records written for the entry before it. Pruning an entry
//! appends a tombstone (a null value) for each of those keys, which makes
//! every one of them deletable by compaction. The lineage and the key group
//! come first, at fixed offsets, so a reader skips records of other jobs and
//! of key groups it does not own without decoding them.

use crate::store::codec::{DecodeError, DecodeResult, Reader, Writer};
use crate::store::key::StateKey;

use super::layout::Lineage;

const FORMAT: u8 = 1;
/// Format, lineage and key group.
const PREFIX_LEN: usize = 1 + 16 + 4;

pub fn encode(lineage: &Lineage, key_group: u32, key: &StateKey, ordinal: u64) -> Vec<u8> {
    let mut w = Writer::new();
    w.u8(FORMAT);
    w.raw(&lineage.0);
    w.u32(key_group);
    key.write(&mut w);
    w.u64(ordinal);
    w.into_bytes()
}

/// The lineage and key group of a record key, read without decoding the rest.
pub fn prefix(bytes: &[u8]) -> DecodeResult<(Lineage, u32)> {
    if bytes.len() < PREFIX_LEN {
        return Err(DecodeError(format!("a record key of {} bytes is too short for this store's format", bytes.len())));
    }
    if bytes[0] != FORMAT {
        return Err(DecodeError(format!("unknown record key format {}", bytes[0])));
    }
    let lineage = Lineage(bytes[1..17].try_into().expect("16 bytes"));
    let key_group = u32::from_le_bytes(bytes[17..21].try_into().expect("4 bytes"));
    Ok((lineage, key_group))
}

/// The entry address and ordinal of a record key whose prefix was read.
pub fn entry(bytes: &[u8]) -> DecodeResult<(StateKey, u64)> {
    let mut r = Reader::new(&bytes[PREFIX_LEN.min(bytes.len())..]);
    let key = StateKey::read(&mut r)?;
    let ordinal = r.u64()?;
    r.finish("a record key")?;
    Ok((key, ordinal))
}

/// The StateKey's bytes inside a record key whose prefix was read: the
/// encoding its record's body repeats ([`crate::store::record::decode_change_at`]).
/// None for a key too short to hold one (its [`entry`] is an error).
pub fn state_key_bytes(bytes: &[u8]) -> Option<&[u8]> {
    bytes.get(PREFIX_LEN..bytes.len().checked_sub(8)?).filter(|key| !key.is_empty())
}

/// The entry address of the last record key read while loading. One
/// action's records come in a row, under keys that differ only in their
/// ordinal, so a loader decodes the address (three strings) once per run of
/// records instead of once per record.
#[derive(Default)]
pub struct LastEntry {
    bytes: Vec<u8>,
    key: Option<StateKey>,
}

impl LastEntry {
    /// [`entry`] of a record key whose prefix was read, the address
    /// borrowed: the last one again when its bytes are the same (the
    /// encoding is self-delimiting, so equal bytes are the equal address
    /// and the ordinal is the key's last 8 bytes), else decoded.
    pub fn entry(&mut self, bytes: &[u8]) -> DecodeResult<(&StateKey, u64)> {
        let key_bytes = state_key_bytes(bytes);
        let same = self.key.is_some() && key_bytes.is_some_and(|key_bytes| key_bytes == self.bytes.as_slice());
        if !same {
            self.key = None;
            let (key, ordinal) = entry(bytes)?;
            // A key that decodes holds its StateKey's bytes; an empty copy would match no later key.
            self.bytes.clear();
            self.bytes.extend_from_slice(key_bytes.unwrap_or_default());
            return Ok((self.key.insert(key), ordinal));
        }
        let mut ordinal = [0u8; 8];
        ordinal.copy_from_slice(&bytes[bytes.len() - 8..]);
        match &self.key {
            Some(key) => Ok((key, u64::from_le_bytes(ordinal))),
            None => Err(DecodeError("a record key without its entry".into())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::key::{BusinessKey, EventIdentity};

    #[test]
    fn a_record_key_round_trips_and_rejects_garbage() {
        let key = StateKey::new(BusinessKey::Str("u_1".into()), 4, "act", EventIdentity::Occurrence("occ:1".into()));
        let lineage = Lineage([7; 16]);
        let bytes = encode(&lineage, 99, &key, 12);
        assert_eq!(prefix(&bytes).unwrap(), (lineage, 99));
        assert_eq!(entry(&bytes).unwrap(), (key.clone(), 12));
        assert_eq!(state_key_bytes(&bytes), Some(crate::store::record::key_encoding(&key).as_slice()));
        assert_eq!(state_key_bytes(&bytes[..PREFIX_LEN + 3]), None);
        assert_eq!(state_key_bytes(&bytes[..PREFIX_LEN + 8]), None);

        let mut last = LastEntry::default();
        assert_eq!(last.entry(&bytes).unwrap(), (&key, 12));
        assert_eq!(last.entry(&encode(&lineage, 99, &key, 13)).unwrap(), (&key, 13), "the same address, the next ordinal");
        let other = StateKey::new(BusinessKey::Str("u_2".into()), 4, "act", EventIdentity::Occurrence("occ:1".into()));
        assert_eq!(last.entry(&encode(&lineage, 99, &other, 0)).unwrap(), (&other, 0), "another address is decoded");
        assert!(last.entry(&bytes[..bytes.len() - 1]).is_err(), "a cut key is refused, not taken for the last one");
        assert_eq!(last.entry(&bytes).unwrap(), (&key, 12));
        assert!(prefix(&bytes[..20]).is_err());
        let mut other_format = bytes.clone();
        other_format[0] = 2;
        assert!(prefix(&other_format).is_err());
        let mut trailing = bytes;
        trailing.push(0);
        assert!(entry(&trailing).is_err());
    }
}
