//! What a restore does to one journal in flight (spec §2.7), from where a
//! replay of it through the new code stopped: the per-policy consequence of
//! the first difference, in one place for every binding's replayer. The
//! journal applies the policies on the restore itself
//! (`Journal::match_next_or_clear_subsequent`); this names their effect.

use super::DivergencePolicy;
use crate::error::{Error, Result};
use crate::model::write_json_str;

/// Where the replay of an entry in flight through the new code stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayEnd<'a> {
    /// The new code finished on the recorded calls without making another.
    Completed,
    /// The new code threw (`failure` names the exception).
    Threw { failure: &'a str },
    /// The new code makes `call_id` at `position`, past the recorded calls.
    WouldRun { position: usize, call_id: &'a str },
    /// At `position` the recording has `recorded_id` and the new code makes
    /// `candidate_id`, or finishes (None).
    Diverged { position: usize, recorded_id: &'a str, candidate_id: Option<&'a str> },
    /// The new code asked for something a replay cannot give without
    /// reaching outside (`why`: memory it cannot rebuild, a resource), so
    /// no plan says what the restore does past the recorded calls.
    NotReplayable { why: &'a str },
}

impl<'a> ReplayEnd<'a> {
    /// From the bindings' words for a replay's stop (their reports' `Stop`):
    /// `kind` `"not-replayable"` takes its reason in `failure`; otherwise a
    /// `failure` wins (the action threw wherever it stood), and `kind` is
    /// `""` (no stop: completed), `"would-run"` (needs `candidate_id`) or
    /// `"diverged"` (needs `recorded_id`).
    pub fn from_parts(
        kind: &str,
        position: i64,
        recorded_id: Option<&'a str>,
        candidate_id: Option<&'a str>,
        failure: Option<&'a str>,
    ) -> Result<ReplayEnd<'a>> {
        if kind == "not-replayable" {
            let why = failure.ok_or_else(|| Error::InvalidArgument("a not-replayable stop needs its reason".into()))?;
            return Ok(ReplayEnd::NotReplayable { why });
        }
        if let Some(failure) = failure {
            return Ok(ReplayEnd::Threw { failure });
        }
        let position = || usize::try_from(position).map_err(|_| Error::InvalidArgument(format!("negative position {position}")));
        let missing = |what: &str| Error::InvalidArgument(format!("a {kind} stop needs its {what}"));
        match kind {
            "" => Ok(ReplayEnd::Completed),
            "would-run" => Ok(ReplayEnd::WouldRun { position: position()?, call_id: candidate_id.ok_or_else(|| missing("candidate id"))? }),
            "diverged" => Ok(ReplayEnd::Diverged {
                position: position()?,
                recorded_id: recorded_id.ok_or_else(|| missing("recorded id"))?,
                candidate_id,
            }),
            other => Err(Error::InvalidArgument(format!(
                "no replay stop {other:?} (\"\", \"would-run\", \"diverged\" or \"not-replayable\")"
            ))),
        }
    }
}

/// What the restore then does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Consequence {
    /// Completes without running a call.
    Completes,
    /// The action throws, as in the replay.
    Throws,
    /// Runs the new call and what follows.
    Runs,
    /// FAIL: the task fails with NON_DETERMINISTIC_REPLAY.
    FailsTheTask,
    /// WARN: the journal is cut at the difference, logged and counted.
    CutsLogsAndCounts,
    /// CUT: the journal is cut at the difference.
    Cuts,
    /// Unknown: the replay could not follow the new code to the end.
    Unplanned,
}

impl Consequence {
    pub fn as_str(self) -> &'static str {
        match self {
            Consequence::Completes => "completes",
            Consequence::Throws => "throws",
            Consequence::Runs => "runs",
            Consequence::FailsTheTask => "fails-the-task",
            Consequence::CutsLogsAndCounts => "cuts-logs-and-counts",
            Consequence::Cuts => "cuts",
            Consequence::Unplanned => "unplanned",
        }
    }
}

/// A restore's plan for one entry: how many recorded calls replay, and what follows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RestorePlan {
    pub replayed: usize,
    pub consequence: Consequence,
    /// The plan in words, for the replayers' reports.
    pub text: String,
}

/// The plan of a restore under `policy` for an entry whose replay through
/// the new code replayed `replayed` recorded calls and ended as `end`.
pub fn plan_restore(policy: DivergencePolicy, replayed: usize, end: &ReplayEnd<'_>) -> RestorePlan {
    let replays = format!("a restore replays {replayed} recorded call{}", if replayed == 1 { "" } else { "s" });
    let (consequence, text) = match *end {
        ReplayEnd::Threw { failure } => (Consequence::Throws, format!("{replays}, then the action throws {failure}")),
        ReplayEnd::NotReplayable { why } => (Consequence::Unplanned, format!("{replays}, then the plan cannot follow the action: {why}")),
        ReplayEnd::Completed => (Consequence::Completes, format!("{replays} and completes without running a call")),
        ReplayEnd::WouldRun { position, call_id } => {
            (Consequence::Runs, format!("{replays}, then runs {call_id} at {position} and what follows"))
        }
        ReplayEnd::Diverged { position, recorded_id, candidate_id } => {
            let difference = format!("at {position} (recorded {recorded_id}, new code {})", candidate_id.unwrap_or("finishes"));
            let runs = |lead: &str| candidate_id.map(|id| format!("{lead}runs {id} and what follows")).unwrap_or_default();
            match policy {
                DivergencePolicy::Fail => {
                    (Consequence::FailsTheTask, format!("{replays}, then fails the task {difference}: NON_DETERMINISTIC_REPLAY"))
                }
                DivergencePolicy::Warn => (
                    Consequence::CutsLogsAndCounts,
                    format!("{replays}, then cuts the journal {difference}, logs and counts it (callsDiverged){}", runs(", and ")),
                ),
                DivergencePolicy::Cut => (Consequence::Cuts, format!("{replays}, then cuts the journal {difference}{}", runs(" and "))),
            }
        }
    };
    RestorePlan { replayed, consequence, text }
}

/// Where a replay left the recording, in words, for the replayers' reports
/// (Java's `ActionReplay.Stop`, Python's `Stop`): a would-run or a divergence
/// (`recorded_status`: the recorded slot's status there); None for a replay
/// that did not stop at a call.
pub fn describe_stop(end: &ReplayEnd<'_>, recorded_status: &str) -> Option<String> {
    match *end {
        ReplayEnd::WouldRun { position, call_id } => Some(format!("would run {call_id} at {position} (not recorded; no stub)")),
        ReplayEnd::Diverged { position, recorded_id, candidate_id } => Some(format!(
            "diverged at {position}: recorded {recorded_id} ({recorded_status}), candidate {}",
            candidate_id.unwrap_or("finished")
        )),
        ReplayEnd::Completed | ReplayEnd::Threw { .. } | ReplayEnd::NotReplayable { .. } => None,
    }
}

impl RestorePlan {
    /// `{"replayed":n,"consequence":"cuts",...,"text":"..."}`.
    pub fn to_json(&self) -> String {
        let mut out = format!("{{\"replayed\":{},\"consequence\":\"{}\",\"text\":", self.replayed, self.consequence.as_str());
        write_json_str(&self.text, &mut out);
        out.push('}');
        out
    }
}

#[cfg(test)]
mod tests;
