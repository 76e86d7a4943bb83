//! Java arrays built with one JNI transition per call, for the crossings
//! that hand Java many small arrays at once.
//!
//! Why: a store's `getResuming` gives an interrupted action's recorded hits
//! to Java as a few arrays (their ids and small results packed into one, a
//! large result and an exception each in its own). Built
//! with the `jni` crate's checked calls, each array costs six transitions into
//! the JVM (an `ExceptionCheck` before and after `NewByteArray` and again
//! around `SetByteArrayRegion`), and a constructor per hit is an upcall into
//! Java; at 100-byte payloads that was most of the cost of serving a state.
//! So these go straight to the JNI function table, as the key reads of
//! [`super::classes`] do.
//!
//! Every function here must be called with no exception pending: each runs
//! right after another boundary call that returned `Ok`. The only exception
//! the functions they call can raise is `OutOfMemoryError` from an
//! allocation, which JNI reports as a null result: that becomes
//! `Err(JavaException)`, and the pending error reaches Java unchanged.
//! `SetByteArrayRegion`/`SetIntArrayRegion` write exactly a fresh array's own
//! length, and `SetObjectArrayElement` stores a `byte[]` into a `byte[][]` at
//! an index below its length, so neither can throw.

use jni::objects::{JByteArray, JIntArray, JLongArray, JObject, JObjectArray};
use jni::sys::{jint, jlong, jobject, jsize};
use jni::Env;

use super::{BridgeError, BridgeResult};
use crate::error::Error;

/// The raw `JNIEnv` and its function table.
fn raw(env: &Env<'_>) -> (*mut jni::sys::JNIEnv, &'static jni::sys::JNINativeInterface_) {
    let raw = env.get_raw();
    // SAFETY: `Env` holds a valid JNIEnv pointer for the current thread,
    // whose function table lives as long as the JVM.
    (raw, unsafe { &**raw })
}

fn length(len: usize) -> BridgeResult<jsize> {
    jsize::try_from(len).map_err(|_| BridgeError::Core(Error::InvalidArgument(format!("{len} elements do not fit a Java array"))))
}

fn out_of_memory() -> BridgeError {
    BridgeError::Jni(jni::errors::Error::JavaException)
}

/// A new `byte[]` holding `bytes` (a raw local reference of the caller's frame).
fn new_raw_byte_array(env: &Env<'_>, bytes: &[u8]) -> BridgeResult<jobject> {
    let len = length(bytes.len())?;
    let (raw, jni) = raw(env);
    // SAFETY: no exception is pending (module docs); a null result means
    // NewByteArray threw OutOfMemoryError. The region written is the fresh
    // array's whole length, from a slice of exactly that many bytes.
    unsafe {
        let array = (jni.v1_1.NewByteArray)(raw, len);
        if array.is_null() {
            return Err(out_of_memory());
        }
        (jni.v1_1.SetByteArrayRegion)(raw, array, 0, len, bytes.as_ptr().cast());
        Ok(array)
    }
}

/// A new `byte[]` holding `bytes`.
pub fn byte_array<'l>(env: &Env<'l>, bytes: &[u8]) -> BridgeResult<JByteArray<'l>> {
    let array = new_raw_byte_array(env, bytes)?;
    // SAFETY: a live local reference to a byte[] of this frame, owned by the wrapper from here.
    Ok(unsafe { JByteArray::from_raw(env, array) })
}

/// A new `int[]` holding `values`.
pub fn int_array<'l>(env: &Env<'l>, values: &[jint]) -> BridgeResult<JIntArray<'l>> {
    let len = length(values.len())?;
    let (raw, jni) = raw(env);
    // SAFETY: as in `new_raw_byte_array`, for an int[].
    unsafe {
        let array = (jni.v1_1.NewIntArray)(raw, len);
        if array.is_null() {
            return Err(out_of_memory());
        }
        (jni.v1_1.SetIntArrayRegion)(raw, array, 0, len, values.as_ptr());
        Ok(JIntArray::from_raw(env, array))
    }
}

/// A new `long[]` holding `values`.
pub fn long_array<'l>(env: &Env<'l>, values: &[jlong]) -> BridgeResult<JLongArray<'l>> {
    let len = length(values.len())?;
    let (raw, jni) = raw(env);
    // SAFETY: as in `new_raw_byte_array`, for a long[].
    unsafe {
        let array = (jni.v1_1.NewLongArray)(raw, len);
        if array.is_null() {
            return Err(out_of_memory());
        }
        (jni.v1_1.SetLongArrayRegion)(raw, array, 0, len, values.as_ptr());
        Ok(JLongArray::from_raw(env, array))
    }
}

/// Stores a new `byte[]` of `bytes` (null for None) at `index` of `array`, a
/// `byte[][]` longer than `index`, and frees its local reference: a loop over
/// hundreds of elements stays within the native method's local references.
pub fn set_byte_array_element(env: &Env<'_>, array: &JObjectArray<'_, JByteArray<'_>>, index: usize, bytes: Option<&[u8]>) -> BridgeResult<()> {
    let Some(bytes) = bytes else {
        // A fresh array's elements are null already.
        return Ok(());
    };
    let index = length(index)?;
    let element = new_raw_byte_array(env, bytes)?;
    let (raw, jni) = raw(env);
    // SAFETY: `array` is a live byte[][] longer than `index` (callers made
    // it with that length), `element` a live byte[]: the store cannot throw.
    // The element's local reference is deleted once it is stored.
    unsafe {
        (jni.v1_1.SetObjectArrayElement)(raw, array.as_raw(), index, element);
        (jni.v1_1.DeleteLocalRef)(raw, element);
    }
    Ok(())
}

/// A new `byte[][]` of `len` null elements, of the class `byte[]` (`element_class`).
pub fn byte_arrays<'l>(env: &Env<'l>, element_class: &JObject<'_>, len: usize) -> BridgeResult<JObjectArray<'l, JByteArray<'l>>> {
    let len = length(len)?;
    let (raw, jni) = raw(env);
    // SAFETY: `element_class` is the class `[B`; a null result means
    // NewObjectArray threw OutOfMemoryError.
    unsafe {
        let array = (jni.v1_1.NewObjectArray)(raw, len, element_class.as_raw(), std::ptr::null_mut());
        if array.is_null() {
            return Err(out_of_memory());
        }
        Ok(JObjectArray::<JByteArray<'_>>::from_raw(env, array))
    }
}
