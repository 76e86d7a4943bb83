//! Recorded actions as JSON, for the bindings' replayers: retained
//! (completed) actions, and the live entries a restore would replay, in one
//! shape: an array, each action's state in Flink Agents' `ActionStateSerde`
//! form (calls kept).

use super::RetainedAction;
use crate::model::{write_json_str, ActionState};
use crate::store::file::InspectedEntry;
use crate::store::key::{EventIdentity, StateKey};

/// `[{"number", "completedAtMillis", "planDigest" (or null), "key" (as
/// `BusinessKey::describe` writes it), "seq", "action", "event"
/// (`occ:<id>` or `attrs:<hex>`), "state" (a string: the ActionState's JSON
/// text)}, ...]`, in the order given.
pub fn retained_to_json(actions: &[RetainedAction]) -> String {
    let rows = actions.iter().map(|a| (a.number, a.completed_at_millis, a.plan_digest.as_deref(), &a.key, &a.state));
    to_json(rows)
}

/// The live entries that are not completed (the journals a restore would
/// replay), in the same shape: `number` is the entry's place among them,
/// `completedAtMillis` is -1 and `planDigest` null.
pub fn in_flight_to_json(entries: &[InspectedEntry]) -> String {
    let open = entries.iter().filter(|e| !e.state.completed);
    to_json(open.enumerate().map(|(i, e)| (i as u64, -1, None, &e.key, &e.state)))
}

type Row<'a> = (u64, i64, Option<&'a str>, &'a StateKey, &'a ActionState);

fn to_json<'a>(rows: impl Iterator<Item = Row<'a>>) -> String {
    let mut out = String::from("[");
    for (i, (number, millis, plan_digest, key, state)) in rows.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"number\":{number},\"completedAtMillis\":{millis},\"planDigest\":"));
        match plan_digest {
            Some(digest) => write_json_str(digest, &mut out),
            None => out.push_str("null"),
        }
        out.push_str(",\"key\":");
        write_json_str(&key.business_key.describe(), &mut out);
        out.push_str(&format!(",\"seq\":{},\"action\":", key.seq));
        write_json_str(&key.action, &mut out);
        out.push_str(",\"event\":");
        let event = match &key.event {
            EventIdentity::Occurrence(id) => format!("occ:{id}"),
            EventIdentity::Attributes(digest) => format!("attrs:{}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>()),
        };
        write_json_str(&event, &mut out);
        // As a string holding the state's JSON text: a reader gets the bodies exactly as written.
        out.push_str(",\"state\":");
        write_json_str(std::str::from_utf8(&state.to_json()).expect("an ActionState's JSON is UTF-8"), &mut out);
        out.push('}');
    }
    out.push(']');
    out
}
