use super::*;
use crate::error::ErrorCode;

/// Records every persisted change and the journal size it saw; can be told to fail.
#[derive(Default)]
struct Recorder {
    changes: Vec<String>,
    fail: bool,
}

impl Persister for Recorder {
    fn persist(&mut self, state: &ActionState, change: JournalChange<'_>) -> Result<()> {
        if self.fail {
            return Err(Error::InvalidArgument("disk on fire".into()));
        }
        let label = match change {
            JournalChange::Put { index, slot } => format!("put {index} {}", slot.call_id_for_display()),
            JournalChange::Replace { index, slot } => format!("replace {index} {}", slot.call_id_for_display()),
            JournalChange::PutBatch { from, slots } => format!("batch {from} {}", slots.len()),
            JournalChange::Truncate { from } => format!("truncate {from}"),
            JournalChange::Complete => "complete".to_string(),
        };
        self.changes.push(format!("{label} -> {}", state.call_results.len()));
        Ok(())
    }
}

fn journal_of(slots: Vec<CallResult>) -> Journal {
    Journal::new(ActionState { call_results: slots, ..ActionState::default() })
}

fn ok(id: &str, payload: &[u8]) -> CallResult {
    CallResult::completed(id, Outcome::success(Some(payload.to_vec())))
}

#[test]
fn match_hits_terminal_slot_and_advances() {
    let mut j = journal_of(vec![ok("a", b"1"), CallResult::completed("b", Outcome::failure(b"e".to_vec()))]);
    assert_eq!(j.match_next_or_clear_subsequent("a").unwrap(), Some(ok("a", b"1")));
    assert_eq!(j.current_call_index(), 1);
    let hit = j.match_next_or_clear_subsequent("b").unwrap().unwrap();
    assert_eq!(hit.effective_status(), CallStatus::Failed);
    assert_eq!(j.current_call_index(), 2);
    assert_eq!(j.match_next_or_clear_subsequent("c").unwrap(), None);
    assert_eq!(j.len(), 2);
}

#[test]
fn match_on_pending_slot_misses_and_keeps_it() {
    let mut j = journal_of(vec![CallResult::pending("a"), ok("b", b"")]);
    assert_eq!(j.match_next_or_clear_subsequent("a").unwrap(), None);
    assert_eq!(j.current_call_index(), 0);
    assert_eq!(j.len(), 2);
}

#[test]
fn match_on_different_id_truncates_in_memory_without_persisting() {
    let mut j = journal_of(vec![ok("a", b"1"), ok("b", b"2"), ok("c", b"3")]);
    j.match_next_or_clear_subsequent("a").unwrap();
    assert_eq!(j.match_next_or_clear_subsequent("x").unwrap(), None);
    assert_eq!(j.len(), 1);
    assert_eq!(j.current_call_index(), 1);
}

#[test]
fn null_success_is_a_hit_distinct_from_no_slot() {
    let mut j = journal_of(vec![CallResult::completed("a", Outcome::success(None))]);
    let hit = j.match_next_or_clear_subsequent("a").unwrap().unwrap();
    assert_eq!(hit.result_payload, None);
    assert_eq!(hit.effective_status(), CallStatus::Succeeded);
}

#[test]
fn record_appends_persists_and_advances() {
    let mut j = Journal::default();
    let mut p = Recorder::default();
    j.record_call_completion("a", Outcome::success(Some(b"1".to_vec())), &mut p).unwrap();
    j.record_call_completion("b", Outcome::failure(b"x".to_vec()), &mut p).unwrap();
    assert_eq!(p.changes, vec!["put 0 a -> 1", "put 1 b -> 2"]);
    assert_eq!(j.current_call_index(), 2);
    assert_eq!(j.call_result_at(1).unwrap().effective_status(), CallStatus::Failed);
}

#[test]
fn append_pending_requires_the_end_of_the_journal() {
    let mut j = journal_of(vec![ok("a", b"1")]);
    let mut p = Recorder::default();
    let err = j.append_pending_call("b", &mut p).unwrap_err();
    assert_eq!(err.code(), ErrorCode::SlotAlreadyExists);
    assert!(p.changes.is_empty());
    j.match_next_or_clear_subsequent("a").unwrap();
    j.append_pending_call("b", &mut p).unwrap();
    assert_eq!(p.changes, vec!["put 1 b -> 2"]);
    assert_eq!(j.current_call_index(), 1, "appending a pending slot does not move the index");
    assert!(j.current_call_result().unwrap().is_pending());
}

