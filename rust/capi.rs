//! The C ABI that Python reaches through ctypes (`python/durable_journal`).
//!
//! Conventions, the same for every function:
//! * The return value is a status: 0 on success, else an [`ErrorCode`]
//!   number (the same numbers Java's `JournalException` carries).
//! * Strings go in as `(pointer, length)` of UTF-8 bytes, not
//!   NUL-terminated, so ids may contain any character. A null pointer means
//!   "absent" (an error where the value is required).
//! * Results come back through `out_data`/`out_len`: on success the result,
//!   on failure the UTF-8 error message. Either way the caller owns the
//!   buffer and returns it with [`durable_journal_free_buffer`]. Keeping the
//!   message in the out buffer needs no per-thread "last error" state.
//! * Every function body runs inside `catch_unwind`: a panic becomes status
//!   [`ErrorCode::Panic`] with its message instead of aborting Python.

use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;

use crate::error::{Error, ErrorCode, Result};
use crate::identity::{self, ExecutionIdentity};

/// The C ABI's version ([`crate::C_ABI_VERSION`]); the Python loader refuses a
/// library whose version it does not know.
pub const ABI_VERSION: u32 = crate::C_ABI_VERSION;

const OK: i32 = 0;


/// Writes the ABI version to `out_version`.
///
/// # Safety
/// `out_version` must be null or point to writable memory for a `u32`.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_abi_version(out_version: *mut u32) -> i32 {
    guard(|| {
        if out_version.is_null() {
            return Err(Error::InvalidArgument("out_version is null".into()));
        }
        // SAFETY: checked non-null; the caller guarantees it is writable.
        unsafe { *out_version = ABI_VERSION };
        Ok(())
    })
}

/// Returns a buffer handed out by any function of this ABI.
///
/// # Safety
/// `(data, len)` must be exactly a buffer this library returned and not yet
/// freed, or `data` null.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_free_buffer(data: *mut u8, len: usize) -> i32 {
    guard(|| {
        if !data.is_null() {
            // SAFETY: the caller returns a buffer made by `into_buffer`.
            drop(unsafe { Box::from_raw(ptr::slice_from_raw_parts_mut(data, len)) });
        }
        Ok(())
    })
}

/// How the caller describes a call whose id must be derived: it points
/// `function_id` and `call_tree` at UTF-8 buffers (the function id
/// `module.qualname` and the call tree JSON) that stay valid until
/// [`durable_journal_call_durable_id`] returns, and returns 0. Any other
/// status means it could not (its own error, which it keeps and reports).
pub type CallDescriber = unsafe extern "C" fn(
    context: *mut c_void,
    function_id: *mut *const u8,
    function_id_len: *mut usize,
    call_tree: *mut *const u8,
    call_tree_len: *mut usize,
) -> i32;

/// Asks the caller to describe its call ([`CallDescriber`]) and copies what
/// it hands back.
///
/// # Safety
/// As [`durable_journal_call_durable_id`].
unsafe fn described_call(describe: Option<CallDescriber>, context: *mut c_void) -> Result<identity::CallDescription> {
    let describe = describe.ok_or_else(|| Error::InvalidArgument("call describer is missing (null)".into()))?;
    let (mut function_id, mut function_id_len) = (ptr::null(), 0usize);
    let (mut tree, mut tree_len) = (ptr::null(), 0usize);
    // SAFETY: every out pointer is a live local; the caller vouches for `describe`.
    let status = unsafe { describe(context, &mut function_id, &mut function_id_len, &mut tree, &mut tree_len) };
    if status != OK {
        return Err(Error::InvalidArgument(format!("the caller could not describe the call (status {status})")));
    }
    Ok(identity::CallDescription {
        function_id: unsafe { read_str(function_id, function_id_len, "function id") }?.to_owned(),
        call_tree_json: unsafe { read_bytes(tree, tree_len, "call tree") }?.to_vec(),
    })
}

