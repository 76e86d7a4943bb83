//! The log a [`LogStore`] appends to, as the store sees it: the records it
//! hands over, the [`LogSink`] that takes them, and the acknowledgement it
//! waits for without the store's lock.

use super::super::STORE_NAME;
use crate::error::{Error, Result};

/// One record to append: a value, or `None` for a tombstone.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogRecord {
    pub partition: u32,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

/// Where a [`super::LogStore`] appends.
///
/// Appending is split in two so that the store need not be locked while
/// the log replicates: [`LogSink::submit`] hands the records over (in
/// order: order matters within a partition) and returns at once;
/// [`Acknowledgement::wait`] then blocks until the log has acknowledged
/// them. Records submitted later land after earlier ones in each
/// partition, so writes from many threads share the log's requests while
/// each waits only for its own.
pub trait LogSink: Send {
    /// Hands `records` to the log without waiting for them to be stored.
    /// An error here means none of them was sent.
    fn submit(&mut self, records: &[LogRecord]) -> Result<Box<dyn Acknowledgement>>;

    /// Submits and waits: the offset each record got.
    fn append(&mut self, records: &[LogRecord]) -> Result<Vec<u64>> {
        self.submit(records)?.wait()
    }

    /// Per partition, the offset the log's next record will get: where the
    /// log ends now. A marker reads it once as it begins, a restore once to
    /// check the log still holds what its markers saw.
    fn end_offsets(&mut self) -> Result<Vec<u64>>;

    /// The log, for people (e.g. "Kafka topic 'journal'"), used in errors.
    fn name(&self) -> &str;
}

/// What a closed store holds instead of its sink: the log's name, for errors.
pub(super) struct ClosedSink(pub(super) String);

impl LogSink for ClosedSink {
    fn submit(&mut self, _records: &[LogRecord]) -> Result<Box<dyn Acknowledgement>> {
        Err(Error::Closed(STORE_NAME))
    }

    fn end_offsets(&mut self) -> Result<Vec<u64>> {
        Err(Error::Closed(STORE_NAME))
    }

    fn name(&self) -> &str {
        &self.0
    }
}

/// The outcome of a [`LogSink::submit`], to wait for without the store's lock.
pub trait Acknowledgement: Send {
    /// Returns, once the log has acknowledged every record submitted, the
    /// offset each got. An error means some of them may or may not be in
    /// the log; the store never reuses the key of a record that may be there.
    fn wait(self: Box<Self>) -> Result<Vec<u64>>;
}

/// An outcome known at submission (a log that appends synchronously).
pub struct Acknowledged(pub Result<Vec<u64>>);

impl Acknowledgement for Acknowledged {
    fn wait(self: Box<Self>) -> Result<Vec<u64>> {
        self.0
    }
}
