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
            let change = match tag {
                TAG_SLOT => OwnedChange::Put { index: read_index(&mut r)?, slot: read_call_result(&mut r)? },
                TAG_FINALIZE => OwnedChange::Replace { index: read_index(&mut r)?, slot: read_call_result(&mut r)? },
                TAG_BATCH => OwnedChange::PutBatch { from: read_index(&mut r)?, slots: read_call_results(&mut r)? },
                TAG_TRUNCATE => OwnedChange::Truncate { from: read_index(&mut r)? },
                _ => OwnedChange::Complete,
            };
            Record::Change { key, change }
        }
        TAG_EXTEND => Record::Extend { key: StateKey::read(&mut r)?, extension: read_extension(&mut r)? },
        TAG_DISCARD => Record::Discard { business_key: BusinessKey::read(&mut r)?, after_seq: r.i64()? },
        TAG_PRUNE => Record::Prune { business_key: BusinessKey::read(&mut r)?, seq_up_to: r.i64()? },
        other => return Err(DecodeError(format!("unknown record type {other}"))),
    };
    r.finish("the record")?;
    Ok(record)
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
