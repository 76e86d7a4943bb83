#![no_main]
//! See `durable_journal::fuzzing::store_record`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| durable_journal::fuzzing::store_record(data));
