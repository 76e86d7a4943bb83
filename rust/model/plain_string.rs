//! Recognizes the commonest recorded result, a JSON string with nothing to
//! unescape, so a replay can turn its bytes into a string with one copy
//! instead of a JSON parse.

/// True iff `payload` is `"…"` whose body is well-formed UTF-8 without a
/// quote, a backslash or a control character: its value is then exactly the
/// body's text. False says nothing (the payload may still be a valid string
/// with escapes; a JSON parser decides).
pub fn is_plain_json_string(payload: &[u8]) -> bool {
    let [b'"', body @ .., b'"'] = payload else { return false };
    match scan(body) {
        Scan::Special => false,
        Scan::Ascii => true,
        Scan::NonAscii => std::str::from_utf8(body).is_ok(),
    }
}

enum Scan {
    /// A quote, a backslash or a control character.
    Special,
    Ascii,
    /// No special byte, but bytes of multi-byte sequences, still to validate.
    NonAscii,
}

/// One pass over the body. Chunks are folded with bitwise operations and
/// no early exit inside, which the compiler turns into vector compares; a
/// special byte stops the scan at the end of its chunk.
fn scan(body: &[u8]) -> Scan {
    const CHUNK: usize = 64;
    let special = |b: u8| u8::from(b < 0x20) | u8::from(b == b'"') | u8::from(b == b'\\');
    let mut high = 0u8;
    let mut chunks = body.chunks_exact(CHUNK);
    for chunk in &mut chunks {
        let mut hit = 0u8;
        for &b in chunk {
            hit |= special(b);
            high |= b;
        }
        if hit != 0 {
            return Scan::Special;
        }
    }
    for &b in chunks.remainder() {
        if special(b) != 0 {
            return Scan::Special;
        }
        high |= b;
    }
    if high >= 0x80 {
        Scan::NonAscii
    } else {
        Scan::Ascii
    }
}

#[cfg(test)]
mod tests {
    use super::is_plain_json_string;

    #[test]
    fn plain_strings_are_recognized_at_every_length() {
        for len in [0, 1, 63, 64, 65, 200, 10_240] {
            let payload = format!("\"{}\"", "x".repeat(len));
            assert!(is_plain_json_string(payload.as_bytes()), "length {len}");
        }
        assert!(is_plain_json_string("\"grüße, 🌍\"".as_bytes()));
    }

    #[test]
    fn anything_to_unescape_or_check_is_not_plain() {
        for len in [0, 10, 64, 100, 1000] {
            let pad = "x".repeat(len);
            for special in ["\\n", "\"", "\n", "\u{1f}", "\\\\"] {
                let payload = format!("\"{pad}{special}{pad}\"");
                assert!(!is_plain_json_string(payload.as_bytes()), "{payload:?}");
            }
        }
        for payload in [&b"\"x"[..], b"x\"", b"\"", b"", b"42", b"\"\xff\"", b"\"\xed\xa0\x80\"", b"\"\xc3\""] {
            assert!(!is_plain_json_string(payload), "{payload:?}");
        }
        let mut long_invalid = vec![b'"'];
        long_invalid.extend(std::iter::repeat_n(b'x', 100));
        long_invalid.push(0xC0);
        long_invalid.push(0x80);
        long_invalid.push(b'"');
        assert!(!is_plain_json_string(&long_invalid), "an overlong encoding");
    }
}
