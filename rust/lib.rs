//! durable-journal: the durable execution journal of Apache Flink Agents.
//!
//! The core modules (`model`, `journal`, `identity`, `store`) know nothing of
//! Java or Python. `jni` (for the JVM) and `capi` (for Python's ctypes) are
//! thin leaves that marshal arguments, call the core and translate errors.

pub mod error;
pub mod identity;
pub mod journal;
pub mod model;
pub mod store;

/// Entry points of the cargo-fuzz targets in `fuzz/`; not API.
#[cfg(feature = "fuzzing")]
#[doc(hidden)]
pub mod fuzzing;

/// The JNI leaf: its `Java_*` symbols are exported from the cdylib; none of
/// it is Rust API.
mod jni;

/// The C ABI leaf (Python's ctypes): its `durable_journal_*` symbols are
/// exported from the cdylib (`#[no_mangle]` exports whatever the module's
/// visibility); none of it is Rust API.
mod capi;

pub use error::{Error, ErrorCode, Result};
pub use journal::{CallStep, Divergence, DivergencePolicy, EntryAddress, Journal, JournalChange, NoPersist, Persister};
pub use model::{ActionState, CallResult, CallStatus, Outcome};

/// The version of the JNI exports (`rust/jni/`): bumped whenever a `Java_*`
/// export, its signature, or a Java class or member the boundary binds
/// changes; checked by the Java loader (`NativeLibrary`).
pub const JNI_VERSION: i32 = 19;

/// The version of the C ABI (`rust/capi.rs`): bumped whenever a
/// `durable_journal_*` export or its signature changes; checked by the Python
/// loader (`python/durable_journal/_native.py`). Independent of
/// [`JNI_VERSION`]: a change to one boundary leaves the other's users alone.
pub const C_ABI_VERSION: u32 = 11;

#[cfg(test)]
mod shared_constants_tests;
