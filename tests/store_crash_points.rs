//! Crash points (`crash-points` cargo feature, `rust/store/crash_points.rs`):
//! for every persistence boundary of the file store and of the log store's
//! append path, a child process runs a fixed workload and aborts at that
//! boundary (its first and its last time there); the parent reopens the
//! store and checks that every acknowledged operation is there, nothing
//! half-written is visible (each entry is exactly a state the workload put
//! it in) and nothing is duplicated. The test prints how many boundaries
//! it covered; the list is in `docs/store.md`.
//!
//! Run with `cargo test --release --features crash-points --test
//! store_crash_points` (Gradle's `check` does, in target/crash-points).
//! Without the feature this file holds no test.
#![cfg(feature = "crash-points")]

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use durable_journal::store::crash_points::{self, ALL, COUNTS_ENV, CRASH_AT_ENV};
use durable_journal::store::log::{Acknowledged, Acknowledgement, KeyGroupRange, Lineage, LogLayout, LogRecord};
use durable_journal::store::{
    ActionStateStore, AnyStore, BusinessKey, CompactionPolicy, EventIdentity, FileStore, FileStoreOptions, LogSink, LogStore,
    SharedStore, SharedStorePersister, StateKey,
};
use durable_journal::{ActionState, Journal, NoPersist, Outcome, Result};

/// Set in the child: `<file|log> <store dir> <acks file>`.
const CHILD_ENV: &str = "DURABLE_JOURNAL_CRASH_CHILD";
const ENTRIES: u32 = 6;
const MAX_PARALLELISM: u32 = 8;
const ALL_GROUPS: KeyGroupRange = KeyGroupRange { first: 0, last: MAX_PARALLELISM - 1 };
const LINEAGE: Lineage = Lineage([7; 16]);

#[derive(Clone, Copy, Debug)]
enum Op {
    Put(u32),
    Call(u32, u32),
    Complete(u32),
    Prune(u32),
    Marker,
}

/// The workload: entries written call by call, some completed, a marker,
/// two prunes (the file store compacts on each), more entries, a marker.
fn ops() -> Vec<Op> {
    let entry = |n: u32| {
        let mut ops = vec![Op::Put(n), Op::Call(n, 1), Op::Call(n, 2), Op::Call(n, 3)];
        if n % 2 == 0 {
            ops.push(Op::Complete(n));
        }
        ops
    };
    let mut ops: Vec<Op> = (0..4).flat_map(entry).collect();
    ops.extend([Op::Marker, Op::Prune(0), Op::Prune(1), Op::Marker]);
    ops.extend((4..ENTRIES).flat_map(entry));
    ops.push(Op::Marker);
    ops
}

fn user(n: u32) -> BusinessKey {
    BusinessKey::Str(format!("user-{n}"))
}

fn key(n: u32) -> StateKey {
    StateKey::new(user(n), 0, "act", EventIdentity::Occurrence(format!("occurrence-{n}")))
}

fn initial(n: u32) -> ActionState {
    ActionState { task_event: Some(serde_json::json!({"input": n}).into()), ..ActionState::default() }
}

fn result(n: u32, call: u32) -> Vec<u8> {
    format!("\"result {call} of entry {n}: {}\"", "r".repeat(100 * call as usize)).into_bytes()
}

/// Each entry's state after `ops`, computed without a store.
fn model(ops: &[Op]) -> HashMap<u32, Option<ActionState>> {
    let mut journals: HashMap<u32, Journal> = HashMap::new();
    let mut states: HashMap<u32, Option<ActionState>> = (0..ENTRIES).map(|n| (n, None)).collect();
    for op in ops {
        match *op {
            Op::Put(n) => {
                journals.insert(n, Journal::new(initial(n)));
            }
            Op::Call(n, call) => {
                let journal = journals.get_mut(&n).unwrap();
                journal.record_call_completion(&format!("call-{call}"), Outcome::success(Some(result(n, call))), &mut NoPersist).unwrap();
            }
            Op::Complete(n) => journals.get_mut(&n).unwrap().mark_completed(&mut NoPersist).unwrap(),
            Op::Prune(n) => {
                journals.remove(&n);
            }
            Op::Marker => {}
        }
        for (n, journal) in &journals {
            states.insert(*n, Some(journal.state().clone()));
        }
        if let Op::Prune(n) = *op {
            states.insert(n, None);
        }
    }
    states
}

/// A log that survives the child's abort: each batch is one write to an
/// append-only file (`[partition u32][key len u32][key][value len i64, -1
/// for a tombstone][value]` per record).
struct FileLog {
    file: File,
    next_offsets: Vec<u64>,
}

impl FileLog {
    fn open(path: &Path) -> FileLog {
        let next_offsets = end_offsets(path);
        FileLog { file: OpenOptions::new().create(true).append(true).open(path).unwrap(), next_offsets }
    }
}

