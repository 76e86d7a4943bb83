//! Strings the core reads (a call id, an args digest, a field name), kept
//! exactly as JSON carried them.
//!
//! A JSON string is a sequence of UTF-16 code units: Jackson writes a Java
//! `String` holding a lone surrogate (text cut in the middle of an emoji) as
//! `"\uD83D"`, which is no Unicode text and so no Rust `String`. Such a string
//! is kept as the generalized UTF-8 (WTF-8) serde_json decodes it to and
//! written back with the same escapes, so a record carrying one loads and
//! round-trips instead of being unreadable.

use std::fmt;

use serde::de::{self, Deserialize, Deserializer, Visitor};

use super::de::deserialize_via;

/// A JSON string: Unicode text, or (rarely) one with lone surrogates.
#[derive(Clone, PartialEq, Eq, Hash)]
pub enum JsonString {
    /// Valid Unicode: every string this library writes itself.
    Text(String),
    /// Holds at least one lone surrogate; the bytes are WTF-8 (a surrogate
    /// code point is encoded like any other three-byte UTF-8 sequence).
    LoneSurrogates(Box<[u8]>),
}

impl JsonString {
    /// The text, unless the string holds a lone surrogate.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            JsonString::Text(text) => Some(text),
            JsonString::LoneSurrogates(_) => None,
        }
    }

    /// UTF-8, or WTF-8 when the string holds a lone surrogate.
    pub fn as_wtf8(&self) -> &[u8] {
        match self {
            JsonString::Text(text) => text.as_bytes(),
            JsonString::LoneSurrogates(wtf8) => wtf8,
        }
    }

    /// Decodes WTF-8: Unicode text when it is valid UTF-8.
    pub fn from_wtf8(bytes: &[u8]) -> JsonString {
        match std::str::from_utf8(bytes) {
            Ok(text) => JsonString::Text(text.to_owned()),
            Err(_) => JsonString::LoneSurrogates(bytes.into()),
        }
    }

    /// Decodes bytes that must be WTF-8 as this library writes it (a store
    /// record's string flagged as holding lone surrogates): UTF-8 text and
    /// surrogate code points `ED A0..BF 80..BF`, never a lead surrogate
    /// followed directly by a trail one (that pair is one character, written
    /// as four bytes). `None` for anything else, which no writer of this
    /// library produces and which must not reach the WTF-8 readers.
    pub fn from_wtf8_checked(bytes: &[u8]) -> Option<JsonString> {
        let mut rest = bytes;
        let mut after_lead_surrogate = false;
        while let Err(e) = std::str::from_utf8(rest) {
            if e.valid_up_to() > 0 {
                after_lead_surrogate = false;
            }
            match rest[e.valid_up_to()..] {
                [0xED, second @ 0xA0..=0xBF, 0x80..=0xBF, ..] => {
                    let lead = second < 0xB0;
                    if after_lead_surrogate && !lead {
                        return None;
                    }
                    after_lead_surrogate = lead;
                    rest = &rest[e.valid_up_to() + 3..];
                }
                _ => return None,
            }
        }
        Some(JsonString::from_wtf8(bytes))
    }

    /// Appends the string as a JSON string literal; lone surrogates become
    /// `\uXXXX` escapes again.
    pub fn write_json(&self, out: &mut String) {
        match self {
            JsonString::Text(text) => write_json_str(text, out),
            JsonString::LoneSurrogates(wtf8) => {
                out.push('"');
                for piece in Wtf8Pieces(wtf8) {
                    match piece {
                        Wtf8Piece::Text(text) => escape_into(text, out),
                        Wtf8Piece::Surrogate(unit) => out.push_str(&format!("\\u{unit:04X}")),
                    }
                }
                out.push('"');
            }
        }
    }
}

/// Appends `text` as a JSON string literal.
pub fn write_json_str(text: &str, out: &mut String) {
    out.push('"');
    escape_into(text, out);
    out.push('"');
}

/// JSON escaping as serde_json does it (quote, backslash, control characters).
fn escape_into(text: &str, out: &mut String) {
    let literal = serde_json::to_string(text).expect("a str always serializes");
    out.push_str(&literal[1..literal.len() - 1]);
}

impl From<String> for JsonString {
    fn from(text: String) -> JsonString {
        JsonString::Text(text)
    }
}

impl From<&str> for JsonString {
    fn from(text: &str) -> JsonString {
        JsonString::Text(text.to_owned())
    }
}

