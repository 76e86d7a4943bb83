//! Only the store's owner can read its journals: the directory ends up
//! `0700` and every file the store makes `0600` whatever the umask; an
//! existing store directory that group or others can reach (one made by an
//! older build: `0755`, files `0644`) is refused with its path, mode and the
//! `chmod` that fixes it, opened as it is under `Warn`, made private under
//! `Tighten`.
//!
//! The umask is the process's, so each umask runs in a child process (this
//! test binary again, started by `sh -c 'umask ...; exec ...'`).

use std::collections::BTreeMap;
use std::fs::{self, Permissions};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;
use std::process::Command;

use durable_journal::store::{
    ActionStateStore, BusinessKey, CompactionPolicy, EventIdentity, FileStore, FileStoreOptions, PermissionCheck,
    StateKey,
};
use durable_journal::{ActionState, ErrorCode};

const CHILD_ENV: &str = "DURABLE_JOURNAL_PERMISSIONS_CHILD";

fn key(seq: i64) -> StateKey {
    StateKey::new(BusinessKey::Str("user-1".into()), seq, "chat", EventIdentity::Occurrence(format!("occ-{seq}")))
}

fn mode(path: &Path) -> u32 {
    fs::metadata(path).unwrap().mode() & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    fs::set_permissions(path, Permissions::from_mode(mode)).unwrap();
}

/// Every file of `dir` with its mode.
fn file_modes(dir: &Path) -> BTreeMap<String, u32> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), mode(&p)))
        .collect()
}

/// Every file of `dir` with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect()
}

/// Writes entries, compacts (a new segment generation) and closes.
fn write_store(dir: &Path, options: FileStoreOptions) {
    let options = FileStoreOptions { compaction: CompactionPolicy::eager(), ..options };
    let mut store = FileStore::open_with(dir, options).unwrap();
    for seq in 1..=3 {
        store.put(&key(seq), &ActionState::default()).unwrap();
    }
    store.prune_state(&key(1).business_key, 1).unwrap();
    store.get_recovery_marker().unwrap();
    store.close().unwrap();
}

/// A store as a build that left modes to the umask (022) wrote it.
fn older_build_store(dir: &Path) {
    write_store(dir, FileStoreOptions::default());
    for (name, _) in file_modes(dir) {
        set_mode(&dir.join(name), 0o644);
    }
    set_mode(dir, 0o755);
}

/// The child: writes a store in the directory `DURABLE_JOURNAL_PERMISSIONS_CHILD`
/// names, under the umask its parent set (a no-op test otherwise).
#[test]
fn child_writes_a_store() {
    let Ok(dir) = std::env::var(CHILD_ENV) else { return };
    write_store(Path::new(&dir), FileStoreOptions::default());
    // A reopen appends to the segment the store made: the owner can still write it.
    let mut store = FileStore::open(&dir).unwrap();
    store.put(&key(9), &ActionState::default()).unwrap();
    store.close().unwrap();
}

fn run_child_under_umask(umask: &str, dir: &Path) {
    let exe = std::env::current_exe().unwrap();
    let output = Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" --exact child_writes_a_store --nocapture --test-threads=1"))
        .arg(exe)
        .env(CHILD_ENV, dir)
        .output()
        .unwrap();
    let printed = String::from_utf8_lossy(&output.stdout).into_owned() + &String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "the child under umask {umask} failed: {}\n{printed}", output.status);
}

#[test]
fn a_new_store_is_its_owners_alone_whatever_the_umask() {
    for umask in ["022", "000", "077", "277"] {
        let parent = tempfile::tempdir().unwrap();
        let dir = parent.path().join("store");
        fs::create_dir(&dir).unwrap();
        // As `mkdir` under umask 000 leaves it: the store makes it its own.
        set_mode(&dir, 0o777);
        run_child_under_umask(umask, &dir);
        assert_eq!(mode(&dir), 0o700, "umask {umask}: the directory");
        let files = file_modes(&dir);
        assert!(files.keys().any(|n| n.starts_with("journal-")), "umask {umask}: {files:?}");
        assert!(files.contains_key("LOCK"), "umask {umask}: {files:?}");
        for (name, file_mode) in &files {
            assert_eq!(*file_mode, 0o600, "umask {umask}: {name} in {files:?}");
        }
    }
}

