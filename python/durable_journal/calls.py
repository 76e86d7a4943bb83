"""The durable call running now, its idempotency key, and the interruption of
an at-most-once call.

A journaled call that was running when its process died runs again on the
re-run (at least once). Its *idempotency key* is the same on every run, in
every process, and differs between calls: hand it to a service that
deduplicates requests by such a key (payments, mail, tickets) and the
service sees the call once. The key is derived by the native library
(``rust/identity/idempotency.rs``, docs/identity.md "Idempotency keys") from
the call's store entry, its durable id and its occurrence among the
action's calls with that id.

Inside a durable call's body, :func:`current_call` says which call it is.
The runtime that runs the body (the Flink Agents integration) enters
:func:`running_call` around it; a body running on another thread or task of
the same context sees it too (a ``contextvars`` variable).
"""

from __future__ import annotations

import contextlib
import contextvars
from dataclasses import dataclass
from typing import Iterator, Optional

from . import _native
from ._native import ErrorCode, JournalError


def call_idempotency_key(entry: bytes, call_id: str, occurrence: int) -> str:
    """``idem:`` and 32 hex digits: the key of the ``occurrence``-th call
    (from 0) with durable id ``call_id`` in the action execution stored under
    ``entry`` (the canonical encoding of its store key, docs/store.md)."""
    if not isinstance(entry, (bytes, bytearray)):
        raise TypeError(f"entry must be bytes, not {type(entry).__name__}")
    entry = bytes(entry)
    call_id_bytes = _native.utf8(call_id, "call_id")
    return _native.call(
        "durable_journal_call_idempotency_key",
        entry,
        len(entry),
        call_id_bytes,
        _native.length(call_id_bytes),
        _native.int64(occurrence, "occurrence"),
    )


@dataclass(frozen=True)
class DurableCall:
    """The durable call whose body is running."""

    #: The call's durable id (spec §3).
    call_id: str
    #: Its position in the action's journal (0-based).
    position: int
    #: The key an external service can deduplicate this call's repeats by.
    idempotency_key: str


_current: contextvars.ContextVar[Optional[DurableCall]] = contextvars.ContextVar("durable_journal_call", default=None)


def current_call() -> DurableCall:
    """The durable call whose body runs in this context. Outside a body
    (in the action itself, or in no action at all) a LookupError."""
    call = _current.get()
    if call is None:
        raise LookupError("no durable call is running here: current_call() answers inside the body of a durable call")
    return call


@contextlib.contextmanager
def running_call(call: DurableCall) -> Iterator[DurableCall]:
    """Makes ``call`` the current call while the block runs (for runtimes
    that run durable calls' bodies)."""
    token = _current.set(call)
    try:
        yield call
    finally:
        _current.reset(token)


class CallInterruptedError(JournalError, RuntimeError):
    """An at-most-once call was started by an earlier run that ended before
    its outcome was recorded: it may have taken effect, so it does not run
    again. Raised into the action where the call was made; code
    ``CALL_INTERRUPTED``."""

    def __init__(
        self,
        message: str,
        call_id: str,
        position: int,
        idempotency_key: Optional[str] = None,
        key: Optional[str] = None,
        sequence_number: Optional[int] = None,
        action: Optional[str] = None,
    ):
        super().__init__(ErrorCode.CALL_INTERRUPTED, message)
        self.call_id = call_id
        self.position = position
        self.idempotency_key = idempotency_key
        #: The business key as the store names it (``str:user-1``), when known.
        self.key = key
        self.sequence_number = sequence_number
        self.action = action
