//! The delta records both persistent stores write (the file store in its
//! segments, the log store as record values). Each journal mutation is one
//! small record, and so is a whole-state put that extends the stored entry;
//! only `Put` carries a whole ActionState.

use std::borrow::Cow;

use crate::journal::JournalChange;
use crate::model::{ActionState, CallResult};
use crate::store::codec::{
    read_action_state, read_call_result, read_call_results, read_body_list, write_action_state, write_call_result,
    write_call_results, write_body_list, DecodeError, DecodeResult, Reader, Writer,
};
use crate::store::diff::{StateDelta, StateExtension};
use crate::store::key::{BusinessKey, StateKey};

const TAG_PUT: u8 = 1;
/// A pending slot or a recorded outcome put at an index (`JournalChange::Put`).
const TAG_SLOT: u8 = 2;
const TAG_FINALIZE: u8 = 3;
const TAG_BATCH: u8 = 4;
const TAG_TRUNCATE: u8 = 5;
const TAG_COMPLETE: u8 = 6;
const TAG_DISCARD: u8 = 7;
const TAG_PRUNE: u8 = 8;
/// A whole-state put that extends the stored entry ([`StateExtension`]).
const TAG_EXTEND: u8 = 9;

/// A decoded record.
#[derive(Debug, PartialEq)]
pub enum Record {
    /// A whole state at a key (also what compaction writes).
    Put { key: StateKey, state: ActionState },
    /// One journal mutation of the entry at a key.
    Change { key: StateKey, change: OwnedChange },
    /// A whole-state put that grew the entry at a key.
    Extend { key: StateKey, extension: StateExtension<'static> },
    /// Entries of a business key above a sequence number were dropped by a
    /// `get` that missed.
    Discard { business_key: BusinessKey, after_seq: i64 },
    /// Entries of a business key up to a sequence number were pruned.
    Prune { business_key: BusinessKey, seq_up_to: i64 },
}

/// [`JournalChange`] with owned slots, as read back from the log.
#[derive(Clone, Debug, PartialEq)]
pub enum OwnedChange {
    Put { index: usize, slot: CallResult },
    Replace { index: usize, slot: CallResult },
    PutBatch { from: usize, slots: Vec<CallResult> },
    Truncate { from: usize },
    Complete,
}

impl OwnedChange {
    /// A copy of `change` that owns its slots.
    pub fn copied(change: JournalChange<'_>) -> OwnedChange {
        match change {
            JournalChange::Put { index, slot } => OwnedChange::Put { index, slot: slot.clone() },
            JournalChange::Replace { index, slot } => OwnedChange::Replace { index, slot: slot.clone() },
            JournalChange::PutBatch { from, slots } => OwnedChange::PutBatch { from, slots: slots.to_vec() },
            JournalChange::Truncate { from } => OwnedChange::Truncate { from },
            JournalChange::Complete => OwnedChange::Complete,
        }
    }

    pub fn as_change(&self) -> JournalChange<'_> {
        match self {
            OwnedChange::Put { index, slot } => JournalChange::Put { index: *index, slot },
            OwnedChange::Replace { index, slot } => JournalChange::Replace { index: *index, slot },
            OwnedChange::PutBatch { from, slots } => JournalChange::PutBatch { from: *from, slots },
            OwnedChange::Truncate { from } => JournalChange::Truncate { from: *from },
            OwnedChange::Complete => JournalChange::Complete,
        }
    }
}

/// The record a put of `state` at `key` writes, given the delta from the
/// stored entry; `None` when the entry already holds it.
pub fn encode_delta(key: &StateKey, state: &ActionState, delta: &StateDelta<'_>) -> Option<Vec<u8>> {
    match delta {
        StateDelta::Unchanged => None,
        StateDelta::Whole => Some(encode_put(key, state)),
        StateDelta::Journal(change) => Some(encode_change(key, *change)),
        StateDelta::Extend(extension) => Some(encode_extend(key, extension)),
    }
}

pub fn encode_put(key: &StateKey, state: &ActionState) -> Vec<u8> {
    let mut w = Writer::new();
    w.u8(TAG_PUT);
    key.write(&mut w);
    write_action_state(&mut w, state);
    w.into_bytes()
}

pub fn encode_change(key: &StateKey, change: JournalChange<'_>) -> Vec<u8> {
    let mut w = Writer::new();
    write_change(&mut w, key, change);
    w.into_bytes()
}

/// The length of [`encode_change`]'s record, counted without building it.
pub fn change_len(key: &StateKey, change: JournalChange<'_>) -> u64 {
    let mut w = Writer::measuring();
    write_change(&mut w, key, change);
    w.byte_count() as u64
}

