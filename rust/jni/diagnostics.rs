//! Exports that exist so tests can prove the boundary holds: a Rust panic
//! must surface as a Java exception while the JVM keeps running.

use jni::objects::{JByteArray, JClass};
use jni::sys::jint;
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
