use super::*;
use crate::error::ErrorCode;
use crate::journal::{JournalChange, NoPersist};
use crate::model::{ActionState, CallResult, Outcome};

/// Counts persisted changes.
#[derive(Default)]
struct Counter {
    puts: usize,
}

impl Persister for Counter {
    fn persist(&mut self, _: &ActionState, _: JournalChange<'_>) -> Result<()> {
        self.puts += 1;
        Ok(())
    }
}

const AT_MOST_ONCE: Option<CallSemantics> = Some(CallSemantics::AtMostOnce);

fn journal_of(slots: Vec<CallResult>) -> Journal {
    let mut journal = Journal::new(ActionState { call_results: slots, ..ActionState::default() });
    journal.set_entry(EntryAddress { key: "str:user-1".into(), sequence_number: 3, action: "reply".into() });
    journal.set_call_key_scope(b"entry-bytes".to_vec());
    journal
}

fn ok(id: &str) -> CallResult {
    CallResult::completed(id, Outcome::success(Some(b"1".to_vec())))
}

#[test]
fn an_at_most_once_call_persists_its_pending_slot_before_it_runs() {
    let mut j = journal_of(vec![]);
    let mut counter = Counter::default();
    let step = j.begin_call_with_semantics("mail", false, AT_MOST_ONCE, None, &mut counter).unwrap();
    assert_eq!(step, CallStep::Execute);
    assert_eq!(counter.puts, 1);
    assert!(j.current_call_result().unwrap().is_pending());
    j.complete_call("mail", Outcome::success(None), &mut counter).unwrap();
    assert_eq!((counter.puts, j.current_call_index()), (2, 1));
}

#[test]
fn a_default_call_persists_nothing_before_it_runs() {
    let mut j = journal_of(vec![]);
    let mut counter = Counter::default();
    assert_eq!(j.begin_call_with_semantics("mail", false, None, None, &mut counter).unwrap(), CallStep::Execute);
    assert_eq!(counter.puts, 0);
    assert!(j.current_call_result().is_none());
}

#[test]
fn the_job_default_applies_to_calls_that_declare_nothing_and_a_declared_semantics_wins() {
    let mut counter = Counter::default();
    let mut j = journal_of(vec![]);
    j.begin_call_with_semantics("a", false, None, AT_MOST_ONCE, &mut counter).unwrap();
    assert_eq!(counter.puts, 1, "the default made it at most once");
    let mut j = journal_of(vec![]);
    j.begin_call_with_semantics("a", false, Some(CallSemantics::AtLeastOnce), AT_MOST_ONCE, &mut counter).unwrap();
    assert_eq!(counter.puts, 1, "declared at least once: nothing persisted");
}

#[test]
fn a_pending_slot_of_an_at_most_once_call_interrupts_it_and_moves_past_it_persisting_nothing() {
    let mut j = journal_of(vec![ok("a"), CallResult::pending("mail"), ok("b")]);
    let mut counter = Counter::default();
    assert!(matches!(j.begin_call_with_semantics("a", false, AT_MOST_ONCE, None, &mut counter).unwrap(), CallStep::Replay(_)));
    let err = j.begin_call_with_semantics("mail", false, AT_MOST_ONCE, None, &mut counter).unwrap_err();
    assert_eq!(err.code(), ErrorCode::CallInterrupted);
    let Error::CallInterrupted(interruption) = &err else { unreachable!() };
    assert_eq!(interruption.position, 1);
    assert_eq!(interruption.call_id, "mail");
    assert_eq!(interruption.idempotency_key, Some(j.idempotency_key_at(1, "mail").unwrap()));
    assert_eq!(interruption.entry.as_ref().unwrap().action, "reply");
    assert_eq!(counter.puts, 0);
    assert_eq!(j.current_call_index(), 2);
    assert!(j.call_result_at(1).unwrap().is_pending(), "the slot stays PENDING: a later re-run is interrupted too");
    assert!(matches!(j.begin_call("b", false, &mut counter).unwrap(), CallStep::Replay(_)), "later calls keep their positions");
    let json = interruption.to_json();
    assert!(json.contains("\"sequenceNumber\":3") && json.contains("\"functionId\":\"mail\""), "{json}");
    assert!(err.to_string().contains("at-most-once call 'mail' at call index 1"), "{err}");
}

