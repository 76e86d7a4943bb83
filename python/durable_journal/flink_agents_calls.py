"""Flink Agents' Python durable calls under durable_journal's native journal:
the current call inside a body, and at-most-once calls.

Under ``DurableAgents.connectToAgent`` a Python action's journal is the
native one (the Java object behind ``ctx._j_runner_context
.getDurableExecutionContext()`` is ``NativeJournalContext``).
:func:`install` (called by ``durable_journal.flink_agents.install``) wraps
``FlinkRunnerContext.durable_execute`` and ``durable_execute_async`` so that:

* a call's body (and its reconciler) can read
  ``durable_journal.current_call()``: its durable id, position and
  idempotency key, which the native journal derives (one crossing into Java
  per call, made where the call is made);
* a function wrapped with :func:`at_most_once` is at most once when it has no
  reconciler: its PENDING slot is stored before its body runs, and a re-run
  that finds it interrupted raises
  :class:`durable_journal.CallInterruptedError` into the action instead of
  running the body. With a reconciler Flink Agents' own path already stores
  the PENDING slot first and lets the reconciler decide.
* under a job default (``DurableAgents.connectToAgent(..., CallSemantics)``)
  a ``durable_execute`` call without a reconciler that declares nothing takes
  the default; one wrapped with :func:`at_least_once` stays at least once.
  The native journal decides which applies (``beginCallWithSemantics``).

Under Flink Agents' own journal (no ``NativeJournalContext``) calls go to
Flink Agents unchanged: no current call, and an at-most-once function is an
ordinary call. ``durable_execute_async`` takes no at-most-once function (a
``TypeError``): Flink Agents records an async call only when it is awaited.
The key of an async call is the one of the position where
``durable_execute_async`` is called.
"""

from __future__ import annotations

import functools
from typing import Any, Callable, Dict, Optional, Tuple

from .calls import CallInterruptedError, DurableCall, running_call

_MODULE = "flink_agents.runtime.flink_runner_context"
_CLASS = "FlinkRunnerContext"
_SEMANTICS = "__durable_journal_call_semantics__"
#: Java's CallSemantics names, which the native journal context takes.
_AT_MOST_ONCE_NAME = "AT_MOST_ONCE"
_AT_LEAST_ONCE_NAME = "AT_LEAST_ONCE"

#: FlinkRunnerContext's own methods, while installed.
_originals: Dict[str, Callable[..., Any]] = {}


