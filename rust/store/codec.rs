//! The binary encoding shared by store keys, log records and recovery
//! markers: little-endian integers and `u32`-length-prefixed byte strings.
//!
//! Every variable-length field carries its length, so no value can run into
//! the next one (the `_`-joined keys of Flink Agents could).

use serde_json::value::RawValue;

use crate::model::{other_fields_from_json, other_fields_to_json, ActionState, CallResult, CallStatus, JsonString, OpaqueJson};

/// Why a byte string did not decode; the caller adds where it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub type DecodeResult<T> = std::result::Result<T, DecodeError>;

/// Appends encoded values to a byte buffer, or, made by
/// [`Writer::measuring`], only counts the bytes they take: the size of a
/// record a store does not write (the memory store's limits), exact and
/// without building it.
#[derive(Default)]
pub struct Writer {
    buf: Vec<u8>,
    measuring: bool,
    measured: usize,
}

impl Writer {
    pub fn new() -> Writer {
        Writer::default()
    }

    /// A writer that keeps nothing and counts the bytes it is given.
    pub fn measuring() -> Writer {
        Writer { measuring: true, ..Writer::default() }
    }

    /// The bytes written (or counted) so far.
    pub fn byte_count(&self) -> usize {
        if self.measuring {
            self.measured
        } else {
            self.buf.len()
        }
    }

    pub fn into_bytes(self) -> Vec<u8> {
        debug_assert!(!self.measuring, "a measuring writer keeps no bytes");
        self.buf
    }

    pub fn u8(&mut self, v: u8) {
        self.raw(&[v]);
    }

    pub fn u32(&mut self, v: u32) {
        self.raw(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.raw(&v.to_le_bytes());
    }

    pub fn i64(&mut self, v: i64) {
        self.raw(&v.to_le_bytes());
    }

    pub fn i32(&mut self, v: i32) {
        self.raw(&v.to_le_bytes());
    }

    pub fn raw(&mut self, bytes: &[u8]) {
        if self.measuring {
            self.measured += bytes.len();
        } else {
            self.buf.extend_from_slice(bytes);
        }
    }

    /// A length-prefixed byte string.
    pub fn bytes(&mut self, bytes: &[u8]) {
        let len = u32::try_from(bytes.len()).expect("a store value is smaller than 4 GiB");
        self.u32(len);
        self.raw(bytes);
    }

    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }

    /// Presence flag, then the byte string when present: `None` and an empty
    /// payload stay distinct.
    pub fn opt_bytes(&mut self, bytes: Option<&[u8]>) {
        match bytes {
            None => self.u8(0),
            Some(b) => {
                self.u8(1);
                self.bytes(b);
            }
        }
    }

    /// A count of following items.
    pub fn count(&mut self, n: usize) {
        self.u32(u32::try_from(n).expect("fewer than 2^32 items"));
    }
}

/// Reads values written by [`Writer`] from a byte slice.
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader { buf, pos: 0 }
    }

    pub fn is_at_end(&self) -> bool {
        self.pos == self.buf.len()
    }

    /// Fails unless every byte was consumed: trailing bytes mean the value
    /// was not what the reader thought it was.
    pub fn finish(&self, what: &str) -> DecodeResult<()> {
        if self.is_at_end() {
            Ok(())
        } else {
            Err(DecodeError(format!("{} trailing bytes after {what}", self.buf.len() - self.pos)))
        }
    }

    pub fn raw(&mut self, n: usize) -> DecodeResult<&'a [u8]> {
        let end = self.pos.checked_add(n).filter(|end| *end <= self.buf.len()).ok_or_else(|| {
            DecodeError(format!("needs {n} bytes at {} but only {} remain", self.pos, self.buf.len() - self.pos))
        })?;
        let out = &self.buf[self.pos..end];
        self.pos = end;
        Ok(out)
    }

    fn array<const N: usize>(&mut self) -> DecodeResult<[u8; N]> {
        Ok(self.raw(N)?.try_into().expect("raw returns exactly N bytes"))
    }

    pub fn u8(&mut self) -> DecodeResult<u8> {
        Ok(self.array::<1>()?[0])
    }

    pub fn u32(&mut self) -> DecodeResult<u32> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub fn u64(&mut self) -> DecodeResult<u64> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub fn i64(&mut self) -> DecodeResult<i64> {
        Ok(i64::from_le_bytes(self.array()?))
    }

    pub fn i32(&mut self) -> DecodeResult<i32> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    pub fn bytes(&mut self) -> DecodeResult<&'a [u8]> {
        let len = self.u32()? as usize;
        self.raw(len)
    }

    pub fn string(&mut self) -> DecodeResult<String> {
        let bytes = self.bytes()?;
        String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError("a string is not valid UTF-8".into()))
    }

    pub fn opt_bytes(&mut self) -> DecodeResult<Option<Vec<u8>>> {
        match self.u8()? {
            0 => Ok(None),
            1 => Ok(Some(self.bytes()?.to_vec())),
            flag => Err(DecodeError(format!("bad presence flag {flag}"))),
        }
    }

    /// A count of following items, each at least `min_item_len` bytes long;
    /// a count the remaining bytes cannot hold is refused before allocating.
    pub fn count(&mut self, min_item_len: usize) -> DecodeResult<usize> {
        let n = self.u32()? as usize;
        let remaining = self.buf.len() - self.pos;
        if n.saturating_mul(min_item_len.max(1)) > remaining {
            return Err(DecodeError(format!("count {n} exceeds the {remaining} remaining bytes")));
        }
        Ok(n)
    }
}

