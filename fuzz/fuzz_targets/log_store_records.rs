#![no_main]
//! See `durable_journal::fuzzing::log_store_records`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| durable_journal::fuzzing::log_store_records(data));
