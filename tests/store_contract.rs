//! The store contract (spec §4, `docs/store.md`): every behaviour an
//! `ActionStateStore` promises, written once and run against every backend:
//! the in-memory store, the file store and the log-backed store (over an
//! in-memory log). What only one backend does stays in that backend's own
//! tests.
//!
//! Every case drives the store as the bindings do: through a
//! [`SharedStore`], whose journals persist through
//! [`SharedStore::open_journal`] (the path a Java or Python action's calls
//! take), after readying each business key as the binding does first
//! ([`Backend::before`]).
//!
//! A backend joins with one file in `tests/store_contract/` that says how to
//! open it (an implementation of [`Backend`]) and ends with
//! `store_contract!(ItsBackend);`, plus its `mod` line below. Each case then
//! runs as `<backend>::<case>`: `cargo test --release --test store_contract
//! log::` runs the log store's.
#![deny(dead_code)] // a case written here but listed in no `store_contract!` run fails the build

#[path = "support/exact_state.rs"]
mod exact_state;

use std::marker::PhantomData;

use durable_journal::store::log::{Lineage, LogLayout};
use durable_journal::store::{
    ActionStateStore, BusinessKey, EventIdentity, LogMarker, PositionMarker, RecoveryMarker, SharedStore, SharedStorePersister,
    StateKey, StoreId, DEFAULT_MAX_RECORD_BYTES,
};
use durable_journal::{ActionState, CallResult, CallStep, ErrorCode, Journal, JournalChange, Outcome, Result};
use serde_json::json;

/// How the contract opens and restores one kind of store. Markers need
/// nothing of the backend: every store answers them through the shared
/// store, as the bindings take them ([`SharedStore::recovery_marker`]).
pub trait Backend: Sized {
    /// A new, empty store over a medium of its own (a directory, a log),
    /// shared as the bindings hold it; the backend keeps what it needs to
    /// open that medium again.
    fn open_new() -> (Self, SharedStore);

    /// What the binding does before an operation on `business_key` (the
    /// log store's binds the key's key group); nothing by default.
    fn before(store: &SharedStore, business_key: &BusinessKey) -> Result<()> {
        let _ = (store, business_key);
        Ok(())
    }

    /// What a Flink restore from `markers` does: a backend that persists
    /// closes `store` and opens its medium again
    /// (`ActionStateStore::rebuild_state`, then whatever loading the store
    /// needs); the in-memory store, which forgets everything when dropped,
    /// checks them on the store itself.
    fn restore(&mut self, store: SharedStore, markers: &[RecoveryMarker]) -> Result<SharedStore>;

    /// `marker` as if the store had written one record more than it has:
    /// the marker of a store that lost acknowledged records.
    fn ahead(marker: &RecoveryMarker) -> RecoveryMarker;
}

/// Runs every case of the contract against `$backend`, each as a `#[test]`
/// named after the case.
macro_rules! store_contract {
    ($backend:ty) => {
        store_contract!(@cases $backend;
            put_then_get_returns_the_state,
            every_journal_mutation_reaches_the_store_through_the_persister,
            a_journal_mutation_without_a_stored_entry_is_refused_and_undone,
            a_change_that_does_not_fit_the_stored_journal_is_refused,
            a_miss_hides_every_later_sequence_number_of_that_key_only,
            a_hit_hides_nothing,
            read_entry_lends_what_get_returns_and_misses_as_get_does,
            read_entries_lends_every_live_entry_as_get_returns_it_and_changes_nothing,
            business_keys_of_different_types_never_collide,
            underscores_in_keys_and_action_names_are_harmless,
            equal_attribute_events_with_different_occurrence_ids_are_distinct,
            prune_drops_entries_up_to_the_sequence_number_for_that_key_only,
            an_action_in_flight_replays_its_journal_from_the_store,
            exact_data_comes_back_whole_and_through_journal_deltas,
            a_record_over_the_default_limit_is_refused_writes_nothing_and_the_store_goes_on,
            a_restore_from_its_own_markers_keeps_every_entry_those_written_after_them_too,
            a_marker_ahead_of_the_store_is_refused,
            a_marker_of_another_kind_of_store_is_refused_and_the_store_goes_on,
            close_is_idempotent_and_every_later_call_fails_with_closed,
        );
    };
    (@cases $backend:ty; $($case:ident),* $(,)?) => {
        $(
            #[test]
            fn $case() {
                crate::$case::<$backend>();
            }
        )*
    };
}

