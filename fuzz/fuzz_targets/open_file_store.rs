#![no_main]
//! See `durable_journal::fuzzing::open_file_store`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| durable_journal::fuzzing::open_file_store(data));
