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

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::Mutex;

use crate::error::{Error, ErrorCode, Result};
use crate::identity::{self, ExecutionIdentity};

/// The crate's one ABI version (bumped whenever a JNI or C signature changes);
/// the Python loader refuses a library whose version it does not know.
pub const ABI_VERSION: u32 = crate::ABI_VERSION as u32;

const OK: i32 = 0;

/// The allocator state behind a Python `ExecutionIdentity`. The Mutex makes
/// concurrent calls from several Python threads (ctypes drops the GIL)
/// safe; the owner still must not free it while another call runs.
pub struct ExecutionHandle(Mutex<ExecutionIdentity>);

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

/// The 16-hex args digest of a call tree `{"args": [...], "kwargs": {...}}`
/// (UTF-8 JSON, see docs/identity.md).
///
/// # Safety
/// Pointer arguments follow the module conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_args_digest(
    tree: *const u8,
    tree_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        let tree = unsafe { read_json(tree, tree_len, "call tree") }?;
        identity::args_digest_from_tree(&tree)
    })
}

/// The durable id of a Python call: `durable_id` unchanged when it is not
/// null (the tree is then ignored and may be null), else
/// `"{function_id}::{digest of the tree}"`.
///
/// # Safety
/// Pointer arguments follow the module conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_call_durable_id(
    function_id: *const u8,
    function_id_len: usize,
    tree: *const u8,
    tree_len: usize,
    durable_id: *const u8,
    durable_id_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        if let Some(explicit) = unsafe { read_optional_str(durable_id, durable_id_len, "durable_id") }? {
            return identity::explicit_call_id(explicit);
        }
        let function_id = unsafe { read_str(function_id, function_id_len, "function id") }?;
        let tree = unsafe { read_json(tree, tree_len, "call tree") }?;
        identity::derived_call_id(function_id, &identity::parse_call_tree(&tree)?)
    })
}

/// `"tool-call:" + tool_call_id`.
///
/// # Safety
/// Pointer arguments follow the module conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_tool_call_durable_id(
    tool_call_id: *const u8,
    tool_call_id_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        identity::tool_call_durable_id(unsafe { read_str(tool_call_id, tool_call_id_len, "tool call id") }?)
    })
}

/// The durable id of a built-in chat attempt (`"chat"`).
///
/// # Safety
/// Pointer arguments follow the module conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_chat_durable_id(out_data: *mut *mut u8, out_len: *mut usize) -> i32 {
    respond(out_data, out_len, || Ok(identity::CHAT_DURABLE_ID.to_string()))
}

/// RuntimeIdentity: the occurrence id of an input event.
///
/// # Safety
/// Pointer arguments follow the module conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_root_occurrence_id(
    business_key: *const u8,
    business_key_len: usize,
    input_sequence: i64,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        let key = unsafe { read_bytes(business_key, business_key_len, "serialized business key") }?;
        identity::root_occurrence_id(key, input_sequence)
    })
}

/// RuntimeIdentity: the id of one action execution.
///
/// # Safety
/// Pointer arguments follow the module conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_action_execution_id(
    triggering_occurrence: *const u8,
    triggering_occurrence_len: usize,
    action_name: *const u8,
    action_name_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        let occurrence = unsafe { read_str(triggering_occurrence, triggering_occurrence_len, "triggering occurrence") }?;
        let action = unsafe { read_str(action_name, action_name_len, "action name") }?;
        identity::action_execution_id(occurrence, action)
    })
}

/// RuntimeIdentity: the id of the `emission_ordinal`-th emitted event.
///
/// # Safety
/// Pointer arguments follow the module conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_emitted_occurrence_id(
    producer_execution: *const u8,
    producer_execution_len: usize,
    emission_ordinal: i64,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        let execution = unsafe { read_str(producer_execution, producer_execution_len, "producer execution") }?;
        identity::emitted_occurrence_id(execution, emission_ordinal)
    })
}

