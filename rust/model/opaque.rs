//! Bodies the core does not interpret (events, memory updates, unknown
//! fields), kept as JSON text.
//!
//! A parsed tree would change them: serde_json turns every number into an
//! `f64`, `i64` or `u64`, so `18446744073709551616` or `1e400` cannot be read
//! and digits past a double's precision are lost. Kept as text, every value
//! comes back with the meaning it was written with, and copying a body costs
//! a `memcpy` instead of a tree walk.

use std::fmt;

use serde_json::value::RawValue;

/// Jackson's default `StreamReadConstraints` nesting limit (2.15 and later):
/// the deepest ActionState document Flink Agents reads or writes. A deeper
/// one is refused, so every record this library writes stays readable there.
pub const MAX_NESTING_DEPTH: usize = 1000;

/// The deepest a body may nest on its own: it sits inside the record and a
/// list, so it fits at any place of a document within [`MAX_NESTING_DEPTH`].
pub const MAX_BODY_DEPTH: usize = MAX_NESTING_DEPTH - 2;

/// One JSON value, kept as its text without insignificant whitespace.
#[derive(Clone)]
pub struct OpaqueJson(Box<RawValue>);

impl OpaqueJson {
    /// Parses a JSON value that nests at most [`MAX_BODY_DEPTH`] levels.
    pub fn parse(text: &str) -> Result<OpaqueJson, String> {
        let raw: &RawValue = serde_json::from_str(text).map_err(|e| e.to_string())?;
        OpaqueJson::from_raw(raw, MAX_BODY_DEPTH)
    }

    /// A value serde_json has checked already, at most `max_depth` levels deep.
    pub(crate) fn from_raw(raw: &RawValue, max_depth: usize) -> Result<OpaqueJson, String> {
        match compact(raw.get(), max_depth)? {
            None => Ok(OpaqueJson(raw.to_owned())),
            Some(compacted) => RawValue::from_string(compacted).map(OpaqueJson).map_err(|e| e.to_string()),
        }
    }

    /// The JSON text.
    pub fn get(&self) -> &str {
        self.0.get()
    }

    /// The value as a `serde_json` tree, to look into it. Not exact: the
    /// tree holds numbers as `f64`/`i64`/`u64` (and refuses `1e400`).
    pub fn to_value(&self) -> serde_json::Result<serde_json::Value> {
        serde_json::from_str(self.get())
    }
}

/// Same text, same value: both sides were compacted the same way.
impl PartialEq for OpaqueJson {
    fn eq(&self, other: &OpaqueJson) -> bool {
        self.get() == other.get()
    }
}

impl fmt::Debug for OpaqueJson {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.get())
    }
}

/// For building bodies in code: a tree holds nothing a text cannot. Its
/// depth is not checked (a tree built in code is as deep as its builder
/// made it; one parsed by serde_json nests at most 128 levels).
impl From<serde_json::Value> for OpaqueJson {
    fn from(value: serde_json::Value) -> OpaqueJson {
        OpaqueJson(serde_json::value::to_raw_value(&value).expect("a JSON value always serializes"))
    }
}

/// One pass over valid JSON text: refuses nesting deeper than `max_depth`
/// and drops whitespace outside strings. `None` when there was none to drop
/// (the common case: Jackson and serde_json write compact JSON).
///
/// Counting instead of recursing, so no input can exhaust the stack.
fn compact(text: &str, max_depth: usize) -> Result<Option<String>, String> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut compacted: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'"' => {
                let end = string_end(bytes, i);
                if let Some(out) = compacted.as_mut() {
                    out.extend_from_slice(&bytes[i..end]);
                }
                i = end;
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Err(format!(
                        "a JSON body nests deeper than {max_depth} levels (an ActionState may nest at most \
                         {MAX_NESTING_DEPTH}, Jackson's limit)"
                    ));
                }
            }
            b']' | b'}' => depth -= 1,
            b' ' | b'\t' | b'\n' | b'\r' => {
                compacted.get_or_insert_with(|| bytes[..i].to_vec());
                i += 1;
                continue;
            }
            _ => {}
        }
        if let Some(out) = compacted.as_mut() {
            out.push(b);
        }
        i += 1;
    }
    Ok(compacted.map(|out| String::from_utf8(out).expect("whitespace removed between tokens keeps UTF-8")))
}

/// The index just past the string literal starting at `start` (a quote).
fn string_end(bytes: &[u8], start: usize) -> usize {
    let mut i = start + 1;
    loop {
        match bytes[i] {
            b'"' => return i + 1,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        format!("{}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn numbers_and_strings_keep_their_text() {
        for text in [
            "0.12073605139050847",
            "18446744073709551616",
            "123456789012345678901234567890",
            "1e400",
            "-0.0",
            "1.0",
            "1E-7",
            r#""\uD83D""#,
            r#"{"b":1,"a":[true,null,"x y"]}"#,
        ] {
            assert_eq!(OpaqueJson::parse(text).unwrap().get(), text);
        }
    }

    #[test]
    fn whitespace_outside_strings_is_dropped() {
        let body = OpaqueJson::parse(" {\n \"a b\" : [ 1 , \"c\\\" d\" ]\t} ").unwrap();
        assert_eq!(body.get(), r#"{"a b":[1,"c\" d"]}"#);
    }

    #[test]
    fn nesting_is_limited_without_recursion() {
        assert!(OpaqueJson::parse(&nested(MAX_BODY_DEPTH)).is_ok());
        let err = OpaqueJson::parse(&nested(MAX_BODY_DEPTH + 1)).unwrap_err();
        assert!(err.contains("nests deeper than 998 levels"), "{err}");
        // Far deeper than any stack could recurse: refused, not a crash.
        assert!(OpaqueJson::parse(&nested(1_000_000)).is_err());
    }

    #[test]
    fn invalid_json_is_refused() {
        for bad in ["", "{", "[1,]", "01", "\"\\x\"", "nul", "1 2"] {
            assert!(OpaqueJson::parse(bad).is_err(), "{bad:?}");
        }
    }
}
