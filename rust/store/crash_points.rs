//! Crash points: named places at every persistence boundary of the stores
//! (before and after each write and fsync, around a new segment's rename,
//! the compaction's switch, the marker's sync, the log store's append),
//! where a test build aborts the process on request. The crash tests
//! (`tests/store_crash_points.rs`) abort a child process at each one, reopen
//! the store and check that every acknowledged record is there, nothing
//! half-written is visible and nothing is duplicated. The list is in
//! `docs/store.md`.
//!
//! Only a build with the `crash-points` cargo feature has them (and this
//! module): without it the `crash_point!` macro (`store/mod.rs`) expands to
//! nothing, so the shipped library holds no trace of them.
//!
//! A child arms one point with `DURABLE_JOURNAL_CRASH_AT=<name>@<n>`: the
//! `n`-th time the point is reached (from 1), the process aborts.
//! `DURABLE_JOURNAL_CRASH_COUNTS=<file>` makes [`write_counts`] record how
//! often each point was reached, so a test can pick hits that exist.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

/// Every crash point, in the order a write meets them.
pub const ALL: &[&str] = &[
    "file.append.before_write",
    "file.append.torn_write",
    "file.append.after_write",
    "file.sync.before_fsync",
    "file.sync.after_fsync",
    "file.segment.before_temp_fsync",
    "file.segment.before_rename",
    "file.segment.after_rename",
    "file.segment.after_dir_fsync",
    "file.compact.after_switch",
    "file.compact.after_old_removed",
    "file.marker.before_sync",
    "file.marker.after_sync",
    "log.append.before_send",
    "log.append.after_ack",
];

pub const CRASH_AT_ENV: &str = "DURABLE_JOURNAL_CRASH_AT";
pub const COUNTS_ENV: &str = "DURABLE_JOURNAL_CRASH_COUNTS";

fn armed() -> Option<&'static (String, u64)> {
    static ARMED: OnceLock<Option<(String, u64)>> = OnceLock::new();
    ARMED
        .get_or_init(|| {
            let spec = std::env::var(CRASH_AT_ENV).ok()?;
            let (name, hit) = spec.split_once('@').unwrap_or((&spec, "1"));
            assert!(ALL.contains(&name), "{CRASH_AT_ENV} names no crash point: {name}");
            Some((name.to_string(), hit.parse().expect("the hit after @ is a number")))
        })
        .as_ref()
}

fn counts() -> &'static Mutex<HashMap<&'static str, u64>> {
    static COUNTS: OnceLock<Mutex<HashMap<&'static str, u64>>> = OnceLock::new();
    COUNTS.get_or_init(Mutex::default)
}

/// Counts the hit; on the armed one, runs `before_abort` (a torn write
/// leaves its half frame) and aborts the process: no unwinding, no
/// destructor, no buffered write flushed, as in a crash.
pub fn reached(name: &'static str, before_abort: impl FnOnce()) {
    debug_assert!(ALL.contains(&name), "crash point {name} is not in ALL");
    let hit = {
        let mut counts = counts().lock().unwrap_or_else(|e| e.into_inner());
        let count = counts.entry(name).or_insert(0);
        *count += 1;
        *count
    };
    if armed().is_some_and(|(armed, at)| armed == name && *at == hit) {
        before_abort();
        std::process::abort();
    }
}

/// Writes `name hits` lines to the file `DURABLE_JOURNAL_CRASH_COUNTS`
/// names, if it is set.
pub fn write_counts() {
    let Some(path) = std::env::var_os(COUNTS_ENV) else { return };
    let counts = counts().lock().unwrap_or_else(|e| e.into_inner());
    let lines: String = ALL.iter().map(|name| format!("{name} {}\n", counts.get(name).copied().unwrap_or(0))).collect();
    std::fs::write(path, lines).expect("the crash point counts are written");
}
