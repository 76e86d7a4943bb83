//! The id rules the journal's exports apply on their own crossing: the
//! join of a call's two parts and the split of a slot's id for the bridge,
//! both the identity core's ([`identity::call_id_with_digest`],
//! [`identity::split_call_id`]).

use super::{joined, split_slot_id};

const DIGEST: &str = "0123456789abcdef";

#[test]
fn the_parts_join_as_the_identity_core_joins_them_and_no_digest_leaves_the_id_whole() {
    assert_eq!(joined("f".into(), Some(DIGEST.into())), format!("f::{DIGEST}"));
    assert_eq!(joined("f".into(), Some(String::new())), "f");
    assert_eq!(joined("f".into(), None), "f");
    // A whole id passed as the function id, without a digest, stays that id.
    assert_eq!(joined(format!("f::{DIGEST}"), None), format!("f::{DIGEST}"));
}

#[test]
fn a_slot_id_splits_as_the_identity_core_splits_it_and_joining_the_parts_gives_it_back() {
    for id in [format!("tools.search::{DIGEST}"), "a::b".to_owned(), "plain".to_owned(), format!("\u{1F600}::{DIGEST}"), format!("::{DIGEST}")] {
        let (function_id, digest) = split_slot_id(id.as_bytes());
        let parts = (std::str::from_utf8(function_id).unwrap(), std::str::from_utf8(digest).unwrap());
        assert_eq!(parts, crate::identity::split_call_id(&id));
        assert_eq!(joined(parts.0.to_owned(), Some(parts.1.to_owned())), id, "join(split(id)) is id");
    }
}

#[test]
fn a_slot_id_holding_a_lone_surrogate_has_no_digest() {
    // WTF-8 of "a\u{D800}::" + DIGEST: not Unicode, so not split.
    let mut id = b"a\xED\xA0\x80::".to_vec();
    id.extend_from_slice(DIGEST.as_bytes());
    assert_eq!(split_slot_id(&id), (&id[..], &b""[..]));
}
