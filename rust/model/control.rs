//! RFC 8259 §7: inside a string, U+0000..U+001F must be escaped. serde_json
//! checks this where it validates text, but hands strings to a bytes visitor
//! (how field names, call ids and digests are read, so that lone surrogate
//! escapes survive) without the check. Jackson, and so Flink Agents, refuses
//! such a record: this pass refuses it here too, before it can be stored.

/// The offset and value of the first raw control character inside a string
/// of `json`, if any. Exact for valid JSON; for invalid JSON the parser
/// reports its own error when this finds nothing.
pub(crate) fn raw_control_in_string(json: &[u8]) -> Option<(usize, u8)> {
    // Compact JSON (what Jackson and this library write) holds no control
    // byte at all: one branch-free pass settles it.
    if !has_control_byte(json) {
        return None;
    }
    let mut in_string = false;
    let mut i = 0;
    while i < json.len() {
        let b = json[i];
        if in_string {
            match b {
                b'"' => in_string = false,
                b'\\' => i += 1,
                0x00..=0x1F => return Some((i, b)),
                _ => {}
            }
        } else if b == b'"' {
            in_string = true;
        }
        i += 1;
    }
    None
}

/// Whether any byte is below 0x20, folded per chunk so the compiler turns
/// it into vector compares.
fn has_control_byte(bytes: &[u8]) -> bool {
    const CHUNK: usize = 64;
    let mut chunks = bytes.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        if chunk.iter().fold(0u8, |hit, &b| hit | u8::from(b < 0x20)) != 0 {
            return true;
        }
    }
    chunks.remainder().iter().any(|&b| b < 0x20)
}

#[cfg(test)]
mod tests {
    use super::raw_control_in_string;

    #[test]
    fn whitespace_between_tokens_is_not_inside_a_string() {
        assert_eq!(raw_control_in_string(b"{\n\t\"a\" :\r\n [1, \"b\"]}"), None);
        assert_eq!(raw_control_in_string(br#"{"a\n\"\\":"\u0000\t"}"#), None, "escapes are fine");
    }

    #[test]
    fn a_raw_control_character_in_a_string_is_found_with_its_offset() {
        assert_eq!(raw_control_in_string(b"{\"a\nb\":1}"), Some((3, b'\n')));
        assert_eq!(raw_control_in_string(b"{\"k\":\"x\\\"\x1f\"}"), Some((9, 0x1F)));
        let long = format!("{{\"k\":\"{}\t\"}}", "y".repeat(200));
        assert_eq!(raw_control_in_string(long.as_bytes()), Some((206, b'\t')));
        assert_eq!(raw_control_in_string(b"{\"k\":\"\\\\\x00\"}"), Some((8, 0)), "after an escaped backslash");
    }
}