/// RuntimeIdentity: a generated call id.
///
/// # Safety
/// Pointer arguments follow the module conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_generated_call_id(
    namespace: *const u8,
    namespace_len: usize,
    session_id: *const u8,
    session_id_len: usize,
    call_ordinal: i64,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        let namespace = unsafe { read_str(namespace, namespace_len, "call namespace") }?;
        let session = unsafe { read_str(session_id, session_id_len, "session id") }?;
        identity::generated_call_id(namespace, session, call_ordinal)
    })
}

/// Creates the ordinal allocators of one execution. On success
/// `*out_handle` holds a handle for [`durable_journal_execution_identity_free`]
/// and the out buffer is empty; on failure it holds the message.
///
/// # Safety
/// Pointer arguments follow the module conventions; `out_handle` must be
/// writable.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_execution_identity_new(
    execution_id: *const u8,
    execution_id_len: usize,
    out_handle: *mut *mut ExecutionHandle,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        if out_handle.is_null() {
            return Err(Error::InvalidArgument("out_handle is null".into()));
        }
        let execution = unsafe { read_str(execution_id, execution_id_len, "execution id") }?;
        let handle = Box::new(ExecutionHandle(Mutex::new(ExecutionIdentity::new(execution)?)));
        // SAFETY: checked non-null; the caller guarantees it is writable.
        unsafe { *out_handle = Box::into_raw(handle) };
        Ok(String::new())
    })
}

/// The occurrence id of the next emitted event. `existing_id` (nullable) is
/// the id the event already carries: not null is an `IllegalState` error.
///
/// # Safety
/// `handle` must be a live handle; other pointers follow the conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_execution_identity_emit(
    handle: *const ExecutionHandle,
    existing_id: *const u8,
    existing_id_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        let existing = unsafe { read_optional_str(existing_id, existing_id_len, "existing id") }?;
        with_execution(handle, |ids| ids.emit(existing))
    })
}

/// The next generated call id for `target` in `session_id`.
///
/// # Safety
/// `handle` must be a live handle; other pointers follow the conventions.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_execution_identity_next_call_id(
    handle: *const ExecutionHandle,
    target: *const u8,
    target_len: usize,
    session_id: *const u8,
    session_id_len: usize,
    out_data: *mut *mut u8,
    out_len: *mut usize,
) -> i32 {
    respond(out_data, out_len, || {
        let target = unsafe { read_str(target, target_len, "call target") }?;
        let session = unsafe { read_str(session_id, session_id_len, "session id") }?;
        with_execution(handle, |ids| ids.next_call_id(target, session))
    })
}

/// Frees a handle from [`durable_journal_execution_identity_new`]; null is
/// a no-op.
///
/// # Safety
/// `handle` must be null or a live handle not used by any other thread.
#[no_mangle]
pub unsafe extern "C" fn durable_journal_execution_identity_free(handle: *mut ExecutionHandle) -> i32 {
    guard(|| {
        if !handle.is_null() {
            // SAFETY: made by Box::into_raw in `_new`, freed once by the owner.
            drop(unsafe { Box::from_raw(handle) });
        }
        Ok(())
    })
}

fn with_execution(
    handle: *const ExecutionHandle,
    f: impl FnOnce(&mut ExecutionIdentity) -> Result<String>,
) -> Result<String> {
    if handle.is_null() {
        return Err(Error::InvalidArgument("execution identity handle is null".into()));
    }
    // SAFETY: the caller passes a live handle (module docs).
    let handle = unsafe { &*handle };
    let mut ids = handle
        .0
        .lock()
        .map_err(|_| Error::IllegalState("execution identity was poisoned by an earlier panic".into()))?;
    f(&mut ids)
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

/// # Safety
/// As [`read_bytes`].
unsafe fn read_json(data: *const u8, len: usize, what: &str) -> Result<serde_json::Value> {
    let bytes = unsafe { read_bytes(data, len, what) }?;
    serde_json::from_slice(bytes).map_err(|e| Error::InvalidArgument(format!("{what} is not valid JSON: {e}")))
}

#[cfg(test)]
mod tests;
