//! The bounds, with a clock the test moves: age and count drop the oldest
//! copies, and the file is rewritten with only the kept ones once the
//! dropped bytes outweigh them.

use std::sync::atomic::{AtomicI64, Ordering};
use std::time::Duration;

use super::*;
use crate::store::key::{BusinessKey, EventIdentity};

static NOW: AtomicI64 = AtomicI64::new(1_000_000);

fn test_clock() -> i64 {
    NOW.load(Ordering::SeqCst)
}

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Long(1), seq, "a", EventIdentity::Occurrence(format!("o{seq}")))
}

fn seqs(dir: &Path) -> Vec<i64> {
    read_retained(dir).unwrap().iter().map(|r| r.key.seq).collect()
}

#[test]
fn copies_older_than_the_age_are_dropped_and_the_file_shrinks() {
    let dir = tempfile::tempdir().unwrap();
    let policy = RetentionPolicy { max_age: Duration::from_millis(100), max_count: 1000 };
    let (mut retainer, _) = Retainer::open(dir.path(), policy, test_clock).unwrap();
    retainer.set_rewrite_min_bytes(0);
    let state = ActionState { completed: true, ..ActionState::default() };
    for seq in 0..3 {
        retainer.retain(&key(seq), &state, Some("plan")).unwrap();
    }
    NOW.fetch_add(60, Ordering::SeqCst);
    retainer.retain(&key(3), &state, None).unwrap();
    assert_eq!(seqs(dir.path()), [0, 1, 2, 3], "nothing is 100 ms old yet");
    let full = fs::metadata(dir.path().join(RETAINED_FILE)).unwrap().len();
    NOW.fetch_add(50, Ordering::SeqCst); // the first three are now 110 ms old
    retainer.expire().unwrap();
    assert_eq!(seqs(dir.path()), [3]);
    assert_eq!(retainer.kept(), 1);
    assert!(fs::metadata(dir.path().join(RETAINED_FILE)).unwrap().len() < full, "rewritten without the dropped copies");
    retainer.sync().unwrap();
    drop(retainer);

    let (mut reopened, set_aside) = Retainer::open(dir.path(), policy, test_clock).unwrap();
    assert_eq!((reopened.kept(), set_aside), (1, None));
    reopened.retain(&key(4), &state, None).unwrap();
    let numbers: Vec<u64> = read_retained(dir.path()).unwrap().iter().map(|r| r.number).collect();
    assert_eq!(numbers, [3, 4], "numbers keep counting across the rewrite and the reopen");
}

#[test]
fn a_clock_going_backwards_keeps_completion_times_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let policy = RetentionPolicy { max_age: Duration::from_secs(3600), max_count: 10 };
    let (mut retainer, _) = Retainer::open(dir.path(), policy, || 5_000).unwrap();
    let state = ActionState::default();
    retainer.retain(&key(0), &state, None).unwrap();
    retainer.set_clock(|| 4_000);
    retainer.retain(&key(1), &state, None).unwrap();
    let times: Vec<i64> = read_retained(dir.path()).unwrap().iter().map(|r| r.completed_at_millis).collect();
    assert_eq!(times, [5_000, 5_000]);
}