#[test]
fn finalize_replaces_pending_slot_and_advances() {
    let mut j = journal_of(vec![CallResult::pending("a")]);
    let mut p = Recorder::default();
    j.finalize_current_call("a", Outcome::success(Some(b"v".to_vec())), &mut p).unwrap();
    assert_eq!(p.changes, vec!["replace 0 a -> 1"]);
    assert_eq!(j.current_call_index(), 1);
    assert_eq!(j.call_result_at(0), Some(&ok("a", b"v")));
}

#[test]
fn finalize_errors_leave_the_journal_unchanged() {
    let mut p = Recorder::default();
    let cases: Vec<(Vec<CallResult>, &str)> = vec![
        (vec![], "no slot"),
        (vec![CallResult::pending("other")], "another call"),
        (vec![ok("a", b"1")], "already terminal"),
    ];
    for (slots, reason) in cases {
        let mut j = journal_of(slots.clone());
        let err = j.finalize_current_call("a", Outcome::success(None), &mut p).unwrap_err();
        assert_eq!(err.code(), ErrorCode::NoMatchingPendingSlot);
        assert!(err.to_string().contains(reason), "{err}");
        assert_eq!(j.state().call_results, slots);
        assert_eq!(j.current_call_index(), 0);
    }
    assert!(p.changes.is_empty());
}

#[test]
fn clear_from_current_index_persists_the_cut() {
    let mut j = journal_of(vec![ok("a", b"1"), ok("b", b"2")]);
    let mut p = Recorder::default();
    j.match_next_or_clear_subsequent("a").unwrap();
    j.clear_call_results_from_current_index_and_persist(&mut p).unwrap();
    assert_eq!(p.changes, vec!["truncate 1 -> 1"]);
}

#[test]
fn batch_reserves_once_finalizes_at_absolute_slots_and_advances() {
    let mut j = Journal::default();
    let mut p = Recorder::default();
    j.reserve_pending_batch(&["x", "y", "z"], &mut p).unwrap();
    assert_eq!(p.changes, vec!["batch 0 3 -> 3"]);
    j.finalize_call_at(2, "z", Outcome::success(Some(b"3".to_vec())), &mut p).unwrap();
    j.finalize_call_at(0, "x", Outcome::success(Some(b"1".to_vec())), &mut p).unwrap();
    assert_eq!(j.current_call_index(), 0);
    assert!(j.call_result_at(1).unwrap().is_pending(), "a call never started stays pending");
    j.advance_call_index_by(3).unwrap();
    assert_eq!(j.current_call_index(), 3);
    assert_eq!(j.advance_call_index_by(1).unwrap_err().code(), ErrorCode::IndexOutOfRange);
    assert_eq!(j.finalize_call_at(7, "q", Outcome::success(None), &mut p).unwrap_err().code(), ErrorCode::NoMatchingPendingSlot);
}

#[test]
fn batch_reservation_needs_the_end_of_the_journal() {
    let mut j = journal_of(vec![ok("a", b"1")]);
    let err = j.reserve_pending_batch(&["x"], &mut NoPersist).unwrap_err();
    assert_eq!(err.code(), ErrorCode::SlotAlreadyExists);
}

#[test]
fn clear_from_absolute_slot_checks_range() {
    let mut j = journal_of(vec![ok("a", b"1"), ok("b", b"2")]);
    let mut p = Recorder::default();
    assert_eq!(j.clear_call_results_from_and_persist(3, &mut p).unwrap_err().code(), ErrorCode::IndexOutOfRange);
    j.clear_call_results_from_and_persist(1, &mut p).unwrap();
    assert_eq!(j.len(), 1);
    assert_eq!(p.changes, vec!["truncate 1 -> 1"]);
}