#[path = "store_contract/file.rs"]
mod file;
#[path = "store_contract/log.rs"]
mod log;
#[path = "store_contract/memory.rs"]
mod memory;

fn key(business_key: BusinessKey, seq: i64) -> StateKey {
    StateKey::new(business_key, seq, "process", EventIdentity::Occurrence(format!("occ-{seq}")))
}

fn user(seq: i64) -> StateKey {
    key(BusinessKey::Str("user-1".into()), seq)
}

fn state_with_event(text: &str) -> ActionState {
    ActionState { task_event: Some(json!({"@class": "org.example.InputEvent", "input": text}).into()), ..Default::default() }
}

fn input(state: ActionState) -> String {
    state.task_event.unwrap().to_value().unwrap()["input"].as_str().unwrap().to_string()
}

fn ok(id: &str, payload: &[u8]) -> CallResult {
    CallResult::completed(id, Outcome::success(Some(payload.to_vec())))
}

fn ids(state: &ActionState) -> Vec<String> {
    state.call_results.iter().map(CallResult::call_id_for_display).collect()
}

/// The store under test as a binding drives it: each keyed call readies its
/// business key ([`Backend::before`]), then goes through the shared store.
struct Store<B: Backend> {
    shared: SharedStore,
    backend: PhantomData<B>,
}

impl<B: Backend> Store<B> {
    fn open_new() -> (B, Store<B>) {
        let (backend, shared) = B::open_new();
        (backend, Store::over(shared))
    }

    fn over(shared: SharedStore) -> Store<B> {
        Store { shared, backend: PhantomData }
    }

    fn put(&self, k: &StateKey, state: &ActionState) -> Result<()> {
        B::before(&self.shared, &k.business_key)?;
        self.shared.put(k, state)
    }

    fn apply(&self, k: &StateKey, change: JournalChange<'_>) -> Result<()> {
        B::before(&self.shared, &k.business_key)?;
        self.shared.apply(k, change)
    }

    fn get(&self, k: &StateKey) -> Result<Option<ActionState>> {
        B::before(&self.shared, &k.business_key)?;
        self.shared.get(k)
    }

    fn read_entry(&self, k: &StateKey, read: &mut dyn FnMut(&ActionState)) -> Result<bool> {
        B::before(&self.shared, &k.business_key)?;
        self.shared.read_entry(k, read)
    }

    /// Every entry [`SharedStore::read_entries`] lends, as `(key, state)`, sorted by key.
    fn read_entries(&self) -> Result<Vec<(StateKey, ActionState)>> {
        let mut lent = Vec::new();
        self.shared.read_entries(&mut |business_key, seq, action, event, state| {
            lent.push((StateKey::new(business_key.clone(), seq, action, event.clone()), state.clone()));
        })?;
        lent.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(lent)
    }

    fn prune_state(&self, business_key: &BusinessKey, seq_up_to: i64) -> Result<()> {
        B::before(&self.shared, business_key)?;
        self.shared.prune_state(business_key, seq_up_to)
    }

    /// The journal over the entry at `k` (put first when there is none), as
    /// a binding opens it; its persister writes through the shared store.
    fn open_journal(&self, k: &StateKey) -> (Journal, SharedStorePersister) {
        B::before(&self.shared, &k.business_key).unwrap();
        self.shared.open_journal(k.clone(), None).unwrap()
    }

    /// What only the store itself answers (markers, sync, close).
    fn with<T>(&self, op: impl FnOnce(&mut dyn ActionStateStore) -> T) -> T {
        op(self.shared.lock().unwrap().store())
    }

    /// The store's marker now, as the operator checkpoints it.
    fn marker(&self) -> Result<RecoveryMarker> {
        self.shared.recovery_marker()
    }

    fn restore(self, backend: &mut B, markers: &[RecoveryMarker]) -> Result<Store<B>> {
        backend.restore(self.shared, markers).map(Store::over)
    }
}

