//! The bytes of `retained.log`: its header and its two records, a retained
//! copy (also the value of the log store's retained records: one codec for
//! both stores) and a floor (copies numbered below it are dropped).

use super::RetainedAction;
use crate::model::ActionState;
use crate::store::codec::{read_action_state, write_action_state, DecodeError, DecodeResult, Reader, Writer};
use crate::store::key::StateKey;

const MAGIC: &[u8; 8] = b"DJRETAIN";
const VERSION: u32 = 1;
pub(super) const HEADER_LEN: u64 = 16;
const TAG_RETAINED: u8 = 1;
const TAG_FLOOR: u8 = 2;

pub(super) fn header() -> [u8; HEADER_LEN as usize] {
    let mut bytes = [0u8; HEADER_LEN as usize];
    bytes[..8].copy_from_slice(MAGIC);
    bytes[8..12].copy_from_slice(&VERSION.to_le_bytes());
    let crc = crc32fast::hash(&bytes[..12]);
    bytes[12..].copy_from_slice(&crc.to_le_bytes());
    bytes
}

/// One retained copy's bytes: the file store's frames hold them, and so do
/// the log store's retained records (`store::log::retention`): one codec.
pub(crate) fn encode_retained(number: u64, millis: i64, plan_digest: Option<&str>, key: &StateKey, state: &ActionState) -> Vec<u8> {
    let mut w = Writer::new();
    w.u8(TAG_RETAINED);
    w.u64(number);
    w.i64(millis);
    w.opt_bytes(plan_digest.map(str::as_bytes));
    key.write(&mut w);
    write_action_state(&mut w, state);
    w.into_bytes()
}

pub(super) fn encode_floor(floor: u64) -> Vec<u8> {
    let mut w = Writer::new();
    w.u8(TAG_FLOOR);
    w.u64(floor);
    w.into_bytes()
}

/// What [`encode_retained`] wrote.
pub(crate) fn decode_retained(payload: &[u8]) -> DecodeResult<RetainedAction> {
    let mut r = Reader::new(payload);
    r.u8()?;
    let number = r.u64()?;
    let completed_at_millis = r.i64()?;
    let plan_digest = match r.opt_bytes()? {
        Some(bytes) => Some(String::from_utf8(bytes).map_err(|_| DecodeError("plan digest is not UTF-8".into()))?),
        None => None,
    };
    let key = StateKey::read(&mut r)?;
    let state = read_action_state(&mut r)?;
    r.finish("the retained action")?;
    Ok(RetainedAction { number, completed_at_millis, plan_digest, key, state })
}

pub(super) enum Head {
    Retained { number: u64, completed_at_millis: i64 },
    Floor(u64),
}

pub(super) fn read_head(payload: &[u8]) -> DecodeResult<Head> {
    let mut r = Reader::new(payload);
    match r.u8()? {
        TAG_RETAINED => Ok(Head::Retained { number: r.u64()?, completed_at_millis: r.i64()? }),
        TAG_FLOOR => {
            let floor = r.u64()?;
            r.finish("the floor record")?;
            Ok(Head::Floor(floor))
        }
        other => Err(DecodeError(format!("unknown retained record type {other}"))),
    }
}
