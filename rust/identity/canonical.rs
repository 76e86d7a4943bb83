//! The canonical encoding of call arguments (spec §3, `docs/identity.md`).
//!
//! Python and Java do not hash anything: they turn native values into a
//! *tagged tree* (JSON, one tag per value) and hand it over. This module
//! checks the tree, builds [`Value`]s, encodes them into a self-delimiting
//! byte string that does not depend on insertion order or on the process,
//! and hashes that with SHA-256.

use std::fmt;

use serde_json::Value as Json;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

mod tree;
pub use tree::{parse_call_tree, parse_value_tree};
use tree::check_canonical_decimal;

/// Domain tag hashed in front of the encoded `(args, kwargs)`, so an args
/// digest can never equal any other hash this library computes.
pub const ARGS_DIGEST_DOMAIN: &str = "durable-journal:args-digest:v1";

/// Containers nested deeper than this have no canonical form here: the
/// marshallers and the JSON reader both need a bound, and real call
/// arguments are nowhere near it.
pub const MAX_NESTING: usize = 32;

/// One argument value in canonical form.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    None,
    Bool(bool),
    /// Canonical decimal: `0`, or an optional `-` and digits without a
    /// leading zero. Any size.
    Int(String),
    /// Any IEEE-754 double except NaN; `-0.0` differs from `0.0`.
    Float(f64),
    Str(String),
    Bytes(Vec<u8>),
    List(Vec<Value>),
    Tuple(Vec<Value>),
    /// Entries in any order; keys must have distinct encodings.
    Dict(Vec<(Value, Value)>),
    /// Elements in any order; they must have distinct encodings.
    Set(Vec<Value>),
    /// A record compared by field values: a Python dataclass or pydantic
    /// model, or its Java counterpart. `type_name` is `module.qualname`.
    Object { type_name: String, fields: Vec<(String, Value)> },
}

impl Value {
    pub fn int(value: i64) -> Value {
        Value::Int(value.to_string())
    }

    pub fn str(value: impl Into<String>) -> Value {
        Value::Str(value.into())
    }
}

/// The arguments of one call: positional, then keyword (any order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallArgs {
    pub args: Vec<Value>,
    pub kwargs: Vec<(String, Value)>,
}

/// The 16 lowercase hex characters (first 8 bytes) of SHA-256 over
/// [`canonical_encoding`].
pub fn args_digest(call: &CallArgs) -> Result<String> {
    let hash = Sha256::digest(canonical_encoding(call)?);
    Ok(hex(&hash[..8]))
}

/// [`args_digest`] of a call tree `{"args": [...], "kwargs": {...}}`.
pub fn args_digest_from_tree(tree: &Json) -> Result<String> {
    args_digest(&parse_call_tree(tree)?)
}

/// The exact bytes the args digest hashes: the length-prefixed domain tag,
/// then `args` encoded as a tuple, then `kwargs` encoded as a dict with
/// string keys.
pub fn canonical_encoding(call: &CallArgs) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    out.extend_from_slice(&(ARGS_DIGEST_DOMAIN.len() as u64).to_be_bytes());
    out.extend_from_slice(ARGS_DIGEST_DOMAIN.as_bytes());

    let args_path = Path::root("args");
    let start = begin(&mut out, TAG_TUPLE);
    for (i, arg) in call.args.iter().enumerate() {
        encode_into(arg, &args_path.child(Seg::Index(i)), 1, &mut out)?;
    }
    finish(&mut out, start);

    let kwargs_path = Path::root("kwargs");
    let mut entries = Vec::with_capacity(call.kwargs.len());
    for (name, value) in &call.kwargs {
        let key = Value::Str(name.clone());
        let value_path = kwargs_path.child(Seg::DictValue(&key));
        let mut value_bytes = Vec::new();
        encode_into(value, &value_path, 1, &mut value_bytes)?;
        entries.push((encode_leaf(&key), value_bytes));
    }
    write_sorted_entries(&mut out, TAG_DICT, entries, &kwargs_path, "two keyword arguments have the same name")?;
    Ok(out)
}