def at_most_once(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` as an at-most-once durable call. The wrapper stands for
    ``func`` in the call's identity (``functools.wraps``), so its durable id
    and args digest are ``func``'s."""
    return _declaring(func, _AT_MOST_ONCE_NAME)


def at_least_once(func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` as an at-least-once durable call whatever the job's default
    (only a job whose default is at most once needs it); its identity is
    ``func``'s, as for :func:`at_most_once`."""
    return _declaring(func, _AT_LEAST_ONCE_NAME)


def _declaring(func: Callable[..., Any], semantics: str) -> Callable[..., Any]:
    @functools.wraps(func)
    def call(*args: Any, **kwargs: Any) -> Any:
        return func(*args, **kwargs)

    setattr(call, _SEMANTICS, semantics)
    return call


def declared_semantics(func: Callable[..., Any]) -> Optional[str]:
    """The semantics a function wrapped by :func:`at_most_once` or
    :func:`at_least_once` declares (Java's ``CallSemantics`` name), else None."""
    return getattr(func, _SEMANTICS, None)


def is_at_most_once(func: Callable[..., Any]) -> bool:
    return declared_semantics(func) == _AT_MOST_ONCE_NAME


def install(function_id: Callable[..., str], args_digest: Callable[..., str]) -> None:
    """Wraps FlinkRunnerContext's durable calls; ``function_id`` and
    ``args_digest`` name a call as the journal does. Idempotent."""
    if _originals:
        return
    import importlib

    context_class = getattr(importlib.import_module(_MODULE), _CLASS)
    execute = context_class.durable_execute
    execute_async = context_class.durable_execute_async

    def durable_execute(self: Any, func: Callable[..., Any], *args: Any, reconciler: Optional[Callable[[], Any]] = None, **kwargs: Any) -> Any:
        journal = _native_journal(self)
        if journal is None:
            return execute(self, func, *args, reconciler=reconciler, **kwargs)
        function, digest = function_id(func), args_digest(args, kwargs)
        call, job_has_default = _current(journal, function, digest)
        body = _running(call, func)
        declared = declared_semantics(func)
        if reconciler is None and (declared is not None or job_has_default):
            return _decided(journal, function, digest, declared, body, args, kwargs)
        return execute(self, body, *args, reconciler=None if reconciler is None else _running(call, reconciler), **kwargs)

    def durable_execute_async(self: Any, func: Callable[..., Any], *args: Any, reconciler: Optional[Callable[[], Any]] = None, **kwargs: Any) -> Any:
        journal = _native_journal(self)
        if journal is None:
            return execute_async(self, func, *args, reconciler=reconciler, **kwargs)
        if is_at_most_once(func):
            raise TypeError("an at-most-once function is called with ctx.durable_execute, not durable_execute_async")
        call, _ = _current(journal, function_id(func), args_digest(args, kwargs))
        wrapped = None if reconciler is None else _running(call, reconciler)
        return execute_async(self, _running(call, func), *args, reconciler=wrapped, **kwargs)

    _originals.update(durable_execute=execute, durable_execute_async=execute_async)
    context_class.durable_execute = durable_execute
    context_class.durable_execute_async = durable_execute_async


def uninstall() -> None:
    """Puts FlinkRunnerContext's own methods back; nothing when not installed."""
    if not _originals:
        return
    import importlib

    context_class = getattr(importlib.import_module(_MODULE), _CLASS)
    for name, method in _originals.items():
        setattr(context_class, name, method)
    _originals.clear()


def _native_journal(ctx: Any) -> Any:
    """The NativeJournalContext behind a Python runner context, or None (also
    for a context with no Java runner context behind it, as Flink Agents' own
    tests build: there is no native journal then)."""
    durable_context = getattr(getattr(ctx, "_j_runner_context", None), "getDurableExecutionContext", None)
    if durable_context is None:
        return None
    journal = durable_context()
    if journal is None or not hasattr(journal, "beginAtMostOnceCall"):
        return None
    return journal


def _current(journal: Any, function: str, digest: str) -> Tuple[DurableCall, bool]:
    """The call about to be made, and whether the job has a default semantics
    for calls that declare none (one crossing into Java)."""
    call_id, position, key, job_has_default = journal.currentCall(function, digest)
    return DurableCall(str(call_id), int(position), str(key)), bool(job_has_default)


def _running(call: DurableCall, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func``, run with ``call`` as the current call; its identity stays ``func``'s."""

    @functools.wraps(func)
    def body(*args: Any, **kwargs: Any) -> Any:
        with running_call(call):
            return func(*args, **kwargs)

    return body


def _decided(journal: Any, function: str, digest: str, declared: Optional[str], body: Callable[..., Any], args: tuple, kwargs: dict) -> Any:
    """The native journal decides (``beginCallWithSemantics``, the declared
    semantics under the job's default); the payloads are Flink Agents'
    cloudpickle ones. A body's outcome that cannot be pickled raises without
    being recorded, as on Flink Agents' own path."""
    import cloudpickle

    outcome = journal.beginCallWithSemantics(function, digest, declared)
    if outcome is None:
        result, exception = None, None
        try:
            result = body(*args, **kwargs)
        except BaseException as e:  # recorded and re-raised, as Flink Agents does
            exception = e
        result_payload = None if exception is not None else cloudpickle.dumps(result)
        exception_payload = None if exception is None else cloudpickle.dumps(exception)
        journal.recordCallCompletion(function, digest, result_payload, exception_payload)
        if exception is not None:
            raise exception
        return result
    if outcome[0]:
        _, result, exception = outcome
        if exception is not None:
            raise cloudpickle.loads(bytes(exception))
        return None if result is None else cloudpickle.loads(bytes(result))
    _, message, call_id, position, key, business_key, sequence_number, action = outcome
    raise CallInterruptedError(str(message), str(call_id), int(position), key, business_key,
                               None if sequence_number is None else int(sequence_number), action)
