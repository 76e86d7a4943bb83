//! Entry points for the cargo-fuzz targets in `fuzz/` (built only with the
//! `fuzzing` cargo feature; none of this is API).
//!
//! Each function takes arbitrary bytes, drives one parser of the library the
//! way the library itself does, and checks what must hold for any input: no
//! panic, no unbounded allocation, and for input that parses, that writing
//! it back and reading that again gives the same value. A broken property
//! panics, which is what the fuzzer reports.
//!
//! The file store and log store targets frame the fuzzer's bytes themselves
//! (checksums, offsets, the log's key prefix): random bytes would almost
//! never get past a CRC, so the fuzzer would test the checksum and nothing
//! behind it. A flag in the input still lets it write raw, unframed bytes.

use std::fs;
use std::io::Write;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::identity;
use crate::model::ActionState;
use crate::store::record::{self, Record};
use crate::store::file::{segment_header_bytes, FrameFormat, FrameHeader, FrameScanner, Scanned};
use crate::store::log::{Acknowledged, Acknowledgement, KeyGroupRange, Lineage, LogLayout, LogRecord, LogSink};
use crate::store::{ActionStateStore, BusinessKey, Durability, EventIdentity, FileStore, FileStoreOptions, LogStore, StateKey};

/// The ActionState JSON reader (`ActionState::from_json`): any input is read
/// or refused with an error; what is read writes back to JSON that reads
/// as the same state and writes back byte for byte the same.
pub fn action_state_json(data: &[u8]) {
    let Ok(state) = ActionState::from_json(data) else { return };
    let written = state.to_json();
    let again = ActionState::from_json(&written).expect("the JSON the library writes must read back");
    assert_eq!(again, state, "a state changed through a JSON round trip");
    assert_eq!(again.to_json(), written, "writing a state is not stable");
}

/// The store's record decoder (`record::decode`, used by the file store and
/// the log store for every record they read): any payload decodes or is
/// refused; a decoded record encodes to a payload that decodes to it again.
pub fn store_record(data: &[u8]) {
    let Ok(decoded) = record::decode(data) else { return };
    let encoded = encode_record(&decoded);
    let again = record::decode(&encoded).expect("an encoded record must decode");
    assert_eq!(again, decoded, "a record changed through an encode/decode round trip");
}

/// The frame decoders: the header parser in both formats on the input, then
/// the segment scanner over the input as the body of a segment, decoding
/// every intact frame's record.
pub fn store_frames(data: &[u8]) {
    for format in [FrameFormat::Placed, FrameFormat::Unplaced] {
        if let Some(header) = FrameHeader::parse(data, format) {
            assert!(header.len > 0, "a frame header with a zero length parsed");
            assert_eq!(usize::from(header.header_len), format.header_len());
        }
    }
    let Some((&flags, body)) = data.split_first() else { return };
    let format = if flags & 1 == 0 { FrameFormat::Placed } else { FrameFormat::Unplaced };
    let path = scratch_dir().join("frames.bin");
    fs::write(&path, body).expect("write the scratch file");
    let file = fs::File::open(&path).expect("open the scratch file");
    let mut scanner = FrameScanner::new(&file, format, 0, body.len() as u64).expect("scanner");
    let mut end = 0u64;
    loop {
        match scanner.next_frame().expect("reading a scratch file") {
            Scanned::Frame { offset, payload } => {
                assert!(offset >= end, "the scanner went backwards");
                end = offset + (format.header_len() + payload.len()) as u64;
                assert!(end <= body.len() as u64, "a frame past the end of the input");
                store_record(payload);
            }
            Scanned::End | Scanned::Bad { .. } | Scanned::Misplaced { .. } => break,
        }
    }
}