// Tag bytes of the encoding. Printable ASCII so hex dumps are readable.
const TAG_NONE: u8 = b'N';
const TAG_BOOL: u8 = b'B';
const TAG_INT: u8 = b'I';
const TAG_FLOAT: u8 = b'F';
const TAG_STR: u8 = b'S';
const TAG_BYTES: u8 = b'Y';
const TAG_LIST: u8 = b'L';
const TAG_TUPLE: u8 = b'T';
const TAG_DICT: u8 = b'D';
const TAG_SET: u8 = b'E';
const TAG_OBJECT: u8 = b'O';

/// Writes the tag and a placeholder for the 8-byte length; returns where
/// the content starts, for [`finish`].
fn begin(out: &mut Vec<u8>, tag: u8) -> usize {
    out.push(tag);
    out.extend_from_slice(&[0; 8]);
    out.len()
}

/// Patches the length written by [`begin`] with the content's byte count.
fn finish(out: &mut [u8], content_start: usize) {
    let len = (out.len() - content_start) as u64;
    out[content_start - 8..content_start].copy_from_slice(&len.to_be_bytes());
}

fn encode_leaf(value: &Value) -> Vec<u8> {
    let mut out = Vec::new();
    encode_into(value, &Path::root(""), 0, &mut out).expect("strings always encode");
    out
}

fn encode_into(value: &Value, path: &Path, depth: usize, out: &mut Vec<u8>) -> Result<()> {
    match value {
        Value::None => {
            let start = begin(out, TAG_NONE);
            finish(out, start);
        }
        Value::Bool(b) => {
            let start = begin(out, TAG_BOOL);
            out.push(u8::from(*b));
            finish(out, start);
        }
        Value::Int(digits) => {
            check_canonical_decimal(digits, path)?;
            let start = begin(out, TAG_INT);
            out.extend_from_slice(digits.as_bytes());
            finish(out, start);
        }
        Value::Float(f) => {
            if f.is_nan() {
                return Err(non_canonical(path, "NaN is not equal to itself, so it cannot name a call"));
            }
            let start = begin(out, TAG_FLOAT);
            out.extend_from_slice(&f.to_bits().to_be_bytes());
            finish(out, start);
        }
        Value::Str(s) => {
            let start = begin(out, TAG_STR);
            out.extend_from_slice(s.as_bytes());
            finish(out, start);
        }
        Value::Bytes(b) => {
            let start = begin(out, TAG_BYTES);
            out.extend_from_slice(b);
            finish(out, start);
        }
        Value::List(items) | Value::Tuple(items) => {
            check_depth(path, depth)?;
            let tag = if matches!(value, Value::List(_)) { TAG_LIST } else { TAG_TUPLE };
            let start = begin(out, tag);
            for (i, item) in items.iter().enumerate() {
                encode_into(item, &path.child(Seg::Index(i)), depth + 1, out)?;
            }
            finish(out, start);
        }
        Value::Set(items) => {
            check_depth(path, depth)?;
            let mut encoded = Vec::with_capacity(items.len());
            for (i, item) in items.iter().enumerate() {
                let mut bytes = Vec::new();
                encode_into(item, &path.child(Seg::SetElement(i)), depth + 1, &mut bytes)?;
                encoded.push((bytes, Vec::new()));
            }
            write_sorted_entries(out, TAG_SET, encoded, path, "two elements have the same canonical encoding")?;
        }
        Value::Dict(entries) => {
            check_depth(path, depth)?;
            let mut encoded = Vec::with_capacity(entries.len());
            for (i, (key, value)) in entries.iter().enumerate() {
                let mut key_bytes = Vec::new();
                encode_into(key, &path.child(Seg::DictKey(i)), depth + 1, &mut key_bytes)?;
                let mut value_bytes = Vec::new();
                encode_into(value, &path.child(Seg::DictValue(key)), depth + 1, &mut value_bytes)?;
                encoded.push((key_bytes, value_bytes));
            }
            write_sorted_entries(out, TAG_DICT, encoded, path, "two keys have the same canonical encoding")?;
        }
        Value::Object { type_name, fields } => {
            check_depth(path, depth)?;
            if type_name.is_empty() {
                return Err(non_canonical(path, "an object needs a type name (module.qualname)"));
            }
            let mut sorted: Vec<&(String, Value)> = fields.iter().collect();
            sorted.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
            if let Some(pair) = sorted.windows(2).find(|pair| pair[0].0 == pair[1].0) {
                return Err(non_canonical(path, &format!("field \"{}\" appears twice", pair[0].0)));
            }
            let start = begin(out, TAG_OBJECT);
            encode_into(&Value::Str(type_name.clone()), path, depth + 1, out)?;
            for (name, value) in sorted {
                encode_into(&Value::Str(name.clone()), path, depth + 1, out)?;
                encode_into(value, &path.child(Seg::Field(name)), depth + 1, out)?;
            }
            finish(out, start);
        }
    }
    Ok(())
}

