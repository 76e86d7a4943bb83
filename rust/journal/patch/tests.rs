//! The patch marker's table, on a journal persisted through a counting persister.

use super::*;
use crate::journal::JournalChange;
use crate::model::ActionState;

#[derive(Default)]
struct Counting(usize);

impl Persister for Counting {
    fn persist(&mut self, _: &ActionState, _: JournalChange<'_>) -> Result<()> {
        self.0 += 1;
        Ok(())
    }
}

fn slot(id: &str) -> CallResult {
    CallResult::completed(id, Outcome::success(Some(b"1".to_vec())))
}

#[test]
fn a_new_execution_records_the_marker_and_its_replay_answers_true_again() {
    let mut persisted = Counting::default();
    let mut first = Journal::default();
    assert!(first.patched("new-prompt", &mut persisted).unwrap());
    first.record_call_completion("llm", Outcome::success(None), &mut persisted).unwrap();
    assert_eq!(persisted.0, 2, "the marker is persisted like a call");
    let recorded = first.state().call_results.clone();
    assert_eq!(recorded[0], CallResult::completed("patched:new-prompt", Outcome::success(None)));

    let mut replay = Journal::new(ActionState { call_results: recorded, ..ActionState::default() });
    let mut replay_persisted = Counting::default();
    assert!(replay.patched("new-prompt", &mut replay_persisted).unwrap());
    assert_eq!(replay.current_call_index(), 1);
    assert!(replay.match_next_or_clear_subsequent("llm").unwrap().is_some(), "the call after it still replays");
    assert_eq!(replay_persisted.0, 0, "a replay persists nothing");
}

#[test]
fn a_replay_of_an_execution_recorded_before_the_change_takes_the_old_path() {
    let old = ActionState { call_results: vec![slot("llm"), slot("tool:mail")], ..ActionState::default() };
    let mut journal = Journal::new(old.clone());
    let mut persisted = Counting::default();
    assert!(!journal.patched("new-prompt", &mut persisted).unwrap());
    assert_eq!((journal.current_call_index(), persisted.0), (0, 0));
    assert_eq!(journal.state(), &old, "nothing cut, nothing recorded");
    assert!(journal.match_next_or_clear_subsequent("llm").unwrap().is_some());
    // Past the recording, the execution is new from here.
    journal.match_next_or_clear_subsequent("tool:mail").unwrap().unwrap();
    assert!(journal.patched("new-prompt", &mut persisted).unwrap());
    assert_eq!(persisted.0, 1);
}

#[test]
fn another_changes_marker_or_a_pending_slot_is_not_this_change() {
    assert_eq!(patch_step("a", Some(("patched:b", CallStatus::Succeeded))).unwrap(), PatchStep::OldPath);
    assert_eq!(patch_step("a", Some(("patched:a", CallStatus::Pending))).unwrap(), PatchStep::OldPath);
    assert_eq!(patch_step("a", Some(("patched:a", CallStatus::Succeeded))).unwrap(), PatchStep::Replay);
    assert_eq!(patch_step("a", None).unwrap(), PatchStep::Record);
    assert!(patch_step("", None).is_err());
}