/// Opening a file store over a segment built from the input. The first byte
/// selects: bit 0 format 1 (else 2), bit 1 the rest is written raw after the
/// segment header (else it is a list of `[u16 len][payload]` records, each
/// framed with valid checksums and its offset, and a last incomplete one
/// written as a torn tail), bit 2 the raw bytes replace the header too; the
/// second byte is the header's count of snapshot records. The open either
/// fails with an error or gives a store that serves every entry it lists,
/// takes a new put and shows it after a reopen.
pub fn open_file_store(data: &[u8]) {
    let dir = scratch_dir().join("store");
    let _ = fs::remove_dir_all(&dir);
    // Private, as the store requires of a directory that holds a segment.
    fs::DirBuilder::new().mode(crate::store::file::DIR_MODE).create(&dir).expect("create the scratch store directory");
    let segment = segment_from_input(data);
    fs::write(dir.join("journal-0000000000000001.log"), segment).expect("write the segment");
    let options = FileStoreOptions { durability: Durability::GroupCommit { max_batch: 1 << 20 }, ..Default::default() };
    let Ok(mut store) = FileStore::open_with(&dir, options) else { return };
    let inspected = FileStore::inspect(&dir);
    if let Ok(inspected) = inspected {
        for entry in inspected.entries {
            let served = store.get(&entry.key).expect("an entry the store lists must be served");
            // A get may miss only where an earlier get of the same business
            // key dropped a later sequence number (spec §4).
            if let Some(served) = served {
                assert_eq!(served, entry.state, "the store serves another state than it lists");
            }
        }
    }
    let probe = StateKey::new(BusinessKey::Str("fuzz-probe".into()), 1, "probe", EventIdentity::Occurrence("occ:probe".into()));
    let state = ActionState::default();
    store.put(&probe, &state).expect("a store that opened must take a put");
    store.close().expect("close");
    drop(store);
    let mut reopened = FileStore::open_with(&dir, options).expect("a store this library wrote must reopen");
    assert_eq!(reopened.get(&probe).expect("get after reopen"), Some(state), "the put is gone after a reopen");
    reopened.close().expect("close");
}

/// The log store's record decoding (`LogStore::ingest`, what a restore does
/// with every record it reads from Kafka). The input is a list of records
/// `[flags u8][u16 key len][key][u16 value len][value]`: the key gets this
/// store's lineage and the key group `flags & 15` in front unless bit 6 is
/// set (then it is used raw), bit 7 makes the record a tombstone, and bit 5
/// puts it in partition 0 whatever its key group. Loading either fails with
/// an error or gives a store that serves and takes puts for its entries.
pub fn log_store_records(data: &[u8]) {
    let lineage = Lineage([0x5a; 16]);
    let layout = LogLayout::new([7; 16], 2, 16).expect("layout");
    let owned = KeyGroupRange::new(0, 15, &layout).expect("range");
    let mut store = LogStore::new(Box::new(NullLog(vec![0; 2])), layout, owned).expect("log store");
    store.continue_history(lineage).expect("continue");
    store.begin_load(owned).expect("begin load");
    let mut input = data;
    let mut offset = 0u64;
    let mut keys = Vec::new();
    while let Some((&flags, rest)) = input.split_first() {
        let Some((key, rest)) = take_chunk(rest) else { break };
        let Some((value, rest)) = take_chunk(rest) else { break };
        input = rest;
        let key_group = u32::from(flags & 15);
        let full_key = if flags & 0x40 != 0 {
            key.to_vec()
        } else {
            let mut prefixed = vec![1u8];
            prefixed.extend_from_slice(&lineage.0);
            prefixed.extend_from_slice(&key_group.to_le_bytes());
            prefixed.extend_from_slice(key);
            prefixed
        };
        let partition = if flags & 0x20 != 0 { 0 } else { layout.partition_of(key_group) };
        let value = if flags & 0x80 != 0 { None } else { Some(value) };
        if store.ingest(owned, partition, offset, &full_key, value).is_err() {
            return;
        }
        keys.push(full_key);
        offset += 1;
    }
    store.finish_load(owned).expect("finish load");
    let probe = BusinessKey::Str("fuzz-probe".into());
    store.bind_key_group(&probe, 3).expect("bind");
    let key = StateKey::new(probe, 1, "probe", EventIdentity::Occurrence("occ:probe".into()));
    store.put(&key, &ActionState::default()).expect("a loaded store must take a put");
    assert_eq!(store.get(&key).expect("get"), Some(ActionState::default()));
}

