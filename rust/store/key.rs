//! What a store entry is addressed by: (business key, sequence number, action
//! name, event identity), each part typed and length-prefixed (spec §4).
//!
//! Flink Agents joins `key.toString()`, the sequence number, the action name
//! and an attribute hash with `_`. That makes `Long 1` and `"1"` the same key,
//! breaks parsing for keys that contain `_`, and makes two events with equal
//! attributes the same entry. Here none of that can happen: the business key
//! keeps its type, every part carries its length, and event identity comes
//! from the occurrence id of the identity scheme when there is one.

use super::codec::{DecodeError, DecodeResult, Reader, Writer};
use crate::error::{Error, Result};

/// The Flink key of the input record, with its type.
///
/// Java maps `String`, `Long`, `Integer` and `byte[]` onto the first four;
/// any other key type is `Typed` with its class name and a deterministic
/// serialization of the value (e.g. Flink's `TypeSerializer` output).
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum BusinessKey {
    Str(String),
    Long(i64),
    Int(i32),
    Bytes(Vec<u8>),
    Typed { type_name: String, bytes: Vec<u8> },
}

pub(crate) const TAG_STR: u8 = 1;
pub(crate) const TAG_LONG: u8 = 2;
pub(crate) const TAG_INT: u8 = 3;
pub(crate) const TAG_BYTES: u8 = 4;
pub(crate) const TAG_TYPED: u8 = 5;

impl BusinessKey {
    pub(crate) fn write(&self, w: &mut Writer) {
        match self {
            BusinessKey::Str(s) => {
                w.u8(TAG_STR);
                w.str(s);
            }
            BusinessKey::Long(v) => {
                w.u8(TAG_LONG);
                w.i64(*v);
            }
            BusinessKey::Int(v) => {
                w.u8(TAG_INT);
                w.i32(*v);
            }
            BusinessKey::Bytes(b) => {
                w.u8(TAG_BYTES);
                w.bytes(b);
            }
            BusinessKey::Typed { type_name, bytes } => {
                w.u8(TAG_TYPED);
                w.str(type_name);
                w.bytes(bytes);
            }
        }
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> DecodeResult<BusinessKey> {
        Ok(match r.u8()? {
            TAG_STR => BusinessKey::Str(r.string()?),
            TAG_LONG => BusinessKey::Long(r.i64()?),
            TAG_INT => BusinessKey::Int(r.i32()?),
            TAG_BYTES => BusinessKey::Bytes(r.bytes()?.to_vec()),
            TAG_TYPED => BusinessKey::Typed { type_name: r.string()?, bytes: r.bytes()?.to_vec() },
            tag => return Err(DecodeError(format!("unknown business key type tag {tag}"))),
        })
    }

    /// The key for people, with its type: `str:user-1`, `long:42`, `int:7`,
    /// `bytes:<hex>`, or `<type name>:<hex of its serialization>`.
    pub fn describe(&self) -> String {
        let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
        match self {
            BusinessKey::Str(s) => format!("str:{s}"),
            BusinessKey::Long(v) => format!("long:{v}"),
            BusinessKey::Int(v) => format!("int:{v}"),
            BusinessKey::Bytes(b) => format!("bytes:{}", hex(b)),
            BusinessKey::Typed { type_name, bytes } => format!("{type_name}:{}", hex(bytes)),
        }
    }

    /// The canonical encoding: a type tag, then the value (integers as fixed
    /// little-endian, strings and bytes length-prefixed). Distinct keys
    /// always encode differently.
    pub fn encode(&self) -> Vec<u8> {
        encode_alone(|w| self.write(w))
    }

    pub fn decode(bytes: &[u8]) -> Result<BusinessKey> {
        decode_alone(bytes, "business key", BusinessKey::read)
    }
}

/// Which event triggered the action.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EventIdentity {
    /// The occurrence id the identity scheme gave the event (spec §3):
    /// distinct for equal-payload events. Preferred whenever it exists.
    Occurrence(String),
    /// A canonical digest of the event's attributes, computed by the caller,
    /// for events without an occurrence id. Equal attributes collide.
    Attributes(Vec<u8>),
}

pub(crate) const TAG_OCCURRENCE: u8 = 1;
pub(crate) const TAG_ATTRIBUTES: u8 = 2;

impl EventIdentity {
    /// The occurrence of an input event (spec §3 root occurrence), derived
    /// from the typed encoding of its business key, so `Long 1` and `"1"`
    /// give different ids here too.
    pub fn root_occurrence(business_key: &BusinessKey, input_sequence: i64) -> Result<EventIdentity> {
        let id = crate::identity::runtime::root_occurrence_id(&business_key.encode(), input_sequence)?;
        Ok(EventIdentity::Occurrence(id))
    }

    /// Whether this is the root occurrence of input `input_sequence` of
    /// `business_key` (what an operator files its input events under), so a
    /// reader that knows only the input need not derive it.
    pub fn is_root_occurrence_of(&self, business_key: &BusinessKey, input_sequence: i64) -> bool {
        match self {
            EventIdentity::Occurrence(_) => {
                input_sequence >= 0 && EventIdentity::root_occurrence(business_key, input_sequence).is_ok_and(|root| root == *self)
            }
            EventIdentity::Attributes(_) => false,
        }
    }

