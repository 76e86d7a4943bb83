//! Size limits (`StoreLimits`, `docs/store.md`): every store refuses a
//! record or an entry over its limit before writing anything, with
//! `SIZE_LIMIT_EXCEEDED` naming the size and the limit, and stays usable.
//! The journal of a call refused this way is unchanged: the call is not
//! recorded and runs again on replay.

use durable_journal::store::{
    ActionStateStore, AnyStore, BusinessKey, EventIdentity, FileStore, FileStoreOptions, MemoryStore, SharedStore, StateKey,
    StoreLimits, MAX_LIMIT_BYTES,
};
use durable_journal::{ActionState, CallResult, ErrorCode, Outcome};

fn key(n: i64) -> StateKey {
    StateKey::new(BusinessKey::Str("user".into()), n, "act", EventIdentity::Occurrence(format!("e{n}")))
}

fn small_limits() -> StoreLimits {
    StoreLimits::new(1_000, 3_000).unwrap()
}

fn ids(state: &ActionState) -> Vec<String> {
    state.call_results.iter().map(CallResult::call_id_for_display).collect()
}

/// What every store must do at its limits, its journals persisting as the
/// bindings' do; `reopen` gives the store as a restart would find it (the
/// same one for the memory store).
fn refuses_over_the_limits_and_stays_usable(store: AnyStore, reopen: impl Fn(&mut AnyStore) -> AnyStore) {
    let store = SharedStore::new(store);
    let k = key(1);
    let (mut journal, mut persister) = store.open_journal(k.clone(), None).unwrap();
    journal.record_call_completion("small", Outcome::success(Some(b"\"ok\"".to_vec())), &mut persister).unwrap();

    // One call's record over the limit per record.
    let err = journal
        .record_call_completion("big", Outcome::success(Some(vec![b'x'; 1_000])), &mut persister)
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::SizeLimitExceeded, "{err}");
    let message = err.to_string();
    assert!(message.contains("over the limit of 1000 bytes"), "{message}");
    assert!(message.contains("StoreLimits::max_record_bytes") && message.contains("nothing was written"), "{message}");
    assert_eq!(ids(journal.state()), ["small"], "the journal is unchanged: the call is not recorded");
    assert_eq!(ids(&store.get(&k).unwrap().unwrap()), ["small"]);

    // A whole-state put over the limit: refused too, the entry unchanged.
    let mut whole = ActionState::default();
    whole.call_results.push(CallResult::completed("other", Outcome::success(Some(vec![b'z'; 2_000]))));
    assert_eq!(store.put(&k, &whole).unwrap_err().code(), ErrorCode::SizeLimitExceeded);
    assert_eq!(ids(&store.get(&k).unwrap().unwrap()), ["small"]);

    // Calls under the record limit until the entry is full.
    let mut recorded = vec!["small".to_string()];
    let refused = loop {
        let id = format!("call-{}", recorded.len());
        match journal.record_call_completion(&id, Outcome::success(Some(vec![b'y'; 600])), &mut persister) {
            Ok(()) => recorded.push(id),
            Err(e) => break e,
        }
        assert!(recorded.len() < 10, "the entry limit never applied");
    };
    assert_eq!(refused.code(), ErrorCode::SizeLimitExceeded);
    assert!(refused.to_string().contains("over the limit of 3000 bytes (the store's limit per entry"), "{refused}");
    assert_eq!(ids(&store.get(&k).unwrap().unwrap()), recorded);

    // Still usable: other entries, and this one once rewritten smaller.
    store.put(&key(2), &ActionState::default()).unwrap();
    let mut smaller = ActionState::default();
    smaller.call_results.push(CallResult::completed("fresh", Outcome::success(Some(b"1".to_vec()))));
    store.put(&k, &smaller).unwrap();
    let mut reopened = reopen(&mut store.lock().unwrap());
    let reopened = reopened.store();
    assert_eq!(ids(&reopened.get(&k).unwrap().unwrap()), ["fresh"]);
    assert!(reopened.get(&key(2)).unwrap().is_some());
}

#[test]
fn the_memory_store_refuses_over_its_limits_and_stays_usable() {
    let store = AnyStore::Memory(MemoryStore::with_limits(small_limits()));
    refuses_over_the_limits_and_stays_usable(store, |s| std::mem::replace(s, AnyStore::Memory(MemoryStore::new())));
}

#[test]
fn the_file_store_refuses_over_its_limits_writes_nothing_and_stays_usable() {
    let dir = tempfile::tempdir().unwrap();
    let options = FileStoreOptions { limits: small_limits(), ..Default::default() };
    let store = AnyStore::File(Box::new(FileStore::open_with(dir.path(), options).unwrap()));
    let path = dir.path().to_path_buf();
    refuses_over_the_limits_and_stays_usable(store, |s| {
        s.store().close().unwrap();
        AnyStore::File(Box::new(FileStore::open_with(&path, options).unwrap()))
    });
}

#[test]
fn a_refused_record_leaves_the_file_as_it_was() {
    let dir = tempfile::tempdir().unwrap();
    let options = FileStoreOptions { limits: small_limits(), ..Default::default() };
    let mut store = FileStore::open_with(dir.path(), options).unwrap();
    store.put(&key(1), &ActionState::default()).unwrap();
    let before = store.stats().unwrap();
    let segment = std::fs::read(store.segment_path().unwrap()).unwrap();
    let mut big = ActionState::default();
    big.call_results.push(CallResult::completed("big", Outcome::success(Some(vec![0; 5_000]))));
    assert_eq!(store.put(&key(1), &big).unwrap_err().code(), ErrorCode::SizeLimitExceeded);
    let after = store.stats().unwrap();
    assert_eq!((after.bytes_appended, after.records_appended), (before.bytes_appended, before.records_appended));
    assert_eq!(std::fs::read(store.segment_path().unwrap()).unwrap(), segment, "not a byte written");
}

#[test]
fn limits_a_frame_could_not_honour_are_refused_at_open() {
    let dir = tempfile::tempdir().unwrap();
    let limits = StoreLimits { max_record_bytes: MAX_LIMIT_BYTES + 1, max_entry_bytes: MAX_LIMIT_BYTES };
    let err = FileStore::open_with(dir.path(), FileStoreOptions { limits, ..Default::default() }).err().unwrap();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{err}");
}