#[test]
fn failed_persist_undoes_every_kind_of_mutation() {
    let original = vec![ok("a", b"1"), CallResult::pending("b")];
    let mut failing = Recorder { fail: true, ..Recorder::default() };

    let mut j = journal_of(original.clone());
    assert_eq!(j.record_call_completion("z", Outcome::success(None), &mut failing).unwrap_err().code(), ErrorCode::PersistFailed);
    assert_eq!((j.state().call_results.clone(), j.current_call_index()), (original.clone(), 0));

    j.match_next_or_clear_subsequent("a").unwrap();
    assert!(j.finalize_current_call("b", Outcome::success(None), &mut failing).is_err());
    assert_eq!((j.state().call_results.clone(), j.current_call_index()), (original.clone(), 1));

    assert!(j.clear_call_results_from_and_persist(0, &mut failing).is_err());
    assert_eq!(j.state().call_results, original);

    let mut end = journal_of(vec![]);
    assert!(end.append_pending_call("p", &mut failing).is_err());
    assert!(end.reserve_pending_batch(&["p", "q"], &mut failing).is_err());
    assert!(end.is_empty());

    assert!(j.mark_completed(&mut failing).is_err());
    assert!(!j.state().completed);
    assert_eq!(j.state().call_results, original);
}

#[test]
fn mark_completed_persists_and_clears() {
    let mut j = journal_of(vec![ok("a", b"1")]);
    let mut p = Recorder::default();
    j.mark_completed(&mut p).unwrap();
    assert_eq!(p.changes, vec!["complete -> 0"]);
    assert!(j.state().completed);
}

// --- begin_call / complete_call: the tables of spec §2.2–§2.4 -------------

fn run(j: &mut Journal, id: &str, reconcilable: bool, p: &mut Recorder) -> CallStep {
    let step = j.begin_call(id, reconcilable, p).unwrap();
    if step != CallStep::Execute && step != CallStep::Reconcile {
        return step;
    }
    j.complete_call(id, Outcome::success(Some(b"new".to_vec())), p).unwrap();
    step
}

#[test]
fn completion_only_fresh_call_executes_and_persists_once() {
    let (mut j, mut p) = (Journal::default(), Recorder::default());
    assert_eq!(run(&mut j, "a", false, &mut p), CallStep::Execute);
    assert_eq!(p.changes.len(), 1);
    assert_eq!(j.call_result_at(0), Some(&ok("a", b"new")));
}

#[test]
fn reconcilable_fresh_call_persists_pending_then_outcome() {
    let (mut j, mut p) = (Journal::default(), Recorder::default());
    assert_eq!(run(&mut j, "a", true, &mut p), CallStep::Execute);
    assert_eq!(p.changes, vec!["put 0 a -> 1", "replace 0 a -> 1"]);
}

#[test]
fn different_id_clears_the_tail_on_both_paths() {
    for (reconcilable, expected) in [
        (false, vec!["put 0 b -> 1"]),
        (true, vec!["truncate 0 -> 0", "put 0 b -> 1", "replace 0 b -> 1"]),
    ] {
        let mut j = journal_of(vec![ok("a", b"1"), ok("c", b"2")]);
        let mut p = Recorder::default();
        assert_eq!(run(&mut j, "b", reconcilable, &mut p), CallStep::Execute);
        assert_eq!(p.changes, expected);
        assert_eq!(j.state().call_results, vec![ok("b", b"new")]);
    }
}

#[test]
fn terminal_match_replays_without_persisting_on_both_paths() {
    for reconcilable in [false, true] {
        for slot in [ok("a", b"v"), CallResult::completed("a", Outcome::success(None)), CallResult::completed("a", Outcome::failure(b"e".to_vec()))] {
            let mut j = journal_of(vec![slot.clone()]);
            let mut p = Recorder::default();
            assert_eq!(j.begin_call("a", reconcilable, &mut p).unwrap(), CallStep::Replay(slot));
            assert!(p.changes.is_empty());
            assert_eq!(j.current_call_index(), 1);
        }
    }
}

#[test]
fn pending_match_executes_without_reconciler_and_reconciles_with_one() {
    for (reconcilable, step) in [(false, CallStep::Execute), (true, CallStep::Reconcile)] {
        let mut j = journal_of(vec![CallResult::pending("a")]);
        let mut p = Recorder::default();
        assert_eq!(run(&mut j, "a", reconcilable, &mut p), step);
        assert_eq!(p.changes, vec!["replace 0 a -> 1"]);
        assert_eq!(j.current_call_index(), 1);
    }
}

