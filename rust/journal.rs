//! The journal state machine of spec §2: one ActionState, a call index that
//! is never persisted, and the primitives that move both.
//!
//! Every mutation goes through [`Journal::commit`], which applies it, hands
//! the change to the [`Persister`] and undoes it if persisting fails: the
//! in-memory journal never runs ahead of what is durable.

mod divergence;
mod patch;
mod restore_plan;
mod semantics;

pub use divergence::{CallIdentity, Divergence, DivergencePolicy, EntryAddress};
pub use patch::{patch_marker_id, patch_step, PatchStep, PATCH_MARKER_PREFIX};
pub use restore_plan::{describe_stop, plan_restore, Consequence, ReplayEnd, RestorePlan};
pub use semantics::{BatchStep, CallSemantics, Interruption};

use crate::error::{Error, Result};
use crate::model::{ActionState, CallResult, CallStatus, Outcome};

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
    divergence_policy: DivergencePolicy,
    entry: Option<EntryAddress>,
    /// Divergences found under [`DivergencePolicy::Warn`].
    diverged_calls: u64,
    /// The last of them, until a binding takes it to report it.
    unreported: Option<Divergence>,
    /// The canonical encoding of the store entry the journal belongs to,
    /// which its calls' idempotency keys derive from (see `semantics`).
    call_key_scope: Option<Vec<u8>>,
}

impl Journal {
    /// A journal over a (re)started action execution: the index starts at 0;
    /// the divergence policy is the default, [`DivergencePolicy::Warn`].
    pub fn new(state: ActionState) -> Journal {
        Journal { state, ..Journal::default() }
    }

    /// How a re-run call that differs from the recorded one is answered
    /// from now on (see [`DivergencePolicy`]).
    pub fn set_divergence_policy(&mut self, policy: DivergencePolicy) {
        self.divergence_policy = policy;
    }

    pub fn divergence_policy(&self) -> DivergencePolicy {
        self.divergence_policy
    }

    /// Names the store entry this journal belongs to in divergence reports.
    pub fn set_entry(&mut self, entry: EntryAddress) {
        self.entry = Some(entry);
    }

    pub fn entry(&self) -> Option<&EntryAddress> {
        self.entry.as_ref()
    }

    /// How many calls diverged from the journal under
    /// [`DivergencePolicy::Warn`] (the journal was cut and they ran).
    pub fn diverged_calls(&self) -> u64 {
        self.diverged_calls
    }

    /// The last divergence found under [`DivergencePolicy::Warn`] that no
    /// one has taken yet; taking it leaves `None`.
    pub fn take_unreported_divergence(&mut self) -> Option<Divergence> {
        self.unreported.take()
    }

