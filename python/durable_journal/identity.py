"""Spec §3 for Python: durable ids of calls and RuntimeIdentity.

Every hash is computed by the native library (rust/identity), the same code
the Java runtime calls, so both derive byte-identical ids.
"""

from __future__ import annotations

import ctypes
import json
import threading
from typing import Any, Callable, List, Mapping, Optional, Sequence, Tuple

from . import _native
from .callables import resolve_call
from .canonical import bound_call_tree, call_tree

#: The durable id of every built-in chat attempt (retries share it; attempts
#: are told apart by their call index in the journal). The same value as the
#: Rust and Java copies: tests/vectors/identity.json (kind ``chat``) checks all three.
CHAT_DURABLE_ID = "chat"


def compute_function_id(func: Callable[..., Any]) -> str:
    """``"module.qualname"`` of the function ``func`` runs: a function, a
    method, or what a partial, a wrapper or a callable object stands for
    (``durable_journal.callables``)."""
    return resolve_call(func, (), {}).function_id


def compute_args_digest(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    """16 lowercase hex characters of SHA-256 over the canonical encoding of
    (args, kwargs): the same in every process, whatever PYTHONHASHSEED is."""
    tree = _encode(call_tree(args, kwargs))
    return _native.call("durable_journal_args_digest", tree, len(tree))


def durable_identity_for_call(
    func: Callable[..., Any],
    args: Sequence[Any],
    kwargs: Mapping[str, Any],
    durable_id: Optional[str] = None,
) -> str:
    """The journal id of a call: ``durable_id`` unchanged when given (then the
    arguments need no canonical form), else ``"module.qualname::digest"`` of
    the function the call runs and every argument it receives: a partial's
    bound arguments and a callable object's state included
    (``durable_journal.callables.resolve_call``). The native library decides
    (rust/identity ``call_durable_id``) and asks for the call only when it
    derives the id."""

    def describe() -> Tuple[bytes, bytes]:
        resolved = resolve_call(func, args, kwargs)
        function_id = _native.utf8(resolved.function_id, "function id")
        return function_id, _encode(bound_call_tree(resolved.args, resolved.kwargs))

    return _native.call_durable_id(_native.utf8(durable_id, "durable_id"), describe)


def tool_call_durable_id(tool_call_id: str) -> str:
    """``"tool-call:" + tool_call_id``, the id unchanged."""
    return _native.call("durable_journal_tool_call_durable_id", *_texts(tool_call_id=tool_call_id))


def _texts(**texts: Optional[str]) -> List[Any]:
    """The C ABI's (pointer, length) pairs of string arguments, in order,
    each checked and encoded as UTF-8 under its own name."""
    pairs: List[Any] = []
    for name, text in texts.items():
        data = _native.utf8(text, name)
        pairs += [data, _native.length(data)]
    return pairs


def _encode(tree: Any) -> bytes:
    # Strings were checked to have a UTF-8 form; floats travel as bit
    # patterns, so allow_nan never matters.
    return json.dumps(tree, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode("utf-8")


class RuntimeIdentity:
    """Occurrence, execution and generated call ids (spec §3). Each one hashes
    a domain tag and length-prefixed components in the native library."""

    @staticmethod
    def root_occurrence(serialized_business_key: bytes, input_sequence: int) -> str:
        """``occ:...`` of an input event: its serialized key and sequence number."""
        key = _key_bytes(serialized_business_key)
        return _native.call(
            "durable_journal_root_occurrence_id",
            key,
            _native.length(key),
            _native.int64(input_sequence, "input_sequence"),
        )

    @staticmethod
    def action_execution(triggering_occurrence: str, action_name: str) -> str:
        """``exec:...`` of one action triggered by one occurrence."""
        return _native.call(
            "durable_journal_action_execution_id",
            *_texts(triggering_occurrence=triggering_occurrence, action_name=action_name),
        )

    @staticmethod
    def emitted_occurrence(producer_execution: str, emission_ordinal: int) -> str:
        """``occ:...`` of the n-th event (from 0) an execution emitted."""
        return _native.call(
            "durable_journal_emitted_occurrence_id",
            *_texts(producer_execution=producer_execution),
            _native.int64(emission_ordinal, "emission_ordinal"),
        )

    @staticmethod
    def generated_call_id(namespace: str, session_id: str, call_ordinal: int) -> str:
        """``call:...``: the n-th generated call (from 0) in a namespace and session."""
        return _native.call(
            "durable_journal_generated_call_id",
            *_texts(namespace=namespace, session_id=session_id),
            _native.int64(call_ordinal, "call_ordinal"),
        )

    @staticmethod
    def for_execution(execution_id: str) -> "ExecutionIdentity":
        """The ordinal allocators of one execution."""
        return ExecutionIdentity(execution_id)


class ExecutionIdentity:
    """Deterministic allocators of one action execution: emission ordinals and
    per-target call ordinals, kept in the native library. Each call holds this
    object's lock: the native handle serves one call at a time (rust/capi.rs). A fresh instance
    over the same execution hands out the same ids in the same order, which
    is what makes a replay land on the journal it wrote.

    Use as a context manager or call close(); a call after close raises.
    """

    def __init__(self, execution_id: str):
        handle = ctypes.c_void_p()
        _native.call(
            "durable_journal_execution_identity_new", *_texts(execution_id=execution_id), ctypes.byref(handle)
        )
        self._handle: Optional[int] = handle.value
        self._lock = threading.Lock()
        self.execution_id = execution_id

    def emit(self, existing_id: Optional[str] = None) -> str:
        """The occurrence id of the next emitted event. Pass the id the event
        already carries, if any: re-emitting an event is an error
        (IllegalStateError) and uses no ordinal."""
        existing = _texts(existing_id=existing_id)
        with self._lock:
            return _native.call("durable_journal_execution_identity_emit", self._live_handle(), *existing)

    def next_call_id(self, target: str, session_id: str) -> str:
        """The id of the next generated call to ``target`` (one counter per
        target) in ``session_id``."""
        texts = _texts(target=target, session_id=session_id)
        with self._lock:
            return _native.call("durable_journal_execution_identity_next_call_id", self._live_handle(), *texts)

    def close(self) -> None:
        """Frees the native allocators; idempotent."""
        with self._lock:
            handle, self._handle = self._handle, None
        if handle is not None:
            _native.free_execution_identity(handle)

    def _live_handle(self) -> int:
        if self._handle is None:
            raise RuntimeError("ExecutionIdentity is closed")
        return self._handle

    def __enter__(self) -> "ExecutionIdentity":
        return self

    def __exit__(self, *exc_info: Any) -> None:
        self.close()

    def __del__(self) -> None:
        # A forgotten close() must not leak; at interpreter shutdown the
        # library may already be gone, and there is nobody left to tell.
        try:
            self.close()
        except Exception:
            pass


def _key_bytes(value: Any) -> Optional[bytes]:
    if value is None:
        return None
    if not isinstance(value, (bytes, bytearray)):
        raise TypeError(f"serialized_business_key must be bytes, not {type(value).__name__}")
    return bytes(value)
