"""The values of memory updates as Flink Agents' ActionStateSerde writes
them: a Java object in Kryo's form, ``{"serde": "kryo", "version": 1,
"payload": <base64>}``. A replay reads the scalars Kryo's default
serializers write (null, long, int, boolean and String, what a Python int,
bool or str becomes in Java); any other value is not readable here, and
memory holding it is not rebuilt (never guessed)."""

from __future__ import annotations

import base64
from typing import Any, Tuple

#: Kryo's default registrations, written as id + 2 (0 is null).
_NULL, _INT, _STRING, _BOOLEAN, _LONG = 0, 2, 3, 5, 9


class UnreadableValue(ValueError):
    """A recorded value this reader does not know."""


def is_kryo(value: Any) -> bool:
    return isinstance(value, dict) and value.get("serde") == "kryo" and "payload" in value


def read_value(value: Any) -> Any:
    """A memory update's value as Python: a Kryo scalar decoded, a JSON
    value as it is; UnreadableValue otherwise."""
    if not is_kryo(value):
        return value
    data = base64.b64decode(value["payload"])
    if not data:
        raise UnreadableValue("an empty Kryo payload")
    registration, position = _var_int(data, 0)
    if registration == _NULL:
        result: Any = None
    elif registration in (_INT, _LONG):
        raw, position = _var_int(data, position)
        result = (raw >> 1) ^ -(raw & 1)
    elif registration == _BOOLEAN:
        result, position = data[position] == 1, position + 1
    elif registration == _STRING:
        result, position = _string(data, position)
    else:
        raise UnreadableValue(f"a Kryo value of class registration {registration - 2}, which a replay does not read")
    if position != len(data):
        raise UnreadableValue(f"{len(data) - position} bytes after the Kryo value")
    return result


def _var_int(data: bytes, position: int) -> Tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[position]
        position += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, position
        shift += 7


def _string(data: bytes, position: int) -> Tuple[Any, int]:
    first = data[position]
    if not first & 0x80:  # ASCII, the last byte flagged
        end = position
        while not data[end] & 0x80:
            end += 1
        text = data[position:end].decode("ascii") + chr(data[end] & 0x7F)
        return text, end + 1
    # A UTF-8 flagged var int of the char count + 1 (0: null), then the chars.
    count = first & 0x3F
    position += 1
    if first & 0x40:
        more, position = _var_int(data, position)
        count |= more << 6
    if count == 0:
        return None, position
    chars = []
    for _ in range(count - 1):
        byte = data[position]
        if byte < 0x80:
            chars.append(byte)
            position += 1
        elif byte >> 5 == 0x06:
            chars.append((byte & 0x1F) << 6 | data[position + 1] & 0x3F)
            position += 2
        else:
            chars.append((byte & 0x0F) << 12 | (data[position + 1] & 0x3F) << 6 | data[position + 2] & 0x3F)
            position += 3
    # Java chars: a pair of surrogates is one character.
    text = "".join(map(chr, chars)).encode("utf-16", "surrogatepass").decode("utf-16")
    return text, position
