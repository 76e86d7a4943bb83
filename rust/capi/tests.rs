use super::*;

/// Calls a `respond`-style function and returns (status, text).
pub(super) fn call(f: impl FnOnce(*mut *mut u8, *mut usize) -> i32) -> (i32, String) {
    let mut data: *mut u8 = ptr::null_mut();
    let mut len = 0usize;
    let status = f(&mut data, &mut len);
    assert!(!data.is_null(), "every response carries a buffer");
    let text = String::from_utf8(unsafe { std::slice::from_raw_parts(data, len) }.to_vec()).unwrap();
    assert_eq!(unsafe { durable_journal_free_buffer(data, len) }, OK);
    (status, text)
}

#[test]
fn args_digest_matches_the_core() {
    let tree = br#"{"args":[{"int":"1"}],"kwargs":{"k":{"str":"v"}}}"#;
    let (status, digest) = call(|d, l| unsafe { durable_journal_args_digest(tree.as_ptr(), tree.len(), d, l) });
    assert_eq!(status, OK);
    let expected = identity::args_digest_from_json(tree).unwrap();
    assert_eq!(digest, expected);
}

#[test]
fn errors_carry_their_code_and_message() {
    let tree = br#"{"args":[{"float":"7ff8000000000000"}],"kwargs":{}}"#;
    let (status, message) = call(|d, l| unsafe { durable_journal_args_digest(tree.as_ptr(), tree.len(), d, l) });
    assert_eq!(status, ErrorCode::NonCanonicalArgument.as_i32());
    assert!(message.contains("args[0]") && message.contains("durable_id="), "{message}");

    let bad_json = b"{";
    let (status, message) = call(|d, l| unsafe { durable_journal_args_digest(bad_json.as_ptr(), 1, d, l) });
    assert_eq!(status, ErrorCode::InvalidArgument.as_i32());
    assert!(message.contains("not valid JSON"), "{message}");
}

/// A [`CallDescriber`] that hands back the `(function id, call tree)` its
/// context points at.
unsafe extern "C" fn describe_from(
    context: *mut c_void,
    function_id: *mut *const u8,
    function_id_len: *mut usize,
    call_tree: *mut *const u8,
    call_tree_len: *mut usize,
) -> i32 {
    let (id, tree) = unsafe { &*(context as *const (&str, &str)) };
    unsafe {
        *function_id = id.as_ptr();
        *function_id_len = id.len();
        *call_tree = tree.as_ptr();
        *call_tree_len = tree.len();
    }
    OK
}

/// Fails with status 99, so a test sees it if it was called.
unsafe extern "C" fn never_called(_: *mut c_void, _: *mut *const u8, _: *mut usize, _: *mut *const u8, _: *mut usize) -> i32 {
    99
}

unsafe extern "C" fn cannot_describe(_: *mut c_void, _: *mut *const u8, _: *mut usize, _: *mut *const u8, _: *mut usize) -> i32 {
    7
}

#[test]
fn explicit_durable_id_passes_through_and_the_call_is_never_described() {
    let explicit = "订单-🚀-42";
    let (status, id) = call(|d, l| unsafe {
        durable_journal_call_durable_id(explicit.as_ptr(), explicit.len(), Some(never_called), ptr::null_mut(), d, l)
    });
    assert_eq!((status, id.as_str()), (OK, explicit));
}