#[test]
fn chat_retries_consume_slots_by_position() {
    let failure = |m: &str| CallResult::completed("chat", Outcome::failure(m.as_bytes().to_vec()));
    let mut j = journal_of(vec![failure("1"), failure("2"), ok("chat", b"answer")]);
    let mut p = Recorder::default();
    assert_eq!(j.begin_call("chat", false, &mut p).unwrap(), CallStep::Replay(failure("1")));
    assert_eq!(j.begin_call("chat", false, &mut p).unwrap(), CallStep::Replay(failure("2")));
    assert_eq!(j.begin_call("chat", false, &mut p).unwrap(), CallStep::Replay(ok("chat", b"answer")));
    assert!(p.changes.is_empty());
}

#[test]
fn clearing_from_an_index_past_the_end_cuts_nothing() {
    let mut j = journal_of(vec![ok("a", b"1"), ok("b", b"2")]);
    let mut p = Recorder::default();
    j.advance_call_index_by(2).unwrap();
    j.clear_call_results_from_and_persist(1, &mut p).unwrap();
    j.clear_call_results_from_current_index_and_persist(&mut p).unwrap();
    assert_eq!(p.changes, vec!["truncate 1 -> 1", "truncate 1 -> 1"]);
}

// --- slots Flink Agents wrote: null ids, ids that are no Unicode, digests ---