/// Declares exports that answer through the out buffer (module
/// conventions): each `fn name(parameters) { body }` becomes
/// `pub unsafe extern "C" fn name(<parameters>, out_data, out_len) -> i32`
/// whose body, a `Result<String>`, runs under [`respond`] once every
/// parameter is read, in order. A parameter is
/// * `name: text(name_len) "what"`: UTF-8 as `(pointer, length)`, required;
///   the body sees a `&str`, and "what" names it in errors;
/// * `name: optional_text(name_len) "what"`: the same, a null pointer is `None`;
/// * `name: bytes(name_len) "what"`: any bytes, required; the body sees a `&[u8]`;
/// * `name: Type` (one identifier): passed to the body as it came.
///
/// The caller of every export must pass pointers as the module
/// conventions say (and a live handle where one is taken), which the docs
/// of each say under "# Safety".
macro_rules! out_buffer_exports {
    (@c_type text) => { *const u8 };
    (@c_type optional_text) => { *const u8 };
    (@c_type bytes) => { *const u8 };
    (@c_type $as_is:ident) => { $as_is };
    (@read text $data:ident, $len:ident, $what:literal) => { unsafe { read_str($data, $len, $what) }? };
    (@read optional_text $data:ident, $len:ident, $what:literal) => { unsafe { read_optional_str($data, $len, $what) }? };
    (@read bytes $data:ident, $len:ident, $what:literal) => { unsafe { read_bytes($data, $len, $what) }? };
    (@read $as_is:ident $value:ident) => { $value };
    ($(
        $(#[$doc:meta])*
        fn $name:ident($($param:ident: $kind:ident $(($len:ident) $what:literal)?),* $(,)?) $body:block
    )*) => {$(
        $(#[$doc])*
        #[no_mangle]
        pub unsafe extern "C" fn $name(
            $($param: out_buffer_exports!(@c_type $kind), $($len: usize,)?)*
            out_data: *mut *mut u8,
            out_len: *mut usize,
        ) -> i32 {
            respond(out_data, out_len, || {
                $(let $param = out_buffer_exports!(@read $kind $param $(, $len, $what)?);)*
                $body
            })
        }
    )*};
}

/// A status as the 4-tuple bridge shape writes it.
fn parse_status(status: &str) -> Result<crate::model::CallStatus> {
    use crate::model::CallStatus;
    [CallStatus::Pending, CallStatus::Succeeded, CallStatus::Failed]
        .into_iter()
        .find(|s| s.as_str() == status)
        .ok_or_else(|| Error::InvalidArgument(format!("unknown slot status {status:?}")))
}

/// [`CallDescriber`] as an export's parameter: null is `None`.
type OptionalCallDescriber = Option<CallDescriber>;
/// The caller's context for its [`CallDescriber`], never read here.
type DescriberContext = *mut c_void;
/// Where [`durable_journal_execution_identity_new`] writes the new handle.
type OutHandle = *mut *mut ExecutionIdentity;
/// A handle from [`durable_journal_execution_identity_new`].
type ExecutionHandle = *mut ExecutionIdentity;

out_buffer_exports! {
    /// The 16-hex args digest of a call tree `{"args": [...], "kwargs": {...}}`
    /// (UTF-8 JSON, see docs/identity.md).
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_args_digest(tree: bytes(tree_len) "call tree") {
        identity::args_digest_from_json(tree)
    }

    /// The durable id of a Python call ([`identity::call_durable_id`] decides):
    /// `durable_id` unchanged when it is not null, and `describe` is then never
    /// called; else `"{function_id}::{digest of the call tree}"` of what
    /// `describe(context, ...)` hands back.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions; `describe` is null or a
    /// function that follows [`CallDescriber`].
    fn durable_journal_call_durable_id(
        durable_id: optional_text(durable_id_len) "durable_id",
        describe: OptionalCallDescriber,
        context: DescriberContext,
    ) {
        identity::call_durable_id(durable_id, || unsafe { described_call(describe, context) })
    }

    /// `"tool-call:" + tool_call_id`.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_tool_call_durable_id(tool_call_id: text(tool_call_id_len) "tool call id") {
        identity::tool_call_durable_id(tool_call_id)
    }

    /// `patched(ctx, change_id)` for a runtime that journals elsewhere (Flink
    /// Agents' Python actions, whose journal is the Java runner context):
    /// what to do at the slot in front of the call index, given its id and
    /// status (`"PENDING"`, `"SUCCEEDED"`, `"FAILED"`; both null: no slot),
    /// as `"<step> <marker id>"`: `record` (record the marker slot, a
    /// success with a null payload; the answer is true), `replay` (step past
    /// that slot; true) or `old` (leave the journal; false).
    /// [`crate::journal::patch_step`] decides.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_patch_step(
        change_id: text(change_id_len) "change id",
        slot_id: optional_text(slot_id_len) "slot id",
        slot_status: optional_text(slot_status_len) "slot status",
    ) {
        let slot = match (slot_id, slot_status) {
            (None, None) => None,
            (Some(id), Some(status)) => Some((id, parse_status(status)?)),
            _ => return Err(Error::InvalidArgument("a slot needs both its id and its status".into())),
        };
        let step = crate::journal::patch_step(change_id, slot)?;
        Ok(format!("{} {}", step.as_str(), crate::journal::patch_marker_id(change_id)?))
    }

    /// RuntimeIdentity: the occurrence id of an input event.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_root_occurrence_id(business_key: bytes(business_key_len) "serialized business key", input_sequence: i64) {
        identity::root_occurrence_id(business_key, input_sequence)
    }

    /// The idempotency key of the `occurrence`-th call with durable id
    /// `call_id` in the action execution stored under `entry` (the entry's
    /// canonical encoding, docs/identity.md "Idempotency keys").
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_call_idempotency_key(entry: bytes(entry_len) "store entry", call_id: text(call_id_len) "call id", occurrence: i64) {
        identity::idempotency::call_idempotency_key(entry, call_id, occurrence)
    }

    /// RuntimeIdentity: the id of one action execution.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_action_execution_id(
        triggering_occurrence: text(triggering_occurrence_len) "triggering occurrence",
        action_name: text(action_name_len) "action name",
    ) {
        identity::action_execution_id(triggering_occurrence, action_name)
    }

    /// RuntimeIdentity: the id of the `emission_ordinal`-th emitted event.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_emitted_occurrence_id(producer_execution: text(producer_execution_len) "producer execution", emission_ordinal: i64) {
        identity::emitted_occurrence_id(producer_execution, emission_ordinal)
    }

    /// RuntimeIdentity: a generated call id.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions.
    fn durable_journal_generated_call_id(
        namespace: text(namespace_len) "call namespace",
        session_id: text(session_id_len) "session id",
        call_ordinal: i64,
    ) {
        identity::generated_call_id(namespace, session_id, call_ordinal)
    }

    /// Creates the ordinal allocators of one execution. On success
    /// `*out_handle` holds a handle for [`durable_journal_execution_identity_free`]
    /// and the out buffer is empty; on failure it holds the message.
    ///
    /// # Safety
    /// Pointer arguments follow the module conventions; `out_handle` must be
    /// writable.
    fn durable_journal_execution_identity_new(execution_id: text(execution_id_len) "execution id", out_handle: OutHandle) {
        if out_handle.is_null() {
            return Err(Error::InvalidArgument("out_handle is null".into()));
        }
        let handle = Box::new(ExecutionIdentity::new(execution_id)?);
        // SAFETY: checked non-null; the caller guarantees it is writable.
        unsafe { *out_handle = Box::into_raw(handle) };
        Ok(String::new())
    }

    /// The occurrence id of the next emitted event. `existing_id` (nullable) is
    /// the id the event already carries: not null is an `IllegalState` error.
    ///
    /// # Safety
    /// `handle` must be a live handle; other pointers follow the conventions.
    fn durable_journal_execution_identity_emit(handle: ExecutionHandle, existing_id: optional_text(existing_id_len) "existing id") {
        with_execution(handle, |ids| ids.emit(existing_id))
    }

    /// The next generated call id for `target` in `session_id`.
    ///
    /// # Safety
    /// `handle` must be a live handle; other pointers follow the conventions.
    fn durable_journal_execution_identity_next_call_id(
        handle: ExecutionHandle,
        target: text(target_len) "call target",
        session_id: text(session_id_len) "session id",
    ) {
        with_execution(handle, |ids| ids.next_call_id(target, session_id))
    }
}

