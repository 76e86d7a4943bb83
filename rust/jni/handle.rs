//! Native objects owned by Java objects, behind a `jlong`.
//!
//! Java's `io.durablejournal.internal.NativeHandle` is the first line of
//! defence: it serializes the calls on one handle, refuses a call from inside
//! another on the same thread (a callback re-entering), and defers `close()`
//! until the call in flight returns. This module is the second line, for the
//! case where Java got it wrong anyway:
//!
//! - [`borrow`] marks the object busy for the duration of one native call and
//!   refuses a second borrow (re-entrant or concurrent) with `IllegalState`,
//!   so two `&mut` to one object never exist;
//! - [`release`] (the owner's destroy) on a busy object does not free it: the
//!   free happens when the borrow ends, so a callback that destroys the object
//!   it is called from never leaves Rust holding freed memory.
//!
//! Every live object is counted ([`live_handles`]), so a test can prove that
//! Java's Cleaner frees objects whose owner was dropped without `close()`.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicI64, AtomicU8, Ordering};

use jni::sys::jlong;
use jni::{Env, EnvUnowned};

use super::{BridgeResult, ThrowJavaException};
use crate::error::Error;

/// No call holds the object.
const IDLE: u8 = 0;
/// A call holds the object.
const BUSY: u8 = 1;
/// A call holds the object and its owner released it: freed when the call ends.
const BUSY_RELEASED: u8 = 2;

/// Objects handed to Java and not freed yet, all types together.
static LIVE: AtomicI64 = AtomicI64::new(0);

/// The number of native objects Java owns right now (journals, stores,
/// execution identities).
pub fn live_handles() -> i64 {
    LIVE.load(Ordering::SeqCst)
}

/// A value owned by a Java object, with the flag that keeps a call's borrow
/// exclusive and a release during that call deferred.
pub struct Owned<T> {
    state: AtomicU8,
    value: UnsafeCell<T>,
}

/// Moves `value` to the heap for a Java owner; the `jlong` is never 0.
pub fn into_raw<T>(value: T) -> jlong {
    LIVE.fetch_add(1, Ordering::SeqCst);
    Box::into_raw(Box::new(Owned { state: AtomicU8::new(IDLE), value: UnsafeCell::new(value) })) as jlong
}

/// Frees the object and hands back its value.
///
/// # Safety
/// `owned` comes from [`into_raw`] and nothing refers to it any more.
unsafe fn free<T>(owned: *mut Owned<T>) -> T {
    // SAFETY: guaranteed by the caller.
    let Owned { value, .. } = *unsafe { Box::from_raw(owned) };
    LIVE.fetch_sub(1, Ordering::SeqCst);
    value.into_inner()
}

/// Exclusive access to an owned value for one native call.
pub struct Borrowed<'a, T> {
    owned: *mut Owned<T>,
    _call: PhantomData<&'a mut T>,
}

/// Borrows the value behind `ptr` for the current call. 0 (a closed owner)
/// is `Closed(what)`; an object another call holds is `IllegalState`.
///
/// # Safety
/// A non-zero `ptr` must come from [`into_raw`] with the same `T` and must
/// not have been freed: the Java owner passes only the handle it holds, and
/// forgets it before releasing.
pub unsafe fn borrow<'a, T>(ptr: jlong, what: &'static str) -> BridgeResult<Borrowed<'a, T>> {
    if ptr == 0 {
        return Err(Error::Closed(what).into());
    }
    let owned = ptr as *mut Owned<T>;
    // SAFETY: the caller guarantees `ptr` is a live `Owned<T>`; only the
    // atomic is touched before the borrow is granted.
    let state = unsafe { &(*owned).state };
    if state.compare_exchange(IDLE, BUSY, Ordering::Acquire, Ordering::Acquire).is_err() {
        return Err(Error::IllegalState(format!(
            "{what} is already in use by a call in progress (a callback may not call back into the object it was called from)"
        ))
        .into());
    }
    Ok(Borrowed { owned, _call: PhantomData })
}

impl<T> Deref for Borrowed<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: the BUSY state makes this borrow the only access to the value.
        unsafe { &*(*self.owned).value.get() }
    }
}

impl<T> DerefMut for Borrowed<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` keeps this the only reference.
        unsafe { &mut *(*self.owned).value.get() }
    }
}

impl<T> Drop for Borrowed<'_, T> {
    fn drop(&mut self) {
        // SAFETY: the object lives while a borrow holds it: a release in
        // between only moved it to BUSY_RELEASED and left the free to us.
        let state = unsafe { &(*self.owned).state };
        if state.compare_exchange(BUSY, IDLE, Ordering::Release, Ordering::Acquire).is_err() {
            // BUSY_RELEASED: the owner let go during the call; nobody else frees it.
            drop(unsafe { free(self.owned) });
        }
    }
}

/// The whole body of an export that creates a native object for a Java
/// owner: `make` reads the arguments and builds the value, Java gets its
/// handle ([`into_raw`]), or 0 and the exception `make`'s error becomes.
pub fn create<'l, T>(mut env: EnvUnowned<'l>, make: impl FnOnce(&mut Env<'l>) -> BridgeResult<T>) -> jlong {
    env.with_env(|env| Ok(into_raw(make(env)?))).resolve::<ThrowJavaException>()
}

/// The whole body of a Java owner's `destroy(long)` export: [`release`],
/// then drops the value now or leaves it to the call that still holds it. A
/// panic while dropping becomes a Java exception.
///
/// # Safety
/// As for [`release`].
pub unsafe fn destroy<T>(mut env: EnvUnowned<'_>, ptr: jlong) {
    // SAFETY: the caller's guarantee, passed on.
    env.with_env(|_| -> BridgeResult<()> {
        drop(unsafe { release::<T>(ptr) });
        Ok(())
    })
    .resolve::<ThrowJavaException>()
}

/// The owner lets go of the value behind `ptr`: `Some(value)` to dispose of
/// now, or `None` when `ptr` is 0 or a call still holds the object (the
/// object is then freed when that call ends).
///
/// # Safety
/// As for [`borrow`]; the owner calls this once and never uses `ptr` again.
pub unsafe fn release<T>(ptr: jlong) -> Option<T> {
    if ptr == 0 {
        return None;
    }
    let owned = ptr as *mut Owned<T>;
    // SAFETY: the caller guarantees `ptr` is a live `Owned<T>`.
    let state = unsafe { &(*owned).state };
    loop {
        match state.load(Ordering::Acquire) {
            IDLE => {
                if state.compare_exchange(IDLE, BUSY_RELEASED, Ordering::Acquire, Ordering::Acquire).is_ok() {
                    // SAFETY: idle and now released by us: the last reference.
                    return Some(unsafe { free(owned) });
                }
            }
            BUSY => {
                if state.compare_exchange(BUSY, BUSY_RELEASED, Ordering::AcqRel, Ordering::Acquire).is_ok() {
                    return None;
                }
            }
            _ => return None,
        }
    }
}

#[cfg(test)]
mod tests;