/// The C ABI's canonical-value parser (`durable_journal_args_digest` and
/// `durable_journal_call_durable_id`, what Python's ctypes calls): any bytes
/// give a digest or an error code, never a crash; a digest is 16 hex
/// characters and the same on a second call.
pub fn canonical_value(data: &[u8]) {
    let first = digest_through_c_abi(data);
    if let Ok(digest) = &first {
        assert_eq!(digest.len(), 16, "a digest is 16 hex characters: {digest}");
        assert!(digest.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_eq!(digest_through_c_abi(data), first, "the digest of one input changed");
        if let Ok(tree) = serde_json::from_slice::<serde_json::Value>(data) {
            let args = identity::parse_call_tree(&tree).expect("a tree that digests parses");
            let id = identity::derived_call_id("m.f", &args).expect("a tree that digests names a call");
            assert_eq!(id, format!("m.f::{digest}"));
        }
    }
}

fn digest_through_c_abi(data: &[u8]) -> Result<String, i32> {
    let mut out: *mut u8 = std::ptr::null_mut();
    let mut len = 0usize;
    // SAFETY: `data` is readable for its length; out pointers are valid.
    let status = unsafe { crate::capi::durable_journal_args_digest(data.as_ptr(), data.len(), &mut out, &mut len) };
    // SAFETY: the buffer was just returned by the library, with its length.
    let text = unsafe { String::from_utf8_lossy(std::slice::from_raw_parts(out, len)).into_owned() };
    // SAFETY: freed once, as returned.
    assert_eq!(unsafe { crate::capi::durable_journal_free_buffer(out, len) }, 0);
    if status == 0 {
        Ok(text)
    } else {
        assert!(!text.is_empty(), "an error without a message (code {status})");
        Err(status)
    }
}

/// A log that acknowledges everything, for [`log_store_records`].
struct NullLog(Vec<u64>);

impl LogSink for NullLog {
    fn submit(&mut self, records: &[LogRecord]) -> crate::Result<Box<dyn Acknowledgement>> {
        let offsets = records
            .iter()
            .map(|r| {
                let next = &mut self.0[r.partition as usize];
                *next += 1;
                *next - 1
            })
            .collect();
        Ok(Box::new(Acknowledged(Ok(offsets))))
    }

    fn end_offsets(&mut self) -> crate::Result<Vec<u64>> {
        Ok(self.0.clone())
    }

    fn name(&self) -> &str {
        "fuzz log"
    }
}

fn take_chunk(input: &[u8]) -> Option<(&[u8], &[u8])> {
    if input.len() < 2 {
        return None;
    }
    let len = usize::from(u16::from_le_bytes([input[0], input[1]]));
    let rest = &input[2..];
    (rest.len() >= len).then(|| rest.split_at(len))
}

fn segment_from_input(data: &[u8]) -> Vec<u8> {
    let flags = data.first().copied().unwrap_or(0);
    let snapshot_records = u64::from(data.get(1).copied().unwrap_or(0));
    let body = data.get(2..).unwrap_or(&[]);
    let version = if flags & 1 != 0 { 1 } else { 2 };
    if flags & 4 != 0 {
        return body.to_vec();
    }
    let mut segment = segment_header_bytes(version, [9; 16], 1, 0, snapshot_records);
    if flags & 2 != 0 {
        segment.extend_from_slice(body);
        return segment;
    }
    let header_len = segment.len() as u64;
    let mut rest = body;
    while !rest.is_empty() {
        match take_chunk(rest) {
            Some((payload, after)) if !payload.is_empty() => {
                let offset = segment.len() as u64 - header_len;
                segment.extend_from_slice(&crate::store::file::frame_bytes(version, payload, offset));
                rest = after;
            }
            _ => {
                segment.extend_from_slice(rest);
                break;
            }
        }
    }
    segment
}

fn encode_record(decoded: &Record) -> Vec<u8> {
    match decoded {
        Record::Put { key, state } => record::encode_put(key, state),
        Record::Change { key, change } => record::encode_change(key, change.as_change()),
        Record::Extend { key, extension } => record::encode_extend(key, extension),
        Record::Discard { business_key, after_seq } => record::encode_discard(business_key, *after_seq),
        Record::Prune { business_key, seq_up_to } => record::encode_prune(business_key, *seq_up_to),
    }
}

/// A directory of this process's own (fuzzers run one input at a time per
/// process), on tmpfs when there is one: the store targets write files.
fn scratch_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let base = if Path::new("/dev/shm").is_dir() { PathBuf::from("/dev/shm") } else { std::env::temp_dir() };
        let dir = base.join(format!("durable-journal-fuzz-{}", std::process::id()));
        fs::create_dir_all(&dir).expect("create the fuzz scratch directory");
        let _ = fs::File::create(dir.join("README")).and_then(|mut f| f.write_all(b"scratch files of a fuzz run\n"));
        dir
    })
}

