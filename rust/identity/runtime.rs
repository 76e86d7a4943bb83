//! RuntimeIdentity (spec §3): ids for event occurrences, action executions
//! and generated calls, derived from where they sit in the run rather than
//! from what they carry, so equal-payload events never collide and a
//! deterministic replay reproduces every id.
//!
//! Each id is SHA-256 over a domain tag and the components, every one of
//! them length-prefixed (8-byte big-endian length), so `("ab", "c")` and
//! `("a", "bc")` hash differently. The first 16 bytes, as lowercase hex,
//! follow a short prefix that says what kind of id it is.

use std::collections::BTreeMap;

use sha2::{Digest, Sha256};

use super::canonical::push_hex;
use crate::error::{Error, Result};

pub const OCCURRENCE_PREFIX: &str = "occ:";
pub const EXECUTION_PREFIX: &str = "exec:";
pub const CALL_PREFIX: &str = "call:";

const ROOT_OCCURRENCE_DOMAIN: &str = "durable-journal:root-occurrence:v1";
const ACTION_EXECUTION_DOMAIN: &str = "durable-journal:action-execution:v1";
const EMITTED_OCCURRENCE_DOMAIN: &str = "durable-journal:emitted-occurrence:v1";
const GENERATED_CALL_DOMAIN: &str = "durable-journal:generated-call:v1";

/// Hex characters after the prefix: 128 bits of SHA-256.
const ID_HEX_LEN: usize = 32;

/// The occurrence of an input event: its serialized business key and its
/// sequence number within that key's input. Two equal events arriving in
/// one round have different sequence numbers, hence different ids.
pub fn root_occurrence_id(serialized_business_key: &[u8], input_sequence: i64) -> Result<String> {
    require_non_empty_bytes(serialized_business_key, "serialized business key")?;
    let input_sequence = require_ordinal(input_sequence, "input sequence number")?;
    Ok(derive(OCCURRENCE_PREFIX, ROOT_OCCURRENCE_DOMAIN, &[serialized_business_key, &input_sequence.to_be_bytes()]))
}

/// One execution of `action_name` triggered by an occurrence.
pub fn action_execution_id(triggering_occurrence: &str, action_name: &str) -> Result<String> {
    require_id(triggering_occurrence, OCCURRENCE_PREFIX, "triggering occurrence")?;
    require_non_empty(action_name, "action name")?;
    Ok(derive(EXECUTION_PREFIX, ACTION_EXECUTION_DOMAIN, &[triggering_occurrence.as_bytes(), action_name.as_bytes()]))
}

/// The `emission_ordinal`-th event (from 0) emitted by an action execution.
pub fn emitted_occurrence_id(producer_execution: &str, emission_ordinal: i64) -> Result<String> {
    require_id(producer_execution, EXECUTION_PREFIX, "producer execution")?;
    let ordinal = require_ordinal(emission_ordinal, "emission ordinal")?;
    Ok(derive(OCCURRENCE_PREFIX, EMITTED_OCCURRENCE_DOMAIN, &[producer_execution.as_bytes(), &ordinal.to_be_bytes()]))
}

/// A call id the runtime generates (chat request, sub-agent submit): the
/// `call_ordinal`-th call (from 0) into one namespace and session.
/// [`ExecutionIdentity::next_call_id`] uses `"{execution id}/{target}"` as
/// the namespace.
pub fn generated_call_id(namespace: &str, session_id: &str, call_ordinal: i64) -> Result<String> {
    require_non_empty(namespace, "call namespace")?;
    require_non_empty(session_id, "session id")?;
    let ordinal = require_ordinal(call_ordinal, "call ordinal")?;
    Ok(derive(CALL_PREFIX, GENERATED_CALL_DOMAIN, &[namespace.as_bytes(), session_id.as_bytes(), &ordinal.to_be_bytes()]))
}

/// The deterministic allocators of one action execution: emission ordinals
/// (one counter) and call ordinals (one counter per target). Running the
/// same deterministic execution again from a fresh `ExecutionIdentity`
/// hands out the same ids in the same order.
#[derive(Clone, Debug)]
pub struct ExecutionIdentity {
    execution_id: String,
    emitted: u64,
    calls_per_target: BTreeMap<String, u64>,
}

