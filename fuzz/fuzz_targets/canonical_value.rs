#![no_main]
//! See `durable_journal::fuzzing::canonical_value`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| durable_journal::fuzzing::canonical_value(data));