/// Frees a handle from [`durable_journal_execution_identity_new`]; null is
/// a no-op.
///
/// # Safety
/// `handle` must be null or a live handle not used by any other thread.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_execution_identity_free(handle: *mut ExecutionIdentity) -> i32 {
    guard(|| {
        if !handle.is_null() {
            // SAFETY: made by Box::into_raw in `_new`, freed once by the owner.
            drop(unsafe { Box::from_raw(handle) });
        }
        Ok(())
    })
}

fn with_execution(
    handle: *mut ExecutionIdentity,
    f: impl FnOnce(&mut ExecutionIdentity) -> Result<String>,
) -> Result<String> {
    if handle.is_null() {
        return Err(Error::InvalidArgument("execution identity handle is null".into()));
    }
    // SAFETY: the caller passes a live handle that no other thread uses
    // during the call (module docs).
    f(unsafe { &mut *handle })
}

/// Runs `f` and reports its status; a panic becomes [`ErrorCode::Panic`].
fn guard(f: impl FnOnce() -> Result<()>) -> i32 {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(())) => OK,
        Ok(Err(e)) => e.code().as_i32(),
        Err(_) => ErrorCode::Panic.as_i32(),
    }
}

/// Runs `f` and hands its result, or the error message, to the caller.
fn respond(out_data: *mut *mut u8, out_len: *mut usize, f: impl FnOnce() -> Result<String>) -> i32 {
    if out_data.is_null() || out_len.is_null() {
        return ErrorCode::InvalidArgument.as_i32();
    }
    let outcome = catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| Err(Error::from_panic(payload)));
    let (status, text) = match outcome {
        Ok(text) => (OK, text),
        Err(e) => (e.code().as_i32(), e.to_string()),
    };
    let buffer = Box::into_raw(text.into_bytes().into_boxed_slice());
    // SAFETY: both checked non-null; the caller guarantees they are writable.
    unsafe {
        *out_len = buffer.len();
        *out_data = buffer.cast::<u8>();
    }
    status
}

/// # Safety
/// `data` must be null or point to `len` readable bytes for the call.
unsafe fn read_bytes<'a>(data: *const u8, len: usize, what: &str) -> Result<&'a [u8]> {
    if data.is_null() {
        return Err(Error::InvalidArgument(format!("{what} is missing (null)")));
    }
    // SAFETY: non-null and, per the caller, `len` readable bytes.
    Ok(unsafe { std::slice::from_raw_parts(data, len) })
}

/// # Safety
/// As [`read_bytes`].
unsafe fn read_str<'a>(data: *const u8, len: usize, what: &str) -> Result<&'a str> {
    let bytes = unsafe { read_bytes(data, len, what) }?;
    std::str::from_utf8(bytes).map_err(|e| Error::InvalidArgument(format!("{what} is not valid UTF-8: {e}")))
}

/// # Safety
/// As [`read_bytes`].
unsafe fn read_optional_str<'a>(data: *const u8, len: usize, what: &str) -> Result<Option<&'a str>> {
    if data.is_null() {
        Ok(None)
    } else {
        unsafe { read_str(data, len, what) }.map(Some)
    }
}

mod replay;

#[cfg(test)]
mod tests;