#[test]
fn a_reconciler_decides_over_an_interrupted_at_most_once_call() {
    let mut j = journal_of(vec![CallResult::pending("mail")]);
    assert_eq!(j.begin_call_with_semantics("mail", true, AT_MOST_ONCE, None, &mut NoPersist).unwrap(), CallStep::Reconcile);
}

#[test]
fn a_pending_slot_of_an_at_least_once_call_runs_it_again() {
    let mut j = journal_of(vec![CallResult::pending("mail")]);
    assert_eq!(j.begin_call_with_semantics("mail", false, None, None, &mut NoPersist).unwrap(), CallStep::Execute);
}

#[test]
fn an_at_most_once_call_over_another_calls_slot_cuts_it_and_writes_its_own_pending_slot() {
    let mut j = journal_of(vec![ok("a"), ok("b")]);
    let mut counter = Counter::default();
    assert_eq!(j.begin_call_with_semantics("x", false, AT_MOST_ONCE, None, &mut counter).unwrap(), CallStep::Execute);
    assert_eq!(j.len(), 1);
    assert!(j.call_result_at(0).unwrap().is_for("x") && j.call_result_at(0).unwrap().is_pending());
    assert_eq!(counter.puts, 2, "the cut and the PENDING slot");
}

#[test]
fn idempotency_keys_count_occurrences_of_the_same_id_and_need_a_store_entry() {
    let j = journal_of(vec![ok("mail"), ok("other"), ok("mail")]);
    let keys: Vec<String> = [0, 2, 3].iter().map(|p| j.idempotency_key_at(*p, "mail").unwrap()).collect();
    assert_eq!(keys[0], call_idempotency_key(b"entry-bytes", "mail", 0).unwrap());
    assert_eq!(keys[1], call_idempotency_key(b"entry-bytes", "mail", 1).unwrap());
    assert_eq!(keys[2], call_idempotency_key(b"entry-bytes", "mail", 2).unwrap());
    assert_eq!(j.idempotency_key_at(1, "other").unwrap(), call_idempotency_key(b"entry-bytes", "other", 0).unwrap());
    assert_eq!(j.idempotency_key_at(4, "mail").unwrap_err().code(), ErrorCode::IndexOutOfRange);
    let bare = Journal::new(ActionState::default());
    assert_eq!(bare.idempotency_key_at(0, "mail").unwrap_err().code(), ErrorCode::IllegalState);
}

#[test]
fn a_batch_interrupts_only_its_at_most_once_calls_left_pending() {
    let mut j = journal_of(vec![ok("a"), CallResult::pending("b"), CallResult::pending("c"), CallResult::pending("d")]);
    let declared = [AT_MOST_ONCE, AT_MOST_ONCE, None, AT_MOST_ONCE];
    let mut counter = Counter::default();
    let steps = j.begin_batch_with_semantics(&["a", "b", "c", "e"], &declared, None, &mut counter).unwrap();
    assert_eq!(steps, vec![BatchStep::Replay, BatchStep::Interrupted, BatchStep::Run, BatchStep::Run]);
    assert_eq!(counter.puts, 1, "the new call's slot, reserved once");
    let Error::CallInterrupted(interruption) = j.interruption_at(1, "b") else { panic!() };
    assert_eq!(interruption.position, 1);
}

#[test]
fn a_fresh_at_most_once_batch_runs_every_call_and_the_default_applies() {
    let mut j = journal_of(vec![]);
    let steps = j.begin_batch_with_semantics(&["a", "b"], &[None, None], AT_MOST_ONCE, &mut NoPersist).unwrap();
    assert_eq!(steps, vec![BatchStep::Run, BatchStep::Run]);
    let mut again = journal_of(j.state().call_results.clone());
    let steps = again.begin_batch_with_semantics(&["a", "b"], &[None, Some(CallSemantics::AtLeastOnce)], AT_MOST_ONCE, &mut NoPersist).unwrap();
    assert_eq!(steps, vec![BatchStep::Interrupted, BatchStep::Run]);
    let err = again.begin_batch_with_semantics(&["a"], &[], None, &mut NoPersist).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument);
}

#[test]
fn semantics_numbers_cross_boundaries() {
    assert_eq!(CallSemantics::from_i32(0).unwrap(), None);
    assert_eq!(CallSemantics::from_i32(2).unwrap(), AT_MOST_ONCE);
    assert_eq!(CallSemantics::from_i32(3).unwrap_err().code(), ErrorCode::InvalidArgument);
}
