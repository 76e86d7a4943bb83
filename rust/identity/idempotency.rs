//! The idempotency key of a journaled call: what a call hands an external
//! service (a payment API, a mail sender) so that the service deduplicates
//! the call's repeats. The journal runs a call again when the process died
//! while it ran (at least once); with this key the service sees one request.
//!
//! The key is derived from where the call sits, never from what it carries,
//! so every attempt of the call, in any process, before and after a restore,
//! gets the same key, and two different calls never share one:
//!
//! * the store entry of the action execution (business key with its type,
//!   sequence number, action name, triggering event: `StateKey::encode`,
//!   docs/store.md);
//! * the call's durable id (spec §3);
//! * its occurrence: how many calls with the same id the action made before
//!   it (a loop that sends three mails with one id gets three keys).
//!
//! Layout as RuntimeIdentity's (docs/identity.md): SHA-256 over
//! length-prefixed components, the first 16 bytes as hex after `idem:`.

use super::runtime::{derive, require_non_empty, require_non_empty_bytes, require_ordinal};
use crate::error::Result;

pub const IDEMPOTENCY_KEY_PREFIX: &str = "idem:";
const CALL_IDEMPOTENCY_DOMAIN: &str = "durable-journal:call-idempotency-key:v1";

/// The idempotency key of the `occurrence`-th call (from 0) with durable id
/// `call_id` in the action execution stored under the entry `entry` (the
/// canonical encoding of its state key).
pub fn call_idempotency_key(entry: &[u8], call_id: &str, occurrence: i64) -> Result<String> {
    require_non_empty_bytes(entry, "store entry")?;
    require_non_empty(call_id, "call id")?;
    let occurrence = require_ordinal(occurrence, "call occurrence")?;
    Ok(derive(IDEMPOTENCY_KEY_PREFIX, CALL_IDEMPOTENCY_DOMAIN, &[entry, call_id.as_bytes(), &occurrence.to_be_bytes()]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    #[test]
    fn each_component_changes_the_key_and_the_same_inputs_give_the_same_key() {
        let key = call_idempotency_key(b"entry", "send-mail", 0).unwrap();
        assert_eq!(key, call_idempotency_key(b"entry", "send-mail", 0).unwrap());
        assert!(key.starts_with("idem:") && key.len() == 5 + 32, "{key}");
        for other in [
            call_idempotency_key(b"entry2", "send-mail", 0),
            call_idempotency_key(b"entry", "send-mail2", 0),
            call_idempotency_key(b"entry", "send-mail", 1),
        ] {
            assert_ne!(other.unwrap(), key);
        }
    }

    #[test]
    fn boundaries_between_components_count() {
        assert_ne!(call_idempotency_key(b"ab", "c", 0).unwrap(), call_idempotency_key(b"a", "bc", 0).unwrap());
    }

    #[test]
    fn empty_components_and_negative_occurrences_are_refused() {
        for err in [
            call_idempotency_key(b"", "c", 0).unwrap_err(),
            call_idempotency_key(b"e", "", 0).unwrap_err(),
            call_idempotency_key(b"e", "c", -1).unwrap_err(),
        ] {
            assert_eq!(err.code(), ErrorCode::InvalidArgument, "{err}");
        }
    }
}
