#![no_main]
//! See `durable_journal::fuzzing::action_state_json`.

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| durable_journal::fuzzing::action_state_json(data));