impl LogSink for FileLog {
    fn submit(&mut self, records: &[LogRecord]) -> Result<Box<dyn Acknowledgement>> {
        let mut bytes = Vec::new();
        let mut offsets = Vec::new();
        for record in records {
            bytes.extend_from_slice(&record.partition.to_le_bytes());
            bytes.extend_from_slice(&(record.key.len() as u32).to_le_bytes());
            bytes.extend_from_slice(&record.key);
            match &record.value {
                Some(value) => {
                    bytes.extend_from_slice(&(value.len() as i64).to_le_bytes());
                    bytes.extend_from_slice(value);
                }
                None => bytes.extend_from_slice(&(-1i64).to_le_bytes()),
            }
            let next = &mut self.next_offsets[record.partition as usize];
            offsets.push(*next);
            *next += 1;
        }
        self.file.write_all(&bytes).unwrap();
        Ok(Box::new(Acknowledged(Ok(offsets))))
    }

    fn end_offsets(&mut self) -> Result<Vec<u64>> {
        Ok(self.next_offsets.clone())
    }

    fn name(&self) -> &str {
        "file log"
    }
}

/// Per partition, the offset the log's next record gets, counted from its file.
fn end_offsets(path: &Path) -> Vec<u64> {
    read_log(path).iter().fold(vec![0; layout().partitions as usize], |mut next, r| {
        next[r.partition as usize] += 1;
        next
    })
}

fn read_log(path: &Path) -> Vec<LogRecord> {
    let bytes = fs::read(path).unwrap_or_default();
    let mut rest = &bytes[..];
    let mut take = |n: usize| {
        let (head, tail) = rest.split_at(n);
        rest = tail;
        head.to_vec()
    };
    let mut records = Vec::new();
    let mut left = bytes.len();
    while left > 0 {
        let partition = u32::from_le_bytes(take(4).try_into().unwrap());
        let key_len = u32::from_le_bytes(take(4).try_into().unwrap()) as usize;
        let key = take(key_len);
        let value_len = i64::from_le_bytes(take(8).try_into().unwrap());
        let value = (value_len >= 0).then(|| take(value_len as usize));
        left -= 16 + key_len + value.as_ref().map_or(0, Vec::len);
        records.push(LogRecord { partition, key, value });
    }
    records
}

fn layout() -> LogLayout {
    LogLayout::new([3; 16], 2, MAX_PARALLELISM).unwrap()
}

/// The log store over the file log, with everything in it loaded.
fn open_log_store(path: &Path, fresh: bool) -> LogStore {
    let mut store = LogStore::new(Box::new(FileLog::open(path)), layout(), ALL_GROUPS).unwrap();
    if fresh {
        store.start_fresh(LINEAGE).unwrap();
        return store;
    }
    store.continue_history(LINEAGE).unwrap();
    let partitions = store.begin_load(ALL_GROUPS).unwrap();
    let mut offsets = vec![0u64; layout().partitions as usize];
    for record in read_log(path) {
        let offset = offsets[record.partition as usize];
        offsets[record.partition as usize] += 1;
        if partitions.contains(&record.partition) {
            store.ingest(ALL_GROUPS, record.partition, offset, &record.key, record.value.as_deref()).unwrap();
        }
    }
    store.finish_load(ALL_GROUPS).unwrap();
    for n in 0..ENTRIES {
        store.bind_key_group(&user(n), n % MAX_PARALLELISM).unwrap();
    }
    store
}

fn file_options() -> FileStoreOptions {
    FileStoreOptions { compaction: CompactionPolicy::eager(), ..Default::default() }
}

/// Runs the workload against `store` as the bindings drive it (journals
/// opened with `SharedStore::open_journal`), writing each finished op's
/// index to `acks`.
fn run(store: SharedStore, acks: &mut File) {
    let mut journals: HashMap<u32, (Journal, SharedStorePersister)> = HashMap::new();
    for (i, op) in ops().into_iter().enumerate() {
        match op {
            Op::Put(n) => {
                store.put(&key(n), &initial(n)).unwrap();
                journals.insert(n, store.open_journal(key(n), None).unwrap());
            }
            Op::Call(n, call) => {
                let (journal, persister) = journals.get_mut(&n).unwrap();
                let id = format!("call-{call}");
                journal.record_call_completion(&id, Outcome::success(Some(result(n, call))), persister).unwrap();
            }
            Op::Complete(n) => {
                let (journal, persister) = journals.get_mut(&n).unwrap();
                journal.mark_completed(persister).unwrap();
            }
            Op::Prune(n) => store.prune_state(&user(n), 0).unwrap(),
            Op::Marker => {
                store.recovery_marker().unwrap();
            }
        }
        acks.write_all(format!("{i}\n").as_bytes()).unwrap();
    }
    store.lock().unwrap().store().close().unwrap();
}

