//! The journal state machine of spec §2: one ActionState, a call index that
//! is never persisted, and the primitives that move both.
//!
//! Every mutation goes through [`Journal::commit`], which applies it, hands
//! the change to the [`Persister`] and undoes it if persisting fails: the
//! in-memory journal never runs ahead of what is durable.

use crate::error::{Error, Result};
use crate::model::{ActionState, CallResult, CallStatus};

/// One persisted mutation, small enough for an append-only store to write
/// as a delta instead of rewriting the whole ActionState.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JournalChange<'a> {
    /// The journal was cut at `index` and `slot` now stands there.
    Put { index: usize, slot: &'a CallResult },
    /// The pending slot at `index` was replaced by its terminal outcome.
    Replace { index: usize, slot: &'a CallResult },
    /// The journal was cut at `from` and these pending slots appended.
    PutBatch { from: usize, slots: &'a [CallResult] },
    /// Everything from `from` on was removed.
    Truncate { from: usize },
    /// The action completed; its journal was dropped.
    Complete,
}

/// Receives every persisted mutation, after it is applied in memory.
/// An error makes the journal undo the mutation and report `PersistFailed`
/// (or the persister's own error kind).
pub trait Persister {
    fn persist(&mut self, state: &ActionState, change: JournalChange<'_>) -> Result<()>;
}

/// A persister that keeps nothing: for journals whose owner persists itself.
pub struct NoPersist;

impl Persister for NoPersist {
    fn persist(&mut self, _: &ActionState, _: JournalChange<'_>) -> Result<()> {
        Ok(())
    }
}

/// What the caller of [`Journal::begin_call`] must do next.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CallStep {
    /// Return (or rethrow) this recorded outcome; nothing runs.
    Replay(CallResult),
    /// Run the call, then report its outcome with [`Journal::complete_call`].
    Execute,
    /// A call with this id was started but never finished: run the
    /// reconciler, then report its outcome with [`Journal::complete_call`].
    Reconcile,
}

#[derive(Clone, Debug, Default)]
pub struct Journal {
    state: ActionState,
    index: usize,
}

impl Journal {
    /// A journal over a (re)started action execution: the index starts at 0.
    pub fn new(state: ActionState) -> Journal {
        Journal { state, index: 0 }
    }

    pub fn state(&self) -> &ActionState {
        &self.state
    }

    pub fn current_call_index(&self) -> usize {
        self.index
    }

    pub fn len(&self) -> usize {
        self.state.call_results.len()
    }

    pub fn is_empty(&self) -> bool {
        self.state.call_results.is_empty()
    }

    /// The slot at the current index, if any.
    pub fn current_call_result(&self) -> Option<&CallResult> {
        self.state.call_results.get(self.index)
    }

    /// The slot at absolute position `index`, if any.
    pub fn call_result_at(&self, index: usize) -> Option<&CallResult> {
        self.state.call_results.get(index)
    }

    /// Spec §2.1 `matchNextOrClearSubsequentCallResult`: a terminal slot with
    /// this id is a hit (index +1). A pending slot with this id is a miss that
    /// keeps it. Any other slot cuts the journal at the index, in memory only;
    /// so does a slot with a null id, which belongs to no call
    /// ([`CallResult::is_for`]).
    pub fn match_next_or_clear_subsequent(&mut self, function_id: &str) -> Option<CallResult> {
        let slot = self.state.call_results.get(self.index)?;
        if !slot.is_for(function_id) {
            self.state.call_results.truncate(self.index);
            return None;
        }
        if slot.is_pending() {
            return None;
        }
        let hit = slot.clone();
        self.index += 1;
        Some(hit)
    }

    /// Appends a terminal slot at the index (cutting any tail there) and
    /// persists it; the index moves past it.
    pub fn record_call_completion(
        &mut self,
        function_id: &str,
        result: Option<Vec<u8>>,
        exception: Option<Vec<u8>>,
        persister: &mut dyn Persister,
    ) -> Result<()> {
        self.check_index_within_journal()?;
        let slot = CallResult::completed(function_id, result, exception);
        self.put_at_index(slot, persister)?;
        self.index += 1;
        Ok(())
    }

    /// Appends a PENDING slot; only allowed at the end of the journal.
    pub fn append_pending_call(&mut self, function_id: &str, persister: &mut dyn Persister) -> Result<()> {
        if self.index != self.len() {
            return Err(Error::SlotAlreadyExists { index: self.index, size: self.len() });
        }
        self.put_at_index(CallResult::pending(function_id), persister)
    }

    /// Replaces the PENDING slot at the index with its outcome; index +1.
    pub fn finalize_current_call(
        &mut self,
        function_id: &str,
        result: Option<Vec<u8>>,
        exception: Option<Vec<u8>>,
        persister: &mut dyn Persister,
    ) -> Result<()> {
        self.finalize_call_at(self.index, function_id, result, exception, persister)?;
        self.index += 1;
        Ok(())
    }

    /// Replaces the PENDING slot at absolute position `index`; the call index
    /// does not move (batches advance it once at the end).
    pub fn finalize_call_at(
        &mut self,
        index: usize,
        function_id: &str,
        result: Option<Vec<u8>>,
        exception: Option<Vec<u8>>,
        persister: &mut dyn Persister,
    ) -> Result<()> {
        let refusal = match self.state.call_results.get(index) {
            None => Some("no slot".to_string()),
            Some(slot) if !slot.is_for(function_id) => {
                Some(format!("the slot belongs to another call ('{}')", slot.function_id_for_display()))
            }
            Some(slot) if !slot.is_pending() => Some("the slot is already terminal".to_string()),
            Some(_) => None,
        };
        if let Some(reason) = refusal {
            return Err(Error::NoMatchingPendingSlot { function_id: function_id.to_string(), index, reason });
        }
        // The slot keeps the digest it was reserved with (Flink Agents may
        // have written one): finalizing changes its outcome, not its identity.
        let terminal = CallResult {
            args_digest: self.state.call_results[index].args_digest.clone(),
            ..CallResult::completed(function_id, result, exception)
        };
        let previous = std::mem::replace(&mut self.state.call_results[index], terminal);
        let outcome = persister.persist(&self.state, JournalChange::Replace { index, slot: &self.state.call_results[index] });
        if let Err(err) = outcome {
            self.state.call_results[index] = previous;
            return Err(persist_error(err));
        }
        Ok(())
    }

    /// Cuts the journal at the current index and persists the cut. An index
    /// already past the end (after an absolute clear) has nothing to cut.
    pub fn clear_call_results_from_current_index_and_persist(&mut self, persister: &mut dyn Persister) -> Result<()> {
        self.clear_call_results_from_and_persist(self.index.min(self.len()), persister)
    }

    /// Cuts the journal at absolute position `from` and persists the cut.
    pub fn clear_call_results_from_and_persist(&mut self, from: usize, persister: &mut dyn Persister) -> Result<()> {
        if from > self.len() {
            return Err(Error::IndexOutOfRange { index: from as i64, size: self.len() });
        }
        let removed = self.state.call_results.split_off(from);
        if let Err(err) = persister.persist(&self.state, JournalChange::Truncate { from }) {
            self.state.call_results.extend(removed);
            return Err(persist_error(err));
        }
        Ok(())
    }

    /// Appends one PENDING slot per id with a single persist (index == size).
    pub fn reserve_pending_batch(&mut self, function_ids: &[&str], persister: &mut dyn Persister) -> Result<()> {
        if self.index != self.len() {
            return Err(Error::SlotAlreadyExists { index: self.index, size: self.len() });
        }
        let from = self.len();
        self.state.call_results.extend(function_ids.iter().map(|id| CallResult::pending(*id)));
        let change = JournalChange::PutBatch { from, slots: &self.state.call_results[from..] };
        if let Err(err) = persister.persist(&self.state, change) {
            self.state.call_results.truncate(from);
            return Err(persist_error(err));
        }
        Ok(())
    }

    /// Moves the index past `n` slots (after a batch); it never passes the end.
    pub fn advance_call_index_by(&mut self, n: usize) -> Result<()> {
        let target = self.index.checked_add(n).filter(|t| *t <= self.len());
        match target {
            Some(target) => {
                self.index = target;
                Ok(())
            }
            None => Err(Error::IndexOutOfRange { index: self.index as i64 + n as i64, size: self.len() }),
        }
    }

    /// Marks the action completed (the journal is dropped) and persists it.
    pub fn mark_completed(&mut self, persister: &mut dyn Persister) -> Result<()> {
        let before = self.state.clone();
        self.state.mark_completed();
        if let Err(err) = persister.persist(&self.state, JournalChange::Complete) {
            self.state = before;
            return Err(persist_error(err));
        }
        self.index = 0;
        Ok(())
    }

    /// Decides how a durable call proceeds (spec §2.2 without a reconciler,
    /// §2.3 with one), applying and persisting whatever the decision needs
    /// before the call runs.
    pub fn begin_call(&mut self, function_id: &str, reconcilable: bool, persister: &mut dyn Persister) -> Result<CallStep> {
        let current = self.current_call_result().map(|slot| (slot.is_for(function_id), slot.effective_status()));
        match current {
            Some((true, CallStatus::Pending)) if reconcilable => Ok(CallStep::Reconcile),
            Some((true, CallStatus::Pending)) => Ok(CallStep::Execute),
            Some((true, _)) => match self.match_next_or_clear_subsequent(function_id) {
                Some(hit) => Ok(CallStep::Replay(hit)),
                None => Err(Error::IllegalState(format!(
                    "terminal slot for '{function_id}' at index {} did not replay",
                    self.index
                ))),
            },
            Some((false, _)) if reconcilable => {
                self.clear_call_results_from_current_index_and_persist(persister)?;
                self.append_pending_call(function_id, persister)?;
                Ok(CallStep::Execute)
            }
            Some((false, _)) => {
                self.match_next_or_clear_subsequent(function_id);
                Ok(CallStep::Execute)
            }
            None if reconcilable => {
                self.check_index_within_journal()?;
                self.append_pending_call(function_id, persister)?;
                Ok(CallStep::Execute)
            }
            None => Ok(CallStep::Execute),
        }
    }

    /// Records the outcome of a call that [`Journal::begin_call`] said to run:
    /// finalizes its PENDING slot when there is one, else appends the outcome.
    pub fn complete_call(
        &mut self,
        function_id: &str,
        result: Option<Vec<u8>>,
        exception: Option<Vec<u8>>,
        persister: &mut dyn Persister,
    ) -> Result<()> {
        let pending_here = matches!(self.current_call_result(),
            Some(slot) if slot.is_for(function_id) && slot.is_pending());
        if pending_here {
            self.finalize_current_call(function_id, result, exception, persister)
        } else {
            self.record_call_completion(function_id, result, exception, persister)
        }
    }

    fn check_index_within_journal(&self) -> Result<()> {
        if self.index > self.len() {
            return Err(Error::IndexOutOfRange { index: self.index as i64, size: self.len() });
        }
        Ok(())
    }

    /// Cuts the journal at the index, puts `slot` there and persists; undoes
    /// both if persisting fails.
    fn put_at_index(&mut self, slot: CallResult, persister: &mut dyn Persister) -> Result<()> {
        let index = self.index;
        let removed = self.state.call_results.split_off(index);
        self.state.call_results.push(slot);
        if let Err(err) = persister.persist(&self.state, JournalChange::Put { index, slot: &self.state.call_results[index] }) {
            self.state.call_results.truncate(index);
            self.state.call_results.extend(removed);
            return Err(persist_error(err));
        }
        Ok(())
    }
}

/// Store errors keep their own kind (the caller needs to tell a full disk
/// from a lock conflict or a record over the size limit); anything else a persister reports is PersistFailed.
fn persist_error(err: Error) -> Error {
    match err {
        Error::StoreIo { .. }
        | Error::StoreCorrupt { .. }
        | Error::StoreLocked { .. }
        | Error::SizeLimitExceeded { .. }
        | Error::PersistFailed(_)
        | Error::Closed(_) => err,
        other => Error::PersistFailed(other.to_string()),
    }
}

#[cfg(test)]
mod tests;