/// The action at `k` restarted from the top over what `store` holds: the
/// step each of its `(call id, reconcilable)` calls takes, in order.
fn rerun<B: Backend>(store: &Store<B>, k: &StateKey, calls: &[(&str, bool)]) -> Vec<CallStep> {
    let (mut journal, mut persister) = store.open_journal(k);
    calls.iter().map(|(id, reconcilable)| journal.begin_call(id, *reconcilable, &mut persister).unwrap()).collect()
}

fn put_then_get_returns_the_state<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let state = ActionState { call_results: vec![ok("a", b"1"), CallResult::pending("b")], ..state_with_event("hi") };
    store.put(&user(1), &state).unwrap();
    assert_eq!(store.get(&user(1)).unwrap(), Some(state));
    let replaced = state_with_event("again");
    store.put(&user(1), &replaced).unwrap();
    assert_eq!(store.get(&user(1)).unwrap(), Some(replaced));
    assert_eq!(store.get(&user(2)).unwrap(), None, "nothing at another sequence number");
}

fn every_journal_mutation_reaches_the_store_through_the_persister<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let k = user(1);
    store.put(&k, &state_with_event("go")).unwrap();
    let (mut journal, mut persister) = store.open_journal(&k);
    assert_eq!(journal.state(), &state_with_event("go"), "the journal opens over the stored entry");
    let check = |store: &Store<B>, journal: &Journal| {
        assert_eq!(store.get(&k).unwrap().unwrap().call_results, journal.state().call_results);
    };

    journal.record_call_completion("a", Outcome::success(Some(b"1".to_vec())), &mut persister).unwrap();
    check(&store, &journal);
    journal.append_pending_call("b", &mut persister).unwrap();
    check(&store, &journal);
    journal.finalize_current_call("b", Outcome::failure(b"boom".to_vec()), &mut persister).unwrap();
    check(&store, &journal);
    journal.reserve_pending_batch(&["c", "d", "e"], &mut persister).unwrap();
    journal.finalize_call_at(3, "d", Outcome::success(Some(vec![])), &mut persister).unwrap();
    check(&store, &journal);
    journal.clear_call_results_from_and_persist(3, &mut persister).unwrap();
    check(&store, &journal);
    assert_eq!(journal.len(), 3);

    let with_outputs = ActionState { output_events: vec![json!({"out": 1}).into()], ..journal.state().clone() };
    store.put(&k, &with_outputs).unwrap();
    journal.mark_completed(&mut persister).unwrap();
    let stored = store.get(&k).unwrap().unwrap();
    assert!(stored.completed);
    assert!(stored.call_results.is_empty());
    assert_eq!(stored.output_events, vec![json!({"out": 1}).into()], "completion keeps what was put");
}

fn a_journal_mutation_without_a_stored_entry_is_refused_and_undone<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let k = user(1);
    let (mut journal, mut persister) = store.open_journal(&k);
    store.prune_state(&k.business_key, k.seq).unwrap();
    let err = journal.record_call_completion("a", Outcome::success(None), &mut persister).unwrap_err();
    assert_eq!(err.code(), ErrorCode::PersistFailed, "{err}");
    assert!(err.to_string().contains("put the ActionState first"), "{err}");
    assert!(journal.is_empty());
    assert_eq!(store.get(&k).unwrap(), None);
}

fn a_change_that_does_not_fit_the_stored_journal_is_refused<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let k = user(1);
    store.put(&k, &ActionState::default()).unwrap();
    let slot = CallResult::pending("a");
    let err = store.apply(&k, JournalChange::Put { index: 3, slot: &slot }).unwrap_err();
    assert_eq!(err.code(), ErrorCode::IllegalState, "{err}");
    assert!(store.get(&k).unwrap().unwrap().call_results.is_empty());
}

fn a_miss_hides_every_later_sequence_number_of_that_key_only<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let other = |seq| key(BusinessKey::Str("user-2".into()), seq);
    for seq in [1, 2, 3, 5] {
        store.put(&user(seq), &state_with_event("u1")).unwrap();
        store.put(&other(seq), &state_with_event("u2")).unwrap();
    }
    assert_eq!(store.get(&user(4)).unwrap(), None);
    assert!(store.get(&user(5)).unwrap().is_none(), "later than the miss: hidden");
    assert!(store.get(&user(3)).unwrap().is_some(), "earlier than the miss: kept");
    for seq in [1, 2, 3, 5] {
        assert!(store.get(&other(seq)).unwrap().is_some(), "another key is untouched (seq {seq})");
    }
    // A miss on a different action at an existing sequence number is a
    // miss too: the re-run left the recorded history there.
    let other_action =
        StateKey::new(BusinessKey::Str("user-1".into()), 2, "other", EventIdentity::Occurrence("occ-2".into()));
    assert_eq!(store.get(&other_action).unwrap(), None);
    assert!(store.get(&user(3)).unwrap().is_none());
    assert!(store.get(&user(2)).unwrap().is_some());
}

