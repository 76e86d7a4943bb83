//! The journal's data model and its JSON form, compatible with Flink Agents'
//! `ActionStateSerde` (spec §1).

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

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

    pub fn is_terminal(self) -> bool {
        self != CallStatus::Pending
    }
}

/// One journal slot (spec §1.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallResult {
    pub function_id: String,
    #[serde(default)]
    pub status: Option<CallStatus>,
    #[serde(default, with = "base64_bytes")]
    pub result_payload: Option<Vec<u8>>,
    #[serde(default, with = "base64_bytes")]
    pub exception_payload: Option<Vec<u8>>,
}

impl CallResult {
    /// A terminal slot: FAILED iff an exception payload is given.
    pub fn completed(
        function_id: impl Into<String>,
        result_payload: Option<Vec<u8>>,
        exception_payload: Option<Vec<u8>>,
    ) -> CallResult {
        let status = if exception_payload.is_some() { CallStatus::Failed } else { CallStatus::Succeeded };
        CallResult { function_id: function_id.into(), status: Some(status), result_payload, exception_payload }
    }

    pub fn pending(function_id: impl Into<String>) -> CallResult {
        CallResult {
            function_id: function_id.into(),
            status: Some(CallStatus::Pending),
            result_payload: None,
            exception_payload: None,
        }
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

    /// Records written by this library always carry their status explicitly.
    fn normalized(mut self) -> CallResult {
        self.status = Some(self.effective_status());
        self
    }
}

/// One action execution's record (spec §1.2). Event and memory-update bodies
/// are opaque JSON: the core stores and returns them without interpreting them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ActionState {
    #[serde(default, skip_serializing_if = "Value::is_null")]
    pub task_event: Value,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub sensory_memory_updates: Vec<Value>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub short_term_memory_updates: Vec<Value>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub output_events: Vec<Value>,
    #[serde(default, deserialize_with = "null_as_empty")]
    pub call_results: Vec<CallResult>,
    #[serde(default)]
    pub completed: bool,
    /// Top-level fields this version does not know (e.g. a newer Flink
    /// Agents' `subagentResultEvents`): kept so a rewrite loses nothing.
    #[serde(flatten)]
    pub other_fields: serde_json::Map<String, Value>,
}

impl ActionState {
    /// Marks the action completed; a completed record never carries the journal.
    pub fn mark_completed(&mut self) {
        self.completed = true;
        self.call_results.clear();
    }

    pub fn from_json(bytes: &[u8]) -> Result<ActionState> {
        // serde would also accept a JSON array as a struct; a record is an object.
        if bytes.iter().find(|b| !b.is_ascii_whitespace()) != Some(&b'{') {
            return Err(Error::MalformedJson("an ActionState must be a JSON object".into()));
        }
        let state: ActionState =
            serde_json::from_slice(bytes).map_err(|e| Error::MalformedJson(e.to_string()))?;
        Ok(state.normalized())
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("ActionState always serializes")
    }

    fn normalized(mut self) -> ActionState {
        self.call_results = self.call_results.into_iter().map(CallResult::normalized).collect();
        self
    }
}

fn null_as_empty<'de, D, T>(deserializer: D) -> std::result::Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(deserializer)?.unwrap_or_default())
}

/// `byte[]` as Jackson writes it: a standard base64 string, or null.
mod base64_bytes {
    use base64::engine::general_purpose::STANDARD;
    use base64::Engine;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
        match value {
            Some(bytes) => s.serialize_str(&STANDARD.encode(bytes)),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<u8>>, D::Error> {
        match Option::<String>::deserialize(d)? {
            Some(text) => STANDARD.decode(text.as_bytes()).map(Some).map_err(serde::de::Error::custom),
            None => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_record_without_status_infers_it_from_payloads() {
        let json = br#"{"callResults":[
            {"functionId":"a","argsDigest":"x","resultPayload":"AQI=","exceptionPayload":null},
            {"functionId":"b","argsDigest":"","resultPayload":null,"exceptionPayload":"ZXJy"},
            {"functionId":"c","resultPayload":null,"exceptionPayload":null}
        ],"completed":false}"#;
        let state = ActionState::from_json(json).unwrap();
        let statuses: Vec<_> = state.call_results.iter().map(|c| c.effective_status()).collect();
        assert_eq!(statuses, vec![CallStatus::Succeeded, CallStatus::Failed, CallStatus::Succeeded]);
        assert_eq!(state.call_results[0].result_payload.as_deref(), Some(&[1u8, 2][..]));
        assert_eq!(state.call_results[2].result_payload, None);
    }

    #[test]
    fn unknown_fields_are_ignored_and_opaque_bodies_round_trip() {
        let json = br#"{"taskEvent":{"@class":"org.example.InputEvent","input":{"k":[1,2]}},
            "sensoryMemoryUpdates":[{"path":"a","value":1}],"shortTermMemoryUpdates":null,
            "outputEvents":[{"@class":"org.example.OutputEvent","output":"x"}],
            "callResults":[{"functionId":"f","status":"PENDING","futureField":42}],
            "completed":false,"someNewField":{"x":1}}"#;
        let state = ActionState::from_json(json).unwrap();
        assert_eq!(state.task_event["@class"], "org.example.InputEvent");
        assert!(state.short_term_memory_updates.is_empty());
        assert!(state.call_results[0].is_pending());
        assert_eq!(state.other_fields["someNewField"]["x"], 1);
        let again = ActionState::from_json(&state.to_json()).unwrap();
        assert_eq!(again, state);
    }

    #[test]
    fn malformed_json_is_a_clear_error() {
        for bad in [&b"{"[..], b"[]", b"{\"callResults\":[{\"status\":\"PENDING\"}]}", b"\xff\xfe"] {
            let err = ActionState::from_json(bad).unwrap_err();
            assert_eq!(err.code(), crate::error::ErrorCode::MalformedJson, "{err}");
        }
    }

    #[test]
    fn invalid_base64_payload_is_rejected() {
        let err = ActionState::from_json(br#"{"callResults":[{"functionId":"f","resultPayload":"!!"}]}"#)
            .unwrap_err();
        assert!(err.to_string().contains("malformed"), "{err}");
    }

    #[test]
    fn marking_completed_drops_the_journal() {
        let mut state = ActionState::default();
        state.call_results.push(CallResult::pending("x"));
        state.mark_completed();
        assert!(state.completed);
        assert!(state.call_results.is_empty());
    }
}
