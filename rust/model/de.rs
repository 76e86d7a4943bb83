//! Reading an ActionState the way Jackson reads Flink Agents' records: known
//! fields by name (a repeated one: the last wins), bodies kept as text, an
//! absent field as its default, unknown fields kept (top level) or skipped
//! (inside a slot).

use std::borrow::Cow;
use std::fmt;

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::de::{self, Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;

use super::opaque::{OpaqueJson, MAX_BODY_DEPTH, MAX_NESTING_DEPTH};
use super::text::JsonString;
use super::{ActionState, CallResult, CallStatus};

/// `Deserialize` for `$target` through the unit visitor `$visitor`, driven by the `Deserializer`
/// method `$drive`; `$expecting` says what it reads, and the visitor's `visit_*` methods follow
/// in braces. One shape for every type of the model that reads itself with a visitor.
macro_rules! deserialize_via {
    ($target:ty, $drive:ident, $visitor:ident, $expecting:literal, { $($methods:tt)* }) => {
        impl<'de> Deserialize<'de> for $target {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<$target, D::Error> {
                deserializer.$drive($visitor)
            }
        }

        struct $visitor;

        impl<'de> Visitor<'de> for $visitor {
            type Value = $target;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str($expecting)
            }

            $($methods)*
        }
    };
}
pub(super) use deserialize_via;

/// Bodies directly under the record (`taskEvent`, unknown fields).
const FIELD_BODY_DEPTH: usize = MAX_NESTING_DEPTH - 1;
/// Bodies in a list under the record (events, memory updates).
const LIST_BODY_DEPTH: usize = MAX_BODY_DEPTH;

deserialize_via!(ActionState, deserialize_map, StateVisitor, "an ActionState object", {
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ActionState, A::Error> {
        let mut state = ActionState::default();
        while let Some(FieldName(name)) = map.next_key()? {
            match &*name {
                b"taskEvent" => {
                    let raw: Option<&RawValue> = map.next_value()?;
                    state.task_event = raw.map(|raw| body(raw, FIELD_BODY_DEPTH)).transpose()?;
                }
                b"sensoryMemoryUpdates" => state.sensory_memory_updates = map.next_value::<BodyList>()?.0,
                b"shortTermMemoryUpdates" => state.short_term_memory_updates = map.next_value::<BodyList>()?.0,
                b"outputEvents" => state.output_events = map.next_value::<BodyList>()?.0,
                b"callResults" => state.call_results = map.next_value::<Option<Vec<CallResult>>>()?.unwrap_or_default(),
                b"completed" => state.completed = map.next_value::<Option<bool>>()?.unwrap_or(false),
                _ => {
                    let value = body(map.next_value()?, FIELD_BODY_DEPTH)?;
                    set_field(&mut state.other_fields, JsonString::from_wtf8(&name), value);
                }
            }
        }
        Ok(state)
    }
});

/// Keeps a field the way Jackson's `@JsonAnySetter` into a map does: a
/// repeated name replaces the earlier value in its place.
fn set_field(fields: &mut Vec<(JsonString, OpaqueJson)>, name: JsonString, value: OpaqueJson) {
    match fields.iter_mut().find(|(n, _)| *n == name) {
        Some(field) => field.1 = value,
        None => fields.push((name, value)),
    }
}

/// Reads the unknown fields the store keeps as one JSON object.
pub(crate) fn other_fields_from_json(text: &str, max_depth: usize) -> Result<Vec<(JsonString, OpaqueJson)>, String> {
    let mut deserializer = serde_json::Deserializer::from_str(text);
    let fields = deserializer.deserialize_map(FieldsVisitor { max_depth }).map_err(|e| e.to_string())?;
    deserializer.end().map_err(|e| e.to_string())?;
    Ok(fields)
}

struct FieldsVisitor {
    max_depth: usize,
}

