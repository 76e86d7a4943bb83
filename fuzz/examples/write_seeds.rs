//! Writes the seed inputs of every fuzz target (`durable_journal::fuzzing::seeds`)
//! into `corpus/<target>/seed-<n>`, next to what the fuzzer has found.
//! Run from `fuzz/`: `cargo +nightly run --release --example write_seeds`.

use std::fs;
use std::path::Path;

fn main() {
    let vectors: serde_json::Value =
        serde_json::from_slice(&fs::read("../tests/vectors/identity.json").expect("run from fuzz/")).expect("vectors");
    let trees: Vec<Vec<u8>> = vectors["cases"]
        .as_array()
        .expect("cases")
        .iter()
        .filter(|case| case.get("args").is_some() && case.get("kwargs").is_some())
        .map(|case| serde_json::to_vec(&serde_json::json!({"args": case["args"], "kwargs": case["kwargs"]})).expect("json"))
        .collect();
    let mut counts = std::collections::BTreeMap::new();
    for (target, input) in durable_journal::fuzzing::seeds(&trees) {
        let n = counts.entry(target).or_insert(0usize);
        let dir = Path::new("corpus").join(target);
        fs::create_dir_all(&dir).expect("corpus directory");
        fs::write(dir.join(format!("seed-{n}")), input).expect("write seed");
        *n += 1;
    }
    for (target, n) in counts {
        println!("{target}: {n} seeds");
    }
}
