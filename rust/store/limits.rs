//! How large a store lets a record and an entry grow, chosen instead of
//! left to whatever breaks first (a frame's 32-bit length, a Kafka
//! setting, memory). Checked before anything is written: a write over a
//! limit is refused with `SizeLimitExceeded`, changes nothing, and the
//! store stays usable. The numbers and their reasons are in `docs/store.md`.

use super::key::StateKey;
use crate::error::{Error, Result};

/// The default largest record: 64 MiB, far above any call result an
/// action should carry, far below what a frame or a JVM array can hold.
pub const DEFAULT_MAX_RECORD_BYTES: u64 = 64 << 20;
/// The default largest entry: 256 MiB (an action with many large calls).
pub const DEFAULT_MAX_ENTRY_BYTES: u64 = 256 << 20;
/// The most either limit may be set to: compaction rewrites an entry as one
/// record, and a frame's length is 32 bits; a quarter of that leaves room.
pub const MAX_LIMIT_BYTES: u64 = 1 << 30;

/// A store's size limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StoreLimits {
    /// The largest record one write appends, in bytes of its payload (a
    /// frame's payload in the file store; a record's key and value in the
    /// log store; the record the file store would write, in the memory store).
    pub max_record_bytes: u64,
    /// The largest an entry may grow: the bytes of the records its state is
    /// built from (a put that rewrites it whole starts it again).
    pub max_entry_bytes: u64,
}

/// What the error names as the record limit's setting, unless the store's
/// caller set the limit from a setting of its own (the Kafka store).
pub const RECORD_LIMIT_SETTING: &str = "the store's limit per record, StoreLimits::max_record_bytes";
const ENTRY_LIMIT_SETTING: &str = "the store's limit per entry, StoreLimits::max_entry_bytes";

impl Default for StoreLimits {
    fn default() -> StoreLimits {
        StoreLimits { max_record_bytes: DEFAULT_MAX_RECORD_BYTES, max_entry_bytes: DEFAULT_MAX_ENTRY_BYTES }
    }
}

impl StoreLimits {
    /// Limits of `max_record_bytes` and `max_entry_bytes`; both must be at
    /// least 1 and at most [`MAX_LIMIT_BYTES`].
    pub fn new(max_record_bytes: u64, max_entry_bytes: u64) -> Result<StoreLimits> {
        for (name, value) in [("max_record_bytes", max_record_bytes), ("max_entry_bytes", max_entry_bytes)] {
            if value == 0 || value > MAX_LIMIT_BYTES {
                return Err(Error::InvalidArgument(format!(
                    "{name} = {value}: a store limit is between 1 byte and {MAX_LIMIT_BYTES} bytes (1 GiB)"
                )));
            }
        }
        Ok(StoreLimits { max_record_bytes, max_entry_bytes })
    }

    /// Refuses a record of `record_bytes` for `key` that would make its
    /// entry `entry_bytes` large; `record_setting` names the record limit.
    pub(crate) fn check(&self, key: &StateKey, record_bytes: u64, entry_bytes: u64, record_setting: &str) -> Result<()> {
        refuse_over(record_bytes, self.max_record_bytes, record_setting, || format!("the record for {key:?}"))?;
        refuse_over(entry_bytes, self.max_entry_bytes, ENTRY_LIMIT_SETTING, || format!("the entry {key:?} with this record"))
    }

    /// Refuses a record that belongs to no one entry (a prune, a discard).
    pub(crate) fn check_record(&self, what: &str, record_bytes: u64, record_setting: &str) -> Result<()> {
        if record_bytes > self.max_record_bytes {
            return Err(Error::SizeLimitExceeded {
                what: what.to_string(),
                size: record_bytes,
                limit: self.max_record_bytes,
                setting: record_setting.to_string(),
            });
        }
        Ok(())
    }
}

/// Refuses `size` over `limit`, naming what was too large (built only then) and the setting.
fn refuse_over(size: u64, limit: u64, setting: &str, what: impl FnOnce() -> String) -> Result<()> {
    if size > limit {
        return Err(Error::SizeLimitExceeded { what: what(), size, limit, setting: setting.to_string() });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;
    use crate::store::key::{BusinessKey, EventIdentity};

    #[test]
    fn the_error_names_size_limit_and_setting() {
        let limits = StoreLimits::new(100, 1000).unwrap();
        let key = StateKey::new(BusinessKey::Str("k".into()), 1, "a", EventIdentity::Occurrence("e".into()));
        limits.check(&key, 100, 1000, "max.request.size=100").unwrap();
        let record = limits.check(&key, 101, 101, "max.request.size=100").unwrap_err();
        assert_eq!(record.code(), ErrorCode::SizeLimitExceeded);
        let message = record.to_string();
        assert!(message.contains("101 bytes") && message.contains("limit of 100 bytes"), "{message}");
        assert!(message.contains("max.request.size=100") && message.contains("nothing was written"), "{message}");
        let entry = limits.check(&key, 50, 1001, RECORD_LIMIT_SETTING).unwrap_err().to_string();
        assert!(entry.contains("1001 bytes") && entry.contains("limit of 1000 bytes (the store's limit per entry"), "{entry}");
    }

    #[test]
    fn limits_outside_the_range_are_refused() {
        assert!(StoreLimits::new(0, 1).is_err());
        assert!(StoreLimits::new(1, MAX_LIMIT_BYTES + 1).is_err());
        assert!(StoreLimits::new(MAX_LIMIT_BYTES, MAX_LIMIT_BYTES).is_ok());
    }
}
