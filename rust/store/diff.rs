//! What a whole-state `put` changes in a stored entry.
//!
//! Flink Agents hands its store the whole ActionState on every durable call
//! (the initial state, then the state after each call, then the completed
//! one). Writing each as a whole costs O(n²) bytes for an action of n calls.
//! [`StateDelta::between`] compares the new state with the stored one and
//! names the smallest record that turns one into the other, so a store
//! driven by whole-state puts writes what the journal path would: one slot
//! per call.
//!
//! The comparison is by the model's equality, slot by slot and body by body.
//! It reads every stored slot once (O(stored bytes), in memory, no I/O),
//! which is cheaper than parsing the JSON the caller had to hand over.
//! Bodies are equal when their JSON texts are, so a put that changes only a
//! body's key order or number spelling is written too.

use std::borrow::Cow;

use crate::journal::JournalChange;
use crate::model::{ActionState, CallResult, OpaqueJson};

/// The record a whole-state put needs, borrowing from the new state.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum StateDelta<'a> {
    /// The new state equals the stored one: nothing to write.
    Unchanged,
    /// Only the journal changed, and one journal change says how: the same
    /// record the journal path writes for it.
    Journal(JournalChange<'a>),
    /// The new state extends the stored one (see [`StateExtension`]).
    Extend(StateExtension<'a>),
    /// Anything else (no stored entry, another task event, another extra
    /// field, an earlier memory update or output that changed): the whole
    /// state.
    Whole,
}

/// A new state that grows the stored one: its journal cut at `calls_from`
/// and `calls` appended, memory updates and output events appended, and the
/// completed flag set to `completed`. Owned (`'static`) when read back from
/// a log.
#[derive(Clone, Debug, PartialEq)]
pub struct StateExtension<'a> {
    pub calls_from: usize,
    pub calls: Cow<'a, [CallResult]>,
    pub sensory_memory_updates: Cow<'a, [OpaqueJson]>,
    pub short_term_memory_updates: Cow<'a, [OpaqueJson]>,
    pub output_events: Cow<'a, [OpaqueJson]>,
    pub completed: bool,
}

impl StateExtension<'_> {
    /// Applies the extension to `state`; `calls_from` must be within its journal.
    pub fn apply_to(&self, state: &mut ActionState) {
        state.call_results.truncate(self.calls_from);
        state.call_results.extend_from_slice(&self.calls);
        state.sensory_memory_updates.extend_from_slice(&self.sensory_memory_updates);
        state.short_term_memory_updates.extend_from_slice(&self.short_term_memory_updates);
        state.output_events.extend_from_slice(&self.output_events);
        state.completed = self.completed;
    }
}

impl<'a> StateDelta<'a> {
    /// The delta from `stored` (the entry at the key, if any) to `new`.
    pub fn between(stored: Option<&ActionState>, new: &'a ActionState) -> StateDelta<'a> {
        let Some(stored) = stored else { return StateDelta::Whole };
        if stored.task_event != new.task_event || stored.other_fields != new.other_fields {
            return StateDelta::Whole;
        }
        let appended = (
            appended(&stored.sensory_memory_updates, &new.sensory_memory_updates),
            appended(&stored.short_term_memory_updates, &new.short_term_memory_updates),
            appended(&stored.output_events, &new.output_events),
        );
        let (Some(sensory), Some(short_term), Some(outputs)) = appended else { return StateDelta::Whole };
        let calls_from = common_prefix(&stored.call_results, &new.call_results);
        let bodies_unchanged = sensory.is_empty() && short_term.is_empty() && outputs.is_empty();
        if bodies_unchanged && stored.completed == new.completed {
            return match journal_change(&stored.call_results, &new.call_results, calls_from) {
                Some(change) => StateDelta::Journal(change),
                None => StateDelta::Unchanged,
            };
        }
        if bodies_unchanged && !stored.completed && new.completed && new.call_results.is_empty() {
            return StateDelta::Journal(JournalChange::Complete);
        }
        StateDelta::Extend(StateExtension {
            calls_from,
            calls: Cow::Borrowed(&new.call_results[calls_from..]),
            sensory_memory_updates: Cow::Borrowed(sensory),
            short_term_memory_updates: Cow::Borrowed(short_term),
            output_events: Cow::Borrowed(outputs),
            completed: new.completed,
        })
    }
}

/// The items `new` appends to `stored`, or `None` when `new` does not start
/// with `stored`.
fn appended<'a, T: PartialEq>(stored: &[T], new: &'a [T]) -> Option<&'a [T]> {
    (new.len() >= stored.len() && new[..stored.len()] == *stored).then(|| &new[stored.len()..])
}

