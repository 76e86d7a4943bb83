use super::*;

const DIVERGED: ReplayEnd<'static> = ReplayEnd::Diverged { position: 0, recorded_id: "llm", candidate_id: Some("tool:lookup") };

#[test]
fn each_policy_names_its_consequence_of_the_first_difference() {
    let plans = [DivergencePolicy::Warn, DivergencePolicy::Cut, DivergencePolicy::Fail].map(|p| plan_restore(p, 0, &DIVERGED));
    assert_eq!(plans.each_ref().map(|p| p.consequence), [Consequence::CutsLogsAndCounts, Consequence::Cuts, Consequence::FailsTheTask]);
    assert_eq!(
        plans.each_ref().map(|p| p.text.as_str()),
        [
            "a restore replays 0 recorded calls, then cuts the journal at 0 (recorded llm, new code tool:lookup), logs and counts it (callsDiverged), and runs tool:lookup and what follows",
            "a restore replays 0 recorded calls, then cuts the journal at 0 (recorded llm, new code tool:lookup) and runs tool:lookup and what follows",
            "a restore replays 0 recorded calls, then fails the task at 0 (recorded llm, new code tool:lookup): NON_DETERMINISTIC_REPLAY",
        ]
    );
}

#[test]
fn a_new_call_runs_a_failure_throws_and_a_finished_action_completes_under_every_policy() {
    for policy in [DivergencePolicy::Warn, DivergencePolicy::Cut, DivergencePolicy::Fail] {
        let runs = plan_restore(policy, 1, &ReplayEnd::WouldRun { position: 1, call_id: "tool:lookup" });
        assert_eq!((runs.consequence, runs.text.as_str()), (Consequence::Runs, "a restore replays 1 recorded call, then runs tool:lookup at 1 and what follows"));
        let throws = plan_restore(policy, 2, &ReplayEnd::Threw { failure: "java.lang.IllegalStateException: no" });
        assert_eq!(throws.text, "a restore replays 2 recorded calls, then the action throws java.lang.IllegalStateException: no");
        assert_eq!(plan_restore(policy, 0, &ReplayEnd::Completed).text, "a restore replays 0 recorded calls and completes without running a call");
    }
}

#[test]
fn a_replay_that_cannot_follow_the_new_code_plans_nothing_past_the_recorded_calls() {
    let end = ReplayEnd::from_parts("not-replayable", -1, None, None, Some("memory not reconstructible: seq 0 is missing")).unwrap();
    assert_eq!(end, ReplayEnd::NotReplayable { why: "memory not reconstructible: seq 0 is missing" });
    for policy in [DivergencePolicy::Warn, DivergencePolicy::Cut, DivergencePolicy::Fail] {
        let plan = plan_restore(policy, 2, &end);
        assert_eq!(plan.consequence, Consequence::Unplanned);
        assert_eq!(plan.text, "a restore replays 2 recorded calls, then the plan cannot follow the action: memory not reconstructible: seq 0 is missing");
    }
    assert!(ReplayEnd::from_parts("not-replayable", -1, None, None, None).unwrap_err().to_string().contains("needs its reason"));
}

#[test]
fn a_stop_reads_the_same_in_every_report() {
    assert_eq!(describe_stop(&DIVERGED, "SUCCEEDED").unwrap(), "diverged at 0: recorded llm (SUCCEEDED), candidate tool:lookup");
    let removed = ReplayEnd::Diverged { position: 2, recorded_id: "tool:mail", candidate_id: None };
    assert_eq!(describe_stop(&removed, "PENDING").unwrap(), "diverged at 2: recorded tool:mail (PENDING), candidate finished");
    let new_call = ReplayEnd::WouldRun { position: 1, call_id: "tool:lookup" };
    assert_eq!(describe_stop(&new_call, "").unwrap(), "would run tool:lookup at 1 (not recorded; no stub)");
    assert_eq!(describe_stop(&ReplayEnd::Completed, ""), None);
}

#[test]
fn a_removed_call_is_cut_and_nothing_new_runs() {
    let end = ReplayEnd::Diverged { position: 1, recorded_id: "tool:mail", candidate_id: None };
    assert_eq!(plan_restore(DivergencePolicy::Cut, 1, &end).text, "a restore replays 1 recorded call, then cuts the journal at 1 (recorded tool:mail, new code finishes)");
    assert_eq!(
        plan_restore(DivergencePolicy::Warn, 1, &end).text,
        "a restore replays 1 recorded call, then cuts the journal at 1 (recorded tool:mail, new code finishes), logs and counts it (callsDiverged)"
    );
}

#[test]
fn the_bindings_words_read_as_a_replay_end_and_bad_ones_are_refused() {
    assert_eq!(ReplayEnd::from_parts("diverged", 0, Some("llm"), Some("tool:lookup"), None).unwrap(), DIVERGED);
    assert_eq!(ReplayEnd::from_parts("would-run", 3, None, None, Some("boom")).unwrap(), ReplayEnd::Threw { failure: "boom" });
    assert_eq!(ReplayEnd::from_parts("", -1, None, None, None).unwrap(), ReplayEnd::Completed);
    for (kind, position, recorded, candidate, why) in [
        ("would-run", 1, None, None, "needs its candidate id"),
        ("diverged", 1, None, Some("x"), "needs its recorded id"),
        ("diverged", -1, Some("x"), None, "negative position"),
        ("stopped", 0, None, None, "no replay stop"),
    ] {
        let err = ReplayEnd::from_parts(kind, position, recorded, candidate, None).unwrap_err().to_string();
        assert!(err.contains(why), "{err}");
    }
    let json = plan_restore(DivergencePolicy::Fail, 0, &DIVERGED).to_json();
    assert!(json.starts_with(r#"{"replayed":0,"consequence":"fails-the-task","text":"a restore replays 0"#), "{json}");
}