    /// Whether [`Journal::begin_call`] of a call without a reconciler would
    /// answer `Execute` and change nothing: no slot at the index to match or
    /// cut, no divergence waiting to be reported. A binding that remembers
    /// it after recording a call needs no crossing to begin the next one.
    pub fn next_call_just_runs(&self) -> bool {
        self.current_call_result().is_none() && self.unreported.is_none()
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
    ///
    /// Cutting is the journal's answer to a divergence: under
    /// [`DivergencePolicy::Fail`] it is refused instead
    /// (`NonDeterministicReplay`, nothing changes).
    pub fn match_next_or_clear_subsequent(&mut self, call_id: &str) -> Result<Option<CallResult>> {
        self.match_next_or_clear_subsequent_with_digest(call_id, None)
    }

    /// [`Journal::match_next_or_clear_subsequent`] for a caller that has the
    /// call's args digest (Flink Agents' primitives pass one): matching stays
    /// on the id alone; the digest only goes into a divergence report.
    pub fn match_next_or_clear_subsequent_with_digest(
        &mut self,
        call_id: &str,
        args_digest: Option<&str>,
    ) -> Result<Option<CallResult>> {
        let Some(slot) = self.state.call_results.get(self.index) else { return Ok(None) };
        if !slot.is_for(call_id) {
            self.diverge(call_id, args_digest)?;
            self.state.call_results.truncate(self.index);
            return Ok(None);
        }
        if slot.is_pending() {
            return Ok(None);
        }
        let hit = slot.clone();
        self.index += 1;
        Ok(Some(hit))
    }

    /// The call `call_id` differs from the slot at the index: refused
    /// under [`DivergencePolicy::Fail`], counted and kept for the binding
    /// under [`DivergencePolicy::Warn`]. Changes nothing else.
    fn diverge(&mut self, call_id: &str, args_digest: Option<&str>) -> Result<()> {
        self.diverge_at(self.index, call_id, args_digest)
    }

    /// [`Journal::diverge`] for the slot at absolute `position`.
    fn diverge_at(&mut self, position: usize, call_id: &str, args_digest: Option<&str>) -> Result<()> {
        if self.divergence_policy == DivergencePolicy::Cut {
            return Ok(());
        }
        let recorded = &self.state.call_results[position];
        let divergence = Divergence::between(self.entry.as_ref(), position, recorded, call_id, args_digest);
        if self.divergence_policy == DivergencePolicy::Fail {
            return Err(Error::NonDeterministicReplay(Box::new(divergence)));
        }
        self.diverged_calls += 1;
        self.unreported = Some(divergence);
        Ok(())
    }

    /// Appends a terminal slot at the index (cutting any tail there) and
    /// persists it; the index moves past it.
    pub fn record_call_completion(&mut self, call_id: &str, outcome: Outcome, persister: &mut dyn Persister) -> Result<()> {
        self.check_index_within_journal()?;
        let slot = CallResult::completed(call_id, outcome);
        self.put_at_index(slot, persister)?;
        self.index += 1;
        Ok(())
    }

    /// Appends a PENDING slot; only allowed at the end of the journal.
    pub fn append_pending_call(&mut self, call_id: &str, persister: &mut dyn Persister) -> Result<()> {
        if self.index != self.len() {
            return Err(Error::SlotAlreadyExists { index: self.index, size: self.len() });
        }
        self.put_at_index(CallResult::pending(call_id), persister)
    }

    /// Replaces the PENDING slot at the index with its outcome; index +1.
    pub fn finalize_current_call(&mut self, call_id: &str, outcome: Outcome, persister: &mut dyn Persister) -> Result<()> {
        self.finalize_call_at(self.index, call_id, outcome, persister)?;
        self.index += 1;
        Ok(())
    }

    /// Replaces the PENDING slot at absolute position `index`; the call index
    /// does not move (batches advance it once at the end).
    pub fn finalize_call_at(&mut self, index: usize, call_id: &str, outcome: Outcome, persister: &mut dyn Persister) -> Result<()> {
        let refusal = match self.state.call_results.get(index) {
            None => Some("no slot".to_string()),
            Some(slot) if !slot.is_for(call_id) => {
                Some(format!("the slot belongs to another call ('{}')", slot.call_id_for_display()))
            }
            Some(slot) if !slot.is_pending() => Some("the slot is already terminal".to_string()),
            Some(_) => None,
        };
        if let Some(reason) = refusal {
            return Err(Error::NoMatchingPendingSlot { call_id: call_id.to_string(), index, reason });
        }
        // The slot keeps the digest it was reserved with (Flink Agents may
        // have written one): finalizing changes its outcome, not its identity.
        let terminal = CallResult {
            args_digest: self.state.call_results[index].args_digest.clone(),
            ..CallResult::completed(call_id, outcome)
        };
        let previous = std::mem::replace(&mut self.state.call_results[index], terminal);
        let persisted = persister.persist(&self.state, JournalChange::Replace { index, slot: &self.state.call_results[index] });
        if let Err(err) = persisted {
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
    pub fn reserve_pending_batch(&mut self, call_ids: &[&str], persister: &mut dyn Persister) -> Result<()> {
        if self.index != self.len() {
            return Err(Error::SlotAlreadyExists { index: self.index, size: self.len() });
        }
        let from = self.len();
        self.state.call_results.extend(call_ids.iter().map(|id| CallResult::pending(*id)));
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
    /// before the call runs. A recorded slot of another call at the index is
    /// a divergence, answered by the [`DivergencePolicy`] (spec §2.7).
    pub fn begin_call(&mut self, call_id: &str, reconcilable: bool, persister: &mut dyn Persister) -> Result<CallStep> {
        let current = self.current_call_result().map(|slot| (slot.is_for(call_id), slot.effective_status()));
        match current {
            Some((true, CallStatus::Pending)) if reconcilable => Ok(CallStep::Reconcile),
            Some((true, CallStatus::Pending)) => Ok(CallStep::Execute),
            Some((true, _)) => match self.match_next_or_clear_subsequent(call_id)? {
                Some(hit) => Ok(CallStep::Replay(hit)),
                None => Err(Error::IllegalState(format!(
                    "terminal slot for '{call_id}' at index {} did not replay",
                    self.index
                ))),
            },
            Some((false, _)) if reconcilable => {
                self.diverge(call_id, None)?;
                self.clear_call_results_from_current_index_and_persist(persister)?;
                self.append_pending_call(call_id, persister)?;
                Ok(CallStep::Execute)
            }
            Some((false, _)) => {
                self.match_next_or_clear_subsequent(call_id)?;
                Ok(CallStep::Execute)
            }
            None if reconcilable => {
                self.check_index_within_journal()?;
                self.append_pending_call(call_id, persister)?;
                Ok(CallStep::Execute)
            }
            None => Ok(CallStep::Execute),
        }
    }

    /// Starts a batch of calls at the index (spec §2.5, `durableExecuteAll`)
    /// and says, per call, whether it runs (`true`) or replays its terminal
    /// slot at `index + i`. Recorded slots that match the batch's ids in
    /// order are kept: terminal ones replay, PENDING ones run. The first
    /// recorded slot that belongs to another call is a divergence (see
    /// [`DivergencePolicy`]; refused under `Fail` before anything changes):
    /// the journal is cut there. The calls past the kept slots get PENDING
    /// slots, reserved with one persist. The index does not move: the caller
    /// finalizes each call at its absolute slot, then advances past the batch.
    pub fn begin_batch(&mut self, call_ids: &[&str], persister: &mut dyn Persister) -> Result<Vec<bool>> {
        self.check_index_within_journal()?;
        let start = self.index;
        let mut runs = Vec::with_capacity(call_ids.len());
        for (i, id) in call_ids.iter().enumerate() {
            match self.state.call_results.get(start + i) {
                Some(slot) if slot.is_for(id) => runs.push(slot.is_pending()),
                Some(_) => {
                    self.diverge_at(start + i, id, None)?;
                    break;
                }
                None => break,
            }
        }
        let kept = runs.len();
        if kept == call_ids.len() {
            return Ok(runs);
        }
        let from = start + kept;
        let removed = self.state.call_results.split_off(from);
        self.state.call_results.extend(call_ids[kept..].iter().map(|id| CallResult::pending(*id)));
        let change = JournalChange::PutBatch { from, slots: &self.state.call_results[from..] };
        if let Err(err) = persister.persist(&self.state, change) {
            self.state.call_results.truncate(from);
            self.state.call_results.extend(removed);
            return Err(persist_error(err));
        }
        runs.resize(call_ids.len(), true);
        Ok(runs)
    }

    /// Records the outcome of a call that [`Journal::begin_call`] said to run:
    /// finalizes its PENDING slot when there is one, else appends the outcome.
    pub fn complete_call(&mut self, call_id: &str, outcome: Outcome, persister: &mut dyn Persister) -> Result<()> {
        let pending_here = matches!(self.current_call_result(),
            Some(slot) if slot.is_for(call_id) && slot.is_pending());
        if pending_here {
            self.finalize_current_call(call_id, outcome, persister)
        } else {
            self.record_call_completion(call_id, outcome, persister)
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