fn write_change(w: &mut Writer, key: &StateKey, change: JournalChange<'_>) {
    let tag = match change {
        JournalChange::Put { .. } => TAG_SLOT,
        JournalChange::Replace { .. } => TAG_FINALIZE,
        JournalChange::PutBatch { .. } => TAG_BATCH,
        JournalChange::Truncate { .. } => TAG_TRUNCATE,
        JournalChange::Complete => TAG_COMPLETE,
    };
    w.u8(tag);
    key.write(w);
    match change {
        JournalChange::Put { index, slot } | JournalChange::Replace { index, slot } => {
            w.u64(index as u64);
            write_call_result(w, slot);
        }
        JournalChange::PutBatch { from, slots } => {
            w.u64(from as u64);
            write_call_results(w, slots);
        }
        JournalChange::Truncate { from } => w.u64(from as u64),
        JournalChange::Complete => {}
    }
}

pub fn encode_extend(key: &StateKey, extension: &StateExtension<'_>) -> Vec<u8> {
    let mut w = Writer::new();
    w.u8(TAG_EXTEND);
    key.write(&mut w);
    w.u64(extension.calls_from as u64);
    write_call_results(&mut w, &extension.calls);
    write_body_list(&mut w, &extension.sensory_memory_updates);
    write_body_list(&mut w, &extension.short_term_memory_updates);
    write_body_list(&mut w, &extension.output_events);
    w.u8(u8::from(extension.completed));
    w.into_bytes()
}

