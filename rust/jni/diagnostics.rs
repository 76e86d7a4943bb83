//! Exports that exist so tests can prove the boundary holds: a Rust panic
//! must surface as a Java exception while the JVM keeps running.
//!
//! `panicWith` exists only with the `test-exports` feature: the Gradle build
//! compiles a second copy of the library with it for `NativeBoundaryTest`
//! (which runs it in a child JVM), and the library the jar and the Python
//! package ship has no export that panics on request. Both copies come from
//! the same sources; only this export differs.

#[cfg(feature = "test-exports")]
use jni::objects::JByteArray;
use jni::objects::JClass;
use jni::sys::{jint, jlong};
use jni::EnvUnowned;

#[cfg(feature = "test-exports")]
use super::required_utf8;
use super::{BridgeResult, ThrowJavaException};

#[cfg(feature = "test-exports")]
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_DiagnosticsJni_panicWith<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>, message: JByteArray<'l>) -> jint {
    env.with_env(|env| -> BridgeResult<jint> {
        let message = required_utf8(env, &message, "message")?;
        panic!("{message}");
    })
    .resolve::<ThrowJavaException>()
}

/// The JNI version (`crate::JNI_VERSION`) `io.durablejournal.internal.NativeLibrary` checks at load
/// time, so a stale library left on java.library.path is refused with a
/// clear message. It is called right after the library is loaded, from the
/// core jar's class loader: the classes the boundary uses are bound here,
/// once per load (see [`super::classes`]), so a jar that lacks one fails its
/// load naming it.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_internal_NativeLibrary_jniVersion<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>) -> jint {
    env.with_env(|env| -> BridgeResult<jint> {
        super::classes::classes(env)?;
        Ok(crate::JNI_VERSION)
    })
    .resolve::<ThrowJavaException>()
}

/// How many native objects (journals, stores, execution identities) Java
/// owns right now: lets a test prove that an owner dropped without `close()`
/// is freed by its Cleaner.
#[no_mangle]
pub extern "system" fn Java_io_durablejournal_DiagnosticsJni_liveHandleCount<'l>(mut env: EnvUnowned<'l>, _c: JClass<'l>) -> jlong {
    env.with_env(|_| -> BridgeResult<jlong> { Ok(super::handle::live_handles()) }).resolve::<ThrowJavaException>()
}