fn read_entry_lends_what_get_returns_and_misses_as_get_does<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let mut state = state_with_event("u1");
    state.call_results.push(ok("chat", b"\"a\""));
    for seq in [1, 2, 3] {
        store.put(&user(seq), &state).unwrap();
    }
    let mut lent = Vec::new();
    assert!(store.read_entry(&user(1), &mut |found| lent.push(found.clone())).unwrap());
    assert_eq!(lent, [state.clone()], "the entry, exactly once");
    lent.clear();
    let other_action = StateKey::new(BusinessKey::Str("user-1".into()), 2, "other", EventIdentity::Occurrence("occ-2".into()));
    assert!(!store.read_entry(&other_action, &mut |found| lent.push(found.clone())).unwrap());
    assert!(lent.is_empty(), "a miss reads nothing");
    assert!(store.get(&user(3)).unwrap().is_none(), "and hides the later sequence numbers, as get's miss does");
    assert!(store.get(&user(1)).unwrap().is_some());
}

fn read_entries_lends_every_live_entry_as_get_returns_it_and_changes_nothing<B: Backend>() {
    let (mut backend, store) = Store::<B>::open_new();
    let seven = |seq| key(BusinessKey::Long(7), seq);
    for seq in 1..=3 {
        store.put(&user(seq), &state_with_event(&format!("user {seq}"))).unwrap();
        store.put(&seven(seq), &state_with_event(&format!("seven {seq}"))).unwrap();
    }
    store.prune_state(&BusinessKey::Long(7), 1).unwrap();
    assert_eq!(store.get(&user(0)).unwrap(), None, "a miss that hides user 1 to 3");
    let (mut journal, mut persister) = store.open_journal(&seven(2));
    journal.record_call_completion("chat", Outcome::success(Some(b"\"a\"".to_vec())), &mut persister).unwrap();
    journal.append_pending_call("tool", &mut persister).unwrap();
    let marker = store.marker().unwrap();

    let lent = store.read_entries().unwrap();
    let keys: Vec<&StateKey> = lent.iter().map(|(k, _)| k).collect();
    assert_eq!(keys, [&seven(2), &seven(3)], "the live entries only, each once");
    assert_eq!(lent[0].1, *journal.state(), "with the journal's calls");
    for (k, state) in &lent {
        assert_eq!(store.get(k).unwrap().as_ref(), Some(state), "exactly what get returns");
    }
    assert_eq!(store.read_entries().unwrap(), lent, "reading changed nothing");

    let restored = store.restore(&mut backend, &[marker]).unwrap();
    assert_eq!(restored.read_entries().unwrap(), lent, "a restored store lends the same entries");
    restored.with(|s| s.close()).unwrap();
    assert_eq!(restored.read_entries().unwrap_err().code(), ErrorCode::Closed);
}

fn a_hit_hides_nothing<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    for seq in 1..=3 {
        store.put(&user(seq), &ActionState::default()).unwrap();
    }
    assert!(store.get(&user(1)).unwrap().is_some());
    assert!(store.get(&user(3)).unwrap().is_some());
}

fn business_keys_of_different_types_never_collide<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let keys = [
        BusinessKey::Long(1),
        BusinessKey::Str("1".into()),
        BusinessKey::Int(1),
        BusinessKey::Bytes(vec![1]),
        BusinessKey::Bytes(b"1".to_vec()),
        BusinessKey::Typed { type_name: "java.lang.Short".into(), bytes: vec![0, 1] },
        BusinessKey::Typed { type_name: "java.lang.Byte".into(), bytes: vec![1] },
    ];
    for (i, business_key) in keys.iter().enumerate() {
        store.put(&key(business_key.clone(), 1), &state_with_event(&i.to_string())).unwrap();
    }
    for (i, business_key) in keys.iter().enumerate() {
        let got = store.get(&key(business_key.clone(), 1)).unwrap().unwrap();
        assert_eq!(input(got), i.to_string(), "{business_key:?}");
    }
    store.prune_state(&BusinessKey::Long(1), 1).unwrap();
    assert_eq!(input(store.get(&key(BusinessKey::Str("1".into()), 1)).unwrap().unwrap()), "1", "pruning Long 1 leaves \"1\"");
}

