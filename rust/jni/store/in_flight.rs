//! The JNI export of `StoreJni.inFlightEntries`: the `getResuming` answers
//! of many interrupted entries in one crossing, for a reader that is about
//! to ask for each of them once (Flink Agents' adapter, right after a
//! restore: every action in flight re-runs).
//!
//! Why: per entry, `getResuming` costs about as much as the entry's whole
//! replay at 100-byte payloads, nearly all of it JNI's (the key read field by
//! field, six arrays and an upcall). Here the entries of the whole store
//! cross as four arrays and one object.

use jni::objects::{JClass, JObject};
use jni::sys::{jint, jlong};
use jni::{Env, EnvUnowned, JValue};

use super::resuming::{packed_length, PACKED_RESULT_MAX};
use super::{store_handle, EVENT_ATTRIBUTES, EVENT_OCCURRENCE};
use crate::error::Error;
use crate::jni::arrays;
use crate::jni::classes::classes;
use crate::jni::journal::{slot_id, slot_status};
use crate::jni::{BridgeError, BridgeResult, ThrowJavaException};
use crate::model::ActionState;
use crate::store::{BusinessKey, EventIdentity};

/// Ints per entry in `entryColumns` (`InFlightEntries.ENTRY_COLUMNS`): the
/// lengths of its key text, action and event in `packed`, its event's kind
/// (`EventIdentity`'s), whether its event is the root occurrence of its own
/// key and sequence number (1 or 0), its slot count, the length of its JSON
/// without calls, and its hit count.
const ENTRY_COLUMNS: usize = 8;

/// The largest result that crosses here: `getResuming`'s largest packed
/// one. An entry with a larger one (or with a failed hit, whose exception
/// would need a column of its own) is left out, and its reader asks
/// `getResuming` for it.
const RESULT_MAX: usize = PACKED_RESULT_MAX;

/// The packed columns of the entries taken so far.
#[derive(Default)]
struct Columns {
    packed: Vec<u8>,
    entries: Vec<jint>,
    seqs: Vec<jlong>,
    slots: Vec<jint>,
}

impl Columns {
    /// Adds the entry if it is interrupted (a completed one is decoded
    /// whole by its reader), filed under a text key (the adapter's), and
    /// all its hits cross here, within `max_bytes` of `packed`.
    fn add(&mut self, business_key: &BusinessKey, seq: i64, action: &str, event: &EventIdentity, state: &ActionState, max_bytes: usize) -> BridgeResult<()> {
        let BusinessKey::Str(key_text) = business_key else { return Ok(()) };
        if state.completed {
            return Ok(());
        }
        let hits = state.replayable_prefix();
        if hits.iter().any(|hit| hit.exception_payload.is_some() || hit.result_payload.as_ref().is_some_and(|r| r.len() > RESULT_MAX)) {
            return Ok(());
        }
        let (kind, event_bytes) = match event {
            EventIdentity::Occurrence(id) => (EVENT_OCCURRENCE, id.as_bytes()),
            EventIdentity::Attributes(digest) => (EVENT_ATTRIBUTES, digest.as_slice()),
        };
        let json = state.to_json_without_calls();
        let hit_bytes: usize = hits.iter().map(|hit| slot_id(hit).map_or(0, <[u8]>::len) + hit.result_payload.as_ref().map_or(0, Vec::len)).sum();
        let bytes = key_text.len() + action.len() + event_bytes.len() + json.len() + hit_bytes;
        if self.packed.len() + bytes > max_bytes {
            return Ok(());
        }
        let calls = state.call_results.len();
        let columns: [jint; ENTRY_COLUMNS] = [
            length(key_text.len())?,
            length(action.len())?,
            kind,
            length(event_bytes.len())?,
            jint::from(event.is_root_occurrence_of(business_key, seq)),
            jint::try_from(calls).map_err(|_| Error::InvalidArgument(format!("{calls} call slots")))?,
            length(json.len())?,
            length(hits.len())?,
        ];
        self.entries.extend(columns);
        self.seqs.push(seq);
        for part in [key_text.as_bytes(), action.as_bytes(), event_bytes, &json] {
            self.packed.extend_from_slice(part);
        }
        for hit in hits {
            let id = packed_length(&mut self.packed, slot_id(hit))?;
            let result = packed_length(&mut self.packed, hit.result_payload.as_deref())?;
            self.slots.extend([id, result, slot_status(hit)]);
        }
        Ok(())
    }
}

fn length(len: usize) -> BridgeResult<jint> {
    jint::try_from(len).map_err(|_| BridgeError::Core(Error::InvalidArgument(format!("{len} bytes do not fit a Java array"))))
}

