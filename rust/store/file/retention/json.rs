//! Retained actions as JSON, for the bindings' replayers: one array, each
//! action's state in Flink Agents' `ActionStateSerde` form (calls kept).

use super::RetainedAction;
use crate::model::write_json_str;
use crate::store::key::EventIdentity;

/// `[{"number", "completedAtMillis", "planDigest" (or null), "key" (as
/// `BusinessKey::describe` writes it), "seq", "action", "event"
/// (`occ:<id>` or `attrs:<hex>`), "state" (a string: the
/// ActionState's JSON text)}, ...]`, in the order given.
pub fn retained_to_json(actions: &[RetainedAction]) -> String {
    let mut out = String::from("[");
    for (i, action) in actions.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&format!("{{\"number\":{},\"completedAtMillis\":{},\"planDigest\":", action.number, action.completed_at_millis));
        match &action.plan_digest {
            Some(digest) => write_json_str(digest, &mut out),
            None => out.push_str("null"),
        }
        out.push_str(",\"key\":");
        write_json_str(&action.key.business_key.describe(), &mut out);
        out.push_str(&format!(",\"seq\":{},\"action\":", action.key.seq));
        write_json_str(&action.key.action, &mut out);
        out.push_str(",\"event\":");
        let event = match &action.key.event {
            EventIdentity::Occurrence(id) => format!("occ:{id}"),
            EventIdentity::Attributes(digest) => format!("attrs:{}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>()),
        };
        write_json_str(&event, &mut out);
        // As a string holding the state's JSON text: a reader gets the bodies exactly as written.
        out.push_str(",\"state\":");
        write_json_str(std::str::from_utf8(&action.state.to_json()).expect("an ActionState's JSON is UTF-8"), &mut out);
        out.push('}');
    }
    out.push(']');
    out
}