#[test]
fn without_an_explicit_id_the_described_call_is_derived() {
    let mut call_to_name = ("m.f", r#"{"args":[{"int":"1"}],"kwargs":{}}"#);
    let context = &mut call_to_name as *mut (&str, &str) as *mut c_void;
    let (status, id) =
        call(|d, l| unsafe { durable_journal_call_durable_id(ptr::null(), 0, Some(describe_from), context, d, l) });
    assert_eq!(status, OK, "{id}");
    assert_eq!(id, format!("m.f::{}", identity::args_digest_from_json(call_to_name.1.as_bytes()).unwrap()));
}

#[test]
fn a_call_that_cannot_be_described_or_no_describer_is_an_error() {
    let (status, message) =
        call(|d, l| unsafe { durable_journal_call_durable_id(ptr::null(), 0, Some(cannot_describe), ptr::null_mut(), d, l) });
    assert_eq!(status, ErrorCode::InvalidArgument.as_i32());
    assert!(message.contains("status 7"), "{message}");
    let (status, message) = call(|d, l| unsafe { durable_journal_call_durable_id(ptr::null(), 0, None, ptr::null_mut(), d, l) });
    assert_eq!(status, ErrorCode::InvalidArgument.as_i32());
    assert!(message.contains("describer is missing"), "{message}");
}

#[test]
fn invalid_utf8_is_rejected() {
    let bad = [0xffu8, 0xfe];
    let (status, message) = call(|d, l| unsafe { durable_journal_tool_call_durable_id(bad.as_ptr(), bad.len(), d, l) });
    assert_eq!(status, ErrorCode::InvalidArgument.as_i32());
    assert!(message.contains("UTF-8"), "{message}");
}

#[test]
fn null_required_argument_is_an_error_not_a_crash() {
    let (status, message) = call(|d, l| unsafe { durable_journal_tool_call_durable_id(ptr::null(), 0, d, l) });
    assert_eq!(status, ErrorCode::InvalidArgument.as_i32());
    assert!(message.contains("missing"), "{message}");
    let status = unsafe { durable_journal_tool_call_durable_id(ptr::null(), 0, ptr::null_mut(), ptr::null_mut()) };
    assert_eq!(status, ErrorCode::InvalidArgument.as_i32());
}

#[test]
fn a_panic_becomes_a_status() {
    let (status, message) = call(|d, l| respond(d, l, || panic!("boom in identity")));
    assert_eq!(status, ErrorCode::Panic.as_i32());
    assert!(message.contains("boom in identity"), "{message}");
}

#[test]
fn execution_identity_handle_allocates_and_rejects_re_emission() {
    let occurrence = identity::root_occurrence_id(b"k", 0).unwrap();
    let execution = identity::action_execution_id(&occurrence, "a").unwrap();
    let mut handle: *mut ExecutionIdentity = ptr::null_mut();
    let (status, _) = call(|d, l| unsafe {
        durable_journal_execution_identity_new(execution.as_ptr(), execution.len(), &mut handle, d, l)
    });
    assert_eq!(status, OK);
    let (status, first) =
        call(|d, l| unsafe { durable_journal_execution_identity_emit(handle, ptr::null(), 0, d, l) });
    assert_eq!(status, OK);
    assert_eq!(first, identity::emitted_occurrence_id(&execution, 0).unwrap());
    let (status, message) =
        call(|d, l| unsafe { durable_journal_execution_identity_emit(handle, first.as_ptr(), first.len(), d, l) });
    assert_eq!(status, ErrorCode::IllegalState.as_i32());
    assert!(message.contains(&first), "{message}");
    let (target, session) = ("chat", "s");
    let (status, call_id) = call(|d, l| unsafe {
        durable_journal_execution_identity_next_call_id(handle, target.as_ptr(), target.len(), session.as_ptr(), 1, d, l)
    });
    assert_eq!(status, OK);
    assert_eq!(call_id, identity::generated_call_id(&format!("{execution}/chat"), "s", 0).unwrap());
    assert_eq!(unsafe { durable_journal_execution_identity_free(handle) }, OK);
}

#[test]
fn null_handle_is_an_error() {
    let (status, _) = call(|d, l| unsafe { durable_journal_execution_identity_emit(ptr::null_mut(), ptr::null(), 0, d, l) });
    assert_eq!(status, ErrorCode::InvalidArgument.as_i32());
}

#[test]
fn abi_version_is_reported() {
    let mut version = 0u32;
    assert_eq!(unsafe { durable_journal_abi_version(&mut version) }, OK);
    assert_eq!(version, ABI_VERSION);
}

/// The exports' C signatures, as `python/durable_journal/_native.py`
/// declares them: this stops compiling when an export's parameters change,
/// which would be an ABI change (and a new `ABI_VERSION`).
#[test]
fn exports_keep_their_c_signatures() {
    type Text = *const u8;
    type OutData = *mut *mut u8;
    type OutLen = *mut usize;
    type Handle = *mut ExecutionIdentity;
    let text_only: [unsafe extern "C" fn(Text, usize, OutData, OutLen) -> i32; 2] =
        [durable_journal_args_digest, durable_journal_tool_call_durable_id];
    let text_and_number: [unsafe extern "C" fn(Text, usize, i64, OutData, OutLen) -> i32; 2] =
        [durable_journal_root_occurrence_id, durable_journal_emitted_occurrence_id];
    let two_texts: unsafe extern "C" fn(Text, usize, Text, usize, OutData, OutLen) -> i32 = durable_journal_action_execution_id;
    let two_texts_and_number: unsafe extern "C" fn(Text, usize, Text, usize, i64, OutData, OutLen) -> i32 =
        durable_journal_generated_call_id;
    let described: unsafe extern "C" fn(Text, usize, Option<CallDescriber>, *mut c_void, OutData, OutLen) -> i32 =
        durable_journal_call_durable_id;
    let new_handle: unsafe extern "C" fn(Text, usize, *mut Handle, OutData, OutLen) -> i32 = durable_journal_execution_identity_new;
    let emit: unsafe extern "C" fn(Handle, Text, usize, OutData, OutLen) -> i32 = durable_journal_execution_identity_emit;
    let next_call_id: unsafe extern "C" fn(Handle, Text, usize, Text, usize, OutData, OutLen) -> i32 =
        durable_journal_execution_identity_next_call_id;
    let guarded: (unsafe extern "C" fn(*mut u32) -> i32, unsafe extern "C" fn(*mut u8, usize) -> i32, unsafe extern "C" fn(Handle) -> i32) =
        (durable_journal_abi_version, durable_journal_free_buffer, durable_journal_execution_identity_free);
    let _ = (text_only, text_and_number, two_texts, two_texts_and_number, described, new_handle, emit, next_call_id, guarded);
}

#[test]
fn patch_step_answers_for_the_slot_it_is_given() {
    let step = |slot: Option<(&str, &str)>| {
        let change = "prompt-v2";
        let (id, status) = slot.map_or((ptr::null(), ptr::null()), |(i, s)| (i.as_ptr(), s.as_ptr()));
        let (id_len, status_len) = slot.map_or((0, 0), |(i, s)| (i.len(), s.len()));
        call(|d, l| unsafe {
            durable_journal_patch_step(change.as_ptr(), change.len(), id, id_len, status, status_len, d, l)
        })
    };
    assert_eq!(step(None), (OK, "record patched:prompt-v2".to_string()));
    assert_eq!(step(Some(("patched:prompt-v2", "SUCCEEDED"))), (OK, "replay patched:prompt-v2".to_string()));
    assert_eq!(step(Some(("llm", "SUCCEEDED"))), (OK, "old patched:prompt-v2".to_string()));
    let (status, message) = step(Some(("llm", "DONE")));
    assert_eq!(status, ErrorCode::InvalidArgument.as_i32());
    assert!(message.contains("unknown slot status"), "{message}");
}