impl<'de> Visitor<'de> for FieldsVisitor {
    type Value = Vec<(JsonString, OpaqueJson)>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut fields = Vec::new();
        while let Some(FieldName(name)) = map.next_key()? {
            let value = body(map.next_value()?, self.max_depth)?;
            set_field(&mut fields, JsonString::from_wtf8(&name), value);
        }
        Ok(fields)
    }
}

fn body<E: de::Error>(raw: &RawValue, max_depth: usize) -> Result<OpaqueJson, E> {
    OpaqueJson::from_raw(raw, max_depth).map_err(E::custom)
}

/// A list of bodies; null reads as empty, as Flink Agents' constructor does.
struct BodyList(Vec<OpaqueJson>);

impl<'de> Deserialize<'de> for BodyList {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<BodyList, D::Error> {
        Ok(BodyList(deserializer.deserialize_option(BodyListVisitor)?))
    }
}

struct BodyListVisitor;

impl<'de> Visitor<'de> for BodyListVisitor {
    type Value = Vec<OpaqueJson>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of JSON values, or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Vec<OpaqueJson>, E> {
        Ok(Vec::new())
    }

    fn visit_unit<E: de::Error>(self) -> Result<Vec<OpaqueJson>, E> {
        Ok(Vec::new())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Vec<OpaqueJson>, D::Error> {
        deserializer.deserialize_seq(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<OpaqueJson>, A::Error> {
        let mut bodies = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(raw) = seq.next_element::<&RawValue>()? {
            bodies.push(body(raw, LIST_BODY_DEPTH)?);
        }
        Ok(bodies)
    }
}

deserialize_via!(CallResult, deserialize_map, CallResultVisitor, "a CallResult object", {
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<CallResult, A::Error> {
        // Absent fields are null, as Jackson leaves them; an absent digest is "".
        let mut slot = CallResult {
            call_id: None,
            args_digest: Some(JsonString::Text(String::new())),
            status: None,
            result_payload: None,
            exception_payload: None,
        };
        while let Some(FieldName(name)) = map.next_key()? {
            match &*name {
                b"functionId" => slot.call_id = map.next_value()?,
                b"argsDigest" => slot.args_digest = map.next_value()?,
                b"status" => slot.status = map.next_value::<Option<CallStatus>>()?,
                b"resultPayload" => slot.result_payload = map.next_value::<Base64Bytes>()?.0,
                b"exceptionPayload" => slot.exception_payload = map.next_value::<Base64Bytes>()?.0,
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(slot)
    }
});

/// `byte[]` as Jackson writes it: a standard base64 string, or null.
struct Base64Bytes(Option<Vec<u8>>);

impl<'de> Deserialize<'de> for Base64Bytes {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Base64Bytes, D::Error> {
        let Some(FieldName(text)) = Option::<FieldName>::deserialize(deserializer)? else {
            return Ok(Base64Bytes(None));
        };
        STANDARD.decode(&*text).map(|bytes| Base64Bytes(Some(bytes))).map_err(de::Error::custom)
    }
}

/// A JSON string's bytes (WTF-8), borrowed from the input when it has no
/// escapes: names are matched without allocating.
struct FieldName<'de>(Cow<'de, [u8]>);

impl<'de> Deserialize<'de> for FieldName<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FieldName<'de>, D::Error> {
        deserializer.deserialize_bytes(FieldNameVisitor)
    }
}

struct FieldNameVisitor;

impl<'de> Visitor<'de> for FieldNameVisitor {
    type Value = FieldName<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_borrowed_bytes<E: de::Error>(self, bytes: &'de [u8]) -> Result<FieldName<'de>, E> {
        Ok(FieldName(Cow::Borrowed(bytes)))
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<FieldName<'de>, E> {
        Ok(FieldName(Cow::Owned(bytes.to_vec())))
    }

    fn visit_borrowed_str<E: de::Error>(self, text: &'de str) -> Result<FieldName<'de>, E> {
        Ok(FieldName(Cow::Borrowed(text.as_bytes())))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<FieldName<'de>, E> {
        Ok(FieldName(Cow::Owned(text.as_bytes().to_vec())))
    }
}
