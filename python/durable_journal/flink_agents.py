"""Flink Agents' Python durable calls (0.3.1 and main) with durable_journal's identity.

Flink Agents names each ``durable_execute`` / ``durable_execute_async`` call
by a function id and a digest of its arguments, and on recovery replays a
recorded call only when the call at the same position has the same pair. Its
digest is SHA-256 of a cloudpickle dump of ``(args, kwargs)``: the dump of a
set of strings follows the set's iteration order, which PYTHONHASHSEED
changes, and a class defined in ``__main__`` (or any module cloudpickle
pickles by value) is dumped with a tracker id that is new in every process.
After a restart in a new Python process such a call no longer matches its
record, so it runs again and the record of every later call is dropped.

``install()`` replaces the two functions that compute the pair,
``_compute_function_id`` and ``_compute_args_digest``, in every module that
holds them, with :func:`function_id` and :func:`args_digest`. Which modules
those are depends on the Flink Agents version: :data:`PATCHES` lists them
per supported version (in 0.3.1 and main at 8ad3a32b alike
``flink_agents.runtime.durable_execution`` and
``flink_agents.runtime.flink_runner_context``, which imported them by name). Nothing else of Flink Agents
changes: results and exceptions are still cloudpickle payloads, and the replay
logic is still ``FlinkRunnerContext``'s (under ``DurableAgents`` the Java side
of each decision is the native journal).

Under the native journal ``install()`` also lets a call's body read
``durable_journal.current_call()`` (its idempotency key) and makes a function
wrapped with :func:`at_most_once` an at-most-once call, one wrapped with
:func:`at_least_once` an at-least-once call under a job default of at most
once (see ``durable_journal.flink_agents_calls``).

Call ``install()`` once in the module that defines the agent, at import time:
Flink Agents' Python operator imports that module in its embedded interpreter
before any action runs. The new identity is scoped to that module (and, for a
package's ``__init__``, to the package's modules): a durable call gets it only
while code of such a module is running, i.e. inside the actions of that
agent. One interpreter serves every job of a TaskManager (pemja), and jobs
whose agents never call ``install()`` keep Flink Agents' own identity even
when they run after, or next to, one that does. ``uninstall()`` ends the
calling module's scope only; Flink Agents' functions are put back once no
scope is left.

Journals recorded before ``install()``: their calls carry cloudpickle digests,
which never equal the new digests (and a partial's or a callable object's
function id changes too). An action that was in flight when a job switched
runs its first durable call again: the call does not match its record, so
Flink Agents drops that record and every later one of the action, and all of
the action's calls run once more and are recorded with the new ids. Actions
that had completed are not affected (their outputs are re-emitted without
running), and actions that start after the switch only ever see new ids.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import itertools
import sys
import threading
from typing import Any, Callable, Dict, FrozenSet, Mapping, Optional, Sequence, Tuple

from . import flink_agents_calls
from ._native import ErrorCode, NonCanonicalArgumentError
from .flink_agents_calls import at_least_once, at_most_once
from .callables import function_name
from .identity import compute_args_digest

#: Per supported Flink Agents version (as ``importlib.metadata`` names it),
#: the modules holding a reference to each replaced function, the defining
#: module first. A version that is not listed gets the entry of the nearest
#: listed one (the same release line, else the newest older one) when every
#: one of its modules holds both functions; else ``install()`` refuses it.
PATCHES: Dict[str, Sequence[str]] = {
    "0.3.1": (
        "flink_agents.runtime.durable_execution",
        "flink_agents.runtime.flink_runner_context",
    ),
    "0.4.dev0+main.8ad3a32b": (
        "flink_agents.runtime.durable_execution",
        "flink_agents.runtime.flink_runner_context",
    ),
}

#: The modules of the first supported version (kept for callers that read it).
PATCHED_MODULES = PATCHES["0.3.1"]

_FUNCTION_ID = "_compute_function_id"
_ARGS_DIGEST = "_compute_args_digest"

_DURABLE_ID_HINT = "; pass durable_id= to name the call explicitly"

_lock = threading.Lock()
#: module name -> Flink Agents' own (function id, args digest) functions, while installed.
_originals: Dict[str, Dict[str, Callable[..., str]]] = {}
#: The modules (or packages) whose running code gets durable_journal's identity.
_scopes: FrozenSet[str] = frozenset()


def function_id(func: Callable[..., Any]) -> str:
    """``module.qualname`` of the function ``func`` runs: a partial, a bound
    method, a ``functools.wraps`` wrapper or a callable object is named by
    the function it ends up calling (``durable_journal.callables``), a lambda
    by its ``<lambda>`` qualname, as Flink Agents names it (its journal
    matches a call by position, so the name only has to be the same in every
    process). A callable durable_journal cannot name (a builtin method of a C
    object) keeps the name Flink Agents gives it."""
    try:
        return function_name(func, lambdas=True)
    except TypeError:
        original = _original(_FUNCTION_ID)
        if original is None:
            raise
        return original(func)


def args_digest(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    """16 lowercase hex characters over the canonical form of the call's own
    arguments (``compute_args_digest``): the same in every process, whatever
    PYTHONHASHSEED is and wherever a class is defined. A value with no
    canonical form raises TypeError naming where it sits, before the call
    runs (Flink Agents would have hashed its ``str()`` instead)."""
    try:
        return compute_args_digest(args, kwargs)
    except NonCanonicalArgumentError as error:
        message = str(error)
        if message.endswith(_DURABLE_ID_HINT):
            message = message[: -len(_DURABLE_ID_HINT)]
        raise NonCanonicalArgumentError(
            ErrorCode.NON_CANONICAL_ARGUMENT,
            f"durable call of Flink Agents: {message}; a durable call's arguments need a canonical form "
            "(str, int, float, bool, None, bytes, list, tuple, dict, set, a dataclass or a pydantic model), "
            "so pass other values to the function another way (a closure or a partial, whose bound "
            "values are not digested)",
        ) from None


def scoped_function_id(func: Callable[..., Any]) -> str:
    """What Flink Agents' modules call while installed: :func:`function_id`
    inside a scope (see :func:`install`), Flink Agents' own elsewhere."""
    if _in_scope():
        return function_id(func)
    return _original(_FUNCTION_ID)(func)


