//! Spec §3: one identity scheme for Java and Python, computed only here.
//!
//! * [`canonical`]: the canonical encoding of call arguments and the
//!   16-hex-character args digest.
//! * [`runtime`]: occurrence, execution and generated call ids
//!   (RuntimeIdentity) and the deterministic ordinal allocators behind them.
//!
//! The call-level helpers below turn those into the durable ids the journal
//! stores as `functionId`. The byte-level format is documented in
//! `docs/identity.md` and pinned by `tests/vectors/identity.json`.

pub mod canonical;
pub mod runtime;

pub use canonical::{args_digest, args_digest_from_tree, canonical_encoding, parse_call_tree, CallArgs, Value};
pub use runtime::{
    action_execution_id, emitted_occurrence_id, generated_call_id, root_occurrence_id, ExecutionIdentity,
};

use crate::error::{Error, Result};

/// The durable id of every built-in chat attempt, in both languages. Retries
/// share it; attempts are told apart by their position in the journal.
pub const CHAT_DURABLE_ID: &str = "chat";

/// Prefix of the durable id of a tool call.
pub const TOOL_CALL_PREFIX: &str = "tool-call:";

/// `"tool-call:" + tool_call_id`, the id unchanged (emoji, CJK and all).
pub fn tool_call_durable_id(tool_call_id: &str) -> Result<String> {
    if tool_call_id.is_empty() {
        return Err(Error::InvalidArgument("tool call id is empty".into()));
    }
    Ok(format!("{TOOL_CALL_PREFIX}{tool_call_id}"))
}

/// `"{function_id}::{digest}"`, the durable id of a Python call that was not
/// given an explicit `durable_id`. `function_id` is `module.qualname`.
pub fn derived_call_id(function_id: &str, args: &CallArgs) -> Result<String> {
    if function_id.is_empty() {
        return Err(Error::InvalidArgument("function id (module.qualname) is empty".into()));
    }
    Ok(call_id_with_digest(function_id, &args_digest(args)?))
}

/// Separates the function id from the args digest in a derived call id.
pub const DIGEST_SEPARATOR: &str = "::";

/// The call id of a call named by a function id and an args digest (Flink
/// Agents' two fields): the function id alone when the digest is empty (a
/// Java `DurableCallable`), else `"{function_id}::{digest}"`, the shape of
/// [`derived_call_id`].
pub fn call_id_with_digest(function_id: &str, args_digest: &str) -> String {
    if args_digest.is_empty() {
        function_id.to_owned()
    } else {
        format!("{function_id}{DIGEST_SEPARATOR}{args_digest}")
    }
}

/// [`call_id_with_digest`] undone: `(function_id, args_digest)`, the digest
/// empty unless the id ends in the separator and 16 lowercase hex digits
/// (an args digest, spec §3).
pub fn split_call_id(call_id: &str) -> (&str, &str) {
    if let Some(split) = call_id.len().checked_sub(DIGEST_SEPARATOR.len() + 16) {
        if call_id.is_char_boundary(split) {
            let (function_id, rest) = call_id.split_at(split);
            if let Some(digest) = rest.strip_prefix(DIGEST_SEPARATOR) {
                if digest.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
                    return (function_id, digest);
                }
            }
        }
    }
    (call_id, "")
}

#[cfg(test)]
mod call_id_tests {
    use super::*;

    #[test]
    fn a_digest_joins_the_function_id_and_splits_off_again() {
        assert_eq!(call_id_with_digest("agent.fetch", ""), "agent.fetch");
        let id = call_id_with_digest("agent.fetch", "0123456789abcdef");
        assert_eq!(id, "agent.fetch::0123456789abcdef");
        assert_eq!(split_call_id(&id), ("agent.fetch", "0123456789abcdef"));
        assert_eq!(split_call_id("agent.fetch"), ("agent.fetch", ""));
        assert_eq!(split_call_id("::0123456789abcdef"), ("", "0123456789abcdef"));
    }

    #[test]
    fn only_a_real_digest_is_split_off() {
        for id in ["a::0123456789ABCDEF", "a::0123456789abcde", "a:0123456789abcdef0", "😀::0123456789abcdeg", "é"] {
            assert_eq!(split_call_id(id), (id, ""), "{id}");
        }
        assert_eq!(split_call_id("😀::0123456789abcdef"), ("😀", "0123456789abcdef"));
    }
}

/// An explicit durable id passes through unchanged; it only has to be
/// non-empty, because an empty id would match every other empty id.
pub fn explicit_call_id(durable_id: &str) -> Result<String> {
    if durable_id.is_empty() {
        return Err(Error::InvalidArgument("explicit durable_id is empty".into()));
    }
    Ok(durable_id.to_string())
}
