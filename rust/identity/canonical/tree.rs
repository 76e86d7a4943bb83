//! Reading the tagged tree the bindings hand over (spec §3) into
//! [`Value`]s: every tag, its payload's shape, canonical decimals and float
//! bits checked, with the place of a malformed node in the error.

use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine as _;
use serde_json::Value as Json;

use super::{malformed, too_deep, CallArgs, Path, Seg, Value, MAX_NESTING};
use crate::error::Result;

/// Reads a call tree: `{"args": [value...], "kwargs": {"name": value...}}`.
/// Both members are required, so a marshaller that forgets one fails loudly.
pub fn parse_call_tree(tree: &Json) -> Result<CallArgs> {
    let root = tree
        .as_object()
        .ok_or_else(|| malformed("", "a call tree must be an object with \"args\" and \"kwargs\""))?;
    if let Some(unknown) = root.keys().find(|k| *k != "args" && *k != "kwargs") {
        return Err(malformed("", &format!("unknown member \"{unknown}\" in call tree")));
    }
    let args = root
        .get("args")
        .and_then(Json::as_array)
        .ok_or_else(|| malformed("", "call tree member \"args\" must be an array"))?;
    let kwargs = root
        .get("kwargs")
        .and_then(Json::as_object)
        .ok_or_else(|| malformed("", "call tree member \"kwargs\" must be an object"))?;

    let args_path = Path::root("args");
    let args = args
        .iter()
        .enumerate()
        .map(|(i, arg)| parse_value(arg, &args_path.child(Seg::Index(i)), 1))
        .collect::<Result<Vec<_>>>()?;
    let kwargs_path = Path::root("kwargs");
    let mut parsed_kwargs = Vec::with_capacity(kwargs.len());
    for (name, value) in kwargs {
        let key = Value::Str(name.clone());
        parsed_kwargs.push((name.clone(), parse_value(value, &kwargs_path.child(Seg::DictValue(&key)), 1)?));
    }
    Ok(CallArgs { args, kwargs: parsed_kwargs })
}

/// Reads one tagged value (see `docs/identity.md`, "Tagged tree").
pub fn parse_value_tree(tree: &Json) -> Result<Value> {
    parse_value(tree, &Path::root("value"), 1)
}

fn parse_value(tree: &Json, path: &Path, depth: usize) -> Result<Value> {
    let (tag, body) = match tree {
        Json::Null => return Ok(Value::None),
        Json::Bool(b) => return Ok(Value::Bool(*b)),
        Json::Object(map) if map.len() == 1 => map.iter().next().expect("one member"),
        _ => return Err(malformed(path, "expected null, a boolean or an object with exactly one tag")),
    };
    let is_container = matches!(tag.as_str(), "list" | "tuple" | "set" | "dict" | "object");
    if is_container && depth > MAX_NESTING {
        return Err(too_deep(path));
    }
    let text = |what: &str| body.as_str().ok_or_else(|| malformed(path, &format!("\"{tag}\" needs a string ({what})")));
    let items = || body.as_array().ok_or_else(|| malformed(path, &format!("\"{tag}\" needs an array")));
    let parse_items = |items: &Vec<Json>, seg: fn(usize) -> Seg<'static>| {
        items
            .iter()
            .enumerate()
            .map(|(i, item)| parse_value(item, &path.child(seg(i)), depth + 1))
            .collect::<Result<Vec<_>>>()
    };
    match tag.as_str() {
        "int" => {
            let digits = text("canonical decimal")?;
            check_canonical_decimal(digits, path)?;
            Ok(Value::Int(digits.to_string()))
        }
        "float" => parse_float_bits(text("16 lowercase hex digits of the IEEE-754 bits")?, path).map(Value::Float),
        "str" => Ok(Value::Str(text("the string")?.to_string())),
        "bytes" => BASE64
            .decode(text("standard base64")?)
            .map(Value::Bytes)
            .map_err(|e| malformed(path, &format!("\"bytes\" is not canonical standard base64: {e}"))),
        "list" => Ok(Value::List(parse_items(items()?, Seg::Index)?)),
        "tuple" => Ok(Value::Tuple(parse_items(items()?, Seg::Index)?)),
        "set" => Ok(Value::Set(parse_items(items()?, Seg::SetElement)?)),
        "dict" => {
            let mut entries = Vec::new();
            for (i, entry) in items()?.iter().enumerate() {
                let pair = entry
                    .as_array()
                    .filter(|pair| pair.len() == 2)
                    .ok_or_else(|| malformed(path, "a \"dict\" entry must be a [key, value] pair"))?;
                let key = parse_value(&pair[0], &path.child(Seg::DictKey(i)), depth + 1)?;
                let value = parse_value(&pair[1], &path.child(Seg::DictValue(&key)), depth + 1)?;
                entries.push((key, value));
            }
            Ok(Value::Dict(entries))
        }
        "object" => {
            let object = body.as_object().ok_or_else(|| malformed(path, "\"object\" needs an object"))?;
            if let Some(unknown) = object.keys().find(|k| *k != "type" && *k != "fields") {
                return Err(malformed(path, &format!("unknown member \"{unknown}\" in \"object\"")));
            }
            let type_name = object
                .get("type")
                .and_then(Json::as_str)
                .ok_or_else(|| malformed(path, "\"object\" needs a string \"type\""))?;
            let fields = object
                .get("fields")
                .and_then(Json::as_object)
                .ok_or_else(|| malformed(path, "\"object\" needs an object \"fields\""))?;
            let mut parsed = Vec::with_capacity(fields.len());
            for (name, value) in fields {
                parsed.push((name.clone(), parse_value(value, &path.child(Seg::Field(name)), depth + 1)?));
            }
            Ok(Value::Object { type_name: type_name.to_string(), fields: parsed })
        }
        other => Err(malformed(path, &format!("unknown tag \"{other}\""))),
    }
}

fn parse_float_bits(hex_bits: &str, path: &Path) -> Result<f64> {
    let well_formed = hex_bits.len() == 16 && hex_bits.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    if !well_formed {
        return Err(malformed(path, "\"float\" must be 16 lowercase hex digits of the IEEE-754 bits"));
    }
    let bits = u64::from_str_radix(hex_bits, 16).expect("checked hex");
    Ok(f64::from_bits(bits))
}

pub(super) fn check_canonical_decimal(digits: &str, path: &Path) -> Result<()> {
    let magnitude = digits.strip_prefix('-').unwrap_or(digits);
    let canonical = !magnitude.is_empty()
        && magnitude.bytes().all(|b| b.is_ascii_digit())
        && (magnitude == "0" || !magnitude.starts_with('0'))
        && digits != "-0";
    if canonical {
        Ok(())
    } else {
        Err(malformed(path, &format!("\"{digits}\" is not a canonical decimal integer")))
    }
}
