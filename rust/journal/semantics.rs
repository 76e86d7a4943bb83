//! What the journal does with a call that was interrupted: the process died
//! after the call started and before its outcome was recorded.
//!
//! * [`CallSemantics::AtLeastOnce`] (the default): the re-run runs the call
//!   again. With the call's idempotency key ([`Journal::idempotency_key_at`])
//!   an external service that deduplicates by it still sees one request.
//! * [`CallSemantics::AtMostOnce`]: a PENDING slot is persisted before the
//!   body runs (as for a call with a reconciler, spec §2.3), and a re-run that
//!   finds that slot without an outcome does not run the body: it is answered
//!   with [`Error::CallInterrupted`] (or its reconciler decides, when it has
//!   one).
//!
//! The semantics of a call is declared by the call site on every run, as a
//! reconciler is; the stored slot is an ordinary PENDING slot (the JSON Flink
//! Agents reads is unchanged). An interruption records nothing: the slot
//! stays PENDING, so every later re-run is answered the same way, and the
//! index moves past it so the calls after it keep their positions.

use std::fmt;

use super::{CallStep, EntryAddress, Journal, Persister};
use crate::error::{Error, Result};
use crate::identity::idempotency::call_idempotency_key;
use crate::model::write_json_str;

/// How a call is treated when it was interrupted. The numbers cross the JNI
/// and C boundaries (`CallSemantics` in Java; 0 there means "not declared").
#[repr(i32)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum CallSemantics {
    #[default]
    AtLeastOnce = 1,
    AtMostOnce = 2,
}

impl CallSemantics {
    /// 0 is "not declared" (None); 1 and 2 the semantics; anything else an error.
    pub fn from_i32(value: i32) -> Result<Option<CallSemantics>> {
        match value {
            0 => Ok(None),
            1 => Ok(Some(CallSemantics::AtLeastOnce)),
            2 => Ok(Some(CallSemantics::AtMostOnce)),
            _ => Err(Error::InvalidArgument(format!("no call semantics numbered {value}"))),
        }
    }

    /// The semantics a call runs with: its own when it declares one, else the
    /// job's default, else at least once.
    pub fn resolve(declared: Option<CallSemantics>, job_default: Option<CallSemantics>) -> CallSemantics {
        declared.or(job_default).unwrap_or_default()
    }
}

/// What [`Journal::begin_batch_with_semantics`] says of one call of a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchStep {
    /// Run it and finalize its slot.
    Run,
    /// Replay its terminal slot.
    Replay,
    /// An at-most-once call whose slot a run before this one left PENDING:
    /// answer it with [`Journal::interruption_at`]; it does not run.
    Interrupted,
}

/// An at-most-once call found its slot PENDING: what the binding's exception
/// carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interruption {
    pub entry: Option<EntryAddress>,
    /// The call index of the slot.
    pub position: usize,
    pub call_id: String,
    /// The call's idempotency key, when the journal belongs to a store entry.
    pub idempotency_key: Option<String>,
}

impl Interruption {
    /// `{"key", "sequenceNumber", "action"` (null without an entry address),
    /// `"position", "functionId", "idempotencyKey"}`.
    pub fn to_json(&self) -> String {
        let mut out = String::from("{");
        EntryAddress::write_json_fields(self.entry.as_ref(), &mut out);
        out.push_str(&format!(",\"position\":{},\"functionId\":", self.position));
        write_json_str(&self.call_id, &mut out);
        out.push_str(",\"idempotencyKey\":");
        match &self.idempotency_key {
            Some(key) => write_json_str(key, &mut out),
            None => out.push_str("null"),
        }
        out.push('}');
        out
    }
}

impl fmt::Display for Interruption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the at-most-once call '{}' at call index {}", self.call_id, self.position)?;
        if let Some(e) = &self.entry {
            write!(f, " of action '{}' for key {} (sequence number {})", e.action, e.key, e.sequence_number)?;
        }
        write!(f, " was started by an earlier run that ended before its outcome was recorded; it may have taken effect, so it does not run again")?;
        if let Some(key) = &self.idempotency_key {
            write!(f, " (idempotency key {key})")?;
        }
        write!(f, "; give the call a reconciler to find out what happened")
    }
}