def scoped_args_digest(args: Sequence[Any], kwargs: Mapping[str, Any]) -> str:
    """What Flink Agents' modules call while installed: :func:`args_digest`
    inside a scope (see :func:`install`), Flink Agents' own elsewhere."""
    if _in_scope():
        return args_digest(args, kwargs)
    return _original(_ARGS_DIGEST)(args, kwargs)


def install(scope: Optional[str] = None) -> None:
    """Gives the durable calls made while ``scope``'s code runs (by default
    the calling module; a package's name covers its modules) durable_journal's
    :func:`function_id` and :func:`args_digest`. The first call replaces
    Flink Agents' two functions in every module that uses them with
    dispatchers (:func:`scoped_function_id`, :func:`scoped_args_digest`) that
    keep Flink Agents' own identity for every other call, so another job's
    agent in the same interpreter is not changed. Idempotent; raises
    ImportError, changing nothing, when Flink Agents' Python runtime cannot
    be imported."""
    global _scopes
    scope = scope if scope is not None else _caller_module()
    with _lock:
        if not _originals:
            modules = [importlib.import_module(name) for name in patched_modules()]
            for module in modules:
                for attribute in (_FUNCTION_ID, _ARGS_DIGEST):
                    if not callable(getattr(module, attribute, None)):
                        raise ImportError(
                            f"durable_journal.flink_agents: {module.__name__} has no {attribute} in this Flink "
                            f"Agents ({_flink_agents_version()}; supported: {', '.join(PATCHES)}), so install() "
                            "cannot give its durable calls durable_journal's identity"
                        )
            for module in modules:
                _originals[module.__name__] = {
                    _FUNCTION_ID: getattr(module, _FUNCTION_ID),
                    _ARGS_DIGEST: getattr(module, _ARGS_DIGEST),
                }
            for module in modules:
                setattr(module, _FUNCTION_ID, scoped_function_id)
                setattr(module, _ARGS_DIGEST, scoped_args_digest)
            # The current call and at-most-once calls on the native journal
            # (flink_agents_calls), naming each call as the dispatchers do.
            flink_agents_calls.install(scoped_function_id, scoped_args_digest)
        _scopes = _scopes | {scope}