/// Writes a dict or set: entries sorted by their encoded key bytes, which
/// makes insertion order irrelevant. Keys that encode alike (Java's
/// `Integer 1` and `Long 1` in one map) would make the order ambiguous, so
/// they are rejected instead of silently merged.
fn write_sorted_entries(
    out: &mut Vec<u8>,
    tag: u8,
    mut entries: Vec<(Vec<u8>, Vec<u8>)>,
    path: &Path,
    duplicate_reason: &str,
) -> Result<()> {
    entries.sort();
    if entries.windows(2).any(|pair| pair[0].0 == pair[1].0) {
        return Err(non_canonical(path, duplicate_reason));
    }
    let start = begin(out, tag);
    for (key, value) in entries {
        out.extend_from_slice(&key);
        out.extend_from_slice(&value);
    }
    finish(out, start);
    Ok(())
}

fn check_depth(path: &Path, depth: usize) -> Result<()> {
    if depth > MAX_NESTING {
        Err(too_deep(path))
    } else {
        Ok(())
    }
}

fn too_deep(path: &Path) -> Error {
    non_canonical(path, &format!("containers are nested more than {MAX_NESTING} deep"))
}

fn non_canonical(path: &Path, reason: &str) -> Error {
    Error::NonCanonicalArgument { path: path.to_string(), reason: reason.to_string() }
}

/// A tree the marshaller should never have produced: a bug on the Java or
/// Python side, not a property of the user's value.
fn malformed(path: impl fmt::Display, reason: &str) -> Error {
    let at = path.to_string();
    if at.is_empty() {
        Error::InvalidArgument(format!("malformed canonical tree: {reason}"))
    } else {
        Error::InvalidArgument(format!("malformed canonical tree at {at}: {reason}"))
    }
}

pub(crate) fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    push_hex(bytes, &mut s);
    s
}

/// Appends `bytes` as lowercase hex to `out`.
pub(crate) fn push_hex(bytes: &[u8], out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    for b in bytes {
        out.push(DIGITS[(b >> 4) as usize] as char);
        out.push(DIGITS[(b & 0xf) as usize] as char);
    }
}

/// Where in the arguments a value sits, rendered like Python source
/// (`kwargs['cfg'].client`, `args[0][2]`) only when an error needs it.
#[derive(Clone, Copy)]
enum Seg<'a> {
    Root(&'a str),
    Index(usize),
    DictKey(usize),
    DictValue(&'a Value),
    SetElement(usize),
    Field(&'a str),
}

struct Path<'a> {
    parent: Option<&'a Path<'a>>,
    seg: Seg<'a>,
}

impl<'a> Path<'a> {
    fn root(name: &'a str) -> Path<'a> {
        Path { parent: None, seg: Seg::Root(name) }
    }

    fn child(&'a self, seg: Seg<'a>) -> Path<'a> {
        Path { parent: Some(self), seg }
    }
}

impl fmt::Display for Path<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(parent) = self.parent {
            parent.fmt(f)?;
        }
        match self.seg {
            Seg::Root(name) => f.write_str(name),
            Seg::Index(i) => write!(f, "[{i}]"),
            Seg::DictKey(i) => write!(f, ".<key #{i}>"),
            Seg::DictValue(Value::Str(key)) => write!(f, "[{}]", python_str_repr(key)),
            Seg::DictValue(Value::Int(key)) => write!(f, "[{key}]"),
            Seg::DictValue(Value::Bool(key)) => f.write_str(if *key { "[True]" } else { "[False]" }),
            Seg::DictValue(Value::None) => f.write_str("[None]"),
            Seg::DictValue(_) => f.write_str("[<key>]"),
            Seg::SetElement(i) => write!(f, ".<element #{i}>"),
            Seg::Field(name) => write!(f, ".{name}"),
        }
    }
}

/// Close enough to Python's `repr(str)` for error messages: single quotes,
/// with backslashes, quotes and control characters escaped.
fn python_str_repr(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('\'');
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
    out
}

#[cfg(test)]
mod tests;