/// How many leading slots the two journals share.
fn common_prefix(stored: &[CallResult], new: &[CallResult]) -> usize {
    stored.iter().zip(new).take_while(|(a, b)| a == b).count()
}

/// The single journal change from `stored` to `new`, which share their
/// first `from` slots; `None` when the journals are equal.
fn journal_change<'a>(stored: &[CallResult], new: &'a [CallResult], from: usize) -> Option<JournalChange<'a>> {
    if from == stored.len() && from == new.len() {
        return None;
    }
    Some(match &new[from..] {
        [] => JournalChange::Truncate { from },
        [slot] if stored.len() == from + 1 && finalizes(&stored[from], slot) => {
            JournalChange::Replace { index: from, slot }
        }
        [slot] => JournalChange::Put { index: from, slot },
        slots => JournalChange::PutBatch { from, slots },
    })
}

/// Whether `slot` is the terminal outcome of the PENDING slot `stored`.
fn finalizes(stored: &CallResult, slot: &CallResult) -> bool {
    stored.is_pending() && !slot.is_pending() && stored.call_id == slot.call_id
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::key::{BusinessKey, EventIdentity, StateKey};
    use crate::model::{JsonString, Outcome};
    use crate::store::table::StateTable;
    use serde_json::json;

    fn ok(id: &str) -> CallResult {
        CallResult::completed(id, Outcome::success(Some(id.as_bytes().to_vec())))
    }

    fn with_calls(calls: Vec<CallResult>) -> ActionState {
        ActionState { task_event: Some(json!({"input": "q"}).into()), call_results: calls, ..Default::default() }
    }

    /// Applies `delta` to `stored` the way both stores do.
    fn applied(stored: &ActionState, new: &ActionState, delta: &StateDelta<'_>) -> ActionState {
        let key = StateKey::new(BusinessKey::Long(1), 1, "act", EventIdentity::Occurrence("occ".into()));
        let mut table = StateTable::default();
        table.put(&key, stored.clone(), 0);
        table.put_delta(&key, new, delta, 0).unwrap();
        table.get(&key).unwrap().clone()
    }

    fn delta_of(stored: &ActionState, new: &ActionState) -> String {
        let delta = StateDelta::between(Some(stored), new);
        assert_eq!(applied(stored, new, &delta), *new, "{delta:?} does not rebuild the new state");
        match delta {
            StateDelta::Unchanged => "unchanged".into(),
            StateDelta::Whole => "whole".into(),
            StateDelta::Journal(JournalChange::Put { index, .. }) => format!("put {index}"),
            StateDelta::Journal(JournalChange::Replace { index, .. }) => format!("replace {index}"),
            StateDelta::Journal(JournalChange::PutBatch { from, slots }) => format!("batch {from}+{}", slots.len()),
            StateDelta::Journal(JournalChange::Truncate { from }) => format!("truncate {from}"),
            StateDelta::Journal(JournalChange::Complete) => "complete".into(),
            StateDelta::Extend(e) => format!(
                "extend {}+{} s{} t{} o{} c{}",
                e.calls_from,
                e.calls.len(),
                e.sensory_memory_updates.len(),
                e.short_term_memory_updates.len(),
                e.output_events.len(),
                e.completed
            ),
        }
    }

    #[test]
    fn without_a_stored_entry_the_whole_state_is_written() {
        assert_eq!(StateDelta::between(None, &ActionState::default()), StateDelta::Whole);
    }

    #[test]
    fn journal_only_changes_become_the_journal_paths_records() {
        let two = with_calls(vec![ok("a"), ok("b")]);
        let cases = [
            (with_calls(vec![]), with_calls(vec![ok("a")]), "put 0"),
            (with_calls(vec![ok("a")]), two.clone(), "put 1"),
            (two.clone(), two.clone(), "unchanged"),
            (with_calls(vec![ok("a"), CallResult::pending("b")]), two.clone(), "replace 1"),
            (with_calls(vec![ok("a")]), with_calls(vec![ok("a"), CallResult::pending("b")]), "put 1"),
            (two.clone(), with_calls(vec![ok("a")]), "truncate 1"),
            (two.clone(), with_calls(vec![]), "truncate 0"),
            (two.clone(), with_calls(vec![ok("x")]), "put 0"),
            (two.clone(), with_calls(vec![ok("a"), ok("x"), ok("y")]), "batch 1+2"),
            (with_calls(vec![ok("a")]), two.clone(), "put 1"),
            // A pending slot followed by more: a cut, not a finalize.
            (with_calls(vec![CallResult::pending("a"), ok("b")]), with_calls(vec![ok("a")]), "put 0"),
            // Pending to pending of another call: not a finalize either.
            (with_calls(vec![CallResult::pending("a")]), with_calls(vec![CallResult::pending("b")]), "put 0"),
            (with_calls(vec![CallResult::pending("a")]), with_calls(vec![ok("a"), ok("b")]), "batch 0+2"),
        ];
        for (stored, new, expected) in cases {
            assert_eq!(delta_of(&stored, &new), expected, "{stored:?} -> {new:?}");
        }
    }

    #[test]
    fn completing_with_nothing_new_is_the_complete_record() {
        let stored = with_calls(vec![ok("a"), ok("b")]);
        let mut done = stored.clone();
        done.mark_completed();
        assert_eq!(delta_of(&stored, &done), "complete");
        assert_eq!(delta_of(&done, &done), "unchanged");
    }

    #[test]
    fn appended_memory_updates_and_outputs_extend_the_entry() {
        let stored = with_calls(vec![ok("a"), ok("b")]);
        let mut done = stored.clone();
        done.short_term_memory_updates.push(json!({"path": "n", "value": 1}).into());
        done.sensory_memory_updates.push(json!({"path": "s", "value": [1, 2]}).into());
        done.output_events.push(json!({"@class": "org.example.OutputEvent", "output": "answer"}).into());
        done.mark_completed();
        assert_eq!(delta_of(&stored, &done), "extend 0+0 s1 t1 o1 ctrue");

        let mut more = done.clone();
        more.output_events.push(json!({"@class": "org.example.OutputEvent", "output": "more"}).into());
        assert_eq!(delta_of(&done, &more), "extend 0+0 s0 t0 o1 ctrue");

        let mut with_call = stored.clone();
        with_call.call_results.push(ok("c"));
        with_call.output_events.push(json!("partial").into());
        assert_eq!(delta_of(&stored, &with_call), "extend 2+1 s0 t0 o1 cfalse");
    }

    #[test]
    fn leaving_the_completed_state_is_an_extension_too() {
        let mut done = with_calls(vec![]);
        done.completed = true;
        assert_eq!(delta_of(&done, &with_calls(vec![ok("a")])), "extend 0+1 s0 t0 o0 cfalse");
        // Completed while keeping its journal: the flag without the cut.
        let stored = with_calls(vec![ok("a")]);
        let kept = ActionState { completed: true, ..stored.clone() };
        assert_eq!(delta_of(&stored, &kept), "extend 1+0 s0 t0 o0 ctrue");
    }

    #[test]
    fn a_state_that_is_not_an_extension_is_written_whole() {
        let stored = ActionState {
            output_events: vec![json!("first").into()],
            sensory_memory_updates: vec![json!({"path": "a", "value": 1}).into()],
            ..with_calls(vec![ok("a")])
        };
        let other_event = ActionState { task_event: Some(json!({"input": "other"}).into()), ..stored.clone() };
        let changed_output = ActionState { output_events: vec![json!("changed").into(), json!("new").into()], ..stored.clone() };
        let dropped_update = ActionState { sensory_memory_updates: vec![], ..stored.clone() };
        let mut new_field = stored.clone();
        new_field.other_fields.push((JsonString::Text("subagentResultEvents".into()), json!([]).into()));
        for new in [other_event, changed_output, dropped_update, new_field] {
            assert_eq!(delta_of(&stored, &new), "whole", "{new:?}");
        }
    }

    #[test]
    fn a_change_in_an_earlier_slot_is_found() {
        let stored = with_calls(vec![ok("a"), ok("b"), ok("c")]);
        let mut new = stored.clone();
        new.call_results[0].result_payload = Some(b"other".to_vec());
        new.call_results.push(ok("d"));
        assert_eq!(delta_of(&stored, &new), "batch 0+4");
        let mut exception = stored.clone();
        exception.call_results[1] = CallResult::completed("b", Outcome::failure(b"boom".to_vec()));
        assert_eq!(delta_of(&stored, &exception), "batch 1+2");
    }
}
