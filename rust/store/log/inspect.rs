//! A log-backed store's records read for people: what `durable-journal
//! list`, `show` and `verify` print for a Kafka topic. The Kafka jar's
//! `KafkaJournalTool dump` reads the topic (assigned partitions, no
//! consumer group, nothing committed) and writes its records in the framing
//! below; this module rebuilds every lineage's live entries from them, as a
//! restore would, and notes every record a restore could not use.
//!
//! Dump framing: `DJKD`, version 1, then per record: partition u32, offset
//! u64, key length u32, key, value length i32 (-1 for a tombstone), value;
//! integers little-endian.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::Read;

use super::layout::Lineage;
use super::record_key;
use crate::error::{Error, Result};
use crate::store::codec::{DecodeResult, Reader, Writer};
use crate::store::record::{self, Record};
use crate::store::file::InspectedEntry;
use crate::store::table::StateTable;

const MAGIC: &[u8; 4] = b"DJKD";
const VERSION: u8 = 1;

/// One record as the dump holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DumpedRecord {
    pub partition: u32,
    pub offset: u64,
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

/// The value length of a tombstone.
const TOMBSTONE: i32 = -1;

/// Encodes records in the dump framing (what the Java tool writes; for tests).
pub fn encode_dump(records: &[DumpedRecord]) -> Vec<u8> {
    let mut w = Writer::new();
    w.raw(MAGIC);
    w.u8(VERSION);
    for r in records {
        w.u32(r.partition);
        w.u64(r.offset);
        w.bytes(&r.key);
        match &r.value {
            Some(value) => w.i32(i32::try_from(value.len()).expect("a Kafka record value is smaller than 2 GiB")),
            None => w.i32(TOMBSTONE),
        }
        w.raw(r.value.as_deref().unwrap_or_default());
    }
    w.into_bytes()
}

/// Reads a dump to its end.
pub fn read_dump(mut input: impl Read) -> Result<Vec<DumpedRecord>> {
    let mut bytes = Vec::new();
    input.read_to_end(&mut bytes).map_err(|e| Error::InvalidArgument(format!("reading the dump failed: {e}")))?;
    let refuse = |why: String| Error::InvalidArgument(format!("not a Kafka journal dump (KafkaJournalTool dump): {why}"));
    if bytes.len() < 5 || &bytes[..4] != MAGIC {
        return Err(refuse("it does not start with DJKD".into()));
    }
    if bytes[4] != VERSION {
        return Err(refuse(format!("unsupported version {}", bytes[4])));
    }
    let mut r = Reader::new(&bytes);
    r.raw(5).expect("the magic and version were checked above");
    let mut records = Vec::new();
    while !r.is_at_end() {
        records.push(read_record(&mut r).map_err(|e| refuse(format!("cut short: {e}")))?);
    }
    Ok(records)
}

fn read_record(r: &mut Reader<'_>) -> DecodeResult<DumpedRecord> {
    let partition = r.u32()?;
    let offset = r.u64()?;
    let key = r.bytes()?.to_vec();
    let value = match r.i32()? {
        len if len < 0 => None,
        len => Some(r.raw(len as usize)?.to_vec()),
    };
    Ok(DumpedRecord { partition, offset, key, value })
}

/// A record a restore could not use: where it is and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogProblem {
    pub partition: u32,
    pub offset: u64,
    pub reason: String,
}

/// One job history in the topic.
pub struct InspectedLineage {
    pub lineage: Lineage,
    /// Its live entries, in key order, as a restore would rebuild them.
    pub entries: Vec<InspectedEntry>,
    /// Its records, tombstones included, and the tombstones alone.
    pub records: u64,
    pub tombstones: u64,
    pub partitions: BTreeSet<u32>,
    /// The newest offset of its records, per partition.
    pub last_offsets: BTreeMap<u32, u64>,
}

/// Every lineage of the dump, and what could not be read.
pub struct InspectedLog {
    pub lineages: Vec<InspectedLineage>,
    pub records: u64,
    pub problems: Vec<LogProblem>,
}

struct LineageState {
    table: StateTable,
    records: u64,
    tombstones: u64,
    partitions: BTreeSet<u32>,
    last_offsets: BTreeMap<u32, u64>,
}

/// Rebuilds every lineage's entries from `records` (in log order per partition).
pub fn inspect_records(records: &[DumpedRecord]) -> InspectedLog {
    let mut lineages: BTreeMap<[u8; 16], LineageState> = BTreeMap::new();
    let mut problems = Vec::new();
    // A delta whose entry is missing is a problem unless its own tombstone follows (a pruned
    // entry that compaction has partly removed).
    let mut orphans: HashMap<Vec<u8>, LogProblem> = HashMap::new();
    for r in records {
        let problem = |reason: String| LogProblem { partition: r.partition, offset: r.offset, reason };
        let (lineage, _key_group) = match record_key::prefix(&r.key) {
            Ok(prefix) => prefix,
            Err(e) => {
                problems.push(problem(format!("not a journal record key: {e}")));
                continue;
            }
        };
        let state = lineages.entry(lineage.0).or_insert_with(|| LineageState {
            table: StateTable::default(),
            records: 0,
            tombstones: 0,
            partitions: BTreeSet::new(),
            last_offsets: BTreeMap::new(),
        });
        state.records += 1;
        state.partitions.insert(r.partition);
        state.last_offsets.insert(r.partition, r.offset);
        let (key, _ordinal) = match record_key::entry(&r.key) {
            Ok(entry) => entry,
            Err(e) => {
                problems.push(problem(format!("record key: {e}")));
                continue;
            }
        };
        let Some(value) = &r.value else {
            state.tombstones += 1;
            state.table.remove(&key);
            orphans.remove(&r.key);
            continue;
        };
        let bytes = (r.key.len() + value.len()) as u64;
        match record::decode(value) {
            Ok(Record::Put { key: stored, state: action }) if stored == key => state.table.put(&key, action, bytes),
            Ok(Record::Change { key: stored, change }) if stored == key => {
                if state.table.get(&key).is_none() {
                    orphans.insert(r.key.clone(), problem(format!("a delta of {key:?} without its entry (its put is missing)")));
                } else if let Err(e) = state.table.apply(&key, change.as_change(), bytes) {
                    problems.push(problem(format!("a delta that does not fit its entry: {e}")));
                }
            }
            Ok(other) => problems.push(problem(format!("a record of another entry or kind under this key: {other:?}"))),
            Err(e) => problems.push(problem(format!("the record does not decode: {e}"))),
        }
    }
    problems.extend(orphans.into_values());
    problems.sort_by_key(|p| (p.partition, p.offset));
    InspectedLog {
        lineages: lineages
            .into_iter()
            .map(|(lineage, state)| InspectedLineage {
                lineage: Lineage(lineage),
                entries: state
                    .table
                    .sorted_entries()
                    .into_iter()
                    .map(|(key, entry)| InspectedEntry { key, state: entry.state.clone(), log_bytes: entry.log_bytes })
                    .collect(),
                records: state.records,
                tombstones: state.tombstones,
                partitions: state.partitions,
                last_offsets: state.last_offsets,
            })
            .collect(),
        records: records.len() as u64,
        problems,
    }
}
