//! Exports that exist so tests can prove the boundary holds: a Rust panic
//! must surface as a Java exception while the JVM keeps running.
//!
//! `panicWith` stays in the shipped library rather than behind a cargo
//! feature: a test-only feature would need a second build of the cdylib
//! (features change the one artifact in place), and the tests would then
//! prove the boundary of a binary the jar does not ship. It is reachable
//! only through the package-private `NativeDiagnostics` and its panic is
//! caught like any other.

use jni::objects::{JByteArray, JClass};
use jni::sys::{jint, jlong};
use jni::EnvUnowned;

use super::{required_utf8, BridgeResult, ThrowJavaException};

#[no_mangle]
pub extern "system" fn Java_io_durablejournal_NativeDiagnostics_panicWith<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, message: JByteArray<'l>) -> jint {
    env.with_env(|env| -> BridgeResult<jint> {
        let message = required_utf8(env, &message, "message")?;
        panic!("{message}");
    })
    .resolve::<ThrowJavaException>()
}

/// The ABI version the Java side checks at load time, so a stale library
/// left on java.library.path is refused with a clear message.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_NativeDiagnostics_abiVersion<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>) -> jint {
    env.with_env(|_| -> BridgeResult<jint> { Ok(crate::ABI_VERSION) }).resolve::<ThrowJavaException>()
}

/// How many native objects (journals, stores, execution identities) Java
/// owns right now: lets a test prove that an owner dropped without `close()`
/// is freed by its Cleaner, and an operator spot a leak.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_NativeDiagnostics_liveHandleCount<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>) -> jlong {
    env.with_env(|_| -> BridgeResult<jlong> { Ok(super::handle::live_handles()) }).resolve::<ThrowJavaException>()
}