fn from_flink_agents(slots_json: &str) -> Journal {
    Journal::new(ActionState::from_json(format!(r#"{{"callResults":[{slots_json}]}}"#).as_bytes()).unwrap())
}

#[test]
fn a_slot_with_a_null_id_matches_no_call_so_a_rerun_cuts_the_journal_there() {
    for reconcilable in [false, true] {
        let mut j = from_flink_agents(
            r#"{"functionId":"a","argsDigest":"","status":"SUCCEEDED","resultPayload":"MQ==","exceptionPayload":null},
               {"functionId":null,"argsDigest":"","status":"SUCCEEDED","resultPayload":"Mg==","exceptionPayload":null},
               {"functionId":"c","argsDigest":"","status":"SUCCEEDED","resultPayload":"Mw==","exceptionPayload":null}"#,
        );
        let mut p = Recorder::default();
        assert!(matches!(j.begin_call("a", reconcilable, &mut p).unwrap(), CallStep::Replay(_)));
        for id in ["", "null"] {
            assert!(!j.current_call_result().unwrap().is_for(id));
        }
        assert_eq!(run(&mut j, "b", reconcilable, &mut p), CallStep::Execute);
        assert_eq!(j.state().call_results, vec![ok("a", b"1"), ok("b", b"new")]);
    }
}

#[test]
fn a_pending_slot_with_a_null_id_cannot_be_finalized_and_says_so() {
    let mut j = from_flink_agents(r#"{"functionId":null,"status":"PENDING"}"#);
    let err = j.finalize_current_call("null", Outcome::success(None), &mut NoPersist).unwrap_err();
    assert!(err.to_string().contains("another call ('null')"), "{err}");
}

#[test]
fn a_slot_whose_id_holds_a_lone_surrogate_matches_no_call() {
    let mut j = from_flink_agents(r#"{"functionId":"tool-call:\uD83D","status":"SUCCEEDED","resultPayload":null}"#);
    for id in ["tool-call:\u{FFFD}", "tool-call:", r"tool-call:\uD83D"] {
        assert!(!j.current_call_result().unwrap().is_for(id), "{id}");
    }
    assert_eq!(j.match_next_or_clear_subsequent("tool-call:\u{FFFD}").unwrap(), None);
    assert!(j.is_empty(), "cut like any other different call");
}

#[test]
fn finalizing_keeps_the_digest_the_slot_was_reserved_with_and_new_slots_get_an_empty_one() {
    let mut j = from_flink_agents(r#"{"functionId":"a","argsDigest":"9f86d081884c7d65","status":"PENDING"}"#);
    let mut p = Recorder::default();
    assert_eq!(run(&mut j, "a", true, &mut p), CallStep::Reconcile);
    run(&mut j, "b", false, &mut p);
    let digests: Vec<_> = j.state().call_results.iter().map(|slot| slot.args_digest.clone()).collect();
    assert_eq!(digests, vec![Some("9f86d081884c7d65".into()), Some("".into())]);
    assert_eq!(j.call_result_at(0).unwrap().effective_status(), CallStatus::Succeeded);
}

// `durableExecuteAll`'s reuse-or-reserve decision (`Journal::begin_batch`): one test per outcome.

#[test]
fn a_fresh_batch_runs_every_call_and_reserves_their_slots_with_one_persist() {
    let mut j = journal_of(vec![ok("before", b"0")]);
    j.match_next_or_clear_subsequent("before").unwrap();
    let mut p = Recorder::default();
    assert_eq!(j.begin_batch(&["a", "b", "c"], &mut p).unwrap(), vec![true, true, true]);
    assert_eq!(p.changes, vec!["batch 1 3 -> 4"]);
    assert!(j.state().call_results[1..].iter().all(CallResult::is_pending));
    assert_eq!(j.current_call_index(), 1, "the caller advances past the batch once it is recorded");
}

#[test]
fn a_recorded_batch_replays_every_call_and_persists_nothing() {
    let mut j = journal_of(vec![ok("a", b"1"), CallResult::completed("b", Outcome::failure(b"e".to_vec()))]);
    let mut p = Recorder::default();
    assert_eq!(j.begin_batch(&["a", "b"], &mut p).unwrap(), vec![false, false]);
    assert!(p.changes.is_empty());
    assert_eq!(j.len(), 2);
    assert_eq!(j.current_call_index(), 0);
}

#[test]
fn an_interrupted_batch_replays_its_recorded_calls_and_reruns_its_pending_ones_in_place() {
    let mut j = journal_of(vec![ok("a", b"1"), CallResult::pending("b"), ok("c", b"3"), CallResult::pending("d")]);
    let mut p = Recorder::default();
    assert_eq!(j.begin_batch(&["a", "b", "c", "d"], &mut p).unwrap(), vec![false, true, false, true]);
    assert!(p.changes.is_empty(), "the PENDING slots are already there");
    assert_eq!(j.len(), 4);
}

#[test]
fn a_batch_longer_than_the_journal_keeps_the_recorded_calls_and_reserves_the_rest() {
    let mut j = journal_of(vec![ok("a", b"1"), CallResult::pending("b")]);
    let mut p = Recorder::default();
    assert_eq!(j.begin_batch(&["a", "b", "c", "d"], &mut p).unwrap(), vec![false, true, true, true]);
    assert_eq!(p.changes, vec!["batch 2 2 -> 4"]);
    assert_eq!(j.state().call_results[2].call_id_for_display(), "c");
}

#[test]
fn a_batch_that_diverges_cuts_the_journal_at_the_first_other_call_and_reserves_from_there() {
    let mut j = journal_of(vec![ok("a", b"1"), ok("x", b"2"), ok("b", b"3")]);
    let mut p = Recorder::default();
    assert_eq!(j.begin_batch(&["a", "b", "c"], &mut p).unwrap(), vec![false, true, true]);
    assert_eq!(p.changes, vec!["batch 1 2 -> 3"], "the recorded x and b are replaced by b and c, one persist");
    let ids: Vec<_> = j.state().call_results.iter().map(|s| s.call_id_for_display().to_string()).collect();
    assert_eq!(ids, ["a", "b", "c"]);
    assert!(j.take_unreported_divergence().is_some(), "the cut is reported under the default WARN policy");
}

#[test]
fn a_batch_whose_reservation_fails_to_persist_leaves_the_journal_as_it_was() {
    let recorded = vec![ok("a", b"1"), ok("x", b"2")];
    let mut j = journal_of(recorded.clone());
    let mut p = Recorder { fail: true, ..Recorder::default() };
    assert_eq!(j.begin_batch(&["a", "b"], &mut p).unwrap_err().code(), ErrorCode::PersistFailed);
    assert_eq!(j.state().call_results, recorded);
    assert_eq!(j.current_call_index(), 0);
}
