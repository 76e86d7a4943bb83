//! The JNI boundary: a thin leaf over the core.
//!
//! Conventions every export follows:
//! - Each `Java_*` export runs inside
//!   `env.with_env(|env| ...).resolve::<ThrowJavaException>()`, usually as a
//!   one-line call into a private function returning `Result`, or through a
//!   helper that does it for a whole kind of export: [`handle::create`] and
//!   [`handle::destroy`] for a native object's lifecycle, the journal's
//!   `record_outcome` for the primitives that record a call's outcome, and
//!   `utf8_exports!` in [`identity`] for the exports whose answer is a string.
//!   `with_env` catches panics; [`ThrowJavaException`] turns a [`BridgeError`]
//!   or a panic into a Java exception and never overwrites a pending one.
//! - Strings that carry identity cross as UTF-8 `byte[]` (never `jstring`,
//!   whose modified UTF-8 mangles supplementary characters); Java decodes them.
//! - Core errors become `io.durablejournal.JournalException(int code, String)`
//!   with the code of [`crate::ErrorCode`]; a null argument becomes a
//!   `NullPointerException`, a bad index an `IndexOutOfBoundsException`.
//! - Native objects cross as `jlong` handles made by [`handle::into_raw`],
//!   owned by Java's `io.durablejournal.internal.NativeHandle`, which never
//!   passes 0, serializes calls and defers a close during a call. Each export
//!   borrows its object with [`handle::borrow`] for the call (refusing a
//!   second, re-entrant borrow) and the owner's destroy goes through
//!   [`handle::release`], which never frees a borrowed object.
//! - Classes, constructors, methods and fields are looked up once per library
//!   load ([`classes`]), never by name on a call's path; results Java reads
//!   field by field are small final classes Rust builds with a cached
//!   constructor, and keys cross as one object Rust reads with cached field ids.
//! - A loop over the elements of a Java array runs each element in its own
//!   local frame ([`for_each_element`]): a native method may hold only a few
//!   local references at once (`-Xcheck:jni` warns past 32).

use jni::errors::ErrorPolicy;
use jni::objects::{JByteArray, JObject, JObjectArray};
use jni::{Env, JValue};

use crate::error::Error;
use classes::classes;

pub mod arrays;
pub mod classes;
pub mod diagnostics;
pub mod handle;
pub mod identity;
pub mod journal;
pub mod log_retention;
pub mod log_store;
pub mod restore_plan;
pub mod serde;
pub mod store;

/// What can go wrong at the boundary: a core error, a JNI failure (often a
/// pending Java exception), or a programmer error mapped to a JDK exception.
#[derive(Debug)]
pub enum BridgeError {
    Core(Error),
    Jni(jni::errors::Error),
    NullArgument(&'static str),
    IndexOutOfBounds(String),
}

impl std::fmt::Display for BridgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BridgeError::Core(e) => write!(f, "{e}"),
            BridgeError::Jni(e) => write!(f, "JNI error: {e}"),
            BridgeError::NullArgument(name) => write!(f, "{name} must not be null"),
            BridgeError::IndexOutOfBounds(msg) => write!(f, "{msg}"),
        }
    }
}

impl std::error::Error for BridgeError {}

impl From<Error> for BridgeError {
    fn from(e: Error) -> Self {
        BridgeError::Core(e)
    }
}

impl From<jni::errors::Error> for BridgeError {
    fn from(e: jni::errors::Error) -> Self {
        BridgeError::Jni(e)
    }
}

pub type BridgeResult<T> = std::result::Result<T, BridgeError>;

/// Throws the Java exception that matches the error or panic, unless one is
/// already pending (a Java callback's own exception must reach the caller).
pub struct ThrowJavaException;

impl<T: Default> ErrorPolicy<T, BridgeError> for ThrowJavaException {
    type Captures<'unowned_env_local: 'native_method, 'native_method> = ();

    fn on_error<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        err: BridgeError,
    ) -> jni::errors::Result<T> {
        if env.exception_check() {
            return Ok(T::default());
        }
        match err {
            BridgeError::Core(Error::NonDeterministicReplay(divergence)) => throw_non_deterministic_replay(env, &divergence)?,
            BridgeError::Core(Error::CallInterrupted(interruption)) => throw_call_interrupted(env, &interruption)?,
            BridgeError::Core(e) => throw_journal_exception(env, e.code().as_i32(), &e.to_string())?,
            BridgeError::NullArgument(name) => throw_with_message(env, |c| &c.null_pointer, &format!("{name} must not be null"))?,
            BridgeError::IndexOutOfBounds(msg) => throw_with_message(env, |c| &c.index_out_of_bounds, &msg)?,
            BridgeError::Jni(e) => {
                let core = Error::IllegalState(format!("JNI failure: {e}"));
                throw_journal_exception(env, core.code().as_i32(), &core.to_string())?
            }
        }
        Ok(T::default())
    }

    fn on_panic<'unowned_env_local: 'native_method, 'native_method>(
        env: &mut Env<'unowned_env_local>,
        _cap: &mut Self::Captures<'unowned_env_local, 'native_method>,
        payload: Box<dyn std::any::Any + Send + 'static>,
    ) -> jni::errors::Result<T> {
        let err = Error::from_panic(payload);
        if !env.exception_check() {
            throw_journal_exception(env, err.code().as_i32(), &err.to_string())?;
        }
        Ok(T::default())
    }
}

/// `new JournalException(code, message)` thrown as the pending exception.
fn throw_journal_exception(env: &mut Env<'_>, code: i32, message: &str) -> jni::errors::Result<()> {
    let text = env.new_string(message)?;
    let exception = classes(env)?.journal_exception.new_object(env, &[JValue::Int(code).as_jni(), JValue::Object(&text).as_jni()])?;
    throw(env, exception)
}

