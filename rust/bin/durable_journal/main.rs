//! `durable-journal`: looks into a file store directory, or a Kafka store's
//! topic, for operators.
//!
//! `list`, `show` and `verify` read the store with `FileStore::inspect`: no
//! lock, no change to any file, so they are safe beside the job that holds
//! the store. Given a file (or `-`, standard input) instead of a directory,
//! they read a Kafka topic's records as the Kafka jar's `KafkaJournalTool
//! dump` wrote them (`store::log::inspect`), every lineage (job history) in
//! it. `compact` opens the store, so it takes the lock and is refused
//! while a job holds it. All the reading is in the library (`rust/store`);
//! this binary parses arguments and formats.

mod kafka;
mod render;

use std::path::Path;
use std::process::ExitCode;

use durable_journal::store::{ActionStateStore, FileStore, FileStoreOptions, InspectedStore, PermissionCheck};
use durable_journal::Error;

const USAGE: &str = "\
usage: durable-journal <command> <store-dir | kafka-dump | -> [entry]

  list    <store-dir>          the entries: key, sequence number, action, event, calls, completed, bytes
  show    [--redact] <store-dir> <entry>
                               each call of an entry (its # from list, or its key as list prints it)
                               with the first characters of each payload: user data (prompts,
                               model answers, tool results); --redact prints sizes and digests instead
  verify  <store-dir>          checks every record of the live segment
  compact [--permissions refuse|warn|tighten] <store-dir>
                               rewrites the live entries (takes the store's lock); a directory that
                               group or others can reach is refused unless --permissions says
                               warn (open it as it is) or tighten (make it 0700, its files 0600)
  retained <store-dir>         the completed actions the store retains for replays
                               (FileStoreOptions retention; docs/replay.md)

list, show and verify neither lock nor change the store; compact is refused
while a job holds it. For a Kafka store, give them the topic's records, as
KafkaJournalTool dump writes them (a file, or - to read them piped):

  java -cp '<jars>' io.durablejournal.kafka.KafkaJournalTool dump <servers> <topic> | durable-journal list -

(dump --config <client.properties> <servers> <topic> for a secured cluster; a dump
written to a file is created 0600: it holds every journal of the topic)

list then shows each lineage (job history) and its live entries; verify
checks that every record is one a restore can use. retained lists the copies
in a dump of a Kafka store's retained topic (KafkaJournalTool dump --retained).

exit status: 0 ok, 1 error, 2 usage, 3 torn tail (verify), 4 corruption";

/// Exit statuses, so scripts can tell what `verify` found.
mod status {
    pub const ERROR: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const TORN_TAIL: u8 = 3;
    pub const CORRUPT: u8 = 4;
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let outcome = match args.as_slice() {
        ["list", dump] if is_dump(dump) => kafka::list(dump),
        ["show", dump, entry] if is_dump(dump) => kafka::show(dump, entry, false),
        ["show", "--redact", dump, entry] if is_dump(dump) => kafka::show(dump, entry, true),
        ["verify", dump] if is_dump(dump) => kafka::verify(dump),
        ["list", dir] => list(Path::new(dir)),
        ["show", "--redact", dir, entry] => show(Path::new(dir), entry, true),
        ["show", dir, entry] => show(Path::new(dir), entry, false),
        ["verify", dir] => verify(Path::new(dir)),
        ["compact", dir] => compact(Path::new(dir), PermissionCheck::Refuse),
        ["compact", "--permissions", check, dir] => match permission_check(check) {
            Some(check) => compact(Path::new(dir), check),
            None => {
                eprintln!("durable-journal: --permissions takes refuse, warn or tighten, not {check:?}");
                return ExitCode::from(status::USAGE);
            }
        },
        ["retained", dump] if is_dump(dump) => kafka::retained(dump),
        ["retained", dir] => retained(Path::new(dir)),
        ["help" | "--help" | "-h"] => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(status::USAGE);
        }
    };
    match outcome {
        Ok(code) => code,
        Err(err) => {
            eprintln!("durable-journal: {err}");
            ExitCode::from(if matches!(err, Error::StoreCorrupt { .. }) { status::CORRUPT } else { status::ERROR })
        }
    }
}

type Outcome = Result<ExitCode, Error>;

/// A Kafka dump: standard input (`-`) or a file; a store is a directory.
fn is_dump(path: &str) -> bool {
    path == "-" || Path::new(path).is_file()
}

fn permission_check(name: &str) -> Option<PermissionCheck> {
    match name {
        "refuse" => Some(PermissionCheck::Refuse),
        "warn" => Some(PermissionCheck::Warn),
        "tighten" => Some(PermissionCheck::Tighten),
        _ => None,
    }
}

/// Reading changes nothing, so a store others can reach is read, with a note.
fn note_exposure(dir: &Path) -> Result<(), Error> {
    if let Some(mode) = FileStore::exposed_mode(dir)? {
        eprintln!("note: {}", FileStore::exposure_warning(dir, mode));
    }
    Ok(())
}

fn inspect(dir: &Path) -> Result<InspectedStore, Error> {
    let store = FileStore::inspect(dir)?;
    note_exposure(dir)?;
    if let Some(torn) = &store.torn_tail {
        eprintln!("note: torn tail: {}", render::torn_tail(torn));
    }
    Ok(store)
}

fn list(dir: &Path) -> Outcome {
    let store = inspect(dir)?;
    print!("{}", render::summary(&store));
    print!("{}", render::entry_table(&store.entries));
    Ok(ExitCode::SUCCESS)
}

fn show(dir: &Path, selector: &str, redact: bool) -> Outcome {
    let store = inspect(dir)?;
    let chosen = render::select(&store.entries, selector);
    if chosen.is_empty() {
        eprintln!(
            "durable-journal: no entry {selector:?} in {} ({}; `list` shows their # and keys)",
            dir.display(),
            render::entries(store.entries.len())
        );
        return Ok(ExitCode::from(status::ERROR));
    }
    let shown: Vec<String> = chosen.into_iter().map(|(number, entry)| render::entry_detail(number, entry, redact)).collect();
    print!("{}", shown.join("\n"));
    Ok(ExitCode::SUCCESS)
}

fn verify(dir: &Path) -> Outcome {
    let store = match FileStore::inspect(dir) {
        Ok(store) => store,
        Err(Error::StoreCorrupt { path, offset, reason }) => {
            println!("corrupt: {} at offset {offset}: {reason}", path.display());
            return Ok(ExitCode::from(status::CORRUPT));
        }
        Err(other) => return Err(other),
    };
    note_exposure(dir)?;
    for leftover in &store.leftovers {
        println!("leftover: {} (the next open of the store removes it)", leftover.display());
    }
    match &store.torn_tail {
        None => {
            println!("ok: {}", render::verified(&store));
            Ok(ExitCode::SUCCESS)
        }
        Some(torn) => {
            println!("torn tail: {}", render::torn_tail(torn));
            Ok(ExitCode::from(status::TORN_TAIL))
        }
    }
}

fn retained(dir: &Path) -> Outcome {
    let retained = FileStore::inspect_retained(dir)?;
    println!("{} retained in {}", render::retained_count(retained.len()), dir.display());
    print!("{}", render::retained_table(&retained));
    Ok(ExitCode::SUCCESS)
}

fn compact(dir: &Path, permissions: PermissionCheck) -> Outcome {
    let mut store = FileStore::open_with(dir, FileStoreOptions { permissions, ..Default::default() })?;
    if let Some(warning) = store.permission_warning() {
        eprintln!("note: {warning}");
    }
    let before = store.stats()?;
    store.compact()?;
    let after = store.stats()?;
    let segment = store.segment_path()?;
    store.close()?;
    println!(
        "compacted {}: {}, {} -> {} bytes, now {}",
        dir.display(),
        render::entries(after.entries),
        before.segment_bytes,
        after.segment_bytes,
        segment.display()
    );
    Ok(ExitCode::SUCCESS)
}
