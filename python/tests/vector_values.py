"""Builds real Python values from the tagged trees of the shared vectors,
including dataclasses and pydantic models named in ``python_types``."""

from __future__ import annotations

import base64
import dataclasses
import json
import struct
from typing import Any, Dict

import pydantic


class NativeBuilder:
    def __init__(self, python_types: Dict[str, Dict[str, str]], reverse: bool = False):
        self._python_types = python_types
        self._classes: Dict[str, type] = {}
        # reverse=True builds every dict, set and object with its entries in
        # the opposite order: the digest must not notice.
        self._reverse = reverse

    def call(self, args, kwargs):
        built_kwargs = [(name, self.value(v)) for name, v in kwargs.items()]
        return tuple(self.value(a) for a in args), dict(self._order(built_kwargs))

    def value(self, tree: Any, hashable: bool = False) -> Any:
        if tree is None or isinstance(tree, bool):
            return tree
        ((tag, body),) = tree.items()
        if tag == "int":
            return int(body)
        if tag == "float":
            return struct.unpack(">d", bytes.fromhex(body))[0]
        if tag == "str":
            return body
        if tag == "bytes":
            return base64.b64decode(body)
        if tag == "list":
            assert not hashable, "a list cannot be a dict key or set element in Python"
            return [self.value(item) for item in body]
        if tag == "tuple":
            return tuple(self.value(item, hashable) for item in body)
        if tag == "dict":
            entries = [(self.value(k, hashable=True), self.value(v)) for k, v in body]
            return dict(self._order(entries))
        if tag == "set":
            items = self._order([self.value(item, hashable=True) for item in body])
            return frozenset(items) if hashable else set(items)
        if tag == "object":
            cls = self._class(body["type"], list(body["fields"]))
            fields = self._order([(name, self.value(v)) for name, v in body["fields"].items()])
            return cls(**dict(fields))
        raise AssertionError(f"unknown tag {tag}")

    def _order(self, items):
        return list(reversed(items)) if self._reverse else list(items)

    def _class(self, type_name: str, field_names) -> type:
        if type_name not in self._classes:
            kind = self._python_types[type_name]["kind"]
            module, _, qualname = type_name.rpartition(".")
            if kind == "dataclass":
                cls = dataclasses.make_dataclass(qualname, [(f, Any) for f in field_names])
            elif kind == "pydantic":
                cls = pydantic.create_model(qualname, **{f: (Any, ...) for f in field_names})
            else:
                raise AssertionError(f"unknown python kind {kind}")
            cls.__module__ = module
            cls.__qualname__ = qualname
            self._classes[type_name] = cls
        return self._classes[type_name]


def normalized(tree: Any) -> Any:
    """A tree with set elements in a fixed order, so trees made from Python
    sets (iteration order depends on PYTHONHASHSEED) compare with the vectors."""
    if isinstance(tree, list):
        return [normalized(item) for item in tree]
    if isinstance(tree, dict):
        if set(tree) == {"set"}:
            return {"set": sorted((normalized(i) for i in tree["set"]), key=json.dumps)}
        return {key: normalized(value) for key, value in tree.items()}
    return tree
