//! Every single-bit flip anywhere in a store file is noticed on open: either
//! the damage is a torn final record (cut off, reported, everything before it
//! kept) or it is corruption reported with file and offset. Nothing is
//! silently accepted, and opening never panics.

#[path = "support/shared_file.rs"]
mod shared_file;

use std::fs;

use durable_journal::store::{ActionStateStore, BusinessKey, EventIdentity, FileStore, StateKey};
use durable_journal::{ActionState, Error, Outcome};
use serde_json::json;

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Long(7), seq, "reply", EventIdentity::Occurrence(format!("occ-{seq}")))
}

/// A small store: three actions, the second with a journal of three calls.
/// Returns the segment's bytes and the states as written.
fn small_store(dir: &std::path::Path) -> (Vec<u8>, Vec<ActionState>) {
    let store = shared_file::share(FileStore::open(dir).unwrap());
    let mut states = Vec::new();
    for seq in 1..=3 {
        let state = ActionState { task_event: Some(json!({"@class": "E", "n": seq}).into()), ..Default::default() };
        store.put(&key(seq), &state).unwrap();
        states.push(state);
    }
    let (mut journal, mut persister) = store.open_journal(key(2), None).unwrap();
    for call in ["chat", "tool-call:a", "tool-call:b"] {
        journal.record_call_completion(call, Outcome::success(Some(call.as_bytes().to_vec())), &mut persister).unwrap();
    }
    states[1] = journal.state().clone();
    let segment = shared_file::file(&store).segment_path().unwrap();
    shared_file::file(&store).close().unwrap();
    (fs::read(segment).unwrap(), states)
}

#[test]
fn every_bit_flip_is_either_a_reported_torn_tail_or_reported_corruption() {
    let original = tempfile::tempdir().unwrap();
    let (bytes, states) = small_store(original.path());
    let segment_name = fs::read_dir(original.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .find(|name| name.to_string_lossy().ends_with(".log"))
        .unwrap();

    let (mut torn, mut corrupt) = (0, 0);
    for offset in 0..bytes.len() {
        for bit in [0x01u8, 0x80] {
            let dir = tempfile::tempdir().unwrap();
            // Private, as the store requires of a directory holding a segment (docs/security.md).
            fs::set_permissions(dir.path(), std::os::unix::fs::PermissionsExt::from_mode(0o700)).unwrap();
            let mut damaged = bytes.clone();
            damaged[offset] ^= bit;
            fs::write(dir.path().join(&segment_name), &damaged).unwrap();
            match FileStore::open(dir.path()) {
                Ok(mut store) => {
                    assert!(
                        store.recovery_report().torn_tail.is_some(),
                        "a flip of bit {bit:#x} at offset {offset} was accepted silently"
                    );
                    torn += 1;
                    // Only the final record (the last call of action 2) may be gone.
                    assert_eq!(store.get(&key(1)).unwrap().as_ref(), Some(&states[0]), "offset {offset}");
                    let second = store.get(&key(2)).unwrap().unwrap();
                    assert_eq!(second.call_results[..2], states[1].call_results[..2], "offset {offset}");
                    assert_eq!(store.get(&key(3)).unwrap().as_ref(), Some(&states[2]), "offset {offset}");
                }
                Err(Error::StoreCorrupt { path, .. }) => {
                    assert!(path.ends_with(&segment_name), "{path:?}");
                    corrupt += 1;
                }
                Err(other) => panic!("bit {bit:#x} at offset {offset}: unexpected error {other}"),
            }
        }
    }
    assert!(torn > 0 && corrupt > 0, "both outcomes occur: torn {torn}, corrupt {corrupt}");
}