/// A new `InFlightEntries(packed, entryColumns, seqs, slotColumns)` of the
/// store's interrupted entries whose packed bytes fit `max_bytes`: per
/// entry, its key text, action, event, JSON without calls (the `getResuming`
/// JSON) and its hits (the core's [`ActionState::replayable_prefix`]), each
/// hit's id then result, back to back in `packed`; its
/// [`ENTRY_COLUMNS`] ints in `entryColumns`, its sequence number in `seqs`,
/// and per hit the lengths of its id and result and its status in
/// `slotColumns`. Reading changes nothing in the store.
fn in_flight_entries<'l>(env: &mut Env<'l>, ptr: jlong, max_bytes: jlong) -> BridgeResult<JObject<'l>> {
    let max_bytes = usize::try_from(max_bytes).map_err(|_| Error::InvalidArgument(format!("negative byte budget {max_bytes}")))?;
    let max_bytes = max_bytes.min(i32::MAX as usize);
    let store = store_handle(ptr)?.clone();
    let mut columns = Columns::default();
    let mut failed = Ok(());
    store.read_entries(&mut |business_key, seq, action, event, state| {
        if failed.is_ok() {
            failed = columns.add(business_key, seq, action, event, state, max_bytes);
        }
    })?;
    failed?;
    let packed = arrays::byte_array(env, &columns.packed)?;
    let entries = arrays::int_array(env, &columns.entries)?;
    let seqs = arrays::long_array(env, &columns.seqs)?;
    let slots = arrays::int_array(env, &columns.slots)?;
    let args = [JValue::Object(&packed).as_jni(), JValue::Object(&entries).as_jni(), JValue::Object(&seqs).as_jni(), JValue::Object(&slots).as_jni()];
    Ok(classes(env)?.in_flight_entries.new_object(env, &args)?)
}

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_store_StoreJni_inFlightEntries<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, ptr: jlong, max_bytes: jlong) -> JObject<'l> {
    env.with_env(|env| in_flight_entries(env, ptr, max_bytes)).resolve::<ThrowJavaException>()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{CallResult, Outcome};

    fn interrupted(results: &[&[u8]]) -> ActionState {
        let mut state = ActionState::default();
        for (i, result) in results.iter().enumerate() {
            state.call_results.push(CallResult::completed(format!("call-{i}"), Outcome::success(Some(result.to_vec()))));
        }
        state
    }

    #[test]
    fn an_entry_crosses_with_its_hits_and_whether_its_event_is_its_inputs_root() {
        let key = BusinessKey::Str("user-1".into());
        let root = EventIdentity::root_occurrence(&key, 3).unwrap();
        let mut columns = Columns::default();
        columns.add(&key, 3, "act", &root, &interrupted(&[b"\"a\"", b"\"bb\""]), usize::MAX).unwrap();
        assert_eq!(columns.seqs, [3]);
        assert_eq!(&columns.entries[..6], &[6, 3, EVENT_OCCURRENCE, root_len(&root), 1, 2]);
        assert_eq!(columns.entries[7], 2, "both slots are hits");
        assert_eq!(columns.slots, [6, 3, SLOT_SUCCEEDED, 6, 4, SLOT_SUCCEEDED]);
        let json_len = columns.entries[6] as usize;
        let head = 6 + 3 + root_len(&root) as usize;
        assert_eq!(&columns.packed[head + json_len..], b"call-0\"a\"call-1\"bb\"");

        let other = EventIdentity::root_occurrence(&key, 4).unwrap();
        columns.add(&key, 3, "act", &other, &interrupted(&[]), usize::MAX).unwrap();
        assert_eq!(columns.entries[ENTRY_COLUMNS + 4], 0, "the root occurrence of another input");
    }

    #[test]
    fn completed_failed_large_or_over_budget_entries_are_left_to_get_resuming() {
        let key = BusinessKey::Str("k".into());
        let event = EventIdentity::Occurrence("e".into());
        let mut completed = interrupted(&[]);
        completed.completed = true;
        let mut failed = interrupted(&[]);
        failed.call_results.push(CallResult::completed("call-0", Outcome::failure(b"{}".to_vec())));
        let large = interrupted(&[&[b'1'; RESULT_MAX + 1]]);
        let mut columns = Columns::default();
        for state in [&completed, &failed, &large] {
            columns.add(&key, 0, "act", &event, state, usize::MAX).unwrap();
        }
        columns.add(&BusinessKey::Long(1), 0, "act", &event, &interrupted(&[]), usize::MAX).unwrap();
        columns.add(&key, 0, "act", &event, &interrupted(&[b"1"]), 10).unwrap();
        assert!(columns.seqs.is_empty() && columns.packed.is_empty() && columns.entries.is_empty());
        columns.add(&key, 0, "act", &event, &interrupted(&[b"1"]), usize::MAX).unwrap();
        assert_eq!(columns.seqs, [0]);
    }

    fn root_len(root: &EventIdentity) -> jint {
        match root {
            EventIdentity::Occurrence(id) => id.len() as jint,
            EventIdentity::Attributes(_) => unreachable!("a root occurrence is an occurrence"),
        }
    }

    const SLOT_SUCCEEDED: jint = crate::jni::journal::SLOT_SUCCEEDED;
}