/// For messages: the text, with lone surrogates shown as `\uXXXX`.
impl fmt::Display for JsonString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            JsonString::Text(text) => f.write_str(text),
            JsonString::LoneSurrogates(wtf8) => {
                for piece in Wtf8Pieces(wtf8) {
                    match piece {
                        Wtf8Piece::Text(text) => f.write_str(text)?,
                        Wtf8Piece::Surrogate(unit) => write!(f, "\\u{unit:04X}")?,
                    }
                }
                Ok(())
            }
        }
    }
}

impl fmt::Debug for JsonString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.to_string())
    }
}

enum Wtf8Piece<'a> {
    Text(&'a str),
    Surrogate(u16),
}

/// Splits WTF-8 into runs of UTF-8 text and single surrogate code points.
struct Wtf8Pieces<'a>(&'a [u8]);

impl<'a> Iterator for Wtf8Pieces<'a> {
    type Item = Wtf8Piece<'a>;

    fn next(&mut self) -> Option<Wtf8Piece<'a>> {
        let bytes = self.0;
        if bytes.is_empty() {
            return None;
        }
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                self.0 = &[];
                Some(Wtf8Piece::Text(text))
            }
            Err(e) if e.valid_up_to() > 0 => {
                let (text, rest) = bytes.split_at(e.valid_up_to());
                self.0 = rest;
                Some(Wtf8Piece::Text(std::str::from_utf8(text).expect("checked up to here")))
            }
            Err(_) => {
                // WTF-8 from serde_json: anything not UTF-8 is a surrogate, ED A0..BF xx.
                let [b0, b1, b2, ..] = *bytes else { unreachable!("WTF-8 surrogates are three bytes") };
                self.0 = &bytes[3..];
                let unit = (u16::from(b0 & 0x0F) << 12) | (u16::from(b1 & 0x3F) << 6) | u16::from(b2 & 0x3F);
                Some(Wtf8Piece::Surrogate(unit))
            }
        }
    }
}

// serde_json hands a string to a bytes visitor without refusing lone surrogates
// (as WTF-8); a str visitor would refuse them.
deserialize_via!(JsonString, deserialize_bytes, JsonStringVisitor, "a string", {
    fn visit_str<E: de::Error>(self, text: &str) -> Result<JsonString, E> {
        Ok(JsonString::Text(text.to_owned()))
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<JsonString, E> {
        Ok(JsonString::Text(text))
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<JsonString, E> {
        Ok(JsonString::from_wtf8(bytes))
    }
});

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(literal: &str) -> JsonString {
        serde_json::from_str(literal).unwrap()
    }

    fn written(s: &JsonString) -> String {
        let mut out = String::new();
        s.write_json(&mut out);
        out
    }

    #[test]
    fn checked_wtf8_takes_what_serde_json_produces_and_nothing_else() {
        for literal in [r#""\uD83D""#, r#""a\uDE00b""#, r#""\uDE00\uD83D""#, r#""x\uD83D\"\n😀""#, r#""plain""#] {
            let s = parse(literal);
            assert_eq!(JsonString::from_wtf8_checked(s.as_wtf8()), Some(s.clone()), "{literal}");
        }
        // Not WTF-8: a stray byte, a cut surrogate, a pair written as two surrogates
        // (found by the fuzzer: displaying such a string panicked).
        for bytes in [&[0xFF][..], &[b'a', 0xED, 0xA0], &[0xED, 0xA0, 0xBD, 0xED, 0xB8, 0x80], &[0xC0, 0x80]] {
            assert_eq!(JsonString::from_wtf8_checked(bytes), None, "{bytes:?}");
        }
    }

    #[test]
    fn lone_surrogates_are_kept_and_written_back_as_escapes() {
        for literal in [r#""\uD83D""#, r#""a\uDE00b""#, r#""\uDE00\uD83D""#, r#""x\uD83D\"\n😀""#] {
            let s = parse(literal);
            assert!(matches!(s, JsonString::LoneSurrogates(_)), "{literal}");
            assert_eq!(s.as_str(), None);
            let again = parse(&written(&s));
            assert_eq!(again, s, "{literal}");
        }
        assert_eq!(written(&parse(r#""\uD83D""#)), r#""\uD83D""#);
        assert_eq!(parse(r#""\uD83D""#).to_string(), r"\uD83D");
    }

    #[test]
    fn a_surrogate_pair_is_text() {
        assert_eq!(parse(r#""\uD83D\uDE00 \u00e9""#), JsonString::Text("😀 é".into()));
        assert_eq!(written(&JsonString::from("q\"\u{1}")), r#""q\"\u0001""#);
    }

    #[test]
    fn only_strings_are_accepted() {
        assert!(serde_json::from_str::<JsonString>("1").is_err());
        assert!(serde_json::from_str::<JsonString>("[1]").is_err());
    }
}
