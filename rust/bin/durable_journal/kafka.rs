//! `list`, `show` and `verify` over a Kafka store's records (a dump from
//! `KafkaJournalTool dump`): every lineage in the topic, its live entries
//! rebuilt as a restore would, and the records a restore could not use.

use std::fs::File;
use std::io::Read;
use std::process::ExitCode;

use durable_journal::store::log::inspect::{self, InspectedLog};
use durable_journal::store::log::retention::read_retained_records;
use durable_journal::store::InspectedEntry;
use durable_journal::Error;

use super::{render, status, Outcome};

fn read_records(dump: &str) -> Result<Vec<inspect::DumpedRecord>, Error> {
    let input: Box<dyn Read> = if dump == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        Box::new(File::open(dump).map_err(|e| Error::InvalidArgument(format!("cannot open {dump}: {e}")))?)
    };
    inspect::read_dump(input)
}

fn read(dump: &str) -> Result<InspectedLog, Error> {
    Ok(inspect::inspect_records(&read_records(dump)?))
}

/// The retained copies in a dump of a retained topic (`KafkaJournalTool dump --retained`).
pub fn retained(dump: &str) -> Outcome {
    let retained = read_retained_records(&read_records(dump)?)?;
    println!("{} retained in {}", render::retained_count(retained.len()), describe(dump));
    print!("{}", render::retained_table(&retained));
    Ok(ExitCode::SUCCESS)
}

fn describe(dump: &str) -> &str {
    if dump == "-" {
        "the piped dump"
    } else {
        dump
    }
}

/// How many lineages the dump holds and how many live entries in all.
fn lineage_counts(log: &InspectedLog) -> String {
    let live: usize = log.lineages.iter().map(|l| l.entries.len()).sum();
    format!("{} lineage(s), {} live", log.lineages.len(), render::entries(live))
}

pub fn list(dump: &str) -> Outcome {
    let log = read(dump)?;
    println!("{}: {} records, {}", describe(dump), log.records, lineage_counts(&log));
    let mut first = 1;
    for lineage in &log.lineages {
        let last: Vec<String> = lineage.last_offsets.iter().map(|(p, o)| format!("{p}@{o}")).collect();
        println!(
            "\nlineage {}: {}, {} records ({} tombstones), newest record per partition {}",
            lineage.lineage,
            render::entries(lineage.entries.len()),
            lineage.records,
            lineage.tombstones,
            last.join(" ")
        );
        if !lineage.entries.is_empty() {
            print!("{}", render::entry_table_from(&lineage.entries, first));
        }
        first += lineage.entries.len();
    }
    if !log.problems.is_empty() {
        eprintln!("note: {} record(s) a restore cannot use; `verify` lists them", log.problems.len());
    }
    Ok(ExitCode::SUCCESS)
}

pub fn show(dump: &str, selector: &str, redact: bool) -> Outcome {
    let log = read(dump)?;
    let all: Vec<InspectedEntry> = log
        .lineages
        .iter()
        .flat_map(|l| l.entries.iter().map(|e| InspectedEntry { key: e.key.clone(), state: e.state.clone(), log_bytes: e.log_bytes }))
        .collect();
    let chosen = render::select(&all, selector);
    if chosen.is_empty() {
        eprintln!("durable-journal: no entry {selector:?} in {} ({}; `list` shows their # and keys)", describe(dump), render::entries(all.len()));
        return Ok(ExitCode::from(status::ERROR));
    }
    let shown: Vec<String> = chosen.into_iter().map(|(number, entry)| render::entry_detail(number, entry, redact)).collect();
    print!("{}", shown.join("\n"));
    Ok(ExitCode::SUCCESS)
}

pub fn verify(dump: &str) -> Outcome {
    let log = read(dump)?;
    for problem in &log.problems {
        println!("corrupt: partition {} offset {}: {}", problem.partition, problem.offset, problem.reason);
    }
    if !log.problems.is_empty() {
        return Ok(ExitCode::from(status::CORRUPT));
    }
    println!("ok: {}: {} records, every one usable by a restore; {}", describe(dump), log.records, lineage_counts(&log));
    Ok(ExitCode::SUCCESS)
}
