//! `patched(ctx, "change-id")` (Temporal's idea): code that changed lets a
//! replay of an execution recorded before the change take the old path.
//! The marker is a journal slot of its own, a success with a null payload
//! under the id `patched:<change-id>`, so the answer replays stably:
//!
//! | slot at the call index | answer | journal |
//! |---|---|---|
//! | none (a new execution, or past what was recorded) | true | the marker is recorded there |
//! | this change's marker, terminal | true | the index moves past it |
//! | anything else (recorded before the change) | false | unchanged: the next call matches that slot |
//!
//! Every binding asks this one rule: the Java journal through
//! [`Journal::patched`], the Python runtime (which journals in Flink
//! Agents' Java context) through [`patch_step`] on the slot it read.

use super::{Journal, Persister};
use crate::error::{Error, Result};
use crate::model::{CallResult, CallStatus, Outcome};

/// The prefix of a marker's slot id.
pub const PATCH_MARKER_PREFIX: &str = "patched:";

/// What a `patched` call does at the slot in front of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PatchStep {
    /// No slot: record this change's marker; the answer is true.
    Record,
    /// This change's marker: step past it; the answer is true.
    Replay,
    /// A slot recorded by code before the change: leave it; the answer is false.
    OldPath,
}

impl PatchStep {
    pub fn as_str(self) -> &'static str {
        match self {
            PatchStep::Record => "record",
            PatchStep::Replay => "replay",
            PatchStep::OldPath => "old",
        }
    }

    /// The answer `patched` gives.
    pub fn is_patched(self) -> bool {
        self != PatchStep::OldPath
    }
}

/// The id of the marker slot of `change_id`; an empty id is refused.
pub fn patch_marker_id(change_id: &str) -> Result<String> {
    if change_id.is_empty() {
        return Err(Error::InvalidArgument("a patch needs a non-empty change id".into()));
    }
    Ok(format!("{PATCH_MARKER_PREFIX}{change_id}"))
}

/// The rule, over the slot at the call index (its id and effective status
/// as the 4-tuple bridge shape gives them; `None`: no slot).
pub fn patch_step(change_id: &str, slot: Option<(&str, CallStatus)>) -> Result<PatchStep> {
    let marker = patch_marker_id(change_id)?;
    Ok(match slot {
        None => PatchStep::Record,
        Some((id, status)) if id == marker && status != CallStatus::Pending => PatchStep::Replay,
        Some(_) => PatchStep::OldPath,
    })
}

impl Journal {
    /// `patched(change_id)`: true in new executions and in replays of
    /// executions that recorded the marker; false in replays of executions
    /// recorded before the change (see the module's table). A recorded
    /// marker is persisted like a call.
    pub fn patched(&mut self, change_id: &str, persister: &mut dyn Persister) -> Result<bool> {
        let slot = self.current_call_result().map(slot_shape);
        let step = patch_step(change_id, slot.as_ref().map(|(id, status)| (id.as_str(), *status)))?;
        match step {
            PatchStep::Record => {
                self.record_call_completion(&patch_marker_id(change_id)?, Outcome::success(None), persister)?
            }
            PatchStep::Replay => self.index += 1,
            PatchStep::OldPath => {}
        }
        Ok(step.is_patched())
    }
}

/// A slot's id (a null or ill-formed id never equals a marker) and status.
fn slot_shape(slot: &CallResult) -> (String, CallStatus) {
    let id = slot.call_id.as_ref().and_then(|id| id.as_str()).unwrap_or_default().to_string();
    (id, slot.effective_status())
}

#[cfg(test)]
mod tests;