/// The slot's flag byte: the status in the low two bits, then what the rest
/// of the slot holds beyond what every slot written before these flags held
/// (a Unicode id, digest `""`), so those slots (flags 0 to 3) still decode.
const STATUS_MASK: u8 = 0b11;
/// The function id is null; its string is written empty.
const ID_NULL: u8 = 1 << 2;
/// The function id holds a lone surrogate; its string is WTF-8.
const ID_LONE_SURROGATES: u8 = 1 << 3;
/// The args digest is null.
const DIGEST_NULL: u8 = 1 << 4;
/// A digest other than `""` follows the payloads as a byte string.
const DIGEST_PRESENT: u8 = 1 << 5;
/// That digest holds a lone surrogate: its string is WTF-8.
const DIGEST_LONE_SURROGATES: u8 = 1 << 6;

fn status_code(status: Option<CallStatus>) -> u8 {
    match status {
        None => 0,
        Some(CallStatus::Pending) => 1,
        Some(CallStatus::Succeeded) => 2,
        Some(CallStatus::Failed) => 3,
    }
}

fn status_from_code(code: u8) -> Option<CallStatus> {
    match code & STATUS_MASK {
        0 => None,
        1 => Some(CallStatus::Pending),
        2 => Some(CallStatus::Succeeded),
        _ => Some(CallStatus::Failed),
    }
}

/// One journal slot: payloads are stored as raw bytes (no base64), so a slot
/// costs its payload plus a few bytes; the usual digest `""` costs nothing.
pub fn write_call_result(w: &mut Writer, slot: &CallResult) {
    let mut flags = status_code(slot.status);
    match &slot.call_id {
        None => flags |= ID_NULL,
        Some(JsonString::LoneSurrogates(_)) => flags |= ID_LONE_SURROGATES,
        Some(JsonString::Text(_)) => {}
    }
    let digest = match &slot.args_digest {
        None => {
            flags |= DIGEST_NULL;
            None
        }
        Some(JsonString::Text(text)) if text.is_empty() => None,
        Some(digest) => {
            flags |= DIGEST_PRESENT;
            if let JsonString::LoneSurrogates(_) = digest {
                flags |= DIGEST_LONE_SURROGATES;
            }
            Some(digest.as_wtf8())
        }
    };
    w.bytes(slot.call_id.as_ref().map_or(&[][..], JsonString::as_wtf8));
    w.u8(flags);
    w.opt_bytes(slot.result_payload.as_deref());
    w.opt_bytes(slot.exception_payload.as_deref());
    if let Some(digest) = digest {
        w.bytes(digest);
    }
}

/// Smallest encoded slot: empty id, flags, two absent payloads.
const MIN_CALL_RESULT_LEN: usize = 4 + 1 + 1 + 1;

pub fn read_call_result(r: &mut Reader<'_>) -> DecodeResult<CallResult> {
    let id = r.bytes()?;
    let flags = r.u8()?;
    if flags & !(STATUS_MASK | ID_NULL | ID_LONE_SURROGATES | DIGEST_NULL | DIGEST_PRESENT | DIGEST_LONE_SURROGATES) != 0 {
        return Err(DecodeError(format!("unknown call status code {flags}")));
    }
    let call_id = if flags & ID_NULL != 0 {
        None
    } else {
        Some(read_json_string(id, flags & ID_LONE_SURROGATES != 0)?)
    };
    let status = status_from_code(flags);
    let result_payload = r.opt_bytes()?;
    let exception_payload = r.opt_bytes()?;
    let args_digest = if flags & DIGEST_NULL != 0 {
        None
    } else if flags & DIGEST_PRESENT != 0 {
        Some(read_json_string(r.bytes()?, flags & DIGEST_LONE_SURROGATES != 0)?)
    } else {
        Some(JsonString::Text(String::new()))
    };
    Ok(CallResult { call_id, args_digest, status, result_payload, exception_payload })
}

