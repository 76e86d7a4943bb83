//! The journal's data model and its JSON form, compatible with Flink Agents'
//! `ActionStateSerde` (spec §1).
//!
//! What is read is written back with the same meaning: bodies the core does
//! not interpret stay JSON text ([`OpaqueJson`]: numbers, escapes and key
//! order exactly as written), strings it does read stay exact even with lone
//! surrogates ([`JsonString`]), and fields it does not know are kept.

mod control;
mod de;
mod opaque;
mod plain_string;
mod ser;
mod text;

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

pub(crate) use de::other_fields_from_json;
pub use opaque::{OpaqueJson, MAX_BODY_DEPTH, MAX_NESTING_DEPTH};
pub use plain_string::is_plain_json_string;
pub(crate) use ser::other_fields_to_json;
pub use text::JsonString;
pub(crate) use text::write_json_str;

/// Stored status of a journal slot. Absent only in legacy records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum CallStatus {
    Pending,
    Succeeded,
    Failed,
}

impl CallStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CallStatus::Pending => "PENDING",
            CallStatus::Succeeded => "SUCCEEDED",
            CallStatus::Failed => "FAILED",
        }
    }
}

/// One journal slot (spec §1.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallResult {
    /// The call's identity. `None` (JSON null) only in records Flink Agents
    /// 0.3.1 wrote for a callable whose `getId()` was null: such a slot, like
    /// one whose id holds a lone surrogate, matches no call, so a re-run cuts
    /// the journal at its position.
    pub call_id: Option<JsonString>,
    /// Flink Agents 0.3.x's digest of the arguments: kept as read and written
    /// back (`""` when a record had none, which 0.3.x matches for Java
    /// callables), so 0.3.x replays this library's journals. `None` is JSON
    /// null. Never used to match: the id is the call's whole identity.
    pub args_digest: Option<JsonString>,
    pub status: Option<CallStatus>,
    pub result_payload: Option<Vec<u8>>,
    pub exception_payload: Option<Vec<u8>>,
}

/// How a call ended, as its terminal slot records it (spec §1.1): the
/// result's JSON (`None` for a null or void return, still a recorded
/// success) and the failure's JSON. The slot is FAILED exactly when there is
/// an exception payload. The bridges hand over both payloads as the caller
/// gave them, so a failure may carry a result payload too; it is kept.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub result: Option<Vec<u8>>,
    pub exception: Option<Vec<u8>>,
}

impl Outcome {
    /// The call returned `result` (`None`: it returned null).
    pub fn success(result: Option<Vec<u8>>) -> Outcome {
        Outcome { result, exception: None }
    }

    /// The call threw; `exception` is its serialized failure.
    pub fn failure(exception: Vec<u8>) -> Outcome {
        Outcome { result: None, exception: Some(exception) }
    }

    pub fn status(&self) -> CallStatus {
        if self.exception.is_some() {
            CallStatus::Failed
        } else {
            CallStatus::Succeeded
        }
    }
}

impl CallResult {
    /// A terminal slot holding `outcome`.
    pub fn completed(call_id: impl Into<String>, outcome: Outcome) -> CallResult {
        CallResult {
            status: Some(outcome.status()),
            result_payload: outcome.result,
            exception_payload: outcome.exception,
            ..CallResult::with_id(call_id)
        }
    }

    pub fn pending(call_id: impl Into<String>) -> CallResult {
        CallResult { status: Some(CallStatus::Pending), ..CallResult::with_id(call_id) }
    }

    fn with_id(call_id: impl Into<String>) -> CallResult {
        CallResult {
            call_id: Some(JsonString::Text(call_id.into())),
            args_digest: Some(JsonString::Text(String::new())),
            status: None,
            result_payload: None,
            exception_payload: None,
        }
    }

    /// Whether this slot belongs to the call `call_id`. A null id or one
    /// holding a lone surrogate belongs to no call: no caller can pass it.
    pub fn is_for(&self, call_id: &str) -> bool {
        matches!(&self.call_id, Some(JsonString::Text(id)) if id == call_id)
    }

    /// The id for messages: `null`, or the text (lone surrogates as `\uXXXX`).
    pub fn call_id_for_display(&self) -> String {
        self.call_id.as_ref().map_or_else(|| "null".to_string(), JsonString::to_string)
    }

    /// The stored status, or for legacy records the one implied by the payloads.
    pub fn effective_status(&self) -> CallStatus {
        match self.status {
            Some(status) => status,
            None if self.exception_payload.is_some() => CallStatus::Failed,
            None => CallStatus::Succeeded,
        }
    }

    pub fn is_pending(&self) -> bool {
        self.effective_status() == CallStatus::Pending
    }