fn read_extension(r: &mut Reader<'_>) -> DecodeResult<StateExtension<'static>> {
    Ok(StateExtension {
        calls_from: read_index(r)?,
        calls: Cow::Owned(read_call_results(r)?),
        sensory_memory_updates: Cow::Owned(read_body_list(r)?),
        short_term_memory_updates: Cow::Owned(read_body_list(r)?),
        output_events: Cow::Owned(read_body_list(r)?),
        completed: match r.u8()? {
            0 => false,
            1 => true,
            other => return Err(DecodeError(format!("bad completed flag {other}"))),
        },
    })
}

pub fn encode_discard(business_key: &BusinessKey, after_seq: i64) -> Vec<u8> {
    encode_key_and_seq(TAG_DISCARD, business_key, after_seq)
}

pub fn encode_prune(business_key: &BusinessKey, seq_up_to: i64) -> Vec<u8> {
    encode_key_and_seq(TAG_PRUNE, business_key, seq_up_to)
}

/// A discard or prune record: its tag, the business key, the sequence number it cuts at.
fn encode_key_and_seq(tag: u8, business_key: &BusinessKey, seq: i64) -> Vec<u8> {
    let mut w = Writer::new();
    w.u8(tag);
    business_key.write(&mut w);
    w.i64(seq);
    w.into_bytes()
}

fn read_index(r: &mut Reader<'_>) -> DecodeResult<usize> {
    let v = r.u64()?;
    usize::try_from(v).map_err(|_| DecodeError(format!("slot index {v} does not fit this platform")))
}

pub fn decode(payload: &[u8]) -> DecodeResult<Record> {
    let mut r = Reader::new(payload);
    let tag = r.u8()?;
    let record = match tag {
        TAG_PUT => Record::Put { key: StateKey::read(&mut r)?, state: read_action_state(&mut r)? },
        TAG_SLOT | TAG_FINALIZE | TAG_BATCH | TAG_TRUNCATE | TAG_COMPLETE => {
            let key = StateKey::read(&mut r)?;
            Record::Change { key, change: read_change(tag, &mut r)? }
        }
        TAG_EXTEND => Record::Extend { key: StateKey::read(&mut r)?, extension: read_extension(&mut r)? },
        TAG_DISCARD => Record::Discard { business_key: BusinessKey::read(&mut r)?, after_seq: r.i64()? },
        TAG_PRUNE => Record::Prune { business_key: BusinessKey::read(&mut r)?, seq_up_to: r.i64()? },
        other => return Err(DecodeError(format!("unknown record type {other}"))),
    };
    r.finish("the record")?;
    Ok(record)
}

/// The journal mutation after the key of a change record tagged `tag`.
fn read_change(tag: u8, r: &mut Reader<'_>) -> DecodeResult<OwnedChange> {
    Ok(match tag {
        TAG_SLOT => OwnedChange::Put { index: read_index(r)?, slot: read_call_result(r)? },
        TAG_FINALIZE => OwnedChange::Replace { index: read_index(r)?, slot: read_call_result(r)? },
        TAG_BATCH => OwnedChange::PutBatch { from: read_index(r)?, slots: read_call_results(r)? },
        TAG_TRUNCATE => OwnedChange::Truncate { from: read_index(r)? },
        _ => OwnedChange::Complete,
    })
}

/// A key's encoding in records, for [`decode_change_at`].
pub fn key_encoding(key: &StateKey) -> Vec<u8> {
    let mut w = Writer::new();
    key.write(&mut w);
    w.into_bytes()
}

/// The change of `payload` when it is a change record of the key whose
/// encoding is `key_encoding` ([`key_encoding`]), else None (decode it
/// whole). A loader reading one action's records in a row decodes their
/// shared key once: the key encoding is self-delimiting, so a record whose
/// bytes after the tag start with a key's encoding holds that key.
pub fn decode_change_at(payload: &[u8], key_encoding: &[u8]) -> DecodeResult<Option<OwnedChange>> {
    let Some((&tag, rest)) = payload.split_first() else { return Ok(None) };
    if !matches!(tag, TAG_SLOT | TAG_FINALIZE | TAG_BATCH | TAG_TRUNCATE | TAG_COMPLETE) || !rest.starts_with(key_encoding) {
        return Ok(None);
    }
    let mut r = Reader::new(&rest[key_encoding.len()..]);
    let change = read_change(tag, &mut r)?;
    r.finish("the record")?;
    Ok(Some(change))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Outcome;
    use crate::store::key::EventIdentity;

    fn key() -> StateKey {
        StateKey::new(BusinessKey::Long(7), 3, "act", EventIdentity::Occurrence("occ".into()))
    }

    #[test]
    fn every_record_type_round_trips() {
        let slot = CallResult::completed("f", Outcome::success(Some(vec![1; 10])));
        let batch = vec![CallResult::pending("a"), CallResult::pending("b")];
        let changes = [
            JournalChange::Put { index: 2, slot: &slot },
            JournalChange::Replace { index: 0, slot: &slot },
            JournalChange::PutBatch { from: 1, slots: &batch },
            JournalChange::Truncate { from: 4 },
            JournalChange::Complete,
        ];
        for change in changes {
            assert_eq!(change_len(&key(), change), encode_change(&key(), change).len() as u64);
            // The loader's shortcut for a record of the key it just decoded reads the same change.
            assert_eq!(decode_change_at(&encode_change(&key(), change), &key_encoding(&key())).unwrap().unwrap().as_change(), change);
            match decode(&encode_change(&key(), change)).unwrap() {
                Record::Change { key: k, change: c } => {
                    assert_eq!(k, key());
                    assert_eq!(c.as_change(), change);
                }
                other => panic!("{other:?}"),
            }
        }
        let state = ActionState { completed: true, ..Default::default() };
        assert_eq!(decode(&encode_put(&key(), &state)).unwrap(), Record::Put { key: key(), state });
        let outputs = [serde_json::json!({"@class": "org.example.OutputEvent", "output": "héllo 🌍"}).into()];
        let extension = StateExtension {
            calls_from: 3,
            calls: Cow::Borrowed(&batch),
            sensory_memory_updates: Cow::Borrowed(&[]),
            short_term_memory_updates: Cow::Owned(vec![serde_json::json!({"path": "n", "value": 1}).into()]),
            output_events: Cow::Borrowed(&outputs),
            completed: true,
        };
        match decode(&encode_extend(&key(), &extension)).unwrap() {
            Record::Extend { key: k, extension: e } => assert_eq!((k, e), (key(), extension)),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            decode(&encode_prune(&BusinessKey::Int(1), 9)).unwrap(),
            Record::Prune { business_key: BusinessKey::Int(1), seq_up_to: 9 }
        );
        assert_eq!(
            decode(&encode_discard(&BusinessKey::Int(1), 9)).unwrap(),
            Record::Discard { business_key: BusinessKey::Int(1), after_seq: 9 }
        );
    }

    /// The loader's shortcut (read for every change in
    /// `every_record_type_round_trips`) is taken for the key it was given only.
    #[test]
    fn a_change_of_the_given_key_decodes_without_its_key() {
        let slot = CallResult::completed("f", Outcome::success(Some(vec![1; 10])));
        let encoding = key_encoding(&key());
        let change = JournalChange::Put { index: 0, slot: &slot };
        // Another key, one whose action starts with this key's, and a key that is this one's prefix.
        let longer = StateKey::new(BusinessKey::Long(7), 3, "act2", EventIdentity::Occurrence("occ".into()));
        let other = StateKey::new(BusinessKey::Long(8), 3, "act", EventIdentity::Occurrence("occ".into()));
        for k in [&longer, &other] {
            assert_eq!(decode_change_at(&encode_change(k, change), &encoding).unwrap(), None);
            assert_eq!(decode_change_at(&encode_change(&key(), change), &key_encoding(k)).unwrap(), None);
        }
        // Records that are not changes go through the whole decode.
        assert_eq!(decode_change_at(&encode_put(&key(), &ActionState::default()), &encoding).unwrap(), None);
        assert_eq!(decode_change_at(&encode_prune(&BusinessKey::Long(7), 3), &encoding).unwrap(), None);
        assert_eq!(decode_change_at(&[], &encoding).unwrap(), None);
        // A matching key over a cut or padded body is as undecodable as in the whole decode.
        let record = encode_change(&key(), change);
        for bad in [&record[..record.len() - 1], &[&record[..], &[0u8][..]].concat()[..]] {
            assert!(decode(bad).is_err());
            assert!(decode_change_at(bad, &encoding).is_err());
        }
    }

    #[test]
    fn a_slot_record_costs_its_payload_plus_a_small_constant() {
        let small = encode_change(
            &key(),
            JournalChange::Put { index: 0, slot: &CallResult::completed("f", Outcome::success(Some(vec![]))) },
        );
        let big = encode_change(
            &key(),
            JournalChange::Put { index: 0, slot: &CallResult::completed("f", Outcome::success(Some(vec![0; 1024]))) },
        );
        assert_eq!(big.len() - small.len(), 1024);
    }
}