/// UTF-8, or WTF-8 when the flag says the string holds a lone surrogate.
/// Bytes that are neither (a damaged or forged record) are refused here:
/// every reader of a lone-surrogate string relies on it being WTF-8.
fn read_json_string(bytes: &[u8], lone_surrogates: bool) -> DecodeResult<JsonString> {
    match (JsonString::from_wtf8_checked(bytes), lone_surrogates) {
        (Some(text @ JsonString::Text(_)), false) | (Some(text @ JsonString::LoneSurrogates(_)), true) => Ok(text),
        (None, _) => Err(DecodeError("a string flagged as holding lone surrogates is not WTF-8".into())),
        _ => Err(DecodeError("a string does not hold what its flag says".into())),
    }
}

pub fn write_call_results(w: &mut Writer, slots: &[CallResult]) {
    w.count(slots.len());
    for slot in slots {
        write_call_result(w, slot);
    }
}

pub fn read_call_results(r: &mut Reader<'_>) -> DecodeResult<Vec<CallResult>> {
    let n = r.count(MIN_CALL_RESULT_LEN)?;
    (0..n).map(|_| read_call_result(r)).collect()
}

/// An opaque body as the JSON text it is (`null` for an absent task event).
fn write_body(w: &mut Writer, body: Option<&OpaqueJson>) {
    w.bytes(body.map_or("null", OpaqueJson::get).as_bytes());
}

/// Bodies were checked when they entered; the text is parsed again so a
/// damaged record can never yield a body that is not JSON. No depth limit:
/// whatever the store wrote, it reads back.
fn read_body(r: &mut Reader<'_>) -> DecodeResult<OpaqueJson> {
    let text = json_text(r.bytes()?)?;
    let raw: &RawValue = serde_json::from_str(text).map_err(|e| DecodeError(format!("bad JSON value: {e}")))?;
    OpaqueJson::from_raw(raw, usize::MAX).map_err(DecodeError)
}

fn json_text(bytes: &[u8]) -> DecodeResult<&str> {
    std::str::from_utf8(bytes).map_err(|_| DecodeError("a JSON text is not valid UTF-8".into()))
}

fn read_task_event(r: &mut Reader<'_>) -> DecodeResult<Option<OpaqueJson>> {
    let event = read_body(r)?;
    Ok((event.get() != "null").then_some(event))
}

pub fn write_body_list(w: &mut Writer, bodies: &[OpaqueJson]) {
    w.count(bodies.len());
    for body in bodies {
        write_body(w, Some(body));
    }
}

pub fn read_body_list(r: &mut Reader<'_>) -> DecodeResult<Vec<OpaqueJson>> {
    let n = r.count(4)?;
    (0..n).map(|_| read_body(r)).collect()
}

/// A whole ActionState: the opaque event and memory bodies as JSON text, the
/// journal as binary slots, the unknown fields as the text of one JSON object.
pub fn write_action_state(w: &mut Writer, state: &ActionState) {
    w.u8(u8::from(state.completed));
    write_body(w, state.task_event.as_ref());
    write_body_list(w, &state.sensory_memory_updates);
    write_body_list(w, &state.short_term_memory_updates);
    write_body_list(w, &state.output_events);
    write_call_results(w, &state.call_results);
    w.bytes(other_fields_to_json(&state.other_fields).as_bytes());
}

pub fn read_action_state(r: &mut Reader<'_>) -> DecodeResult<ActionState> {
    let completed = match r.u8()? {
        0 => false,
        1 => true,
        other => return Err(DecodeError(format!("bad completed flag {other}"))),
    };
    Ok(ActionState {
        completed,
        task_event: read_task_event(r)?,
        sensory_memory_updates: read_body_list(r)?,
        short_term_memory_updates: read_body_list(r)?,
        output_events: read_body_list(r)?,
        call_results: read_call_results(r)?,
        other_fields: other_fields_from_json(json_text(r.bytes()?)?, usize::MAX)
            .map_err(|e| DecodeError(format!("bad unknown fields: {e}")))?,
    })
}

#[cfg(test)]
mod tests;