/// The child: runs the workload named by `DURABLE_JOURNAL_CRASH_CHILD` (a
/// no-op test otherwise).
#[test]
fn child_workload() {
    let Ok(spec) = std::env::var(CHILD_ENV) else { return };
    let mut parts = spec.splitn(3, ' ');
    let (kind, store_path, acks_path) = (parts.next().unwrap(), parts.next().unwrap(), parts.next().unwrap());
    let mut acks = OpenOptions::new().create(true).append(true).open(acks_path).unwrap();
    match kind {
        "file" => {
            let store = FileStore::open_with(store_path, file_options()).unwrap();
            run(SharedStore::new(AnyStore::File(Box::new(store))), &mut acks);
        }
        "log" => {
            let mut store = open_log_store(Path::new(store_path), true);
            for n in 0..ENTRIES {
                store.bind_key_group(&user(n), n % MAX_PARALLELISM).unwrap();
            }
            run(SharedStore::new(AnyStore::Log(Box::new(store))), &mut acks);
        }
        other => panic!("no workload {other}"),
    }
    crash_points::write_counts();
}

struct Child {
    kind: &'static str,
    dir: tempfile::TempDir,
}

impl Child {
    fn new(kind: &'static str) -> Child {
        Child { kind, dir: tempfile::tempdir().unwrap() }
    }

    fn store_path(&self) -> PathBuf {
        match self.kind {
            "file" => self.dir.path().join("store"),
            _ => self.dir.path().join("log"),
        }
    }

    fn acks_path(&self) -> PathBuf {
        self.dir.path().join("acks")
    }

    fn run(&self, env: &[(&str, String)]) -> std::process::ExitStatus {
        if self.kind == "file" {
            fs::create_dir_all(self.store_path()).unwrap();
        }
        let spec = format!("{} {} {}", self.kind, self.store_path().display(), self.acks_path().display());
        let mut command = Command::new(std::env::current_exe().unwrap());
        command.args(["--exact", "child_workload", "--nocapture", "--test-threads=1"]).env(CHILD_ENV, spec);
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().unwrap().status
    }

    /// How many ops the child finished.
    fn acknowledged(&self) -> usize {
        fs::read_to_string(self.acks_path()).unwrap_or_default().lines().count()
    }
}

/// How often the workload of `kind` reaches each crash point, from a run without a crash.
fn hits(kind: &'static str) -> HashMap<String, u64> {
    let child = Child::new(kind);
    let counts = child.dir.path().join("counts");
    let status = child.run(&[(COUNTS_ENV, counts.display().to_string())]);
    assert!(status.success(), "the {kind} workload without a crash: {status}");
    assert_eq!(child.acknowledged(), ops().len());
    fs::read_to_string(counts)
        .unwrap()
        .lines()
        .map(|line| {
            let (name, count) = line.split_once(' ').unwrap();
            (name.to_string(), count.parse().unwrap())
        })
        .collect()
}

/// Reopens what the crashed child left and checks it against the acks.
fn check_after_crash(child: &Child, point: &str) {
    let ops = ops();
    let done = child.acknowledged();
    assert!(done < ops.len(), "{point}: the child finished every op before crashing");
    // Each entry holds the state after the acknowledged ops, or after the
    // op in flight too. A log store's prune is durable once its tombstones
    // are appended, with the next record or marker.
    let mut allowed = vec![model(&ops[..done]), model(&ops[..=done])];
    if child.kind == "log" && done > 0 && matches!(ops[done - 1], Op::Prune(_)) {
        allowed.push(model(&ops[..done - 1]));
        if done > 1 && matches!(ops[done - 2], Op::Prune(_)) {
            allowed.push(model(&ops[..done - 2]));
        }
    }
    let mut get: Box<dyn FnMut(u32) -> Option<ActionState>> = match child.kind {
        "file" => {
            let mut store = FileStore::open_with(child.store_path(), file_options()).unwrap();
            Box::new(move |n| store.get(&key(n)).unwrap())
        }
        _ => {
            let mut store = open_log_store(&child.store_path(), false);
            Box::new(move |n| store.get(&key(n)).unwrap())
        }
    };
    for n in 0..ENTRIES {
        let found = get(n);
        assert!(
            allowed.iter().any(|states| states[&n] == found),
            "{point}: after {done} acknowledged ops entry {n} is {found:?}, none of the states the workload can leave"
        );
    }
}

#[test]
fn every_persistence_boundary_survives_a_crash() {
    let mut covered = Vec::new();
    let mut crashes = 0;
    for kind in ["file", "log"] {
        for (point, count) in hits(kind) {
            if count == 0 {
                continue;
            }
            for hit in if count > 1 { vec![1, count] } else { vec![1] } {
                let child = Child::new(kind);
                let status = child.run(&[(CRASH_AT_ENV, format!("{point}@{hit}"))]);
                assert_eq!(status.signal(), Some(6), "{kind} {point}@{hit} did not abort there: {status}");
                check_after_crash(&child, &format!("{kind} {point}@{hit}"));
                crashes += 1;
            }
            covered.push(point);
        }
    }
    covered.sort();
    let missing: Vec<&&str> = ALL.iter().filter(|p| !covered.iter().any(|c| c == *p)).collect();
    println!("crash points: {} of {} boundaries covered, {crashes} crashes, each reopened and checked", covered.len(), ALL.len());
    assert!(missing.is_empty(), "boundaries the workloads never reach: {missing:?}");
}
