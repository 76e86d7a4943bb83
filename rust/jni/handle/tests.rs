use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use super::*;
use crate::error::ErrorCode;
use crate::jni::BridgeError;

/// Counts how often it was dropped.
struct Tracked(Arc<AtomicUsize>);

impl Drop for Tracked {
    fn drop(&mut self) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

fn tracked() -> (jlong, Arc<AtomicUsize>) {
    let drops = Arc::new(AtomicUsize::new(0));
    (into_raw(Tracked(Arc::clone(&drops))), drops)
}

fn code(err: BridgeError) -> ErrorCode {
    match err {
        BridgeError::Core(e) => e.code(),
        other => panic!("expected a core error, got {other}"),
    }
}

#[test]
fn release_of_an_idle_object_hands_it_back_once() {
    let (ptr, drops) = tracked();
    let value = unsafe { release::<Tracked>(ptr) }.expect("idle: handed back");
    assert_eq!(drops.load(Ordering::SeqCst), 0);
    drop(value);
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn a_second_borrow_during_a_call_is_refused() {
    let (ptr, drops) = tracked();
    let first = unsafe { borrow::<Tracked>(ptr, "journal") }.unwrap();
    let again = unsafe { borrow::<Tracked>(ptr, "journal") }.err().expect("busy");
    assert_eq!(code(again), ErrorCode::IllegalState);
    drop(first);
    let after = unsafe { borrow::<Tracked>(ptr, "journal") }.expect("free again once the call ended");
    drop(after);
    drop(unsafe { release::<Tracked>(ptr) });
    assert_eq!(drops.load(Ordering::SeqCst), 1);
}

#[test]
fn a_release_during_a_call_frees_when_the_call_ends() {
    let (ptr, drops) = tracked();
    let call = unsafe { borrow::<Tracked>(ptr, "journal") }.unwrap();
    assert!(unsafe { release::<Tracked>(ptr) }.is_none(), "busy: not handed back");
    assert_eq!(drops.load(Ordering::SeqCst), 0, "the call still holds it");
    let _still_usable: &Tracked = &call;
    drop(call);
    assert_eq!(drops.load(Ordering::SeqCst), 1, "freed as the call ended");
}

#[test]
fn a_closed_owner_passes_zero_and_gets_closed() {
    let err = unsafe { borrow::<Tracked>(0, "journal") }.err().expect("closed");
    assert_eq!(code(err), ErrorCode::Closed);
    assert!(unsafe { release::<Tracked>(0) }.is_none());
}