/// Seed inputs per target, built with the library's own encoders so the
/// fuzzer starts from records the stores really write (`fuzz/write_seeds.rs`
/// writes them; `call_trees` are the shared identity vectors' trees).
pub fn seeds(call_trees: &[Vec<u8>]) -> Vec<(&'static str, Vec<u8>)> {
    use crate::journal::JournalChange;
    use crate::model::{CallResult, Outcome};

    let mut seeds: Vec<(&'static str, Vec<u8>)> = Vec::new();
    let json_states: [&[u8]; 5] = [
        br#"{"taskEvent":{"@class":"org.apache.flink.agents.api.InputEvent","id":"9e8b","attributes":{},"input":"hi"},"sensoryMemoryUpdates":[],"shortTermMemoryUpdates":[{"path":"a.b","value":0.12073605139050847}],"outputEvents":[],"callResults":[{"functionId":"tool-call:x","argsDigest":"","resultPayload":"ImEi","exceptionPayload":null,"status":"SUCCEEDED"},{"functionId":"chat","argsDigest":"","resultPayload":null,"exceptionPayload":"eyJ4Ijp0cnVlfQ==","status":"FAILED"},{"functionId":"m.f::0011223344556677","argsDigest":"ab","resultPayload":null,"exceptionPayload":null,"status":"PENDING"}],"completed":false}"#,
        br#"{"taskEvent":null,"sensoryMemoryUpdates":[],"shortTermMemoryUpdates":[],"outputEvents":[{"@class":"x.Out","output":[1e400,-0.0,18446744073709551616,"\uD83D"]}],"callResults":[],"completed":true}"#,
        br#"{"callResults":[{"functionId":null,"resultPayload":"","exceptionPayload":null}],"extra":{"nested":[[[]]]}}"#,
        br#"{}"#,
        br#"{"taskEvent":"\u00e9\u4e2d\ud83c\udf0d","callResults":[{"functionId":"\ud800x","argsDigest":"\udfff","status":"SUCCEEDED","resultPayload":"AAEC"}]}"#,
    ];
    for state in json_states {
        seeds.push(("action_state_json", state.to_vec()));
    }

    let keys = [
        StateKey::new(BusinessKey::Str("user_1".into()), 3, "reply", EventIdentity::Occurrence("occ:1".into())),
        StateKey::new(BusinessKey::Long(-7), 0, "triage", EventIdentity::Occurrence("occ:2".into())),
        StateKey::new(BusinessKey::Typed { type_name: "org.Row".into(), bytes: vec![1, 2] }, 9, "a", EventIdentity::Occurrence("occ:3".into())),
    ];
    let state = ActionState::from_json(json_states[0]).expect("seed state");
    let ok = CallResult::completed("tool-call:x", Outcome::success(Some(b"\"a\"".to_vec())));
    let failed = CallResult::completed("chat", Outcome::failure(b"{\"exceptionClass\":\"E\"}".to_vec()));
    let batch = vec![CallResult::pending("b1"), CallResult::pending("b2")];
    let extension = crate::store::diff::StateExtension {
        calls_from: 0,
        calls: std::borrow::Cow::Borrowed(&batch),
        sensory_memory_updates: std::borrow::Cow::Borrowed(&[]),
        short_term_memory_updates: std::borrow::Cow::Borrowed(&state.short_term_memory_updates),
        output_events: std::borrow::Cow::Borrowed(&[]),
        completed: true,
    };
    let mut records = vec![
        record::encode_put(&keys[0], &state),
        record::encode_put(&keys[1], &ActionState::default()),
        record::encode_change(&keys[1], JournalChange::Put { index: 0, slot: &CallResult::pending("tool-call:x") }),
        record::encode_change(&keys[1], JournalChange::Replace { index: 0, slot: &ok }),
        record::encode_change(&keys[1], JournalChange::PutBatch { from: 1, slots: &batch }),
        record::encode_change(&keys[1], JournalChange::Replace { index: 2, slot: &failed }),
        record::encode_change(&keys[1], JournalChange::Truncate { from: 2 }),
        record::encode_change(&keys[1], JournalChange::Complete),
        record::encode_put(&keys[2], &ActionState::default()),
        record::encode_discard(&BusinessKey::Str("user_1".into()), 5),
        record::encode_prune(&BusinessKey::Long(-7), 0),
    ];
    records.insert(9, record::encode_extend(&keys[2], &extension));
    for payload in &records {
        seeds.push(("store_record", payload.clone()));
    }

    for version in [2u32, 1] {
        let mut frames = vec![if version == 1 { 1 } else { 0 }];
        let mut offset = 0u64;
        for payload in &records {
            let frame = crate::store::file::frame_bytes(version, payload, offset);
            offset += frame.len() as u64;
            frames.extend_from_slice(&frame);
        }
        seeds.push(("store_frames", frames));
    }

    let chunked = |payloads: &[Vec<u8>]| -> Vec<u8> {
        let mut out = Vec::new();
        for payload in payloads {
            out.extend_from_slice(&(payload.len() as u16).to_le_bytes());
            out.extend_from_slice(payload);
        }
        out
    };
    for (flags, payloads) in [(0u8, &records[..]), (1, &records[..]), (0, &records[..4])] {
        let mut input = vec![flags, 0];
        input.extend_from_slice(&chunked(payloads));
        seeds.push(("open_file_store", input));
    }
    let mut torn = vec![0u8, 0];
    torn.extend_from_slice(&chunked(&records[..3]));
    torn.extend_from_slice(&[40, 0, 1, 2, 3]);
    seeds.push(("open_file_store", torn));

    let mut log = Vec::new();
    for (ordinal, (key, payload)) in
        [(&keys[1], &records[1]), (&keys[1], &records[2]), (&keys[1], &records[3]), (&keys[1], &records[4])].into_iter().enumerate()
    {
        let mut suffix = key.encode();
        suffix.extend_from_slice(&(ordinal as u64).to_le_bytes());
        log.push(5u8);
        log.extend_from_slice(&(suffix.len() as u16).to_le_bytes());
        log.extend_from_slice(&suffix);
        log.extend_from_slice(&(payload.len() as u16).to_le_bytes());
        log.extend_from_slice(payload);
    }
    seeds.push(("log_store_records", log.clone()));
    let mut with_tombstone = log;
    let mut suffix = keys[1].encode();
    suffix.extend_from_slice(&0u64.to_le_bytes());
    with_tombstone.push(0x85);
    with_tombstone.extend_from_slice(&(suffix.len() as u16).to_le_bytes());
    with_tombstone.extend_from_slice(&suffix);
    with_tombstone.extend_from_slice(&0u16.to_le_bytes());
    seeds.push(("log_store_records", with_tombstone));

    for tree in call_trees {
        seeds.push(("canonical_value", tree.clone()));
    }
    seeds
}