impl Journal {
    /// Makes the idempotency keys of this journal's calls belong to a store
    /// entry: `entry` is its canonical encoding (`StateKey::encode`). Set by
    /// whoever opens the journal over the entry.
    pub fn set_call_key_scope(&mut self, entry: Vec<u8>) {
        self.call_key_scope = Some(entry);
    }

    /// The idempotency key of the call `call_id` at absolute `position`
    /// (docs/identity.md): its occurrence is the number of slots before that
    /// position that belong to the same id. Refused when the journal belongs
    /// to no store entry, or `position` is past the end.
    pub fn idempotency_key_at(&self, position: usize, call_id: &str) -> Result<String> {
        let Some(entry) = &self.call_key_scope else {
            return Err(Error::IllegalState(
                "this journal belongs to no store entry, so its calls have no idempotency key: open it through a store \
                 (ActionStateStore.openContext), as the operators do"
                    .into(),
            ));
        };
        if position > self.len() {
            return Err(Error::IndexOutOfRange { index: position as i64, size: self.len() });
        }
        let occurrence = self.state.call_results[..position].iter().filter(|slot| slot.is_for(call_id)).count();
        call_idempotency_key(entry, call_id, occurrence as i64)
    }

    /// The [`Error::CallInterrupted`] of the call `call_id` at `position`.
    pub fn interruption_at(&self, position: usize, call_id: &str) -> Error {
        Error::CallInterrupted(Box::new(Interruption {
            entry: self.entry.clone(),
            position,
            call_id: call_id.to_string(),
            idempotency_key: self.idempotency_key_at(position, call_id).ok(),
        }))
    }

    /// [`Journal::begin_call`] for a call with a declared semantics (None:
    /// not declared) under a job default (None: at least once). At least
    /// once is `begin_call` itself. At most once persists a PENDING slot
    /// before answering `Execute`, and answers a PENDING slot of the same
    /// call with [`Error::CallInterrupted`] (the index moves past it, nothing
    /// is persisted), or with `Reconcile` when the call has a reconciler.
    pub fn begin_call_with_semantics(
        &mut self,
        call_id: &str,
        reconcilable: bool,
        declared: Option<CallSemantics>,
        job_default: Option<CallSemantics>,
        persister: &mut dyn Persister,
    ) -> Result<CallStep> {
        if CallSemantics::resolve(declared, job_default) == CallSemantics::AtLeastOnce {
            return self.begin_call(call_id, reconcilable, persister);
        }
        let pending_here = matches!(self.current_call_result(), Some(slot) if slot.is_for(call_id) && slot.is_pending());
        if pending_here && !reconcilable {
            let interrupted = self.interruption_at(self.index, call_id);
            self.index += 1;
            return Err(interrupted);
        }
        // With "reconcilable" the journal writes the PENDING slot first.
        self.begin_call(call_id, true, persister)
    }

    /// [`Journal::begin_batch`] for calls with declared semantics (one per
    /// id, None: not declared) under a job default. The batch's PENDING slots
    /// are reserved with one persist before any body runs, so a slot a run
    /// before this one left PENDING may belong to a body that ran: an
    /// at-most-once call there is [`BatchStep::Interrupted`]; the others run
    /// or replay as in `begin_batch`.
    pub fn begin_batch_with_semantics(
        &mut self,
        call_ids: &[&str],
        declared: &[Option<CallSemantics>],
        job_default: Option<CallSemantics>,
        persister: &mut dyn Persister,
    ) -> Result<Vec<BatchStep>> {
        if declared.len() != call_ids.len() {
            return Err(Error::InvalidArgument(format!(
                "{} call semantics for a batch of {} calls",
                declared.len(),
                call_ids.len()
            )));
        }
        let start = self.index;
        // The slots begin_batch keeps: those matching the batch in order.
        let left_pending: Vec<bool> = call_ids
            .iter()
            .enumerate()
            .map_while(|(i, id)| self.call_result_at(start + i).filter(|slot| slot.is_for(id)).map(|slot| slot.is_pending()))
            .collect();
        let runs = self.begin_batch(call_ids, persister)?;
        Ok(runs
            .iter()
            .enumerate()
            .map(|(i, runs)| match (runs, left_pending.get(i).copied().unwrap_or(false)) {
                (false, _) => BatchStep::Replay,
                (true, true) if CallSemantics::resolve(declared[i], job_default) == CallSemantics::AtMostOnce => {
                    BatchStep::Interrupted
                }
                (true, _) => BatchStep::Run,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests;