    /// Whether a re-run answers this slot as recorded, with no journal
    /// deciding: a terminal slot (a failure with its payload) under a plain
    /// id, valid Unicode with no args digest. Any other slot is left to the
    /// journal ([`crate::journal::Journal::begin_call`]), which may replay,
    /// run, reconcile or cut it.
    fn replays_as_recorded(&self) -> bool {
        let plain_id = matches!(&self.call_id, Some(JsonString::Text(_)));
        let no_digest = match &self.args_digest {
            None => true,
            Some(JsonString::Text(digest)) => digest.is_empty(),
            Some(_) => false,
        };
        let terminal = match self.effective_status() {
            CallStatus::Succeeded => true,
            CallStatus::Failed => self.exception_payload.is_some(),
            CallStatus::Pending => false,
        };
        plain_id && no_digest && terminal
    }

    /// Records written by this library always carry their status explicitly.
    fn normalized(mut self) -> CallResult {
        self.status = Some(self.effective_status());
        self
    }
}

/// One action execution's record (spec §1.2). Event and memory-update bodies
/// are opaque JSON: the core stores and returns them without interpreting them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ActionState {
    /// `None` for a JSON null or an absent field (both mean "no event").
    pub task_event: Option<OpaqueJson>,
    pub sensory_memory_updates: Vec<OpaqueJson>,
    pub short_term_memory_updates: Vec<OpaqueJson>,
    pub output_events: Vec<OpaqueJson>,
    pub call_results: Vec<CallResult>,
    pub completed: bool,
    /// Top-level fields this version does not know (e.g. a newer Flink
    /// Agents' `subagentResultEvents`), in the order read: kept so a rewrite
    /// loses nothing. Names are never those of the fields above.
    pub other_fields: Vec<(JsonString, OpaqueJson)>,
}

impl ActionState {
    /// Marks the action completed; a completed record never carries the journal.
    pub fn mark_completed(&mut self) {
        self.completed = true;
        self.call_results.clear();
    }

    /// The replay rule of a resumed action, the one every binding uses: its
    /// leading recorded slots that a re-run answers as recorded, in call
    /// order, before its journal opens. A binding answers the next call from
    /// the next of these slots when the call's id equals the slot's, and
    /// hands every other call (and everything after it) to the journal,
    /// opened with its index past the slots answered. A completed record
    /// replays nothing (its calls are dropped).
    pub fn replayable_prefix(&self) -> &[CallResult] {
        if self.completed {
            return &[];
        }
        let length = self.call_results.iter().take_while(|slot| slot.replays_as_recorded()).count();
        &self.call_results[..length]
    }

    /// Reads an ActionState as Flink Agents' `ActionStateSerde` or this
    /// library wrote it. Refuses, with `MalformedJson`, anything RFC 8259
    /// refuses (a raw control character inside a string among it), what is
    /// not a JSON object, invalid UTF-8, and nesting deeper than
    /// [`MAX_NESTING_DEPTH`]. Decisions on what RFC 8259 leaves open are in
    /// `docs/json.md`.
    pub fn from_json(bytes: &[u8]) -> Result<ActionState> {
        // serde would also accept a JSON array as a struct; a record is an object.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(Error::MalformedJson("an ActionState must be a JSON object".into()));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| {
            Error::MalformedJson(format!("not valid UTF-8 at byte {}", e.valid_up_to()))
        })?;
        if let Some((offset, byte)) = control::raw_control_in_string(bytes) {
            return Err(Error::MalformedJson(format!(
                "raw control character U+{byte:04X} inside a string at byte {offset}: RFC 8259 (and Jackson) \
                 require it escaped"
            )));
        }
        let state: ActionState = serde_json::from_str(text).map_err(|e| Error::MalformedJson(e.to_string()))?;
        Ok(state.normalized())
    }

    /// The JSON Flink Agents' `ActionStateSerde` reads.
    pub fn to_json(&self) -> Vec<u8> {
        ser::write_state(self, &self.call_results).into_bytes()
    }

    /// [`ActionState::to_json`] with no call results, for a reader that
    /// takes the slots apart (the Flink Agents adapter's `getResuming`).
    pub fn to_json_without_calls(&self) -> Vec<u8> {
        ser::write_state(self, &[]).into_bytes()
    }

    /// The value of an unknown top-level field, by name.
    pub fn other_field(&self, name: &str) -> Option<&OpaqueJson> {
        self.other_fields.iter().find(|(n, _)| n.as_str() == Some(name)).map(|(_, value)| value)
    }

    fn normalized(mut self) -> ActionState {
        self.call_results = self.call_results.into_iter().map(CallResult::normalized).collect();
        self
    }
}

#[cfg(test)]
mod tests;