impl ExecutionIdentity {
    pub fn new(execution_id: &str) -> Result<ExecutionIdentity> {
        require_id(execution_id, EXECUTION_PREFIX, "execution id")?;
        Ok(ExecutionIdentity { execution_id: execution_id.to_string(), emitted: 0, calls_per_target: BTreeMap::new() })
    }

    pub fn execution_id(&self) -> &str {
        &self.execution_id
    }

    /// How many events this execution has emitted so far.
    pub fn emitted_count(&self) -> u64 {
        self.emitted
    }

    /// How many call ids this execution has generated for `target`.
    pub fn call_count(&self, target: &str) -> u64 {
        self.calls_per_target.get(target).copied().unwrap_or(0)
    }

    /// The occurrence id of the next emitted event. `existing_id` is the id
    /// the event already carries, if any: emitting it again would give one
    /// event two identities, so that is an error and no ordinal is used.
    pub fn emit(&mut self, existing_id: Option<&str>) -> Result<String> {
        if let Some(existing) = existing_id {
            return Err(Error::IllegalState(format!(
                "event already has occurrence id '{existing}'; re-emitting an event is not allowed, emit a new event instead"
            )));
        }
        let id = emitted_occurrence_id(&self.execution_id, ordinal_as_i64(self.emitted)?)?;
        self.emitted += 1;
        Ok(id)
    }

    /// The id of the next generated call to `target` in `session_id`.
    pub fn next_call_id(&mut self, target: &str, session_id: &str) -> Result<String> {
        require_non_empty(target, "call target")?;
        let ordinal = self.call_count(target);
        let namespace = format!("{}/{target}", self.execution_id);
        let id = generated_call_id(&namespace, session_id, ordinal_as_i64(ordinal)?)?;
        self.calls_per_target.insert(target.to_string(), ordinal + 1);
        Ok(id)
    }
}

pub(super) fn derive(prefix: &str, domain: &str, components: &[&[u8]]) -> String {
    let mut hasher = Sha256::new();
    for part in std::iter::once(domain.as_bytes()).chain(components.iter().copied()) {
        hasher.update((part.len() as u64).to_be_bytes());
        hasher.update(part);
    }
    let hash = hasher.finalize();
    // Built in place: an operator derives one for every input record.
    let mut id = String::with_capacity(prefix.len() + ID_HEX_LEN);
    id.push_str(prefix);
    push_hex(&hash[..ID_HEX_LEN / 2], &mut id);
    id
}

pub(super) fn require_ordinal(value: i64, what: &str) -> Result<u64> {
    u64::try_from(value).map_err(|_| Error::InvalidArgument(format!("{what} must not be negative, got {value}")))
}

fn ordinal_as_i64(value: u64) -> Result<i64> {
    i64::try_from(value).map_err(|_| Error::IllegalState("ordinal counter overflowed".into()))
}

pub(super) fn require_non_empty(value: &str, what: &str) -> Result<()> {
    if value.is_empty() {
        Err(Error::InvalidArgument(format!("{what} is missing (empty)")))
    } else {
        Ok(())
    }
}

pub(super) fn require_non_empty_bytes(value: &[u8], what: &str) -> Result<()> {
    if value.is_empty() {
        Err(Error::InvalidArgument(format!("{what} is missing (empty)")))
    } else {
        Ok(())
    }
}

/// Ids passed back in must be ids of the right kind: mixing up an
/// occurrence and an execution would silently derive wrong ids.
fn require_id(value: &str, prefix: &str, what: &str) -> Result<()> {
    require_non_empty(value, what)?;
    let well_formed = value
        .strip_prefix(prefix)
        .is_some_and(|hex| hex.len() == ID_HEX_LEN && hex.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')));
    if well_formed {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!("{what} must be an id of the form '{prefix}<32 hex digits>', got '{value}'")))
    }
}

#[cfg(test)]
mod tests;