fn underscores_in_keys_and_action_names_are_harmless<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    // Joined with `_`, both are "a_1_2_x": one entry in Flink Agents.
    let event = EventIdentity::Occurrence("e".into());
    let first = StateKey::new(BusinessKey::Str("a_1".into()), 2, "x", event.clone());
    let second = StateKey::new(BusinessKey::Str("a".into()), 1, "2_x", event);
    store.put(&first, &state_with_event("first")).unwrap();
    store.put(&second, &state_with_event("second")).unwrap();
    assert_eq!(input(store.get(&first).unwrap().unwrap()), "first");
    assert_eq!(input(store.get(&second).unwrap().unwrap()), "second");
    store.prune_state(&BusinessKey::Str("a".into()), 5).unwrap();
    assert_eq!(input(store.get(&first).unwrap().unwrap()), "first", "pruning key a leaves key a_1 alone");
}

fn equal_attribute_events_with_different_occurrence_ids_are_distinct<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let at = |event| StateKey::new(BusinessKey::Long(7), 1, "process", event);
    let first = at(EventIdentity::Occurrence("occ-a".into()));
    let second = at(EventIdentity::Occurrence("occ-b".into()));
    let by_attributes = at(EventIdentity::Attributes(b"occ-a".to_vec()));
    store.put(&first, &state_with_event("same payload")).unwrap();
    store.put(&second, &ActionState { call_results: vec![ok("f", b"2")], ..state_with_event("same payload") }).unwrap();
    assert!(store.get(&first).unwrap().unwrap().call_results.is_empty());
    assert_eq!(store.get(&second).unwrap().unwrap().call_results.len(), 1);
    assert_eq!(store.get(&by_attributes).unwrap(), None, "a digest never equals an occurrence id");
}

fn prune_drops_entries_up_to_the_sequence_number_for_that_key_only<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let other = |seq| key(BusinessKey::Str("user-2".into()), seq);
    for seq in 1..=4 {
        store.put(&user(seq), &ActionState::default()).unwrap();
        store.put(&other(seq), &ActionState::default()).unwrap();
    }
    store.prune_state(&BusinessKey::Str("user-1".into()), 2).unwrap();
    store.prune_state(&BusinessKey::Str("nobody".into()), 9).unwrap();
    // Later sequence numbers first: a miss would hide them.
    assert!(store.get(&user(4)).unwrap().is_some());
    assert!(store.get(&user(3)).unwrap().is_some());
    assert!(store.get(&other(1)).unwrap().is_some());
    assert_eq!(store.get(&user(2)).unwrap(), None);
    assert_eq!(store.get(&user(1)).unwrap(), None);
}

fn an_action_in_flight_replays_its_journal_from_the_store<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let k = user(1);
    store.put(&k, &state_with_event("go")).unwrap();
    let (mut journal, mut persister) = store.open_journal(&k);
    for (id, reconcilable) in [("a", false), ("b", true)] {
        assert_eq!(journal.begin_call(id, reconcilable, &mut persister).unwrap(), CallStep::Execute);
        journal.complete_call(id, Outcome::success(Some(id.as_bytes().to_vec())), &mut persister).unwrap();
    }

    assert_eq!(
        rerun(&store, &k, &[("a", false), ("b", true), ("c", false)]),
        [CallStep::Replay(ok("a", b"a")), CallStep::Replay(ok("b", b"b")), CallStep::Execute]
    );
}

