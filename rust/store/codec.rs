//! The binary encoding shared by store keys, log records and recovery
//! markers: little-endian integers and `u32`-length-prefixed byte strings.
//!
//! Every variable-length field carries its length, so no value can run into
//! the next one (the `_`-joined keys of Flink Agents could).

use serde_json::Value;

use crate::model::{ActionState, CallResult, CallStatus};

/// Why a byte string did not decode; the caller adds where it was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl std::fmt::Display for DecodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

pub type DecodeResult<T> = std::result::Result<T, DecodeError>;

/// Appends encoded values to a byte buffer.
#[derive(Default)]
pub struct Writer {
    buf: Vec<u8>,
}

impl Writer {
    pub fn new() -> Writer {
        Writer { buf: Vec::new() }
    }

    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    pub fn u8(&mut self, v: u8) {
        self.buf.push(v);
    }

    pub fn u32(&mut self, v: u32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn u64(&mut self, v: u64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_le_bytes());
    }

    pub fn raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
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

fn status_code(status: Option<CallStatus>) -> u8 {
    match status {
        None => 0,
        Some(CallStatus::Pending) => 1,
        Some(CallStatus::Succeeded) => 2,
        Some(CallStatus::Failed) => 3,
    }
}

fn status_from_code(code: u8) -> DecodeResult<Option<CallStatus>> {
    match code {
        0 => Ok(None),
        1 => Ok(Some(CallStatus::Pending)),
        2 => Ok(Some(CallStatus::Succeeded)),
        3 => Ok(Some(CallStatus::Failed)),
        other => Err(DecodeError(format!("unknown call status code {other}"))),
    }
}

/// One journal slot: payloads are stored as raw bytes (no base64), so a slot
/// costs its payload plus a few bytes.
pub fn write_call_result(w: &mut Writer, slot: &CallResult) {
    w.str(&slot.function_id);
    w.u8(status_code(slot.status));
    w.opt_bytes(slot.result_payload.as_deref());
    w.opt_bytes(slot.exception_payload.as_deref());
}

/// Smallest encoded slot: empty id, status, two absent payloads.
const MIN_CALL_RESULT_LEN: usize = 4 + 1 + 1 + 1;

pub fn read_call_result(r: &mut Reader<'_>) -> DecodeResult<CallResult> {
    Ok(CallResult {
        function_id: r.string()?,
        status: status_from_code(r.u8()?)?,
        result_payload: r.opt_bytes()?,
        exception_payload: r.opt_bytes()?,
    })
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

fn write_json(w: &mut Writer, value: &Value) {
    w.bytes(&serde_json::to_vec(value).expect("a JSON value always serializes"));
}

fn read_json(r: &mut Reader<'_>) -> DecodeResult<Value> {
    serde_json::from_slice(r.bytes()?).map_err(|e| DecodeError(format!("bad JSON value: {e}")))
}

pub fn write_json_list(w: &mut Writer, values: &[Value]) {
    w.count(values.len());
    for value in values {
        write_json(w, value);
    }
}

pub fn read_json_list(r: &mut Reader<'_>) -> DecodeResult<Vec<Value>> {
    let n = r.count(4)?;
    (0..n).map(|_| read_json(r)).collect()
}

/// A whole ActionState: the opaque event and memory bodies as JSON text, the
/// journal as binary slots.
pub fn write_action_state(w: &mut Writer, state: &ActionState) {
    w.u8(u8::from(state.completed));
    write_json(w, &state.task_event);
    write_json_list(w, &state.sensory_memory_updates);
    write_json_list(w, &state.short_term_memory_updates);
    write_json_list(w, &state.output_events);
    write_call_results(w, &state.call_results);
    write_json(w, &Value::Object(state.other_fields.clone()));
}

pub fn read_action_state(r: &mut Reader<'_>) -> DecodeResult<ActionState> {
    let completed = match r.u8()? {
        0 => false,
        1 => true,
        other => return Err(DecodeError(format!("bad completed flag {other}"))),
    };
    Ok(ActionState {
        completed,
        task_event: read_json(r)?,
        sensory_memory_updates: read_json_list(r)?,
        short_term_memory_updates: read_json_list(r)?,
        output_events: read_json_list(r)?,
        call_results: read_call_results(r)?,
        other_fields: match read_json(r)? {
            Value::Object(fields) => fields,
            other => return Err(DecodeError(format!("other fields must be a JSON object, not {other}"))),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn action_state_round_trips_with_payload_absence_preserved() {
        let state = ActionState {
            task_event: json!({"@class": "org.example.InputEvent", "input": "héllo 🌍"}),
            sensory_memory_updates: vec![json!({"path": "a", "value": 1})],
            short_term_memory_updates: vec![],
            output_events: vec![json!({"@class": "org.example.OutputEvent"})],
            call_results: vec![
                CallResult::completed("a", Some(vec![]), None),
                CallResult::completed("b", None, None),
                CallResult::completed("c", None, Some(b"boom".to_vec())),
                CallResult::pending("d"),
                CallResult {
                    function_id: "legacy".into(),
                    status: None,
                    result_payload: None,
                    exception_payload: None,
                },
            ],
            completed: false,
            other_fields: json!({"subagentResultEvents": [{"@class": "X"}]}).as_object().unwrap().clone(),
        };
        let mut w = Writer::new();
        write_action_state(&mut w, &state);
        let bytes = w.into_bytes();
        let mut r = Reader::new(&bytes);
        assert_eq!(read_action_state(&mut r).unwrap(), state);
        r.finish("state").unwrap();
    }

    #[test]
    fn truncated_input_is_an_error_not_a_panic() {
        let mut w = Writer::new();
        write_action_state(&mut w, &ActionState { call_results: vec![CallResult::pending("x")], ..Default::default() });
        let bytes = w.into_bytes();
        for cut in 0..bytes.len() {
            assert!(read_action_state(&mut Reader::new(&bytes[..cut])).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn absurd_counts_are_refused_before_allocating() {
        let mut w = Writer::new();
        w.u32(u32::MAX);
        let bytes = w.into_bytes();
        let err = read_call_results(&mut Reader::new(&bytes)).unwrap_err();
        assert!(err.0.contains("exceeds"), "{err}");
    }
}
