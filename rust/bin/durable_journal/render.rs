//! Text for people: keys as `list` prints them (and `show` accepts them),
//! aligned tables, payload previews.

use durable_journal::store::file::TornTail;
use durable_journal::store::{BusinessKey, EventIdentity, InspectedEntry, InspectedStore, RetainedAction, StateKey};
use durable_journal::CallResult;
use sha2::{Digest, Sha256};

/// Characters of a payload shown by `show`.
const PREVIEW_CHARS: usize = 40;

/// Text as is, except control characters, which are escaped (`\n`,
/// `\u{1b}`) so that one value stays on one line of the table.
fn printable(text: &str) -> String {
    text.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The business key with its type: `str:user-1`, `long:42`, `int:7`,
/// `bytes:0a0b`, `typed:<class>:<hex>`.
pub fn business_key(key: &BusinessKey) -> String {
    match key {
        BusinessKey::Str(s) => format!("str:{}", printable(s)),
        BusinessKey::Long(v) => format!("long:{v}"),
        BusinessKey::Int(v) => format!("int:{v}"),
        BusinessKey::Bytes(b) => format!("bytes:{}", hex(b)),
        BusinessKey::Typed { type_name, bytes } => format!("typed:{}:{}", printable(type_name), hex(bytes)),
    }
}

pub fn event(event: &EventIdentity) -> String {
    match event {
        EventIdentity::Occurrence(id) => format!("occ:{}", printable(id)),
        EventIdentity::Attributes(digest) => format!("attrs:{}", hex(digest)),
    }
}

/// Columns padded to their widest cell; the last one is not padded.
fn table(rows: &[Vec<String>]) -> String {
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|c| rows.iter().filter_map(|r| r.get(c)).map(|s| s.chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let last = row.len().saturating_sub(1);
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| if c == last { cell.clone() } else { format!("{cell:<width$}", width = widths[c]) })
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

pub fn entries(n: usize) -> String {
    format!("{n} {}", if n == 1 { "entry" } else { "entries" })
}

pub fn summary(store: &InspectedStore) -> String {
    format!(
        "store {} (format {}, generation {}, position {}): {} in {}\n",
        store.store_id,
        store.format_version,
        store.generation,
        store.position,
        entries(store.entries.len()),
        store.segment.display()
    )
}

fn yes_no(value: bool) -> String {
    if value { "yes" } else { "no" }.to_string()
}

pub fn entry_table(entries: &[InspectedEntry]) -> String {
    entry_table_from(entries, 1)
}

/// The table with its `#` starting at `first` (entries of several lineages numbered as one list).
pub fn entry_table_from(entries: &[InspectedEntry], first: usize) -> String {
    let mut rows =
        vec![["#", "key", "seq", "action", "event", "calls", "completed", "bytes"].map(String::from).to_vec()];
    for (i, entry) in entries.iter().enumerate() {
        let StateKey { business_key: key, seq, action, event: ev } = &entry.key;
        rows.push(vec![
            (i + first).to_string(),
            business_key(key),
            seq.to_string(),
            printable(action),
            event(ev),
            entry.state.call_results.len().to_string(),
            yes_no(entry.state.completed),
            entry.log_bytes.to_string(),
        ]);
    }
    table(&rows)
}

pub fn retained_count(n: usize) -> String {
    format!("{n} completed {}", if n == 1 { "action" } else { "actions" })
}

/// The retained actions, oldest first: `#` is the store's completion number.
pub fn retained_table(retained: &[RetainedAction]) -> String {
    let header = ["#", "key", "seq", "action", "event", "calls", "outputs", "completed-at-ms", "plan"];
    let mut rows = vec![header.map(String::from).to_vec()];
    for action in retained {
        let StateKey { business_key: key, seq, action: name, event: ev } = &action.key;
        rows.push(vec![
            action.number.to_string(),
            business_key(key),
            seq.to_string(),
            printable(name),
            event(ev),
            action.state.call_results.len().to_string(),
            action.state.output_events.len().to_string(),
            action.completed_at_millis.to_string(),
            action.plan_digest.as_deref().map_or_else(|| "-".to_string(), printable),
        ]);
    }
    table(&rows)
}

/// The entries `selector` names, with their `#`: one number from `list`, or
/// every entry of a business key written as `list` prints it.
pub fn select<'e>(entries: &'e [InspectedEntry], selector: &str) -> Vec<(usize, &'e InspectedEntry)> {
    let numbered = entries.iter().enumerate().map(|(i, e)| (i + 1, e));
    match selector.parse::<usize>() {
        Ok(number) => numbered.filter(|(n, _)| *n == number).collect(),
        Err(_) => numbered.filter(|(_, e)| business_key(&e.key.business_key) == selector).collect(),
    }
}

/// Up to [`PREVIEW_CHARS`] characters of text, or the first bytes in hex.
fn preview(payload: &[u8]) -> String {
    match std::str::from_utf8(payload) {
        Ok(text) => {
            let shown: String = text.chars().take(PREVIEW_CHARS).collect();
            let cut = if shown.len() < text.len() { "…" } else { "" };
            format!("{}{cut}", printable(&shown))
        }
        Err(_) => {
            let cut = if payload.len() > PREVIEW_CHARS / 2 { "…" } else { "" };
            format!("0x{}{cut}", hex(&payload[..payload.len().min(PREVIEW_CHARS / 2)]))
        }
    }
}

/// What `show --redact` prints instead of a preview: the payload's SHA-256
/// (its first 8 bytes), which tells equal payloads apart from different ones
/// without showing either.
fn digest(payload: &[u8]) -> String {
    format!("sha256:{}…", hex(&Sha256::digest(payload)[..8]))
}

/// The `exceptionClass` of a failure payload as the Java binding writes it
/// (`{"exceptionClass": ..., "message": ...}`).
fn exception_class(payload: &[u8]) -> String {
    let class = serde_json::from_slice::<serde_json::Value>(payload)
        .ok()
        .and_then(|v| v.get("exceptionClass").and_then(|c| c.as_str()).map(String::from));
    class.unwrap_or_else(|| format!("({} bytes, no exceptionClass)", payload.len()))
}

/// The id as text; a null id (Flink Agents' callables without one) and an id
/// holding a lone surrogate are shown by what they are, not as a guess.
fn call_id_text(call: &CallResult) -> String {
    match &call.call_id {
        None => "(null id)".to_string(),
        Some(id) => match id.as_str() {
            Some(text) => printable(text),
            None => {
                let mut json = String::new();
                id.write_json(&mut json);
                format!("{json} (lone surrogate)")
            }
        },
    }
}

fn call_row(index: usize, call: &CallResult, redact: bool) -> Vec<String> {
    let (size, shown) = match &call.result_payload {
        Some(payload) => (format!("{} B", payload.len()), if redact { digest(payload) } else { preview(payload) }),
        None => ("null".to_string(), String::new()),
    };
    let exception = call.exception_payload.as_deref().map(exception_class).unwrap_or_default();
    vec![
        index.to_string(),
        call_id_text(call),
        call.effective_status().as_str().to_string(),
        size,
        shown,
        exception,
    ]
}

/// One entry and its calls; `redact` shows each payload's size and digest
/// instead of its first characters (`show --redact`).
pub fn entry_detail(number: usize, entry: &InspectedEntry, redact: bool) -> String {
    let StateKey { business_key: key, seq, action, event: ev } = &entry.key;
    let mut out = format!(
        "entry {number}: key {}, seq {seq}, action {}, event {}\ncompleted: {}, calls: {}, bytes: {}\n",
        business_key(key),
        printable(action),
        event(ev),
        yes_no(entry.state.completed),
        entry.state.call_results.len(),
        entry.log_bytes
    );
    if !entry.state.call_results.is_empty() {
        let shown = if redact { "digest" } else { "preview" };
        let mut rows = vec![["#", "id", "status", "payload", shown, "exception"].map(String::from).to_vec()];
        rows.extend(entry.state.call_results.iter().enumerate().map(|(i, call)| call_row(i, call, redact)));
        out.push_str(&table(&rows));
    }
    out
}

pub fn verified(store: &InspectedStore) -> String {
    format!(
        "{}: format {}, {} records, {} bytes, every record intact; {}, position {}",
        store.segment.display(),
        store.format_version,
        store.records,
        store.intact_bytes,
        entries(store.entries.len()),
        store.position
    )
}

pub fn torn_tail(torn: &TornTail) -> String {
    format!(
        "{} at offset {}: {} bytes after the last intact record ({}); a write cut short by a crash, or one in \
         progress; the next open of the store drops them",
        torn.path.display(),
        torn.offset,
        torn.bytes,
        torn.reason
    )
}
