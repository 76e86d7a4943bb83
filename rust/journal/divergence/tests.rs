//! Every divergence policy on every path that can meet a divergence: a call
//! with and without a reconciler, the spec primitive, and a batch.

use crate::error::{Error, ErrorCode};
use crate::journal::{CallStep, Divergence, DivergencePolicy, EntryAddress, Journal, JournalChange, Persister};
use crate::model::{ActionState, CallResult, CallStatus, Outcome};

/// Counts persisted changes.
#[derive(Default)]
struct Count(usize);

impl Persister for Count {
    fn persist(&mut self, _: &ActionState, _: JournalChange<'_>) -> crate::Result<()> {
        self.0 += 1;
        Ok(())
    }
}

/// A journal that recorded `a`, `b` (a failure) and `c`, re-run under `policy`.
fn recorded(policy: DivergencePolicy) -> Journal {
    let state = ActionState::from_json(
        br#"{"callResults":[
            {"functionId":"a","argsDigest":"","status":"SUCCEEDED","resultPayload":"MQ=="},
            {"functionId":"b","argsDigest":"d1","status":"FAILED","exceptionPayload":"eA=="},
            {"functionId":"c","argsDigest":"","status":"SUCCEEDED","resultPayload":"Mw=="}]}"#,
    )
    .unwrap();
    let mut journal = Journal::new(state);
    journal.set_divergence_policy(policy);
    journal.set_entry(EntryAddress { key: "str:user-1".into(), sequence_number: 4, action: "reply".into() });
    journal
}

/// Replays `a`, then calls `x` where `b` was recorded.
fn diverge(journal: &mut Journal, reconcilable: bool, p: &mut Count) -> crate::Result<CallStep> {
    assert!(matches!(journal.begin_call("a", false, p).unwrap(), CallStep::Replay(_)));
    journal.begin_call("x", reconcilable, p)
}

/// Diverges under a policy that lets the new call run: it is executed, and the journal is cut at
/// the divergence (a reconcilable call reserved its slot there).
fn diverged_and_running(policy: DivergencePolicy, reconcilable: bool) -> (Journal, Count) {
    let mut j = recorded(policy);
    let mut p = Count::default();
    assert_eq!(diverge(&mut j, reconcilable, &mut p).unwrap(), CallStep::Execute);
    assert_eq!(j.len(), if reconcilable { 2 } else { 1 }, "cut at the divergence (a reconcilable call reserved its slot)");
    (j, p)
}

fn expected_diff() -> Divergence {
    Divergence::between(
        Some(&EntryAddress { key: "str:user-1".into(), sequence_number: 4, action: "reply".into() }),
        1,
        &CallResult { args_digest: Some("d1".into()), ..CallResult::completed("b", Outcome::failure(b"x".to_vec())) },
        "x",
        None,
    )
}

#[test]
fn the_default_policy_is_warn() {
    assert_eq!(Journal::default().divergence_policy(), DivergencePolicy::Warn);
    assert_eq!(Journal::new(ActionState::default()).divergence_policy(), DivergencePolicy::Warn);
}

#[test]
fn cut_cuts_silently_and_the_call_runs() {
    for reconcilable in [false, true] {
        let (mut j, _) = diverged_and_running(DivergencePolicy::Cut, reconcilable);
        assert_eq!(j.diverged_calls(), 0);
        assert_eq!(j.take_unreported_divergence(), None);
    }
}

#[test]
fn warn_cuts_counts_and_keeps_the_diff_for_one_report() {
    for reconcilable in [false, true] {
        let (mut j, mut p) = diverged_and_running(DivergencePolicy::Warn, reconcilable);
        assert_eq!(j.diverged_calls(), 1);
        assert_eq!(j.take_unreported_divergence(), Some(expected_diff()));
        assert_eq!(j.take_unreported_divergence(), None, "reported once");
        j.complete_call("x", Outcome::success(None), &mut p).unwrap();
        assert_eq!(j.begin_call("y", false, &mut p).unwrap(), CallStep::Execute, "past the end: no divergence");
        assert_eq!(j.diverged_calls(), 1);
    }
}

#[test]
fn fail_refuses_the_call_with_the_diff_and_changes_nothing() {
    for reconcilable in [false, true] {
        let mut j = recorded(DivergencePolicy::Fail);
        let mut p = Count::default();
        let before = j.state().clone();
        let err = diverge(&mut j, reconcilable, &mut p).unwrap_err();
        assert_eq!(err.code(), ErrorCode::NonDeterministicReplay);
        let Error::NonDeterministicReplay(diff) = &err else { panic!("{err}") };
        assert_eq!(**diff, expected_diff());
        assert_eq!(j.state(), &before, "the recorded slots stay for a fixed deployment");
        assert_eq!(j.current_call_index(), 1);
        assert_eq!(p.0, 0, "nothing persisted");
        assert_eq!(
            err.to_string(),
            "non-deterministic replay: the re-run of action 'reply' for key str:user-1 (sequence number 4) made call 'x' \
             (args digest null) at call index 1, where the journal recorded call 'b' (args digest 'd1', FAILED)"
        );
        // The same call as recorded still replays.
        assert!(matches!(j.begin_call("b", false, &mut p).unwrap(), CallStep::Replay(_)));
    }
}