    pub(crate) fn write(&self, w: &mut Writer) {
        match self {
            EventIdentity::Occurrence(id) => {
                w.u8(TAG_OCCURRENCE);
                w.str(id);
            }
            EventIdentity::Attributes(digest) => {
                w.u8(TAG_ATTRIBUTES);
                w.bytes(digest);
            }
        }
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> DecodeResult<EventIdentity> {
        Ok(match r.u8()? {
            TAG_OCCURRENCE => EventIdentity::Occurrence(r.string()?),
            TAG_ATTRIBUTES => EventIdentity::Attributes(r.bytes()?.to_vec()),
            tag => return Err(DecodeError(format!("unknown event identity tag {tag}"))),
        })
    }
}

/// The address of one store entry: one action execution for one event of
/// one input record.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct StateKey {
    pub business_key: BusinessKey,
    /// The per-key input sequence number of the operator.
    pub seq: i64,
    pub action: String,
    pub event: EventIdentity,
}

impl StateKey {
    pub fn new(business_key: BusinessKey, seq: i64, action: impl Into<String>, event: EventIdentity) -> StateKey {
        StateKey { business_key, seq, action: action.into(), event }
    }

    pub(crate) fn write(&self, w: &mut Writer) {
        self.business_key.write(w);
        w.i64(self.seq);
        w.str(&self.action);
        self.event.write(w);
    }

    pub(crate) fn read(r: &mut Reader<'_>) -> DecodeResult<StateKey> {
        Ok(StateKey {
            business_key: BusinessKey::read(r)?,
            seq: r.i64()?,
            action: r.string()?,
            event: EventIdentity::read(r)?,
        })
    }

    /// The entry as a divergence report names it: the business key as
    /// typed text, the sequence number and the action.
    pub fn address(&self) -> crate::journal::EntryAddress {
        crate::journal::EntryAddress {
            key: self.business_key.describe(),
            sequence_number: self.seq,
            action: self.action.clone(),
        }
    }

    /// The canonical encoding of all four parts, each typed or length-prefixed.
    pub fn encode(&self) -> Vec<u8> {
        encode_alone(|w| self.write(w))
    }

    pub fn decode(bytes: &[u8]) -> Result<StateKey> {
        decode_alone(bytes, "state key", StateKey::read)
    }
}

/// The bytes `write` puts in a fresh writer: a key's encoding on its own.
fn encode_alone(write: impl FnOnce(&mut Writer)) -> Vec<u8> {
    let mut w = Writer::new();
    write(&mut w);
    w.into_bytes()
}

/// Reads one `what` that must fill `bytes` exactly; any failure is the caller's bad argument.
fn decode_alone<T>(bytes: &[u8], what: &str, read: impl FnOnce(&mut Reader<'_>) -> DecodeResult<T>) -> Result<T> {
    let mut r = Reader::new(bytes);
    let value = read(&mut r).and_then(|value| r.finish(&format!("a {what}")).map(|_| value));
    value.map_err(|e| Error::InvalidArgument(format!("not an encoded {what}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_type_round_trips() {
        let keys = [
            BusinessKey::Str("a_b_1".into()),
            BusinessKey::Str(String::new()),
            BusinessKey::Long(-1),
            BusinessKey::Int(i32::MIN),
            BusinessKey::Bytes(vec![0, 255]),
            BusinessKey::Typed { type_name: "org.example.Pojo".into(), bytes: vec![1, 2, 3] },
        ];
        for key in keys {
            assert_eq!(BusinessKey::decode(&key.encode()).unwrap(), key);
        }
    }

    #[test]
    fn root_occurrences_follow_the_typed_key() {
        let long = EventIdentity::root_occurrence(&BusinessKey::Long(1), 0).unwrap();
        let string = EventIdentity::root_occurrence(&BusinessKey::Str("1".into()), 0).unwrap();
        let next = EventIdentity::root_occurrence(&BusinessKey::Long(1), 1).unwrap();
        assert_ne!(long, string);
        assert_ne!(long, next);
        assert_eq!(long, EventIdentity::root_occurrence(&BusinessKey::Long(1), 0).unwrap());
        assert!(matches!(&long, EventIdentity::Occurrence(id) if id.starts_with("occ:")));
        assert!(EventIdentity::root_occurrence(&BusinessKey::Long(1), -1).is_err());
        assert!(long.is_root_occurrence_of(&BusinessKey::Long(1), 0));
        assert!(!long.is_root_occurrence_of(&BusinessKey::Str("1".into()), 0));
        assert!(!long.is_root_occurrence_of(&BusinessKey::Long(1), 1));
        assert!(!long.is_root_occurrence_of(&BusinessKey::Long(1), -1));
        assert!(!EventIdentity::Attributes(vec![1]).is_root_occurrence_of(&BusinessKey::Long(1), 0));
    }

    #[test]
    fn decode_rejects_trailing_bytes_and_unknown_tags() {
        let mut bytes = BusinessKey::Long(1).encode();
        bytes.push(0);
        assert!(BusinessKey::decode(&bytes).is_err());
        assert!(BusinessKey::decode(&[9]).is_err());
    }
}