/// `new NonDeterministicReplayException(message, diffJson)` thrown as the
/// pending exception; Java reads the structured diff from the JSON.
fn throw_non_deterministic_replay(env: &mut Env<'_>, divergence: &crate::journal::Divergence) -> jni::errors::Result<()> {
    let message = Error::NonDeterministicReplay(Box::new(divergence.clone())).to_string();
    let text = env.new_string(message)?;
    let diff = env.byte_array_from_slice(divergence.to_json().as_bytes())?;
    let exception = classes(env)?.non_deterministic_replay.new_object(env, &[JValue::Object(&text).as_jni(), JValue::Object(&diff).as_jni()])?;
    throw(env, exception)
}

/// `new CallInterruptedException(message, reportJson)` thrown as the
/// pending exception; Java reads the call and its entry from the JSON.
fn throw_call_interrupted(env: &mut Env<'_>, interruption: &crate::journal::Interruption) -> jni::errors::Result<()> {
    let message = Error::CallInterrupted(Box::new(interruption.clone())).to_string();
    let text = env.new_string(message)?;
    let report = env.byte_array_from_slice(interruption.to_json().as_bytes())?;
    let exception = classes(env)?.call_interrupted.new_object(env, &[JValue::Object(&text).as_jni(), JValue::Object(&report).as_jni()])?;
    throw(env, exception)
}

/// `new E(message)` of a JDK exception class the boundary throws, as the pending exception.
fn throw_with_message(env: &mut Env<'_>, class: impl FnOnce(&'static classes::JvmClasses) -> &'static classes::Constructible, message: &str) -> jni::errors::Result<()> {
    let text = env.new_string(message)?;
    let exception = class(classes(env)?).new_object(env, &[JValue::Object(&text).as_jni()])?;
    throw(env, exception)
}

/// Throws a new exception object.
fn throw(env: &mut Env<'_>, exception: JObject<'_>) -> jni::errors::Result<()> {
    let throwable = env.cast_local::<jni::objects::JThrowable>(exception)?;
    match env.throw(throwable) {
        Ok(()) | Err(jni::errors::Error::JavaException) => Ok(()),
        Err(e) => Err(e),
    }
}

/// The bytes of a required `byte[]` argument.
pub fn required_bytes(env: &Env<'_>, array: &JByteArray<'_>, name: &'static str) -> BridgeResult<Vec<u8>> {
    if array.is_null() {
        return Err(BridgeError::NullArgument(name));
    }
    Ok(env.convert_byte_array(array)?)
}

/// The bytes of an optional `byte[]` argument (null stays None).
pub fn optional_bytes(env: &Env<'_>, array: &JByteArray<'_>) -> BridgeResult<Option<Vec<u8>>> {
    if array.is_null() {
        return Ok(None);
    }
    Ok(Some(env.convert_byte_array(array)?))
}

/// A required UTF-8 string passed as `byte[]`.
pub fn required_utf8(env: &Env<'_>, array: &JByteArray<'_>, name: &'static str) -> BridgeResult<String> {
    utf8(required_bytes(env, array, name)?, name)
}

/// An optional UTF-8 string passed as `byte[]`: None for null.
pub fn optional_utf8(env: &Env<'_>, array: &JByteArray<'_>, name: &'static str) -> BridgeResult<Option<String>> {
    if array.is_null() {
        return Ok(None);
    }
    required_utf8(env, array, name).map(Some)
}

/// Bytes that must be UTF-8, named `name` in the error.
pub fn utf8(bytes: Vec<u8>, name: &'static str) -> BridgeResult<String> {
    String::from_utf8(bytes)
        .map_err(|e| BridgeError::Core(Error::InvalidArgument(format!("{name} is not valid UTF-8: {e}"))))
}

/// A new Java `byte[]`, or null for None.
pub fn byte_array_or_null<'local>(env: &mut Env<'local>, bytes: Option<&[u8]>) -> BridgeResult<JObject<'local>> {
    Ok(match bytes {
        Some(bytes) => env.byte_array_from_slice(bytes)?.into(),
        None => JObject::null(),
    })
}

/// Decodes every element of a Java `byte[][]` with `decode`, each in its own
/// local frame so the element's local reference (and any `decode` makes) is
/// freed before the next one: arrays of any length stay within the JVM's
/// local reference budget. A null array is a `NullPointerException` naming
/// `name`.
pub fn for_each_element<'l, T>(
    env: &mut Env<'l>,
    array: &JObjectArray<'l, JByteArray<'l>>,
    name: &'static str,
    mut decode: impl for<'f> FnMut(&mut Env<'f>, &JByteArray<'f>) -> BridgeResult<T>,
) -> BridgeResult<Vec<T>> {
    if array.is_null() {
        return Err(BridgeError::NullArgument(name));
    }
    let count = array.len(env)?;
    let mut decoded = Vec::with_capacity(count);
    for i in 0..count {
        decoded.push(env.with_local_frame(LOCAL_FRAME_CAPACITY, |env| -> BridgeResult<T> {
            let element = array.get_element(env, i)?;
            decode(env, &element)
        })?);
    }
    Ok(decoded)
}

/// Local references one element of [`for_each_element`] may hold at once.
const LOCAL_FRAME_CAPACITY: usize = 4;

/// A Java int index as a usize, or IndexOutOfBoundsException.
pub fn index_arg(index: i32, what: &str) -> BridgeResult<usize> {
    usize::try_from(index).map_err(|_| BridgeError::IndexOutOfBounds(format!("{what} must not be negative: {index}")))
}
