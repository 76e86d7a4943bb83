//! The C ABI of the Python replayer (`durable_journal.replay`): the retained
//! actions of a file store or of a Kafka retained-topic dump and the live
//! entries in flight of a file store, read-only; what a restore does to an
//! entry in flight (`journal::plan_restore`); and a journal over one recorded
//! action's calls that decides, as on a restore under the divergence policy
//! FAIL, which recorded slot a candidate's call replays. Nothing here is
//! persisted: the journal lives in memory and is freed by its owner.

use super::*;
use crate::journal::{describe_stop, plan_restore, DivergencePolicy, Journal, NoPersist, ReplayEnd};
use crate::model::{ActionState, Outcome};
use crate::store::file::{in_flight_to_json, retained_to_json, FileStore};
use crate::store::log::inspect::read_dump;
use crate::store::log::retention::read_retained_records;

/// A handle from [`durable_journal_replay_journal_new`].
type ReplayHandle = *mut Journal;
/// Where [`durable_journal_replay_journal_new`] writes the new handle.
type OutReplayHandle = *mut *mut Journal;

out_buffer_exports! {
    /// The retained (completed) actions of the file store in `dir` as JSON
    /// (`retained_to_json`: number, completion time, plan digest, key, seq,
    /// action, event, and the state's JSON text with its calls), read without
    /// the lock and without changing any file.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_read_retained(dir: text(dir_len) "store directory") {
        Ok(retained_to_json(&FileStore::inspect_retained(dir)?))
    }

    /// The retained actions in `dump`, a dump of a Kafka store's retained
    /// topic (`KafkaJournalTool dump` framing), as JSON in
    /// [`durable_journal_read_retained`]'s shape: per record key the newest
    /// copy, per action the last (the decoder the JNI's `readRetainedDump` uses).
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_read_retained_dump(dump: bytes(dump_len) "dump") {
        Ok(retained_to_json(&read_retained_records(&read_dump(dump)?)?))
    }

    /// The live entries of the file store in `dir` that are not completed
    /// (the journals a restore replays) as JSON (`in_flight_to_json`, the
    /// shape of [`durable_journal_read_retained`]), read as `durable-journal
    /// list` reads them: no lock, no file changed.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_read_in_flight(dir: text(dir_len) "store directory") {
        Ok(in_flight_to_json(&FileStore::inspect(dir)?.entries))
    }

    /// What a restore under `policy` (0 CUT, 1 WARN, 2 FAIL) does to an entry
    /// in flight whose replay through the new code replayed `replayed` calls
    /// and stopped as `stop_kind` (`""`, `"would-run"` or `"diverged"`) at
    /// `position`, or threw `failure` ([`ReplayEnd::from_parts`]), as JSON
    /// ([`crate::journal::RestorePlan::to_json`]).
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions; null optional texts are absent.
    fn durable_journal_plan_restore(
        policy: i32,
        replayed: u64,
        stop_kind: text(stop_kind_len) "stop kind",
        position: i64,
        recorded_id: optional_text(recorded_id_len) "recorded id",
        candidate_id: optional_text(candidate_id_len) "candidate id",
        failure: optional_text(failure_len) "failure",
    ) {
        let policy = DivergencePolicy::from_i32(policy).ok_or_else(|| Error::InvalidArgument(format!("no divergence policy numbered {policy}")))?;
        let replayed = usize::try_from(replayed).map_err(|_| Error::InvalidArgument(format!("replayed count {replayed} too large")))?;
        let end = ReplayEnd::from_parts(stop_kind, position, recorded_id, candidate_id, failure)?;
        Ok(plan_restore(policy, replayed, &end).to_json())
    }

    /// Where a replay stopped, in words ([`describe_stop`]): `stop_kind`
    /// `"would-run"` (needs `candidate_id`) or `"diverged"` (needs
    /// `recorded_id`; `recorded_status` is that slot's status).
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions; null optional texts are absent.
    fn durable_journal_describe_stop(
        stop_kind: text(stop_kind_len) "stop kind",
        position: i64,
        recorded_id: optional_text(recorded_id_len) "recorded id",
        recorded_status: optional_text(recorded_status_len) "recorded status",
        candidate_id: optional_text(candidate_id_len) "candidate id",
    ) {
        let end = ReplayEnd::from_parts(stop_kind, position, recorded_id, candidate_id, None)?;
        describe_stop(&end, recorded_status.unwrap_or(""))
            .ok_or_else(|| Error::InvalidArgument(format!("a {stop_kind:?} stop is no stop at a call")))
    }

    /// A journal over the calls of `state` (an ActionState's JSON, as
    /// [`durable_journal_read_retained`] hands it out), its index at 0 and
    /// its divergence policy FAIL. On success `*out_handle` holds a handle
    /// for [`durable_journal_replay_journal_free`] and the out buffer is empty.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions; `out_handle` must be writable.
    fn durable_journal_replay_journal_new(state: bytes(state_len) "action state", out_handle: OutReplayHandle) {
        if out_handle.is_null() {
            return Err(Error::InvalidArgument("out_handle is null".into()));
        }
        let recorded = ActionState::from_json(state)?;
        let mut journal = Journal::new(ActionState { call_results: recorded.call_results, ..ActionState::default() });
        journal.set_divergence_policy(DivergencePolicy::Fail);
        // SAFETY: checked non-null; the caller guarantees it is writable.
        unsafe { *out_handle = Box::into_raw(Box::new(journal)) };
        Ok(String::new())
    }

    /// What the journal answers a call `function_id` with `args_digest` (its
    /// id is [`identity::call_id_with_digest`] of both) at the index, as JSON:
    /// `{"step":"hit","position":i,"callId":id}` (the recorded slot at `i`
    /// replays; the index moves on), `{"step":"run",...}` (the recording has no
    /// terminal slot for it there: it would run) or
    /// `{"step":"diverged","divergence":{...}}` (another call was recorded
    /// there: the journal's diff, `Divergence::to_json`; nothing changes).
    ///
    /// # Safety
    /// `handle` must be a live handle; other pointers follow the conventions.
    fn durable_journal_replay_journal_match_next(
        handle: ReplayHandle,
        function_id: text(function_id_len) "function id",
        args_digest: text(args_digest_len) "args digest",
    ) {
        with_replay_journal(handle, |journal| {
            let position = journal.current_call_index();
            let call_id = identity::call_id_with_digest(function_id, args_digest);
            let digest = (!args_digest.is_empty()).then_some(args_digest);
            match journal.match_next_or_clear_subsequent_with_digest(&call_id, digest) {
                Ok(Some(_)) => Ok(step_json("hit", position, &call_id)),
                Ok(None) => Ok(step_json("run", position, &call_id)),
                Err(Error::NonDeterministicReplay(divergence)) => {
                    Ok(format!("{{\"step\":\"diverged\",\"divergence\":{}}}", divergence.to_json()))
                }
                Err(other) => Err(other),
            }
        })
    }

    /// Records, at the index, a success with no payload for the call
    /// `function_id` with `args_digest` that a replay answered another way
    /// (a stub): the index moves past it, as after a run call.
    ///
    /// # Safety
    /// `handle` must be a live handle; other pointers follow the conventions.
    fn durable_journal_replay_journal_record(
        handle: ReplayHandle,
        function_id: text(function_id_len) "function id",
        args_digest: text(args_digest_len) "args digest",
    ) {
        with_replay_journal(handle, |journal| {
            let call_id = identity::call_id_with_digest(function_id, args_digest);
            journal.record_call_completion(&call_id, Outcome::success(None), &mut NoPersist)?;
            Ok(String::new())
        })
    }

    /// `patched(ctx, change_id)` on the journal ([`Journal::patched`]):
    /// `"true"` or `"false"`.
    ///
    /// # Safety
    /// `handle` must be a live handle; other pointers follow the conventions.
    fn durable_journal_replay_journal_patched(handle: ReplayHandle, change_id: text(change_id_len) "change id") {
        with_replay_journal(handle, |journal| Ok(journal.patched(change_id, &mut NoPersist)?.to_string()))
    }

    /// Where the journal stands, as JSON: `{"position":i,"length":n,"slot":s}`,
    /// `s` the slot at the index (`{"id","functionId","argsDigest","status"}`,
    /// the id also split by [`identity::split_call_id`]) or null.
    ///
    /// # Safety
    /// `handle` must be a live handle.
    fn durable_journal_replay_journal_position(handle: ReplayHandle) {
        with_replay_journal(handle, |journal| {
            let mut out = format!("{{\"position\":{},\"length\":{},\"slot\":", journal.current_call_index(), journal.len());
            match journal.current_call_result() {
                None => out.push_str("null"),
                Some(slot) => {
                    let id = slot.call_id.as_ref().and_then(|id| id.as_str()).unwrap_or_default();
                    let (function_id, args_digest) = identity::split_call_id(id);
                    out.push_str("{\"id\":");
                    crate::model::write_json_str(id, &mut out);
                    out.push_str(",\"functionId\":");
                    crate::model::write_json_str(function_id, &mut out);
                    out.push_str(",\"argsDigest\":");
                    crate::model::write_json_str(args_digest, &mut out);
                    out.push_str(&format!(",\"status\":\"{}\"}}", slot.effective_status().as_str()));
                }
            }
            out.push('}');
            Ok(out)
        })
    }
}

/// Frees a handle from [`durable_journal_replay_journal_new`]; null is a no-op.
///
/// # Safety
/// `handle` must be null or a live handle not used by any other thread.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_replay_journal_free(handle: *mut Journal) -> i32 {
    guard(|| {
        if !handle.is_null() {
            // SAFETY: made by Box::into_raw in `_new`, freed once by the owner.
            drop(unsafe { Box::from_raw(handle) });
        }
        Ok(())
    })
}

/// `{"step":step,"position":i,"callId":id}`.
fn step_json(step: &str, position: usize, call_id: &str) -> String {
    let mut out = format!("{{\"step\":\"{step}\",\"position\":{position},\"callId\":");
    crate::model::write_json_str(call_id, &mut out);
    out.push('}');
    out
}

fn with_replay_journal(handle: ReplayHandle, f: impl FnOnce(&mut Journal) -> Result<String>) -> Result<String> {
    if handle.is_null() {
        return Err(Error::InvalidArgument("replay journal handle is null".into()));
    }
    // SAFETY: the caller passes a live handle that no other thread uses
    // during the call (module docs).
    f(unsafe { &mut *handle })
}

#[cfg(test)]
mod tests;