#[test]
fn the_spec_primitive_follows_the_policy_and_reports_the_new_calls_digest() {
    let mut cut = recorded(DivergencePolicy::Cut);
    assert_eq!(cut.match_next_or_clear_subsequent("z").unwrap(), None);
    assert!(cut.is_empty());

    let mut warn = recorded(DivergencePolicy::Warn);
    assert_eq!(warn.match_next_or_clear_subsequent_with_digest("z", Some("77")).unwrap(), None);
    let diff = warn.take_unreported_divergence().unwrap();
    assert_eq!((diff.position, diff.new_call.args_digest), (0, Some("77".into())));
    assert!(warn.is_empty());

    let mut fail = recorded(DivergencePolicy::Fail);
    let err = fail.match_next_or_clear_subsequent_with_digest("z", Some("77")).unwrap_err();
    assert_eq!(err.code(), ErrorCode::NonDeterministicReplay);
    assert_eq!(fail.len(), 3);
    // A pending slot of the same id, or no slot at all, is no divergence.
    assert_eq!(fail.match_next_or_clear_subsequent("a").unwrap().map(|s| s.effective_status()), Some(CallStatus::Succeeded));
}

#[test]
fn a_slot_with_a_null_id_is_a_divergence_with_a_null_recorded_id() {
    let state = ActionState::from_json(br#"{"callResults":[{"functionId":null,"status":"SUCCEEDED"}]}"#).unwrap();
    let mut j = Journal::new(state);
    j.set_divergence_policy(DivergencePolicy::Fail);
    let Err(Error::NonDeterministicReplay(diff)) = j.begin_call("a", false, &mut Count::default()) else { panic!() };
    assert_eq!(diff.recorded.call_id, None);
    assert!(diff.to_json().contains(r#""recorded":{"functionId":null,"argsDigest":"","status":"SUCCEEDED"}"#), "{}", diff.to_json());
    assert!(diff.to_json().starts_with(r#"{"key":null,"sequenceNumber":null,"action":null,"position":0,"#));
}

#[test]
fn a_batch_keeps_its_matching_slots_and_diverges_at_the_first_other_one() {
    let ids = ["a", "b", "q"];
    let mut warn = recorded(DivergencePolicy::Warn);
    let mut p = Count::default();
    assert_eq!(warn.begin_batch(&ids, &mut p).unwrap(), vec![false, false, true]);
    assert_eq!(p.0, 1, "one reservation for the rest");
    assert_eq!(warn.call_result_at(2).unwrap(), &CallResult::pending("q"));
    assert_eq!(warn.take_unreported_divergence().unwrap().position, 2);

    let mut fail = recorded(DivergencePolicy::Fail);
    let before = fail.state().clone();
    assert_eq!(fail.begin_batch(&ids, &mut p).unwrap_err().code(), ErrorCode::NonDeterministicReplay);
    assert_eq!(fail.state(), &before);

    let mut cut = recorded(DivergencePolicy::Cut);
    assert_eq!(cut.begin_batch(&["a", "b", "c", "d"], &mut p).unwrap(), vec![false, false, false, true], "a longer batch keeps the recorded calls");
    assert_eq!(cut.diverged_calls(), 0);
}

#[test]
fn the_diff_json_carries_every_field_and_escapes_lone_surrogates() {
    let state = ActionState::from_json(br#"{"callResults":[{"functionId":"t:\uD83D","argsDigest":null,"status":"PENDING"}]}"#).unwrap();
    let mut j = Journal::new(state);
    j.set_entry(EntryAddress { key: "str:\"q\"".into(), sequence_number: -1, action: "act".into() });
    j.match_next_or_clear_subsequent_with_digest("n", Some("dd")).unwrap();
    let json = j.take_unreported_divergence().unwrap().to_json();
    assert_eq!(
        json,
        r#"{"key":"str:\"q\"","sequenceNumber":-1,"action":"act","position":0,"recorded":{"functionId":"t:\uD83D","argsDigest":null,"status":"PENDING"},"newCall":{"functionId":"n","argsDigest":"dd"}}"#
    );
}

#[test]
fn policies_cross_the_boundaries_by_number() {
    for (n, policy) in [(0, DivergencePolicy::Cut), (1, DivergencePolicy::Warn), (2, DivergencePolicy::Fail)] {
        assert_eq!(DivergencePolicy::from_i32(n), Some(policy));
        assert_eq!(policy as i32, n);
    }
    assert_eq!(DivergencePolicy::from_i32(3), None);
}
