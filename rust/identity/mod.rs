//! Spec §3: one identity scheme for Java and Python, computed only here.
//!
//! * [`canonical`]: the canonical encoding of call arguments and the
//!   16-hex-character args digest.
//! * [`idempotency`]: the idempotency key of a journaled call.
//! * [`runtime`]: occurrence, execution and generated call ids
//!   (RuntimeIdentity) and the deterministic ordinal allocators behind them.
//!
//! The call-level helpers below turn those into the durable ids the journal
//! stores as `functionId`. The byte-level format is documented in
//! `docs/identity.md` and pinned by `tests/vectors/identity.json`.

pub mod canonical;
pub mod idempotency;
pub mod runtime;

pub use canonical::{args_digest, args_digest_from_tree, canonical_encoding, parse_call_tree, CallArgs, Value};
pub use runtime::{
    action_execution_id, emitted_occurrence_id, generated_call_id, root_occurrence_id, ExecutionIdentity,
};

use crate::error::{Error, Result};

/// The durable id of every built-in chat attempt, in both languages. Retries
/// share it; attempts are told apart by their position in the journal. Java
/// and Python keep their own copy; `tests/vectors/identity.json` (kind
/// `chat`) holds all three to one value.
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

/// A call as a binding describes it when its id must be derived: the
/// function id (`module.qualname`) and the call tree as UTF-8 JSON
/// (docs/identity.md, "Tagged tree").
pub struct CallDescription {
    pub function_id: String,
    pub call_tree_json: Vec<u8>,
}

/// The durable id of a call (spec §3), the one place of the rule "an
/// explicit id wins, else derive": `explicit` unchanged (checked non-empty)
/// when there is one, and the call is then never described, so its arguments
/// need no canonical form and are not even walked; else
/// [`derived_call_id`] of what `describe` says. The bindings (JNI, C ABI)
/// pass the explicit id and a way to describe the call, and never decide.
pub fn call_durable_id<E: From<Error>>(
    explicit: Option<&str>,
    describe: impl FnOnce() -> std::result::Result<CallDescription, E>,
) -> std::result::Result<String, E> {
    match explicit {
        Some(durable_id) => Ok(explicit_call_id(durable_id)?),
        None => {
            let call = describe()?;
            Ok(derived_call_id(&call.function_id, &call_tree_from_json(&call.call_tree_json)?)?)
        }
    }
}

/// Reads a call tree a binding sent as UTF-8 JSON (`{"args": [...],
/// "kwargs": {...}}`); text that is not JSON is an `InvalidArgument`.
pub fn call_tree_from_json(json: &[u8]) -> Result<CallArgs> {
    let tree: serde_json::Value = serde_json::from_slice(json)
        .map_err(|e| Error::InvalidArgument(format!("call tree is not valid JSON: {e}")))?;
    parse_call_tree(&tree)
}

/// [`args_digest`] of a call tree sent as UTF-8 JSON.
pub fn args_digest_from_json(json: &[u8]) -> Result<String> {
    args_digest(&call_tree_from_json(json)?)
}

#[cfg(test)]
mod call_durable_id_tests {
    use super::*;

    fn described(function_id: &str, tree: &str) -> impl FnOnce() -> Result<CallDescription> {
        let call = CallDescription { function_id: function_id.to_owned(), call_tree_json: tree.as_bytes().to_vec() };
        move || Ok(call)
    }

    #[test]
    fn an_explicit_id_wins_and_the_call_is_never_described() {
        let id = call_durable_id::<Error>(Some("订单-🚀-42"), || panic!("an explicit id needs no description"));
        assert_eq!(id.unwrap(), "订单-🚀-42");
    }

    #[test]
    fn an_empty_explicit_id_is_refused_even_with_a_good_call() {
        let err = call_durable_id(Some(""), described("m.f", r#"{"args":[],"kwargs":{}}"#)).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidArgument);
    }

    #[test]
    fn without_an_explicit_id_the_described_call_is_derived() {
        let tree = r#"{"args":[{"int":"1"}],"kwargs":{}}"#;
        let expected = format!("m.f::{}", args_digest_from_json(tree.as_bytes()).unwrap());
        assert_eq!(call_durable_id(None, described("m.f", tree)).unwrap(), expected);
    }

    #[test]
    fn a_description_that_fails_or_is_malformed_is_the_error() {
        let err = call_durable_id(None, || Err(Error::IllegalState("caller failed".into()))).unwrap_err();
        assert_eq!(err.to_string(), Error::IllegalState("caller failed".into()).to_string());
        let err = call_durable_id(None, described("m.f", "{")).unwrap_err();
        assert!(err.to_string().contains("not valid JSON"), "{err}");
        let err = call_durable_id(None, described("", r#"{"args":[],"kwargs":{}}"#)).unwrap_err();
        assert_eq!(err.code(), crate::ErrorCode::InvalidArgument);
    }
}
