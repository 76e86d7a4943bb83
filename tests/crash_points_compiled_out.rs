//! The crash points exist only in a build with the `crash-points` feature:
//! the library this test links (`libdurable_journal.rlib` beside it, which
//! holds every function's code) holds their names exactly
//! when the feature is on. Run without it (the shipped build, `cargo test`)
//! and with it (Gradle's `rustCrashPointTest`), so the check is seen to
//! pass both ways.

use std::path::PathBuf;

fn linked_library() -> PathBuf {
    let test_binary = std::env::current_exe().unwrap();
    test_binary.parent().unwrap().join("libdurable_journal.rlib")
}

#[test]
fn the_library_holds_crash_points_only_with_the_feature() {
    let library = std::fs::read(linked_library()).unwrap();
    // Built at run time, so this binary does not hold the name itself.
    let name = ["file.append.", "torn_write"].concat();
    let found = library.windows(name.len()).any(|window| window == name.as_bytes());
    assert_eq!(found, cfg!(feature = "crash-points"), "crash point names in {}", linked_library().display());
}
