"""Python values -> the tagged tree the native library encodes and hashes.

Nothing is hashed here (docs/identity.md, "Tagged tree"): this module only
says what each value *is*, in a form Java builds too, so both languages reach
the same bytes in Rust. A value without a canonical form raises TypeError
naming where it sits (``kwargs['cfg'].client``) and suggesting durable_id=.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import enum
import struct
import sys
from typing import Any, Dict, Iterator, List, Mapping, Sequence

from ._native import ErrorCode, NonCanonicalArgumentError
from .callables import BoundValue, RecursiveReference, ResolvedCall, caller_arguments

#: ``object`` types of a captured callable and of a reference to one already
#: being described: not ``module.qualname`` (no dot), so no Python class has them.
FUNCTION_TYPE = "<function>"
RECURSION_TYPE = "<recursion>"

#: Containers nested deeper than this have no canonical form (the same bound
#: as ``MAX_NESTING`` in rust/identity/canonical.rs).
MAX_NESTING = 32

_DECIMAL_CHUNK_DIGITS = 1000


class NonCanonicalValue(NonCanonicalArgumentError):
    """A value with no canonical encoding, found before anything reaches the
    native library; the same class (and message shape) as the library's own
    NON_CANONICAL_ARGUMENT errors, so callers catch one TypeError."""

    def __init__(self, path: str, reason: str):
        super().__init__(
            ErrorCode.NON_CANONICAL_ARGUMENT,
            f"argument {path} has no canonical encoding: {reason}; "
            "pass durable_id= to name the call explicitly",
        )
        self.path = path


def call_tree(args: Sequence[Any], kwargs: Mapping[str, Any]) -> Dict[str, Any]:
    """The call tree ``{"args": [...], "kwargs": {...}}`` of one call."""
    positional, keywords = caller_arguments(args, kwargs)
    return bound_call_tree(positional, keywords)


def bound_call_tree(args: Sequence[BoundValue], kwargs: Mapping[Any, BoundValue]) -> Dict[str, Any]:
    """The call tree of arguments that carry their own paths (those of a
    resolved call: the caller's, a partial's, a callable object's ``self``)."""
    converter = _Converter()
    return {"args": converter.arguments(args, 1), "kwargs": converter.keywords(kwargs, 1)}


def value_tree(value: Any, path: str = "value") -> Any:
    """The tagged tree of a single value."""
    return _Converter().convert(value, path, 1)


def type_name(cls: type) -> str:
    """``module.qualname`` of a class: the type of an ``object`` node."""
    return f"{cls.__module__}.{cls.__qualname__}"


class _Converter:
    def __init__(self) -> None:
        # ids of the containers on the current path: seeing one again is a cycle.
        self._open: set = set()

    def arguments(self, args: Sequence[BoundValue], depth: int) -> List[Any]:
        return [self.convert(bound.value, bound.path, depth) for bound in args]

    def keywords(self, kwargs: Mapping[Any, BoundValue], depth: int) -> Dict[str, Any]:
        trees = {}
        for name, bound in kwargs.items():
            if not isinstance(name, str):
                raise NonCanonicalValue(bound.path, "keyword argument names must be str")
            _check_utf8(name, bound.path)
            trees[name] = self.convert(bound.value, bound.path, depth)
        return trees

    def convert(self, value: Any, path: str, depth: int) -> Any:
        if value is None or isinstance(value, bool):
            return value
        if isinstance(value, ResolvedCall):
            # Before dataclasses (ResolvedCall is one): a captured callable.
            return self._function(value, path, depth)
        if isinstance(value, RecursiveReference):
            fields = {"id": {"str": value.function_id}, "levels": {"int": str(value.levels)}}
            return {"object": {"type": RECURSION_TYPE, "fields": fields}}
        if isinstance(value, enum.Enum):
            # Before int and str: IntEnum and StrEnum members are named by their
            # member name, like Java enum constants, not by their value.
            return self._object(value, {"name": value.name}, path, depth)
        if isinstance(value, int):
            return {"int": _decimal(value)}
        if isinstance(value, float):
            return {"float": struct.pack(">d", value).hex()}
        if isinstance(value, str):
            _check_utf8(value, path)
            return {"str": value}
        if isinstance(value, (bytes, bytearray)):
            return {"bytes": base64.b64encode(bytes(value)).decode("ascii")}
        if isinstance(value, (list, tuple, dict, set, frozenset)):
            return self._container(value, path, depth)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            fields = {f.name: getattr(value, f.name) for f in dataclasses.fields(value) if f.compare}
            return self._object(value, fields, path, depth)
        model_fields = _pydantic_fields(value)
        if model_fields is not None:
            return self._object(value, model_fields, path, depth)
        raise NonCanonicalValue(path, f"values of type {type_name(type(value))} have no canonical form")

    @contextlib.contextmanager
    def _inside(self, value: Any, path: str, depth: int) -> Iterator[None]:
        """Enters a container or object at ``depth``: too deep or already on
        the path (a cycle) has no canonical form."""
        if depth > MAX_NESTING:
            raise NonCanonicalValue(path, f"containers are nested more than {MAX_NESTING} deep")
        if id(value) in self._open:
            raise NonCanonicalValue(path, "the value contains itself (a cyclic reference)")
        self._open.add(id(value))
        try:
            yield
        finally:
            self._open.discard(id(value))

    def _container(self, value: Any, path: str, depth: int) -> Any:
        with self._inside(value, path, depth):
            if isinstance(value, list):
                return {"list": self._items(value, path, depth)}
            if isinstance(value, tuple):
                return {"tuple": self._items(value, path, depth)}
            if isinstance(value, dict):
                return {"dict": self._entries(value, path, depth)}
            # set and frozenset compare equal in Python, so they share a tag.
            return {
                "set": [
                    self.convert(item, f"{path}.<element #{i}>", depth + 1)
                    for i, item in enumerate(value)
                ]
            }

    def _items(self, items: Sequence[Any], path: str, depth: int) -> List[Any]:
        return [self.convert(item, f"{path}[{i}]", depth + 1) for i, item in enumerate(items)]

    def _entries(self, mapping: Dict[Any, Any], path: str, depth: int) -> List[Any]:
        entries = []
        for i, (key, value) in enumerate(mapping.items()):
            key_tree = self.convert(key, f"{path}.<key #{i}>", depth + 1)
            entries.append([key_tree, self.convert(value, path + _key_segment(key), depth + 1)])
        return entries

    def _object(self, value: Any, fields: Dict[str, Any], path: str, depth: int) -> Any:
        tree_fields = {}
        with self._inside(value, path, depth):
            for name, field_value in fields.items():
                field_path = f"{path}.{name}"
                _check_utf8(name, field_path)
                tree_fields[name] = self.convert(field_value, field_path, depth + 1)
        return {"object": {"type": type_name(type(value)), "fields": tree_fields}}


    def _function(self, call: ResolvedCall, path: str, depth: int) -> Any:
        """A captured callable: the object ``<function>`` with its function
        id, and its arguments as a tuple and a dict, each nested one deeper."""
        if depth + 1 > MAX_NESTING:
            raise NonCanonicalValue(path, f"containers are nested more than {MAX_NESTING} deep")
        keywords = self.keywords(call.kwargs, depth + 2)
        fields = {
            "id": {"str": call.function_id},
            "args": {"tuple": self.arguments(call.args, depth + 2)},
            "kwargs": {"dict": [[{"str": name}, tree] for name, tree in keywords.items()]},
        }
        return {"object": {"type": FUNCTION_TYPE, "fields": fields}}


def _key_segment(key: Any) -> str:
    """``[key]`` as Python would write it, for keys that read well that way."""
    if key is None or isinstance(key, (str, int, bool)):
        return f"[{key!r}]"
    return "[<key>]"


def _check_utf8(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise NonCanonicalValue(
            path, f"the string has no UTF-8 form ({e.reason} at position {e.start})"
        ) from None


def _decimal(value: int) -> str:
    """str(int) for any size. Python 3.11+ refuses str() of ints above
    ``sys.get_int_max_str_digits()`` digits; convert those chunk by chunk
    instead of changing that process-wide limit."""
    try:
        return str(int(value))
    except ValueError:
        pass
    sign = "-" if value < 0 else ""
    magnitude = abs(int(value))
    chunk = 10**_DECIMAL_CHUNK_DIGITS
    chunks = []
    while magnitude:
        magnitude, low = divmod(magnitude, chunk)
        chunks.append(low)
    head = str(chunks[-1])
    tail = "".join(f"{c:0{_DECIMAL_CHUNK_DIGITS}d}" for c in reversed(chunks[:-1]))
    return sign + head + tail


def _pydantic_fields(value: Any):
    """Field values of a pydantic model (v2, or v1 through ``pydantic.v1``),
    or None for anything else. pydantic is only looked at if the process has
    imported it: a model cannot exist otherwise."""
    if "pydantic" not in sys.modules:
        return None
    pydantic = sys.modules["pydantic"]
    base_model = getattr(pydantic, "BaseModel", None)
    if base_model is not None and isinstance(value, base_model) and hasattr(type(value), "model_fields"):
        fields = {name: getattr(value, name) for name in type(value).model_fields}
        extra = getattr(value, "__pydantic_extra__", None) or {}
        fields.update(extra)
        return fields
    v1 = sys.modules.get("pydantic.v1")
    v1_base = getattr(v1, "BaseModel", None) if v1 is not None else None
    for candidate in (v1_base, base_model):
        if candidate is not None and isinstance(value, candidate) and hasattr(type(value), "__fields__"):
            return {name: getattr(value, name) for name in type(value).__fields__}
    return None
