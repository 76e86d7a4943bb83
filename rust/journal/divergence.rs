//! What the journal does when a re-run action makes a different call at a
//! position the journal has recorded: the action is not deterministic (code
//! changed between runs, or it branched on something unrecorded: a clock,
//! a random number, a map's order).
//!
//! The recorded slots from that position on can no longer be trusted to
//! belong to the calls the re-run will make, so the journal cuts them and
//! the calls run again. [`DivergencePolicy`] says whether that happens
//! silently, is reported, or is refused with the [`Divergence`] as a
//! structured diff.

use std::fmt;

use crate::model::{CallResult, CallStatus, JsonString};
use crate::model::write_json_str;

/// How the journal answers a divergence. The numbers cross the JNI and C
/// boundaries (`DivergencePolicy` in Java).
#[repr(i32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DivergencePolicy {
    /// Cut the journal at the position and run the rest again, silently
    /// (what the journal did before the policy existed, and what Flink
    /// Agents 0.3.1 does).
    Cut = 0,
    /// Cut and run on as [`DivergencePolicy::Cut`], counting the divergence
    /// and keeping it for the binding to report (a log line, the
    /// `callsDiverged` metric). Why it is the default: docs/java.md, "When a re-run makes another call".
    #[default]
    Warn = 1,
    /// Refuse the call with `Error::NonDeterministicReplay`, changing
    /// nothing: the recorded slots stay for a fixed deployment to replay.
    Fail = 2,
}

impl DivergencePolicy {
    pub fn from_i32(value: i32) -> Option<DivergencePolicy> {
        match value {
            0 => Some(DivergencePolicy::Cut),
            1 => Some(DivergencePolicy::Warn),
            2 => Some(DivergencePolicy::Fail),
            _ => None,
        }
    }
}

/// The store entry a journal belongs to, for reports; set by whoever opened
/// the journal over it (a store, or a binding that knows the address).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryAddress {
    /// The business key as text, typed (`str:user-1`, `long:42`, ...).
    pub key: String,
    pub sequence_number: i64,
    pub action: String,
}

impl EntryAddress {
    /// `"key":…,"sequenceNumber":…,"action":…` of a report (all null without
    /// an entry address), what the bindings' exceptions read.
    pub(crate) fn write_json_fields(entry: Option<&EntryAddress>, out: &mut String) {
        match entry {
            Some(entry) => {
                out.push_str("\"key\":");
                write_json_str(&entry.key, out);
                out.push_str(&format!(",\"sequenceNumber\":{},\"action\":", entry.sequence_number));
                write_json_str(&entry.action, out);
            }
            None => out.push_str("\"key\":null,\"sequenceNumber\":null,\"action\":null"),
        }
    }
}

/// One side of a divergence: a call's id, args digest and status. The new
/// call has no status yet; ids and digests may be null or hold lone
/// surrogates only on the recorded side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallIdentity {
    pub call_id: Option<JsonString>,
    pub args_digest: Option<JsonString>,
    pub status: Option<CallStatus>,
}

/// A re-run's call that differs from the recorded one at `position`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Divergence {
    pub entry: Option<EntryAddress>,
    /// The call index, 0-based, where the two differ.
    pub position: usize,
    pub recorded: CallIdentity,
    pub new_call: CallIdentity,
}

impl Divergence {
    pub(crate) fn between(
        entry: Option<&EntryAddress>,
        position: usize,
        recorded: &CallResult,
        call_id: &str,
        args_digest: Option<&str>,
    ) -> Divergence {
        Divergence {
            entry: entry.cloned(),
            position,
            recorded: CallIdentity {
                call_id: recorded.call_id.clone(),
                args_digest: recorded.args_digest.clone(),
                status: Some(recorded.effective_status()),
            },
            new_call: CallIdentity {
                call_id: Some(JsonString::Text(call_id.to_string())),
                args_digest: args_digest.map(|d| JsonString::Text(d.to_string())),
                status: None,
            },
        }
    }

    /// The diff as one JSON object, what the bindings build their exception
    /// from: `{"key", "sequenceNumber", "action"` (null when the journal has
    /// no entry address), `"position", "recorded": {"functionId",
    /// "argsDigest", "status"}, "newCall": {"functionId", "argsDigest"}}`.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{");
        EntryAddress::write_json_fields(self.entry.as_ref(), &mut out);
        out.push_str(&format!(",\"position\":{},\"recorded\":", self.position));
        write_call(&self.recorded, &mut out);
        out.push_str(",\"newCall\":");
        write_call(&self.new_call, &mut out);
        out.push('}');
        out
    }
}

fn write_call(call: &CallIdentity, out: &mut String) {
    out.push_str("{\"functionId\":");
    write_optional(call.call_id.as_ref(), out);
    out.push_str(",\"argsDigest\":");
    write_optional(call.args_digest.as_ref(), out);
    if let Some(status) = call.status {
        out.push_str(&format!(",\"status\":\"{}\"", status.as_str()));
    }
    out.push('}');
}

fn write_optional(text: Option<&JsonString>, out: &mut String) {
    match text {
        Some(text) => text.write_json(out),
        None => out.push_str("null"),
    }
}

fn display(text: Option<&JsonString>) -> String {
    text.map_or_else(|| "null".to_string(), |t| format!("'{t}'"))
}

impl fmt::Display for Divergence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the re-run of ")?;
        match &self.entry {
            Some(e) => write!(f, "action '{}' for key {} (sequence number {})", e.action, e.key, e.sequence_number)?,
            None => write!(f, "the action")?,
        }
        let recorded_status = self.recorded.status.map_or("?", CallStatus::as_str);
        write!(
            f,
            " made call {} (args digest {}) at call index {}, where the journal recorded call {} (args digest {}, {})",
            display(self.new_call.call_id.as_ref()),
            display(self.new_call.args_digest.as_ref()),
            self.position,
            display(self.recorded.call_id.as_ref()),
            display(self.recorded.args_digest.as_ref()),
            recorded_status,
        )
    }
}

#[cfg(test)]
mod tests;
