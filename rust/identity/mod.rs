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
    Ok(format!("{function_id}::{}", args_digest(args)?))
}

/// An explicit durable id passes through unchanged; it only has to be
/// non-empty, because an empty id would match every other empty id.
pub fn explicit_call_id(durable_id: &str) -> Result<String> {
    if durable_id.is_empty() {
        return Err(Error::InvalidArgument("explicit durable_id is empty".into()));
    }
    Ok(durable_id.to_string())
}