def uninstall(scope: Optional[str] = None) -> None:
    """Ends ``scope``'s identity (by default the calling module's); once no
    scope is left, puts Flink Agents' own functions back. Other modules'
    scopes, and the jobs running their agents, are not changed. Nothing when
    not installed."""
    global _scopes
    scope = scope if scope is not None else _caller_module()
    with _lock:
        _scopes = _scopes - {scope}
        if _scopes:
            return
        flink_agents_calls.uninstall()
        for name, functions in _originals.items():
            module = importlib.import_module(name)
            for attribute, original in functions.items():
                setattr(module, attribute, original)
        _originals.clear()


def installed(scope: Optional[str] = None) -> bool:
    """Whether ``install()`` is in effect: for ``scope`` when given, else
    for any module."""
    with _lock:
        return scope in _scopes if scope is not None else bool(_originals)


def scopes() -> FrozenSet[str]:
    """The modules and packages that called :func:`install` (and not yet
    :func:`uninstall`)."""
    return _scopes


def _caller_module() -> str:
    """The module that called the public function calling this one."""
    return sys._getframe(2).f_globals.get("__name__", "__main__")


def _in_scope() -> bool:
    """Whether code of a scoped module is running on this thread: a frame of
    the call stack (the action, a coroutine it awaits from, a helper it
    calls) belongs to one."""
    current = _scopes
    if not current:
        return False
    frame = sys._getframe(2)
    while frame is not None:
        name = frame.f_globals.get("__name__")
        if name is not None and (name in current or _under(name, current)):
            return True
        frame = frame.f_back
    return False


def _under(name: str, packages: FrozenSet[str]) -> bool:
    """Whether module ``name`` is inside one of ``packages`` (at any depth)."""
    while "." in name:
        name = name.rpartition(".")[0]
        if name in packages:
            return True
    return False


def _original(attribute: str) -> Any:
    """Flink Agents' own function, from its defining module: the saved one
    while installed, else the module's current attribute; None when Flink
    Agents is not importable."""
    for saved in _originals.values():
        return saved[attribute]
    try:
        module = importlib.import_module(patched_modules()[0])
    except ImportError:
        return None
    return getattr(module, attribute)


def patched_modules(version: Optional[str] = None) -> Sequence[str]:
    """The modules :func:`install` patches for Flink Agents ``version`` (the
    installed one by default): its :data:`PATCHES` entry, else that of the
    nearest supported version."""
    version = version or _flink_agents_version()
    if version in PATCHES:
        return PATCHES[version]
    return PATCHES[_nearest_supported(version)]


def _nearest_supported(version: str) -> str:
    """The supported version of the same release line (``0.4.1`` -> the
    ``0.4`` entry), else the newest one older than ``version``, else the oldest."""
    def release(text: str) -> Tuple[int, ...]:
        numbers = []
        for part in text.split("+")[0].split("."):
            digits = "".join(itertools.takewhile(str.isdigit, part))
            if not digits:
                break
            numbers.append(int(digits))
        return tuple(numbers)

    wanted = release(version)
    supported = sorted(PATCHES, key=release)
    same_line = [known for known in supported if release(known)[:2] == wanted[:2]]
    if same_line:
        return same_line[-1]
    older = [known for known in supported if release(known) <= wanted]
    return older[-1] if older else supported[0]


def _flink_agents_version() -> str:
    """The installed flink-agents distribution's version; ``"unknown"`` without
    one (a source checkout on the path: the oldest entry's modules are tried)."""
    try:
        return importlib.metadata.version("flink-agents")
    except importlib.metadata.PackageNotFoundError:
        return "unknown"
