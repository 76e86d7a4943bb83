//! The one error type of the library. Every boundary (JNI, C ABI) maps it to
//! a stable numeric code so Java and Python see the same classification.

use std::path::PathBuf;

/// Stable error codes shared by the JNI bridge (`JournalException.Code`) and
/// the C ABI (`durable_journal._native.ErrorCode`). Never renumber.
#[repr(i32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidArgument = 1,
    SlotAlreadyExists = 2,
    NoMatchingPendingSlot = 3,
    IndexOutOfRange = 4,
    MalformedJson = 5,
    PersistFailed = 6,
    StoreIo = 7,
    StoreCorrupt = 8,
    StoreLocked = 9,
    NonCanonicalArgument = 10,
    Closed = 11,
    Panic = 12,
    IllegalState = 13,
    /// Raised by the bindings (a recorded payload their language cannot
    /// decode); the core never produces it, but the number is shared.
    PayloadUnreadable = 14,
    SizeLimitExceeded = 15,
    /// A re-run made another call than the journal recorded at a position,
    /// under the `Fail` divergence policy. (15 is reserved for the stores'
    /// size-limit error.)
    NonDeterministicReplay = 16,
    /// An at-most-once call found its PENDING slot without an outcome on a
    /// re-run: its body may have run, so it does not run again.
    CallInterrupted = 17,
}

impl ErrorCode {
    /// Every code, in number order (the shared table of tests/vectors/constants.json).
    pub const ALL: [ErrorCode; 17] = [
        ErrorCode::InvalidArgument,
        ErrorCode::SlotAlreadyExists,
        ErrorCode::NoMatchingPendingSlot,
        ErrorCode::IndexOutOfRange,
        ErrorCode::MalformedJson,
        ErrorCode::PersistFailed,
        ErrorCode::StoreIo,
        ErrorCode::StoreCorrupt,
        ErrorCode::StoreLocked,
        ErrorCode::NonCanonicalArgument,
        ErrorCode::Closed,
        ErrorCode::Panic,
        ErrorCode::IllegalState,
        ErrorCode::PayloadUnreadable,
        ErrorCode::SizeLimitExceeded,
        ErrorCode::NonDeterministicReplay,
        ErrorCode::CallInterrupted,
    ];

    pub fn as_i32(self) -> i32 {
        self as i32
    }

    /// The name Java (`JournalException.Code`) and Python (`ErrorCode`) use.
    pub fn name(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "INVALID_ARGUMENT",
            ErrorCode::SlotAlreadyExists => "SLOT_ALREADY_EXISTS",
            ErrorCode::NoMatchingPendingSlot => "NO_MATCHING_PENDING_SLOT",
            ErrorCode::IndexOutOfRange => "INDEX_OUT_OF_RANGE",
            ErrorCode::MalformedJson => "MALFORMED_JSON",
            ErrorCode::PersistFailed => "PERSIST_FAILED",
            ErrorCode::StoreIo => "STORE_IO",
            ErrorCode::StoreCorrupt => "STORE_CORRUPT",
            ErrorCode::StoreLocked => "STORE_LOCKED",
            ErrorCode::NonCanonicalArgument => "NON_CANONICAL_ARGUMENT",
            ErrorCode::Closed => "CLOSED",
            ErrorCode::Panic => "PANIC",
            ErrorCode::IllegalState => "ILLEGAL_STATE",
            ErrorCode::PayloadUnreadable => "PAYLOAD_UNREADABLE",
            ErrorCode::SizeLimitExceeded => "SIZE_LIMIT_EXCEEDED",
            ErrorCode::NonDeterministicReplay => "NON_DETERMINISTIC_REPLAY",
            ErrorCode::CallInterrupted => "CALL_INTERRUPTED",
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    #[error("slot already exists at call index {index} (journal size {size}); pending slots can only be appended at the end")]
    SlotAlreadyExists { index: usize, size: usize },
    #[error("no pending slot for '{call_id}' at call index {index}: {reason}")]
    NoMatchingPendingSlot { call_id: String, index: usize, reason: String },
    #[error("call index {index} out of range (journal size {size})")]
    IndexOutOfRange { index: i64, size: usize },
    #[error("malformed ActionState JSON: {0}")]
    MalformedJson(String),
    #[error("persisting the journal failed: {0}")]
    PersistFailed(String),
    #[error("store I/O error on {path}: {source}")]
    StoreIo { path: PathBuf, #[source] source: std::io::Error },
    #[error("store file {path} is corrupt at offset {offset}: {reason}")]
    StoreCorrupt { path: PathBuf, offset: u64, reason: String },
    #[error("store directory {path} is locked by another process or instance")]
    StoreLocked { path: PathBuf },
    #[error("argument {path} has no canonical encoding: {reason}; pass durable_id= (Python) or durableId (Java) to name the call explicitly")]
    NonCanonicalArgument { path: String, reason: String },
    #[error("{0} is closed")]
    Closed(&'static str),
    #[error("panic in native code: {0}")]
    Panic(String),
    #[error("illegal state: {0}")]
    IllegalState(String),
    /// A write over a store's size limit; nothing was written and the store
    /// is still usable.
    #[error("{what} is {size} bytes, over the limit of {limit} bytes ({setting}); nothing was written")]
    SizeLimitExceeded { what: String, size: u64, limit: u64, setting: String },
    /// The diff is boxed: the error stays small on every other path.
    #[error("non-deterministic replay: {0}")]
    NonDeterministicReplay(Box<crate::journal::Divergence>),
    /// Boxed like the divergence: the report is larger than other errors.
    #[error("call interrupted: {0}")]
    CallInterrupted(Box<crate::journal::Interruption>),
}

impl Error {
    pub fn code(&self) -> ErrorCode {
        match self {
            Error::InvalidArgument(_) => ErrorCode::InvalidArgument,
            Error::SlotAlreadyExists { .. } => ErrorCode::SlotAlreadyExists,
            Error::NoMatchingPendingSlot { .. } => ErrorCode::NoMatchingPendingSlot,
            Error::IndexOutOfRange { .. } => ErrorCode::IndexOutOfRange,
            Error::MalformedJson(_) => ErrorCode::MalformedJson,
            Error::PersistFailed(_) => ErrorCode::PersistFailed,
            Error::StoreIo { .. } => ErrorCode::StoreIo,
            Error::StoreCorrupt { .. } => ErrorCode::StoreCorrupt,
            Error::StoreLocked { .. } => ErrorCode::StoreLocked,
            Error::NonCanonicalArgument { .. } => ErrorCode::NonCanonicalArgument,
            Error::Closed(_) => ErrorCode::Closed,
            Error::Panic(_) => ErrorCode::Panic,
            Error::IllegalState(_) => ErrorCode::IllegalState,
            Error::SizeLimitExceeded { .. } => ErrorCode::SizeLimitExceeded,
            Error::NonDeterministicReplay(_) => ErrorCode::NonDeterministicReplay,
            Error::CallInterrupted(_) => ErrorCode::CallInterrupted,
        }
    }

    /// Turns a caught panic payload into an error carrying its message.
    pub fn from_panic(payload: Box<dyn std::any::Any + Send>) -> Error {
        let message = if let Some(s) = payload.downcast_ref::<&str>() {
            (*s).to_string()
        } else if let Some(s) = payload.downcast_ref::<String>() {
            s.clone()
        } else {
            "non-string panic payload".to_string()
        };
        Error::Panic(message)
    }
}

pub type Result<T> = std::result::Result<T, Error>;