fn exact_data_comes_back_whole_and_through_journal_deltas<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    let k = user(1);
    let state = exact_state::exact_state();
    assert_eq!(String::from_utf8(state.to_json()).unwrap(), exact_state::exact_json());
    store.put(&k, &state).unwrap();
    assert_eq!(store.get(&k).unwrap(), Some(state.clone()));

    // Re-run: the first call replays, the pending one (with Flink Agents'
    // digest) is reconciled, and a new call lands after it.
    let (mut journal, mut persister) = store.open_journal(&k);
    assert_eq!(journal.state(), &state);
    let search = "py.search::0123456789abcdef";
    assert!(matches!(journal.begin_call("tool-call:a", false, &mut persister).unwrap(), CallStep::Replay(_)));
    journal.advance_call_index_by(2).unwrap();
    assert_eq!(journal.begin_call(search, true, &mut persister).unwrap(), CallStep::Reconcile);
    journal.complete_call(search, Outcome::success(Some(b"r".to_vec())), &mut persister).unwrap();
    journal.record_call_completion("next", Outcome::success(None), &mut persister).unwrap();
    let stored = store.get(&k).unwrap().unwrap();
    assert_eq!(stored, *journal.state());
    let json = String::from_utf8(stored.to_json()).unwrap();
    assert!(json.contains(r#"{"functionId":null,"argsDigest":"","status":"SUCCEEDED""#), "{json}");
    assert!(json.contains(r#"{"functionId":"tool-call:\uD83D","argsDigest":null,"#), "{json}");
    assert!(json.contains(r#"{"functionId":"py.search::0123456789abcdef","argsDigest":"9f86d081884c7d65","status":"SUCCEEDED""#), "{json}");
}

/// A record larger than a file frame could hold once panicked inside the
/// store while it held its lock; every store refuses it long before (64 MiB
/// per record by default), writes nothing, and goes on.
fn a_record_over_the_default_limit_is_refused_writes_nothing_and_the_store_goes_on<B: Backend>() {
    let (mut backend, store) = Store::<B>::open_new();
    let k = user(1);
    store.put(&k, &ActionState::default()).unwrap();
    let (mut journal, mut persister) = store.open_journal(&k);
    let huge = vec![b'r'; DEFAULT_MAX_RECORD_BYTES as usize + 1];
    let err = journal.record_call_completion("huge", Outcome::success(Some(huge)), &mut persister).unwrap_err();
    assert_eq!(err.code(), ErrorCode::SizeLimitExceeded, "{err}");
    assert!(err.to_string().contains(&format!("over the limit of {DEFAULT_MAX_RECORD_BYTES} bytes")), "{err}");
    assert!(journal.is_empty(), "the call is not recorded: it runs again on replay");
    journal.record_call_completion("after", Outcome::success(Some(b"1".to_vec())), &mut persister).unwrap();
    assert_eq!(ids(&store.get(&k).unwrap().unwrap()), ["after"]);
    let marker = store.marker().unwrap();
    let restored = store.restore(&mut backend, &[marker]).unwrap();
    assert_eq!(ids(&restored.get(&k).unwrap().unwrap()), ["after"], "the refused record left nothing behind");
}

/// The markers of two checkpoints, with an action in flight across both:
/// the restored store holds every entry as it was, pruned and hidden ones
/// stay gone, and the action's journal (records after the last marker
/// included) replays.
fn a_restore_from_its_own_markers_keeps_every_entry_those_written_after_them_too<B: Backend>() {
    let (mut backend, store) = Store::<B>::open_new();
    let exact = exact_state::exact_state();
    store.put(&user(1), &exact).unwrap();
    let seven = |seq| key(BusinessKey::Long(7), seq);
    for seq in 1..=2 {
        store.put(&seven(seq), &state_with_event(&format!("seven {seq}"))).unwrap();
    }
    store.prune_state(&BusinessKey::Long(7), 1).unwrap();
    let hidden = |seq| key(BusinessKey::Bytes(vec![0, 0xff]), seq);
    store.put(&hidden(2), &state_with_event("hidden")).unwrap();
    assert_eq!(store.get(&hidden(1)).unwrap(), None, "a miss that hides seq 2");
    let first = store.marker().unwrap();

    let k = user(2);
    store.put(&k, &state_with_event("in flight")).unwrap();
    let (mut journal, mut persister) = store.open_journal(&k);
    journal.record_call_completion("before", Outcome::success(Some(b"1".to_vec())), &mut persister).unwrap();
    let second = store.marker().unwrap();
    journal.record_call_completion("after", Outcome::success(Some(b"2".to_vec())), &mut persister).unwrap();
    journal.append_pending_call("pending", &mut persister).unwrap();

    let restored = store.restore(&mut backend, &[first, second]).unwrap();
    assert_eq!(restored.get(&user(1)).unwrap(), Some(exact), "exactly as put");
    assert_eq!(restored.get(&k).unwrap().as_ref(), Some(journal.state()), "the records after the markers are kept");
    assert_eq!(input(restored.get(&seven(2)).unwrap().unwrap()), "seven 2");
    assert_eq!(restored.get(&seven(1)).unwrap(), None, "pruned");
    assert_eq!(restored.get(&hidden(2)).unwrap(), None, "hidden by the miss");
    assert_eq!(
        rerun(&restored, &k, &[("before", false), ("after", false), ("pending", true)]),
        [CallStep::Replay(ok("before", b"1")), CallStep::Replay(ok("after", b"2")), CallStep::Reconcile]
    );
}

fn a_marker_ahead_of_the_store_is_refused<B: Backend>() {
    let (mut backend, store) = Store::<B>::open_new();
    store.put(&user(1), &ActionState::default()).unwrap();
    let marker = store.marker().unwrap();
    assert_eq!(RecoveryMarker::from_bytes(&marker.to_bytes()).unwrap(), marker, "a marker survives its bytes");
    assert!(RecoveryMarker::from_bytes(&[1, 2, 3]).is_err(), "three bytes are no marker");
    let err = store.restore(&mut backend, &[B::ahead(&marker)]).err().expect("a store behind its checkpoint is refused");
    assert_eq!(err.code(), ErrorCode::IllegalState, "{err}");
}

/// A log store's marker handed to a store that counts positions, or a
/// position handed to the log store (a job restored over another kind of
/// store): refused as bad input, and the store is as it was.
fn a_marker_of_another_kind_of_store_is_refused_and_the_store_goes_on<B: Backend>() {
    let (mut backend, store) = Store::<B>::open_new();
    store.put(&user(1), &state_with_event("kept")).unwrap();
    let foreign = match store.marker().unwrap() {
        RecoveryMarker::Position(_) => RecoveryMarker::Log(LogMarker {
            lineage: Lineage([3; 16]),
            layout: LogLayout { log_id: [4; 16], partitions: 1, max_parallelism: 8 },
            positions: vec![0],
            starts: vec![0],
        }),
        RecoveryMarker::Log(_) => RecoveryMarker::Position(PositionMarker { store_id: StoreId([5; 16]), position: 0 }),
    };
    let err = store.with(|s| s.rebuild_state(&[foreign])).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidArgument, "{err}");
    assert!(err.to_string().contains("not a recovery marker of"), "{err}");
    assert_eq!(input(store.get(&user(1)).unwrap().unwrap()), "kept");
    let own = store.marker().unwrap();
    let restored = store.restore(&mut backend, &[own]).unwrap();
    assert_eq!(input(restored.get(&user(1)).unwrap().unwrap()), "kept", "its own marker still restores it");
}

fn close_is_idempotent_and_every_later_call_fails_with_closed<B: Backend>() {
    let (_backend, store) = Store::<B>::open_new();
    store.put(&user(1), &ActionState::default()).unwrap();
    let (mut journal, mut persister) = store.open_journal(&user(1));
    store.with(|s| s.close()).unwrap();
    store.with(|s| s.close()).unwrap();
    let closed = [
        store.put(&user(1), &ActionState::default()).unwrap_err(),
        store.apply(&user(1), JournalChange::Complete).unwrap_err(),
        store.get(&user(1)).unwrap_err(),
        store.prune_state(&BusinessKey::Long(1), 1).unwrap_err(),
        store.with(|s| s.get_recovery_marker()).unwrap_err(),
        store.with(|s| s.rebuild_state(&[])).unwrap_err(),
        store.with(|s| s.sync()).unwrap_err(),
        store.with(|s| s.stats()).expect_err("stats of a closed store"),
        store.marker().unwrap_err(),
        store.shared.open_journal(user(2), None).err().expect("a journal over a closed store"),
        journal.record_call_completion("a", Outcome::success(None), &mut persister).unwrap_err(),
    ];
    for err in closed {
        assert_eq!(err.code(), ErrorCode::Closed, "{err}");
    }
    assert!(journal.is_empty(), "the refused call was undone in memory");
}