#[test]
fn a_store_directory_of_an_older_build_is_refused_with_its_path_its_mode_and_the_fix() {
    let parent = tempfile::tempdir().unwrap();
    let dir = parent.path().join("store");
    fs::create_dir(&dir).unwrap();
    older_build_store(&dir);
    let (before, modes_before) = (contents(&dir), file_modes(&dir));

    let err = FileStore::open(&dir).err().expect("refused");
    assert_eq!(err.code(), ErrorCode::StoreIo, "{err}");
    let message = err.to_string();
    for part in [dir.display().to_string(), "mode 0755".into(), format!("chmod 700 '{}'", dir.display()), "tighten".into()] {
        assert!(message.contains(&part), "{message}\nshould contain {part}");
    }
    assert_eq!(contents(&dir), before, "a refused open changes no file");
    assert_eq!(file_modes(&dir), modes_before);
    assert_eq!(mode(&dir), 0o755);

    // The fix the message gives is enough.
    Command::new("sh").arg("-c").arg(format!("chmod 700 '{0}' && chmod 600 '{0}'/*", dir.display())).status().unwrap();
    let mut store = FileStore::open(&dir).unwrap();
    assert!(store.get(&key(3)).unwrap().is_some());
    assert_eq!(store.permission_warning(), None);
}

#[test]
fn any_access_for_group_or_others_is_refused() {
    for exposed in [0o750, 0o701, 0o720, 0o707] {
        let dir = tempfile::tempdir().unwrap();
        write_store(dir.path(), FileStoreOptions::default());
        set_mode(dir.path(), exposed);
        let err = FileStore::open(dir.path()).err().unwrap_or_else(|| panic!("mode {exposed:o} opened"));
        assert!(err.to_string().contains(&format!("mode {exposed:04o}")), "{err}");
    }
}

#[test]
fn warn_opens_it_as_it_is_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    older_build_store(dir.path());
    let options = FileStoreOptions { permissions: PermissionCheck::Warn, ..Default::default() };
    let mut store = FileStore::open_with(dir.path(), options).unwrap();
    assert_eq!(store.recovery_report().exposed_dir_mode, Some(0o755));
    assert!(!store.recovery_report().permissions_tightened);
    let warning = store.permission_warning().expect("a warning");
    assert!(warning.contains(&dir.path().display().to_string()) && warning.contains("0755"), "{warning}");
    assert!(store.get(&key(3)).unwrap().is_some());
    assert_eq!(mode(dir.path()), 0o755, "warn changes no mode");
    // What the store makes from now on is private all the same.
    store.compact().unwrap();
    assert_eq!(mode(&store.segment_path().unwrap()), 0o600);
}

#[test]
fn tighten_makes_the_directory_and_the_stores_files_private() {
    let dir = tempfile::tempdir().unwrap();
    older_build_store(dir.path());
    fs::write(dir.path().join("notes.txt"), b"not the store's").unwrap();
    set_mode(&dir.path().join("notes.txt"), 0o644);
    let before = contents(dir.path());

    let options = FileStoreOptions { permissions: PermissionCheck::Tighten, ..Default::default() };
    let mut store = FileStore::open_with(dir.path(), options).unwrap();
    assert_eq!(store.recovery_report().exposed_dir_mode, Some(0o755));
    assert!(store.recovery_report().permissions_tightened);
    assert!(store.permission_warning().unwrap().contains("made 0700"));
    assert!(store.get(&key(3)).unwrap().is_some());
    store.close().unwrap();

    assert_eq!(mode(dir.path()), 0o700);
    for (name, file_mode) in file_modes(dir.path()) {
        let expected = if name == "notes.txt" { 0o644 } else { 0o600 };
        assert_eq!(file_mode, expected, "{name}");
    }
    assert_eq!(contents(dir.path()), before, "tightening changes modes, not bytes");
}

#[test]
fn an_empty_directory_becomes_the_stores_but_someone_elses_files_are_not_taken_over() {
    let dir = tempfile::tempdir().unwrap();
    set_mode(dir.path(), 0o755);
    FileStore::open(dir.path()).unwrap().close().unwrap();
    assert_eq!(mode(dir.path()), 0o700);

    let shared = tempfile::tempdir().unwrap();
    fs::write(shared.path().join("report.csv"), b"a,b\n").unwrap();
    set_mode(shared.path(), 0o755);
    let err = FileStore::open(shared.path()).err().expect("refused");
    assert!(err.to_string().contains("mode 0755"), "{err}");
    assert_eq!(mode(shared.path()), 0o755);
    assert_eq!(file_modes(shared.path()).len(), 1, "no file was created");
}
